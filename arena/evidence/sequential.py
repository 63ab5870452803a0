"""Wald's likelihood ratio on paired differences, with the variance estimated as the deals come.

Every question the arena asks of its results is about the mean ``d`` of a paired difference: how
much better one bot did than another at the same deal (a board's neighbours), or a new version than
an old one (``arena compare``). Each is asked as a choice between two means, ``d = low`` or
``d = high``, and answered by the log-likelihood ratio of the deals so far, as if they were normal::

    llr = n (high - low) / var * (mean - (low + high) / 2)

the statistic of Wald's sequential probability ratio test (SPRT) and of fishtest's, which chess
engine authors read every day. Why this and not a confidence sequence of every mean at once (a
mixture over the alternatives, which the arena used before): the questions here all have a point
that matters (the margin), and a ratio aimed at it grows at the fastest rate any test can, ``(high
- low)^2 / (2 var)`` a deal when the truth is at ``high``; the mixture pays a ``log n`` more for
being ready for every alternative, and on the known-strength family needed more deals at every
level (``bench/settle_design.py``).

**Why its errors hold at any stop.** For normal deals of known variance, ``exp(llr)`` is a
martingale when ``d = low`` and a supermartingale for every ``d < low``: by Ville's inequality it
ever reaches ``1 / a`` with chance at most ``a``, however long and often it is watched. With the
variance estimated, the guarantee holds as the deals' mean becomes normal (the asymptotic view of
Waudby-Smith et al., "Time-uniform central limit theory and asymptotic confidence sequences", Ann.
Statist. 2024): the error rates are therefore *measured* where users run the arena
(``bench/fairness.py``, ``bench/settle_design.py``, ``bench/compare.py``), at its table sizes, on
identical and near-equal bots.

**The variance** is the deals' own, pulled towards a prior of :data:`PRIOR_DEALS` deals
(:func:`regularised_variance`): identical versions, whose differences are all zero, then have a
variance shrinking like ``1 / n`` and reach a verdict in a few deals (variance-adaptive), while a
handful of early equal deals cannot make a noisy pair look certain. No claim is made before a floor
of deals the caller sets.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import Enum

PRIOR_DEALS = 2.0
"""Weight, in deals, of the variance a test starts from: enough that two equal first deals cannot give a
variance of zero, small enough that identical versions (every difference 0) end in a few deals."""
Z95 = 1.959963984540054
"""The standard normal's 97.5% quantile: a two-sided 95% interval."""


def regularised_variance(n: int, m2: float, prior: float, prior_deals: float = PRIOR_DEALS) -> float:
    """The variance a test uses after ``n`` deals whose squared deviations from their mean sum to ``m2``:
    the sample's, with ``prior_deals`` deals of variance ``prior`` added (never zero)."""
    return (max(m2, 0.0) + prior_deals * prior) / (max(n - 1, 0) + prior_deals)


def llr(n: int, mean: float, variance: float, low: float, high: float) -> float:
    """The log-likelihood ratio of "the mean is ``high``" over "it is ``low``" for ``n`` deals of this mean,
    read as normal with this variance: positive when the deals favour ``high``."""
    if n <= 0:
        return 0.0
    return n * (high - low) / variance * (mean - (low + high) / 2.0)


class Running:
    """Count, mean and sum of squared deviations of a series, one value at a time (Welford: no cancellation)."""

    def __init__(self) -> None:
        self.n = 0
        self.mean = 0.0
        self.m2 = 0.0

    def add(self, x: float) -> None:
        self.n += 1
        delta = x - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (x - self.mean)

    @property
    def variance(self) -> float:
        """The sample variance (0 below two values)."""
        return self.m2 / (self.n - 1) if self.n > 1 else 0.0

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """The mean's two-sided interval at ``z`` (95% by default, normal approximation); the mean itself below
        two values."""
        half = z * math.sqrt(self.variance / self.n) if self.n > 1 else 0.0
        return self.mean - half, self.mean + half


class Answer(Enum):
    """What an SPRT concluded."""

    H1 = "H1"
    """The mean is at least the margin: the better hypothesis accepted."""
    H0 = "H0"
    """The mean is not the margin or more: accepted as the deals make a mean of 0 likelier than the margin."""


@dataclass(frozen=True)
class SprtPlan:
    """The question of an SPRT: H0 "the mean gain is 0" against H1 "it is ``margin``", with its error rates.

    ``alpha``: the chance of accepting H1 when the gain is 0 or less; ``beta``: of accepting H0 when it is
    ``margin`` or more. Wald's bounds: accept H1 at ``log((1 - beta) / alpha)``, H0 at ``log(beta / (1 -
    alpha))``."""

    alpha: float = 0.05
    beta: float = 0.05
    margin: float = 1.0
    min_deals: int = 10
    """Deals before any verdict: the normal reading needs a few."""

    def __post_init__(self) -> None:
        for name in ("alpha", "beta"):
            value = getattr(self, name)
            if not (isinstance(value, (int, float)) and 0.0 < value < 0.5):
                raise ValueError(f"{name} must be above 0 and below 0.5, not {value}")
        if not (isinstance(self.margin, (int, float)) and math.isfinite(self.margin) and self.margin > 0):
            raise ValueError(f"the margin must be a number above 0, not {self.margin}")
        if not (isinstance(self.min_deals, int) and self.min_deals >= 1):
            raise ValueError(f"min_deals must be a whole number of at least 1, not {self.min_deals}")

    @property
    def upper(self) -> float:
        """The log-likelihood ratio at which H1 is accepted."""
        return math.log((1.0 - self.beta) / self.alpha)

    @property
    def lower(self) -> float:
        """The log-likelihood ratio at which H0 is accepted (negative)."""
        return math.log(self.beta / (1.0 - self.alpha))


class Sprt:
    """Wald's SPRT of a paired gain (positive: better), as fishtest runs it: :meth:`add` each deal's gain in deal
    order until :attr:`answer` is set; the ratio is recomputed from all deals with the variance as estimated now
    (:func:`regularised_variance`, from ``prior_variance``), so it reads the same whatever order it is asked in."""

    def __init__(self, plan: SprtPlan, prior_variance: float) -> None:
        if not (math.isfinite(prior_variance) and prior_variance > 0):
            raise ValueError(f"the prior variance must be above 0, not {prior_variance}")
        self.plan = plan
        self.prior_variance = float(prior_variance)
        self.gains = Running()
        self.answer: Answer | None = None

    @property
    def deals(self) -> int:
        return self.gains.n

    @property
    def variance(self) -> float:
        """The variance the ratio reads the deals with."""
        return regularised_variance(self.gains.n, self.gains.m2, self.prior_variance)

    @property
    def llr(self) -> float:
        """The log-likelihood ratio of H1 over H0 now."""
        return llr(self.gains.n, self.gains.mean, self.variance, 0.0, self.plan.margin)

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """The mean gain's interval at ``z`` (95% by default) read with :attr:`variance`, the ratio's own, rather than
        the sample's: then an answer and its interval agree whenever ``z^2 < 2 min(upper, -lower)`` (3.84 < 5.89 at
        alpha = beta = 0.05). After H1 the mean is at least ``margin / 2 + upper var / (n margin)``, so with ``s^2 =
        var / n`` the lower end is at least ``margin / 2 - z s + upper s^2 / margin``, whose least value over ``s``
        is ``margin (1/2 - z^2 / (4 upper)) > 0``; after H0 the upper end is likewise at most ``margin (1/2 + z^2 /
        (4 (-lower))) < margin``. The mean itself before any deal."""
        if self.gains.n == 0:
            return 0.0, 0.0
        half = z * math.sqrt(self.variance / self.gains.n)
        return self.gains.mean - half, self.gains.mean + half

    def add(self, gain: float) -> Answer | None:
        """Count one deal's gain; the answer once there is one. After it, further deals are refused: the error rates
        hold for the stop, not beyond it."""
        if self.answer is not None:
            raise ValueError(f"the test has already ended: {self.answer.value}")
        if not math.isfinite(gain):
            raise ValueError(f"a gain of {gain} is not a number a test can count")
        self.gains.add(gain)
        if self.gains.n >= self.plan.min_deals:
            value = self.llr
            if value >= self.plan.upper:
                self.answer = Answer.H1
            elif value <= self.plan.lower:
                self.answer = Answer.H0
        return self.answer
