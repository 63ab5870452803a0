"""One ``arena run`` per ladder: an exclusive flock on a file in its output directory, held by the run.

Two runs would hand out the same match indices. The kernel drops a flock when its
process dies, so a killed run never leaves a stale lock behind.
"""

from __future__ import annotations

import fcntl
import os
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

LOCK_NAME = "run.lock"


class AlreadyRunning(RuntimeError):
    """Another process holds the ladder's run lock."""


@contextmanager
def run_lock(output: Path) -> Iterator[None]:
    """Hold the run lock of ``output`` for the block, or raise :class:`AlreadyRunning` at once."""
    Path(output).mkdir(parents=True, exist_ok=True)
    path = Path(output) / LOCK_NAME
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AlreadyRunning(f"{output}: this ladder is already being run by another arena run "
                                 f"(it holds {path}); stop that one first") from None
        yield
    finally:
        os.close(fd)
