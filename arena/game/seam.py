"""What the arena needs from a game: the seam between the referee, the tournament and the report
on one side and a game's rules engine on the other.

The arena plays any game that gives these (OpenSpiel's *Game* and *State*): a :class:`Game`
names its presets and options, its player range, and makes a :class:`GameState` for a match;
the state says who is asked, what each seat may do, and takes actions. Everything a bot or a
report sees of a match goes through :meth:`Game.observe` and :meth:`Game.events_for`, so hidden
state leaves a game by no other path, whatever the game.

Games are found by name (:mod:`.registry`); Cabo (:mod:`.cabo`) is one of them, and a test's toy
game (``tests/game/toy_game.py``) is the worked example of adding one. A game with no drawing of
its own in the viewer uses :mod:`.plain` for its replay and frames.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Hashable, Mapping, Protocol, Sequence

from .errors import IllegalAction
from .replay import Notes
from .rules import Option, RuleError

__all__ = ["Game", "GameResult", "GameRules", "GameState", "IllegalAction", "Notes", "Option", "RuleError"]


class GameRules(Protocol):
    """A game's fixed part for one match: a preset with every option set. Frozen and picklable:
    it travels inside a match job to worker processes and other machines."""

    @property
    def preset(self) -> str: ...

    def to_json(self) -> Mapping[str, Any]:
        """``{"preset": ..., "options": {...}}``: what configs, replays and fingerprints hold."""
        ...


@dataclass(frozen=True)
class GameResult:
    """How a finished match ended, as the arena records it."""

    totals: tuple[int, ...]
    """Final score per seat (the game says, through :meth:`Game.places`, whether low or high wins)."""
    reason: str
    """How it ended, in the game's words."""
    rounds: tuple[tuple[int, ...], ...] = ()
    """Score per seat of each round, for games that have rounds."""
    round_ends: tuple[str, ...] = ()
    """How each round ended, in the game's words (``arena selfplay`` counts them)."""


class GameState(Protocol):
    """One match being played: the referee's questions and its one way to change it."""

    @property
    def over(self) -> bool: ...

    @property
    def round_no(self) -> int:
        """The round being played (1 for a game without rounds): fault records name it."""
        ...

    @property
    def history(self) -> Sequence[tuple[int, Any, int]]:
        """Applied actions, in order: ``(seat, action, index in events of the first event it caused)``."""
        ...

    @property
    def events(self) -> Sequence[Any]:
        """Everything that happened, omniscient; :meth:`Game.events_for` projects it for one seat."""
        ...

    def asked(self) -> tuple[int, ...]:
        """Seats that must act now, in seat order (several in a simultaneous phase)."""
        ...

    def legal_keyed(self, seat: int) -> tuple[Hashable, list[dict[str, Any]]]:
        """``(key, legal actions of seat)``; equal keys mean equal lists, so the arena encodes each list
        once (a game without such sharing returns a key unique to the list, e.g. its JSON)."""
        ...

    def apply(self, seat: int, action: Mapping[str, Any]) -> None:
        """Apply an action from outside (a replay); an illegal one raises :class:`IllegalAction` saying
        why (:meth:`explain`)."""
        ...

    def apply_legal(self, seat: int, index: int) -> None:
        """Apply the ``index``-th legal action of ``seat``: the referee's path, already validated."""
        ...

    def explain(self, seat: int, action: Any) -> str:
        """Why ``action`` is not legal for ``seat`` now."""
        ...


class Game(Protocol):
    """A game the arena can referee, schedule, store and show."""

    @property
    def name(self) -> str:
        """The registry's name, the ``game:`` of a tournament file."""
        ...

    @property
    def min_players(self) -> int: ...

    @property
    def max_players(self) -> int: ...

    @property
    def default_preset(self) -> str:
        """The preset of a tournament file that gives no ``rules``."""
        ...

    def preset_names(self) -> tuple[str, ...]: ...

    def options_of(self, preset: str) -> Sequence[Option]:
        """The options of ``preset``, in documentation order; an unknown preset raises :class:`RuleError`."""
        ...

    def make_rules(self, preset: str, options: Mapping[str, Any] | None = None) -> GameRules:
        """Validated rules; a bad preset, option or value raises :class:`RuleError` saying what is allowed."""
        ...

    def new_match(self, rules: GameRules, players: int, seed: int | str) -> GameState:
        """A match of ``players`` seats whose every chance event follows from ``seed``."""
        ...

    def observe(self, state: GameState, seat: int) -> dict[str, Any]:
        """The ``state`` object of the protocol's ``act`` for ``seat``: all it may know now."""
        ...

    def events_for(self, state: GameState, seat: int, start: int = 0) -> list[dict[str, Any]]:
        """Events from index ``start`` on, as ``seat`` may see them."""
        ...

    def round_ended(self, state: GameState, since: int) -> bool:
        """Whether the events from index ``since`` end a round: every bot then gets an ``update``."""
        ...

    def hello_fields(self, rules: GameRules, seat: int, players: int) -> dict[str, Any]:
        """What ``hello`` says of the game, after ``players`` (``rules``, and e.g. Cabo's card ``values``)."""
        ...

    def fallback(self, legal: Sequence[Mapping[str, Any]]) -> int:
        """The index the fallback policy plays for a faulted seat: from the legal list alone, so it leaks
        nothing and always answers the same in the same situation."""
        ...

    def result(self, state: GameState) -> GameResult:
        """The result of a match that is over."""
        ...

    def places(self, totals: Sequence[int]) -> list[int]:
        """1-based places by total, ties sharing a place."""
        ...

    def replay_bytes(self, state: GameState, meta: Mapping[str, Any], notes: Notes) -> bytes:
        """The omniscient replay file (JSON lines, a header first) of ``state`` with the arena's ``notes``."""
        ...

    def rebuild(self, header: dict[str, Any], records: list[dict[str, Any]]) -> GameState:
        """The match a replay's header and records describe, its actions applied again."""
        ...

    def frames(self, header: dict[str, Any], records: list[dict[str, Any]],
               times: Sequence[float | None] | None = None,
               luck: Sequence[Sequence[float]] | None = None) -> dict[str, Any]:
        """The replay viewer's frames of one match: every step, omniscient and as each seat saw it; ``luck``,
        per card the deck gave, each seat's luck term (a game with a value function to measure it by: the
        omniscient view shows it; any other ignores it)."""
        ...
