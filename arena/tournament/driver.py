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
import signal
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Callable, Iterator, Mapping, Protocol, Sequence, TextIO

from ..bots import BotConfigError, BotSpec, build_bot
from ..execute import PROCESSES, Choice, PoolFailure, Start, Voided, WorkerLost, registered
from ..match.runner import MatchJob
from ..sandbox import Backend, NoneBackend, SandboxError, resolve_backend
from .config import TournamentConfig
from .evidence import PairEvidence, board_rules
from .open_tables import OpenTables
from .extend import extension
from .leaderboard import Leaderboard, write_files
from .progress import Progress
from .rating import RatingFold
from .records import MatchRecord, record_of
from .schedules.balance import CYCLIC
from .schedules.base import Schedule, ScheduledMatch
from .kinds import schedule_for, schedule_of as schedule_of
from .schedules.fixed import FixedSchedule
from .schedules.kind import RunHooks
from .seating import refusal
from .settle import SettleGate
from .standings import BoardError, computing_board, standings
from .standings import read as read_results
from .store import ResultStore, check_output
from .timing import lost_on_time
from .timing import warnings as time_warnings


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
    settled: str = ""
    """With a stop rule (``until_settled``): the run's last line, settled or not, and where."""
    terminated: bool = False
    """True if the stop was a SIGTERM (:func:`sigterm_stops`), not a Ctrl-C."""
    timed_out: int = 0
    """Matches played by this invocation in which a seat was forfeited on time (:func:`.timing.lost_on_time`)."""


class Terminated(KeyboardInterrupt):
    """A SIGTERM, raised where a Ctrl-C would be: a run stopped by ``kill`` or a service manager ends as
    one stopped by Ctrl-C does (matches in play dropped, stored ones kept, a line saying how to resume)."""


def _terminate(signum: int, frame: FrameType | None) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a second SIGTERM stops a stop that hangs, at once
    raise Terminated()


@contextmanager
def sigterm_stops() -> Iterator[None]:
    """While it lasts, the first SIGTERM stops the run in the main thread as a Ctrl-C does (:class:`Terminated`);
    without it Python dies at once, saying nothing of what was stored."""
    before = signal.signal(signal.SIGTERM, _terminate)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, before)


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


def resolve_seating(config: TournamentConfig, store: ResultStore) -> TournamentConfig:
    """The config with the seating its output directory was begun with: a tournament stored before balanced
    seatings (its stored configuration names none) goes on with one cyclic order per table, so that a
    resume plays exactly the matches it would have played; every other one is balanced, and so is a kind
    whose seating may change between runs (``seating`` in :attr:`.Keys.unbound`)."""
    stored = store.meta("config")
    if isinstance(stored, dict) and "seating" not in stored and "seating" not in config.kind.keys.unbound:
        return dataclasses.replace(config, seating=CYCLIC)
    return config


DRAWN_SEED = "drawn_seed"
"""Meta key of the master seed drawn for a tournament whose file gives none."""
FILE_KEY = "file"
"""Meta key of the tournament file the last run of an output directory was given (absolute)."""


def lost_text(lost: WorkerLost) -> str:
    """What the user is told when a worker process dies."""
    where = f"while playing {lost.playing}" if lost.playing else "between matches"
    again = (f"; {lost.replayed} unfinished match(es) of its batch will be played again on fresh processes"
             if lost.replayed else "")
    return f"worker process {lost.pid} died ({lost.cause}) {where}{again}"


def _job(config: TournamentConfig, scheduled: ScheduledMatch, specs: Mapping[str, BotSpec], sandbox: str,
         frames: bool = False) -> MatchJob:
    """The job of a scheduled match (``frames``: a run with a report has the viewer's frames made with it)."""
    return MatchJob(scheduled.match_id, config.rules, scheduled.seed, tuple(specs[n] for n in scheduled.bots),
                    time=config.time, sandbox=sandbox, limits=config.limits, fault_policy=config.fault_policy,
                    max_faults=config.max_faults, private=(str(config.output), str(config.path.parent)),
                    wire_id=config.wire_id(scheduled.match_id if config.tell_opponents or scheduled.told is None
                                           else scheduled.told), game=config.game,
                    per_process=config.matches_per_process, frames=frames)


def _jobs(schedule: Schedule | SettleGate, live: RatingFold, issued: dict[int, ScheduledMatch],
          job: Callable[[ScheduledMatch], MatchJob],
          room: Callable[[], int | None] = lambda: None,
          say: Callable[[str], None] = lambda line: None) -> Iterator[list[tuple[int, MatchJob]]]:
    """The schedule's batches as the pool takes them, one when a worker is free; each match handed
    out is remembered in ``issued`` and awaited by the rating fold, as is everything an open-ended
    schedule drew and has not handed out yet (:meth:`.Schedule.unfinished`). An empty batch (nothing ready
    yet) goes through: the pool asks again later. ``room``: matches still wanted beyond those
    stored and in play (None: no limit); at 0 nothing more is handed out, and once nothing is in
    play either the source ends (a match that fails makes room for another). The part of a batch
    beyond that room is kept and handed out first when room comes back, since an open-ended schedule
    has counted it as handed out. ``say`` hears, once each time it changes, why an open-ended schedule
    has nothing to hand out (a field too small for a table)."""
    said: str | None = None
    spare: list[ScheduledMatch] = []  # cut off a batch by room(): handed out before anything new
    while True:
        left = room()
        if left is not None and left <= 0:
            if not issued:
                return
            yield []
            continue
        batch = spare or schedule.next_batch(left)
        if batch is None:
            return
        why = None if batch else schedule.waiting()
        if why is not None and why != said:
            say(why)
        said = why
        batch, spare = (batch, []) if left is None else (batch[:left], batch[left:])
        live.expect(s.index for s in batch)
        if batch and schedule.total is None:  # it may hand out later what it drew before: wait for that too
            live.expect(schedule.unfinished())
        issued.update((s.index, s) for s in batch)
        yield [(s.index, job(s)) for s in batch]


def _gate(schedule: Schedule, config: TournamentConfig, p: float, records: Sequence[MatchRecord], live: RatingFold,
          hooks: RunHooks, among: Callable[[], frozenset[str] | None], in_play: Callable[[], int],
          counted: Callable[[], int]) -> SettleGate:
    """The stop rule of ``--until settled`` over ``schedule``: on a schedule known in advance, with its later
    units' tables chosen for the pairs still open (:mod:`.open_tables`), the others passed over unrated."""
    kind = config.kind

    def pass_over(matches: Sequence[ScheduledMatch]) -> None:
        for scheduled in matches:
            live.void(scheduled.index)
            schedule.finished(scheduled, None)
        hooks.passed_over()

    tables = None if schedule.total is None else \
        OpenTables(PairEvidence(), board_rules(p, config.margin), reseat=config.seating != CYCLIC)
    return SettleGate(schedule, p, kind.settle.unit, kind.settle.name, lambda: live.ratings, among, in_play, counted,
                      records, config.margin, tables, pass_over)


def _pass_over_undealt(schedule: Schedule, live: RatingFold, issued: Mapping[int, ScheduledMatch]) -> None:
    """At the end of a run, the matches an open-ended schedule drew and never handed out are not rated:
    it plays what is left of their deals under new indices on its next run, so the ratings, those a kind
    keeps in the store included, go on past them to every match stored. Not after a Ctrl-C, which may
    have fallen between rating a match and storing it: then the next reader rates what was stored beyond
    the kept ratings, as after a kill."""
    left = list(schedule.unfinished())
    live.expect(left)
    for index in left:
        if index not in issued:
            live.void(index)


def executor_for(config: TournamentConfig, count: int, say: Callable[[str], None],
                 sandbox: str | None = None) -> tuple[Start, str]:
    """The executor the file (or the caller) chose, by its registered name, and where it plays for the first
    line of a run; ``sandbox``: as resolved here, for an executor that plays here (default: the file's)."""
    choice = config.executor or Choice(PROCESSES, "")
    start = registered(choice.name).make(choice.address, config.sandbox if sandbox is None else sandbox, say)
    return start, start.describe(count)


def publish(store: ResultStore, config: TournamentConfig, fold: RatingFold | None = None) -> Leaderboard:
    """The leaderboard files from everything stored, by the one standings path (:mod:`.standings`, as
    ``arena leaderboard`` and the report read it; ``fold``: its ratings, if it saw all of it). A schedule
    that keeps its ratings in the store is rated by those, and its kind writes its own files beside these
    (:meth:`.RunHooks.publish`). A board that cannot be computed is a :class:`BoardError`, and the files it
    would have written stay as they were."""
    results = read_results(store)
    board = standings(results, fold.ratings if fold is not None and fold.complete and results.kept is None else None)
    write_files(board, config.output)
    with computing_board(store.path):
        config.kind.hooks.publish(config, store)
    return board


class Report(Protocol):
    """The web report of one run, as the driver sees it: the CLI hands in a factory
    (:class:`arena.site.refresh.RunReport`), so the driver knows nothing of the site, only when a
    match was stored and when the run ended. ``live``: rebuilt now and then while the run plays (a schedule
    kind's :attr:`.RunHooks.live_report`: a run that goes on for weeks)."""

    def stored(self) -> None:
        """A match was stored."""

    def close(self, wait: bool) -> None:
        """The run stopped playing: wait for a rebuild in progress, or (``wait`` False: interrupted) stop it."""

    def final(self, interrupted: bool, tell: Callable[[str], None]) -> None:
        """Build the report from everything stored, and say where it is."""


ReportFactory = Callable[[Path, bool], Report]
"""A run's report from its results directory and whether it is rebuilt while the run plays."""


def run_tournament(config: TournamentConfig, out: TextIO | None = None, workers: int | None = None,
                   say: Callable[[str], None] | None = None, accept_bot_changes: bool = False,
                   max_matches: int | None = None, hours: float | None = None, report: ReportFactory | None = None,
                   executor: Choice | None = None, until_settled: float | None = None,
                   frames: bool | None = None) -> RunSummary:
    """Play every match of ``config`` not stored yet in its output directory (at most ``max_matches``
    of them, and none begun after ``hours``), then publish (``report``: the web report too, also every few
    minutes while a schedule that asks for it plays; the CLI passes :class:`arena.site.refresh.RunReport`).

    Refuses (:class:`BotsChanged`) to resume when a bot's files changed since stored
    matches were played, unless ``accept_bot_changes``. An open-ended schedule runs until interrupted
    or ``max_matches``; the schedule kind's guard (:meth:`.RunHooks.guard`, a lock that refuses a
    second run) is held throughout.
    ``executor`` (else the file's ``executor``): play on that registered executor instead of local worker
    processes (:mod:`arena.execute.registry`; ``arena run``'s options choose one by name);
    :class:`PoolFailure` says how to install it when its dependency is missing.
    ``until_settled``: stop once every adjacent pair of the board is ordered with at least this
    probability, at the end of a unit of the schedule (:attr:`.ScheduleKind.settle`: whole cycles by default),
    or at the schedule's end or ``max_matches``, whichever comes first.
    """
    if executor is not None:
        config = dataclasses.replace(config, executor=executor)
    if config.executor is not None:
        registered(config.executor.name).require()
    check_output(config.output)  # before the guard, which may hold a lock file in it
    with config.kind.hooks.guard(config):
        return _run(config, out, workers, say, accept_bot_changes, max_matches, hours, report, until_settled,
                    report is not None if frames is None else frames)


def sandbox_line(requested: str, chosen: str, remote: bool) -> str:
    """The run's sandbox in one short line (at most 100 characters): what each backend walls off is in
    docs/sandbox.md, and why bwrap does not work here is what ``sandbox: bwrap`` is refused with."""
    if remote:
        return f"sandbox: {requested}, resolved by each of the executor's workers (refused where it cannot run)"
    how = "chosen by auto" if requested == "auto" else "requested"
    if chosen != "none":
        return f"sandbox: {chosen} ({how}; docs/sandbox.md says what it walls off)"
    walls = "bwrap does not work here, sandbox: bwrap says why" if requested == "auto" else "no walls but rlimits"
    return f"sandbox: none ({how}: {walls}; docs/sandbox.md)"


def _builder(sandbox: str) -> Backend:
    """The backend a schedule that builds its bots as they join builds them under here when the matches are
    played elsewhere (a remote executor): the file's sandbox where it runs on this machine, else ``none``
    (whose builds of submitted bots are refused without the file's opt-in)."""
    try:
        return resolve_backend(sandbox)[0]
    except SandboxError:
        return NoneBackend()


def _run(config: TournamentConfig, out: TextIO | None, workers: int | None, say: Callable[[str], None] | None,
         accept_bot_changes: bool, max_matches: int | None, hours: float | None = None,
         report: ReportFactory | None = None, until_settled: float | None = None, frames: bool = False) -> RunSummary:
    kind = config.kind
    up_front = kind.hooks.builds_up_front  # else the file's bots are only a starting field, built as they join
    why = refusal(config.bots, config.rules.preset, config.seats) if up_front else None  # load_config refuses it too
    if why:
        raise BotConfigError(f"tournament {config.path.name}: {why}")
    stream = out or sys.stderr
    tell = say or (lambda line: print(line, file=stream, flush=True))
    # An executor on other machines builds the bots and resolves the sandbox there (its registry entry says so).
    remote = config.executor is not None and registered(config.executor.name).remote
    backend, _ = resolve_backend("none" if remote else config.sandbox)
    sandbox = config.sandbox if remote else backend.name
    for spec in {b.directory or b.name: b for b in config.bots}.values() if up_front and not remote else []:
        build_bot(spec, backend)
    builder = _builder(config.sandbox) if remote and not up_front else backend
    store = ResultStore(config.output)
    try:
        store.check_matches()  # a damaged row is refused before this run writes anything
        drawn = config.seed is None
        first_draw = drawn and store.meta(DRAWN_SEED) is None
        config = resolve_seating(resolve_seed(config, store), store)
        schedule = schedule_for(config, builder)
        longer = extension(store, config.fingerprint(), config.describe(), schedule.matches) \
            if isinstance(schedule, FixedSchedule) else None  # more cycles or tables: checked, written below
        if longer is None:
            store.claim(config.fingerprint(), config.describe(), schedule.total, kind.keys.unbound)
        hooks = kind.hooks(config, store)
        notes = hooks.enter_field(accept_bot_changes)
        if longer is not None:  # after the bots' check, so a refused resume leaves the store as it was
            store.extend(longer.before, longer.fingerprint, longer.described, longer.total)
            notes.append(longer.note(config.name, len(store.done())))
        for note in notes:
            tell(note)
        if drawn:  # only once the directory is known to be this tournament's
            store.set_meta(DRAWN_SEED, config.seed)
            where = config.output / "results.sqlite"
            tell(f"tournament {config.name}: no seed in {config.path.name}; " + (
                f"drew a secret master seed at random, kept in {where} for resuming" if first_draw else
                f"using the secret master seed drawn by its first run (kept in {where})"))
        store.set_meta("rating", config.rating.stored())
        store.set_meta(FILE_KEY, str(config.path.resolve()))  # what `arena run DIR` suggests instead of DIR
        store.set_meta("settle", {"margin": config.margin})
        for key, value in hooks.meta().items():
            store.set_meta(key, value)
        done = store.done()
        records = store.records()
        earlier_voids = len(store.voided())
        schedule.resume(done, records)
        left = None if schedule.total is None else schedule.total - len(done)
        count = workers or config.workers or os.cpu_count() or 1
        left = left if max_matches is None else max_matches if left is None else min(left, max_matches)
        count = max(1, min(count, left or 1)) if left is not None else max(1, count)
        voids = f" ({earlier_voids} of them voided)" if earlier_voids else ""
        size = "open-ended" if schedule.total is None else f"{schedule.total} matches"
        to_play = "playing" if left is None else f"{left} to play"
        executor, place = executor_for(config, count, tell, sandbox)
        if left == 0:
            tell(f"tournament {config.name} (results in {config.output}): all {schedule.total} matches are "
                 f"stored{voids}: nothing to play")
        else:
            for warning in time_warnings(config.time, config.path):
                tell(warning)
            tell(f"tournament {config.name} (results in {config.output}): {size}, {len(done)} already stored{voids}, "
                 f"{to_play} on {place}")
            tell(sandbox_line(config.sandbox, sandbox, remote))
        specs = hooks.players(schedule)
        progress = Progress(schedule.total, len(done), stream)
        live = hooks.fold(schedule, records)  # a schedule that keeps ratings in the store starts from them
        issued: dict[int, ScheduledMatch] = {}  # handed to the pool, not come back yet
        played = failed = voided = timed_out = 0
        until = None if hours is None else time.monotonic() + hours * 3600
        reporting = report(config.output, hooks.live_report) if report is not None else None
        playing = hooks.playing  # whom the progress line names: the active field, not players gone from it

        def room() -> int | None:
            if until is not None and time.monotonic() >= until:
                return 0
            return None if max_matches is None else max_matches - played - len(issued)
        gate = None if until_settled is None else _gate(schedule, config, until_settled, records, live, hooks,
                                                         playing, lambda: len(issued),
                                                         lambda: len(done) + played + voided)
        jobs = _jobs(gate or schedule, live, issued, lambda s: _job(config, s, specs, sandbox, frames), room, tell)
        interrupted = terminated = False
        stopped = ""
        news = "\n" if progress.live else ""  # off the live progress line
        results = executor(jobs, count)
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
                    hooks.passed_over()  # matches that waited for this one are rated now
                    tell(f"{news}voided {scheduled.match_id} ({result.reason}): not rated, not played again")
                    progress.update(live.top(among=playing(), provisional=True), live.ahead)
                    continue
                if result.outcome is None:
                    failed += 1
                    live.void(result.index)  # not stored: the store's ratings pass over it too, until a later run
                    schedule.finished(scheduled, None)
                    hooks.passed_over()
                    tell(f"{news}arena error in match {scheduled.match_id} (not stored; a later run retries it):\n"
                         f"{result.error}")
                    continue
                record = record_of(scheduled, result.outcome)
                now = time.time()
                hooks.finished(scheduled.index, now)
                live.add(record)  # rates it, and any stored match that waited for it, before the store writes
                if gate is not None:
                    gate.stored(record)
                store.record(scheduled, result.outcome, now, hooks.keep)
                played += 1
                timed_out += lost_on_time(result.outcome)
                schedule.finished(scheduled, record)
                progress.update(live.top(among=playing(), provisional=True), live.ahead)
                hooks.stored()
                if reporting is not None:
                    reporting.stored()
        except KeyboardInterrupt as exc:
            interrupted, terminated = True, isinstance(exc, Terminated)
        except PoolFailure as exc:
            stopped = f"{exc}; finished matches are kept, run again to resume"
        finally:
            results.close()
            progress.close()
        if schedule.total is None and not interrupted:  # a Ctrl-C may fall between rating a match and storing it
            _pass_over_undealt(schedule, live, issued)
            hooks.passed_over()
        if interrupted:
            how = "terminated (SIGTERM)" if terminated else "interrupted"
            tell(f"{how}: {played} match(es) stored by this run, {len(done) + played + voided} in all; "
                 "run the same command again to resume")
        if gate is not None and not gate.verdict.settled and not issued:
            gate.check()  # stopped by the schedule's end, --matches or --hours: how sure is it there
        try:
            board = publish(store, config, live)
        except BoardError as exc:  # every match is stored by now: the run ends with them kept, saying why
            if reporting is not None:
                reporting.close(wait=False)
            raise BoardError(f"{exc}; every stored match is kept, and the leaderboard files and the report were "
                             "not brought up to date") from None
        if reporting is not None:
            reporting.close(wait=not interrupted)
            # every ending: a run stopped by Ctrl-C, --hours or --matches has results the report must show
            reporting.final(interrupted, tell)
        return RunSummary(schedule.total, played, len(done), failed, interrupted, sandbox, board, voided,
                          stopped, "" if gate is None else gate.verdict.line(), terminated, timed_out)
    finally:
        store.close()
