"""The submission server's checks: one at a time, from a bounded queue, exactly as ``arena submit`` does them.

A check builds and plays the bot, so it costs what a local ``arena submit`` costs; run one at a
time it takes one core from the ladder's matches, whatever the number of uploads, and a queue
of at most :data:`MAX_WAITING` keeps a flood from piling up work (the upload past it is told to
come back later). An upload is unpacked under ``OUTPUT/.incoming/`` and, when its turn comes,
renamed to ``OUTPUT/uploads/NAME/`` (the bot in ``bot/``, its shared library, if any, in
``lib/``): :func:`arena.tournament.ladder.submit.submit` ties a name to the directory it was
first submitted from, so every version of a bot comes from that same directory. The previous
upload waits beside it as ``.prev-NAME`` until the check is over, and comes back if the new one
is refused. A server killed at any point leaves nothing half-done that :func:`recover` does not
put right at the next start: the store is written by the check in one transaction, at its end.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
import uuid
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ..bots import BotConfigError
from ..sandbox import SandboxError
from ..tournament.config import TournamentConfig
from ..tournament.ladder.entries import entries
from ..tournament.ladder.submit import CheckFailed, Refused, outcome_line, submit
from ..tournament.store import DB_NAME, ResultStore
from .store import ServerDB

MAX_WAITING = 16
"""Uploads queued for a check (the one being checked included) at most; past it: 503."""
INCOMING = ".incoming"
"""Folder of the output directory where uploads are unpacked before their turn."""
UPLOADS = "uploads"
"""Folder of the output directory holding each bot's latest upload: ``uploads/NAME/``."""
PREVIOUS = ".prev-"
"""Prefix of the previous upload of a bot while its new one is checked."""
STOPPED = "Error: the server stopped before this check ended; nothing was entered; submit again"

Check = Callable[..., Any]
""":func:`arena.tournament.ladder.submit.submit` or a stand-in with its signature."""


class QueueFull(Exception):
    """No room for another check; ``waiting`` is how many are queued."""

    def __init__(self, waiting: int) -> None:
        super().__init__(f"the check queue is full ({waiting} waiting); try again in a minute")
        self.waiting = waiting


@dataclass
class Job:
    """One upload on its way through the check."""

    id: str
    bot: str
    author: str
    upload: Path
    """The unpacked upload under ``.incoming``: ``bot/`` and perhaps ``lib/``."""
    name: str | None
    """The name asked for (``?name=``); None: the manifest's."""
    status: str = "queued"
    output: list[str] = field(default_factory=list)
    message: str | None = None
    exit: int | None = None
    created: float = field(default_factory=time.time)


def new_id() -> str:
    return uuid.uuid4().hex


class CheckQueue:
    """Checks uploads one after the other in a thread of its own."""

    def __init__(self, config: TournamentConfig, db: ServerDB, size: int = MAX_WAITING,
                 check: Check = submit) -> None:
        self.config = config
        self.db = db
        self.size = size
        self.check = check
        self._lock = threading.Lock()
        self._line: list[Job] = []
        """Jobs not done, in order: the first is being checked."""
        self._jobs: dict[str, Job] = {}
        self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="check")

    def waiting(self) -> int:
        with self._lock:
            return len(self._line)

    def full(self) -> bool:
        return self.waiting() >= self.size

    def put(self, job: Job) -> int:
        """Queue ``job``; how many are ahead of it. :class:`QueueFull` when there is no room."""
        with self._lock:
            if len(self._line) >= self.size:
                raise QueueFull(len(self._line))
            ahead = len(self._line)
            self._line.append(job)
            self._jobs[job.id] = job
        self.db.add_submission(job.id, job.bot, job.author)
        self._pool.submit(self._run, job)
        return ahead

    def ahead(self, job: Job) -> int:
        with self._lock:
            return self._line.index(job) if job in self._line else 0

    def job(self, sub_id: str) -> Job | None:
        with self._lock:
            return self._jobs.get(sub_id)

    def close(self) -> None:
        self._pool.shutdown(wait=False, cancel_futures=True)

    def _run(self, job: Job) -> None:
        try:
            job.status = "checking"
            self.db.set_submission(job.id, job.status, [], None, None)
            job.exit, job.message = self._check(job)
        except Exception as exc:  # the queue goes on with the next upload whatever happened to this one
            job.exit, job.message = 1, f"Error: the check stopped: {exc}"
        finally:
            job.status = "done"
            shutil.rmtree(job.upload, ignore_errors=True)
            with self._lock:
                if job in self._line:
                    self._line.remove(job)
                if len(self._jobs) > 10 * self.size:  # finished jobs stay readable in server.sqlite
                    for old in [k for k, j in self._jobs.items() if j.status == "done"][: self.size]:
                        del self._jobs[old]
            self.db.set_submission(job.id, job.status, job.output, job.message, job.exit)

    def _check(self, job: Job) -> tuple[int, str]:
        """Put the upload in place, check it as ``arena submit`` does; the exit code and the last line."""
        uploads = self.config.output / UPLOADS
        uploads.mkdir(exist_ok=True)
        target, previous = uploads / job.bot, uploads / f"{PREVIOUS}{job.bot}"
        if target.exists():
            os.rename(target, previous)
        os.rename(job.upload, target)
        entered = False
        try:
            done = self.check(self.config, str(target / "bot"), job.bot, echo=job.output.append)
            entered = True
            return 0, outcome_line(done, where=False)
        except CheckFailed as exc:
            return 1, str(exc)
        except (Refused, BotConfigError, SandboxError) as exc:
            return 1, f"Error: {exc}"
        finally:
            if entered:
                shutil.rmtree(previous, ignore_errors=True)
            else:
                _put_back(target, previous)


def _put_back(target: Path, previous: Path) -> None:
    """A refused upload leaves the previous one of its bot (if any) in its place."""
    shutil.rmtree(target, ignore_errors=True)
    if previous.exists():
        os.rename(previous, target)


def recover(config: TournamentConfig, db: ServerDB) -> None:
    """At the start: drop uploads that were never queued, close the submissions a stopped server left
    open, and put back what their checks had moved (a check that entered its bot keeps its upload)."""
    output = config.output
    shutil.rmtree(output / INCOMING, ignore_errors=True)
    unfinished = db.unfinished()
    if not unfinished:
        return
    entered_at: dict[str, float] = {}
    if (output / DB_NAME).is_file():
        store = ResultStore(output, readonly=True)
        try:
            for entry in entries(store.ladder):
                entered_at[entry.name] = max(entered_at.get(entry.name, 0.0), entry.submitted_at)
        finally:
            store.close()
    uploads = output / UPLOADS
    for sub_id, bot, status in unfinished:
        record = db.submission(sub_id) or {}
        if status == "checking":
            target, previous = uploads / bot, uploads / f"{PREVIOUS}{bot}"
            if entered_at.get(bot, 0.0) >= db.created(sub_id):  # killed after the check entered it
                shutil.rmtree(previous, ignore_errors=True)
                db.set_submission(sub_id, "done", record.get("output", []),
                                  "entered (the server stopped before it could say more)", 0)
                continue
            if previous.exists() or bot not in entered_at:  # else the previous upload is back in place already
                _put_back(target, previous)
        db.set_submission(sub_id, "done", record.get("output", []), STOPPED, 1)
