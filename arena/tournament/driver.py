"""Run a tournament: schedule, play on workers, store each match, rate, publish.

The driver is the only writer of results. Ratings are always recomputed from the
store in schedule order, so they do not depend on the number of workers, on the
order matches finished in, or on how many times a run was resumed. Bots run only in
worker processes, so a bot that kills its worker costs a replay (or, the second time,
its match: voided), never the run.
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
from .schedule import ScheduledMatch, batches, round_robin
from .seating import refusal, restricted_sizes
from .store import ResultStore


@dataclass(frozen=True)
class RunSummary:
    """What one invocation did."""

    total: int
    """Matches in the schedule."""
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


def schedule_of(config: TournamentConfig) -> list[ScheduledMatch]:
    if config.seed is None:
        raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
    sizes = restricted_sizes(config.bots, config.rules.preset, config.seats)
    return list(round_robin([b.name for b in config.bots], config.seats, config.cycles, config.seed, sizes))


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
        schedule = schedule_of(config)
        store.claim(config.fingerprint(), config.describe(), len(schedule))
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
        earlier_voids = len(store.voided())
        pending = [s for s in schedule if s.index not in done]
        count = workers or config.workers or os.cpu_count() or 1
        count = max(1, min(count, len(pending) or 1))
        voids = f" ({earlier_voids} of them voided)" if earlier_voids else ""
        tell(f"tournament {config.name}: {len(schedule)} matches, {len(done)} already stored{voids}, "
             f"{len(pending)} to play on {count} worker(s); sandbox {backend.name} ({why})")
        specs = {b.name: b for b in config.bots}
        by_index = {s.index: s for s in pending}
        runs = batches(schedule, {s.index for s in pending}, config.matches_per_process)
        jobs: Iterator[list[tuple[int, MatchJob]]] = ([(s.index, _job(config, s, specs, backend.name)) for s in run]
                                                      for run in runs)
        progress = Progress(len(schedule), len(done), stream)
        live = RatingFold(config.rating, [b.name for b in config.bots], store.records(), (s.index for s in pending))
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
                scheduled = by_index[result.index]
                if isinstance(result, Voided):
                    store.void(scheduled, result.reason)
                    voided += 1
                    live.void(result.index)
                    tell(f"{news}voided {scheduled.match_id} ({result.reason}): not rated, not played again")
                    progress.update(live.top())
                    continue
                if result.outcome is None:
                    failed += 1
                    tell(f"{news}arena error in match {scheduled.match_id} (not stored; a later run retries it):\n"
                         f"{result.error}")
                    continue
                store.record(scheduled, result.outcome)
                played += 1
                live.add(record_of(scheduled, result.outcome))
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
        return RunSummary(len(schedule), played, len(done), failed, interrupted, backend.name, board, voided,
                          stopped)
    finally:
        store.close()
