"""What a board may say of each row and the next, all of it true together with chance at least P.

A board lists bots best first. For a row U and the row L under it, the deals they shared give U's
*lead* (L's mean place minus U's: positive when U placed ahead; :mod:`arena.tournament.evidence`
collects it), and the board claims one of three relations (``"next"`` in ``leaderboard.json``):

* ``ahead``: U is ahead of L (the mean lead is above 0);
* ``tier``: U is not worse than L by more than the margin M (the mean lead is above -M) but is not
  shown ahead: the two share a tier (``2=``), whose order the deals do not settle;
* ``open``: neither is shown yet.

This is ranking-and-selection's *indifference zone*: a tier does not claim the two are equal (which
costs far more deals to show), only that reading them in the board's order is wrong by less than
the margin, if at all. ``--until settled`` stops once no neighbouring pair is open.

**The tests** (:mod:`.sequential`'s likelihood ratio, the lead's variance estimated as it goes):
``tier`` rejects "U is worse by M or more" when the ratio of mean lead 0 over mean lead -M reaches
``log(K / (1 - P))``; ``ahead`` rejects "U is not ahead" when the ratio of mean lead M over 0 reaches
``log(2 K / (1 - P))``, ``K`` being the pairs of the ranked field. The ratio for ``tier`` is the one
for ``ahead`` plus ``n M^2 / var``, so ``ahead`` implies ``tier``.

**Why these bounds hold together (closed testing).** The board's order is chosen by the results, so
any two bots may end up neighbours: the family is every pair of the field in both directions, two
hypotheses each ("x is worse than y by M or more", "x is not ahead of y"). Closed testing with
Bonferroni's local tests rejects a hypothesis at level ``1 - P`` divided by the most hypotheses that can
be true together (Holm, step-down; with Shaffer's logical restrictions, 1986). Here that most is set
pair by pair: a pair's two "worse by M" hypotheses cannot both be true, and when "x worse by M" is
true its "x not ahead" may be too, but a rejection of the second implies one of the first; when the
two are level, both "not ahead" hypotheses are true and each is tested at half. So a pair spends at
most ``(1 - P) / K`` whatever its truth, and however many other hypotheses are rejected, every pair
of a field keeps a hypothesis that may be true: the step-down never lowers the bar below ``K``, and
the bounds above are the closed test's. Holm over the neighbours alone would pay for 5 pairs of 6
bots rather than 15, but the neighbours are chosen by the data: simulated on a ladder of bots each
exactly a margin apart, it made false claims in 4-6% of runs at P 0.95 (``bench/settle_design.py``).

Rank intervals, the other column that says how sure a board is, come from the rating model
(:mod:`arena.tournament.confidence`) and are reconciled with these claims there.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Sequence

from .sequential import llr, regularised_variance

AHEAD = "ahead"
TIER = "tier"
OPEN = "open"

Stats = Callable[[str, str], tuple[int, float, float]]
"""A pair's deals as (count, mean lead of the first over the second, sum of squared deviations)."""


@dataclass(frozen=True)
class Rules:
    """How a field's claims are judged: the level, the margin, and the reading of the deals."""

    p: float
    margin: float
    """In the lead's unit (places per match on a board)."""
    min_deals: int
    """Deals of a pair before any claim."""
    prior_variance: float
    """The variance a pair's test starts from (:func:`.sequential.regularised_variance`)."""

    def pairs(self, players: int) -> int:
        """``K``: the pairs of a ranked field of ``players``."""
        return max(1, players * (players - 1) // 2)


@dataclass(frozen=True)
class PairCall:
    """What the deals show of a row and the next: the upper one first."""

    upper: str
    lower: str
    deals: int
    mean: float
    """The upper one's mean lead (negative: the lower one placed ahead more)."""
    sd: float
    """The spread of a deal's lead the test read (the regularised variance's root)."""
    relation: str
    """:data:`AHEAD`, :data:`TIER` or :data:`OPEN`."""
    sure: float | None
    """The highest level at which ``ahead`` holds (:func:`sure_level`); None before the floor of deals."""

    def text(self, margin: float, unit: str = "places per match") -> str:
        """``a ahead of b (lead +0.41 places per match, sd 0.80, over 84 deals)``, as a run's last line names a
        pair."""
        what = {AHEAD: "ahead of", TIER: f"at most {margin:g} behind", OPEN: "not yet told apart from"}[self.relation]
        return (f"{self.upper} {what} {self.lower} (lead {self.mean:+.2f} {unit}, sd {self.sd:.2f}, "
                f"over {self.deals} deals)")


def ratios(deals: int, mean: float, variance: float, margin: float) -> tuple[float, float]:
    """(the ratio for ``tier``: lead 0 over lead -M; the ratio for ``ahead``: lead M over 0)."""
    return llr(deals, mean, variance, -margin, 0.0), llr(deals, mean, variance, 0.0, margin)


def sure_level(ahead_ratio: float, pairs: int) -> float:
    """The highest level P at which ``ahead`` would hold: ``1 - 2 K exp(-ratio)``, at least 0."""
    if ahead_ratio <= 0:
        return 0.0
    return max(0.0, 1.0 - 2.0 * pairs * math.exp(-min(ahead_ratio, 700.0)))


def call(stats: Stats, upper: str, lower: str, rules: Rules, players: int) -> PairCall:
    """The relation of ``upper`` to ``lower`` in a ranked field of ``players`` at ``rules``."""
    deals, mean, m2 = stats(upper, lower)
    variance = regularised_variance(deals, m2, rules.prior_variance)
    if deals < rules.min_deals:
        return PairCall(upper, lower, deals, mean, math.sqrt(variance), OPEN, None)
    pairs = rules.pairs(players)
    bar = -math.log1p(-rules.p)  # log(1 / (1 - P))
    tier_ratio, ahead_ratio = ratios(deals, mean, variance, rules.margin)
    if ahead_ratio >= bar + math.log(2.0 * pairs):
        relation = AHEAD
    elif tier_ratio >= bar + math.log(pairs):
        relation = TIER
    else:
        relation = OPEN
    return PairCall(upper, lower, deals, mean, math.sqrt(variance), relation, sure_level(ahead_ratio, pairs))


def judge(stats: Stats, order: Sequence[str], rules: Rules) -> list[PairCall]:
    """Each row of ``order`` (a board's ranked players, best first) against the next."""
    return [call(stats, upper, lower, rules, len(order)) for upper, lower in zip(order, order[1:])]


def reconcile(order: Sequence[str], stats: Stats, rules: Rules) -> list[str]:
    """``order`` with every row that the deals show ahead of the row above it moved up past it (a stable
    exchange of neighbours, repeated until none is left), so that no row is shown above one the evidence
    puts ahead of it. Without such evidence the order is kept as given (the rating model's)."""
    out = list(order)
    players = len(out)
    for _ in range(players):  # a consistent order needs at most this many passes; claims in a cycle stop here
        moved = False
        for i in range(players - 1):
            if call(stats, out[i + 1], out[i], rules, players).relation == AHEAD:
                out[i], out[i + 1] = out[i + 1], out[i]
                moved = True
        if not moved:
            break
    return out


def tiers(order: Sequence[str], calls: Sequence[PairCall]) -> dict[str, int]:
    """Each player's tier: the rank (1 is best) of the first of the run of rows joined by ``tier``
    relations; a row that shares a tier with nobody has its own rank."""
    out = {name: rank for rank, name in enumerate(order, start=1)}
    for position, pair in enumerate(calls, start=1):
        if pair.relation == TIER:
            out[order[position]] = out[order[position - 1]]
    return out


def settled(calls: Sequence[PairCall]) -> bool:
    """No neighbouring pair open."""
    return all(pair.relation != OPEN for pair in calls)
