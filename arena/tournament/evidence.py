"""Every pair's paired deals, as a board and ``--until settled`` read them.

**What is measured.** For two bots A and B that sat at the same deal (a table's rotations, which
share its cards), the deal's *lead* of A is B's mean place minus A's over the rotations stored:
places per match, positive when A placed ahead. On balanced seatings (:mod:`.schedules.balance`)
two identical programs have a mean lead of zero, whatever seat order the schedule started with.
Only sums are kept, so a board of 100,000 matches holds a few numbers per pair.

What the leads show, and how it is judged so that it holds however often it is looked at, is
:mod:`arena.evidence.claims`: this module supplies its numbers (:meth:`PairEvidence.stats`) and the
level and margin every board judges at.
"""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

from ..evidence.claims import PairCall, Rules, judge, reconcile
from .rating import deal_key
from .records import MatchRecord, is_replay

BOARD_P = 0.95
"""The level at which every board judges its tiers, ``next`` and P(>next): ``--until settled``'s default."""
DEFAULT_MARGIN = 0.25
"""Places per match a row may be behind the row above it and still share its tier (``settle: {margin: ...}``): a
quarter of a place (``bench/settle_design.py`` weighs it against other margins)."""
MIN_DEALS = 10
"""Deals of a pair before any claim about it: the normal reading of a mean needs a few."""
PRIOR_VARIANCE = 0.5
"""The variance (places squared) a pair's test starts from: about a lead's between separated bots at four seats
(sd 0.7); identical bots, whose leads are all 0, then share a tier after about 16 deals (`bench/settle_design.py`)."""


class PairEvidence:
    """Every pair's deal differences, added one record at a time (any order: only sums are kept)."""

    def __init__(self) -> None:
        self._deals: dict[str, dict[str, list[int]]] = {}  # deal -> bot -> [sum of places, rotations], until whole
        self._sums: dict[tuple[str, str], list[float]] = {}  # (a, b), a < b -> [deals, sum d, sum d^2]

    def add(self, record: MatchRecord) -> None:
        """Count one stored match (a ladder's replays are never rated, and count here neither)."""
        self.add_places(record.match_id, record.bots, record.places)

    def add_places(self, match_id: str, bots: Sequence[str], places: Sequence[int]) -> None:
        """:meth:`add` of a match known by its id, seats and places."""
        if is_replay(match_id):
            return
        deal = self._deals.setdefault(deal_key(match_id), {})
        before = self._means(deal)
        for bot, place in zip(bots, places):
            seat = deal.setdefault(bot, [0, 0])
            seat[0] += place
            seat[1] += 1
        after = self._means(deal)
        for pair, value in after.items():
            sums = self._sums.setdefault(pair, [0.0, 0.0, 0.0])
            if pair in before:
                old = before[pair]
                sums[1] -= old
                sums[2] -= old * old
            else:
                sums[0] += 1
            sums[1] += value
            sums[2] += value * value
        if all(count == len(deal) for _, count in deal.values()):
            del self._deals[deal_key(match_id)]  # every rotation is in: its differences are final

    @staticmethod
    def _means(deal: Mapping[str, list[int]]) -> dict[tuple[str, str], float]:
        """(a, b) -> b's mean place minus a's at this deal, for every pair at it (a < b by name)."""
        bots = sorted(deal)
        mean = {bot: deal[bot][0] / deal[bot][1] for bot in bots}
        return {(a, b): mean[b] - mean[a] for i, a in enumerate(bots) for b in bots[i + 1:]}

    def of(self, a: str, b: str) -> tuple[int, float, float]:
        """(deals, mean, variance) of the difference with ``a`` ahead positive; (0, 0, 0) when they never met."""
        first, second = sorted((a, b))
        count, total, squares = self._sums.get((first, second), (0, 0.0, 0.0))
        n = int(count)
        if n == 0:
            return 0, 0.0, 0.0
        mean = total / n
        variance = max(0.0, squares / n - mean * mean) * n / (n - 1) if n > 1 else 0.0
        return n, mean if first == a else -mean, variance

    def stats(self, a: str, b: str) -> tuple[int, float, float]:
        """(deals, mean lead of ``a`` over ``b``, sum of squared deviations): what :mod:`arena.evidence.claims`
        reads."""
        n, mean, variance = self.of(a, b)
        return n, mean, variance * (n - 1) if n > 1 else 0.0

    @classmethod
    def of_sums(cls, sums: Mapping[tuple[str, str], tuple[int, float, float]]) -> "PairEvidence":
        """The evidence of whole deals kept as sums (a ladder's store keeps them: :meth:`.LadderStore.kept_sums`):
        ``(a, b)``, a < b by name -> (deals, sum of the differences, sum of their squares), as :meth:`add`
        keeps them."""
        out = cls()
        out._sums = {pair: [float(n), float(total), float(squares)] for pair, (n, total, squares) in sums.items()}
        return out

    def copy(self) -> "PairEvidence":
        other = PairEvidence()
        other._deals = {deal: {bot: list(s) for bot, s in bots.items()} for deal, bots in self._deals.items()}
        other._sums = {pair: list(s) for pair, s in self._sums.items()}
        return other


def evidence_of(records: Iterable[MatchRecord]) -> PairEvidence:
    """The evidence of these records."""
    evidence = PairEvidence()
    for record in records:
        evidence.add(record)
    return evidence


def board_rules(p: float = BOARD_P, margin: float = DEFAULT_MARGIN) -> Rules:
    """How a board (and ``--until settled`` at ``p``) judges its pairs."""
    return Rules(p, margin, MIN_DEALS, PRIOR_VARIANCE)


def judged(evidence: PairEvidence, order: Sequence[str], p: float = BOARD_P,
           margin: float = DEFAULT_MARGIN) -> tuple[list[str], list[PairCall]]:
    """The rating model's ``order`` reconciled with the deals (no row above one shown ahead of it), and each of its
    rows judged against the next: what a board shows and ``--until settled`` stops on."""
    rules = board_rules(p, margin)
    shown = reconcile(order, evidence.stats, rules)
    return shown, judge(evidence.stats, shown, rules)


def sure_text(value: float | None) -> str:
    """P(>next) for a table cell: two decimals, ``>0.99`` rather than a rounded ``1.00`` that would claim
    certainty; blank below 0.5, where the deals do not show the row ahead, and for none (the last row, too few
    deals)."""
    if value is None or value < 0.5:
        return ""
    return ">0.99" if value >= 0.995 else f"{value:.2f}"


def tier_text(rank: int | None, tier: int | None, shared: bool) -> str:
    """A rank as a board shows it: ``2=`` for a tier of several, ``2`` for one alone, ``-`` unranked."""
    if rank is None:
        return "-"
    shown = tier if tier is not None else rank
    return f"{shown}=" if shared else str(shown)
