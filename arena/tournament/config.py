"""Tournament configuration files: load, validate and fingerprint them.

A tournament is described by one YAML file (see docs/tournaments.md). Loading it
checks everything up front, so a typo fails in a second with a message naming the
file, the line and the key, instead of an hour into a run. Loading never builds or
starts a bot.

The :meth:`TournamentConfig.fingerprint` binds an output directory to the settings
that decide which matches are played and how; settings that do not change any
match result (worker count, output directory, rating parameters) are left out so
they may change between runs of the same tournament.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
import os
import re
import shlex
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import yaml

from .. import yamlsafe
from ..match.link import TimeControl
from ..bounds import (LIMIT_MAX, MAX_BANK_MS, MAX_CYCLES, MAX_FAULTS, MAX_MATCHES_PER_PROCESS, MAX_MOVE_MS,
                      MAX_WORKERS, SEED_RANGE)
from ..bots.spec import NAME_RE, BotConfigError, BotSpec, load_bot
from ..match.faults import FAULT_POLICIES
from ..execute.registry import Choice, choose, names as executor_names
from ..game.registry import DEFAULT_GAME, UnknownGame, game_named, games
from ..game.seam import Game, GameRules, RuleError
from ..sandbox.backends import BACKEND_NAMES
from ..sandbox.limits import Limits
from ..suggest import did_you_mean
from .rating import METHODS, MODELS, RatingParamError, RatingParams
from .schedules.kind import Field, KeyPath, ScheduleKind
from .evidence import DEFAULT_MARGIN
from .schedules.balance import BALANCED, CYCLIC
from .kinds import DEFAULT, NOT_YET, kind_of, kinds, names
from ..match.seeds import opaque_match_id
from .seating import refusal, restricted_sizes

FINGERPRINT_FORMAT = 3
"""Version of :meth:`TournamentConfig.describe`; bump it when its content, the match ids or the deals change
meaning (2: ids no longer hold the seed; 3: deal seeds are HMACs of the master seed, not strings holding it)."""

DEFAULT_MATCHES_PER_PROCESS = 32
"""Matches one bot process serves in turn when ``matches_per_process`` is not given."""
DEFAULT_SEATS = 4
"""Players per match when ``seats`` is not given."""

LEAD_KEYS = ("name", "game", "rules", "seats", "cycles", "schedule")
"""The first top-level keys, in documentation order; the schedule kinds' keys that shape the schedule follow."""
GENERIC_KEYS = ("seed", "time", "sandbox", "workers", "executor", "matches_per_process", "fault_policy", "max_faults",
                "tell_opponents", "rating", "settle", "limits", "log_bytes", "output", "bots")
"""The other top-level keys every tournament reads; the schedule kinds' other keys follow."""


def top_keys() -> tuple[str, ...]:
    """Allowed top-level keys, in documentation order: the generic ones and those of every schedule kind."""
    shape = [key for kind in kinds() for key in kind.keys.shape]
    settings = [key for kind in kinds() for key in kind.keys.settings]
    return tuple(dict.fromkeys((*LEAD_KEYS, *shape, *GENERIC_KEYS, *settings)))

MAX_LOG_BYTES = 16 * 1024 * 1024
"""Largest ``log_bytes``: each bot process holds up to this much of its stderr in the arena's memory."""
REQUIRED_KEYS = ("name", "bots")
"""Top-level keys without a default."""
TIME_KEYS = ("move_ms", "startup_ms", "bank_ms")
"""Keys of the ``time`` section (fields of :class:`TimeControl`)."""
LIMIT_KEYS = ("cpu_seconds", "memory_mb", "file_size_mb", "open_files", "processes", "tmp_mb")
"""Keys of the ``limits`` section (the kernel and sandbox limits of :class:`Limits`)."""
LATER_LIMITS = ("processes", "tmp_mb")
"""Limits added after the first tournaments: described (fingerprinted) only when not at their default."""
RATING_KEYS = ("mu", "sigma", "beta", "tau", "draw_probability", "method", "model")
"""Keys of the ``rating`` section (fields of :class:`RatingParams`)."""
SETTLE_KEYS = ("margin",)
"""Keys of the ``settle`` section."""
MAX_MARGIN = 4.0
"""The largest ``settle.margin``: a place spread no table of the game can exceed (5 seats: 4 places)."""
RULES_KEYS = ("preset", "options")
"""Keys of the mapping form of ``rules``."""
BOT_KEYS = ("name", "path", "command", "image")
"""Keys of the mapping form of a bot entry."""
MAX_NAME_BYTES = 255
"""The longest file name Linux file systems take (``NAME_MAX``)."""
MAX_PATH_BYTES = 4096
"""The longest path the kernel takes (``PATH_MAX``)."""
KEY_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_-]{0,63}")
"""What an unknown key must look like to be named in its error: a key name, perhaps misspelt. Anything else (a
line of a file that is no tournament file, ``root:*:20228:...``) is refused without being echoed."""
MIN_BOTS = 2
"""A tournament needs at least this many bots (a schedule kind may take fewer: bots entered as it runs)."""


class ConfigError(ValueError):
    """A configuration that cannot be used; the message names file, line, key and what is allowed."""

    def __init__(self, message: str, file: str = "", key: str = "", line: int | None = None) -> None:
        super().__init__(message)
        self.file = file
        """The configuration file as given."""
        self.key = key
        """Key path of the bad value (``bots[2].path``), empty for file-level problems."""
        self.line = line
        """1-based line of the bad value, when YAML gives one."""


@dataclass(frozen=True)
class TournamentConfig:
    """A validated tournament: every value resolved, defaults filled in."""

    name: str
    """Tournament name; names the default output directory ``results/<name>``."""
    rules: GameRules
    """Rule preset with every option set."""
    seats: tuple[int, ...]
    """Players per match, sorted and unique; every size is played."""
    cycles: int
    """How many times the whole schedule is played, each time with new deals."""
    seed: int | str | None
    """Master seed: every deal is derived from it. None: not given, so the run draws a
    secret one and keeps it with the results (see ``driver.resolve_seed``)."""
    time: TimeControl
    """Time limits of each decision and of start-up."""
    sandbox: str
    """Sandbox backend name (``auto``, ``none``, ``bwrap`` or ``docker``), resolved when the run starts."""
    workers: int | None
    """Matches played at once; None means one per CPU core."""
    matches_per_process: int
    """Size of the runs of matches (never one deal twice) whose bot processes are reused;
    1 starts a fresh process for every match. Not fingerprinted: for bots that start afresh
    on ``hello``, as the protocol asks, results do not depend on it."""
    fault_policy: str
    """``forfeit`` or ``fallback``: what happens when a bot breaks the protocol."""
    max_faults: int
    """Under ``fallback``: faults after which the seat is forfeited anyway."""
    tell_opponents: bool
    """Send bots the readable match id, which names the bots at the table (for opponent modelling);
    by default they get an opaque one (:meth:`wire_id`)."""
    rating: RatingParams
    """TrueSkill parameters for the leaderboard."""
    limits: Limits
    """Resource caps of each bot process, and (``log_bytes``) how much of each seat's stderr is kept
    per match as its bot's log; not fingerprinted, since it changes no result."""
    output: Path
    """Absolute output directory (results database and replays)."""
    bots: tuple[BotSpec, ...]
    """The bots, in file order; names are unique."""
    path: Path
    """Absolute path of the configuration file."""
    schedule: str = DEFAULT
    """Which schedule kind decides the tables (:mod:`.kinds`): ``round_robin`` (all of them) by default."""
    schedule_settings: Any = None
    """The schedule kind's own keys, as its :meth:`~.schedules.kind.ScheduleKind.read` returned them
    (None: it has none); each is also read as an attribute of the config (``config.tables``)."""
    executor: Choice | None = None
    """Where matches are played: None for local worker processes, else a registered executor and its address,
    e.g. ``dask`` at ``tcp://HOST:PORT`` or ``local:N`` (``executor: {dask: ADDRESS}``; ``arena run --dask``
    overrides it). Not fingerprinted: results do not depend on where matches are played."""
    game: str = DEFAULT_GAME
    """The game played (:mod:`arena.game.registry`); fingerprinted only when not Cabo, so tournaments begun
    before ``game`` existed keep their fingerprints."""
    margin: float = DEFAULT_MARGIN
    """``settle: {margin}``: places per match within which two bots may be shown equal (a tier on every board,
    and a pair ``--until settled`` counts as decided). Not fingerprinted: it changes no match; kept in the
    store's ``meta`` for the boards."""
    seating: str = BALANCED
    """How a table's seats go round (:mod:`.schedules.balance`): ``balanced`` (every bot directly after every
    other equally often) for every tournament begun by this arena; ``cyclic`` (one order and its rotations)
    for one begun before, set from its store on a resume (``driver.resolve_seating``), so that it plays the
    matches it always would have. Fingerprinted only when balanced: older stores keep their fingerprints."""

    def __getattr__(self, name: str) -> Any:
        """A key of the schedule kind (``config.tables`` of a sampled tournament), which owns it."""
        settings = self.__dict__.get("schedule_settings")
        if name.startswith("_") or settings is None or not hasattr(settings, name):
            raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")
        return getattr(settings, name)

    @property
    def kind(self) -> ScheduleKind:
        """The schedule kind of ``schedule``."""
        return kind_of(self.schedule)

    def describe(self) -> dict[str, Any]:
        """The fingerprinted settings as plain JSON, to store with results and diff on a refused resume.

        Only JSON types (lists, not tuples), so a stored copy compares equal after a
        round trip. Bots are keyed by name because the schedule depends on names,
        not on their order in the file.
        """
        return {
            "format": FINGERPRINT_FORMAT,
            **({"game": self.game} if self.game != DEFAULT_GAME else {}),
            "rules": dict(self.rules.to_json()),
            "seats": list(self.seats),
            "cycles": self.cycles,
            **self._described_schedule(),
            **({"seating": self.seating} if self.seating != CYCLIC else {}),  # absent: a tournament from before
            "seed": self.seed,
            "time": {"move_ms": self.time.move_ms, "startup_ms": self.time.startup_ms,
                     "bank_ms": self.time.bank_ms},
            "sandbox": self.sandbox,
            "limits": self._described_limits(),
            "fault_policy": self.fault_policy,
            "max_faults": self.max_faults,
            **({"tell_opponents": True} if self.tell_opponents else {}),  # absent when off: older tournaments resume
            "bots": {bot.name: {"command": list(bot.command), "directory": bot.directory, "build": bot.build,
                                "image": bot.image, **self._described_sizes(bot.name)}
                     for bot in sorted(self.bots, key=lambda b: b.name)},
        }

    def _described_schedule(self) -> dict[str, Any]:
        """The schedule kind's part: ``schedule`` and the keys that shape it (nothing for round robin, so
        tournaments begun before ``schedule`` existed keep their fingerprints)."""
        return self.kind.describe(self.schedule_settings)

    def _described_sizes(self, name: str) -> dict[str, list[int]]:
        """``{"seats": [...]}`` for a bot whose manifest keeps it from some of the tables, else nothing:
        the schedule depends on it, and tournaments of bots that declare nothing keep their fingerprints."""
        sizes = restricted_sizes(self.bots, self.rules.preset, self.seats)
        return {"seats": list(sizes[name])} if name in sizes else {}

    def _described_limits(self) -> dict[str, int]:
        """The limits; those added later (``LATER_LIMITS``) only when not at their default, so
        tournaments begun before they existed still resume. ``log_bytes`` never: it changes no result."""
        limits = dataclasses.asdict(self.limits)
        del limits["log_bytes"]
        default = Limits()
        for key in LATER_LIMITS:
            if limits[key] == getattr(default, key):
                del limits[key]
        return limits

    def wire_id(self, match_id: str) -> str:
        """The id bots get in ``hello`` for the match ``match_id``: itself under ``tell_opponents``, else opaque."""
        if self.tell_opponents:
            return match_id
        if self.seed is None:
            raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
        return opaque_match_id(self.seed, match_id)

    def fingerprint(self) -> str:
        """sha256 of the canonical JSON of :meth:`describe`: equal iff the same matches are played the same way."""
        text = json.dumps(self.describe(), sort_keys=True, separators=(",", ":"), ensure_ascii=False,
                          allow_nan=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()


STORE_FILES = ("results.sqlite", "server.sqlite")
"""A results store, and a submission server's authors: what an output directory in use holds."""


NESTED = {
    "options": " at the top of the file: rule options go inside rules, as rules: {preset: standard, options: {...}}",
    "preset": " at the top of the file: the preset goes inside rules, as rules: {preset: espanola, options: {...}} "
              "(or rules: espanola)",
    "move_ms": " at the top of the file: it goes inside time, as time: {move_ms: 1000}",
    "startup_ms": " at the top of the file: it goes inside time, as time: {startup_ms: 10000}",
    "bank_ms": " at the top of the file: it goes inside time, as time: {bank_ms: 5000}",
    "margin": " at the top of the file: it goes inside settle, as settle: {margin: 0.25}",
}
"""Keys of a section given at the top of a file instead: named with the section they belong in."""


def _tidy(path: Path) -> Path:
    """``path`` without ``.`` and ``..`` parts (``tournaments/../results`` is ``results``), as every line that
    names it shows it; where a ``..`` follows a symlink, and so leads up from the symlink's target, resolved."""
    normal = os.path.normpath(path)
    return Path(normal if os.path.realpath(normal) == os.path.realpath(path) else os.path.realpath(path))


def _holds_results(directory: Path) -> bool:
    return any((directory / name).is_file() for name in STORE_FILES)


def load_config(path: str | os.PathLike[str]) -> TournamentConfig:
    """Read and validate a tournament file; raise :class:`ConfigError` on the first problem.

    Bot directories and manifests are checked, but nothing is built or run.
    """
    shown = str(path)
    file = Path(os.path.abspath(Path(path).expanduser()))  # absolute, without ".." (named in every output line)
    try:
        document = yamlsafe.read(file, shown, "tournament file")
    except yamlsafe.YamlError as exc:
        raise ConfigError(str(exc), shown, line=exc.line) from None
    return _Reader(shown, file, document.root).read(document.data)


def key_text(path: KeyPath) -> str:
    """``("bots", 2, "path")`` -> ``bots[2].path``."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _shown(value: Any) -> str:
    """A value as the user wrote it in YAML, for "got ..." in messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "a mapping"
    return f"{value} (a {type(value).__name__}; quote it to make it a string)"


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Reader:
    """Validates the loaded data against the YAML node tree, which knows the line of every value."""

    def __init__(self, shown: str, file: Path, root: Any) -> None:
        self.shown = shown
        self.file = file
        self.base = file.parent
        self.root = root

    # ------------------------------------------------------------ errors and lines
    def node(self, path: KeyPath, at_key: bool = False) -> tuple[Any, int]:
        """The node at ``path`` (or its key node) and how many path parts were found."""
        node = self.root
        for depth, part in enumerate(path):
            found = None
            if isinstance(node, yaml.MappingNode) and isinstance(part, str):
                for key_node, value_node in node.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.value == part:
                        found = key_node if at_key and depth == len(path) - 1 else value_node
            elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
                found = node.value[part]
            if found is None:
                return node, depth
            node = found
        return node, len(path)

    def line(self, path: KeyPath, at_key: bool = False) -> int | None:
        """1-based line of the value at ``path``; for a missing key, the line of its section."""
        node, depth = self.node(path, at_key)
        if node is None or depth == 0:
            return None
        return int(node.start_mark.line) + 1

    def fail(self, path: KeyPath, message: str, at_key: bool = False) -> NoReturn:
        """Raise the one error of this load, prefixed with file, line and key path."""
        line = self.line(path, at_key)
        where = f"{self.shown}:{line}" if line else self.shown
        key = key_text(path)
        prefix = f"{where}: {key}: " if key else f"{where}: "
        raise ConfigError(prefix + message, self.shown, key, line)

    def missing(self, key: str, near: KeyPath, message: str) -> NoReturn:
        """Refuse a file that lacks ``key``, at the line of ``near`` (the key that makes it required)."""
        line = self.line(near)
        raise ConfigError(f"{self.shown}:{line}: {key}: {message}", self.shown, key, line)

    def unknown_keys(self, path: KeyPath, data: Mapping[Any, Any], allowed: Sequence[str]) -> None:
        """Refuse keys that are not in ``allowed``, suggesting the closest one."""
        for key in data:
            if isinstance(key, str) and key in allowed:
                continue
            if isinstance(key, str) and not KEY_NAME.fullmatch(key):  # not a typo of a key: not echoed, since a
                line = self.line((*path, str(key)), at_key=True)  # file that is no tournament file may be secret
                inside = key_text(path)
                raise ConfigError(f"{self.shown}:{line}: {inside + ': ' if inside else ''}a key that is no key name "
                                  f"(not shown; is this a tournament file?); allowed keys: {', '.join(allowed)}",
                                  self.shown, inside, line)
            hint = NESTED.get(str(key)) if not path else None
            self.fail((*path, str(key)), f"unknown key{hint or did_you_mean(key, allowed)}; allowed keys: "
                                         f"{', '.join(allowed)}", at_key=True)

    def duplicate_keys(self) -> None:
        """Refuse a key given twice in one mapping: YAML would silently keep the last one."""
        seen_nodes: set[int] = set()
        stack: list[tuple[Any, KeyPath]] = [(self.root, ())]
        while stack:
            node, path = stack.pop()
            if id(node) in seen_nodes:
                continue
            seen_nodes.add(id(node))
            if isinstance(node, yaml.MappingNode):
                first: dict[str, int] = {}
                for key_node, value_node in node.value:
                    if isinstance(key_node, yaml.ScalarNode) and key_node.value != "<<":
                        key = str(key_node.value)
                        line = int(key_node.start_mark.line) + 1
                        if key in first:
                            where = key_text((*path, key))
                            raise ConfigError(f"{self.shown}:{line}: {where}: key given twice (first at line "
                                              f"{first[key]}); keep one", self.shown, where, line)
                        first[key] = line
                        stack.append((value_node, (*path, key)))
            elif isinstance(node, yaml.SequenceNode):
                stack.extend((child, (*path, i)) for i, child in enumerate(node.value))

    # ------------------------------------------------------------ value checks
    def integer(self, path: KeyPath, value: Any, minimum: int, maximum: int, null: bool = False) -> int | None:
        """An int in range (never a bool or float), or None when ``null`` allows it. Every integer has a
        maximum: an unbounded one fails later, far from the file (64-bit overflows, schedules that never end)."""
        if value is None and null:
            return None
        if _is_int(value) and minimum <= value <= maximum:
            return int(value)
        self.fail(path, f"expected an integer from {minimum} to {maximum}{' or null' if null else ''}, "
                        f"got {_shown(value)}")

    def required_int(self, path: KeyPath, value: Any, minimum: int, maximum: int) -> int:
        """Like :meth:`integer`, null not allowed."""
        result = self.integer(path, value, minimum, maximum)
        assert result is not None
        return result

    def choice(self, path: KeyPath, value: Any, choices: Sequence[str]) -> str:
        """One of ``choices``, exactly as spelled there."""
        if isinstance(value, str) and value in choices:
            return value
        self.fail(path, f"expected one of {' | '.join(choices)}, got {_shown(value)}{did_you_mean(value, choices)}")

    def boolean(self, path: KeyPath, value: Any) -> bool:
        """``true`` or ``false``, nothing that merely looks like one (``1``, ``"yes"``)."""
        if isinstance(value, bool):
            return value
        self.fail(path, f"expected true or false, got {_shown(value)}")

    def section(self, path: KeyPath, value: Any, allowed: Sequence[str]) -> dict[str, Any]:
        """An optional mapping of known keys; null or absent means all defaults."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(path, f"expected a mapping with keys among {', '.join(allowed)}, got {_shown(value)}")
        self.unknown_keys(path, value, allowed)
        return value

    # ------------------------------------------------------------ the file
    def read(self, data: Any) -> TournamentConfig:
        """Check every key in documentation order and build the config."""
        if data is None:
            self.fail((), "the file is empty; expected a mapping with at least 'name' and 'bots'")
        if not isinstance(data, dict):
            line = int(self.root.start_mark.line) + 1
            got = "text" if isinstance(data, str) else _shown(data)  # text is not echoed: it may be a secret file's
            raise ConfigError(f"{self.shown}:{line}: the top level must be a mapping of keys "
                              f"({', '.join(top_keys())}), got {got}; is this a tournament file?", self.shown, "", line)
        self.duplicate_keys()
        self.unknown_keys((), data, top_keys())
        for key in REQUIRED_KEYS:
            if key not in data:
                self.fail((key,), f"required key missing; {_REQUIRED_HINT[key]}")
        name = self.name(data["name"])
        game = self.game(data.get("game", DEFAULT_GAME))
        rules = self.rules(data.get("rules", game.default_preset), game)
        seats = self.seats(data.get("seats", DEFAULT_SEATS), game)
        cycles = self.required_int(("cycles",), data.get("cycles", 1), 1, MAX_CYCLES)
        schedule = self.schedule(data.get("schedule", DEFAULT))
        settings = self.schedule_keys(data, schedule)
        seed = self.seed(data["seed"]) if "seed" in data else None
        time_control = self.time(data.get("time"))
        sandbox = self.choice(("sandbox",), data.get("sandbox", "auto"), BACKEND_NAMES)
        workers, executor = self.executor_keys(data)
        per_process = self.required_int(("matches_per_process",),
                                        data.get("matches_per_process", DEFAULT_MATCHES_PER_PROCESS), 1,
                                        MAX_MATCHES_PER_PROCESS)
        fault_policy = self.choice(("fault_policy",), data.get("fault_policy", "forfeit"), FAULT_POLICIES)
        max_faults = self.required_int(("max_faults",), data.get("max_faults", 3), 1, MAX_FAULTS)
        tell_opponents = self.boolean(("tell_opponents",), data.get("tell_opponents", False))
        rating = self.rating(data.get("rating"))
        margin = self.settle(data.get("settle"))
        limits = self.limits(data.get("limits"))
        log_bytes = self.required_int(("log_bytes",), data.get("log_bytes", Limits().log_bytes), 0, MAX_LOG_BYTES)
        limits = dataclasses.replace(limits, log_bytes=log_bytes)
        output = self.output(data.get("output"), name)
        bots = self.bots(data["bots"], schedule.keys.least_bots)
        if schedule.hooks.builds_up_front:  # the file's bots are the players: they must fill every table size
            self.players(data, bots, seats, rules.preset)
        settings = schedule.check(self, Field(data, bots, seats, rules, cycles, rating), settings)
        return TournamentConfig(name=name, rules=rules, seats=seats, cycles=cycles, seed=seed, time=time_control,
                                sandbox=sandbox, workers=workers, matches_per_process=per_process,
                                fault_policy=fault_policy, max_faults=max_faults, tell_opponents=tell_opponents,
                                rating=rating, limits=limits, output=output, bots=bots, path=self.file,
                                schedule=schedule.name, schedule_settings=settings, executor=executor,
                                game=game.name, margin=margin)

    def players(self, data: Mapping[str, Any], bots: Sequence[BotSpec], seats: Sequence[int], preset: str) -> None:
        """Refuse bots too few for the largest table, or that some table size could not seat."""
        if max(seats) > len(bots):
            given = "" if "seats" in data else f" (seats is not given; the default is {DEFAULT_SEATS})"
            self.fail(("seats",) if "seats" in data else ("bots",),
                      f"matches of {max(seats)} players{given} need at least {max(seats)} bots, but bots lists "
                      f"{len(bots)}; add bots or set seats to at most {len(bots)}")
        why = refusal(bots, preset, seats)
        if why:
            self.fail(("seats",) if "seats" in data else ("bots",), why)

    # ---------------------------------------------------------- executor keys (owned by the executors)
    # ``workers`` and ``executor`` belong to the executors: each registered executor checks its own address
    # (:mod:`arena.execute.registry`), so a new one needs no change here.
    def executor_keys(self, data: Mapping[str, Any]) -> tuple[int | None, Choice | None]:
        """``workers`` (matches at once; null: one per core) and ``executor``: null or ``local`` (worker
        processes here), or ``{NAME: ADDRESS}`` of a registered executor, such as ``{dask: ADDRESS}``."""
        workers = self.integer(("workers",), data.get("workers"), 1, MAX_WORKERS, null=True)
        value = data.get("executor")
        if value is None or value == "local":
            return workers, None
        known = executor_names()
        section = self.section(("executor",), value, known)
        if len(section) != 1:
            self.fail(("executor",), f"expected local, or one key among {', '.join(known)} with its address, "
                                     f"such as {{dask: tcp://10.0.0.5:8786}}, got {', '.join(section) or 'no key'}")
        name, address = next(iter(section.items()))
        if not isinstance(address, str):
            self.fail(("executor", name), f"expected an address such as tcp://10.0.0.5:8786 or local:N, "
                                          f"got {_shown(address)}")
        try:
            return workers, choose(name, address)
        except ValueError as exc:
            self.fail(("executor", name), str(exc))

    def name(self, value: Any) -> str:
        """The tournament name: safe as a directory name."""
        if isinstance(value, str) and NAME_RE.match(value):
            return value
        self.fail(("name",), "expected 1-64 characters of a-z 0-9 - _ . starting with a letter or digit, "
                             f"got {_shown(value)}")

    def game(self, value: Any) -> Game:
        """A registered game's name (:mod:`arena.game.registry`)."""
        if not isinstance(value, str):
            self.fail(("game",), f"expected a game name ({' | '.join(games())}), got {_shown(value)}")
        try:
            return game_named(value)
        except UnknownGame as exc:
            self.fail(("game",), str(exc))

    def rules(self, value: Any, game: Game) -> GameRules:
        """A preset name, or ``{preset, options}`` of ``game``; options checked one by one so errors have a line."""
        presets = game.preset_names()
        options: Any
        path: KeyPath
        if isinstance(value, str):
            preset, options, path = value, {}, ("rules",)
        elif isinstance(value, dict):
            self.unknown_keys(("rules",), value, RULES_KEYS)
            if "preset" not in value:
                self.fail(("rules", "preset"), f"required key missing; expected one of {' | '.join(presets)}")
            preset, path = value["preset"], ("rules", "preset")
            options = value.get("options") or {}
            if not isinstance(options, dict):
                self.fail(("rules", "options"), f"expected a mapping of option: value, got {_shown(options)}")
        else:
            self.fail(("rules",), f"expected a preset name ({' | '.join(presets)}) or a mapping "
                                  f"{{preset: ..., options: {{...}}}}, got {_shown(value)}")
        if not isinstance(preset, str) or preset not in presets:
            self.fail(path, f"unknown rule preset {_shown(preset)}; expected one of {' | '.join(presets)}")
        specs = {option.name: option for option in game.options_of(preset)}
        self.unknown_keys(("rules", "options"), options, tuple(specs))
        for key, option_value in options.items():
            try:
                specs[key].coerce(option_value, text=False)
            except RuleError as exc:
                self.fail(("rules", "options", key), str(exc))
        try:
            return game.make_rules(preset, options)
        except RuleError as exc:  # the checks above should have caught it
            self.fail(("rules",), str(exc))

    def seats(self, value: Any, game: Game) -> tuple[int, ...]:
        """One table size (within ``game``'s player range) or a non-empty list of them; sorted and deduplicated."""
        low, high = game.min_players, game.max_players
        if isinstance(value, list):
            if not value:
                self.fail(("seats",), f"expected a non-empty list of integers from {low} to {high}, "
                                      "got an empty list")
            return tuple(sorted({self.required_int(("seats", i), v, low, high)
                                 for i, v in enumerate(value)}))
        if _is_int(value):
            return (self.required_int(("seats",), value, low, high),)
        self.fail(("seats",), f"expected an integer from {low} to {high} or a non-empty list of "
                              f"them, got {_shown(value)}")

    def schedule(self, value: Any) -> ScheduleKind:
        """Which schedule kind (:mod:`.kinds`); a name kept for a schedule to come says so."""
        if isinstance(value, str) and value in NOT_YET:
            self.fail(("schedule",), f"{value!r} is not available yet; expected one of {' | '.join(names())}")
        return kind_of(self.choice(("schedule",), value, names()))

    def schedule_keys(self, data: Mapping[str, Any], chosen: ScheduleKind) -> Any:
        """The chosen kind's keys, read by the kind; another kind's key is refused as a likely mistake."""
        settings = None
        for kind in kinds():
            if kind is chosen:
                settings = kind.read(self, data)
                continue
            for key in kind.keys.all:
                if key in data and key not in chosen.keys.all:
                    self.fail((key,), f"only used with schedule: {kind.name}{kind.keys.only_note}; remove it, or add "
                                      f"schedule: {kind.name}", at_key=True)
        for key in chosen.keys.unused:
            if key in data:
                users = " or ".join(kind.name for kind in kinds() if key not in kind.keys.unused)
                self.fail((key,), f"only used with schedule: {users}{chosen.keys.unused_note}; remove it", at_key=True)
        return settings

    def seed(self, value: Any) -> int | str:
        """The master seed: an integer or a string, kept as written."""
        low, high = SEED_RANGE
        if isinstance(value, str):
            return value
        if isinstance(value, int) and not isinstance(value, bool) and low <= value <= high:
            return value
        self.fail(("seed",), f"expected an integer from {low} to {high} or a string, got {_shown(value)}")

    def time(self, value: Any) -> TimeControl:
        """Per-move, start-up and bank times in milliseconds."""
        section = self.section(("time",), value, TIME_KEYS)
        default = TimeControl()
        move = self.required_int(("time", "move_ms"), section.get("move_ms", default.move_ms), 1, MAX_MOVE_MS)
        startup = self.required_int(("time", "startup_ms"), section.get("startup_ms", default.startup_ms), 1,
                                    MAX_MOVE_MS)
        bank = self.integer(("time", "bank_ms"), section.get("bank_ms", default.bank_ms), 0, MAX_BANK_MS, null=True)
        return TimeControl(move_ms=move, startup_ms=startup, bank_ms=bank)

    def limits(self, value: Any) -> Limits:
        """Kernel limits per bot process; the arena-side byte caps keep their defaults."""
        section = self.section(("limits",), value, LIMIT_KEYS)
        default = Limits()
        chosen = {key: self.required_int(("limits", key), section.get(key, getattr(default, key)), 1, LIMIT_MAX[key])
                  for key in LIMIT_KEYS}
        try:
            return Limits(**chosen)
        except (TypeError, ValueError) as exc:
            self.fail(("limits",), str(exc))

    def rating(self, value: Any) -> RatingParams:
        """The rating model, its method and parameters; only the given ones override RatingParams' defaults. Each
        number is checked by :meth:`RatingParams.validate`, the one place its range is, and named here by its key."""
        section = self.section(("rating",), value, RATING_KEYS)
        chosen: dict[str, Any] = {}
        for key, given in section.items():
            if key in ("method", "model"):
                chosen[key] = self.choice(("rating", key), given, METHODS if key == "method" else MODELS)
            else:
                chosen[key] = given
        try:
            return RatingParams(**chosen)
        except RatingParamError as exc:
            if exc.name in section:
                self.fail(("rating", exc.name), f"expected {exc.allowed}, got {_shown(exc.value)}")
            self.fail(("rating", "beta"), f"with beta {_shown(section.get('beta'))}, the default {exc.name} "
                                          f"{exc.value:g} is not {exc.allowed}; give {exc.name} too")

    def settle(self, value: Any) -> float:
        """``settle: {margin: M}``: places per match, above 0 and at most :data:`MAX_MARGIN`."""
        section = self.section(("settle",), value, SETTLE_KEYS)
        if "margin" not in section:
            return DEFAULT_MARGIN
        margin = section["margin"]
        if not isinstance(margin, (int, float)) or isinstance(margin, bool) or not math.isfinite(margin) \
                or not 0 < margin <= MAX_MARGIN:
            self.fail(("settle", "margin"), f"expected places per match, a number above 0 and at most {MAX_MARGIN:g} "
                                            f"(e.g. {DEFAULT_MARGIN:g}: a quarter of a place), got {_shown(margin)}")
        return float(margin)

    def output(self, value: Any, name: str) -> Path:
        """The output directory, absolute; a relative path (and the default ``results/<name>``) is relative to
        the file's directory, so that every command finds the same results from any current directory."""
        if value is not None and (not isinstance(value, str) or not value.strip()):
            self.fail(("output",), f"expected a directory path (a string) or null for results/{name}, "
                                   f"got {_shown(value)}")
        path = Path("results") / name if value is None else Path(value).expanduser()
        if not path.is_absolute():
            self.moved_results(Path.cwd() / path, self.base / path)
            path = self.base / path
        path = _tidy(path)
        longest = max((part for part in path.parts), key=lambda part: len(os.fsencode(part)))
        if len(os.fsencode(longest)) > MAX_NAME_BYTES or len(os.fsencode(str(path))) > MAX_PATH_BYTES:
            self.fail(("output",), f"a path of {len(str(path)):,} characters whose longest name has "
                                   f"{len(os.fsencode(longest)):,} bytes; a directory name holds at most "
                                   f"{MAX_NAME_BYTES} bytes and a path {MAX_PATH_BYTES:,}: give a shorter output path")
        return path

    def moved_results(self, old: Path, new: Path) -> None:
        """Refuse to start anew beside results an older arena kept at ``old``: a relative output path was once
        relative to the current directory, and results found there are this file's if none are at ``new``."""
        if os.path.normpath(old) == os.path.normpath(new) or _holds_results(new) or not _holds_results(old):
            return
        self.fail(("output",), f"{old} holds results, kept there when a relative output path was relative to the "
                               f"current directory; it is now relative to this file: {new}. Move the directory there, "
                               f"or set output: {old}")

    def bots(self, value: Any, least: int = MIN_BOTS) -> tuple[BotSpec, ...]:
        """Every bot entry checked (directory, manifest, program), names unique; nothing built. ``least``:
        0 for a schedule kind whose list is only a starting field, which may be short, empty or null."""
        if least == 0 and value is None:
            value = []
        if not isinstance(value, list) or len(value) < least:
            count = f"{len(value)} entr{'y' if len(value) == 1 else 'ies'}" if isinstance(value, list) \
                else _shown(value)
            self.fail(("bots",), f"expected a list of at least {MIN_BOTS} bots, got {count}; {_REQUIRED_HINT['bots']}")
        specs: list[BotSpec] = []
        first: dict[str, int] = {}
        for index, entry in enumerate(value):
            spec = self.bot(index, entry)
            if spec.name in first:
                other = first[spec.name]
                line = self.line(("bots", other))
                at = f" at line {line}" if line else ""
                self.fail(("bots", index), f"duplicate bot name {spec.name!r}: bots[{other}]{at} has it too; "
                                           f"give one of them another name with {{name: other-name, path: ...}}")
            first[spec.name] = index
            specs.append(spec)
        return tuple(specs)

    def bot(self, index: int, entry: Any) -> BotSpec:
        """One entry: a directory path, ``{name?, path}`` or ``{name?, command}``."""
        here: KeyPath = ("bots", index)
        if isinstance(entry, str):
            return self.bot_directory(here, entry, None)
        if not isinstance(entry, dict):
            self.fail(here, f"expected a bot directory path, {{name: x, path: dir}} or {{name: x, command: "
                            f"\"program args\"}}, got {_shown(entry)}")
        self.unknown_keys(here, entry, BOT_KEYS)
        name = entry.get("name")
        if name is not None and not (isinstance(name, str) and NAME_RE.match(name)):
            self.fail((*here, "name"), "expected 1-64 characters of a-z 0-9 - _ . starting with a letter or "
                                       f"digit, got {_shown(name)}")
        if ("path" in entry) == ("command" in entry):
            what = "not both" if "path" in entry else "one of them is required"
            self.fail(here, f"give either path (a bot directory) or command (a command line), {what}")
        image = entry.get("image")
        if image is not None and not (isinstance(image, str) and image.strip()):
            self.fail((*here, "image"), f"expected a container image name (a string), got {_shown(image)}")
        if "path" in entry:
            spec = self.bot_directory((*here, "path"), entry["path"], name)
        elif image is not None:  # the command runs inside the image, not on this machine
            spec = self.image_command((*here, "command"), entry["command"], name)
        else:
            spec = self.bot_command((*here, "command"), entry["command"], name)
        return spec if image is None else dataclasses.replace(spec, image=image)

    def image_command(self, path: KeyPath, command: Any, name: str | None) -> BotSpec:
        """A command line to run inside a container image (docker sandbox)."""
        if isinstance(command, str):
            command = shlex.split(command)
        if not (isinstance(command, list) and command and all(isinstance(a, str) for a in command)):
            self.fail(path, f"expected a command line (a string, or a list of strings), got {_shown(command)}")
        if name is None:
            self.fail(path[:-1], "a bot given by image and command needs a name")
        return BotSpec(name=name, command=tuple(command))

    def bot_directory(self, path: KeyPath, ref: Any, name: str | None) -> BotSpec:
        """A bot directory (or its manifest file), relative to the config file's directory."""
        if not isinstance(ref, str) or not ref.strip():
            self.fail(path, f"expected the path of a bot directory (a string), got {_shown(ref)}")
        target = Path(ref).expanduser()
        target = target if target.is_absolute() else self.base / target
        manifest = target.suffix in (".yaml", ".yml") and target.is_file()
        if not target.is_dir() and not manifest:
            what = "is a file, not a bot directory" if target.exists() else "no such bot directory"
            hint = "" if target.exists() or not (" " in ref or "=" in ref) else \
                "; for a command line write {name: x, command: \"...\"}"
            self.fail(path, f"{what}: {target} (relative paths are relative to {self.base}){hint}")
        try:
            return load_bot(str(target), self.base, name)
        except BotConfigError as exc:
            self.fail(path, str(exc))

    def bot_command(self, path: KeyPath, command: Any, name: str | None) -> BotSpec:
        """A plain command line; a program given by path is relative to the config file's directory."""
        if isinstance(command, list) and command and all(isinstance(a, str) for a in command):
            command = shlex.join(command)
        if not isinstance(command, str) or not command.strip():
            self.fail(path, f"expected a command line (a string, or a list of strings), got {_shown(command)}")
        if (self.base / Path(command.strip()).expanduser()).is_dir():
            self.fail(path, "this is a directory; a bot directory goes under path, not command")
        try:
            return load_bot(command, self.base, name)
        except BotConfigError as exc:
            self.fail(path, str(exc))


_REQUIRED_HINT = {
    "name": "give the tournament a name such as 'league' (a-z 0-9 - _ .); results go to results/<name>",
    "bots": "list bot directories (relative to this file) or {name: x, command: \"...\"} entries",
}
