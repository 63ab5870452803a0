"""Shared helpers for the randomised engine tests: option sets, a random driver, card sets."""

from __future__ import annotations

import copy
import random
from typing import Any, Iterator

from arena.game import Match, make_rules
from arena.game.rules import Rules

# Preset and option combinations the random tests play. Small ``max_turns_per_round``
# hits the safety limit, small ``max_rounds`` the match limit; ``target_score`` with
# ``literal`` can end a match after one round.
CONFIGS: list[tuple[str, dict[str, Any]]] = [
    ("standard", {}),
    ("standard", {"multi_swap_from_discard": False}),
    ("standard", {"max_turns_per_round": 12}),
    ("standard", {"max_rounds": 2}),
    ("espanola", {}),
    ("espanola", {"kings_zero": "all", "pairs": False}),
    ("espanola", {"kings_zero": "none", "cabo_bonus": "literal", "target_score": -10}),
    ("espanola", {"target_score": 15, "rounds": 10}),
    ("espanola", {"max_turns_per_round": 12, "rounds": 3}),
]

CABO_RATES = (0.01, 0.05, 0.15, 0.5)
"""Chance of calling Cabo when it is legal: low rates make long rounds with reshuffles."""


def config_id(config: tuple[str, dict[str, Any]]) -> str:
    preset, options = config
    return preset + "".join(f"-{k}={v}" for k, v in options.items())


def rules_of(config: tuple[str, dict[str, Any]]) -> Rules:
    return make_rules(*config)


def random_choice(match: Match, rng: random.Random, cabo_rate: float) -> tuple[int, dict[str, Any]]:
    """A random asked seat and a random legal action of it (a private copy).

    The seat is random so simultaneous phases are answered in any order; the action
    kind is chosen first so that kinds with many variants do not crowd out the rest.
    """
    seat = rng.choice(match.asked())
    legal = match.legal_actions(seat)
    kinds = sorted({a["do"] for a in legal})
    if "cabo" in kinds and len(kinds) > 1:
        kind = "cabo" if rng.random() < cabo_rate else rng.choice([k for k in kinds if k != "cabo"])
    else:
        kind = rng.choice(kinds)
    action = rng.choice([a for a in legal if a["do"] == kind])
    return seat, copy.deepcopy(action)


def drive(
    match: Match, rng: random.Random, limit: int, cabo_rate: float | None = None
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Play ``match`` randomly for at most ``limit`` actions; yield ``(seat, action)`` after each."""
    rate = rng.choice(CABO_RATES) if cabo_rate is None else cabo_rate
    for _ in range(limit):
        if match.over:
            return
        seat, action = random_choice(match, rng, rate)
        match.apply(seat, action)
        yield seat, action


def all_cards(match: Match) -> list[int]:
    """Every card id the match holds somewhere: hands, deck, discard, held."""
    cards = [c for hand in match.hands for c in hand if c is not None]
    cards += match.deck + match.discard
    if match.held is not None:
        cards.append(match.held)
    return cards


def codes_in(value: Any, codes: frozenset[str]) -> set[str]:
    """Every card code found anywhere inside a JSON-like value."""
    if isinstance(value, str):
        return {value} if value in codes else set()
    if isinstance(value, dict):
        return set().union(*(codes_in(v, codes) for v in value.values()))
    if isinstance(value, (list, tuple)):
        return set().union(*(codes_in(v, codes) for v in value))
    return set()
