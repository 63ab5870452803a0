"""Build matches with a chosen deal, to test exact situations."""

from __future__ import annotations

from typing import Any, Sequence

from arena.game import Chance, Match, make_rules
from arena.game.state import CLAIM, LOOK_INITIAL


class StackedChance(Chance):
    """Chance with a fixed first seat and fixed decks for chosen rounds."""

    def __init__(self, first: int, decks: dict[int, list[int]]) -> None:
        super().__init__("stacked")
        self.first = first
        self.decks = decks

    def first_seat(self, players: int) -> int:
        return self.first

    def deal(self, round_no: int, cards: list[int]) -> list[int]:
        return list(self.decks[round_no]) if round_no in self.decks else super().deal(round_no, cards)


def stacked(
    preset: str,
    hands: Sequence[Sequence[str]],
    top: str,
    draws: Sequence[str] = (),
    first: int = 0,
    options: dict[str, Any] | None = None,
    look: bool = True,
) -> Match:
    """A match whose first round deals ``hands`` (seat order), flips ``top``, then draws ``draws``.

    ``first`` is the dealer (standard) or the starter (espanola). With ``look`` every
    seat looks at slots 0 and 1 and any initial claim window is passed.
    """
    rules = make_rules(preset, options)
    codes = rules.deck.codes
    n = len(hands)
    pops = [hands[seat][k] for k in range(4) for seat in range(n)]
    pops += [top, *draws]
    assert len(set(pops)) == len(pops), "a card is stacked twice"
    rest = [c for c in codes if c not in pops]
    order = [codes.index(c) for c in rest + pops[::-1]]
    match = Match(rules, n, "stacked", chance=StackedChance(first, {1: order}))
    if look:
        for seat in range(n):
            match.apply(seat, {"do": "look_initial", "slots": [0, 1]})
        pass_window(match)
    return match


def pass_window(match: Match) -> None:
    """Everyone passes in the open claim window(s), if any."""
    while match.phase == CLAIM:
        for seat in match.asked():
            match.apply(seat, {"do": "pass"})


def codes_of(match: Match, seat: int) -> list[str | None]:
    """The true cards of ``seat`` (None for an empty slot)."""
    return [None if c is None else match.codes[c] for c in match.hands[seat]]


def assert_phase(match: Match, phase: str) -> None:
    assert match.phase == phase, f"phase {match.phase}, expected {phase}"


__all__ = ["stacked", "pass_window", "codes_of", "assert_phase", "StackedChance", "LOOK_INITIAL"]
