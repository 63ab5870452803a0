"""The question arena compare asks: fishtest's SPRT(0, margin) on paired gains, on constructed sequences."""

import math
import random

import pytest

from arena.compare.stats import (CORRECTED, MIN_DEALS, PLACES, PLACES_MARGIN, POINTS_MARGIN, VERDICTS, new_test)
from arena.evidence.sequential import Answer, Sprt, SprtPlan, llr


def run(gains, test=None):
    """Feed ``gains`` until an answer; the answer and the deals it took (None and all deals if there was none)."""
    test = test or new_test(True)
    for gain in gains:
        if test.add(gain) is not None:
            break
    return test.answer, test.deals


@pytest.mark.parametrize("luck", [True, False])
def test_identical_versions_are_not_better_after_a_few_deals_and_never_before_the_floor(luck):
    test = new_test(luck)
    answers = [test.add(0.0) for _ in range(MIN_DEALS)]
    assert answers == [None] * MIN_DEALS  # no verdict before the floor, even on zeros
    assert run([0.0] * 1000, new_test(luck)) == (Answer.H0, 17)  # then soon: 34 matches, in either currency


def test_the_defaults_are_the_documented_ones():
    test = new_test(True)
    assert (test.plan.margin, test.plan.min_deals, test.plan.alpha, test.plan.beta) == (POINTS_MARGIN, MIN_DEALS,
                                                                                        0.05, 0.05)
    assert new_test(False).plan.margin == PLACES_MARGIN
    assert test.plan.upper == pytest.approx(math.log(19)) and test.plan.lower == pytest.approx(-math.log(19))
    assert VERDICTS == {Answer.H1: "better", Answer.H0: "not better"}


def test_a_large_gain_is_better_at_the_floor_not_before():
    test = new_test(True)
    answers = [test.add(40.0 + (i % 3)) for i in range(MIN_DEALS)]
    assert answers[:-1] == [None] * (MIN_DEALS - 1) and answers[-1] is Answer.H1


@pytest.mark.parametrize("margin, floor", [(30.0, 16), (30.0, 25), (5.0, 40)])
def test_min_deals_is_respected_whatever_the_evidence(margin, floor):
    test = Sprt(SprtPlan(0.05, 0.05, margin, floor), 625.0)
    answers = [test.add(0.0) for _ in range(floor)]
    assert answers[:-1] == [None] * (floor - 1)
    assert answers[-1] is Answer.H0  # zeros pass the lower bound long before: the floor holds the answer back


def test_a_clearly_better_version_is_better_and_a_clearly_worse_one_not_better():
    rng = random.Random(5)
    noise = [rng.gauss(0.0, 25.0) for _ in range(5000)]
    assert run([10.0 + x for x in noise])[0] is Answer.H1
    assert run([-10.0 + x for x in noise])[0] is Answer.H0
    assert run([-10.0 + x for x in noise])[1] <= run([x for x in noise])[1]  # worse is said sooner than equal


def test_the_same_gains_give_the_same_verdict_after_the_same_deals():
    def seq(seed):
        rng = random.Random(seed)
        return [rng.gauss(2.0, 25.0) for _ in range(5000)]

    assert run(seq(11)) == run(seq(11))


def test_equal_versions_are_called_better_about_alpha_of_the_time_at_most():
    """Normal gains of mean 0 (the H0 boundary, the hardest case): alpha 0.2 here so that 400 tests can tell."""
    rng = random.Random(3)
    better = 0
    for _ in range(400):
        test = Sprt(SprtPlan(0.2, 0.2, 5.0, MIN_DEALS), 625.0)
        while test.add(rng.gauss(0.0, 25.0)) is None:
            pass
        better += test.answer is Answer.H1
    assert better / 400 <= 0.2 + 2 * math.sqrt(0.2 * 0.8 / 400)


@pytest.mark.parametrize("alpha, beta, margin, shift", [(0.05, 0.05, 5.0, 0.0), (0.05, 0.05, 5.0, 2.5),
                                                        (0.05, 0.05, 5.0, 5.0), (0.1, 0.1, 2.0, 1.0),
                                                        (0.01, 0.05, 0.2, 0.1), (0.05, 0.1, 8.0, 4.0)])
def test_the_interval_never_contradicts_the_verdict(alpha, beta, margin, shift):
    """Read with the test's own variance, the 95% interval after "better" lies above 0 and after "not better" below
    the margin, at every stop, whenever z^2 < 2 min(upper, -lower) (these error rates)."""
    rng = random.Random(round(margin * 100 + shift))
    spread = 25.0 if margin > 1 else 1.0
    for _ in range(150):
        test = Sprt(SprtPlan(alpha, beta, margin, rng.choice((2, 5, MIN_DEALS))), spread * spread)
        while test.add(rng.gauss(shift, spread * rng.choice((0.2, 1.0, 3.0)))) is None:
            pass
        low, high = test.interval()
        assert (low > 0) if test.answer is Answer.H1 else (high < margin)


def test_a_mirrored_test_for_worse_cannot_answer_while_this_one_is_open():
    """The module's reason for no "worse": the mirror's ratio is -llr - n margin^2 / var, below its bound (-lower,
    when alpha = beta) as long as this test is open."""
    rng = random.Random(9)
    for _ in range(200):
        test = new_test(True)
        while True:
            answer = test.add(rng.gauss(rng.choice((-8.0, -3.0, 0.0)), 25.0))
            if answer is not None:
                break
            mirror = -test.llr - test.deals * test.plan.margin ** 2 / test.variance
            assert mirror == pytest.approx(llr(test.deals, test.gains.mean, test.variance, 0.0, -test.plan.margin))
            if test.llr > test.plan.lower:  # open on the evidence, not only held back by the floor
                assert mirror < -test.plan.lower


def test_no_deal_is_counted_after_the_verdict():
    test = new_test(True)
    while test.add(50.0) is None:
        pass
    with pytest.raises(ValueError, match="already ended: H1"):
        test.add(50.0)


@pytest.mark.parametrize("mean, low, high, said", [
    (3.14, 0.4, 5.8, "scores 3.1 fewer luck-corrected points a match [0.4, 5.8]"),
    (-3.14, -5.8, -0.4, "scores 3.1 more luck-corrected points a match [0.4, 5.8]"),
    (1.0, -1.5, 3.5, "scores 1.0 fewer luck-corrected points a match [-1.5, 3.5]"),
    (-1.0, -3.5, 1.5, "scores 1.0 more luck-corrected points a match [-1.5, 3.5]"),
    (-0.01, -2.0, 2.0, "scores 0.0 fewer luck-corrected points a match [-2.0, 2.0]"),
])
def test_signs_are_said_in_words_that_cannot_be_read_backwards(mean, low, high, said):
    assert CORRECTED.amount(mean, low, high) == said
    assert "-3" not in CORRECTED.amount(-3.14, -5.8, -0.4)


def test_places_say_ahead_and_behind():
    assert PLACES.amount(0.214, 0.05, 0.37) == "finishes 0.21 places ahead a match [0.05, 0.37]"
    assert PLACES.amount(-0.214, -0.37, -0.05) == "finishes 0.21 places behind a match [0.05, 0.37]"
    assert PLACES.amount(0.5, 0.1, 0.9, verb=False) == "0.50 places ahead a match [0.10, 0.90]"
