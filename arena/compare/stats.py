"""The question ``arena compare`` asks of its paired deals, and the numbers it asks it with.

Each deal is played twice, once with NEW and once with OLD in the same seat against the same
opponents, and gives one paired **gain**: OLD's result minus NEW's, so that a positive gain means
NEW did better (lower points and places are better in Cabo). By default the gain is in
luck-corrected points, ``(total - luck)(OLD) - (total - luck)(NEW)`` (:mod:`arena.luck`: each
seat's match total less what the cards gave it over the expected cards); with ``--luck off`` in
places, ``place(OLD) - place(NEW)``.

**The question is fishtest's**: SPRT(0, margin), H1 "NEW is better by at least the margin" against
H0 "NEW is not better" (a gain of 0), Wald's sequential probability ratio test on the gains, read
as normal with the variance estimated as the deals come (:class:`arena.evidence.sequential.Sprt`:
the log-likelihood ratio ``n margin / var (mean - margin / 2)``, accepted H1 at ``log((1 - beta) /
alpha)``, H0 at ``log(beta / (1 - alpha))``). Two answers: ``better`` (H1) and ``not better`` (H0);
``--max-matches`` may come first (undecided).

**Why no "worse".** A mirrored SPRT(0, -margin) for "worse", on the same deals with the same
variance, has the ratio ``-llr - n margin^2 / var``: while this test is still open (``llr`` above
its lower bound ``L``) the mirror is below ``-L``, which is its own upper bound when alpha = beta.
So it cannot say "worse" before this test says "not better" (only at that same deal, by that
deal's overshoot, or at the first look): a third answer would mean playing on after the question
asked has its answer, matches that buy nothing a user of "is NEW better?" acts on.

**The numbers** (:data:`POINTS_MARGIN`, :data:`PLACES_MARGIN`, :data:`MIN_DEALS`, the priors) were
chosen on paired deals played with the bots of known strength and on thousands of tests resampled
from them (``bench/compare.py``; docs/bots.md gives the figures). Both margins are a fifth of a
deal's spread as the test starts from it (5 of 25 points, 0.15 of 0.75 places), so two identical
versions, every gain 0, are called not better after the same 17 deals in either unit.

**Its error rates are measured, not proven.** Wald's bounds are approximations for a known
variance; with the variance estimated, equal versions (the H0 boundary, the hardest case) are
called better about alpha of the time rather than below it: 0.055 (se 0.007) of 1,000 played
comparisons, 0.051 (se 0.002) of 20,000 resampled ones at alpha 0.05.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..evidence.sequential import Answer, Sprt, SprtPlan

__all__ = ["CORRECTED", "Currency", "FORFEIT_POINTS", "MAX_POINTS_MARGIN", "MIN_DEALS", "PLACES", "PLACES_MARGIN",
           "POINTS", "POINTS_MARGIN", "VERDICTS", "currency_of", "new_test", "number"]

POINTS_MARGIN = 5.0
"""The luck-corrected test's margin by default, in points a match: the smallest gain that matters. Chosen on the
known-strength bots (``bench/compare.py``, standard rules, four seats): a paired gain of luck-corrected totals spreads
by 24 to 30 points between equal versions and 23 between known-p10 and known-p20, which differ by 6.1 points a match.
Resampled from those played deals (4,000 tests a choice), at 5 points equal versions end in a median of 262 matches
(at 4 points 413, at 3 points 726), known-p10 is called better than known-p20 98% of the time after 161 matches on
average, and two identical versions are called not better after 17 deals (at 4 points 21, more than the 20 aimed at).
Played: a median of 247 matches for equal versions, 84 for known-p10 against known-p20 (the betting test this one
replaced needed 324 on the same deals)."""
PLACES_MARGIN = 0.15
"""The place test's margin by default (``--luck off``), in places a match, chosen like :data:`POINTS_MARGIN`: a paired
place gain spreads by 0.78 to 1.03 places between equal versions, and known-p10 is 0.18 places ahead of known-p20. At
0.15 places equal versions end in a median of 338 matches and known-p10 is called better 98% of the time; at 0.2 places
188 matches, but known-p10 only 89% of the time (its gain is below that margin)."""
MAX_POINTS_MARGIN = 100.0
"""A margin in points must be below this: more than a match's usual total is no difference that a test can see."""
MIN_DEALS = 16
"""Deals before any verdict: one round of the seat under test and the field at the default table (4 seats times 4
bundled opponents), so that no answer rests on one seat or one opponent. Resampled, floors of 10, 16 and 20 deals call
equal versions better equally often within the measurement's error (0.054, 0.054, 0.053 at 5 points, se 0.004); 16
costs identical versions nothing (they need 17 deals), 20 would cost them 3."""
POINTS_PRIOR_VARIANCE = 625.0
"""Variance (points squared) the points test starts from, for :data:`arena.evidence.sequential.PRIOR_DEALS` deals: a
standard deviation of 25 points, about that of a paired luck-corrected gain (measured 23 to 30)."""
PLACES_PRIOR_VARIANCE = 0.5625
"""Variance (places squared) the place test starts from: a standard deviation of 0.75 places, at the low end of a
paired place gain's (measured 0.78 to 1.03), so that identical versions end after 17 deals at 0.15 places as they do
on points at 5; the early deals of equal versions are guarded by :data:`MIN_DEALS`."""
FORFEIT_POINTS = 100.0
"""What a deal where one side forfeited counts on points, against that side, unless a larger gain has been played in
the comparison (then that one): a forfeited seat is played out by the fallback policy, whose total is not the bot's,
so the deal counts as a whole match lost, 100 points being where a Cabo match ends. It is four of a paired gain's
standard deviations, beyond all but 8 of 5,000 played gains, so a version that crashes can never gain by it;
the test has no bound on a gain, so no larger value is needed to keep it valid."""

VERDICTS = {Answer.H1: "better", Answer.H0: "not better"}
"""The verdict's word for each answer."""


def number(x: float, digits: int) -> str:
    """``x`` to ``digits`` decimals, never ``-0.0``."""
    return f"{round(x, digits) + 0.0:.{digits}f}"


@dataclass(frozen=True)
class Currency:
    """What a test counts and the words its lines say it in: signs in words, never in ``+`` and ``-``."""

    name: str
    """What is tested, in full: ``luck-corrected points``."""
    short: str
    """The same in a progress line."""
    unit: str
    """The margin's unit: ``points``."""
    verb: str
    """NEW ``scores`` ..."""
    better: str
    """The word for a positive gain: ``fewer`` (points), ``ahead`` (places)."""
    worse: str
    """The word for a negative gain."""
    digits: int
    prior_variance: float
    default_margin: float

    def amount(self, mean: float, low: float, high: float, verb: bool = True, name: str | None = None) -> str:
        """``scores 3.1 fewer luck-corrected points a match [0.4, 5.8]``: the gain and its interval in the words of
        its sign (a loss as ``more``, its interval turned over), so that no minus sign can be read backwards."""
        shown = round(mean, self.digits)
        word, mean, low, high = ((self.better, mean, low, high) if shown >= 0 else
                                 (self.worse, -mean, -high, -low))
        d = self.digits
        what = name or self.name
        words = f"{word} {what}" if self.better == "fewer" else f"{what} {word}"
        return (f"{self.verb + ' ' if verb else ''}{number(abs(mean), d)} {words} a match "
                f"[{number(low, d)}, {number(high, d)}]")


CORRECTED = Currency("luck-corrected points", "corrected points", "points", "scores", "fewer", "more", 1,
                     POINTS_PRIOR_VARIANCE, POINTS_MARGIN)
"""The default test's: luck-corrected points."""
POINTS = Currency("points", "points", "points", "scores", "fewer", "more", 1, POINTS_PRIOR_VARIANCE, POINTS_MARGIN)
"""Plain points, reported beside the tested currency."""
PLACES = Currency("places", "places", "places", "finishes", "ahead", "behind", 2, PLACES_PRIOR_VARIANCE,
                  PLACES_MARGIN)
"""The place test's (``--luck off``)."""


def currency_of(luck: bool) -> Currency:
    """The tested currency: luck-corrected points, or places."""
    return CORRECTED if luck else PLACES


def new_test(luck: bool, margin: float | None = None, alpha: float = 0.05, beta: float = 0.05) -> Sprt:
    """The SPRT a comparison runs: of luck-corrected points (``luck``) or of places, at ``margin`` (the currency's
    default when None), from :data:`MIN_DEALS` deals on."""
    currency = currency_of(luck)
    plan = SprtPlan(alpha, beta, currency.default_margin if margin is None else margin, MIN_DEALS)
    return Sprt(plan, currency.prior_variance)
