"""LadderStore's named reads and writes return and change what the statements they replaced did (the
ladder's entries, retire, kept ratings and prune marks go through them), on a store a real ladder wrote."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from arena.tournament.store import LadderStore, ResultStore
from arena.tournament.store.ladder import (ACTIVE, FIELD_VERSION, LEFT_AT, RECLAIMED, REPLACED, RETIRED, THROUGH,
                                           Entry, KeptRating)


def meta(db: sqlite3.Connection, key: str) -> object:
    row = db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else json.loads(row[0])


@pytest.fixture
def output(played_ladder: Path, tmp_path: Path) -> Path:
    """A copy of the ladder's results, for a test to change."""
    target = tmp_path / "out"
    shutil.copytree(played_ladder.parent / "out", target)
    return target


def test_entries_and_when_versions_left(output: Path) -> None:
    db = sqlite3.connect(output / "results.sqlite")
    store = LadderStore.open(output)
    try:
        entries = store.entries()
        assert entries == [Entry(*row) for row in db.execute(
            "SELECT name, version, digest, path, source, submitted_at, status FROM ladder_bots ORDER BY name, version")]
        assert [(e.key, e.status) for e in entries] == [("ann@v1", REPLACED), ("ann@v2", ACTIVE), ("bob@v1", ACTIVE),
                                                       ("carl@v1", RETIRED), ("dan@v1", ACTIVE)]
        assert store.left_at() == meta(db, LEFT_AT) and set(store.left_at()) == {"ann@v1", "carl@v1"}
        assert store.field_version() == db.execute("SELECT value FROM meta WHERE key = ?",
                                                   (FIELD_VERSION,)).fetchone()[0]
    finally:
        store.close()
        db.close()


def test_kept_ratings_rated_prefix_and_finish_times(output: Path) -> None:
    db = sqlite3.connect(output / "results.sqlite")
    store = LadderStore.open(output)
    try:
        assert store.kept_ratings() == [KeptRating(key, mu, sigma, matches, last) for key, mu, sigma, matches, last, _
                                        in db.execute("SELECT * FROM ladder_ratings")]
        last = db.execute("SELECT MAX(idx) FROM matches").fetchone()[0]
        assert store.rated_through() == meta(db, THROUGH) == last  # every stored match is rated
        middle = db.execute("SELECT idx FROM matches ORDER BY idx LIMIT 1 OFFSET 5").fetchone()[0]
        after = list(store.matches_after(middle))
        assert after == [(idx, match_id, json.loads(bots), json.loads(places), finished)
                         for idx, match_id, bots, places, finished in db.execute(
                             "SELECT idx, match_id, bots, places, finished_at FROM matches WHERE idx > ? ORDER BY idx",
                             (middle,))]
        assert len(after) == db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] - 6 > 0
        assert store.finished() == [(at, tuple(json.loads(bots))) for at, bots in db.execute(
            "SELECT finished_at, bots FROM matches ORDER BY finished_at, idx")]
    finally:
        store.close()
        db.close()


def test_saved_ratings_land_with_the_callers_transaction(output: Path) -> None:
    store = LadderStore.open(output)
    try:
        with store.transaction():
            store.save_ratings([KeptRating("ann@v2", 30.0, 5.0, 7, 123.0)], 42)
        with pytest.raises(RuntimeError), store.transaction():
            store.save_ratings([KeptRating("bob@v1", 1.0, 1.0, 1, 1.0)], 43)
            raise RuntimeError("killed before the match's commit")
    finally:
        store.close()
    db = sqlite3.connect(output / "results.sqlite")
    try:
        assert db.execute("SELECT * FROM ladder_ratings WHERE player = 'ann@v2'").fetchone() == \
            ("ann@v2", 30.0, 5.0, 7, 123.0, 42)
        assert db.execute("SELECT mu FROM ladder_ratings WHERE player = 'bob@v1'").fetchone()[0] != 1.0
        assert meta(db, THROUGH) == 42
    finally:
        db.close()


def test_retire_and_add_change_the_field_once_each(output: Path) -> None:
    store = ResultStore(output)
    ladder = store.ladder
    try:
        version = ladder.field_version()
        assert ladder.retire("bob", 1000.0) == [1]
        assert ladder.retire("bob", 2000.0) == []  # nothing left to retire: the time is not moved
        assert ladder.left_at()["bob@v1"] == 1000.0
        newer = Entry("dan", 2, "d" * 64, "/x/bot", "/src/dan", 3000.0, ACTIVE)
        with ladder.write():
            ladder.add(newer, [1])
        with pytest.raises(RuntimeError), ladder.write():
            ladder.add(Entry("eve", 1, "e" * 64, "/x/bot", "/src/eve", 4000.0, ACTIVE), [])
            raise RuntimeError("refused after the insert")
    finally:
        store.close()
    db = sqlite3.connect(output / "results.sqlite")
    try:
        assert db.execute("SELECT status FROM ladder_bots WHERE name = 'bob'").fetchall() == [(RETIRED,)]
        assert db.execute("SELECT version, status FROM ladder_bots WHERE name = 'dan' ORDER BY version").fetchall() \
            == [(1, REPLACED), (2, ACTIVE)]
        assert db.execute("SELECT 1 FROM ladder_bots WHERE name = 'eve'").fetchone() is None  # rolled back
        assert meta(db, LEFT_AT)["dan@v1"] == 3000.0
        assert int(db.execute("SELECT value FROM meta WHERE key = ?", (FIELD_VERSION,)).fetchone()[0]) == \
            int(version or 0) + 3  # two retirements (one with nothing to do) and one entry
    finally:
        db.close()


def test_reclaimed_marks(output: Path) -> None:
    store = LadderStore.open(output)
    try:
        assert store.reclaimed() == {}
        store.mark_reclaimed("ann@v1", 4096, 1.5)
        store.mark_reclaimed("carl@v1", 8192, 2.5)
        assert store.reclaimed() == {"ann@v1": {"bytes": 4096, "at": 1.5}, "carl@v1": {"bytes": 8192, "at": 2.5}}
    finally:
        store.close()
    db = sqlite3.connect(output / "results.sqlite")
    try:
        assert meta(db, RECLAIMED) == {"ann@v1": {"bytes": 4096, "at": 1.5}, "carl@v1": {"bytes": 8192, "at": 2.5}}
    finally:
        db.close()
