"""The sequential test of ``arena compare``: two one-sided SPRTs on paired place differences.

Each deal is played twice, once with NEW and once with OLD in the same seat against the same
opponents, and gives one paired difference ``x = place(NEW) - place(OLD)`` (negative: NEW
placed better). The deal's luck is in both matches, so it cancels in ``x``; what is left is
the difference the versions make, and noise from the game taking another course once they
choose differently.

The test is Wald's SPRT in its normal approximation (as chess testers run it on Elo, fastchess's
and cutechess's GSPRT), twice, with an indifference margin ``M``:

* "better": H0 ``mu = 0`` against H1 ``mu = -M``;
* "worse":  H0 ``mu = 0`` against H1 ``mu = +M``.

After every deal each log-likelihood ratio is ``n (mu1 - mu0) (mean - (mu0 + mu1) / 2) / var``.
A ratio at or above ``ln(2 / alpha)`` gives its verdict at once; both at or below
``ln(beta / (1 - alpha / 2))`` at the same time give "no difference at margin M".

Why these choices:

* A SPRT stops as early as any test with the same error rates can on average (Wald and
  Wolfowitz), and authors know it from chess engine testing. An anytime-valid confidence
  sequence would also allow any stopping, but usually needs more deals for the same power.
* Two one-sided tests, not one two-sided one: a verdict has three values, and each direction
  gets half of ``alpha``, so a bot compared with an equal one is called better or worse at most
  ``alpha`` of the time in all (in the normal model; on played deals the bench measured somewhat
  more, 0.065 at alpha 0.05 and margin 0.3).
* The upper bound is ``ln(2 / alpha)``, not Wald's ``ln((1 - beta) / (alpha / 2))``: with it
  the chance that a ratio ever reaches its bound under H0 is at most ``alpha / 2`` however long
  the test runs (Ville's inequality for the likelihood ratio of normal values of known
  variance), so neither the other test nor ``--max-matches`` can spend more than the error
  rate. The two bounds differ by 0.05.
* "No difference" needs both ratios low at the same time (no test is frozen once it accepts H0):
  a verdict always rests on the deals seen so far, never on a direction given up earlier.
* The variance is estimated, with a weak prior of :data:`PRIOR_DEALS` deals of variance
  :data:`PRIOR_VARIANCE`: two identical bots give only zeros, and a variance of 0 would call
  "no difference" after the first deals although versions that differ on one deal in twenty
  would look the same. With the prior, zeros alone give "no difference" after 73 deals
  at margin 0.1. No verdict comes before :data:`MIN_DEALS` deals, where the normal
  approximation of a mean of places is still poor.

The normal approximation and the estimated variance make ``alpha`` and ``beta`` approximate;
``bench/compare.py`` measures them on bots of known strength (docs/bots.md gives the figures).

The effect is printed with a 95% interval, ``mean +- 1.96 s / sqrt(n)``: a fixed-sample interval
read at the stop, which a sequential stop makes slightly optimistic; the bench measures how often
it holds the true effect of two equal bots.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

__all__ = ["BETTER", "MIN_DEALS", "NO_DIFFERENCE", "PRIOR_DEALS", "PRIOR_VARIANCE", "Plan", "Sequential", "Tally",
           "Verdict", "WORSE", "Z95"]

MIN_DEALS = 20
"""No verdict before this many deals: a mean of a few places is far from normal."""
PRIOR_VARIANCE = 1.0
"""Variance (places squared) the estimate starts from: about that of a paired place difference at four seats."""
PRIOR_DEALS = 10
"""Weight of that prior, in deals: enough to keep a run of zeros from deciding early, soon outweighed."""
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
    """The error rates and the margin of a comparison, and the bounds they give the ratios."""

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
        """A ratio at or above this gives its direction's verdict."""
        return math.log(2.0 / self.alpha)

    @property
    def lower(self) -> float:
        """Both ratios at or below this give "no difference"."""
        return math.log(self.beta / (1.0 - self.alpha / 2.0))


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
        """The variance the ratios use: the sample's, pulled towards :data:`PRIOR_VARIANCE`."""
        return (self._m2 + PRIOR_DEALS * PRIOR_VARIANCE) / (max(self.n - 1, 0) + PRIOR_DEALS)

    def interval(self) -> tuple[float, float]:
        """The 95% interval of the mean (normal approximation); the mean itself below two values."""
        half = Z95 * math.sqrt(self.variance / self.n) if self.n > 1 else 0.0
        return self.mean - half, self.mean + half


def llr(tally: Tally, mu0: float, mu1: float) -> float:
    """Log-likelihood ratio of mean ``mu1`` against ``mu0`` for normal values of the tally's variance."""
    if tally.n == 0:
        return 0.0
    return tally.n * (mu1 - mu0) * (tally.mean - (mu0 + mu1) / 2.0) / tally.test_variance()


class Sequential:
    """The test as deals arrive: :meth:`add` each paired difference, in deal order, until it returns a verdict.

    ``places`` decides; ``points`` is kept beside it for the printed effect.
    """

    def __init__(self, plan: Plan) -> None:
        self.plan = plan
        self.places = Tally()
        self.points = Tally()
        self.verdict: Verdict | None = None

    @property
    def deals(self) -> int:
        return self.places.n

    def ratios(self) -> tuple[float, float]:
        """The log-likelihood ratios of "better" and of "worse" against "equal"."""
        m = self.plan.margin
        return llr(self.places, 0.0, -m), llr(self.places, 0.0, m)

    def add(self, place_diff: float, points_diff: float = 0.0) -> Verdict | None:
        """Count one deal (NEW's place minus OLD's, and the same of points); the verdict once there is one.

        After a verdict, further deals are refused: the error rates hold for the stop, not beyond it.
        """
        if self.verdict is not None:
            raise ValueError(f"the comparison has already ended: {self.verdict.value}")
        self.places.add(place_diff)
        self.points.add(points_diff)
        self.verdict = self._decide()
        return self.verdict

    def _decide(self) -> Verdict | None:
        if self.deals < MIN_DEALS:
            return None
        better, worse = self.ratios()
        if better >= self.plan.upper:
            return BETTER
        if worse >= self.plan.upper:
            return WORSE
        if better <= self.plan.lower and worse <= self.plan.lower:
            return NO_DIFFERENCE
        return None
