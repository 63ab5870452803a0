"""The sequential test of ``arena compare``: likelihood ratios as bets on paired place differences.

Each deal is played twice, once with NEW and once with OLD in the same seat against the same
opponents, and gives one paired difference ``x = place(NEW) - place(OLD)`` (negative: NEW
placed better). The deal's luck is in both matches, so it cancels in ``x``; what is left is
the difference the versions make, and noise from the game taking another course once they
choose differently. ``x`` is bounded: it lies within ``spread = seats - 1`` of 0.

The test is Wald's SPRT in the form that needs no model of ``x`` (the betting form of
Waudby-Smith and Ramdas, "Estimating means of bounded random variables by betting", 2023).
For "better", a stake ``lam`` is set before each deal and the deal multiplies a wealth by
``1 - lam * x``; if NEW is not better (the mean of ``x`` is 0 or more), no stake gains on
average, so the wealth is a non-negative supermartingale and by Ville's inequality reaches
``2 / alpha`` with chance at most ``alpha / 2``, at any stop, however long the test runs, for
any distribution of ``x`` within its bounds. Four wealths run side by side:

* "better": ``1 - lam x`` (NEW not better is the null), a verdict at ``2 / alpha``;
* "worse": ``1 + lam x``, a verdict at ``2 / alpha``;
* "not better by the margin": ``1 + lam (x + M)`` (a mean of ``-M`` or less is the null), and
  "not worse by the margin": ``1 - lam (x - M)``; both at ``1 / beta`` at the same time give
  "no difference at margin M". A difference of ``M`` or more is so called at most ``beta`` of
  the time.

The stake is the one that makes the wealth grow fastest when the mean is exactly ``M`` away
from the null, ``lam = M / (var + M^2)`` (Kelly's fraction), with ``var`` the variance of the
deals before this one (so the stake is set before the deal is seen, which the guarantee
needs), and never more than :data:`MAX_STAKE` of what one deal can lose. At that stake the
log-wealth grows by about ``M^2 / (2 (var + M^2))`` a deal, what the normal SPRT's
log-likelihood ratio grows by, so the test needs about as many deals as a SPRT while its error
rates no longer rest on a normal approximation or a variance estimate.

Why these choices:

* A SPRT stops as early as any test with the same error rates can on average (Wald and
  Wolfowitz), and authors know it from chess engine testing (fastchess, cutechess). Their
  normal approximation was measured here first: on played deals of equal bots it said
  better or worse 0.065 of the time at alpha 0.05, because a mean of a few dozen places is
  not normal and its variance is estimated. The betting form keeps the SPRT's speed and
  makes ``alpha`` a bound that holds.
* Two one-sided tests, not one two-sided one: a verdict has three values, and each direction
  gets half of ``alpha``, so a bot compared with an equal one is called better or worse at most
  ``alpha`` of the time in all; ``--max-matches`` spends none of it.
* "No difference" needs both of its wealths high at the same time: a verdict rests on the deals
  seen so far, never on a direction given up earlier.
* The variance starts from a weak prior of :data:`PRIOR_DEALS` deals of variance
  :data:`PRIOR_VARIANCE`: two identical bots give only zeros, and a variance of 0 would stake
  everything at once. Zeros alone give "no difference" after 190 deals at margin 0.1.

``bench/compare.py`` measures the error rates on bots of known strength (docs/bots.md gives the
figures). The effect is printed with a 95% interval, ``mean +- 1.96 s / sqrt(n)``: a fixed-sample
interval read at the stop, which a sequential stop makes slightly optimistic; the bench measures
how often it holds the true effect of two equal bots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

__all__ = ["BETTER", "MAX_STAKE", "NO_DIFFERENCE", "PRIOR_DEALS", "PRIOR_VARIANCE", "Plan", "Sequential", "Tally",
           "Verdict", "WORSE", "Z95"]

MAX_STAKE = 0.5
"""The largest stake, as a share of the wealth one deal could take at worst: a deal never costs more
than half of it, so one unlucky deal cannot undo many good ones."""
PRIOR_VARIANCE = 1.0
"""Variance (places squared) the estimate starts from: about that of a paired place difference at four seats."""
PRIOR_DEALS = 10
"""Weight of that prior, in deals: enough to keep a run of zeros from staking everything, soon outweighed."""
Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile: a two-sided 95% interval."""


class Verdict(Enum):
    """What a comparison concluded."""

    BETTER = "better"
    WORSE = "worse"
    NO_DIFFERENCE = "no difference"


BETTER, WORSE, NO_DIFFERENCE = Verdict.BETTER, Verdict.WORSE, Verdict.NO_DIFFERENCE


@dataclass(frozen=True)
class Plan:
    """The error rates and the margin of a comparison, and the bounds they give the wealths."""

    alpha: float = 0.05
    """Chance of calling an equal bot better or worse (half each way)."""
    beta: float = 0.05
    """Chance of missing a difference of ``margin`` places per match."""
    margin: float = 0.1
    """Indifference margin: the mean place difference per match that matters (places, > 0)."""

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0.0 < value < 0.5):
                raise ValueError(f"{name} must be above 0 and below 0.5, not {value}")
        if not (isinstance(self.margin, (int, float)) and math.isfinite(self.margin) and self.margin > 0):
            raise ValueError(f"margin must be a number of places above 0, not {self.margin}")

    @property
    def upper(self) -> float:
        """A log-wealth of "better" or "worse" at or above this gives that verdict."""
        return math.log(2.0 / self.alpha)

    @property
    def lower(self) -> float:
        """Both log-wealths of "within the margin" at or above this give "no difference"."""
        return math.log(1.0 / self.beta)


class Tally:
    """Running count, sum and sum of squared deviations of a series (Welford: no cancellation)."""

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self._m2 = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self._m2 += delta * (x - self.mean)

    @property
    def variance(self) -> float:
        """The sample variance (0 for fewer than two values)."""
        return self._m2 / (self.n - 1) if self.n > 1 else 0.0

    def test_variance(self) -> float:
        """The variance the stake uses: the sample's, pulled towards :data:`PRIOR_VARIANCE`."""
        return (self._m2 + PRIOR_DEALS * PRIOR_VARIANCE) / (max(self.n - 1, 0) + PRIOR_DEALS)

    def interval(self) -> tuple[float, float]:
        """The 95% interval of the mean (normal approximation); the mean itself below two values."""
        half = Z95 * math.sqrt(self.variance / self.n) if self.n > 1 else 0.0
        return self.mean - half, self.mean + half


class Sequential:
    """The test as deals arrive: :meth:`add` each paired difference, in deal order, until it returns a verdict.

    ``spread`` is the largest difference a deal can give (``seats - 1`` places); ``places``
    decides; ``points`` is kept beside it for the printed effect.
    """

    def __init__(self, plan: Plan, spread: float = 3.0) -> None:
        if not (math.isfinite(spread) and spread > plan.margin):
            raise ValueError(f"a margin of {plan.margin} places needs a spread above it, not {spread}")
        self.plan = plan
        self.spread = float(spread)
        self.places = Tally()
        self.points = Tally()
        self.verdict: Verdict | None = None
        self._log = [0.0, 0.0, 0.0, 0.0]  # better, worse, not better by M, not worse by M

    @property
    def deals(self) -> int:
        return self.places.n

    def stake(self) -> float:
        """The stake of the next deal, from the deals before it (module docstring)."""
        m = self.plan.margin
        return min(m / (self.places.test_variance() + m * m), MAX_STAKE / (self.spread + m))

    def ratios(self) -> tuple[float, float]:
        """The log-wealths of "better" and of "worse"."""
        return self._log[0], self._log[1]

    def within(self) -> tuple[float, float]:
        """The log-wealths of "not better by the margin" and "not worse by the margin"."""
        return self._log[2], self._log[3]

    def add(self, place_diff: float, points_diff: float = 0.0) -> Verdict | None:
        """Count one deal (NEW's place minus OLD's, and the same of points); the verdict once there is one.

        After a verdict, further deals are refused: the error rates hold for the stop, not beyond it.
        """
        if self.verdict is not None:
            raise ValueError(f"the comparison has already ended: {self.verdict.value}")
        if not abs(place_diff) <= self.spread:
            raise ValueError(f"a place difference of {place_diff} is beyond the spread of {self.spread:g} places")
        lam, m = self.stake(), self.plan.margin
        for i, gain in enumerate((-place_diff, place_diff, place_diff + m, m - place_diff)):
            self._log[i] += math.log1p(lam * gain)
        self.places.add(place_diff)
        self.points.add(points_diff)
        self.verdict = self._decide()
        return self.verdict

    def least_deals(self) -> int:
        """The fewest deals any verdict can take: NEW a whole spread ahead in every deal decides soonest."""
        probe = Sequential(self.plan, self.spread)
        while probe.add(-self.spread) is None:
            pass
        return probe.deals

    def _decide(self) -> Verdict | None:
        better, worse, above, below = self._log
        if better >= self.plan.upper:
            return BETTER
        if worse >= self.plan.upper:
            return WORSE
        if above >= self.plan.lower and below >= self.plan.lower:
            return NO_DIFFERENCE
        return None
