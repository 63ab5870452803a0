"""Random self-play: many seeded matches of uniformly random legal actions.

Used by ``arena selfplay`` to exercise the engine end to end and by the engine
benchmark; it touches the engine only through its public API.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from .game import Match, Rules, observe


@dataclass
class SelfPlaySummary:
    """What a batch of random matches did."""

    matches: int = 0
    """Matches played."""
    decisions: int = 0
    """Actions applied in all matches."""
    rounds: int = 0
    """Rounds played in all matches."""
    reasons: Counter[str] = field(default_factory=Counter)
    """How the matches ended."""
    round_ends: Counter[str] = field(default_factory=Counter)
    """How the rounds ended (cabo or turn_limit)."""
    place_sum: list[int] = field(default_factory=list)
    """Sum of places per seat, for average place."""


def play_random(match: Match, rng: random.Random, observe_each: bool = True) -> int:
    """Play ``match`` to the end with uniform random legal actions; return decisions made."""
    decisions = 0
    while not match.over:
        asked = match.asked()
        seat = asked[0] if len(asked) == 1 else rng.choice(asked)
        if observe_each:
            observe(match, seat)
        match.apply(seat, rng.choice(match.legal_actions(seat)))
        decisions += 1
    return decisions


def self_play(rules: Rules, players: int, matches: int, seed: int) -> SelfPlaySummary:
    """Play ``matches`` random matches with seeds derived from ``seed``."""
    summary = SelfPlaySummary(place_sum=[0] * players)
    for index in range(matches):
        match = Match(rules, players, f"{seed}/{index}")
        summary.decisions += play_random(match, random.Random(f"{seed}/{index}/actions"))
        assert match.result is not None
        summary.matches += 1
        summary.rounds += len(match.result.rounds)
        summary.reasons[match.result.reason] += 1
        summary.round_ends.update(r.ended for r in match.result.rounds)
        for seat, place in enumerate(match.result.places):
            summary.place_sum[seat] += place
    return summary
