"""Worker processes that play match jobs; only the driver stores what they return.

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
from typing import Iterable, Iterator

from ..runner import MatchJob, MatchOutcome, play_match
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


def _play(index: int, job: MatchJob) -> Done:
    try:
        return Done(index, play_match(job))
    except Exception:  # an arena bug must not take the tournament down with it
        return Done(index, None, traceback.format_exc())


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def _worker(parent: int, jobs: "mp.Queue[tuple[int, MatchJob] | None]", done: "mp.Queue[Done]") -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _terminate)
    die_with_parent(signal.SIGTERM)  # a driver killed with SIGKILL takes its workers (and their bots) along
    if os.getppid() != parent:
        return
    while (item := jobs.get()) is not None:
        done.put(_play(*item))


def run_jobs(jobs: Iterable[tuple[int, MatchJob]], workers: int) -> Iterator[Done]:
    """Play ``(index, job)`` pairs on ``workers`` processes, yielding results as they finish.

    With one worker the jobs run in this process. Closing the iterator early (or an
    exception in the consumer, such as KeyboardInterrupt) stops every worker and the
    bots they run.
    """
    if workers <= 1:
        for index, job in jobs:
            yield _play(index, job)
        return
    ctx = mp.get_context("fork")
    todo: "mp.Queue[tuple[int, MatchJob] | None]" = ctx.Queue()
    results: "mp.Queue[Done]" = ctx.Queue()
    procs = [ctx.Process(target=_worker, args=(os.getpid(), todo, results), daemon=True) for _ in range(workers)]
    for proc in procs:
        proc.start()
    source = iter(jobs)
    in_flight = 0
    try:
        for item in source:  # keep two jobs per worker queued, no more: Ctrl-C stays cheap
            todo.put(item)
            in_flight += 1
            if in_flight >= 2 * workers:
                break
        while in_flight:
            try:
                result = results.get(timeout=1.0)
            except queue.Empty:
                if not all(p.is_alive() for p in procs):
                    raise RuntimeError("a worker process died; finished matches are kept, run again to resume") from None
                continue
            in_flight -= 1
            nxt = next(source, None)
            if nxt is not None:
                todo.put(nxt)
                in_flight += 1
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
