"""Round scoring, running totals, match end and standings: pure functions of numbers.

Kept apart from the state machine so the seed's worked example and the scoring
tables can be tested directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from .rules import Rules

MOON = ("KC", "KS", "Q", "Q")
MOON_PENALTY = 50
CALLER_PENALTY = 5
RESET_AT = 100
RESET_TO = 50
END_ABOVE = 100
CABO_BONUS = 10


@dataclass(frozen=True)
class RoundScore:
    """How one round scored."""

    sums: tuple[int, ...]
    """Sum of the cards left in each hand."""
    scores: tuple[int, ...]
    """Points each seat adds to its total this round."""
    moon: int | None
    """Seat that shot the moon, if any (standard only)."""


def is_moon(codes: Sequence[str]) -> bool:
    """Exactly two queens and both black kings, nothing else."""
    return tuple(sorted(c if c[0] != "Q" else "Q" for c in codes)) == MOON


def score_round(rules: Rules, hands: Sequence[Sequence[str]], caller: int | None) -> RoundScore:
    """Score revealed ``hands`` (card codes of occupied slots) for ``caller`` (or None)."""
    value = rules.value_map()
    sums = tuple(sum(value[c] for c in hand) for hand in hands)
    if rules.preset == "standard":
        return _score_standard(hands, sums, caller)
    return RoundScore(sums, _score_espanola(rules, sums, caller), None)


def _score_standard(hands: Sequence[Sequence[str]], sums: tuple[int, ...], caller: int | None) -> RoundScore:
    for seat, hand in enumerate(hands):
        if is_moon(hand):
            return RoundScore(sums, tuple(0 if s == seat else MOON_PENALTY for s in range(len(hands))), seat)
    low = min(sums)
    if caller is not None and sums[caller] == low:
        scores = [0 if s == caller else total for s, total in enumerate(sums)]
    else:
        scores = [0 if total == low else total for total in sums]
        if caller is not None:
            scores[caller] = sums[caller] + CALLER_PENALTY
    return RoundScore(sums, tuple(scores), None)


def _score_espanola(rules: Rules, sums: tuple[int, ...], caller: int | None) -> tuple[int, ...]:
    scores = list(sums)
    if caller is not None:
        strictly_lowest = all(sums[caller] < t for s, t in enumerate(sums) if s != caller)
        if rules.options["cabo_bonus"] == "literal":
            scores[caller] = -CABO_BONUS if strictly_lowest else 0
        elif strictly_lowest:
            scores[caller] = sums[caller] - CABO_BONUS
    return tuple(scores)


def add_scores(
    rules: Rules, totals: Sequence[int], reset_used: Sequence[bool], scores: Sequence[int]
) -> tuple[list[int], list[bool], list[int]]:
    """New totals and reset flags, and the seats whose total dropped from 100 to 50."""
    new = [t + s for t, s in zip(totals, scores)]
    used = list(reset_used)
    resets = []
    if rules.preset == "standard":
        for seat, total in enumerate(new):
            if total == RESET_AT and not used[seat]:
                new[seat], used[seat] = RESET_TO, True
                resets.append(seat)
    return new, used, resets


def match_end(rules: Rules, totals: Sequence[int], rounds_played: int) -> str | None:
    """Why the match ends after this round, or None if it goes on."""
    if rules.preset == "standard":
        if any(t > END_ABOVE for t in totals):
            return "score"
    else:
        target = rules.options["target_score"]
        if target is not None and any(t <= target for t in totals):
            return "target"
        if rounds_played >= rules.options["rounds"]:
            return "rounds"
    if rounds_played >= rules.options["max_rounds"]:
        return "max_rounds"
    return None


def places(totals: Sequence[int]) -> list[int]:
    """1-based places, lowest total first; equal totals share a place (1, 2, 2, 4)."""
    return [1 + sum(1 for other in totals if other < t) for t in totals]


def first_clockwise(candidates: set[int], start: int, players: int) -> int:
    """First of ``candidates`` going clockwise from ``start`` included."""
    for step in range(players):
        seat = (start + step) % players
        if seat in candidates:
            return seat
    raise ValueError("no candidate seat")


def next_starter_dealer(
    rules: Rules, scores: Sequence[int], starter: int, dealer: int
) -> tuple[int, int]:
    """Who starts and who deals the next round."""
    n = len(scores)
    if rules.preset == "espanola":
        nxt = (starter + 1) % n
        return nxt, (nxt - 1) % n
    low, high = min(scores), max(scores)
    new_starter = first_clockwise({s for s in range(n) if scores[s] == low}, starter, n)
    new_dealer = first_clockwise({s for s in range(n) if scores[s] == high}, dealer, n)
    return new_starter, new_dealer
