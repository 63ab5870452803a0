"""A rebuild as ``arena serve`` makes it (ratings, rows and what was made of them kept, unchanged files linked
from the report it replaces) writes the very bytes a first build of the same results writes: after matches
arrive in and out of schedule order, after a withheld deal becomes whole, and after a void."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from arena.site import chunks, data
from arena.site.build import build_report
from arena.site.data import RatingHistory, RowCache

from .played import play
from .synthetic import put_back, synthetic_store


def tree(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


def same_as_cold(results: Path, rebuilt: Path, cold: Path) -> None:
    """The report ``rebuilt`` holds exactly what a first build of ``results`` into ``cold`` writes."""
    build_report(results, cold)
    made, expected = tree(rebuilt), tree(cold)
    assert sorted(made) == sorted(expected)
    assert [name for name in expected if made[name] != expected[name]] == []


def take_out(results: Path, indices: list[int]) -> dict[int, tuple[Any, ...]]:
    """Delete these matches from the store (as if not played yet); returns their rows."""
    db = sqlite3.connect(results / "results.sqlite")
    try:
        rows = {i: tuple(db.execute("SELECT * FROM matches WHERE idx = ?", (i,)).fetchone()) for i in indices}
        with db:
            db.executemany("DELETE FROM matches WHERE idx = ?", [(i,) for i in indices])
        return rows
    finally:
        db.close()


def void(results: Path, row: tuple[Any, ...]) -> None:
    """Store the match of ``row`` as voided instead (a tournament never plays it again: its deal is settled)."""
    idx, match_id, seed, cycle, rotation, bots = row[:6]
    db = sqlite3.connect(results / "results.sqlite")
    try:
        with db:
            db.execute("INSERT INTO voided VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                       (idx, match_id, seed, cycle, rotation, bots, "killed its worker twice", 1_800_000_000.0))
    finally:
        db.close()


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> Path:
    return play(tmp_path_factory.mktemp("rebuild"), "standard")


def test_rebuilds_write_what_a_first_build_writes(played, tmp_path, monkeypatch):
    monkeypatch.setattr(chunks, "CHUNK", 8)  # several chunks of the match list, most of them unchanged
    monkeypatch.setattr(data, "CHECKPOINT", 2)  # a match out of order goes back past the checkpoints ...
    monkeypatch.setattr(data, "TALLIES", 1)  # ... that keep the board's counts: they are counted again
    results = tmp_path / "results"
    shutil.copytree(played, results)
    db = sqlite3.connect(results / "results.sqlite")
    last = [idx for idx, in db.execute("SELECT idx FROM matches ORDER BY idx DESC LIMIT 6")]
    db.close()
    held = take_out(results, last)  # their deals (and others') are withheld until they come back
    kept, rows = RatingHistory(), RowCache()
    out = build_report(results, ratings=kept, rows=rows)
    same_as_cold(results, out, tmp_path / "cold0")
    order = sorted(held)
    steps = [("put", order[4]), ("put", order[0]), ("void", order[2]), ("put", order[5]), ("put", order[1]),
             ("put", order[3])]  # out of schedule order, as workers finish
    for step, (what, idx) in enumerate(steps, 1):
        (put_back if what == "put" else void)(results, held[idx])
        build_report(results, ratings=kept, rows=rows)
        same_as_cold(results, out, tmp_path / f"cold{step}")
    assert "withheld" not in (out / "index.html").read_text()  # every deal whole at the end

def inodes(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): p.stat().st_ino for p in [*(out / "data").glob("matches-*.js"),
                                                                *(out / "bots").iterdir()]}


def test_a_rebuild_links_the_files_that_did_not_change(tmp_path, monkeypatch):
    monkeypatch.setattr(chunks, "CHUNK", 16)
    results = tmp_path / "results"
    bots = ["alpha", "beta", "gamma", "delta", "eps", "zeta"]
    synthetic_store(results, 100, bots, seats=(2,), faulty=["delta"])
    held = take_out(results, [99, 98])  # one table of two
    kept, rows = RatingHistory(), RowCache()
    out = build_report(results, ratings=kept, rows=rows)
    first = inodes(out)
    for idx in sorted(held):
        put_back(results, held[idx])
    build_report(results, ratings=kept, rows=rows)
    second = inodes(out)
    assert sorted(n for n in second if n.startswith("data/")) == [f"data/matches-{k}.js" for k in range(7)]
    played = json.loads(held[99][5])
    changed = sorted(name for name in second if first.get(name) != second[name])
    assert [name for name in changed if name.startswith("data/")] == ["data/matches-6.js"]  # 96 to 99
    pages = [name for name in changed if name.startswith("bots/")]
    assert {f"bots/{bot}.html" for bot in played} <= set(pages)  # written again: they played
    assert len(pages) < len(bots)  # a bot that did not play, and whose rank did not move, is linked
    same_as_cold(results, out, tmp_path / "cold")
