"""``arena prune``: the snapshots of versions out of the field go, their history stays, a run is never hurt."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.tournament.ladder.entries import LEFT_AT
from arena.tournament.ladder.lock import run_lock, started
from arena.tournament.ladder.prune import RECLAIMED, TRASH, _mark
from arena.tournament.store.ladder import LadderStore
from tests.tournament.test_ladder import copy_bot, field, run, submit, write_ladder


def arena(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout if result.exit_code == 0 else result.output  # an answer, or its refusal


def paths(output: Path) -> dict[str, Path]:
    """Player key -> the snapshot folder of that version."""
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return {f"{n}@v{v}": Path(p).parent for n, v, p in db.execute("SELECT name, version, path FROM ladder_bots")}
    finally:
        db.close()


def new_version(bot: Path, path: Path, tag: str) -> None:
    with open(bot / "bot.py", "a") as f:
        f.write(f"# {tag}\n")
    assert submit(path, bot)[0] == 0


def set_meta(output: Path, key: str, value: object) -> None:
    db = sqlite3.connect(output / "results.sqlite")
    with db:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
    db.close()


def test_prune_removes_replaced_and_retired_versions_and_keeps_their_history(tmp_path: Path) -> None:
    ann, bob, cid = (copy_bot(tmp_path, n) for n in ("ann", "bob", "cid"))
    path = write_ladder(tmp_path, [ann, bob, cid])
    out = tmp_path / "out"
    run(path, 3)
    new_version(ann, path, "v2")
    assert arena("retire", str(path), "cid")[0] == 0
    before = paths(out)
    code, output = arena("prune", str(path))
    assert code == 0, output
    lines = output.splitlines()
    assert {line.split(":")[0] for line in lines[:2]} == {"removed the files of ann@v1", "removed the files of cid@v1"}
    assert lines[2].startswith("freed ") and "(2 versions); their entries, matches, ratings, replays and logs stay" \
        in lines[2]
    assert not before["ann@v1"].exists() and not before["cid@v1"].exists()
    assert before["ann@v2"].is_dir() and before["bob@v1"].is_dir()
    assert field(out) == [("ann", 1, "replaced"), ("ann", 2, "active"), ("bob", 1, "active"), ("cid", 1, "retired")]
    # the history of the removed versions is all there
    code, board = arena("leaderboard", str(out), "--all")
    assert code == 0 and "ann       v1" in board and "replaced" in board and "retired" in board
    code, log = arena("bot", "log", str(out), "ann@v1")
    assert code == 0 and "seat" in log
    assert arena("report", str(out))[0] == 0
    # idempotent, and the ladder plays on
    assert arena("prune", str(path)) == (0, "ladder lad: nothing removed: no version out of the field still has "
                                            "files\n")
    run(path, 2)


def test_kept_versions_still_play_and_are_never_removed(tmp_path: Path) -> None:
    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob], "keep_versions: true\n")
    run(path, 1)
    new_version(ann, path, "v2")
    assert arena("prune", str(path))[1].startswith("ladder lad: nothing removed")
    assert all(folder.is_dir() for folder in paths(tmp_path / "out").values())


def test_while_a_run_goes_a_version_that_left_after_it_started_is_kept(tmp_path: Path) -> None:
    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob])
    out = tmp_path / "out"
    run(path, 1)
    assert started(out) is None  # the run is over: its lock is free
    with run_lock(out):  # a run going now, started after the ladder's first versions were entered
        assert started(out) is not None
        new_version(ann, path, "v2")  # replaces ann@v1 while the run may have its tables queued
        code, output = arena("prune", str(path))
        assert code == 0
        assert output.startswith("kept the files of ann@v1: replaced while the arena run going since ")
        assert "prune again after that run stops" in output and paths(out)["ann@v1"].is_dir()
        set_meta(out, LEFT_AT, {"ann@v1": time.time() - 3600})  # had it left an hour before the run started...
        code, output = arena("prune", str(path))
        assert output.startswith("removed the files of ann@v1")  # ...no table of this run could hold it
    assert not paths(out)["ann@v1"].exists()


def test_a_killed_prune_is_finished_by_the_next_one_and_breaks_nothing_in_between(tmp_path: Path) -> None:
    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob])
    out = tmp_path / "out"
    run(path, 2)
    new_version(ann, path, "v2")
    new_version(ann, path, "v3")
    folders = paths(out)
    db = sqlite3.connect(out / "results.sqlite")
    _mark(LadderStore(db), "ann@v1", 1)  # killed after marking v1, before removing anything
    _mark(LadderStore(db), "ann@v2", 1)  # and after renaming v2 and removing part of it
    db.close()
    trash = folders["ann@v2"].with_name(TRASH + folders["ann@v2"].name)
    os.rename(folders["ann@v2"], trash)
    os.remove(trash / "bot" / "bot.py")
    run(path, 2)  # the ladder plays on meanwhile
    assert arena("leaderboard", str(out), "--all")[0] == 0
    code, output = arena("prune", str(path))
    assert code == 0 and output.startswith("removed the files of ann@v1")
    assert not folders["ann@v1"].exists() and not trash.exists() and folders["ann@v3"].is_dir()
    db = sqlite3.connect(out / "results.sqlite")
    marks = json.loads(db.execute("SELECT value FROM meta WHERE key = ?", (RECLAIMED,)).fetchone()[0])
    db.close()
    assert set(marks) == {"ann@v1", "ann@v2"}
    assert os.listdir(out / "bots" / "ann") == [folders["ann@v3"].name]


def test_prune_is_for_ladders_with_entries(tmp_path: Path) -> None:
    path = write_ladder(tmp_path, [])
    code, output = arena("prune", str(path))
    assert code == 1 and output == f"Error: ladder lad: nothing entered yet ({tmp_path / 'out'} has no " \
                                   "results.sqlite)\n"


def test_the_files_a_retired_bot_came_back_with_are_never_removed(tmp_path: Path) -> None:
    ann, bob, cid = (copy_bot(tmp_path, n) for n in ("ann", "bob", "cid"))
    path = write_ladder(tmp_path, [ann, bob, cid])
    out = tmp_path / "out"
    run(path, 3)
    assert arena("retire", str(path), "cid")[0] == 0
    assert submit(path, cid)[0] == 0  # cid@v2: the files, so the snapshot folder, of cid@v1
    assert paths(out)["cid@v2"] == paths(out)["cid@v1"]
    code, output = arena("prune", str(path))
    assert code == 0, output
    assert output.splitlines() == ["kept the files of cid@v1: its files are those of cid@v2, which plays",
                                   "ladder lad: nothing removed"]
    assert paths(out)["cid@v2"].is_dir()
    run(path, 3)  # cid@v2 still starts


def test_files_removed_before_a_comeback_are_written_again_and_kept(tmp_path: Path) -> None:
    ann, bob, cid = (copy_bot(tmp_path, n) for n in ("ann", "bob", "cid"))
    path = write_ladder(tmp_path, [ann, bob, cid])
    out = tmp_path / "out"
    run(path, 3)
    assert arena("retire", str(path), "cid")[0] == 0
    assert arena("prune", str(path))[1].startswith("removed the files of cid@v1")
    assert not paths(out)["cid@v1"].exists()
    assert submit(path, cid)[0] == 0
    assert paths(out)["cid@v2"].is_dir()
    assert arena("prune", str(path)) == (0, "ladder lad: nothing removed: no version out of the field still has "
                                            "files\n")
    assert paths(out)["cid@v2"].is_dir()
    run(path, 3)
