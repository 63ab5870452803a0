"""Paired evidence between bots, judged so that it holds however often it is looked at.

``--until settled`` asks after every unit whether the board is sure. A test made for one look,
asked after every unit, is wrong far more often than it says: a Bayesian "P(ahead) >= 0.95"
asked after each cycle stopped "settled" on two identical bots in 70% of runs. So the stop
rule here is a *confidence sequence* per pair of bots: an interval for the pair's mean
difference that holds at every unit at once, with the stated error, whenever the run stops.

**What is measured.** For two bots A and B that sat at the same deal (a table's rotations, which
share its cards), the deal's difference is B's mean place minus A's over the rotations stored:
places per match, positive when A placed ahead. A pair's difference is the mean over the deals
both played; on balanced seatings (:mod:`.schedules.balance`) two identical programs have a mean
difference of zero, whatever seat order the schedule started with.

**The interval.** The asymptotic confidence sequence of Waudby-Smith, Arbour, Sinha, Kennedy and
Ramdas ("Time-uniform central limit theory and asymptotic confidence sequences", Annals of
Statistics, 2024), a Gaussian mixture boundary (Robbins) on the running mean with the variance
estimated as it goes::

    mean +- sd * sqrt(2 (t rho^2 + 1) / (t^2 rho^2) * log(sqrt(t rho^2 + 1) / alpha))

after ``t`` deals. It holds for deals whose means differ from table to table (it covers the
average of their means), at every ``t`` at once: the run may stop at any look. ``rho`` sets
where it is tightest, here at :data:`TARGET_DEALS`. Why this one and not an empirical-Bernstein
or betting sequence, which are valid for any number of deals: those pay for the range of a
difference (6 places at four seats) where this pays for its spread (about 0.7), and on the
known-strength field needed two to three times as many matches. Its guarantee is asymptotic, so
it is measured where users run it: ``bench/fairness.py`` counts false stops over hundreds of
runs of real bots at the bundled league's table size, identical and near-equal bots included.
No claim is made before :data:`MIN_DEALS` deals of a pair, and the spread is never taken below
:data:`MIN_SD`, where a few deals could make it look small.

**Many pairs.** A board's order is decided by the results, so any pair may end up adjacent: every
pair of the ranked field gets ``alpha = (1 - P) / pairs`` (a union bound), and then every claim
of a settled board holds together with error at most ``1 - P``.

**What a pair can be shown to be.** *Ordered*: the interval lies above zero, A is ahead. *Within
the margin* (``settle: {margin: M}``, places per match): the interval lies inside ``(-M, M)``,
the two are within M of each other, and share a *tier* (shown as ``2=``). Otherwise *open*.
A board is settled when every adjacent pair is ordered in the board's direction or within the
margin.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Iterable, Mapping, Sequence

from .rating import deal_key
from .records import MatchRecord, is_replay

BOARD_P = 0.95
"""The level at which every board judges its tiers and P(>next): ``--until settled``'s default."""
DEFAULT_MARGIN = 0.25
"""Places per match within which two bots may be shown equal (``settle: {margin: ...}``): a quarter of a place."""
TARGET_DEALS = 60
"""Deals of a pair at which the interval is tightest (its ``rho``): what a pair of the bundled league's
size shares after ten cycles; it is valid before and after."""
MIN_DEALS = 20
"""Deals of a pair before it may be called ordered or within the margin."""
MIN_SD = 0.25
"""The least spread of a deal's difference the interval assumes (places per match)."""

ORDERED = "ordered"
WITHIN = "within"
OPEN = "open"


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


def pair_alpha(p: float, players: int) -> float:
    """The error each pair's interval gets so that all of a field's pairs hold together with ``1 - p``."""
    return (1.0 - p) / max(1, players * (players - 1) // 2)


def _rho2(alpha: float) -> float:
    """rho^2 of the boundary tightest at :data:`TARGET_DEALS` deals for ``alpha`` (the paper's choice)."""
    lam = -2.0 * math.log(alpha)
    return (lam + math.log(lam + 1.0)) / TARGET_DEALS


def half_width(deals: int, variance: float, alpha: float) -> float:
    """Half the width of the interval after ``deals`` deals of this ``variance``, at error ``alpha``."""
    if deals <= 0:
        return math.inf
    rho2 = _rho2(alpha)
    spread = math.sqrt(max(variance, MIN_SD * MIN_SD))
    grown = deals * rho2 + 1.0
    return spread * math.sqrt(2.0 * grown / (deals * deals * rho2) * math.log(math.sqrt(grown) / alpha))


def sure_ahead(deals: int, mean: float, variance: float, p: float, players: int) -> float | None:
    """The confidence, valid at every look, that the first of a pair is ahead of the second: the largest
    level P' at which the stop rule (run at ``p``) would call it ordered; 0 when the mean is not above zero,
    None before :data:`MIN_DEALS` deals. It is at least ``p`` exactly when the pair counts as ordered at ``p``."""
    if deals < MIN_DEALS:
        return None
    if mean <= 0:
        return 0.0
    rho2 = _rho2(pair_alpha(p, players))
    grown = deals * rho2 + 1.0
    z2 = mean * mean / max(variance, MIN_SD * MIN_SD)
    log_alpha = 0.5 * math.log(grown) - z2 * deals * deals * rho2 / (2.0 * grown)
    pairs = max(1, players * (players - 1) // 2)
    return max(0.0, 1.0 - pairs * math.exp(log_alpha)) if log_alpha < 50 else 0.0


@dataclass(frozen=True)
class PairCall:
    """What the evidence shows of one adjacent pair of a board, the upper one first."""

    upper: str
    lower: str
    deals: int
    mean: float
    """The upper one's lead in places per match (negative: the lower one placed ahead more)."""
    half: float
    """Half the interval's width (infinite before :data:`MIN_DEALS`)."""
    state: str
    """:data:`ORDERED`, :data:`WITHIN` (the margin) or :data:`OPEN`."""
    sure: float | None
    """:func:`sure_ahead` of the upper one."""

    def text(self, margin: float) -> str:
        """``a ahead of b (+0.41 ± 0.22 places per match over 84 deals)``, as the run's last line names it."""
        lead = f"{self.mean:+.2f} ± {self.half:.2f}" if math.isfinite(self.half) else f"{self.mean:+.2f}"
        what = {ORDERED: "ahead of", WITHIN: f"within {margin:g} of", OPEN: "not yet told apart from"}[self.state]
        return f"{self.upper} {what} {self.lower} ({lead} places per match over {self.deals} deals)"


def judge(evidence: PairEvidence, order: Sequence[str], p: float, margin: float) -> list[PairCall]:
    """Each adjacent pair of ``order`` (a board's ranked players, best first) judged at level ``p``."""
    alpha = pair_alpha(p, len(order))
    calls = []
    for upper, lower in zip(order, order[1:]):
        deals, mean, variance = evidence.of(upper, lower)
        half = half_width(deals, variance, alpha) if deals >= MIN_DEALS else math.inf
        state = ORDERED if mean - half > 0 else WITHIN if abs(mean) + half < margin else OPEN
        calls.append(PairCall(upper, lower, deals, mean, half, state,
                              sure_ahead(deals, mean, variance, p, len(order))))
    return calls


def tiers(order: Sequence[str], calls: Sequence[PairCall]) -> dict[str, int]:
    """Each player's tier: the rank (1 is best) of the first of the run of players shown within the margin
    of the one before; a player with nobody shown equal to it has its own rank."""
    out: dict[str, int] = {}
    for rank, name in enumerate(order, start=1):
        out[name] = rank
    for position, call in enumerate(calls, start=1):
        if call.state == WITHIN:
            out[order[position]] = out[order[position - 1]]
    return out


def settled(calls: Sequence[PairCall]) -> bool:
    """Every adjacent pair ordered or within the margin."""
    return all(call.state != OPEN for call in calls)


def sure_text(value: float | None) -> str:
    """:func:`sure_ahead` for a table cell: two decimals, ``>0.99`` rather than a rounded ``1.00`` that would
    claim certainty; blank below 0.5, where the deals do not show the row ahead (a figure near 0 would read as
    sure it is behind, which it does not say), and blank for none (the last row, too few deals)."""
    if value is None or value < 0.5:
        return ""
    return ">0.99" if value >= 0.995 else f"{value:.2f}"


def tier_text(rank: int | None, tier: int | None, shared: bool) -> str:
    """A rank as a board shows it: ``2=`` for a tier of several, ``2`` for one alone, ``-`` unranked."""
    if rank is None:
        return "-"
    shown = tier if tier is not None else rank
    return f"{shown}=" if shared else str(shown)
