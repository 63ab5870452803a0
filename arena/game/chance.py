"""Every random event of a match, derived from the match seed.

Randomness is kept outside the rules (OpenSpiel's chance nodes): each purpose gets
its own generator seeded from the match seed and a label, so the deck of round 3 is
the same whoever sits where and however earlier rounds went. That is what duplicate
deals and reproducible replays rely on.
"""

from __future__ import annotations

import random


class Chance:
    """Seeded chance steps of one match."""

    def __init__(self, seed: int | str) -> None:
        self.seed = seed

    def _rng(self, label: str) -> random.Random:
        return random.Random(f"{self.seed}/{label}")

    def first_seat(self, players: int) -> int:
        """The first round's dealer (standard) or starter (espanola)."""
        return self._rng("first").randrange(players)

    def deal(self, round_no: int, cards: list[int]) -> list[int]:
        """A shuffled deck for ``round_no``; the top of the pile is the last element."""
        deck = sorted(cards)
        self._rng(f"deal/{round_no}").shuffle(deck)
        return deck

    def reshuffle(self, round_no: int, count: int, cards: list[int]) -> list[int]:
        """The ``count``-th reshuffle of the discard (minus its top) in ``round_no``."""
        deck = list(cards)
        self._rng(f"reshuffle/{round_no}/{count}").shuffle(deck)
        return deck
