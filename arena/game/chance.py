"""Every random event of a match, derived from the match seed.

Randomness is kept outside the rules (OpenSpiel's chance nodes): each purpose gets
its own generator seeded from the match seed and a label, so the deck of round 3 is
the same whoever sits where and however earlier rounds went. That is what duplicate
deals and reproducible replays rely on.
"""

from __future__ import annotations

import random
from typing import Any, Protocol

DEAL, FLIP, DRAW, PENALTY = "deal", "flip", "draw", "penalty"
"""Where a card the deck gives goes: a seat's hand at the deal, the discard pile's first card, a seat's
hand held after drawing from the pile, a wrong claim's penalty slot. Every card leaves the deck one of
these ways, a reshuffled pile's too, each uniformly from the cards left in it."""


class ChanceWatcher(Protocol):
    """Told, after the card is placed, of every card the deck gives (:data:`DEAL` ...): the referee's luck
    meter. The match state it is handed is the whole truth, so it is never reachable from a seat's view."""

    def drawn(self, match: Any, kind: str, seat: int, card: int) -> None: ...


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
        _shuffle(self._rng(f"deal/{round_no}"), deck)
        return deck

    def reshuffle(self, round_no: int, count: int, cards: list[int]) -> list[int]:
        """The ``count``-th reshuffle of the discard (minus its top) in ``round_no``."""
        deck = list(cards)
        _shuffle(self._rng(f"reshuffle/{round_no}/{count}"), deck)
        return deck


def _shuffle(rng: random.Random, items: list[int]) -> None:
    """Fisher-Yates exactly as CPython's ``random.shuffle`` draws it, in one tight loop.

    Same ``getrandbits`` calls, same rejection sampling, so the same permutation (a test
    compares the two); spelled out here it takes a third of the time, and a deal no
    longer depends on how a future Python implements ``shuffle``.
    """
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = n.bit_length()
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]
