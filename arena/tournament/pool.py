"""Worker processes that play batches of match jobs; only the driver stores what they return.

A batch is a run of matches (never one deal twice) whose bot processes are reused from
one match to the next, each following its bot from seat to seat and table to table
(:func:`arena.match.runner.play_batch`); results still come back, and are stored, one match
at a time. Every batch, even with a single worker, is played in a worker process, so a
bot that kills its parent kills a worker, never the driver.

A worker that dies, whatever killed it (a bot, the OOM killer, ``kill -9``), is
replaced, and the matches of its batch that had not come back are played again on
fresh processes: the one that was in play on its own, so that if it kills its worker a
second time it is known to be the culprit and is *voided* (reported, never rated),
the others together. A result that came back is never played again.
"""

from __future__ import annotations

import multiprocessing as mp
import time
from collections import deque
from dataclasses import dataclass
from multiprocessing.connection import wait
from typing import Generator, Iterable, Iterator

from ..match.runner import MatchJob, play_batch
from .records import VoidRecord
from .worker import Batch, Done, Play, Worker

__all__ = ["Batch", "Done", "PoolFailure", "Results", "Voided", "WorkerLost", "run_jobs", "DEATHS_TO_VOID", "death_reason"]

DEATHS_TO_VOID = 2
"""Worker deaths with a match in play after which the match is voided instead of played again."""

IDLE_DEATHS_LIMIT = 5
"""Worker deaths in a row with no match in play (and no result between them) before the pool gives up."""

POLL_SECONDS = 0.5
"""How long the pool waits before asking again for work when the source had none ready."""


Voided = VoidRecord
"""A match that killed its worker process :data:`DEATHS_TO_VOID` times: not played again, never rated
(the pool hands out the record the store keeps)."""


@dataclass(frozen=True)
class WorkerLost:
    """A worker process died; a fresh one takes over what it held."""

    pid: int
    """The dead worker's process id."""
    cause: str
    """How it ended: a signal name (``SIGKILL``) or ``exit status N``."""
    playing: str | None
    """Id of the match that was in play, if any."""
    replayed: int
    """Matches of its batch that will be played again (a match voided now is not among them)."""
    voided: bool = False
    """True if the match in play is voided now (a :class:`Voided` follows)."""


class PoolFailure(RuntimeError):
    """Workers keep dying without playing anything, or none can be started; the message says which."""


Results = Generator["Done | Voided | WorkerLost", None, None]
"""What an executor gives back: every match's result as it comes, and ``close()``, which stops what is still
in play (the driver closes it however the run ends)."""


def run_jobs(batches: Iterable[Batch], workers: int, play: Play | None = None) -> Results:
    """Play batches of ``(index, job)`` pairs on ``workers`` processes, yielding each match's result.

    Each match index ends up exactly once in a :class:`Done` or a :class:`Voided`;
    :class:`WorkerLost` reports a death in between. Each worker holds one batch at a
    time, taken from ``batches`` only when a worker is free, so a Ctrl-C drops little.
    An empty batch means the source has nothing ready yet (an open-ended schedule
    waiting for results or for bots): the pool asks again after the next result or
    :data:`POLL_SECONDS`, whichever comes first; the end of ``batches`` ends it.
    Closing the iterator early (or an exception in the consumer, such as
    KeyboardInterrupt) stops every worker and the bots they run. Raises
    :class:`PoolFailure` when workers cannot be kept alive. ``play`` replaces
    :func:`arena.match.runner.play_batch` (tests use fakes).
    """
    play = play or play_batch
    ctx = mp.get_context("fork")
    source = iter(batches)
    again: deque[list[tuple[int, MatchJob]]] = deque()  # what dead workers held: played before anything new
    causes: dict[int, list[str]] = {}  # match index -> how the workers that died playing it ended
    crew: list[Worker | None] = [None] * max(1, workers)
    idle_deaths = 0
    try:
        ended = False
        while True:
            waiting = False  # the source has nothing ready for a free worker yet
            for slot, worker in enumerate(crew):
                if worker is not None and worker.busy:
                    continue
                batch = again.popleft() if again else None if ended else next(source, None)
                if batch is None:
                    ended = True
                    break
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
                yield from _bury(worker, cause, causes, again)
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


def _bury(worker: Worker, cause: str, causes: dict[int, list[str]], again: deque[list[tuple[int, MatchJob]]]
          ) -> Iterator[Voided | WorkerLost]:
    """What a dead worker held goes back to be played: the match in play alone (or voided), the rest together."""
    rest = []
    voided = None
    for index, job in worker.held:
        if index != worker.playing:
            rest.append((index, job))
            continue
        causes.setdefault(index, []).append(cause)
        if len(causes[index]) >= DEATHS_TO_VOID:
            voided = Voided(index, job.match_id, tuple(b.name for b in job.bots), death_reason(causes[index]))
        else:
            again.append([(index, job)])  # alone: a second death pins this very match
    if rest:
        again.append(rest)
    in_play = next((job.match_id for index, job in worker.held if index == worker.playing), None)
    yield WorkerLost(worker.pid, cause, in_play, len(worker.held) - (voided is not None), voided is not None)
    if voided is not None:
        yield voided


def death_reason(causes: list[str]) -> str:
    """Why a match is voided, from the causes of its worker deaths; the Dask executor says it the same way."""
    times = "twice" if len(causes) == 2 else f"{len(causes)} times"
    how = f"{causes[0]} each time" if len(set(causes)) == 1 else " then ".join(causes)
    return f"killed its worker process {times}, {how}"
