"""The sequential test of arena compare: what it concludes from given sequences of paired differences."""

import math
import random

import pytest

from arena.compare.sprt import (BETTER, NO_DIFFERENCE, POINTS_PRIOR_VARIANCE, POINTS_SPREAD, WORSE, Plan, Sequential,
                                Tally, points_test)


def run(diffs, plan=None):
    """Feed ``diffs`` until a verdict; the verdict and the deals it took (None and all deals if there was none)."""
    test = Sequential(plan or Plan())
    for x in diffs:
        if test.add(x) is not None:
            break
    return test.verdict, test.deals


def test_identical_plays_end_in_no_difference_never_better_or_worse():
    test = Sequential(Plan(margin=0.1))
    verdicts = [test.add(0) for _ in range(50)]
    assert verdicts == [None] * 50  # a run of zeros is not taken as proof at once
    verdict, deals = run([0] * 10_000)
    assert verdict is NO_DIFFERENCE
    assert 50 < deals < 300  # but soon


def test_the_wealths_are_bets_on_the_mean_staked_before_each_deal():
    test = Sequential(Plan(margin=0.2), spread=3)
    lam = test.stake()
    assert lam == pytest.approx(min(0.2 / (1.0 + 0.04), 0.5 / 3.2))  # Kelly at the margin, or half a wealth at worst
    test.add(-1)
    assert test.ratios() == pytest.approx((math.log1p(lam), math.log1p(-lam)))
    assert test.within() == pytest.approx((math.log1p(lam * -0.8), math.log1p(lam * 1.2)))
    small = Sequential(Plan(margin=0.2), spread=3)
    for x in (2, -2) * 20:
        small.add(x)  # variance 3.7: the Kelly stake is below the cap and follows the deals
    assert small.stake() == pytest.approx(0.2 / (small.diffs.test_variance() + 0.04))


def test_no_verdict_comes_before_the_least_deals_and_a_whole_spread_each_deal_reaches_it():
    test = Sequential(Plan(margin=0.1), spread=3)
    least = test.least_deals()
    verdicts = [test.add(-3) for _ in range(least)]
    assert verdicts[-1] is BETTER and verdicts[:-1] == [None] * (least - 1)
    assert 5 < least < 30


def test_no_stake_can_lose_more_than_half_of_a_wealth_in_one_deal():
    test = Sequential(Plan(margin=0.5), spread=3)
    for _ in range(200):
        assert test.stake() * (3 + 0.5) <= 0.5 + 1e-12
        if test.add(0) is not None:
            break


def test_a_difference_beyond_the_spread_is_refused():
    with pytest.raises(ValueError, match="difference of 4 places is beyond the spread of 3 places"):
        Sequential(Plan(), spread=3).add(4)
    with pytest.raises(ValueError, match="spread above it"):
        Sequential(Plan(margin=1.0), spread=1)


def _false_verdicts(values, tests, plan, seed):
    rng = random.Random(seed)
    false = 0
    for _ in range(tests):
        test = Sequential(plan)
        while test.add(rng.choice(values)) is None and test.deals < 4000:
            pass
        false += test.verdict in (BETTER, WORSE)
    return false / tests


@pytest.mark.parametrize("values", [[-1, 0, 0, 1], [-3, 1, 1, 1], [-1, -1, -1, 3], [-2, -1, 0, 0, 0, 1, 2]])
def test_equal_versions_are_called_better_or_worse_less_often_than_alpha_whatever_the_shape(values):
    # Mean 0, shapes far from normal (one rare large loss, one rare large gain): the bound holds for
    # any distribution within the spread. alpha is 0.2 here so that 300 tests can tell.
    assert sum(values) == 0
    assert _false_verdicts(values, 300, Plan(alpha=0.2, beta=0.2, margin=0.5), seed=len(values)) <= 0.2


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


def test_the_points_test_counts_a_difference_beyond_its_bound_at_the_bound_which_then_grows():
    clipped, plain = points_test(Plan(margin=2.5)), Sequential(Plan(margin=2.5), POINTS_SPREAD,
                                                               prior_variance=POINTS_PRIOR_VARIANCE)
    clipped.add(-400.0)
    plain.add(-POINTS_SPREAD)
    assert clipped.ratios() == plain.ratios() and clipped.within() == plain.within()  # counted at the bound
    assert clipped.clipped == 1 and clipped.spread == 400.0  # the next deal's bound is the largest seen
    assert clipped.diffs.mean == -400.0  # the effect reports the difference as played
    with pytest.raises(ValueError, match="beyond the spread"):
        plain.add(-400.0)
    with pytest.raises(ValueError, match="nan luck-corrected points"):
        clipped.add(math.nan)


def test_the_points_test_holds_alpha_on_equal_versions_with_heavy_tails():
    """Differences of two versions that play alike are symmetric about zero; with tails far past the bound (one
    deal in 20 beyond 150 points) the clipped test still calls them better or worse at most alpha of the time."""
    rng = random.Random(5)
    plan = Plan(alpha=0.2, beta=0.2, margin=5.0)
    false = 0
    runs = 300
    for _ in range(runs):
        test = points_test(plan)
        while test.verdict is None and test.deals < 300:
            wild = rng.random() < 0.05
            test.add(rng.choice((-1, 1)) * (rng.uniform(150, 600) if wild else abs(rng.gauss(0, 25))))
        false += test.verdict in (BETTER, WORSE)
    se = math.sqrt(0.2 * 0.8 / runs)
    assert false / runs <= 0.2 + 2 * se


def test_the_points_test_finds_a_version_ten_points_better():
    rng = random.Random(6)
    test = points_test(Plan(margin=2.5))
    while test.add(rng.gauss(-10.0, 25.0)) is None:
        pass
    assert test.verdict is BETTER and test.deals < 400
