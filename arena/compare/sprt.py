"""The sequential test of ``arena compare``: likelihood ratios as bets on paired differences.

Each deal is played twice, once with NEW and once with OLD in the same seat against the same
opponents, and gives one paired difference ``x``: by default of luck-corrected points,
``(total - luck)(NEW) - (total - luck)(OLD)`` (:mod:`arena.luck`: each seat's total less what the
cards gave it over the expected cards, an unbiased estimate of its total without the cards' luck);
with ``--luck off`` of places, ``place(NEW) - place(OLD)``. Negative: NEW did better. The deal's
cards are in both matches, so their luck cancels in ``x`` until the versions' choices make the
matches take other courses; the correction takes out what the cards gave after that. A place
difference lies within ``spread = seats - 1`` of 0; a points difference has no bound a rule set
states, so its test starts from :data:`POINTS_SPREAD` and counts a larger one at the bound
(:func:`points_test`).

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

__all__ = ["BETTER", "MAX_POINTS_MARGIN", "MAX_STAKE", "NO_DIFFERENCE", "PLACES_MARGIN", "POINTS_MARGIN",
           "POINTS_PRIOR_VARIANCE", "POINTS_SPREAD", "PRIOR_DEALS",
           "PRIOR_VARIANCE", "Plan", "Sequential", "Tally", "Verdict", "WORSE", "Z95", "points_test"]

MAX_STAKE = 0.5
"""The largest stake, as a share of the wealth one deal could take at worst: a deal never costs more
than half of it, so one unlucky deal cannot undo many good ones."""
PRIOR_VARIANCE = 1.0
"""Variance (places squared) the estimate starts from: about that of a paired place difference at four seats."""
PRIOR_DEALS = 10
"""Weight of that prior, in deals: enough to keep a run of zeros from staking everything, soon outweighed."""
PLACES_MARGIN = 0.1
"""The plain test's margin by default, in places per match."""
POINTS_MARGIN = 2.5
"""The luck-corrected test's margin by default, in points per match: about what 0.1 places is worth at the bundled
four-seat ``standard`` table (known-p10 gains 0.42 places and 10 points a match on known-p20 there), and with a
paired difference's spread of about 25 points under either preset it takes about as many deals to a verdict as the
place test's 0.1 with its spread of about one place."""
MAX_POINTS_MARGIN = 100.0
"""A margin in points must be below this: more than a match's usual total is no difference that a test can see."""
POINTS_SPREAD = 150.0
"""The luck-corrected points test's bound at the start: a paired difference of match totals is rarely more than
100 points (``bench/luck.py`` prints the largest it played), and the bound grows to the largest difference seen."""
POINTS_PRIOR_VARIANCE = 625.0
"""Variance (points squared) the points test's estimate starts from: about that of a paired difference of
luck-corrected match totals at four seats (a standard deviation of 25 points under either preset)."""
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
    """Chance of missing a difference of ``margin`` per match."""
    margin: float = 0.1
    """Indifference margin: the mean difference per match that matters (> 0), in the test's unit (places, or
    luck-corrected points)."""

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

    def test_variance(self, prior: float = PRIOR_VARIANCE) -> float:
        """The variance the stake uses: the sample's, pulled towards ``prior``."""
        return (self._m2 + PRIOR_DEALS * prior) / (max(self.n - 1, 0) + PRIOR_DEALS)

    def interval(self) -> tuple[float, float]:
        """The 95% interval of the mean (normal approximation); the mean itself below two values."""
        half = Z95 * math.sqrt(self.variance / self.n) if self.n > 1 else 0.0
        return self.mean - half, self.mean + half


class Sequential:
    """The test as deals arrive: :meth:`add` each paired difference, in deal order, until it returns a verdict.

    ``spread`` bounds a deal's difference (``seats - 1`` places). A difference beyond it is refused, unless
    ``clip``: then it counts at the bound, which grows to it for the deals after (the bound stays set before each
    deal, as the guarantee needs; :func:`points_test`). ``prior_variance`` is what the variance starts from.
    """

    def __init__(self, plan: Plan, spread: float = 3.0, *, prior_variance: float = PRIOR_VARIANCE,
                 clip: bool = False, unit: str = "places") -> None:
        if not (math.isfinite(spread) and spread > plan.margin):
            raise ValueError(f"a margin of {plan.margin} {unit} needs a spread above it, not {spread}")
        self.plan = plan
        self.spread = float(spread)
        self.prior_variance = float(prior_variance)
        self.clip = clip
        self.unit = unit
        self.diffs = Tally()
        """The differences tested, as given (before any clipping)."""
        self.clipped = 0
        """Deals whose difference counted at the bound."""
        self.verdict: Verdict | None = None
        self._log = [0.0, 0.0, 0.0, 0.0]  # better, worse, not better by M, not worse by M

    @property
    def deals(self) -> int:
        return self.diffs.n

    def stake(self) -> float:
        """The stake of the next deal, from the deals before it (module docstring)."""
        m = self.plan.margin
        return min(m / (self.diffs.test_variance(self.prior_variance) + m * m), MAX_STAKE / (self.spread + m))

    def ratios(self) -> tuple[float, float]:
        """The log-wealths of "better" and of "worse"."""
        return self._log[0], self._log[1]

    def within(self) -> tuple[float, float]:
        """The log-wealths of "not better by the margin" and "not worse by the margin"."""
        return self._log[2], self._log[3]

    def add(self, diff: float) -> Verdict | None:
        """Count one deal (NEW's result minus OLD's, in the test's unit); the verdict once there is one.

        After a verdict, further deals are refused: the error rates hold for the stop, not beyond it.
        """
        if self.verdict is not None:
            raise ValueError(f"the comparison has already ended: {self.verdict.value}")
        if not math.isfinite(diff) or (abs(diff) > self.spread and not self.clip):
            raise ValueError(f"a difference of {diff} {self.unit} is beyond the spread of {self.spread:g} {self.unit}")
        lam, m = self.stake(), self.plan.margin
        x = max(-self.spread, min(self.spread, diff))
        for i, gain in enumerate((-x, x, x + m, m - x)):
            self._log[i] += math.log1p(lam * gain)
        if x != diff:
            self.clipped += 1
            self.spread = abs(diff)
        self.diffs.add(diff)
        self.verdict = self._decide()
        return self.verdict

    def least_deals(self) -> int:
        """The fewest deals any verdict can take: NEW a whole spread ahead in every deal decides soonest."""
        probe = Sequential(self.plan, self.spread, prior_variance=self.prior_variance, clip=self.clip, unit=self.unit)
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


def points_test(plan: Plan) -> Sequential:
    """The test of luck-corrected points: a paired difference of match totals less each seat's luck, which has no
    bound a rule set states (a round can score more than the last), so the bound is :data:`POINTS_SPREAD` and grows
    to the largest difference seen. A difference beyond it counts at it: between two versions that play alike
    the difference is symmetric about zero, so a clipped one still has mean zero and ``alpha`` still holds; the
    verdict line says when any was."""
    return Sequential(plan, POINTS_SPREAD, prior_variance=POINTS_PRIOR_VARIANCE, clip=True,
                      unit="luck-corrected points")
