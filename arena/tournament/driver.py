"""Run a tournament: ask the schedule for matches, play them on workers, store each one, rate, publish.

The driver is the only writer of results. It knows the schedule only through
:class:`.schedules.base.Schedule` (batches out, finished matches in), so every schedule
runs through the same loop. Ratings are folded in schedule order, so they do not depend
on the number of workers, on the order matches finished in, or on how many times a run
was resumed. Bots run only in worker processes, so a bot that kills its worker costs a
replay (or, the second time, its match: voided), never the run.
"""

from __future__ import annotations

import dataclasses
import os
import secrets
import sys
from dataclasses import dataclass
from typing import Callable, Iterator, TextIO

from ..bots import BotConfigError, BotSpec, build_bot
from ..runner import MatchJob
from ..sandbox import resolve_backend
from .config import TournamentConfig
from .botfiles import check_bot_files
from .leaderboard import Leaderboard, build, write_files
from .pool import PoolFailure, Voided, WorkerLost, run_jobs
from .progress import Progress
from .rating import RatingFold, rate
from .records import record_of
from .schedule import ScheduledMatch
from .schedules.base import Schedule
from .schedules.build import schedule_for
from .schedules.build import schedule_of as schedule_of
from .seating import refusal
from .store import ResultStore


@dataclass(frozen=True)
class RunSummary:
    """What one invocation did."""

    total: int | None
    """Matches in the schedule (None: it has no end)."""
    played: int
    """Matches played and stored by this invocation."""
    skipped: int
    """Matches already stored by an earlier run (resume)."""
    failed: int
    """Matches the arena failed on (not stored; a later run retries them)."""
    interrupted: bool
    """True if stopped by Ctrl-C before the end."""
    sandbox: str
    """Backend the bots ran under."""
    leaderboard: Leaderboard
    """Ratings and standings over everything stored."""
    voided: int = 0
    """Matches voided by this invocation (the leaderboard lists every voided match)."""
    stopped: str = ""
    """Why the run stopped before the end without a Ctrl-C (workers could not be kept alive), or ""."""


def resolve_seed(config: TournamentConfig, store: ResultStore) -> TournamentConfig:
    """The config with a master seed: its own, else the one drawn for this output directory.

    A seed that nobody wrote down cannot be known to a bot author, so leaving ``seed`` out
    is the safe choice with untrusted bots; it is drawn once, stored with the results and
    reused on every resume.
    """
    if config.seed is not None:
        return config
    seed = store.meta(DRAWN_SEED)
    return dataclasses.replace(config, seed=secrets.token_hex(16) if seed is None else seed)


DRAWN_SEED = "drawn_seed"
"""Meta key of the master seed drawn for a tournament whose file gives none."""


def lost_text(lost: WorkerLost) -> str:
    """What the user is told when a worker process dies."""
    where = f"while playing {lost.playing}" if lost.playing else "between matches"
    again = (f"; {lost.replayed} unfinished match(es) of its batch will be played again on fresh processes"
             if lost.replayed else "")
    return f"worker process {lost.pid} died ({lost.cause}) {where}{again}"


def _job(config: TournamentConfig, scheduled: ScheduledMatch, specs: dict[str, BotSpec], sandbox: str) -> MatchJob:
    return MatchJob(scheduled.match_id, config.rules, scheduled.seed, tuple(specs[n] for n in scheduled.bots),
                    time=config.time, sandbox=sandbox, limits=config.limits, fault_policy=config.fault_policy,
                    max_faults=config.max_faults, private=(str(config.output), str(config.path.parent)),
                    wire_id=config.wire_id(scheduled.match_id))


def _jobs(schedule: Schedule, live: RatingFold, issued: dict[int, ScheduledMatch],
          job: Callable[[ScheduledMatch], MatchJob]) -> Iterator[list[tuple[int, MatchJob]]]:
    """The schedule's batches as the pool takes them, one when a worker is free; each match handed
    out is remembered in ``issued`` and awaited by the rating fold. An empty batch (nothing ready
    yet) goes through: the pool asks again later."""
    while (batch := schedule.next_batch()) is not None:
        live.expect(s.index for s in batch)
        issued.update((s.index, s) for s in batch)
        yield [(s.index, job(s)) for s in batch]


def publish(store: ResultStore, config: TournamentConfig, fold: RatingFold | None = None) -> Leaderboard:
    """Ratings and leaderboard files from everything stored (``fold``: its ratings, if it saw all of it)."""
    names = [b.name for b in config.bots]
    records = store.records()
    ratings = fold.ratings if fold is not None and fold.complete else rate(records, config.rating, names)
    board = build(records, ratings, names, store.voided())
    write_files(board, config.output)
    return board


def run_tournament(config: TournamentConfig, out: TextIO | None = None, workers: int | None = None,
                   say: Callable[[str], None] | None = None, accept_bot_changes: bool = False) -> RunSummary:
    """Play every match of ``config`` not stored yet in its output directory, then publish.

    Refuses (:class:`BotsChanged`) to resume when a bot's files changed since stored
    matches were played, unless ``accept_bot_changes``.
    """
    why = refusal(config.bots, config.rules.preset, config.seats)  # load_config refuses it too; a config made in code
    if why:
        raise BotConfigError(f"tournament {config.path.name}: {why}")
    stream = out or sys.stderr
    tell = say or (lambda line: print(line, file=stream, flush=True))
    for spec in {b.directory or b.name: b for b in config.bots}.values():
        build_bot(spec)
    backend, why = resolve_backend(config.sandbox)
    store = ResultStore(config.output)
    try:
        drawn = config.seed is None
        first_draw = drawn and store.meta(DRAWN_SEED) is None
        config = resolve_seed(config, store)
        schedule = schedule_for(config)
        store.claim(config.fingerprint(), config.describe(), schedule.total)
        for note in check_bot_files(store, config.bots, accept_bot_changes):
            tell(note)
        if drawn:  # only once the directory is known to be this tournament's
            store.set_meta(DRAWN_SEED, config.seed)
            where = config.output / "results.sqlite"
            tell(f"tournament {config.name}: no seed in {config.path.name}; " + (
                f"drew a secret master seed at random, kept in {where} for resuming" if first_draw else
                f"using the secret master seed drawn by its first run (kept in {where})"))
        store.set_meta("rating", config.rating.__dict__)
        store.set_meta("bots", [b.name for b in config.bots])
        done = store.done()
        records = store.records()
        earlier_voids = len(store.voided())
        schedule.resume(done, records)
        left = None if schedule.total is None else schedule.total - len(done)
        count = workers or config.workers or os.cpu_count() or 1
        count = max(1, min(count, left or 1)) if left is not None else max(1, count)
        voids = f" ({earlier_voids} of them voided)" if earlier_voids else ""
        size = "open-ended" if schedule.total is None else f"{schedule.total} matches"
        to_play = "playing" if left is None else f"{left} to play"
        tell(f"tournament {config.name}: {size}, {len(done)} already stored{voids}, "
             f"{to_play} on {count} worker(s); sandbox {backend.name} ({why})")
        specs = {b.name: b for b in config.bots}
        progress = Progress(schedule.total, len(done), stream)
        live = RatingFold(config.rating, [b.name for b in config.bots], records, schedule.unfinished())
        issued: dict[int, ScheduledMatch] = {}  # handed to the pool, not come back yet
        jobs = _jobs(schedule, live, issued, lambda s: _job(config, s, specs, backend.name))
        played = failed = voided = 0
        interrupted = False
        stopped = ""
        news = "\n" if progress.live else ""  # off the live progress line
        results = run_jobs(jobs, count)
        try:
            for result in results:
                if isinstance(result, WorkerLost):
                    if not result.voided:  # else the void says it all
                        tell(news + lost_text(result))
                    continue
                scheduled = issued.pop(result.index)
                if isinstance(result, Voided):
                    store.void(scheduled, result.reason)
                    voided += 1
                    live.void(result.index)
                    schedule.finished(scheduled, None)
                    tell(f"{news}voided {scheduled.match_id} ({result.reason}): not rated, not played again")
                    progress.update(live.top())
                    continue
                if result.outcome is None:
                    failed += 1
                    live.void(result.index)  # not stored: the store's ratings pass over it too, until a later run
                    schedule.finished(scheduled, None)
                    tell(f"{news}arena error in match {scheduled.match_id} (not stored; a later run retries it):\n"
                         f"{result.error}")
                    continue
                store.record(scheduled, result.outcome)
                played += 1
                record = record_of(scheduled, result.outcome)
                live.add(record)
                schedule.finished(scheduled, record)
                progress.update(live.top())
        except KeyboardInterrupt:
            interrupted = True
        except PoolFailure as exc:
            stopped = f"{exc}; finished matches are kept, run again to resume"
        finally:
            results.close()  # type: ignore[attr-defined]
            progress.close()
        if interrupted:
            tell(f"interrupted: {played} match(es) stored by this run, {len(done) + played + voided} in all; "
                 "run the same command again to resume")
        board = publish(store, config, live)
        return RunSummary(schedule.total, played, len(done), failed, interrupted, backend.name, board, voided,
                          stopped)
    finally:
        store.close()
