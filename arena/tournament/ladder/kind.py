"""``schedule: ladder``: the kind that declares a living ladder's keys and what its runs do differently.

The matchmaking is :class:`.matchmaking.LadderSchedule`; the field, the kept ratings, the
lock and the board are its neighbours in this package. This module ties them to the two generic places
that would otherwise name a ladder: the config loader (its keys: ``placement_matches``,
``keep_versions``, ``fairness_floor``, ``replay_tables``, ``submission``, ``unsandboxed_builds``, none of them
fingerprinted, since each changes only what comes next) and the driver (its hooks, below).

A ladder's file lists only a starting field: its bots are entered (unchecked) at the start of
a run and played from snapshots built as they join, never up front. It keeps its ratings in the
store as it rates (a ladder runs for weeks: its leaderboard reads them instead of replaying every
match), holds a lock so that one run at a time hands out indices, names only its active entries
on the progress line, and rewrites its board (``ladder.txt`` and friends) while it plays.
"""

from __future__ import annotations

import functools
import time
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from ...bots import BotSpec
from ...bounds import MAX_PLACEMENT_MATCHES
from ...sandbox.backends import Backend
from . import board as ladder_board
from . import paired as ladder_paired
from .entries import ACTIVE, ActiveField, enter, entries
from .kept import Kept, finished_in, kept_in
from .kept import read as read_kept
from .limits import DEFAULT_MAX_FILES, DEFAULT_MAX_MB, MAX_FILES, MAX_MB, SubmissionLimits
from .limits import KEYS as SUBMISSION_KEYS
from .lock import run_lock
from .snapshot import player_spec, snapshot
from ..rating import DEFAULT_MODEL, RatingFold, RatingParams
from ..records import MatchRecord
from ..store.ladder import Entry, LadderStore
from ..store.results import StoreMismatch
from ..schedules import LADDER
from ..schedules.base import Schedule, ScheduledMatch
from ..schedules.kind import (Field, KeyReader, Keys, Players, Reading, RunHooks, ScheduleKind, Settling,
                             TournamentConfig)
from .tables import StoredTables
from .matchmaking import DEFAULT_FLOOR, DEFAULT_REPLAY_TABLES, LadderSchedule

if TYPE_CHECKING:
    from ..store import ResultStore

META_KEY = "ladder"
"""The ``meta`` key a ladder's run writes: its placement (read back by :meth:`Ladder.reading`)."""

DEFAULT_PLACEMENT_MATCHES = 5
"""Matches a ladder entry plays before the leaderboard ranks it."""

MAX_REPLAY_TABLES = 1000
"""The most tables of its previous version a new version may replay first."""


@dataclass(frozen=True)
class LadderSettings:
    """The keys of ``schedule: ladder``; none is fingerprinted."""

    placement_matches: int = DEFAULT_PLACEMENT_MATCHES
    """Matches an entry plays before it is ranked (shown as ``placement`` until then)."""
    fairness_floor: float = DEFAULT_FLOOR
    """No active entry's matches since it joined fall more than this fraction below the field's median
    over the same time."""
    keep_versions: bool = False
    """A new version of a bot joins the field beside the old ones instead of replacing them."""
    submission: SubmissionLimits = SubmissionLimits()
    """How big a bot ``arena submit`` takes."""
    unsandboxed_builds: bool = False
    """Submitted bots may be installed and built under the ``none`` sandbox, as the arena's user (else refused)."""
    replay_tables: int = DEFAULT_REPLAY_TABLES
    """A new version's first tables replay up to this many of its previous version's (0: none)."""


def settings_of(config: TournamentConfig) -> LadderSettings:
    """The ladder keys of ``config``, which must be a ladder's."""
    settings = config.schedule_settings
    if not isinstance(settings, LadderSettings):
        raise ValueError(f"{config.path.name} is not a ladder (schedule: {config.schedule})")
    return settings


def own_field(config: TournamentConfig) -> dict[str, str]:
    """The file's own bots (its starting field) by name, each with the directory the file names: these names are
    the organiser's from the moment the file lists them, entered by a run or not yet."""
    return {bot.name: str(Path(bot.directory).resolve()) for bot in config.bots if bot.directory}


class FieldNameTaken(StoreMismatch):
    """A name of the file's own field is held in the store by an author's upload (entered before such uploads
    were refused): the run would play that upload under the organiser's name and never the file's bot."""


def uploaded_under_field(config: TournamentConfig, field: Sequence[Entry]) -> str | None:
    """Why a run cannot enter the file's field, in one line: a name of it whose newest version came from an upload
    through the submission server (its source inside the output directory); None when there is none."""
    output = Path(config.output).resolve()
    newest = {entry.name: entry for entry in field}  # by name then version: the last one is the newest
    for name, directory in own_field(config).items():
        entry = newest.get(name)
        if entry is None or entry.source == directory or not Path(entry.source).is_relative_to(output):
            continue
        return (f"{config.path.name} bots: {name}: the ladder's {name} is {entry.key}, an author's upload "
                f"({entry.source}; arena author list shows whose), so the file's {name} ({directory}) would never "
                f"play; give the file's bot another name in {config.path.name} (- {{name: NEW-NAME, path: ...}}) "
                "or take it out of bots:, then run again")
    return None


def write_board(config: TournamentConfig, ladder: LadderStore,
                evidence: ladder_board.StoredEvidence | None = None) -> None:
    """Write the ladder's own board files into its output directory (``evidence``: kept between refreshes)."""
    board = ladder_board.load(ladder, config.rating, settings_of(config).placement_matches, config.margin, evidence)
    ladder_board.write(board, config.output, ladder_paired.read(ladder), config.rating.model)


class BoardRefresh:
    """A ladder's board files rewritten while it runs, at most every :attr:`every` seconds: a ladder runs
    for weeks, and its participants read ``ladder.txt`` rather than wait for the run to end."""

    every = 5.0

    def __init__(self, store: ResultStore, config: TournamentConfig) -> None:
        self.store = store
        self.config = config
        self.last = time.monotonic()
        self.evidence = ladder_board.StoredEvidence()
        """The pairs' deals read so far: each refresh reads only the matches stored since."""

    def maybe(self) -> None:
        if time.monotonic() - self.last >= self.every:
            write_board(self.config, self.store.ladder, self.evidence)
            self.last = time.monotonic()


class LadderRun(RunHooks):
    """One run of a ladder: its starting field, kept ratings, active field and board refresh. Its bots are
    built as they join (from snapshots), one run at a time holds the lock, and it writes its own board."""

    builds_up_front = False
    board_files = ("ladder.txt", "ladder.md", "ladder.json", "ladder.csv")
    live_report = True

    @classmethod
    def guard(cls, config: TournamentConfig) -> AbstractContextManager[None]:
        return run_lock(config.output)

    @classmethod
    def publish(cls, config: TournamentConfig, store: ResultStore) -> None:
        write_board(config, store.ladder)

    def __init__(self, config: TournamentConfig, store: ResultStore) -> None:
        super().__init__(config, store)
        self.kept: Kept | None = None
        self.finished_at: dict[int, float] = {}
        """Stored and not yet rated: when each match finished (its kept count is of matches since joining)."""
        self.refresh = BoardRefresh(store, config)
        self.active = ActiveField(config.output)

    def enter_field(self, accept_bot_changes: bool) -> list[str]:
        """Enter each bot of the file's list whose name the ladder does not know yet, unchecked (the operator
        chose them); a line per bot entered. A ladder's snapshots never change, so nothing is refused for them:
        only a name of the field that an author's upload holds (:func:`uploaded_under_field`), before anything
        is entered."""
        config, ladder = self.config, self.store.ladder
        field = entries(ladder)
        taken = uploaded_under_field(config, field)
        if taken is not None:
            raise FieldNameTaken(taken)
        known = {e.name for e in field}
        notes = []
        before = (self.store.meta("rating") or {}).get("model", DEFAULT_MODEL)
        if before != config.rating.model and ladder.forget_ratings():
            notes.append(f"ladder {config.name}: rating model {config.rating.model} instead of {before}: "
                         "every stored match is rated anew by it")
        for name, source in own_field(config).items():
            if name in known:
                continue
            digest, path = snapshot(source, config.output, name)
            entered = enter(ladder, name, digest, str(path), source, settings_of(config).keep_versions)
            notes.append(f"ladder {config.name}: entered {entered.entry.key} from the file's bots")
        return notes

    def meta(self) -> dict[str, Any]:
        return {"bots": [], META_KEY: {"placement_matches": settings_of(self.config).placement_matches}}

    def players(self, schedule: Schedule) -> Mapping[str, BotSpec]:
        """Its entries as the schedule meets them (a live map)."""
        if isinstance(schedule, LadderSchedule):
            return schedule.specs
        return super().players(schedule)

    def fold(self, schedule: Schedule, records: Sequence[MatchRecord]) -> RatingFold:
        """A fold from the ratings kept in the store, which it keeps up to date as it rates."""
        kept = self.kept = read_kept(self.store.ladder, self.config.rating)
        with self.store.transaction():
            kept.save(self.store.ladder)  # matches a killed run stored beyond its kept ratings
        self.store.ladder.keep_sums()  # counted anew only when they are not kept yet (a store of an older arena)
        live = RatingFold(self.config.rating, [], [], schedule.unfinished(), initial=kept.ratings,
                          after=kept.through,
                          on_rate=lambda r: kept.count(r.index, r.bots, self.finished_at.pop(r.index)),
                          on_pass=lambda r: kept.pass_over(r.index, r.bots, self.finished_at.pop(r.index)))
        kept.ratings = live.ratings
        self.keep = kept.save
        return live

    def finished(self, index: int, when: float) -> None:
        self.finished_at[index] = when

    def passed_over(self) -> None:
        if self.kept is not None:
            with self.store.transaction():
                self.kept.save(self.store.ladder)  # matches that waited for this one are rated now

    def stored(self) -> None:
        self.refresh.maybe()

    def playing(self) -> frozenset[str] | None:
        """Its active entries, not its replaced or retired ones."""
        return self.active.keys()


class ByTable(Settling):
    """A ladder settles by the table: its rotations are consecutive matches, so its first index names it.
    A ladder runs without end, and may stop after any table."""

    def unit(self, scheduled: ScheduledMatch) -> int:
        return scheduled.index - scheduled.rotation

    def name(self, scheduled: ScheduledMatch) -> str:
        return f"the table of match {scheduled.match_id}"


class Ladder(ScheduleKind):
    """``schedule: ladder``."""

    name = LADDER
    keys = Keys(settings=("placement_matches", "keep_versions", "fairness_floor", "replay_tables", "submission",
                          "unsandboxed_builds"),
                unbound=("bots", "seating", "cycles"), least_bots=0, unused=("cycles",),
                unused_note=" (a ladder plays until it is stopped: arena run --matches N or --hours H ends a run)")
    """``least_bots`` 0: bots are submitted while it runs. ``cycles`` is refused (it would change nothing) and
    unbound, so a ladder begun with it in its file resumes once it is removed. ``unbound``: the file's bots are
    a starting field, entered once by name and then played from snapshots, so editing one (and submitting it as a new version)
    or adding one to the list must not refuse the run; ``seating``: a ladder begun before balanced seatings
    takes them from its next table on (it has no schedule decided in advance to keep; a table cut short is
    completed in its own seating)."""
    settle = ByTable()
    hooks = LadderRun

    def read(self, reader: KeyReader, data: Mapping[str, Any]) -> LadderSettings:
        placement = reader.required_int(("placement_matches",),
                                        data.get("placement_matches", DEFAULT_PLACEMENT_MATCHES), 0,
                                        MAX_PLACEMENT_MATCHES)
        floor = data.get("fairness_floor", DEFAULT_FLOOR)
        if isinstance(floor, bool) or not isinstance(floor, (int, float)) or not 0 <= floor < 1:
            reader.fail(("fairness_floor",), f"must be a number from 0 (nobody below the median) up to, not "
                                             f"including, 1 (no floor), got {floor!r}; the default is {DEFAULT_FLOOR}")
        keep = reader.boolean(("keep_versions",), data.get("keep_versions", False))
        section = reader.section(("submission",), data.get("submission"), SUBMISSION_KEYS)
        submission = SubmissionLimits(
            reader.required_int(("submission", "max_mb"), section.get("max_mb", DEFAULT_MAX_MB), 1, MAX_MB),
            reader.required_int(("submission", "max_files"), section.get("max_files", DEFAULT_MAX_FILES), 1,
                                MAX_FILES))
        replays = reader.required_int(("replay_tables",), data.get("replay_tables", DEFAULT_REPLAY_TABLES), 0,
                                      MAX_REPLAY_TABLES)
        return LadderSettings(placement, float(floor), keep, submission, replay_tables=replays)

    def check(self, reader: KeyReader, field: Field, options: Any) -> LadderSettings:
        """A ladder snapshots each bot's directory, so its starting field must be bot directories, each
        wholly described by its files: an ``image`` for docker comes from its bot.yaml, as a submitted
        bot's does, not from the ladder file (which its snapshots would not carry). Its kept ratings are
        updated match by match: no rating method that waits for a deal's rotations."""
        if field.rating.method != "match":
            reader.fail(("rating", "method"),
                        f"expected match: a ladder keeps its ratings match by match, got {field.rating.method}")

        entries = field.data.get("bots") or []
        for index, bot in enumerate(field.bots):
            if bot.directory is None:
                reader.fail(("bots", index), f"a ladder runs copies of bot directories; {bot.name} is not one "
                                             "(give a bot directory path)")
            entry = entries[index] if index < len(entries) else None
            if isinstance(entry, Mapping) and "image" in entry:
                reader.fail(("bots", index, "image"), f"a ladder runs copies of bot directories, which carry "
                                                      f"their own image: set image: in {bot.name}'s bot.yaml "
                                                      "instead of the ladder file")
        unsandboxed = reader.boolean(("unsandboxed_builds",), field.data.get("unsandboxed_builds", False))
        return LadderSettings(options.placement_matches, options.fairness_floor, options.keep_versions,
                              options.submission, unsandboxed, options.replay_tables)

    def describe(self, options: Any) -> dict[str, Any]:
        return {"schedule": self.name, "tables": None}  # as ladders begun before kinds declared their part

    def reading(self, meta: Callable[[str], Any]) -> Reading:
        """Kept ratings, its placement and voided rotations played again, once a run has said so in ``meta``
        (a store only submitted to has no run's yet, and no match)."""
        kept = meta(META_KEY)
        return Reading() if kept is None else Reading(True, int(kept["placement_matches"]), True)

    def matches(self, config: TournamentConfig) -> list[ScheduledMatch]:
        raise ValueError("a ladder draws its tables as it runs: it has no schedule known in advance")

    def build(self, config: TournamentConfig, backend: Backend | None) -> Schedule:
        if config.seed is None:
            raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
        settings = settings_of(config)
        output, params = config.output, config.rating
        own = set(own_field(config).values())  # the organiser's choice
        build = functools.partial(player_spec, backend=backend, exempt=own,
                                  unsandboxed_builds=settings.unsandboxed_builds)
        return LadderSchedule(ActiveField(output), build, config.seats, config.rules.preset,
                              config.seed, params, settings.placement_matches, settings.fairness_floor,
                              lambda: kept_in(output, params), lambda: finished_in(output), StoredTables(output),
                              settings.replay_tables, config.matches_per_process, config.seating)

    def field(self, config: TournamentConfig, store: ResultStore) -> Players:
        """Its player keys, with the ratings kept in the store; replaced and retired versions ranked after."""
        field = entries(store.ladder)
        return Players([e.key for e in field], read_kept(store.ladder, config.rating).ratings,
                       {e.key: e.status for e in field if e.status != ACTIVE}, settings_of(config).placement_matches)


KIND = Ladder()
