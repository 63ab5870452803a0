"""The results database: voided matches, and files written by older (or newer) arenas."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.luck import model_label, shipped_model
from arena.tournament.store import schema
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament, schedule_of
from arena.tournament.records import VoidRecord
from arena.tournament.store import ResultStore, StoreMismatch

ROOT = Path(__file__).resolve().parents[2]


def two_bots(tmp_path: Path, name: str = "store") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nseats: 2\nseed: 3\nsandbox: none\nworkers: 1\noutput: {tmp_path / name}\n"
                    f"bots:\n  - {ROOT / 'bots' / 'random'}\n  - {ROOT / 'bots' / 'c-random'}\n")
    return path


def test_an_old_store_opens_read_only_then_migrates_and_resumes(tmp_path):
    path = two_bots(tmp_path)
    config = load_config(path)
    run_tournament(config, out=open(os.devnull, "w"))
    db = sqlite3.connect(config.output / "results.sqlite")
    with db:  # back to the first arena's layout, with one match still to play
        db.execute("DROP TABLE voided")
        db.execute("DROP TABLE logs")
        db.execute("DROP TABLE ladder_bots")
        db.execute("DROP TABLE ladder_ratings")
        db.execute("DROP TABLE decision_times")
        db.execute("DROP TABLE frames")
        db.execute("DROP TABLE luck")
        db.execute("DROP TABLE ladder_pairs")
        db.execute("DROP TABLE ladder_luck")
        db.execute("DELETE FROM matches WHERE idx = 1")
    db.execute("PRAGMA user_version = 0")
    db.close()

    board = CliRunner().invoke(main, ["leaderboard", str(config.output)])
    assert board.exit_code == 0 and "1 of 2 matches finished" in board.output and "voided" not in board.output

    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert (summary.skipped, summary.played) == (1, 1)
    db = sqlite3.connect(config.output / "results.sqlite")
    try:
        assert schema.version(db) == schema.VERSION == 9 and schema.has_table(db, "voided")
        assert db.execute("SELECT COUNT(*) FROM matches").fetchone() == (2,)
    finally:
        db.close()
    store = ResultStore(config.output, readonly=True)
    try:  # the match played before times were kept has none; the one played now has one per decision
        assert store.decision_times(0) is None
        decisions = store._db.execute("SELECT decisions FROM matches WHERE idx = 1").fetchone()[0]
        assert len(store.decision_times(1) or ()) == decisions > 0
        luck = store.luck()  # likewise the luck: measured for the match played now only
        assert set(luck) == {1} and len(luck[1]) == 2
        assert [r.luck for r in store.records()] == [(), luck[1]]
    finally:
        store.close()


def test_each_decisions_time_is_stored_with_its_match(tmp_path):
    config = load_config(two_bots(tmp_path))
    run_tournament(config, out=open(os.devnull, "w"))
    store = ResultStore(config.output, readonly=True)
    try:
        for row in store.rows():
            times = store.decision_times(row["idx"])
            assert times is not None and len(times) == row["decisions"] and None not in times
            # two clean bots: every decision is timed, and the times add up to the seats' thinking time
            assert abs(sum(times) - sum(s["think_ms"] for s in row["stats"])) <= 0.05 * len(times) + 1e-3
        sql = sqlite3.connect(config.output / "results.sqlite")
        with sql:
            sql.execute("UPDATE decision_times SET ms = '{' WHERE idx = 0")
        sql.close()
        assert store.decision_times(0) is None  # what is not a list of times shows no times, quietly
    finally:
        store.close()


def test_each_seats_luck_is_stored_with_its_match_and_shows_on_the_board(tmp_path):
    """The worker's luck per seat and the value function that measured it, in the match's transaction; the
    records and the leaderboard read it back; a damaged row is one line naming the store and the match."""
    config = load_config(two_bots(tmp_path))
    run_tournament(config, out=open(os.devnull, "w"))
    store = ResultStore(config.output, readonly=True)
    try:
        luck = store.luck()
        assert sorted(luck) == [row["idx"] for row in store.rows()] and all(len(v) == 2 for v in luck.values())
        assert store.luck_models() == [model_label(shipped_model())]
        assert [r.luck for r in store.records()] == [luck[i] for i in sorted(luck)]
    finally:
        store.close()
    data = json.loads((config.output / "leaderboard.json").read_text())
    store = ResultStore(config.output, readonly=True)
    try:
        per_bot: dict[str, list[float]] = {}
        for record in store.records():
            for bot, value in zip(record.bots, record.luck):
                per_bot.setdefault(bot, []).append(value)
    finally:
        store.close()
    assert {r["bot"]: r["luck"] for r in data["standings"]} == \
        {bot: round(sum(v) / len(v), 3) for bot, v in per_bot.items()}
    sql = sqlite3.connect(config.output / "results.sqlite")
    with sql:
        sql.execute("UPDATE luck SET seats = '[1, \"x\"]' WHERE idx = 0")
    sql.close()
    board = CliRunner().invoke(main, ["leaderboard", str(config.output)])
    assert board.exit_code != 0 and "(match 0: luck is not a finite number for each of its 2 seats" in board.output
    assert "Traceback" not in board.output and len(board.output.strip().splitlines()) == 1


def test_a_run_with_a_report_stores_each_matchs_frames_as_the_report_would_make_them(tmp_path):
    from arena.game import framepack
    from arena.site.frames import frames_for_file

    config = load_config(two_bots(tmp_path))
    run_tournament(config, out=open(os.devnull, "w"), frames=True)
    store = ResultStore(config.output, readonly=True)
    try:
        rows = list(store.rows())
        packed = store.packed_frames([row["idx"] for row in rows])
        assert sorted(packed) == [row["idx"] for row in rows] and rows
        for row in rows:
            expected = frames_for_file(config.output / row["replay"], store.decision_times(row["idx"]))
            frames_format, packing, data = packed[row["idx"]]
            assert (frames_format, packing) == (expected["format"], framepack.packing())
            assert framepack.unpack(data) == framepack.frames_line(expected)
    finally:
        store.close()
    plain = load_config(two_bots(tmp_path, "plain"))
    run_tournament(plain, out=open(os.devnull, "w"))  # no report: no frames made
    store = ResultStore(plain.output, readonly=True)
    try:
        assert store.count() > 0 and store.packed_frames(range(store.count())) == {}
    finally:
        store.close()


def test_a_voided_match_is_done_never_rated_and_never_also_played(tmp_path):
    config = load_config(two_bots(tmp_path))
    first, second = schedule_of(config)
    store = ResultStore(config.output)
    try:
        store.claim(config.fingerprint(), config.describe(), 2)  # as the driver does before it voids
        store.void(first, "killed its worker process twice, SIGKILL each time")
        assert store.done() == {0}
        assert store.voided() == [VoidRecord(0, first.match_id, first.bots,
                                             "killed its worker process twice, SIGKILL each time")]
        assert store.records() == []
        with pytest.raises(ValueError, match="voided"):
            store.void(first, "again")
    finally:
        store.close()
    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert (summary.skipped, summary.played) == (1, 1)  # the voided one is not played
    assert summary.leaderboard.matches == 1 and [v.index for v in summary.leaderboard.voided] == [0]
    store = ResultStore(config.output)
    try:
        with pytest.raises(ValueError, match="stored as played"):
            store.void(second, "too late")
        db = store._db
        assert db.execute("SELECT idx, match_id, seed, cycle, rotation, bots FROM voided").fetchall() == [
            (0, first.match_id, first.seed, 1, 0, f'["{first.bots[0]}", "{first.bots[1]}"]')]
    finally:
        store.close()


def test_a_newer_or_foreign_file_is_refused_in_one_line(tmp_path):
    path = two_bots(tmp_path)
    config = load_config(path)
    config.output.mkdir()
    db = sqlite3.connect(config.output / "results.sqlite")
    db.execute("PRAGMA user_version = 99")
    db.close()
    for command in (["run", str(path)], ["leaderboard", str(config.output)]):
        result = CliRunner().invoke(main, command)
        assert result.exit_code == 1 and "written by a newer arena (layout 99" in result.output, result.output
        assert "Traceback" not in result.output
    (config.output / "results.sqlite").write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreMismatch, match="not a results database"):
        ResultStore(config.output)


def test_an_output_directory_that_is_not_a_tournaments_is_refused_and_nothing_is_written(tmp_path):
    """``output: /`` once wrote results.sqlite, replays/ and the leaderboards into the root directory."""
    from arena.tournament.store import StoreMismatch

    foreign = tmp_path / "thesis"
    foreign.mkdir()
    (foreign / "chapter1.tex").write_text("...")
    path = tmp_path / "f.yaml"
    path.write_text(two_bots(tmp_path).read_text().replace(f"output: {tmp_path / 'store'}", f"output: {foreign}"))
    config = load_config(path)
    with pytest.raises(StoreMismatch, match="not a tournament's output directory .it holds chapter1.tex, and no "
                                            "results.sqlite.*nothing was written"):
        run_tournament(config, out=open(os.devnull, "w"))
    assert sorted(p.name for p in foreign.iterdir()) == ["chapter1.tex"]
    result = CliRunner().invoke(main, ["run", str(path), "--no-report"])
    assert result.exit_code == 1 and result.output.strip().splitlines()[-1].startswith(f"Error: {foreign}: not a")
    empty = tmp_path / "empty"
    (empty / "replays").mkdir(parents=True)  # what a run cut short before its store was made leaves
    path.write_text(path.read_text().replace(f"output: {foreign}", f"output: {empty}"))
    first = run_tournament(load_config(path), out=open(os.devnull, "w"))
    again = run_tournament(load_config(path), out=open(os.devnull, "w"))  # its own output: resumed
    assert first.played == 2 and (again.skipped, again.played) == (2, 0)
