"""The high-level bot API: "ask this seat for an action by this deadline".

Built on a :class:`arena.sandbox.Channel` (bytes and lines, whatever the backend) and
:mod:`arena.match.protocol` (messages); turns every transport or protocol failure into a
:class:`arena.match.faults.BotFault` with a kind and a plain-words detail.
"""

from __future__ import annotations

import select
import time
from dataclasses import dataclass
from typing import Any, Mapping, Sequence

from ..sandbox import Channel, ChannelClosed, ChannelTimeout, LineTooLong
from . import protocol
from .faults import BotFault, FaultKind

NOTIFY_MS = 1000
"""Time a bot has to take an ``update`` or ``over`` off its stdin pipe."""


@dataclass(frozen=True)
class TimeControl:
    """Time limits of a match."""

    move_ms: int = 1000
    """Per decision, from writing ``act`` to reading the whole reply line."""
    startup_ms: int = 10000
    """From starting the process (or sending a new ``hello``) to reading ``ready``."""
    bank_ms: int | None = None
    """Optional extra time per match, drawn on when a decision takes longer than ``move_ms``."""


class BotLink:
    """One bot process serving one seat of a match (and possibly later matches)."""

    def __init__(self, name: str, process: Channel, time_control: TimeControl) -> None:
        self.name = name
        self.process = process
        self.time = time_control
        self.started = time.monotonic()
        """When the process was started (the link is made right after): start-up is timed from here."""
        self.hellos = 0
        self.startup_ms: float | None = None
        """From the process start to reading ``ready``, in the match that started the process; else None."""
        self.log_mark = 0
        """Stderr bytes already handed out by :meth:`new_stderr` (or dropped between matches)."""
        self.floor = 0
        """Stderr bytes that belong to earlier matches of this process (or to none): the fault tail starts here."""
        self.bank_ms = float(time_control.bank_ms or 0)
        self.request_id = 0
        self.sent_at = 0.0
        self.deadline = 0.0
        self.decisions = 0
        self.think_ms = 0.0
        self.max_ms = 0.0
        self.last_ms = 0.0
        """Milliseconds from sending the last request to reading its reply (the outcome keeps each)."""
        self.reported_name = ""
        self.timed_out: set[int] = set()
        """Ids of requests that timed out: a late reply to one of them is dropped, not a fault."""

    def send_hello(self, hello: Mapping[str, Any]) -> None:
        """Send ``hello``; the ``startup_ms`` clock starts now, and this match's counters from zero."""
        self.bank_ms = float(self.time.bank_ms or 0)
        self.request_id = 0
        self.decisions = 0
        self.think_ms = self.max_ms = 0.0
        self.timed_out.clear()
        self.hellos += 1
        self.startup_ms = None
        self.deadline = time.monotonic() + self.time.startup_ms / 1000.0
        try:
            self.process.send(protocol.encode(hello), self.deadline)
        except ChannelTimeout:
            raise self._startup_fault("did not read its hello from stdin") from None
        except ChannelClosed as exc:
            raise self._startup_fault(f"failed to start: {_describe(exc)}") from None

    def await_ready(self, block: bool = True) -> bool:
        """Read ``ready`` by the hello's deadline; any failure is a startup fault.

        With ``block=False`` only what has already arrived is read, and False means
        "no ready yet, deadline not reached".
        """
        try:
            line = self.process.readline(self.deadline if block else min(self.deadline, time.monotonic()))
            self.reported_name = protocol.check_ready(protocol.decode(line))
        except BotFault as fault:
            raise self._startup_fault(f"no valid 'ready' to hello: {fault.detail}") from None
        except ChannelTimeout:
            if not block and time.monotonic() < self.deadline:
                return False
            raise self._startup_fault(f"no 'ready' within startup_ms={self.time.startup_ms}") from None
        except (ChannelClosed, LineTooLong) as exc:
            raise self._startup_fault(f"failed to start: {_describe(exc)}") from None
        if self.hellos == 1:
            self.startup_ms = (time.monotonic() - self.started) * 1000.0
        else:  # written before its ready, so perhaps still about the previous match: in no match's log
            self._drop_stderr()  # (a startup fault drops it too: every way out of a start does)
        return True

    def _drop_stderr(self) -> None:
        """Hand out none of the stderr read so far, in a log or a fault's tail.

        A process serving another match may still be writing about the last one after its
        ``over``; the first sure boundary is its next ``ready``, since a bot writes ``ready``
        after every line it wrote before it (stderr is read before stdout is trusted here).
        """
        self.process.drain_stderr()
        self.log_mark = self.floor = self.process.stderr_total

    def _startup_fault(self, detail: str) -> BotFault:
        """A startup fault; for a reused process with none of its stderr, which may be the last match's."""
        if self.hellos > 1:
            self._drop_stderr()
            detail += " (a process that served an earlier match: its stderr is not kept, it may be about that match)"
        return BotFault(FaultKind.STARTUP, detail)

    def start_match(self, hello: Mapping[str, Any]) -> None:
        """Send ``hello`` and wait for ``ready`` (one bot; tables use the two steps for all seats at once)."""
        self.send_hello(hello)
        self.await_ready()

    def request(self, request_id: int, line: bytes) -> None:
        """Send an encoded ``act`` line (see :func:`arena.match.protocol.act_line`); its clock starts now."""
        self.request_id = request_id
        self.sent_at = time.monotonic()
        self.deadline = self.sent_at + (self.time.move_ms + self.bank_ms) / 1000.0
        self._send(line, self.deadline)

    def reply(self, legal: Sequence[Mapping[str, Any]], block: bool = True) -> int | None:
        """Read the reply to the last request; return the index of the chosen legal action.

        With ``block=False`` only what has already arrived is read, and None means
        "nothing complete yet, deadline not reached".
        """
        while True:
            try:
                line = self.process.readline(self.deadline if block else min(self.deadline, time.monotonic()))
            except ChannelTimeout:
                now = time.monotonic()
                if not block and now < self.deadline:
                    return None
                self._charge(now)
                self.timed_out.add(self.request_id)
                allowed = (self.deadline - self.sent_at) * 1000.0
                raise BotFault(FaultKind.TIMEOUT, f"no reply within {allowed:.0f} ms") from None
            except LineTooLong as exc:
                raise BotFault(FaultKind.LINE_TOO_LONG, _describe(exc)) from None
            except ChannelClosed as exc:
                raise BotFault(FaultKind.EXIT, _describe(exc)) from None
            now = time.monotonic()
            try:
                message = protocol.decode(line)
            except BotFault:
                self._charge(now)
                raise
            if message.get("type") == "action" and message.get("id") in self.timed_out:
                continue  # a late answer to a request that already timed out
            self._charge(now)
            return protocol.chosen_index(message, self.request_id, legal)

    def notify(self, message: Mapping[str, Any]) -> None:
        """Send a message that expects no reply (``update``, ``over``)."""
        self._send(protocol.encode(message), time.monotonic() + NOTIFY_MS / 1000.0)

    def end_input(self) -> None:
        """EOF on the bot's stdin: the signal to exit, without waiting for it."""
        self.process.close_stdin()

    def close(self, grace: float = 1.0) -> None:
        """Close stdin, give the bot ``grace`` seconds to exit, then kill everything it started."""
        self.process.close(grace)

    def kill(self) -> None:
        self.process.kill()

    def stderr_tail(self) -> str:
        """The end of what the bot wrote on stderr in this match (never an earlier match's)."""
        try:
            return self.process.stderr_tail(since=self.floor)
        except OSError:
            return ""

    def new_stderr(self) -> tuple[int, bytes] | None:
        """Stderr taken in since the last call, as ``(lost, data)`` (see ``Channel.stderr_since``);
        None when there is none, which costs no syscall and no copy."""
        total = self.process.stderr_total
        if total == self.log_mark:
            return None
        lost, data = self.process.stderr_since(self.log_mark)
        self.log_mark = total
        return lost, data

    def _send(self, data: bytes, deadline: float) -> None:
        try:
            self.process.send(data, deadline)
        except ChannelTimeout:
            # Part of the message may be in the pipe: the stream is out of step for good.
            raise BotFault(FaultKind.TIMEOUT, "stopped reading its stdin (the arena's message could not be "
                           "written in time)", fatal=True) from None
        except ChannelClosed as exc:
            raise BotFault(FaultKind.EXIT, _describe(exc)) from None

    def _charge(self, now: float) -> None:
        used = (now - self.sent_at) * 1000.0
        self.last_ms = used
        self.decisions += 1
        self.think_ms += used
        self.max_ms = max(self.max_ms, used)
        if used > self.time.move_ms:
            self.bank_ms = max(0.0, self.bank_ms - (used - self.time.move_ms))


def _describe(exc: Exception) -> str:
    code = getattr(exc, "returncode", None)
    if code is None:
        return str(exc)
    if code < 0:
        return f"{exc} (killed by signal {-code})"
    return f"{exc} (exit status {code})"


def _woken(links: Mapping[int, BotLink]) -> list[int]:
    """Wait until one of ``links`` may have news or the earliest deadline passes; the seats to look at."""
    poller = select.poll()
    owner: dict[int, int] = {}
    for seat, link in links.items():
        for fd in link.process.wait_fds():
            poller.register(fd, select.POLLIN)
            owner[fd] = seat
    if not owner:  # nothing left to wait on: each read ends at once (the bots are gone)
        return list(links)
    wait = min(link.deadline for link in links.values()) - time.monotonic()
    woken = {owner[fd] for fd, _ in poller.poll(max(0.0, wait) * 1000.0)}
    now = time.monotonic()
    return [seat for seat, link in links.items() if seat in woken or link.deadline <= now]


def collect_ready(links: Mapping[int, BotLink]) -> dict[int, BotFault]:
    """Read every ``ready`` as it comes (hellos sent), so each start-up is timed when it ends,
    not when the arena is done with the bots before it. Returns the seats that faulted."""
    faults: dict[int, BotFault] = {}
    pending = dict(links)
    while pending:
        for seat in _woken(pending):
            try:
                if pending[seat].await_ready(block=False):
                    del pending[seat]
            except BotFault as fault:
                faults[seat] = fault
                del pending[seat]
    return faults


def collect_replies(
    asked: Mapping[int, tuple[BotLink, Sequence[Mapping[str, Any]]]],
) -> dict[int, int | BotFault]:
    """Wait for several bots at once (a claim window): each is timed on its own clock.

    Returns, per seat, the chosen index or the fault. A bot is never charged for the
    time the arena spent waiting on another one.
    """
    results: dict[int, int | BotFault] = {}
    pending = dict(asked)
    if len(pending) == 1:
        (seat, (link, legal)), = pending.items()
        try:
            index = link.reply(legal)
            assert index is not None
            results[seat] = index
        except BotFault as fault:
            results[seat] = fault
        return results
    while pending:
        for seat in _woken({s: link for s, (link, _) in pending.items()}):
            link, legal = pending[seat]
            try:
                index = link.reply(legal, block=False)
            except BotFault as fault:
                results[seat] = fault
                del pending[seat]
                continue
            if index is not None:
                results[seat] = index
                del pending[seat]
    return results
