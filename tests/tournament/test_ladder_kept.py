"""A ladder's ratings kept in the store, its determinism across worker counts, its stop conditions."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import re
import sqlite3
import time
import types
from typing import Any

from click.testing import CliRunner

from arena.cli import main
from arena.tournament import driver
from arena.tournament.config import ConfigError, load_config
from arena.tournament.driver import run_tournament
from arena.tournament.ladder.kept import THROUGH, read
from arena.tournament.rating import RatingParams, rate
from arena.tournament.store import ResultStore
from arena.tournament.store.ladder import LadderStore
from tests.tournament.test_ladder import copy_bot, write_ladder

import pytest


def kept_table(output) -> dict[str, tuple[float, float, int]]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return {p: (mu, sigma, n) for p, mu, sigma, n in db.execute("SELECT player, mu, sigma, matches FROM ladder_ratings")}
    finally:
        db.close()


def recomputed(output) -> dict[str, tuple[float, float, int]]:
    store = ResultStore(output, readonly=True)
    try:
        records = store.records()
    finally:
        store.close()
    ratings = rate(records, RatingParams(), [])
    counts = {key: sum(key in r.bots for r in records) for key in ratings}
    return {key: (r.mu, r.sigma, counts[key]) for key, r in ratings.items()}


def test_kept_ratings_are_exactly_a_recomputation_after_each_run(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")])
    config = load_config(path)
    for matches in (7, 5):  # two workers: results come back in any order, ratings go in index order
        run_tournament(config, out=open(os.devnull, "w"), max_matches=matches)
        assert kept_table(config.output) == recomputed(config.output)


def test_a_match_stored_beyond_the_kept_ratings_is_rated_by_the_next_reader(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob")])
    config = load_config(path)
    run_tournament(config, out=open(os.devnull, "w"), max_matches=6)
    db = sqlite3.connect(config.output / "results.sqlite")
    with db:  # as if the run was killed after storing matches 3.. but before their ratings
        db.execute("UPDATE meta SET value = '2' WHERE key = ?", (THROUGH,))
        db.execute("DELETE FROM ladder_ratings")
    kept = read(LadderStore(db), RatingParams())
    db.close()
    expected = recomputed(config.output)
    assert kept.through == 5 and kept.changed == {"ann@v1", "bob@v1"}
    assert {k: (r.mu, r.sigma) for k, r in kept.ratings.items()} != {k: v[:2] for k, v in expected.items()}
    db = sqlite3.connect(config.output / "results.sqlite")
    with db:  # the state a killed run really leaves: the table of match 2, through 2
        db.execute("DELETE FROM meta WHERE key = ?", (THROUGH,))
    kept = read(LadderStore(db), RatingParams())  # nothing kept: everything is the tail
    db.close()
    assert {k: (r.mu, r.sigma, kept.matches[k]) for k, r in kept.ratings.items()} == expected
    run_tournament(config, out=open(os.devnull, "w"), max_matches=2)  # the driver saves what it rated on start
    assert kept_table(config.output) == recomputed(config.output)


def test_the_same_field_and_seed_draw_the_same_tables_with_one_or_two_workers(tmp_path):
    seatings = []
    for workers in (1, 2):
        home = tmp_path / f"w{workers}"
        home.mkdir()
        path = write_ladder(home, [copy_bot(home, n) for n in ("ann", "bob", "carl", "dora")])
        run_tournament(load_config(path), out=open(os.devnull, "w"), workers=workers, max_matches=40)
        db = sqlite3.connect(home / "out" / "results.sqlite")
        seatings.append(db.execute("SELECT idx, match_id, bots, places FROM matches ORDER BY idx").fetchall())
        db.close()
    assert len(seatings[0]) == 40 and seatings[0] == seatings[1]


def test_a_table_cut_short_by_a_stop_is_completed_first_by_the_next_run(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")], "")
    config = load_config(path)
    run_tournament(config, out=open(os.devnull, "w"), max_matches=3)  # tables of 2 then 3: L0 r0 r1, L2 r0
    run_tournament(config, out=open(os.devnull, "w"), max_matches=2)
    db = sqlite3.connect(config.output / "results.sqlite")
    ids = [row[0] for row in db.execute("SELECT match_id FROM matches ORDER BY idx")]
    db.close()
    assert ids[2].startswith("L2/") and ids[2].endswith("/r0")
    assert [i.rsplit("/", 1)[1] for i in ids[3:]] == ["r1", "r2"] and all(i.startswith("L2/") for i in ids[3:])


def test_hours_stops_a_ladder_after_the_matches_in_play(tmp_path, monkeypatch):
    """No match is handed out once the hours are up, and those in play are finished and stored. The
    driver's clock jumps past the hours as the first match is stored: no duration is measured."""
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob")])
    late: list[bool] = []  # not empty once the hours are up
    clock = types.SimpleNamespace(monotonic=lambda: time.monotonic() + (2 * 3600 if late else 0), time=time.time)
    record = ResultStore.record

    def stored(self: ResultStore, *args: Any, **kwargs: Any) -> None:
        record(self, *args, **kwargs)
        late.append(True)

    handed: list[tuple[bool, int]] = []  # per batch handed out: after the hours?, its matches
    schedule_for = driver.schedule_for

    def spied(*args: Any, **kwargs: Any) -> Any:
        schedule = schedule_for(*args, **kwargs)
        next_batch = schedule.next_batch

        def spy(room: int | None = None) -> Any:
            batch = next_batch(room)
            if batch:
                handed.append((bool(late), len(batch)))
                if late:
                    raise KeyboardInterrupt  # a ladder that ignored --hours would play on forever
            return batch
        schedule.next_batch = spy
        return schedule

    monkeypatch.setattr(driver, "time", clock)
    monkeypatch.setattr(ResultStore, "record", stored)
    monkeypatch.setattr(driver, "schedule_for", spied)
    result = CliRunner().invoke(main, ["run", str(path), "--hours", "1"])
    assert result.exit_code == 0, result.output
    assert handed and [after for after, _ in handed] == [False] * len(handed)  # none once the hours were up
    db = sqlite3.connect(tmp_path / "out" / "results.sqlite")
    assert db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] == sum(n for _, n in handed)  # all played
    db.close()
    bad = CliRunner().invoke(main, ["run", str(path), "--hours", "0"])
    assert bad.exit_code == 2 and "--hours" in bad.output


@pytest.mark.parametrize("value", ["1", "-0.1", "yes", "[0.2]"])
def test_a_fairness_floor_outside_0_to_1_is_refused_with_its_key(tmp_path, value):
    path = write_ladder(tmp_path, [], f"fairness_floor: {value}\n")
    with pytest.raises(ConfigError, match="fairness_floor"):
        load_config(path)


def test_cycles_in_a_ladder_is_refused_like_another_kinds_key(tmp_path):
    path = write_ladder(tmp_path, [], "cycles: 5\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    line = len(path.read_text().splitlines())
    assert str(caught.value) == (f"{path}:{line}: cycles: only used with schedule: round_robin or sampled (a ladder "
                                 "plays until it is stopped: arena run --matches N or --hours H ends a run); remove it")


def test_a_ladder_stored_with_cycles_resumes_once_the_key_is_removed(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    config = load_config(path)
    before = dataclasses.replace(config, cycles=5)  # as an arena that ignored the key stored it
    store = ResultStore(config.output)
    store.claim(before.fingerprint(), before.describe(), None)
    store.close()
    result = CliRunner().invoke(main, ["run", str(path), "--matches", "2"])
    assert result.exit_code == 0, result.output


def test_fairness_floor_is_read_by_a_ladder_and_refused_elsewhere(tmp_path):
    assert load_config(write_ladder(tmp_path, [], "fairness_floor: 0.4\n")).fairness_floor == 0.4
    other = tmp_path / "rr.yaml"
    other.write_text("name: rr\nseats: 2\nfairness_floor: 0.4\nbots: [a, b]\n")
    with pytest.raises(ConfigError, match="fairness_floor.*only used with schedule: ladder"):
        load_config(other)


def test_the_progress_line_names_only_active_entries(tmp_path):
    ann = copy_bot(tmp_path, "ann")
    path = write_ladder(tmp_path, [ann, copy_bot(tmp_path, "bob"), copy_bot(tmp_path, "carl")])
    config = load_config(path)
    run_tournament(config, out=open(os.devnull, "w"), max_matches=6)
    (ann / "bot.py").write_text((ann / "bot.py").read_text() + "\n# v2\n")
    result = CliRunner().invoke(main, ["submit", str(path), str(ann)])
    assert result.exit_code == 0 and "it replaces v1" in result.output
    out = io.StringIO()
    run_tournament(config, out=out, max_matches=2)
    top = [line for line in out.getvalue().splitlines() if re.search(r"top(, provisional \(\d+ [^)]*\))?: ", line)]
    assert top and "bob@v1" in top[0] and "ann@v1" not in top[0]


def test_a_ladder_that_changes_its_rating_model_rates_every_stored_match_anew(tmp_path):
    bots = [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")]
    path = write_ladder(tmp_path, bots)
    run_tournament(load_config(path), out=open(os.devnull, "w"), max_matches=6)
    before = kept_table(tmp_path / "out")
    path.write_text(path.read_text() + "rating: {model: openskill}\n")
    config = load_config(path)
    said = io.StringIO()
    run_tournament(config, out=said, max_matches=3)
    assert "rating model openskill instead of trueskill: every stored match is rated anew by it" in said.getvalue()
    store = ResultStore(config.output, readonly=True)
    try:
        records = store.records()
    finally:
        store.close()
    want = rate(records, RatingParams(model="openskill"), [])
    kept = kept_table(config.output)
    assert len(records) == 9 and set(kept) == set(want) and kept != before
    for key, (mu, sigma, _) in kept.items():
        assert (mu, sigma) == pytest.approx((want[key].mu, want[key].sigma), abs=1e-9)


def test_a_ladder_rated_by_openskill_names_it_under_every_board(tmp_path):
    """The line under a ladder's board says which model ordered it, in the files the run writes and in
    ``arena leaderboard``, not TrueSkill's name under Plackett-Luce's numbers."""
    bots = [copy_bot(tmp_path, n) for n in ("ann", "bob")]
    path = write_ladder(tmp_path, bots, "rating: {model: openskill}\n")
    run_tournament(load_config(path), out=open(os.devnull, "w"), max_matches=4)
    rule = "ranked by mu-3σ (conservative Plackett-Luce: mu minus 3 sigma)"
    out = tmp_path / "out"
    shown = CliRunner().invoke(main, ["leaderboard", str(out)])
    assert shown.exit_code == 0, shown.output
    for text in (shown.output, (out / "ladder.txt").read_text(), (out / "ladder.md").read_text()):
        assert rule in text and "TrueSkill" not in text


def test_a_ladder_rated_on_luck_corrected_points_keeps_exactly_a_recomputation(tmp_path):
    """The kept ratings of the points model are read back with each stored match's totals, forfeits and luck:
    after every run, and when a reader rates matches stored beyond them, they equal rating every stored record."""
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")], "rating: {model: points}\n")
    config = load_config(path)
    params = RatingParams(model="points")

    def want() -> dict[str, float]:
        store = ResultStore(config.output, readonly=True)
        try:
            records = store.records()
        finally:
            store.close()
        assert records and all(len(r.luck) == len(r.bots) for r in records)  # measured, so the luck counts
        return flat({k: (r.mu, r.sigma) for k, r in rate(records, params, []).items()})

    for matches in (6, 4):
        run_tournament(config, out=open(os.devnull, "w"), max_matches=matches)
        kept = flat({k: (mu, sigma) for k, (mu, sigma, _) in kept_table(config.output).items()})
        assert kept == pytest.approx(want(), abs=1e-9)
    db = sqlite3.connect(config.output / "results.sqlite")
    with db:  # nothing kept: a reader rates every stored match from its row
        db.execute("DELETE FROM meta WHERE key = ?", (THROUGH,))
        db.execute("DELETE FROM ladder_ratings")
    fresh = read(LadderStore(db), params)
    db.close()
    assert flat({k: (r.mu, r.sigma) for k, r in fresh.ratings.items()}) == pytest.approx(want(), abs=1e-9)
    plain = read_places_only(config.output, params)
    assert plain != pytest.approx(want(), abs=1e-6)  # the totals and the luck, not places, moved the ratings


def flat(ratings: dict[str, tuple[float, float]]) -> dict[str, float]:
    return {f"{key} {name}": value for key, pair in ratings.items() for name, value in zip(("mu", "sigma"), pair)}


def read_places_only(output, params: RatingParams) -> dict[str, float]:
    """The points model fed each record's places as its scores: what a reader that dropped the totals would keep."""
    store = ResultStore(output, readonly=True)
    try:
        records = store.records()
    finally:
        store.close()
    from arena.tournament.rating import model_of

    model = model_of(params)
    ratings: dict[str, Any] = {}
    for record in sorted(records, key=lambda r: r.index):
        model.update(ratings, record.bots, record.places, tuple(float(p) for p in record.places))
    return flat({k: (r.mu, r.sigma) for k, r in ratings.items()})
