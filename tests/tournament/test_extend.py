"""Extending a stored tournament: raised cycles (or sampled tables) keep the stored matches and add the rest."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.botfiles import BotsChanged
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.store import StoreMismatch

ROOT = Path(__file__).resolve().parents[2]
QUIET = open(os.devnull, "w")


def write(tmp_path: Path, name: str, output: str, extra: str = "", bots: tuple[str, ...] = (
        "random", "c-random", "heuristic"), folder: Path | None = None) -> Path:
    path = tmp_path / f"{name}.yaml"
    where = folder or ROOT / "bots"
    path.write_text(f"name: {name}\nseed: 11\nsandbox: none\nworkers: 2\noutput: {tmp_path / output}\n{extra}"
                    "bots:\n" + "".join(f"  - {where / b}\n" for b in bots))
    return path


def rows(output: Path) -> list[tuple]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return db.execute("SELECT idx, match_id, seed, cycle, rotation, bots, places, totals, rounds, faults "
                          "FROM matches ORDER BY idx").fetchall()
    finally:
        db.close()


def meta(output: Path) -> dict:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return {key: json.loads(value) for key, value in db.execute("SELECT key, value FROM meta")}
    finally:
        db.close()


def standings(output: Path) -> list[dict]:
    """The leaderboard without its timing columns, which measure a run rather than its results."""
    board = json.loads((output / "leaderboard.json").read_text())
    return [{k: v for k, v in s.items() if k not in ("mean_ms", "max_ms", "startup_ms")} for s in board["standings"]]


def test_raising_cycles_keeps_the_stored_matches_and_plays_those_of_a_fresh_longer_run(tmp_path):
    path = write(tmp_path, "grow", "grow", "seats: [2, 3]\ncycles: 1\n")
    run_tournament(load_config(path), out=QUIET)
    first = rows(tmp_path / "grow")
    assert len(first) == 9 and meta(tmp_path / "grow")["total"] == 9

    path.write_text(path.read_text().replace("cycles: 1", "cycles: 2"))
    said: list[str] = []
    summary = run_tournament(load_config(path), out=QUIET, say=said.append)
    assert (summary.total, summary.skipped, summary.played) == (18, 9, 9)
    assert any("extended (cycles 1 -> 2; 9 -> 18 matches)" in line for line in said), said
    extended = rows(tmp_path / "grow")
    assert extended[:9] == first

    fresh = write(tmp_path, "fresh", "fresh", "seats: [2, 3]\ncycles: 2\n")
    config = load_config(fresh)
    run_tournament(config, out=QUIET)
    assert rows(tmp_path / "fresh") == extended  # ids, deal seeds, seatings and results
    assert standings(tmp_path / "fresh") == standings(tmp_path / "grow")
    stored = meta(tmp_path / "grow")
    assert (stored["fingerprint"], stored["config"], stored["total"]) == (config.fingerprint(), config.describe(), 18)


def test_lowering_cycles_is_refused_in_one_line_and_changes_nothing(tmp_path):
    path = write(tmp_path, "low", "low", "seats: 2\ncycles: 2\n")
    run_tournament(load_config(path), out=QUIET)
    before, kept = meta(tmp_path / "low"), rows(tmp_path / "low")
    path.write_text(path.read_text().replace("cycles: 2", "cycles: 1"))
    with pytest.raises(StoreMismatch) as refused:
        run_tournament(load_config(path), out=QUIET)
    assert str(refused.value) == ("cycles: stored 2, now 1: a tournament can be extended, not shortened (its stored "
                                  "matches and published results belong to cycles: 2); give cycles: 2 or more, or "
                                  "choose another output directory")
    assert meta(tmp_path / "low") == before and rows(tmp_path / "low") == kept
    result = CliRunner().invoke(main, ["run", str(path), "--no-report"])
    assert result.exit_code == 1 and "not shortened" in result.output and "Traceback" not in result.output


def test_cycles_raised_with_another_setting_is_refused_listing_both(tmp_path):
    path = write(tmp_path, "both", "both", "seats: 2\ncycles: 1\n")
    run_tournament(load_config(path), out=QUIET)
    path.write_text(path.read_text().replace("cycles: 1", "cycles: 2").replace("seed: 11", "seed: 12"))
    with pytest.raises(StoreMismatch) as refused:
        run_tournament(load_config(path), out=QUIET)
    text = str(refused.value)
    assert "different tournament configuration" in text and "cycles: stored 1, now 2" in text and "seed" in text


def test_a_store_from_before_extending_existed_resumes_and_extends(tmp_path):
    path = write(tmp_path, "old", "old", "seats: 2\ncycles: 1\n")
    run_tournament(load_config(path), out=QUIET)
    db = sqlite3.connect(tmp_path / "old" / "results.sqlite")
    with db:  # the first arena's layout, fingerprinted with cycles, one match still to play
        for table in ("voided", "logs", "ladder_bots", "ladder_ratings", "decision_times", "frames", "luck",
                      "ladder_pairs", "ladder_luck"):
            db.execute(f"DROP TABLE {table}")
        db.execute("DELETE FROM matches WHERE idx = 1")
    db.execute("PRAGMA user_version = 0")
    db.close()
    path.write_text(path.read_text().replace("cycles: 1", "cycles: 3"))
    summary = run_tournament(load_config(path), out=QUIET)
    assert (summary.total, summary.skipped, summary.played) == (18, 5, 13)
    fresh = write(tmp_path, "fresh", "fresh", "seats: 2\ncycles: 3\n")
    run_tournament(load_config(fresh), out=QUIET)
    assert rows(tmp_path / "old") == rows(tmp_path / "fresh")
    board = CliRunner().invoke(main, ["leaderboard", str(tmp_path / "old")])
    assert board.exit_code == 0 and "18 of 18 matches finished" in board.output


def test_raising_sampled_tables_extends_when_the_longer_draw_begins_with_the_stored_tables(tmp_path):
    four = ("random", "c-random", "heuristic", "js-greedy")
    path = write(tmp_path, "sample", "sample", "seats: 2\nschedule: sampled\ntables: 3\n", four)
    run_tournament(load_config(path), out=QUIET)
    first = rows(tmp_path / "sample")
    path.write_text(path.read_text().replace("tables: 3", "tables: 5"))
    summary = run_tournament(load_config(path), out=QUIET)
    assert (summary.total, summary.skipped, summary.played) == (10, 6, 4)
    assert rows(tmp_path / "sample")[:6] == first
    fresh = write(tmp_path, "fresh", "fresh", "seats: 2\nschedule: sampled\ntables: 5\n", four)
    run_tournament(load_config(fresh), out=QUIET)
    assert rows(tmp_path / "fresh") == rows(tmp_path / "sample")

    path.write_text(path.read_text().replace("tables: 5", "tables: 4"))
    with pytest.raises(StoreMismatch, match=r"^tables: stored 5, now 4: a tournament can be extended, not shortened"):
        run_tournament(load_config(path), out=QUIET)


def test_raising_sampled_tables_is_refused_when_the_longer_draw_redraws_stored_tables(tmp_path):
    four = ("random", "c-random", "heuristic", "js-greedy")
    path = write(tmp_path, "redraw", "redraw", "seats: [2, 3]\nschedule: sampled\ntables: 4\n", four)
    run_tournament(load_config(path), out=QUIET)  # 2 pairs, 2 tables of three; 5 tables make 3 pairs
    before, kept = meta(tmp_path / "redraw"), rows(tmp_path / "redraw")
    path.write_text(path.read_text().replace("tables: 4", "tables: 5"))
    with pytest.raises(StoreMismatch) as refused:
        run_tournament(load_config(path), out=QUIET)
    assert str(refused.value) == (
        "tables: 4 -> 5: the longer schedule does not begin with the stored matches (match 4 is "
        "c1/t3/heuristic+js-greedy/r0 in it, stored as c1/t3/c-random+heuristic+js-greedy/r0), so they would not "
        "be its results; keep tables: 4 (raise cycles to play more), or choose another output directory")
    assert meta(tmp_path / "redraw") == before and rows(tmp_path / "redraw") == kept


def test_raising_sampled_tables_is_refused_when_later_cycles_would_move(tmp_path):
    four = ("random", "c-random", "heuristic", "js-greedy")
    path = write(tmp_path, "cycled", "cycled", "seats: 2\nschedule: sampled\ntables: 3\ncycles: 2\n", four)
    run_tournament(load_config(path), out=QUIET)
    path.write_text(path.read_text().replace("tables: 3", "tables: 5"))
    with pytest.raises(StoreMismatch, match=r"^tables: 3 -> 5: the longer schedule does not begin with the stored "
                                            r"matches \(match 6 is c1/t4/"):
        run_tournament(load_config(path), out=QUIET)


def test_an_extension_refused_by_the_bots_check_leaves_the_store_bound_to_the_shorter_tournament(tmp_path):
    folder = tmp_path / "bots"
    for bot in ("random", "c-random"):
        shutil.copytree(ROOT / "bots" / bot, folder / bot)
    path = write(tmp_path, "edited", "edited", "seats: 2\ncycles: 1\n", ("random", "c-random"), folder)
    run_tournament(load_config(path), out=QUIET)
    before = meta(tmp_path / "edited")["fingerprint"]
    (folder / "random" / "notes.txt").write_text("new\n")
    path.write_text(path.read_text().replace("cycles: 1", "cycles: 2"))
    with pytest.raises(BotsChanged):
        run_tournament(load_config(path), out=QUIET)
    assert meta(tmp_path / "edited")["fingerprint"] == before
    path.write_text(path.read_text().replace("cycles: 2", "cycles: 1"))
    assert run_tournament(load_config(path), out=QUIET, accept_bot_changes=True).played == 0
