"""Shared loop of the ``fault_*.py`` test bots (stdlib only, run with /usr/bin/python3).

Each fault bot plays exactly like ``bots/random`` (same seeding, so a fault bot that
never faults plays the same match) until one of the chosen ``act`` requests, where it
commits its fault instead of answering.

Usage of every bot built on this: ``fault_X.py [WHEN] [extra args of the bot]`` where
WHEN picks the faulting acts, counted from 1 for each match:

* ``3``      the 3rd act only (the default of most bots)
* ``2,5,9``  those acts
* ``4+``     the 4th act and every later one
* ``2-6``    acts 2 to 6
* ``0``      never (the bot then is a clean random bot)

Before faulting the bot writes ``FAULT-MARKER <bot> act <n>`` to stderr, so a test can
check that the arena captured the stderr tail.
"""

from __future__ import annotations

import json
import os
import random
import sys
from typing import Any, Callable, Iterator

MARKER = "FAULT-MARKER"
CORRUPT = "CORRUPT-LINE-FROM-ARENA"


def parse_when(text: str) -> Callable[[int], bool]:
    text = text.strip()
    if text.endswith("+"):
        first = int(text[:-1])
        return lambda n: n >= first
    chosen: set[int] = set()
    for part in text.split(","):
        if "-" in part:
            a, b = part.split("-", 1)
            chosen.update(range(int(a), int(b) + 1))
        elif part:
            chosen.add(int(part))
    chosen.discard(0)
    return lambda n: n in chosen


def arg(index: int, default: str) -> str:
    """sys.argv[index], or ``default`` when absent or empty."""
    return sys.argv[index] if len(sys.argv) > index and sys.argv[index] != "" else default


def log(text: str) -> None:
    sys.stderr.write(text + "\n")
    sys.stderr.flush()


def send_bytes(data: bytes) -> None:
    out = sys.stdout.buffer
    out.write(data)
    out.flush()


def send(obj: dict[str, Any]) -> None:
    send_bytes((json.dumps(obj, separators=(",", ":")) + "\n").encode())


class Bot:
    """Random play, with a fault on the chosen acts.

    ``fault(bot, msg, n)`` is called instead of answering the chosen act; it writes
    whatever it wants (or nothing) and may return normally to keep playing.
    ``phases`` (optional) restricts both the counting and the faulting to acts whose
    ``state.phase`` is one of them; other acts are answered normally.
    """

    def __init__(self, name: str, fault: Callable[["Bot", dict[str, Any], int], None],
                 when: str = "3", phases: str = "") -> None:
        self.name = name
        self.fault = fault
        self.hit = parse_when(when)
        self.phases = {p for p in phases.split(",") if p}
        self.hello: dict[str, Any] = {}
        self.rng = random.Random(0)
        self.count = 0
        self.strict = False
        """If set, a line from the arena that is not JSON makes the bot log CORRUPT and exit 86."""
        self.pending: list[bytes] = []
        """Lines already read from the arena (by :meth:`next_line`) that the loop has yet to handle."""

    def next_line(self) -> bytes:
        """The arena's next line, read now and handled later by the loop (b"" at the end of stdin).

        A fault may wait for it: a line from the arena while a request is unanswered means the
        arena gave up on that request (it timed out), whatever the speed of the machine."""
        line = sys.stdin.buffer.readline()
        if line:
            self.pending.append(line)
        return line

    def lines(self) -> Iterator[bytes]:
        """The arena's lines, those :meth:`next_line` read ahead first."""
        while True:
            if self.pending:
                yield self.pending.pop(0)
                continue
            raw = sys.stdin.buffer.readline()
            if not raw:
                return
            yield raw

    @property
    def move_ms(self) -> int:
        return int((self.hello.get("time") or {}).get("move_ms", 1000))

    def answer(self, msg: dict[str, Any]) -> None:
        legal = msg.get("legal") or [None]
        send({"type": "action", "id": msg.get("id"), "index": self.rng.randrange(len(legal))})

    def run(self) -> None:
        try:
            for raw in self.lines():
                try:
                    msg = json.loads(raw)
                except ValueError:
                    log(f"{self.name}: arena sent a line that is not JSON: {raw[:80]!r}")
                    if self.strict:
                        log(f"{CORRUPT} {len(raw)} bytes")
                        os._exit(86)
                    continue
                if not isinstance(msg, dict):
                    continue
                kind = msg.get("type")
                if kind == "hello":
                    self.hello = msg
                    self.rng = random.Random(f"{msg.get('match')}/{msg.get('seat')}")
                    self.count = 0
                    send({"type": "ready", "name": self.name})
                elif kind == "act":
                    phase = (msg.get("state") or {}).get("phase")
                    if self.phases and phase not in self.phases:
                        self.answer(msg)
                        continue
                    self.count += 1
                    if self.hit(self.count):
                        log(f"{MARKER} {self.name} act {self.count} id {msg.get('id')} phase {phase}")
                        self.fault(self, msg, self.count)
                    else:
                        self.answer(msg)
        except BrokenPipeError:
            pass
        finally:
            try:
                sys.stdout.flush()
            except BrokenPipeError:
                os._exit(0)
