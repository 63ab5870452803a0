"""Cabo behind the game seam: :class:`Cabo` answers :class:`~.seam.Game` with the engine's own modules.

The engine (``state``, ``rules``, ``scoring``, ``observe``, ``replay``, ``cabo_frames``) keeps its
names and is only wrapped here: the match state *is* the engine's :class:`~.state.Match`, so the
referee's calls per decision cost what they did before the seam.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from . import cabo_frames, scoring
from .observe import events_for, observe
from .replay import Notes, rebuild, replay_bytes
from .rules import MAX_PLAYERS, MIN_PLAYERS, Option, Rules, make_rules, options_of, preset_names
from .seam import GameResult, GameRules, GameState
from .state import Match

_ROUND_END = ("round_over", "match_over")
_PREFERENCE = ("pass", "draw", "take", "discard", "cabo")
"""The fallback policy's order: pass a claim, draw rather than take, discard what was drawn."""


class Cabo:
    """The game of Cabo, presets ``standard`` and ``espanola``."""

    name = "cabo"
    min_players = MIN_PLAYERS
    max_players = MAX_PLAYERS
    default_preset = "standard"

    def preset_names(self) -> tuple[str, ...]:
        return preset_names()

    def options_of(self, preset: str) -> Sequence[Option]:
        return options_of(preset)

    def make_rules(self, preset: str, options: Mapping[str, Any] | None = None) -> Rules:
        return make_rules(preset, options)

    def new_match(self, rules: GameRules, players: int, seed: int | str) -> Match:
        return Match(_cabo_rules(rules), players, seed)

    def observe(self, state: GameState, seat: int) -> dict[str, Any]:
        return observe(_match(state), seat)

    def events_for(self, state: GameState, seat: int, start: int = 0) -> list[dict[str, Any]]:
        return events_for(_match(state), seat, start)

    def round_ended(self, state: GameState, since: int) -> bool:
        return any(event.type in _ROUND_END for event in _match(state).events[since:])

    def hello_fields(self, rules: GameRules, seat: int, players: int) -> dict[str, Any]:
        cabo = _cabo_rules(rules)
        return {"rules": cabo.to_json(), "values": cabo.value_map()}

    def fallback(self, legal: Sequence[Mapping[str, Any]]) -> int:
        """Pass a claim, draw rather than take, discard what was drawn; else the first legal action."""
        kinds = [action["do"] for action in legal]
        for kind in _PREFERENCE:
            if kind in kinds:
                return kinds.index(kind)
        return 0

    def result(self, state: GameState) -> GameResult:
        result = _match(state).result
        if result is None:
            raise ValueError("the match is not over: it has no result yet")
        return GameResult(result.totals, result.reason, tuple(r.scores for r in result.rounds),
                          tuple(r.ended for r in result.rounds))

    def places(self, totals: Sequence[int]) -> list[int]:
        return scoring.places(totals)

    def replay_bytes(self, state: GameState, meta: Mapping[str, Any], notes: Notes) -> bytes:
        return replay_bytes(_match(state), dict(meta), notes)

    def rebuild(self, header: dict[str, Any], records: list[dict[str, Any]]) -> Match:
        return rebuild(header, records)

    def frames(self, header: dict[str, Any], records: list[dict[str, Any]],
               times: Sequence[float | None] | None = None,
               luck: Sequence[Sequence[float]] | None = None) -> dict[str, Any]:
        return cabo_frames.build_frames(header, records, times, luck)


def _match(state: GameState) -> Match:
    """The engine's match behind ``state``: a Cabo state is one, made by :meth:`Cabo.new_match`."""
    if not isinstance(state, Match):
        raise TypeError(f"not a Cabo match: {type(state).__name__}")
    return state


def _cabo_rules(rules: GameRules) -> Rules:
    if not isinstance(rules, Rules):
        raise TypeError(f"not Cabo rules: {type(rules).__name__}")
    return rules


CABO = Cabo()
"""The one Cabo; :mod:`.registry` registers it as ``cabo``."""
