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

Which ``V``: a card the seat holds after drawing it is measured with every feature of
:mod:`.value`; a card dealt or given as a penalty with the effective sums alone (the first feature), which is
linear in the card, so its expectation takes a few operations instead of one pass per candidate card: the
deal's sixteen cards a round are most of a match's cards. Each term has mean zero for whichever fixed ``V``
measures it, so mixing them keeps every correction unbiased.

The meter lives beside the referee's match (:attr:`arena.game.state.Match.watcher`), reads the whole true
state, and writes only its own totals: no seat's view reads it.
"""

from __future__ import annotations

from collections import Counter
from typing import Any, NamedTuple

from ..game.chance import DEAL, DRAW, FLIP, PENALTY
from ..game.rules import HAND_SIZE
from .value import FEATURES, ValueModel


class LuckEvent(NamedTuple):
    """One card the deck gave: where it went and what it gave each seat over the expected card."""

    round: int
    kind: str
    """:data:`..game.chance.DEAL`, ``FLIP``, ``DRAW`` or ``PENALTY``."""
    seat: int
    """The seat it went to (the dealer for the discard's first card)."""
    card: str
    terms: tuple[float, ...]
    """Per seat, ``V(after) - E[V(after)]`` in points (positive: more points than expected, worse)."""


class _Pool:
    """The cards a chance event's card came from (the deck as it was, the card included): their values counted,
    summed and their powers counted, kept card by card (each event's pool is the last one less the last card)
    and counted afresh when the deck was made anew (a new round, a reshuffle)."""

    def __init__(self) -> None:
        self.key: tuple[int, int] | None = None
        self.last = -1
        self.size = 0
        self.counts: dict[int, int] = {}
        self.total = 0
        self.powers = 0

    def at(self, match: Any, card: int, powered: tuple[bool, ...]) -> "_Pool":
        values, deck = match.values, match.deck
        key = (match.round_no, getattr(match, "reshuffles", 0))  # set once the first deal is done
        if key == self.key and len(deck) + 2 == self.size:
            gone = self.last
            value = values[gone]
            left = self.counts[value] - 1
            if left:
                self.counts[value] = left
            else:
                del self.counts[value]
            self.total -= value
            self.powers -= powered[gone]
            self.size -= 1
        else:
            pool = [*deck, card]
            self.counts = dict(Counter(map(values.__getitem__, pool)))
            self.total = sum(map(values.__getitem__, pool))
            self.powers = sum(map(powered.__getitem__, pool))
            self.size = len(pool)
        self.key, self.last = key, card
        return self


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
        self._powered: tuple[bool, ...] | None = None
        """Per card id of the match, whether its rank has a power (read once)."""
        self._pool = _Pool()

    def terms(self) -> list[tuple[float, ...]]:
        """Per card the deck gave so far, in order, each seat's term: what the viewer's frames show."""
        return [event.terms for event in self.events]

    def drawn(self, match: Any, kind: str, seat: int, card: int) -> None:
        """Measure the card ``card`` the deck just gave (already placed)."""
        n = match.players
        weights, luck = self.weights, self.luck
        if self._powered is None:
            powers = match.powers
            self._powered = tuple(rank in powers for rank in match.ranks)
        pool = self._pool.at(match, card, self._powered)
        if kind == DRAW:
            terms = []
            for s, delta in enumerate(self._held(match, seat, card, pool)):
                total = self.deltas[s]
                term = 0.0
                for i, d in enumerate(delta):
                    total[i] += d
                    term += weights[i] * d
                luck[s] += term
                terms.append(term)
        elif kind == FLIP:  # V reads no discard pile: the first card's term is zero for every seat
            terms = [0.0] * n
        else:
            terms = []
            w = weights[0]
            for s, d in enumerate(self._placed(match, kind, seat, card, pool)):
                self.deltas[s][0] += d
                luck[s] += w * d
                terms.append(w * d)
        self.events.append(LuckEvent(match.round_no, kind, seat, match.codes[card], tuple(terms)))

    @staticmethod
    def _placed(match: Any, kind: str, seat: int, card: int, pool: _Pool) -> list[float]:
        """A card dealt or given as a penalty, measured by the effective sums alone (``V`` restricted to its
        first feature, linear in the card: still exact, each term still of mean zero, and a few operations
        where a card the seat holds needs every candidate): each seat's effective sum's delta. The seat's sum
        moves by ``v - mean``; while the deal goes on, each seat's cards still to come move the other way, at
        the mean of the cards left."""
        left = len(match.deck)
        gap = match.values[card] - pool.total / pool.size
        out = [0.0] * match.players
        if kind == DEAL and left:
            share = gap / left
            for s, hand in enumerate(match.hands):
                out[s] = -(HAND_SIZE - len(hand)) * share
        out[seat] += gap
        return out

    def _held(self, match: Any, seat: int, card: int, pool: _Pool) -> list[tuple[float, ...]]:
        """A card drawn from the pile and held: every feature, each candidate card in its place. Only the
        drawing seat's effective sum depends on the card (its improvement on its worst card), so the
        candidates are taken by the sum they give it, and every other seat's gap to the lowest other hand is
        its sum less the lower of that sum and the lowest of the rest."""
        values = match.values
        size = pool.size
        base = [float(sum(values[c] for c in hand if c is not None)) for hand in match.hands]
        held = [values[c] for c in match.hands[seat] if c is not None]
        worst = max(held) if held else None
        own = base[seat]

        def effective(value: int) -> float:
            return own - (worst - value) if worst is not None and value < worst else own

        shares: dict[float, float] = {}
        for value, times in pool.counts.items():
            e = effective(value)
            shares[e] = shares.get(e, 0.0) + times / size
        actual = effective(values[card])
        others = [s for s in range(len(base)) if s != seat]
        lowest = min(base[s] for s in others)  # the drawing seat's lowest other hand
        rest = [min((base[t] for t in others if t != s), default=float("inf")) for s in others]
        kept = [base[s] for s in others]
        e_above, e_below = [0.0] * len(others), [0.0] * len(others)
        e_own = own_above = own_below = 0.0
        # every seat's gap to its lowest other hand, the drawing seat's sum at e: its own is e - lowest, another's
        # its sum less the lower of e and the lowest of the rest
        for e, share in shares.items():
            e_own += share * e
            gap = e - lowest
            if gap > 0:
                own_above += share * gap
            else:
                own_below += share * gap
            for i, r in enumerate(rest):
                gap = kept[i] - (r if r < e else e)
                if gap > 0:
                    e_above[i] += share * gap
                else:
                    e_below[i] += share * gap
        assert self._powered is not None
        power = float(self._powered[card]) - pool.powers / size
        out: list[tuple[float, ...]] = [()] * len(base)
        gap = actual - lowest
        out[seat] = (actual - e_own, 0.0, max(gap, 0.0) - own_above, min(gap, 0.0) - own_below, power)
        for i, s in enumerate(others):
            gap = kept[i] - min(rest[i], actual)
            out[s] = (0.0, 0.0, max(gap, 0.0) - e_above[i], min(gap, 0.0) - e_below[i], 0.0)
        return out
