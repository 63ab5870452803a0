"""A damaged results store is refused in one line by every command, and nothing stored changes.

One small tournament is played once; each test damages its own copy of the output directory.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner, Result

from arena.cli import main
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.store import ResultStore, StoreDamaged, StoreMismatch

from .test_store import ROOT, two_bots


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The output directory of a finished two-match tournament (standard rules)."""
    base = tmp_path_factory.mktemp("played")
    config = load_config(two_bots(base))
    run_tournament(config, out=open(os.devnull, "w"))
    return config.output


def copy_of(played: Path, tmp_path: Path) -> Path:
    out = tmp_path / "results"
    shutil.copytree(played, out)
    return out


def sql(directory: Path, *statements: str) -> None:
    db = sqlite3.connect(directory / "results.sqlite")
    with db:
        for statement in statements:
            db.execute(statement)
    db.close()


def malform(directory: Path) -> None:
    """Overwrite the start of every page after the first two: the header reads, the tables do not."""
    path = directory / "results.sqlite"
    data = bytearray(path.read_bytes())
    for at in range(2 * 4096, len(data), 4096):
        data[at:at + 100] = b"\xff" * 100
    path.write_bytes(bytes(data))


def copied(index: int, to: int) -> str:
    """The statement that stores match ``index`` again at index ``to``, under a new id (its other keys)."""
    return (f"INSERT INTO matches SELECT {to}, match_id || '-copy', seed, cycle, rotation, bots, places, totals, "
            f"forfeited, reason, rounds, faults, decisions, seconds, stats, sandbox, replay, finished_at FROM matches "
            f"WHERE idx = {index}")


def directory_instead(directory: Path) -> None:
    (directory / "results.sqlite").unlink()
    (directory / "results.sqlite").mkdir()


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "meta dropped": (lambda d: sql(d, "DROP TABLE meta"), "the store is damaged (no table meta)"),
    "matches dropped": (lambda d: sql(d, "DROP TABLE matches"), "the store is damaged (no table matches)"),
    "logs dropped": (lambda d: sql(d, "DROP TABLE logs"), "the store is damaged (no table logs)"),
    "decision times dropped": (lambda d: sql(d, "DROP TABLE decision_times"),
                               "the store is damaged (no table decision_times)"),
    "meta emptied": (lambda d: sql(d, "DELETE FROM meta"), "no record of their tournament's configuration"),
    "meta not JSON": (lambda d: sql(d, "UPDATE meta SET value = '{' WHERE key = 'bots'"),
                      "meta 'bots' is not JSON"),
    "meta bots not names": (lambda d: sql(d, "UPDATE meta SET value = '5' WHERE key = 'bots'"),
                            "meta 'bots' is not a list of bot names"),
    "meta rating not parameters": (lambda d: sql(d, "UPDATE meta SET value = '{\"sigma\": \"x\"}' WHERE key = 'rating'"),
                                   "meta 'rating' is not rating parameters: rating parameter sigma must be a number "
                                   "from 0.00416667 to 41.6667 (beta/1000 to 10 beta), got 'x'"),
    "meta rating method unknown": (lambda d: sql(d, "UPDATE meta SET value = '{\"method\": \"dupe\"}' WHERE key = 'rating'"),
                                   "meta 'rating' is not rating parameters: rating parameter method must be one of "
                                   "match, deal, table, got 'dupe'"),
    "meta config not an object": (lambda d: sql(d, "UPDATE meta SET value = '3' WHERE key = 'config'"),
                                  "meta 'config' is not an object"),
    "meta ladder_left not a map": (lambda d: sql(d, "INSERT OR REPLACE INTO meta VALUES ('ladder_left', '[1, 2]')"),
                                   "meta 'ladder_left' is not a map of player keys to times"),
    "a match's bots not JSON": (lambda d: sql(d, "UPDATE matches SET bots = 'x' WHERE idx = 1"),
                                "(match 1: bots is not JSON)"),
    "a match's places short": (lambda d: sql(d, "UPDATE matches SET places = '[1]' WHERE idx = 0"),
                               "(match 0: places is not a whole number per seat)"),
    "a match's totals not JSON": (lambda d: sql(d, "UPDATE matches SET totals = '{' WHERE idx = 1"),
                                  "(match 1: totals is not JSON)"),
    "malformed pages": (malform, "the store is damaged (database disk image is malformed)"),
    "a match copied past its schedule": (lambda d: sql(d, copied(0, 2)),
                                         "the store is damaged (match 2 (c1/c-random+random/r0-copy) repeats match 0 "
                                         "(c1/c-random+random/r0): the same deal, rotation and seats stored twice)"),
    "a match copied over another": (lambda d: sql(d, "DELETE FROM matches WHERE idx = 1", copied(0, 1)),
                                    "the store is damaged (match 1 (c1/c-random+random/r0-copy) repeats match 0"),
    "a match played and voided": (lambda d: sql(d, "INSERT INTO voided SELECT idx, match_id, seed, cycle, rotation, "
                                                   "bots, 'hand', 0 FROM matches WHERE idx = 1"),
                                  "the store is damaged (match 1 (c1/c-random+random/r1) is stored both as played "
                                  "and as voided)"),
    "a match's luck NaN": (lambda d: sql(d, "UPDATE luck SET seats = '[NaN, 1.5]' WHERE idx = 1"),
                           "the store is damaged (match 1: luck is not a finite number for each of its 2 seats, "
                           "got [NaN, 1.5])"),
    "a match's luck infinite": (lambda d: sql(d, "UPDATE luck SET seats = '[1e999, 1.5]' WHERE idx = 0"),
                                "(match 0: luck is not a finite number for each of its 2 seats, got [1e999, 1.5])"),
    "a match's luck short": (lambda d: sql(d, "UPDATE luck SET seats = '[1.5]' WHERE idx = 1"),
                             "(match 1: luck is not a finite number for each of its 2 seats, got [1.5])"),
    "a match's luck long": (lambda d: sql(d, "UPDATE luck SET seats = '[1.5, 2, -3.5]' WHERE idx = 0"),
                            "(match 0: luck is not a finite number for each of its 2 seats, got [1.5, 2, -3.5])"),
    "a match stored twice": (lambda d: sql(d, "CREATE TABLE loose AS SELECT * FROM matches", "DROP TABLE matches",
                                          "ALTER TABLE loose RENAME TO matches",
                                          "INSERT INTO matches SELECT * FROM matches"),
                             "the store is damaged (table matches lost its keys: a match index or id may be stored "
                             "twice)"),
    "a directory": (directory_instead, "results.sqlite is not a file"),
}


def state(directory: Path) -> tuple[str, list[str]]:
    """What must not change: the database file's bytes (or that it is a directory) and the replays."""
    path = directory / "results.sqlite"
    digest = "directory" if path.is_dir() else hashlib.sha256(path.read_bytes()).hexdigest()
    return digest, sorted(os.listdir(directory / "replays"))


def refused(result: Result, *words: str) -> str:
    """The command failed with exactly one line (click's ``Error: ...``) holding ``words``."""
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, (result.exception, result.output)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: "), result.output
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def other_config(tmp_path: Path, output: Path, preset: str = "espanola") -> Path:
    """A tournament file writing into ``output``: with other rules, or (standard) the one that was played."""
    path = tmp_path / f"{preset}.yaml"
    path.write_text(f"name: other\nrules: {preset}\nseats: 2\nseed: 3\nsandbox: none\nworkers: 1\n"
                    f"output: {output}\nbots:\n  - {ROOT / 'bots' / 'random'}\n  - {ROOT / 'bots' / 'c-random'}\n")
    return path


@pytest.mark.parametrize("damage", sorted(DAMAGES))
def test_every_command_refuses_a_damaged_store_in_one_line_and_changes_nothing(played, tmp_path, damage):
    out = copy_of(played, tmp_path)
    make, words = DAMAGES[damage]
    make(out)
    before = state(out)
    runner = CliRunner()
    for args in (["leaderboard", str(out)], ["report", str(out)], ["bot", "log", str(out), "random"],
                 ["run", str(other_config(tmp_path, out)), "--no-report"],
                 ["run", str(other_config(tmp_path, out, "standard")), "--no-report"]):
        line = refused(runner.invoke(main, args), words)
        assert "Traceback" not in line and str(out) in line
        assert state(out) == before, args
    assert not (out / "report").exists()


def test_serve_refuses_a_damaged_store_before_it_listens(played, tmp_path):
    out = copy_of(played, tmp_path)
    sql(out, "DROP TABLE matches")
    proc = subprocess.run([sys.executable, "-m", "arena.cli", "serve", str(out), "--port", "0"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"Error: {out}/results.sqlite: the store is damaged (no table matches); it was not changed. "
        "Restore it from a backup, or use another output directory"]


def rows(directory: Path) -> list[tuple]:
    db = sqlite3.connect(directory / "results.sqlite")
    try:
        return db.execute("SELECT * FROM matches ORDER BY idx").fetchall()
    finally:
        db.close()


def test_a_store_that_lost_its_meta_is_never_bound_to_another_tournament(played, tmp_path):
    """Without meta, a run of other rules once took the stored matches as its own and relabelled them."""
    out = copy_of(played, tmp_path)
    stored = rows(out)
    assert len(stored) == 2
    for damage in ("DROP TABLE meta", "DELETE FROM meta", "DELETE FROM meta WHERE key = 'fingerprint'"):
        shutil.rmtree(out)
        shutil.copytree(played, out)
        sql(out, damage)
        result = CliRunner().invoke(main, ["run", str(other_config(tmp_path, out)), "--no-report"])
        refused(result, str(out / "results.sqlite"), "damaged", "it was not changed")
        assert "already stored" not in result.output
        assert rows(out) == stored, damage  # not relabelled, not replaced
        assert sorted(os.listdir(out / "replays")) == ["000000.jsonl.gz", "000001.jsonl.gz"]


def test_a_store_with_another_fingerprint_is_refused_and_kept(played, tmp_path):
    out = copy_of(played, tmp_path)
    stored = rows(out)
    sql(out, "UPDATE meta SET value = '\"0000\"' WHERE key = 'fingerprint'")
    result = CliRunner().invoke(main, ["run", str(other_config(tmp_path, out, "standard")), "--no-report"])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert "holds results of a different tournament configuration" in result.output
    assert rows(out) == stored


def test_a_new_directory_and_a_ladder_entered_before_its_first_run_are_not_damaged(tmp_path):
    store = ResultStore(tmp_path / "new")
    try:
        assert store.claim("f", {}, 1)
        store._db.execute("INSERT INTO ladder_bots VALUES ('a', 1, 'd', 'p', 's', 0, 'active')")
    finally:
        store.close()
    sql(tmp_path / "new", "DELETE FROM meta")  # as after `arena submit` to a ladder never run
    store = ResultStore(tmp_path / "new")
    try:
        assert store.claim("g", {}, None)
    finally:
        store.close()


def test_damage_found_while_reading_rows_is_a_store_error_naming_the_file(played, tmp_path):
    out = copy_of(played, tmp_path)
    malform(out)
    with pytest.raises(StoreDamaged, match=f"{out}/results.sqlite: the store is damaged") as caught:
        store = ResultStore(out, readonly=True)
        try:
            store.records()
        finally:
            store.close()
    assert isinstance(caught.value, StoreMismatch)  # so every caller that reports a mismatch reports it


@pytest.mark.parametrize("output", ["/dev/null", "a-file"])
def test_an_output_that_is_not_a_directory_is_refused_in_one_line(tmp_path, output):
    if output == "a-file":
        output = str(tmp_path / "a-file")
        Path(output).write_text("mine\n")
    result = CliRunner().invoke(main, ["run", str(other_config(tmp_path, Path(output))), "--no-report"])
    refused(result, f"{output} is not a directory; a tournament's output must be a directory")
    if output != "/dev/null":
        assert Path(output).read_text() == "mine\n"


@pytest.mark.parametrize("key, value, why", [
    ("ladder_left", "[1, 2]", "is not a map of player keys to times"),
    ("ladder_left", '{"ann@v1": "soon"}', "is not a map of player keys to times"),
    ("ladder_reclaimed", '"x"', "is not a map of player keys to removed snapshots"),
    ("ladder_reclaimed", '{"ann@v1": {"bytes": 1}}', "is not a map of player keys to removed snapshots")])
def test_a_ladders_damaged_marks_are_refused_by_retire_and_prune_in_one_line(played_ladder, tmp_path, key, value,
                                                                            why):
    out = tmp_path / "out"
    shutil.copytree(played_ladder.parent / "out", out)
    path = tmp_path / "ladder.yaml"
    path.write_text(played_ladder.read_text().replace(str(played_ladder.parent / "out"), str(out)))
    sql(out, f"INSERT OR REPLACE INTO meta VALUES ('{key}', '{value}')")
    before = state(out)
    for args in (["retire", str(path), "bob"], ["prune", str(path)], ["leaderboard", str(out)]):
        line = refused(CliRunner().invoke(main, args), f"meta {key!r} {why}")
        assert str(out) in line
        assert state(out) == before, args
