"""Random self-play: many seeded matches of uniformly random legal actions.

Used by ``arena selfplay`` to exercise the engine end to end and by the engine
benchmark; it touches a game only through the seam (:mod:`arena.game.seam`), so it plays
any registered game.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from .game.registry import DEFAULT_GAME, game_named
from .game.seam import GameRules, GameState


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


def play_random(match: GameState, rng: random.Random, observe_each: bool = True, game: str = DEFAULT_GAME) -> int:
    """Play ``match`` (of ``game``) to the end with uniform random legal actions; return decisions made."""
    observe = game_named(game).observe
    decisions = 0
    while not match.over:
        asked = match.asked()
        seat = asked[0] if len(asked) == 1 else rng.choice(asked)
        if observe_each:
            observe(match, seat)
        match.apply(seat, rng.choice(match.legal_keyed(seat)[1]))
        decisions += 1
    return decisions


def self_play(rules: GameRules, players: int, matches: int, seed: int, game: str = DEFAULT_GAME) -> SelfPlaySummary:
    """Play ``matches`` random matches of ``game`` with seeds derived from ``seed``."""
    played = game_named(game)
    summary = SelfPlaySummary(place_sum=[0] * players)
    for index in range(matches):
        match = played.new_match(rules, players, f"{seed}/{index}")
        summary.decisions += play_random(match, random.Random(f"{seed}/{index}/actions"), game=game)
        result = played.result(match)
        summary.matches += 1
        summary.rounds += len(result.rounds)
        summary.reasons[result.reason] += 1
        summary.round_ends.update(result.round_ends)
        for seat, place in enumerate(played.places(result.totals)):
            summary.place_sum[seat] += place
    return summary
