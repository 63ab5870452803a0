"""Worker processes that play batches of match jobs; only the driver stores what they return.

A batch is a run of matches (never one deal twice) whose bot processes are reused from
one match to the next, each following its bot from seat to seat and table to table
(:func:`arena.runner.play_batch`); results still come back, and are stored, one match
at a time.

Workers ignore SIGINT (the driver decides what a Ctrl-C means) and turn SIGTERM
into an orderly exit, so a stopped run still kills every bot process it started.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import signal
import traceback
from dataclasses import dataclass
from types import FrameType
from typing import Iterable, Iterator, Sequence

from ..runner import MatchJob, MatchOutcome, play_batch
from ..sandbox.reaper import die_with_parent


@dataclass(frozen=True)
class Done:
    """What a worker sends back for one job."""

    index: int
    """Schedule index of the job."""
    outcome: MatchOutcome | None
    """The outcome, or None if the arena itself failed on this match."""
    error: str = ""
    """Traceback of an arena failure (never a bot's fault: those are in the outcome)."""


Batch = Sequence[tuple[int, MatchJob]]
"""Schedule indices and jobs that share bot processes (see :func:`arena.runner.play_batch`)."""


def _play(batch: Batch) -> Iterator[Done]:
    """Play a batch, one :class:`Done` per match as it finishes.

    An arena failure in one match is reported for that match; the rest of the batch
    goes on with fresh processes.
    """
    pending = list(batch)
    while pending:
        outcomes = play_batch([job for _, job in pending])
        try:
            for outcome in outcomes:
                yield Done(pending.pop(0)[0], outcome)
        except Exception:  # an arena bug must not take the tournament down with it
            yield Done(pending.pop(0)[0], None, traceback.format_exc())
        finally:
            outcomes.close()


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def _worker(parent: int, jobs: "mp.Queue[Batch | None]", done: "mp.Queue[Done]") -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _terminate)
    die_with_parent(signal.SIGTERM)  # a driver killed with SIGKILL takes its workers (and their bots) along
    if os.getppid() != parent:
        return
    while (batch := jobs.get()) is not None:
        for result in _play(batch):
            done.put(result)


def run_jobs(batches: Iterable[Batch], workers: int) -> Iterator[Done]:
    """Play batches of ``(index, job)`` pairs on ``workers`` processes, yielding each match's result.

    With one worker the batches run in this process. Closing the iterator early (or an
    exception in the consumer, such as KeyboardInterrupt) stops every worker and the
    bots they run.
    """
    if workers <= 1:
        for batch in batches:
            yield from _play(batch)
        return
    ctx = mp.get_context("fork")
    todo: "mp.Queue[Batch | None]" = ctx.Queue()
    results: "mp.Queue[Done]" = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(os.getpid(), todo, results), daemon=True) for _ in range(workers)]
    for proc in procs:
        proc.start()
    source = iter(batches)
    queued = 0  # batches handed out and not finished
    left: dict[int, int] = {}  # first index of a batch -> its matches still to come
    owner: dict[int, int] = {}  # schedule index -> first index of its batch
    try:
        for batch in source:  # keep two batches per worker queued, no more: Ctrl-C stays cheap
            queued += _hand_out(todo, batch, left, owner)
            if queued >= 2 * workers:
                break
        while queued:
            try:
                result = results.get(timeout=1.0)
            except queue.Empty:
                if not all(p.is_alive() for p in procs):
                    raise RuntimeError("a worker process died; finished matches are kept, run again to resume") from None
                continue
            first = owner.pop(result.index)
            left[first] -= 1
            if not left[first]:
                del left[first]
                queued -= 1
                nxt = next(source, None)
                if nxt is not None:
                    queued += _hand_out(todo, nxt, left, owner)
            yield result
        for _ in procs:
            todo.put(None)
        for proc in procs:
            proc.join(timeout=10)
    finally:
        for proc in procs:
            if proc.is_alive():
                proc.terminate()
        for proc in procs:
            proc.join(timeout=10)
            if proc.is_alive():
                proc.kill()


def _hand_out(todo: "mp.Queue[Batch | None]", batch: Batch, left: dict[int, int], owner: dict[int, int]) -> int:
    """Queue a batch for the workers and remember which results belong to it; 1 if queued."""
    if not batch:
        return 0
    first = batch[0][0]
    left[first] = len(batch)
    for index, _ in batch:
        owner[index] = first
    todo.put(list(batch))
    return 1
