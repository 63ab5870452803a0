"""The rating seam: every model keeps its contract, each library is imported by one module, and
``rating: {model: openskill}`` rates a real tournament end to end."""

from __future__ import annotations

import ast
import json
import math
import os
import pickle
import sqlite3
from pathlib import Path

import pytest
from openskill.models import PlackettLuce

from arena.tournament.confidence import rank_intervals
from arena.tournament.config import ConfigError, load_config
from arena.tournament.driver import run_tournament
from arena.tournament.rating import MODELS, RatingFold, RatingParams, model_of, p_ahead, rate
from arena.tournament.records import MatchRecord

from .test_driver import write_config

ROOT = Path(__file__).resolve().parents[2]


def record(index: int, bots: tuple[str, ...], places: tuple[int, ...]) -> MatchRecord:
    return MatchRecord(index=index, match_id=f"m{index}", bots=bots, places=places,
                       totals=tuple(10 * p for p in places), forfeited=tuple(False for _ in bots), faults=())


def imports_of(path: Path) -> set[str]:
    """Top-level module names ``path`` imports."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


@pytest.mark.parametrize("library,module", [("trueskill", "trueskill_model.py"), ("openskill", "openskill_model.py")])
def test_each_rating_library_is_imported_by_one_module(library, module):
    importers = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "arena").rglob("*.py") if library in imports_of(p))
    assert importers == [f"arena/tournament/rating/{module}"]


@pytest.mark.parametrize("name", MODELS)
def test_every_model_keeps_the_contract(name):
    model = model_of(RatingParams(model=name, mu=30.0, sigma=5.0))
    fresh = model.fresh()
    assert (fresh.mu, fresh.sigma) == (30.0, 5.0)
    kept = model.rating(31.5, 2.25)
    assert (kept.mu, kept.sigma) == pytest.approx((31.5, 2.25), abs=1e-12)  # TrueSkill keeps precisions
    ratings = {"a": fresh}
    before = dict(ratings)
    model.update(ratings, ("a", "b", "c"), (1, 2, 3), (10.0, 20.0, 30.0))  # scores: totals less luck
    assert before["a"] is fresh and (fresh.mu, fresh.sigma) == (30.0, 5.0)  # the old belief is left as it was
    assert ratings["a"].mu > 30.0 > ratings["c"].mu  # a newcomer starts fresh; the winner gains
    assert all(r.sigma < 5.0 for r in ratings.values())
    assert pickle.loads(pickle.dumps(ratings))["b"].mu == ratings["b"].mu  # a fold's state travels
    tied = {}
    model.update(tied, ("x", "y"), (1, 1), (40.0, 40.0))
    assert tied["x"].mu == pytest.approx(tied["y"].mu) == pytest.approx(30.0)
    assert p_ahead(ratings["a"], ratings["c"]) > 0.5


def test_openskill_model_is_openskills_plackett_luce_step_by_step():
    reference = PlackettLuce(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=0.0)
    a, b, c = (reference.rating() for _ in range(3))  # three objects: openskill tells players by identity
    [[a], [b], [c]] = reference.rate([[a], [b], [c]], ranks=[1, 2, 3], tau=0.0)
    [[c], [a]] = reference.rate([[c], [a]], ranks=[1, 2], tau=0.0)
    [[b], [c], [a]] = reference.rate([[b], [c], [a]], ranks=[1, 1, 3], tau=0.0)
    records = [record(0, ("a", "b", "c"), (1, 2, 3)), record(1, ("c", "a"), (1, 2)),
               record(2, ("b", "c", "a"), (1, 1, 3))]
    got = rate(reversed(records), RatingParams(model="openskill"), "abc")
    for name, want in (("a", a), ("b", b), ("c", c)):
        assert (got[name].mu, got[name].sigma) == pytest.approx((want.mu, want.sigma), abs=1e-12)


@pytest.mark.parametrize("name", MODELS)
def test_the_fold_is_the_same_in_any_finish_order(name):
    params = RatingParams(model=name)
    records = [record(i, tuple("abcd"[(i + k) % 4] for k in range(2 + i % 3)), tuple(range(1, 3 + i % 3)))
               for i in range(12)]
    fold = RatingFold(params, "abcd", expected=range(12))
    for r in reversed(records):
        fold.add(r)
    assert fold.complete and fold.ratings == rate(records, params, "abcd")


def field_records(count: int) -> list[MatchRecord]:
    """Tables of 2 to 5 of six bots, mostly in the order a > b > ... > f, with an upset every 7th table and a tie at
    the top every 5th: what pushes a model's arithmetic hardest (a sure order, then a surprise)."""
    out = []
    for i in range(count):
        seats = 2 + i % 4
        bots = tuple(sorted("abcdef"[(i + k) % 6] for k in range(seats)))
        places = list(range(1, seats + 1))
        if i % 7 == 3:
            places.reverse()
        if i % 5 == 0:
            places[places.index(2)] = 1
        out.append(record(i, bots, tuple(places)))
    return out


@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("beta", [0.001, 1_000_000.0])
@pytest.mark.parametrize("mu", [-1_000_000.0, 1_000_000.0])
@pytest.mark.parametrize("spread", ["narrow", "wide"])
def test_every_model_stays_finite_at_the_ends_of_the_rating_ranges(name, beta, mu, spread):
    """The ends of every range arena/bounds.py gives: each belief stays finite with a spread, and the board's rank
    intervals are drawn from them (openskill overflowed on mu 1000000 before it rated a table about its mean)."""
    sigma, tau = (beta / 1000, 0.0) if spread == "narrow" else (10 * beta, 10 * beta)
    params = RatingParams(model=name, mu=mu, beta=beta, sigma=sigma, tau=tau, draw_probability=0.99)
    ratings = rate(field_records(150), params, "abcdef")
    assert all(math.isfinite(r.mu) and math.isfinite(r.sigma) and r.sigma > 0 for r in ratings.values()), ratings
    assert sorted(rank_intervals(ratings)) == list("abcdef")


def test_openskill_rates_a_table_alike_wherever_its_mus_are():
    """Plackett-Luce is unchanged by a shift of every mu; openskill's exp(mu / c) overflowed at a mu far from 0."""
    model, moved = model_of(RatingParams(model="openskill")), model_of(RatingParams(model="openskill", mu=1e6))
    near, far = {}, {}
    for table in (("a", "b", "c"), ("c", "a"), ("b", "c", "a")):
        model.update(near, table, tuple(range(1, len(table) + 1)))
        moved.update(far, table, tuple(range(1, len(table) + 1)))
    for bot in "abc":
        assert (far[bot].mu - (1e6 - 25.0), far[bot].sigma) == pytest.approx((near[bot].mu, near[bot].sigma), abs=1e-8)


def test_the_models_rate_differently():
    records = [record(0, ("a", "b", "c"), (1, 2, 3))]
    rated = [rate(records, RatingParams(model=m), "abc")["a"].mu for m in MODELS]
    assert all(a != pytest.approx(b, abs=1e-3) for i, a in enumerate(rated) for b in rated[i + 1:])


def test_an_unknown_model_is_one_line_naming_the_choices(tmp_path):
    path = write_config(tmp_path, "bad", extra="rating: {model: elo}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "rating.model: expected one of trueskill | openskill | points, got 'elo'" in str(caught.value)


def test_openskill_plays_a_tournament_and_the_board_says_so(tmp_path):
    path = write_config(tmp_path, "pl", bots=3, extra="rating: {model: openskill}\n")
    config = load_config(path)
    summary = run_tournament(config, out=open(os.devnull, "w"))
    board = json.loads((config.output / "leaderboard.json").read_text())
    assert board["rating_model"] == "openskill"
    db = sqlite3.connect(config.output / "results.sqlite")
    try:
        stored = json.loads(db.execute("SELECT value FROM meta WHERE key = 'rating'").fetchone()[0])
        rows = db.execute("SELECT idx, bots, places FROM matches ORDER BY idx").fetchall()
    finally:
        db.close()
    assert stored["model"] == "openskill"
    records = [record(i, tuple(json.loads(b)), tuple(json.loads(p))) for i, b, p in rows]
    want = rate(records, RatingParams(model="openskill"), [b.name for b in config.bots])
    for standing in board["standings"]:
        assert standing["mu"] == pytest.approx(want[standing["bot"]].mu, abs=1e-3)
    assert "conservative Plackett-Luce" in (config.output / "leaderboard.md").read_text()
    assert summary.leaderboard.model == "openskill"


def test_the_default_model_is_not_written_so_an_older_store_reads_alike(tmp_path):
    path = write_config(tmp_path, "ts", bots=2, seats="[2]")
    config = load_config(path)
    run_tournament(config, out=open(os.devnull, "w"))
    db = sqlite3.connect(config.output / "results.sqlite")
    try:
        stored = json.loads(db.execute("SELECT value FROM meta WHERE key = 'rating'").fetchone()[0])
    finally:
        db.close()
    assert "model" not in stored and RatingParams(**stored).model == "trueskill"
    assert json.loads((config.output / "leaderboard.json").read_text())["rating_model"] == "trueskill"
