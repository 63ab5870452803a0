"""What a comparison counts from each deal, and the lines it prints."""

import math

import pytest

from arena.compare.play import Pair
from arena.compare.run import WIDTH, Comparison, _count, beside_line, forfeit_points, progress_line, verdict_line
from arena.compare.stats import FORFEIT_POINTS, MIN_DEALS, new_test
from arena.evidence.sequential import Answer, Sprt, SprtPlan
from arena.match.runner import MatchOutcome

SEAT = 1


def outcome(total, place, luck, forfeited=False):
    totals, places = (50, total, 60, 70), (2, place, 3, 4)
    return MatchOutcome("m", 1, ("a", "b", "c", "d"), totals, places, (False, forfeited, False, False), (), "cabo",
                        (), 0, 0.0, 0.0, (), "none", b"", luck=(1.0, luck, -2.0, 0.5))


def pair(new, old):
    return Pair(0, SEAT, new, old)


def comparison(luck=True, **plan):
    test = new_test(luck) if not plan else Sprt(SprtPlan(**plan), 625.0 if luck else 1.0)
    return Comparison(test, luck)


def test_the_default_test_counts_each_total_less_its_luck_as_old_minus_new():
    done = comparison()
    _count(done, pair(outcome(30, 1, luck=+8.0), outcome(45, 3, luck=-4.0)))
    assert done.test.gains.mean == pytest.approx((45 + 4.0) - (30 - 8.0))  # positive: NEW did better
    assert (done.places.mean, done.points.mean) == (2, 15)  # reported beside it


def test_with_luck_off_the_test_counts_places():
    done = comparison(luck=False)
    _count(done, pair(outcome(30, 1, luck=+8.0), outcome(45, 3, luck=-4.0)))
    assert done.test.gains.mean == 2 and done.currency.name == "places"


@pytest.mark.parametrize("forfeits, counted", [((True, False), -FORFEIT_POINTS), ((False, True), FORFEIT_POINTS),
                                               ((True, True), 0.0)])
def test_a_forfeited_side_counts_as_a_whole_match_lost(forfeits, counted):
    """The fallback policy plays a forfeited seat out, so its low total is not its bot's: a version that crashes
    must never gain by it."""
    done = comparison()
    _count(done, pair(outcome(5, 4, luck=0.0, forfeited=forfeits[0]),
                      outcome(60, 4 if forfeits[1] else 2, luck=0.0, forfeited=forfeits[1])))
    assert done.test.gains.mean == counted
    assert done.forfeits == list(forfeits)


def test_a_forfeit_never_counts_less_than_the_largest_gain_played():
    done = comparison()
    _count(done, pair(outcome(10, 1, luck=0.0), outcome(140, 4, luck=-2.0)))  # a gain of 132 points
    assert forfeit_points(done) == 132.0
    _count(done, pair(outcome(5, 4, luck=0.0, forfeited=True), outcome(60, 2, luck=0.0)))
    assert done.test.gains.mean == pytest.approx((132 - 132) / 2)


def _decide(done, new, old):
    while done.verdict is None:
        _count(done, pair(new, old))


def test_the_verdict_line_says_the_verdict_the_gain_in_words_the_ratio_and_the_matches():
    done = comparison()
    _decide(done, outcome(20, 1, luck=0.0), outcome(40, 2, luck=0.0))
    line = verdict_line(done)
    assert done.verdict is Answer.H1 and done.test.deals == MIN_DEALS
    assert line.startswith("better: NEW scores 20.0 fewer luck-corrected points a match [")
    assert line.endswith(f"] (95%); LLR {done.test.llr:+.2f} of [-2.94, +2.94], margin 5 points, alpha 0.05, "
                         f"beta 0.05; 32 matches (16 deals)")
    assert beside_line(done) == ("plain: NEW 20.0 fewer points a match [20.0, 20.0], 1.00 places ahead a match "
                                 "[1.00, 1.00] (95%, not tested)")
    worse = comparison(luck=False)
    _decide(worse, outcome(40, 2, luck=0.0), outcome(20, 1, luck=0.0))
    assert verdict_line(worse).startswith("not better: NEW finishes 1.00 places behind a match [")
    assert "margin 0.15 places" in verdict_line(worse)
    assert beside_line(worse).startswith("untested: NEW 20.0 more points a match [20.0, 20.0], 20.0 more "
                                         "luck-corrected points a match")


def test_an_undecided_comparison_says_so_and_an_empty_one_too():
    done = comparison()
    for _ in range(3):
        _count(done, pair(outcome(30, 2, luck=0.0), outcome(31, 2, luck=0.0)))
    assert verdict_line(done).startswith("undecided: NEW scores 1.0 fewer luck-corrected points a match [")
    assert verdict_line(comparison()) == "undecided: no deal counted; 0 matches played"


def test_a_loose_error_rate_that_lets_the_interval_disagree_is_said():
    """At alpha = beta = 0.3 the bounds are +-0.85, below z^2 / 2: a stop can leave the interval across 0."""
    done = comparison(alpha=0.3, beta=0.3, margin=5.0, min_deals=4)
    _decide(done, outcome(50, 2, luck=0.0), outcome(64, 2, luck=0.0))  # 14 points each deal, 4 deals
    assert done.verdict is Answer.H1
    low, _ = done.test.interval()
    assert low <= 0
    assert verdict_line(done).endswith("; the interval is read once, at the stop, and at error rates this loose the "
                                       "test can stop where it disagrees")


@pytest.mark.parametrize("luck", [True, False])
@pytest.mark.parametrize("gains, alpha", [([0.0] * 3, 0.05), ([3.0, -2.0] * 8, 0.05), ([-99.5, 101.2, -250.0], 0.05),
                                          ([1e6, -1e6, 3e5], 1e-300), ([0.004, -0.001] * 4, 1e-12)])
def test_progress_lines_are_at_most_100_characters(luck, gains, alpha):
    done = comparison(luck=luck, alpha=alpha, beta=alpha, margin=0.2 if not luck else 5.0, min_deals=10_000)
    for gain in gains:
        done.test.add(gain)
    line = progress_line(done)
    assert len(line) <= WIDTH, line
    assert "deals: " in line and "LLR" in line
    done.test.gains.n = 500_000_000  # a billion matches, the most --max-matches allows
    assert len(progress_line(done)) <= WIDTH


def test_a_progress_line_reads_like_a_fishtest_line():
    done = comparison()
    for gain in (3.0, 5.0, -1.0, 6.0, 2.0, 4.0, 1.0, 5.0):
        done.test.add(gain)
    low, high = done.test.interval()
    assert progress_line(done) == (f"   8 deals: NEW 3.1 fewer corrected points a match [{low:.1f}, {high:.1f}]; "
                                   f"LLR {done.test.llr:+.2f} of [-2.94, +2.94]")
    assert math.isclose(done.test.gains.mean, 3.125)
