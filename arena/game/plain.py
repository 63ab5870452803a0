"""The replay, rebuild, rules and viewer frames of a game that has no drawing of its own.

A new game needs only its presets, its state and its view of a seat (:mod:`.seam`);
:class:`PlainGame` gives it the rest the way Cabo has them: a replay file in the arena's format (a header naming the game, then each action
followed by the events it caused, with the arena's notes in order) and frames the viewer shows
as text, each seat's view exactly as :meth:`~.seam.Game.observe` gave it to that seat's bot.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from typing import Any, Mapping, Protocol, Sequence, cast

import orjson

from .replay import FORMAT, Notes
from .rules import Option, RuleError
from .seam import Game, GameResult, GameRules, GameState

PLAIN_FORMAT = "arena-viewer-plain/1"
"""``format`` of :func:`plain_frames`: the viewer shows such frames as text, whatever the game."""


@dataclass(frozen=True)
class PlainRules:
    """A preset with every option set; frozen and picklable like Cabo's rules."""

    preset: str
    options: Mapping[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {"preset": self.preset, "options": dict(self.options)}


def plain_rules(presets: Mapping[str, Sequence[Option]], preset: str,
                options: Mapping[str, Any] | None = None) -> PlainRules:
    """``options`` checked against ``presets[preset]`` with Cabo's messages; a :class:`RuleError` otherwise."""
    if preset not in presets:
        raise RuleError(f"unknown rule preset {preset!r}; expected one of: {', '.join(presets)}")
    specs = {option.name: option for option in presets[preset]}
    chosen = {name: spec.default for name, spec in specs.items()}
    for key, value in (options or {}).items():
        if key not in specs:
            raise RuleError(f"unknown option {key!r} for preset {preset!r}; allowed: {', '.join(specs)}")
        chosen[key] = specs[key].coerce(value)
    return PlainRules(preset, chosen)


class PlainState(GameState, Protocol):
    """A state that knows its rules, table and seed, and keeps its events as omniscient JSON objects."""

    @property
    def rules(self) -> GameRules: ...

    @property
    def players(self) -> int: ...

    @property
    def seed(self) -> int | str: ...


def plain_replay_bytes(game: Game, state: PlainState, meta: Mapping[str, Any], notes: Notes) -> bytes:
    """The replay file of ``state``: as Cabo's, with ``game`` in the header."""
    header = {"type": "header", "format": FORMAT, "game": game.name, "rules": dict(state.rules.to_json()),
              "players": state.players, "seed": state.seed, **meta}
    records: list[Any] = [header]
    waiting: dict[int, list[dict[str, Any]]] = {}
    for record in notes.before:
        waiting.setdefault(record["decision"], []).append(record)
    history, events = state.history, state.events
    for decision, (seat, action, first) in enumerate(history):
        records.extend(waiting.pop(decision, ()))
        by = notes.by.get(decision)
        records.append({"type": "action", "seat": seat, "action": action, **({"by": by} if by else {})})
        end = history[decision + 1][2] if decision + 1 < len(history) else len(events)
        records.extend(events[first:end])
    for number in sorted(waiting):
        records.extend(waiting[number])
    records.extend(notes.final)
    return b"".join(orjson.dumps(record, option=orjson.OPT_APPEND_NEWLINE) for record in records)


def plain_rebuild(game: Game, header: dict[str, Any], records: list[dict[str, Any]]) -> GameState:
    """The match of a replay, its actions applied again (an illegal one raises the game's error)."""
    rules = game.make_rules(header["rules"]["preset"], header["rules"]["options"])
    state = game.new_match(rules, header["players"], header["seed"])
    for record in records:
        if record["type"] == "action":
            state.apply(record["seat"], record["action"])
    return state


def plain_frames(game: Game, header: dict[str, Any], records: list[dict[str, Any]],
                 times: Sequence[float | None] | None = None) -> dict[str, Any]:
    """Frames the viewer shows as text: one step per action, each with every seat's view and events.

    ``{"format": PLAIN_FORMAT, "game", "match", "preset", "players", "bots", "seed", "wire_id", "result",
    "steps": [{"n", "r", "asked", "action": [seat, action, by] or null, "ms", "events", "views": [...]}]}``
    where ``views[seat]`` is ``{"state": observe(seat), "events": events_for(seat) of this step}``, and
    ``result`` the replay's ``result`` record (places as the arena ranked them) or null.
    """
    players = header["players"]
    rules = game.make_rules(header["rules"]["preset"], header["rules"]["options"])
    state = game.new_match(rules, players, header["seed"])
    steps: list[dict[str, Any]] = []
    seen = 0

    def step(action: list[Any] | None, ms: float | None) -> None:
        nonlocal seen
        views = [{"state": game.observe(state, seat), "events": game.events_for(state, seat, seen)}
                 for seat in range(players)]
        steps.append({"n": len(state.history), "r": state.round_no, "asked": list(state.asked()), "action": action, "ms": ms,
                      "events": [dict(e) for e in state.events[seen:]], "views": views})
        seen = len(state.events)

    step(None, None)
    result = None
    for record in records:
        if record["type"] == "action":
            number = len(state.history)
            state.apply(record["seat"], record["action"])
            ms = times[number] if times is not None and number < len(times) else None
            step([record["seat"], record["action"], record.get("by")], ms)
        elif record["type"] == "result":
            result = {key: record[key] for key in ("totals", "places", "forfeited", "reason")}
    return {"format": PLAIN_FORMAT, "game": game.name, "match": header.get("match"),
            "preset": header["rules"]["preset"], "players": players, "bots": header.get("bots"),
            "seed": header["seed"], "wire_id": header.get("wire_id"), "result": result, "steps": steps}


class PlainGame(abc.ABC):
    """The parts of :class:`~.seam.Game` a game without its own drawing shares; a subclass sets ``name``,
    ``min_players``, ``max_players``, ``default_preset`` and ``presets`` and writes :meth:`new_match`,
    :meth:`observe` and :meth:`result`, and :meth:`events_for` when some events are hidden from some seats."""

    name: str
    min_players: int
    max_players: int
    default_preset: str
    presets: Mapping[str, Sequence[Option]]
    """Preset name -> its options, in documentation order."""

    def preset_names(self) -> tuple[str, ...]:
        return tuple(self.presets)

    def options_of(self, preset: str) -> Sequence[Option]:
        if preset not in self.presets:
            raise RuleError(f"unknown rule preset {preset!r}; expected one of: {', '.join(self.presets)}")
        return self.presets[preset]

    def make_rules(self, preset: str, options: Mapping[str, Any] | None = None) -> PlainRules:
        return plain_rules(self.presets, preset, options)

    @abc.abstractmethod
    def new_match(self, rules: GameRules, players: int, seed: int | str) -> PlainState:
        """A new match of ``players`` under ``rules``, dealt from ``seed``."""

    @abc.abstractmethod
    def observe(self, state: GameState, seat: int) -> dict[str, Any]:
        """What ``seat`` may know of ``state`` now: the ``state`` object of its ``act``."""

    @abc.abstractmethod
    def result(self, state: GameState) -> GameResult:
        """Totals, places and the reason the match ended."""

    def events_for(self, state: GameState, seat: int, start: int = 0) -> list[dict[str, Any]]:
        """Every event from ``start`` on: by default a game hides no event from anyone."""
        return list(state.events[start:])

    def round_ended(self, state: GameState, since: int) -> bool:
        return any(event.get("type") == "round_over" for event in state.events[since:])

    def hello_fields(self, rules: GameRules, seat: int, players: int) -> dict[str, Any]:
        return {"game": self.name, "rules": dict(rules.to_json())}

    def fallback(self, legal: Sequence[Mapping[str, Any]]) -> int:
        """The first legal action."""
        return 0

    def places(self, totals: Sequence[int]) -> list[int]:
        """Lowest total first, as in Cabo; equal totals share a place."""
        return [1 + sum(1 for other in totals if other < total) for total in totals]

    def replay_bytes(self, state: GameState, meta: Mapping[str, Any], notes: Notes) -> bytes:
        return plain_replay_bytes(self, _plain(state), meta, notes)

    def rebuild(self, header: dict[str, Any], records: list[dict[str, Any]]) -> GameState:
        return plain_rebuild(self, header, records)

    def frames(self, header: dict[str, Any], records: list[dict[str, Any]],
               times: Sequence[float | None] | None = None,
               luck: Sequence[Sequence[float]] | None = None) -> dict[str, Any]:
        return plain_frames(self, header, records, times)


def _plain(state: GameState) -> PlainState:
    if not all(hasattr(state, name) for name in ("rules", "players", "seed")):
        raise TypeError(f"{type(state).__name__} does not say its rules, players and seed: not a plain game's state")
    return cast(PlainState, state)
