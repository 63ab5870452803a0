"""One arena's build of a bot never changes its files under another arena starting that bot.

Two tournaments sharing a bot directory (a standard and an espanola league run side by
side, say) each run the bot's build when they start. ``gcc -o bot`` recreates the binary,
and a bot started during the link fails with "Permission denied" or "Text file busy": a
startup fault charged to a bot that did nothing wrong. So a build holds an exclusive
lock per bot directory, and a table starting bots holds a shared one until they are
ready; each waits for the other. Locks are ``flock`` on files in this user's private
arena directory (see :func:`arena.sandbox.orphans.registry`), so they vanish with the
process holding them, however it dies.

A bot's dependency environment (:mod:`arena.bots.env`) is built once per version into a
cache shared by every arena on the machine, so two arenas preparing one version take
turns on :func:`entry_lock`, a lock file beside the cache entry: the second waits, then
finds the environment built.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import time
from collections.abc import Iterable, Iterator

from ..sandbox.orphans import registry

LOCKS = "locks"
"""Folder of the lock files inside the private arena directory."""

BUCKETS = 256
"""Lock files in all: a directory's lock is one of these, by hash, so the folder never grows.
Two directories sharing one only make a build wait for the other's start-ups too."""


class BotBusy(OSError):
    """The lock could not be had in time; the message says which directory."""


@contextlib.contextmanager
def bot_lock(directories: Iterable[str | None], exclusive: bool, timeout: float = 300.0) -> Iterator[None]:
    """Hold the lock of every bot directory given (None entries are plain commands: skipped).

    Locks are taken in sorted order, so two holders never wait for each other in a
    circle. An exclusive lock is retried until ``timeout`` (shared holders come and go;
    a blocking wait could starve behind a busy tournament), then :class:`BotBusy`.
    """
    folder = registry()
    fds: list[int] = []
    try:
        if folder is not None:
            locks = os.path.join(folder, LOCKS)
            os.makedirs(locks, mode=0o700, exist_ok=True)
            buckets = {_bucket(os.path.realpath(d)): os.path.realpath(d) for d in directories if d}
            for bucket in sorted(buckets):
                fd = os.open(os.path.join(locks, f"{bucket:03d}.lock"), os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
                fds.append(fd)
                _acquire(fd, exclusive, timeout, f"{buckets[bucket]}: another arena kept starting this bot for "
                         f"{timeout:.0f} s; cannot build it now (try again when that run is past its start-ups)")
        yield
    finally:
        for fd in fds:
            os.close(fd)  # closing the file releases its lock


@contextlib.contextmanager
def entry_lock(entry: str, timeout: float) -> Iterator[None]:
    """Hold the exclusive lock of the cache entry ``entry``: ``<entry>.lock``, beside it.

    The lock file lives in the cache, not in this user's private arena directory, so that
    arenas of other users sharing a cache take turns too. It is never removed (removing a
    lock file another process is waiting on would let a third one lock a new file).
    """
    fd = os.open(entry + ".lock", os.O_RDONLY | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        _acquire(fd, True, timeout, f"{entry}: another arena has been building this environment for "
                                    f"{timeout:.0f} s; try again when it is done")
        yield
    finally:
        os.close(fd)  # closing the file releases its lock


def _bucket(directory: str) -> int:
    return int.from_bytes(hashlib.sha256(directory.encode()).digest()[:4], "big") % BUCKETS


def _acquire(fd: int, exclusive: bool, timeout: float, busy: str) -> None:
    """Lock ``fd``: shared at once (or when the build is done), exclusive by retrying until ``timeout``,
    then :class:`BotBusy` with the message ``busy``."""
    if not exclusive:
        fcntl.flock(fd, fcntl.LOCK_SH)  # waits only while a build runs
        return
    end = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > end:
                raise BotBusy(busy) from None
            time.sleep(0.01)
