"""What a comparison counts from each deal: luck-corrected points by default, places with --luck off."""

import pytest

from arena.compare.play import Pair
from arena.compare.run import Comparison, _count, new_test, verdict_line
from arena.compare.sprt import POINTS_SPREAD, Plan
from arena.match.runner import MatchOutcome

SEAT = 1


def outcome(total, place, luck, forfeited=False):
    totals, places = (50, total, 60, 70), (2, place, 3, 4)
    return MatchOutcome("m", 1, ("a", "b", "c", "d"), totals, places, (False, forfeited, False, False), (), "cabo",
                        (), 0, 0.0, 0.0, (), "none", b"", luck=(1.0, luck, -2.0, 0.5))


def pair(new, old):
    return Pair(0, SEAT, new, old)


def comparison(luck=True):
    return Comparison(new_test(Plan(margin=2.5 if luck else 0.1), 4, luck), luck)


def test_the_default_test_counts_each_total_less_its_luck():
    done = comparison()
    _count(done, pair(outcome(30, 1, luck=+8.0), outcome(45, 3, luck=-4.0)))
    assert done.test.diffs.mean == pytest.approx((30 - 8.0) - (45 + 4.0))
    assert (done.places.mean, done.points.mean) == (-2, -15)  # reported beside it


def test_with_luck_off_the_test_counts_places():
    done = comparison(luck=False)
    _count(done, pair(outcome(30, 1, luck=+8.0), outcome(45, 3, luck=-4.0)))
    assert done.test.diffs.mean == -2 and done.test.unit == "places"


@pytest.mark.parametrize("forfeits, counted", [((True, False), POINTS_SPREAD), ((False, True), -POINTS_SPREAD),
                                               ((True, True), 0.0)])
def test_a_forfeited_side_counts_as_the_worst_the_points_test_allows(forfeits, counted):
    """The fallback policy plays a forfeited seat out, so its low total is not its bot's: a version that crashes
    must never gain by it."""
    done = comparison()
    _count(done, pair(outcome(5, 4, luck=0.0, forfeited=forfeits[0]), outcome(60, 4 if forfeits[1] else 2, luck=0.0,
                                                                               forfeited=forfeits[1])))
    assert done.test.diffs.mean == counted
    assert done.forfeits == list(forfeits)


def test_the_verdict_line_says_what_was_tested():
    done = comparison()
    while done.verdict is None:
        _count(done, pair(outcome(20, 1, luck=0.0), outcome(40, 2, luck=0.0)))
    line = verdict_line(done)
    assert line.startswith("better on luck-corrected points: NEW gains +20.0 [+20.0, +20.0] luck-corrected points "
                           "per match (plain points +20.0 [+20.0, +20.0], places +1.000 [+1.000, +1.000]; ")
    plain = comparison(luck=False)
    while plain.verdict is None:
        _count(plain, pair(outcome(40, 2, luck=0.0), outcome(20, 1, luck=0.0)))
    assert verdict_line(plain).startswith("worse on places: NEW gains -1.000 [-1.000, -1.000] places and -20.0 ")
