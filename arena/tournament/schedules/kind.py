"""What a schedule kind declares, so that neither the config loader nor the driver names one.

A kind is one value of ``schedule:`` in a tournament file. It owns its keys (names, defaults,
checks and their messages), its part of the fingerprint, how its :class:`.base.Schedule` is
built, and what its results are to their readers: eleven members. What a *run* of it does
differently is one optional hooks object (:class:`RunHooks`, which the ladder supplies). Every
default here is what a schedule known in advance wants (round robin, sampled): the file's bots
are the players, built before the first match and checked for changes on a resume, and the hooks
do nothing. A kind that differs overrides what differs. :mod:`..kinds` maps names to kinds;
adding a kind is a module and a :func:`..kinds.register` call.
"""

from __future__ import annotations

import abc
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Mapping, NoReturn, Protocol, Sequence, Union

from ...bots import BotSpec
from ...sandbox.backends import Backend
from ..botfiles import check_bot_files
from ..rating import Rating, RatingFold, RatingParams
from ..records import MatchRecord
from .base import Schedule, ScheduledMatch

if TYPE_CHECKING:
    from pathlib import Path

    from ...game.seam import GameRules
    from ...match.link import TimeControl
    from ..store import LadderStore, ResultStore

KeyPath = tuple[Union[str, int], ...]
"""Where a value sits in the file: ``("bots", 2, "path")`` is shown as ``bots[2].path``."""


class TournamentConfig(Protocol):
    """What a schedule kind reads of a loaded tournament file. :class:`..config.TournamentConfig` is one;
    the kinds name this protocol instead, so that they sit below the loader that finds them by name."""

    @property
    def name(self) -> str: ...
    @property
    def path(self) -> Path: ...
    @property
    def output(self) -> Path: ...
    @property
    def game(self) -> str: ...
    @property
    def rules(self) -> GameRules: ...
    @property
    def seats(self) -> tuple[int, ...]: ...
    @property
    def cycles(self) -> int: ...
    @property
    def seed(self) -> int | str | None: ...
    @property
    def seating(self) -> str: ...
    @property
    def time(self) -> TimeControl: ...
    @property
    def sandbox(self) -> str: ...
    @property
    def matches_per_process(self) -> int: ...
    @property
    def rating(self) -> RatingParams: ...
    @property
    def margin(self) -> float: ...
    @property
    def bots(self) -> tuple[BotSpec, ...]: ...
    @property
    def schedule(self) -> str: ...
    @property
    def schedule_settings(self) -> Any: ...


class KeyReader(Protocol):
    """The config loader's checks as a kind reads its keys with them: each failure is one
    :class:`..config.ConfigError` naming the file, the line and the key."""

    def line(self, path: KeyPath, at_key: bool = False) -> int | None:
        """1-based line of the value at ``path``; for a missing key, the line of its section."""

    def fail(self, path: KeyPath, message: str, at_key: bool = False) -> NoReturn:
        """Refuse the value at ``path``."""

    def missing(self, key: str, near: KeyPath, message: str) -> NoReturn:
        """Refuse a file that lacks ``key``, at the line of ``near`` (the key that makes it required)."""

    def integer(self, path: KeyPath, value: Any, minimum: int, maximum: int, null: bool = False) -> int | None:
        """An int in range, or None when ``null`` allows it."""

    def required_int(self, path: KeyPath, value: Any, minimum: int, maximum: int) -> int:
        """An int in range."""

    def boolean(self, path: KeyPath, value: Any) -> bool:
        """``true`` or ``false``."""

    def section(self, path: KeyPath, value: Any, allowed: Sequence[str]) -> dict[str, Any]:
        """An optional mapping of known keys."""


@dataclass(frozen=True)
class Keys:
    """The top-level keys a kind reads, as the loader needs them declared before it reads any."""

    shape: tuple[str, ...] = ()
    """Keys that decide which matches are played (fingerprinted); listed after ``schedule`` among the
    allowed keys."""
    settings: tuple[str, ...] = ()
    """Keys that change no match already decided; listed after ``bots``."""
    only_note: str = ""
    """Said after "only used with schedule: NAME" when a file of another kind gives one of its keys."""
    unused: tuple[str, ...] = ()
    """Keys the loader reads for other kinds that this one ignores: given in its file, each is refused as
    another kind's key is, rather than silently doing nothing."""
    unused_note: str = ""
    """Said after "only used with schedule: NAMES" when its file gives one of :attr:`unused`."""
    unbound: tuple[str, ...] = ()
    """Parts of the stored configuration (:meth:`.config.TournamentConfig.describe`) that may change between
    runs of one output directory: a run with only these changed rebinds it instead of being refused."""
    least_bots: int = 2
    """The fewest bots the file may list (``bots: null`` is allowed when 0)."""

    @property
    def all(self) -> tuple[str, ...]:
        """Every top-level key it reads."""
        return self.shape + self.settings


@dataclass(frozen=True)
class Field:
    """What the loader has read when a kind checks its keys against the bots (:meth:`ScheduleKind.check`)."""

    data: Mapping[str, Any]
    """The file's top-level mapping, as loaded."""
    bots: tuple[BotSpec, ...]
    """The file's bots, checked."""
    seats: tuple[int, ...]
    """Table sizes, sorted and unique."""
    rules: GameRules
    """The rules, with every option set."""
    cycles: int
    """How many times the schedule is played."""
    rating: RatingParams
    """How its results are rated (a kind may refuse a method, naming ``rating.method``)."""


@dataclass
class Players:
    """Who the leaderboard lists, as a kind sees its stored results."""

    names: list[str]
    """Player names, each listed even before it has played."""
    ratings: dict[str, Rating] | None = None
    """Ratings the kind keeps itself; None: rated from the stored records."""
    left: dict[str, str] = field(default_factory=dict)
    """Players no longer in the field, with their status, ranked after those still in it."""
    placement: int = 0
    """Matches a player plays before it is ranked."""


@dataclass(frozen=True)
class Reading:
    """What a kind's stored results are to those who read them (the boards, ``arena leaderboard``, the
    report): the one question a reader asks (:func:`..kinds.reading`), so that none of them names a kind.
    These defaults are a schedule known in advance's."""

    keeps_ratings: bool = False
    """Its ratings are kept in the store as it rates, and its own board is made from them (a ladder's,
    read without a record however many), instead of every stored record being rated."""
    placement: int = 0
    """Matches a player plays before the board ranks it."""
    replays_voided: bool = False
    """A voided rotation is played again under a new index, so a voided match settles no deal (the
    report withholds a deal until every rotation of it is stored)."""


class Settling:
    """The unit at whose end ``arena run --until settled`` may stop (:mod:`..settle`), never decreasing in
    schedule order. Here the cycle, so a run stops after whole cycles."""

    def unit(self, scheduled: ScheduledMatch) -> int:
        return scheduled.cycle

    def name(self, scheduled: ScheduledMatch) -> str:
        """The unit of ``scheduled`` in words, for the run's last line."""
        return f"cycle {scheduled.cycle}"


class RunHooks:
    """What a run of a kind does beyond playing its schedule: the one optional object a kind supplies
    (:attr:`ScheduleKind.hooks`). Its class says what holds before any run (whether the file's bots are
    built up front, the guard held throughout, its own board files); an instance is one run on one store.
    These defaults do nothing: the file's bots are the players, and ratings are folded from the stored
    records."""

    builds_up_front: bool = True
    """The file's bots are the players, built before the first match (else the schedule builds its own)."""
    board_files: tuple[str, ...] = ()
    """Files of its own it writes beside the usual leaderboard files at publish."""
    live_report: bool = False
    """The web report is rebuilt now and then while the run plays (a run that goes on for weeks)."""
    keep: Callable[[LadderStore], None] | None = None
    """Called in the transaction that stores a match: writes ratings the kind keeps in the store."""

    @classmethod
    def guard(cls, config: TournamentConfig) -> ContextManager[None]:
        """Held for the whole run, before the store is opened (a lock refusing a second run of the same output)."""
        return nullcontext()

    @classmethod
    def publish(cls, config: TournamentConfig, store: ResultStore) -> None:
        """Write its own files (:attr:`board_files`) beside the leaderboard's."""

    def __init__(self, config: TournamentConfig, store: ResultStore) -> None:
        self.config = config
        self.store = store

    def enter_field(self, accept_bot_changes: bool) -> list[str]:
        """Refuse a resume whose bot files changed (unless accepted); the lines to tell the organiser."""
        return check_bot_files(self.store, self.config.bots, accept_bot_changes)

    def meta(self) -> dict[str, Any]:
        """Meta keys stored with the results, which the leaderboard and the report read."""
        return {"bots": [b.name for b in self.config.bots]}

    def players(self, schedule: Schedule) -> Mapping[str, BotSpec]:
        """Name -> bot for the jobs: the file's bots."""
        return {b.name: b for b in self.config.bots}

    def fold(self, schedule: Schedule, records: Sequence[MatchRecord]) -> RatingFold:
        """The rating fold of this run, with every stored record in it."""
        return RatingFold(self.config.rating, [b.name for b in self.config.bots], records, schedule.unfinished())

    def finished(self, index: int, when: float) -> None:
        """Match ``index`` came back with a result at ``when`` (Unix time), just before it is rated and stored."""

    def passed_over(self) -> None:
        """A match came back without a result (voided, or the arena failed on it)."""

    def stored(self) -> None:
        """A match was stored."""

    def playing(self) -> frozenset[str] | None:
        """Whom the progress line names (None: every player)."""
        return None


class ScheduleKind(abc.ABC):
    """One value of ``schedule:``. The defaults are those of a schedule known in advance."""

    name: str = ""
    """The value of ``schedule:`` that chooses it."""
    keys: Keys = Keys()
    """The top-level keys it reads."""
    hooks: type[RunHooks] = RunHooks
    """What its runs do beyond playing the schedule (the default: nothing)."""
    settle: Settling = Settling()
    """Where ``arena run --until settled`` may stop: whole cycles by default."""

    def read(self, reader: KeyReader, data: Mapping[str, Any]) -> Any:
        """Its keys checked one by one, as its own settings object (None: it has none)."""
        return None

    def check(self, reader: KeyReader, field: Field, options: Any) -> Any:
        """Its settings checked against the bots, seats, rules and rating; the settings, completed if need be."""
        return options

    def describe(self, options: Any) -> dict[str, Any]:
        """Its part of the fingerprint: ``schedule`` and its shape keys (nothing for the default kind,
        so tournaments begun before ``schedule`` existed keep their fingerprints)."""
        return {"schedule": self.name}

    def matches(self, config: TournamentConfig) -> list[ScheduledMatch]:
        """Every match in index order, for a kind known in advance; else ValueError."""
        raise ValueError(f"schedule {self.name} has no schedule known in advance")

    @abc.abstractmethod
    def build(self, config: TournamentConfig, backend: Backend | None) -> Schedule:
        """The schedule of ``config`` (master seed resolved), not yet told what is stored; ``backend``:
        what it builds the bots joining it under (None: ``none``). :class:`.fixed.FixedKind` builds
        one of :meth:`matches`."""

    def field(self, config: TournamentConfig, store: ResultStore) -> Players:
        """Who the leaderboard lists, from what is stored."""
        return Players([b.name for b in config.bots])

    def reading(self, meta: Callable[[str], Any]) -> Reading:
        """What its results are to their readers, from the store's ``meta`` keys its runs wrote."""
        return Reading()
