"""The luck-corrected points model: the exact update, fair between equals, luck and forfeits counted as documented,
and ``rating: {model: points}`` rating a real tournament from what its store keeps."""

from __future__ import annotations

import itertools
import json
import os

import numpy as np
import pytest

from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.rating import (Belief, RatingParams, game_scores, games, model_of, rate, reads_scores,
                                     scores_of)
from arena.tournament.rating.points_model import POINTS_PER_UNIT
from arena.tournament.records import MatchRecord
from arena.tournament.store import ResultStore

from .test_driver import write_config

PARAMS = RatingParams(model="points")


def record(index, bots, totals, luck=(), forfeited=None, places=None):
    forfeited = forfeited or (False,) * len(bots)
    places = places or tuple(sorted(totals).index(t) + 1 for t in totals)
    return MatchRecord(index=index, match_id=f"m{index}", bots=bots, places=places, totals=totals,
                       forfeited=forfeited, faults=(), luck=luck)


def exact_marginals(means, variances, noise, performances):
    """The joint posterior of the skills, by plain linear algebra: ``p = s + o 1 + e`` with a flat prior on the
    table's offset ``o`` (a variance of 1e9), each seat's marginal read off the joint."""
    n = len(means)
    prior_mean = np.array([*means, 0.0])
    prior_cov = np.diag([*variances, 1e9])
    h = np.hstack([np.eye(n), np.ones((n, 1))])
    s = h @ prior_cov @ h.T + noise * np.eye(n)
    gain = prior_cov @ h.T @ np.linalg.inv(s)
    mean = prior_mean + gain @ (np.array(performances) - h @ prior_mean)
    cov = prior_cov - gain @ h @ prior_cov
    return mean[:n], np.sqrt(np.diag(cov)[:n])


def test_the_update_is_the_exact_posterior_of_the_seats_given_only_their_differences():
    model = model_of(PARAMS)
    ratings = {"a": Belief(27.0, 3.0), "b": Belief(25.0, 8.0), "c": Belief(20.0, 1.5), "d": Belief(25.0, 5.0)}
    totals = (40.0, 12.0, 75.0, 33.0)
    want_mu, want_sigma = exact_marginals([r.mu for r in ratings.values()], [r.sigma ** 2 for r in ratings.values()],
                                          PARAMS.beta ** 2, [-t / POINTS_PER_UNIT for t in totals])
    model.update(ratings, tuple("abcd"), (3, 1, 4, 2), totals)
    assert [ratings[b].mu for b in "abcd"] == pytest.approx(list(want_mu), abs=1e-6)
    assert [ratings[b].sigma for b in "abcd"] == pytest.approx(list(want_sigma), abs=1e-6)


def test_the_update_does_not_depend_on_seat_order_or_on_the_table_scale_of_points():
    start = {"a": Belief(26.0, 4.0), "b": Belief(24.0, 6.0), "c": Belief(25.0, 2.0)}
    totals = {"a": 30.0, "b": 55.0, "c": 41.0}
    results = []
    for order in itertools.permutations("abc"):
        ratings = dict(start)
        model_of(PARAMS).update(ratings, order, (1, 2, 3), tuple(totals[b] for b in order))
        results.append({b: (round(r.mu, 9), round(r.sigma, 9)) for b, r in ratings.items()})
        shifted = dict(start)  # every seat 60 points more: a longer match, the same differences
        model_of(PARAMS).update(shifted, order, (1, 2, 3), tuple(totals[b] + 60 for b in order))
        results.append({b: (round(r.mu, 9), round(r.sigma, 9)) for b, r in shifted.items()})
    assert all(r == results[0] for r in results)


def test_two_identical_bots_rate_alike_whatever_seat_they_held():
    """Equal results in any seats give equal ratings (no seat is a reference), and swapping two bots' names in
    every match swaps their ratings exactly."""
    tied = [record(0, ("x", "y", "f"), (30, 30, 50)), record(1, ("f", "y", "x"), (50, 30, 30)),
            record(2, ("y", "f", "x"), (22, 61, 22))]
    rated = rate(tied, PARAMS, ["x", "y", "f"])
    assert (rated["x"].mu, rated["x"].sigma) == pytest.approx((rated["y"].mu, rated["y"].sigma), abs=1e-12)
    played = [record(0, ("x", "y", "f"), (20, 35, 50)), record(1, ("f", "y", "x"), (50, 20, 35)),
              record(2, ("y", "x", "f"), (44, 35, 12))]
    swap = {"x": "y", "y": "x", "f": "f"}
    swapped = [record(r.index, tuple(swap[b] for b in r.bots), r.totals) for r in played]
    one, other = rate(played, PARAMS, "xyf"), rate(swapped, PARAMS, "xyf")
    assert (one["x"].mu, one["x"].sigma) == (other["y"].mu, other["y"].sigma)
    assert one["x"].mu != pytest.approx(one["y"].mu)


def test_the_cards_luck_is_taken_out_of_every_total():
    lucky = [record(0, ("a", "b"), (30, 50), luck=(-12.5, 4.0))]
    as_earned = [record(0, ("a", "b"), (42.5, 46.0))]
    assert scores_of(lucky[0]) == (42.5, 46.0)
    assert rate(lucky, PARAMS, "ab") == rate(as_earned, PARAMS, "ab")
    assert scores_of(record(0, ("a", "b"), (30, 50))) == (30.0, 50.0)  # a match not measured counts no luck


def test_a_forfeited_seat_scores_no_better_than_the_worst_seat_that_was_not():
    """The fallback policy played it out: its low total is not its bot's."""
    crashed = record(0, ("a", "b", "c"), (5, 40, 60), luck=(0.0, 0.0, 0.0), forfeited=(True, False, False),
                     places=(3, 1, 2))
    assert scores_of(crashed) == (60.0, 40.0, 60.0)
    rated = rate([crashed], PARAMS, "abc")
    assert rated["a"].mu == pytest.approx(rated["c"].mu) and rated["a"].mu < rated["b"].mu
    everyone = record(0, ("a", "b"), (-5, 40), forfeited=(True, True), places=(1, 2))
    assert scores_of(everyone) == (-5.0, 40.0)  # among themselves by their totals, as their places are


def test_a_table_without_scores_is_refused():
    assert reads_scores(model_of(PARAMS)) and not reads_scores(model_of(RatingParams()))
    with pytest.raises(ValueError, match="match total less its luck"):
        model_of(PARAMS).update({}, ("a", "b"), (1, 2))


def test_scores_follow_the_games_each_method_makes():
    rotations = [record(0, ("a", "b", "c"), (10, 20, 30)), record(1, ("c", "a", "b"), (14, 24, 38)),
                 record(2, ("b", "c", "a"), (9, 18, 36))]
    for r in rotations:
        object.__setattr__(r, "match_id", f"d1/r{r.index}")
    assert game_scores("match", rotations) == [scores_of(r) for r in rotations]
    assert [bots for bots, _ in games("table", rotations)] == [("a", "b", "c")]
    assert game_scores("table", rotations) == [(10 + 24 + 36, 20 + 38 + 9, 30 + 14 + 18)]
    deal = game_scores("deal", rotations)  # each seat less its average over the rotations: seats' luck out
    assert deal[0] == pytest.approx((10 - 11, 20 - 62 / 3, 30 - 104 / 3))
    assert [sum(row[seat] for row in deal) for seat in range(3)] == pytest.approx([0, 0, 0])


def test_points_rates_a_tournament_from_what_its_store_keeps(tmp_path):
    path = write_config(tmp_path, "pts", bots=3, extra="rating: {model: points}\n")
    config = load_config(path)
    summary = run_tournament(config, out=open(os.devnull, "w"))
    board = json.loads((config.output / "leaderboard.json").read_text())
    assert board["rating_model"] == "points" and summary.leaderboard.model == "points"
    store = ResultStore(config.output, readonly=True)
    try:
        records = store.records()
    finally:
        store.close()
    assert all(len(r.luck) == len(r.bots) for r in records)  # every match measured, the luck kept
    want = rate(records, PARAMS, [b.name for b in config.bots])
    plain = rate([MatchRecord(r.index, r.match_id, r.bots, r.places, r.totals, r.forfeited, r.faults)
                  for r in records], PARAMS, [b.name for b in config.bots])
    for standing in board["standings"]:
        assert standing["mu"] == pytest.approx(want[standing["bot"]].mu, abs=1e-3)
    assert any(abs(want[b].mu - plain[b].mu) > 1e-3 for b in want)  # the luck changed the ratings
    assert "conservative luck-corrected points" in (config.output / "leaderboard.md").read_text()
