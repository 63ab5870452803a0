"""How sure a ranking is: P(ahead) from two posteriors, seeded rank intervals, the settled test, and the
calibration bench's mechanism on a small known-strength field."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
import trueskill

from arena.tournament.confidence import (WIDEN, ahead_of_next, board_order, interval_text, p_ahead,
                                         rank_intervals, samples_for, settled)
from arena.tournament.rating import Belief
from tests.bots_examples.measure import load_module

ROOT = Path(__file__).resolve().parents[2]
R = trueskill.Rating


def test_p_ahead_is_the_normal_probability_of_the_gap_and_symmetric() -> None:
    a, b = R(27.0, 1.0), R(25.0, 1.0)  # gap 2, spread sqrt(2): Phi(sqrt(2)) = 0.9214
    assert p_ahead(a, b) == pytest.approx(0.92135, abs=1e-4)
    assert p_ahead(a, b) + p_ahead(b, a) == pytest.approx(1.0)
    assert p_ahead(R(25.0, 3.0), R(25.0, 1.0)) == 0.5  # equal means: even, whatever the spreads
    assert p_ahead(R(60.0, 1.0), R(20.0, 1.0)) == pytest.approx(1.0) and p_ahead(R(20.0, 1.0), R(60.0, 1.0)) < 1e-9


def test_a_bot_far_ahead_is_surely_first_and_equal_bots_share_every_rank() -> None:
    field = {"best": R(60.0, 1.0), "x": R(25.0, 1.0), "y": R(25.0, 1.0), "z": R(25.0, 1.0)}
    intervals = rank_intervals(field)
    assert intervals["best"] == (1, 1)
    assert intervals["x"] == intervals["y"] == intervals["z"] == (2, 4)
    assert rank_intervals({"alone": R(25.0, 8.0)}) == {"alone": (1, 1)} and rank_intervals({}) == {}


def test_a_belief_with_no_spread_left_is_drawn_at_its_mean() -> None:
    """A model may leave a sigma of 0 (p_ahead takes one); NormalDist refused it and took the whole board down."""
    field = {"sure": Belief(30.0, 0.0), "x": Belief(29.0, 2.0), "low": Belief(10.0, 0.0)}
    intervals = rank_intervals(field)
    assert intervals["sure"] == (1, 2) and intervals["x"] == (1, 2) and intervals["low"] == (3, 3)


def test_well_separated_bots_have_one_rank_each_and_wider_sigmas_wider_intervals() -> None:
    field = {f"b{i}": R(40.0 - 5.0 * i, 0.5) for i in range(5)}
    assert rank_intervals(field) == {f"b{i}": (i + 1, i + 1) for i in range(5)}
    loose = rank_intervals({name: R(r.mu, 4.0) for name, r in field.items()})
    assert loose["b2"][0] < 3 < loose["b2"][1]
    assert rank_intervals(field, widen=8.0 * WIDEN)["b2"] == loose["b2"]  # widen scales sigma: 0.5 x 8 = 4 x WIDEN


def test_the_same_ratings_give_the_same_intervals_in_any_order() -> None:
    rng = random.Random(5)
    field = {f"bot{i}": R(rng.uniform(20, 30), rng.uniform(0.5, 3)) for i in range(8)}
    shuffled = dict(sorted(field.items(), key=lambda item: rng.random()))
    assert rank_intervals(field) == rank_intervals(shuffled) == rank_intervals(dict(field))
    for low, high in rank_intervals(field).values():
        assert 1 <= low <= high <= 8


def test_intervals_hold_skills_drawn_from_the_posteriors_as_often_as_they_claim() -> None:
    """The mechanism, on its own model: when the true skills do come from the posteriors, a 95% interval
    holds the true rank at least about 95% of the time (a seeded check, not a benchmark)."""
    rng = random.Random(22)
    hits = cases = 0
    for _ in range(60):
        field = {f"b{i}": R(rng.uniform(20, 30), rng.uniform(0.5, 3.0)) for i in range(6)}
        truth = {name: rng.gauss(r.mu, r.sigma) for name, r in field.items()}
        true_rank = {name: rank for rank, name in enumerate(sorted(truth, key=lambda n: -truth[n]), start=1)}
        for name, (low, high) in rank_intervals(field, samples=1000).items():
            cases += 1
            hits += low <= true_rank[name] <= high
    assert hits / cases >= 0.93


def test_bad_levels_and_samples_are_refused() -> None:
    with pytest.raises(ValueError, match="level"):
        rank_intervals({"a": R(), "b": R()}, level=1.0)
    with pytest.raises(ValueError, match="samples"):
        rank_intervals({"a": R(), "b": R()}, samples=0)


def test_samples_shrink_only_for_large_fields() -> None:
    assert samples_for(6) == samples_for(50) == 4000
    assert samples_for(100) == 2000 and samples_for(10_000) == 200


def test_ahead_of_next_and_settled_follow_the_board_order() -> None:
    field = {"a": R(40.0, 1.0), "b": R(30.0, 1.0), "c": R(29.0, 1.0)}
    assert board_order(field) == ["a", "b", "c"]
    ahead = ahead_of_next(field)
    assert ahead["a"] == pytest.approx(1.0) and ahead["c"] is None
    assert ahead["b"] == pytest.approx(p_ahead(field["b"], field["c"]))  # 0.76: b and c are close
    assert settled(field, 0.5) and not settled(field, 0.95)
    assert not settled(field, 0.5, order=["a", "c", "b"])  # the order given: c ahead of b is the weak pair
    assert settled({"solo": R()}, 0.99) and settled({}, 0.99)
    ties = {"y": R(25.0, 1.0), "x": R(25.0, 1.0)}
    assert board_order(ties) == ["x", "y"] and ahead_of_next(ties)["x"] == 0.5


def test_cells_say_an_interval_and_never_claim_certainty() -> None:
    assert [interval_text(i) for i in ((1, 1), (2, 5), None)] == ["1-1", "2-5", "-"]


def _bench() -> Any:
    return load_module("calibration_bench", ROOT / "bench" / "calibration.py")


def test_the_calibration_bench_counts_a_case_per_seed_and_bot() -> None:
    """Small: two seeds of one cycle's first 24 matches, standard rules; the whole bench is run by hand."""
    bench = _bench()
    classes = bench.policies()
    assert list(classes) == ["known-p0", "known-p10", "known-p20", "known-p35", "known-p50", "known-p100"]
    settings = [bench.RatingParams(model=m) for m in bench.MODELS]
    figures = bench.measure("standard", [1, 2], 24, 1.0, classes, settings)
    assert len(figures) == len(settings)
    for hits, cases, width, exact in figures:
        assert cases == 12 and 0 <= hits <= cases and 1.0 <= width <= 6.0 and 0 <= exact <= 2
    again = bench.measure("standard", [1, 2], 24, 1.0, classes, settings)
    assert again == figures  # the same seeds play the same matches
    for setting in settings:
        ratings = bench.rated(classes, bench.one_field(classes, "standard", 1, 24), setting)
        assert sorted(ratings) == sorted(classes) and ratings["known-p0"].mu > ratings["known-p100"].mu
