"""The referee's luck meter: at every card the deck gives, each seat's ``V(after) - E[V(after)]``.

A card leaving the deck is uniform over the cards left in it: the pile is a uniformly shuffled deck (or
reshuffled discard) whose order nobody has seen, and what players did depends only on cards already out of
it. So ``E[V(after)]`` is exact: the average of ``V`` with each card of the deck (the drawn one included) in
the drawn card's place (cards ``V`` cannot tell apart, the same value and, for a drawn card, the same power or
none, are counted together). The difference has mean zero given everything before it, whatever ``V`` is: summed
over a match it is the seat's luck, and ``result - luck`` estimates the result without the cards' luck,
unbiased. A reshuffle itself needs no term: ``V`` does not depend on the pile's order, and each card drawn
from the new pile is a term of its own. The seat that starts the first round is chance too, but ``V`` does
not depend on it, so its term is zero.

The meter lives beside the referee's match (:attr:`arena.game.state.Match.watcher`), reads the whole true
state, and writes only its own totals: no seat's view reads it.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from ..game.chance import DEAL, DRAW, FLIP, PENALTY
from ..game.rules import HAND_SIZE
from .value import FEATURES, ValueModel


@dataclass(frozen=True)
class LuckEvent:
    """One card the deck gave: where it went and what it gave each seat over the expected card."""

    round: int
    kind: str
    """:data:`..game.chance.DEAL`, ``FLIP``, ``DRAW`` or ``PENALTY``."""
    seat: int
    """The seat it went to (the dealer for the discard's first card)."""
    card: str
    terms: tuple[float, ...]
    """Per seat, ``V(after) - E[V(after)]`` in points (positive: more points than expected, worse)."""


class Meter:
    """Sums each seat's luck over one match: ``Match(rules, players, seed, watcher=Meter(model, preset, players))``
    (given before the first deal, which it measures too)."""

    def __init__(self, model: ValueModel, preset: str, players: int) -> None:
        self.model = model
        self.weights = model.weights_for(preset, players)
        self.luck = [0.0] * players
        """Per seat, the sum of its terms so far, in points (``w . deltas``)."""
        self.deltas = [[0.0] * len(FEATURES) for _ in range(players)]
        """Per seat, the sum of its feature deltas ``x(actual) - E[x]``: what fitting ``w`` regresses on."""
        self.events: list[LuckEvent] = []

    def drawn(self, match: Any, kind: str, seat: int, card: int) -> None:
        """Measure the card ``card`` the deck just gave (already placed)."""
        n = match.players
        if kind == FLIP:  # V reads no discard pile: the first card's term is zero for every seat
            self.events.append(LuckEvent(match.round_no, kind, seat, match.codes[card], (0.0,) * n))
            return
        values, ranks, powers = match.values, match.ranks, match.powers
        own = kind != DRAW  # the card lies in the seat's hand (deal, penalty), else it is held
        hands = [[values[c] for c in hand if c is not None] for hand in match.hands]
        if own:
            hands[seat].pop()  # the drawn card's place, filled by each candidate below
        base = [float(sum(hand)) for hand in hands]
        pending = [HAND_SIZE - len(hand) - (s == seat) for s, hand in enumerate(hands)] if kind == DEAL else None
        worst = max(hands[seat]) if not own and hands[seat] else None
        left = len(match.deck)
        deck_sum = sum(values[c] for c in match.deck) + values[card]
        counts = Counter((values[c], not own and ranks[c] in powers) for c in match.deck)
        drawn_key = (values[card], not own and ranks[card] in powers)
        counts[drawn_key] += 1
        size = left + 1
        # E[x] per seat for the features that vary with the card (a card count never does)
        e_eff, e_above, e_below = [0.0] * n, [0.0] * n, [0.0] * n
        e_power = 0.0
        actual: tuple[list[float], list[float], list[float]] = ([], [], [])
        for (value, power), times in counts.items():
            share = times / size
            if pending is not None:  # the cards still to be dealt, at the mean of the deck without this one
                mean = (deck_sum - value) / left if left else 0.0
                effective = [b + q * mean for b, q in zip(base, pending)]
            else:
                effective = list(base)
            if own:
                effective[seat] += value
            elif worst is not None and value < worst:
                effective[seat] -= worst - value
            first, second = (effective[0], effective[1]) if effective[0] <= effective[1] else \
                (effective[1], effective[0])
            for e in effective[2:]:
                if e < first:
                    first, second = e, first
                elif e < second:
                    second = e
            above, below = [0.0] * n, [0.0] * n
            for s, e in enumerate(effective):  # the gap to the lowest other hand: the second lowest for the lowest
                gap = e - second if e == first else e - first
                if gap > 0:
                    above[s] = gap
                    e_above[s] += share * gap
                else:
                    below[s] = gap
                    e_below[s] += share * gap
                e_eff[s] += share * e
            if power:
                e_power += share
            if (value, power) == drawn_key:
                actual = (effective, above, below)
        w_eff, _, w_above, w_below, w_power = self.weights
        terms = []
        for s in range(n):
            delta = (actual[0][s] - e_eff[s], 0.0, actual[1][s] - e_above[s], actual[2][s] - e_below[s],
                     (float(drawn_key[1]) - e_power) if s == seat else 0.0)
            total = self.deltas[s]
            for i, d in enumerate(delta):
                total[i] += d
            term = w_eff * delta[0] + w_above * delta[2] + w_below * delta[3] + w_power * delta[4]
            self.luck[s] += term
            terms.append(term)
        self.events.append(LuckEvent(match.round_no, kind, seat, match.codes[card], tuple(terms)))
