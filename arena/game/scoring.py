"""Round scoring, running totals, match end and standings: pure functions of numbers.

Kept apart from the state machine so the seed's worked example and the scoring
tables can be tested directly. What differs between presets (the scoring tables, the
reset, the end condition, the next dealer) is each rule set's own method in
:mod:`arena.game.rulesets`; these functions add what every preset shares around it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:  # rules imports rulesets, which imports this module's tables
    from .rules import Rules

# The scoring tables of the source texts, used by the rule sets: standard's moon, caller
# penalty, 100 -> 50 reset and end above 100; espanola's Cabo bonus.
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
    return rules.ruleset.score_round(rules.options, hands, sums, caller)


def add_scores(
    rules: Rules, totals: Sequence[int], reset_used: Sequence[bool], scores: Sequence[int]
) -> tuple[list[int], list[bool], list[int]]:
    """New totals and reset flags, and the seats whose total dropped from 100 to 50."""
    new = [t + s for t, s in zip(totals, scores)]
    used = list(reset_used)
    resets = rules.ruleset.resets(new, used)
    return new, used, resets


def match_end(rules: Rules, totals: Sequence[int], rounds_played: int) -> str | None:
    """Why the match ends after this round, or None if it goes on."""
    reason = rules.ruleset.match_end(rules.options, totals, rounds_played)
    if reason is not None:
        return reason
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
    return rules.ruleset.next_seats(scores, starter, dealer)
