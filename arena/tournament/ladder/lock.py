"""One ``arena run`` per ladder: an exclusive flock on a file in its output directory, held by the run.

Two runs would hand out the same match indices. The kernel drops a flock when its
process dies, so a killed run never leaves a stale lock behind. The run writes the time it
started into the file: ``arena prune`` must know whether a version left the field before
the running run first read it (:func:`started`).
"""

from __future__ import annotations

import fcntl
import os
import time
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
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{time.time():.6f}\n".encode(), 0)  # when this run started: see started()
        yield
    finally:
        os.close(fd)


def started(output: Path) -> float | None:
    """When the ``arena run`` holding the lock of ``output`` started (a Unix time); None when no run holds it.

    ``0.0`` when a run holds it but wrote no time (an older arena): it may have started at any time.
    The probe holds the lock for an instant only, so a run starting at that very instant could be
    refused (it says so; starting it again works).
    """
    path = Path(output) / LOCK_NAME
    try:
        fd = os.open(path, os.O_RDONLY)
    except FileNotFoundError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
            return None  # nobody holds it exclusively: no run
        except BlockingIOError:
            pass
        try:
            return float(os.pread(fd, 64, 0).decode().strip() or 0)
        except ValueError:
            return 0.0
    finally:
        os.close(fd)
