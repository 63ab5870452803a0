"""A tiny test driver for the example bots: one match over real pipes, or in-process.

Not the arena's runner (no sandbox, no fault policy): any malformed, illegal or late
reply raises :class:`BotError`, which fails the test.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import yaml

from arena.game import Match, events_for, make_rules, observe
from arena.game.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
BOTS = ROOT / "bots"
BOT_PYTHON = "/usr/bin/python3"
TIMEOUT = 10.0


class BotError(AssertionError):
    """A bot broke the protocol."""


def manifest(bot_dir: Path) -> dict[str, Any]:
    with open(bot_dir / "bot.yaml", encoding="utf-8") as f:
        data = yaml.safe_load(f)
    assert isinstance(data, dict), f"{bot_dir}/bot.yaml is not a mapping"
    return data


def argv_of(bot_dir: Path) -> list[str]:
    run = manifest(bot_dir)["run"]
    return [BOT_PYTHON if part == "{python}" else part for part in run]


def build(bot_dir: Path) -> None:
    """Run the manifest's build command (if any) in the bot directory."""
    command = manifest(bot_dir).get("build")
    if command:
        subprocess.run(command, shell=True, cwd=bot_dir, check=True, timeout=120)


def copy_bot(bot_dir: Path, dest: Path) -> Path:
    """Copy a bot directory (and ``bots/lib``) so a build does not touch the source tree."""
    target = dest / "bots" / bot_dir.name
    shutil.copytree(bot_dir, target, ignore=shutil.ignore_patterns("bot", "__pycache__"))
    lib = dest / "bots" / "lib"
    if not lib.exists():
        shutil.copytree(BOTS / "lib", lib, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def hello(rules: Rules, players: int, seat: int, match_id: str) -> dict[str, Any]:
    return {"type": "hello", "protocol": 1, "match": match_id, "seat": seat, "players": players,
            "rules": rules.to_json(), "values": rules.value_map(),
            "time": {"move_ms": 1000, "startup_ms": 10000}}


class BotProc:
    """One bot process: write lines, read lines with a deadline."""

    def __init__(self, bot_dir: Path) -> None:
        self.dir = bot_dir
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv_of(bot_dir), cwd=bot_dir, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=self.err, bufsize=0)
        self.buf = b""
        assert self.proc.stdout is not None
        self.fd = self.proc.stdout.fileno()

    def send(self, obj: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write((json.dumps(obj) + "\n").encode())

    def recv(self, timeout: float = TIMEOUT) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([self.fd], [], [], left)[0]:
                raise BotError(f"{self.dir.name}: no reply within {timeout}s; stderr: {self.stderr()}")
            chunk = os.read(self.fd, 65536)
            if not chunk:
                raise BotError(f"{self.dir.name}: stdout closed; stderr: {self.stderr()}")
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        try:
            msg = json.loads(line)
        except ValueError as exc:
            raise BotError(f"{self.dir.name}: not JSON: {line[:200]!r}") from exc
        if not isinstance(msg, dict):
            raise BotError(f"{self.dir.name}: not an object: {line[:200]!r}")
        return msg

    def stderr(self) -> str:
        self.err.seek(0)
        return self.err.read()[-2000:].decode(errors="replace")

    def close(self, timeout: float = 5.0) -> int:
        """Close stdin and wait for a prompt exit; return the exit code.

        Output the bot wrote without being asked (e.g. a reply to ``update``) fails."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
        except BrokenPipeError:
            pass
        try:
            code = self.proc.wait(timeout)
            rest = self.buf
            while select.select([self.fd], [], [], 0)[0]:
                chunk = os.read(self.fd, 65536)
                if not chunk:
                    break
                rest += chunk
            if rest.strip():
                raise BotError(f"{self.dir.name}: unrequested output {rest[:200]!r}")
            return code
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            self.proc.stdout.close()  # type: ignore[union-attr]
            self.err.close()


def chosen_action(msg: dict[str, Any], request_id: int, legal: list[dict[str, Any]], who: str) -> dict[str, Any]:
    """The legal action a bot's reply names; BotError for anything else."""
    if msg.get("type") != "action" or msg.get("id") != request_id or type(msg.get("id")) is not int:
        raise BotError(f"{who}: bad reply {msg!r} to act {request_id}")
    if "index" in msg:
        index = msg["index"]
        if type(index) is not int or not 0 <= index < len(legal):
            raise BotError(f"{who}: bad index {index!r} (legal has {len(legal)})")
        return dict(legal[index])
    action = msg.get("action")
    if not isinstance(action, dict) or action not in legal:
        raise BotError(f"{who}: action {action!r} is not legal")
    return action


class Seat:
    """How the driver talks to one seat: ``hello`` returns the name, ``act`` the reply."""

    def hello(self, msg: dict[str, Any]) -> str:
        raise NotImplementedError

    def act(self, msg: dict[str, Any]) -> dict[str, Any]:
        raise NotImplementedError

    def notify(self, msg: dict[str, Any]) -> None: ...


class ProcSeat(Seat):
    def __init__(self, proc: BotProc) -> None:
        self.proc = proc

    def hello(self, msg: dict[str, Any]) -> str:
        self.proc.send(msg)
        reply = self.proc.recv()
        if reply.get("type") != "ready" or not isinstance(reply.get("name"), str):
            raise BotError(f"{self.proc.dir.name}: bad ready {reply!r}")
        return str(reply["name"])

    def act(self, msg: dict[str, Any]) -> dict[str, Any]:
        self.proc.send(msg)
        return self.proc.recv()

    def notify(self, msg: dict[str, Any]) -> None:
        self.proc.send(msg)


class PolicySeat(Seat):
    """An in-process policy class (``factory(hello)`` with ``act``, optional ``update``)."""

    def __init__(self, factory: Callable[[dict[str, Any]], Any]) -> None:
        self.factory = factory
        self.policy: Any = None

    def hello(self, msg: dict[str, Any]) -> str:
        self.policy = self.factory(msg)
        return getattr(self.policy, "name", "policy")

    def act(self, msg: dict[str, Any]) -> dict[str, Any]:
        index = self.policy.act(msg["state"], msg["legal"], msg["events"])
        return {"type": "action", "id": msg["id"], "index": index}

    def notify(self, msg: dict[str, Any]) -> None:
        if msg["type"] == "update" and hasattr(self.policy, "update"):
            self.policy.update(msg["events"])


def play(seats: Sequence[Seat], preset: str, seed: int | str, options: dict[str, Any] | None = None,
         match_id: str | None = None, copy_json: bool = True,
         make_match: Callable[[Rules, int, int | str], Match] = Match) -> Match:
    """Play one match to the end; return the finished engine match.

    ``copy_json`` sends every message through a JSON round trip, as over a pipe; ``make_match`` makes the
    engine's match (a luck meter watching it, say)."""
    rules = make_rules(preset, options or {})
    n = len(seats)
    match = make_match(rules, n, seed)
    mid = match_id or f"m-{seed}"
    for seat, bot in enumerate(seats):
        bot.hello(hello(rules, n, seat, mid))
    sent = [0] * n
    next_id = 1

    def pack(msg: dict[str, Any]) -> dict[str, Any]:
        return json.loads(json.dumps(msg)) if copy_json else msg

    def flush_updates() -> None:
        for seat, bot in enumerate(seats):
            if sent[seat] < len(match.events):
                bot.notify(pack({"type": "update", "events": events_for(match, seat, sent[seat])}))
                sent[seat] = len(match.events)

    while not match.over:
        for seat in match.asked():
            legal = match.legal_actions(seat)
            msg = {"type": "act", "id": next_id, "state": observe(match, seat),
                   "events": events_for(match, seat, sent[seat]), "legal": legal}
            sent[seat] = len(match.events)
            reply = seats[seat].act(pack(msg))
            action = chosen_action(reply, next_id, legal, f"seat {seat}")
            next_id += 1
            before = len(match.events)
            match.apply(seat, action)
            if any(e.type == "round_over" for e in match.events[before:]):
                flush_updates()
            if match.over:
                break
    flush_updates()
    assert match.result is not None
    for bot in seats:
        bot.notify(pack({"type": "over", "result": match.result.to_json()}))
    return match


def play_processes(bot_dirs: Sequence[Path], preset: str, seed: int | str,
                   options: dict[str, Any] | None = None, quiet: bool = True) -> Match:
    """One match with one fresh process per seat; every process must exit after stdin closes.

    ``quiet``: the bots must not log anything either (the examples only log errors)."""
    procs = [BotProc(d) for d in bot_dirs]
    logs: list[str] = []
    try:
        match = play([ProcSeat(p) for p in procs], preset, seed, options)
    finally:
        logs = [p.stderr() for p in procs]
        codes = [p.close() for p in procs]
    assert codes == [0] * len(procs), f"exit codes {codes}"
    if quiet:
        assert logs == [""] * len(procs), f"bots logged: {logs}"
    return match


if __name__ == "__main__":  # quick manual run: python -m tests.bots_examples.driver heuristic random ...
    names = sys.argv[1:] or ["heuristic", "random"]
    m = play_processes([BOTS / n for n in names], "standard", 1)
    print(m.result.to_json() if m.result else None)
