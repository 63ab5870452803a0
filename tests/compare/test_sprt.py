"""The sequential test of arena compare: what it concludes from given sequences of paired differences."""

import math
import random

import pytest

from arena.compare.sprt import BETTER, MIN_DEALS, NO_DIFFERENCE, WORSE, Plan, Sequential, Tally


def run(diffs, plan=None):
    """Feed ``diffs`` until a verdict; the verdict and the deals it took (None and all deals if there was none)."""
    test = Sequential(plan or Plan())
    for x in diffs:
        if test.add(x) is not None:
            break
    return test.verdict, test.deals


def test_identical_plays_end_in_no_difference_never_better_or_worse():
    test = Sequential(Plan(margin=0.1))
    verdicts = [test.add(0) for _ in range(MIN_DEALS - 1)]
    assert verdicts == [None] * (MIN_DEALS - 1)  # nothing is decided on a handful of deals
    verdict, deals = run([0] * 10_000)
    assert verdict is NO_DIFFERENCE
    assert MIN_DEALS < deals < 100  # zeros alone are not taken as proof at once, but soon


def test_a_clearly_better_new_version_is_better_and_a_clearly_worse_one_worse():
    rng = random.Random(5)
    better = [rng.choice([-2, -1, -1, 0, 0, 1]) for _ in range(2000)]  # mean -0.5 places per match
    verdict, deals = run(better)
    assert verdict is BETTER and deals < 200
    assert run([-x for x in better]) == (WORSE, deals)  # the mirror image: the same deals, the other way


def test_a_difference_inside_the_margin_is_no_difference_at_a_wide_margin():
    rng = random.Random(8)
    small = [rng.choice([-1, 0, 0, 1]) - 0.02 for _ in range(20_000)]  # mean -0.02
    assert run(small, Plan(margin=0.5))[0] is NO_DIFFERENCE


def test_the_same_sequence_gives_the_same_verdict_after_the_same_deals():
    def seq(seed):
        rng = random.Random(seed)
        return [rng.choice([-1, 0, 0, 1]) for _ in range(20_000)]

    assert run(seq(11)) == run(seq(11))
    assert run(seq(11), Plan(0.05, 0.05, 0.3)) != (None, 20_000)  # it stops at a wide margin


def test_stricter_error_rates_need_more_deals():
    rng = random.Random(3)
    diffs = [rng.choice([-2, -1, 0, 0, 1]) for _ in range(5000)]
    loose, strict = run(diffs, Plan(alpha=0.2, beta=0.2)), run(diffs, Plan(alpha=0.01, beta=0.01))
    assert loose[0] is strict[0] is BETTER
    assert loose[1] < strict[1]


def test_no_deal_is_counted_after_the_verdict():
    test = Sequential(Plan(margin=0.5))
    while test.add(-2) is None:
        pass
    with pytest.raises(ValueError, match="already ended: better"):
        test.add(-2)


@pytest.mark.parametrize("kwargs, field", [({"alpha": 0}, "alpha"), ({"alpha": 0.5}, "alpha"),
                                           ({"beta": -0.1}, "beta"), ({"beta": math.nan}, "beta"),
                                           ({"margin": 0}, "margin"), ({"margin": math.inf}, "margin"),
                                           ({"margin": math.nan}, "margin")])
def test_impossible_error_rates_and_margins_are_refused(kwargs, field):
    with pytest.raises(ValueError, match=field):
        Plan(**kwargs)


def test_the_interval_is_the_mean_and_1_96_standard_errors():
    tally = Tally()
    for x in (1, 2, 3, 4):
        tally.add(x)
    low, high = tally.interval()
    half = 1.959964 * math.sqrt((2.25 + 0.25 + 0.25 + 2.25) / 3 / 4)
    assert (low, high) == pytest.approx((2.5 - half, 2.5 + half))
