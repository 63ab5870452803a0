"""Fixtures for the sandbox tests: backends, a bot launcher, and a /proc leftover check."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any
from pathlib import Path

import pytest

from arena.sandbox import Backend, Channel, LaunchSpec, Limits, get_backend

BOTS = Path(__file__).resolve().parents[1] / "bots"
PYTHON = "/usr/bin/python3"  # fast-starting system interpreter (the pyenv shim is slow)
BACKENDS = ["none", "bwrap"]


def soon(seconds: float) -> float:
    """A deadline ``seconds`` from now, in time.monotonic() terms."""
    return time.monotonic() + seconds


class Waits:
    """Every blocking wait a channel makes from now on (``_pull``, ``_wait_send``, ``_wait_exit``), to see
    that it honours a deadline by construction rather than by a duration a busy machine stretches.

    :meth:`all_end_by` holds when no wait was allowed to block past ``deadline``: each wait's timeout is
    compared with the time left when the one before it returned (the channel computed it later still,
    so it had at most that much left)."""

    def __init__(self, channel: Channel) -> None:
        self.since = time.monotonic()
        self.calls: list[tuple[str, float, float]] = []  # (method, timeout_ms, when it returned)
        self._depth = 0
        for name in ("_pull", "_wait_send", "_wait_exit"):
            setattr(channel, name, self._spy(name, getattr(channel, name)))

    def _spy(self, name: str, wait: Callable[[float], Any]) -> Callable[[float], Any]:
        def spy(timeout_ms: float) -> Any:
            self._depth += 1
            try:
                return wait(timeout_ms)
            finally:
                self._depth -= 1
                if not self._depth:  # one wait made of others (``_wait_exit`` by ``_wait_send``) is one
                    self.calls.append((name, timeout_ms, time.monotonic()))
        return spy

    def all_end_by(self, deadline: float) -> bool:
        before = self.since
        for _, timeout_ms, returned in self.calls:
            if timeout_ms > max(0.0, deadline - before) * 1000.0 + 1e-6:  # 1e-6 ms: float rounding, not time
                return False
            before = returned
        return True

    def none_block(self) -> bool:
        """True if every wait was a look at what is there (timeout 0)."""
        return all(timeout_ms == 0 for _, timeout_ms, _ in self.calls)


def leftovers(token: str, marker: str | None = None) -> list[str]:
    """Processes still around that belong to a bot, found independently of the sandbox code.

    Matches the bot's token in /proc/<pid>/environ, an optional marker in its command line,
    and zombies that are still children of this test process.
    """
    me = os.getpid()
    needle = f"ARENA_SANDBOX={token}".encode()
    found: list[str] = []
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                environ = f.read().split(b"\0")
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        state, ppid = fields[0].decode(), int(fields[1])
        if needle in environ or (marker and marker in cmdline) or (state == "Z" and ppid == me):
            found.append(f"pid {name} state {state} ppid {ppid}: {cmdline[:120]}")
    return found


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> Backend:
    """Each backend in turn; bwrap is skipped, with the reason, where it cannot run."""
    b = get_backend(request.param)
    ok, why = b.available()
    if not ok:
        pytest.skip(f"backend {request.param} unavailable: {why}")
    return b


Launcher = Callable[..., Channel]


@pytest.fixture
def launch(backend: Backend) -> Iterator[Launcher]:
    """Start ``tests/bots/<script>`` under the backend; everything is killed and checked at teardown."""
    started: list[Channel] = []

    def _launch(script: str, *args: str, limits: Limits | None = None,
                env: tuple[tuple[str, str], ...] = ()) -> Channel:
        spec = LaunchSpec((PYTHON, str(BOTS / script), *args), str(BOTS), limits or Limits(), env)
        proc = backend.start(spec)
        started.append(proc)
        return proc

    yield _launch
    for proc in started:
        proc.kill()
    for proc in started:
        assert leftovers(proc.token) == []
