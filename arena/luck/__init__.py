"""Luck taken out of results: what the cards gave each seat over expectation, from what the referee knows.

At every card the deck gives (:mod:`arena.game.chance`), the referee's :class:`.meter.Meter` records per seat
``V(after) - E[V(after)]``, the expectation taken exactly over the cards that could have come, ``V`` the fixed
:class:`.value.ValueModel`. Each term has mean zero whatever ``V`` is, so a result minus its seat's luck is an
unbiased estimate of the result with the cards' luck taken out (docs/tournaments.md, "Luck and skill").
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ..game.state import Match
from .meter import Meter
from .value import ValueModel, load

LUCK_DIGITS = 3
"""A seat's luck is kept to a thousandth of a point: stored, compared and replayed as rounded."""
MEASURED_GAMES = ("cabo",)
"""The games the shipped value file has a ``V`` for; a match of any other is played unmetered."""


@lru_cache(maxsize=1)
def shipped_model() -> ValueModel:
    """The value file every match is measured with (read once per process)."""
    return load()


def model_label(model: ValueModel) -> str:
    """What a store records of the model that measured a match: its version and the first 16 hex digits of
    its file's hash (another file, another label)."""
    return f"{model.version}@{model.digest[:16]}"


def metered_match(game: str, rules: Any, players: int, seed: int | str) -> tuple[Any, Meter] | None:
    """A new match of ``game`` with the referee's meter watching it from the first deal, or None for a game
    the arena has no value function for."""
    if game not in MEASURED_GAMES:
        return None
    meter = Meter(shipped_model(), rules.preset, players)
    return Match(rules, players, seed, watcher=meter), meter
