"""The local executor: worker processes on this machine play batches of match jobs; only the driver stores
what they return.

A batch is a run of matches (never one deal twice) whose bot processes are reused from
one match to the next, each following its bot from seat to seat and table to table
(:func:`arena.match.runner.play_batch`), and the processes that end a batch may serve a
later batch of the same worker that holds none of their deals (:mod:`arena.match.spare`);
results still come back, and are stored, one match at a time. Every batch, even with a
single worker, is played in a worker process, so a bot that kills its parent kills a
worker, never the driver.

A worker that dies, whatever killed it (a bot, the OOM killer, ``kill -9``), is
replaced, and the matches of its batch that had not come back are played again on
fresh processes as :class:`.ledger.DeathLedger` says (the one in play alone, voided if it
kills its worker a second time; the others together). A result that came back is never
played again.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from multiprocessing.connection import wait
from typing import Generator, Iterable, Sequence

from ..match.runner import MatchJob, MatchOutcome, play_batch
from ..match.spare import Spare
from .ledger import DeathLedger
from .results import Batch, Play, PoolFailure, Result
from .worker import Worker

__all__ = ["IDLE_DEATHS_LIMIT", "LocalStart", "POLL_SECONDS", "run_jobs"]

IDLE_DEATHS_LIMIT = 5
"""Worker deaths in a row with no match in play (and no result between them) before the pool gives up."""

POLL_SECONDS = 0.5
"""How long the pool waits before asking again for work when the source had none ready."""


class LocalStart:
    """The local executor as the registry makes it (the file's ``executor: local``, or none)."""

    def __call__(self, batches: Iterable[Batch], workers: int) -> Generator[Result, None, None]:
        return run_jobs(batches, workers)

    def describe(self, workers: int) -> str:
        return f"{workers} worker(s)"


class SparePlay:
    """:func:`arena.match.runner.play_batch` with the worker's spare processes (:mod:`arena.match.spare`):
    the processes that ended a batch may serve a later one of the same worker. Made before the fork, it
    holds nothing until a worker first plays, so each worker has its own; the worker closes it as it stops."""

    def __init__(self) -> None:
        self.spare: Spare | None = None

    def __call__(self, jobs: Sequence[MatchJob]) -> Generator[MatchOutcome, None, None]:
        if self.spare is None:
            self.spare = Spare()
        return play_batch(jobs, self.spare)

    def close(self) -> None:
        """Kill the kept processes: the worker stops."""
        if self.spare is not None:
            self.spare.close()


def run_jobs(batches: Iterable[Batch], workers: int, play: Play | None = None) -> Generator[Result, None, None]:
    """Play batches of ``(index, job)`` pairs on ``workers`` processes, yielding each match's result.

    Each match index ends up exactly once in a :class:`.results.Done` or a :class:`.results.Voided`;
    :class:`.results.WorkerLost` reports a death in between. Each worker holds one batch at a
    time, taken from ``batches`` only when a worker is free, so a Ctrl-C drops little; a free worker
    stops once ``batches`` has ended (a fresh one plays what a death leaves to play again).
    An empty batch means the source has nothing ready yet (an open-ended schedule
    waiting for results or for bots): the pool asks again after the next result or
    :data:`POLL_SECONDS`, whichever comes first; the end of ``batches`` ends it.
    Closing the iterator early (or an exception in the consumer, such as
    KeyboardInterrupt) stops every worker and the bots they run. Raises
    :class:`PoolFailure` when workers cannot be kept alive. ``play`` replaces :class:`SparePlay`
    (tests use fakes).
    """
    play = play or SparePlay()
    ctx = mp.get_context("fork")
    source = iter(batches)
    ledger = DeathLedger()  # what dead workers held: played before anything new
    crew: list[Worker | None] = [None] * max(1, workers)
    idle_deaths = 0
    try:
        ended = False
        while True:
            waiting = False  # the source has nothing ready for a free worker yet
            for slot, worker in enumerate(crew):
                if worker is not None and worker.busy:
                    continue
                batch = ledger.take() or (None if ended else next(source, None))
                if batch is None:
                    ended = True
                    if worker is not None:  # nothing more for it: it stops, and kills the processes it kept
                        worker.stop()
                        worker.end()
                        crew[slot] = None
                    continue
                if not batch:
                    waiting = True
                    break
                if worker is None:
                    worker = crew[slot] = _start(ctx, play)
                worker.give(list(batch))
            busy = [w for w in crew if w is not None and w.busy]
            if not busy:
                if not waiting:
                    break
                time.sleep(POLL_SECONDS)
                continue
            wait([w.messages for w in busy] + [w.process.sentinel for w in busy], POLL_SECONDS if waiting else None)
            for slot, worker in enumerate(crew):
                if worker is None:
                    continue
                for done in worker.receive():
                    idle_deaths = 0
                    yield done
                if not worker.dead:
                    continue
                crew[slot] = None
                cause = worker.cause()
                worker.end()
                if worker.busy and worker.playing is None:  # it got a batch but never started a match of it
                    idle_deaths += 1
                    if idle_deaths >= IDLE_DEATHS_LIMIT:
                        raise PoolFailure(f"{idle_deaths} worker processes in a row died before playing a match "
                                          f"(the last: {cause})")
                elif worker.playing is not None:
                    idle_deaths = 0
                yield from ledger.died(worker.pid, cause, worker.held, worker.playing)
        for worker in crew:
            if worker is not None:
                worker.stop()
    finally:
        alive = [w for w in crew if w is not None]
        for worker in alive:
            if not worker.stopping:
                worker.terminate()
        for worker in alive:
            worker.end()


def _start(ctx: mp.context.ForkContext, play: Play) -> Worker:
    try:
        return Worker(ctx, play)
    except OSError as exc:
        raise PoolFailure(f"cannot start a worker process: {exc}") from None
