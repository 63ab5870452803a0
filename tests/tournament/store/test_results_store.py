"""ResultStore's named reads return what the statements they replaced returned (the report, ``arena bot log``
and ``arena run``'s extension check read through them), on a store a real round robin wrote."""

from __future__ import annotations

import json
from contextlib import contextmanager
import shutil
import sqlite3
from pathlib import Path
from typing import Iterator

from arena.match.runner import stats_of_json
from arena.tournament.records import MatchRecord
from arena.tournament.schedules.base import ScheduledMatch
from arena.tournament.store import ResultStore


def raw(output: Path) -> sqlite3.Connection:
    return sqlite3.connect(output / "results.sqlite")


@contextmanager
def both(output: Path) -> Iterator[tuple[sqlite3.Connection, ResultStore]]:
    """The raw file and the store reading it, both closed afterwards."""
    db = raw(output)
    store = ResultStore(output, readonly=True)
    try:
        yield db, store
    finally:
        store.close()
        db.close()


def test_seatings_and_the_seating_of_one_match(played_round_robin: Path) -> None:
    with both(played_round_robin) as (db, store):
        expected = [json.loads(bots) for (bots,) in db.execute("SELECT bots FROM matches ORDER BY idx")]
        assert list(store.seatings()) == expected and len(expected) == 12
        for match_id, bots in db.execute("SELECT match_id, bots FROM matches"):
            assert store.seating_of(match_id) == json.loads(bots)
        assert store.seating_of("c9/x+y/r0") is None


def test_logs_are_read_per_seat(played_round_robin: Path) -> None:
    with both(played_round_robin) as (db, store):
        assert store.keeps_logs()
        rows = db.execute("SELECT idx, seat, text FROM logs").fetchall()
        assert rows and any(text for _, _, text in rows)  # the writer's and the illegal bot's logs
        assert all(store.log(idx, seat) == text for idx, seat, text in rows)
        assert store.log(999, 0) is None


def test_records_are_the_stored_rows(played_round_robin: Path) -> None:
    with both(played_round_robin) as (db, store):
        luck = {idx: tuple(json.loads(seats)) for idx, seats in db.execute("SELECT idx, seats FROM luck")}
        expected = [MatchRecord(idx, match_id, tuple(json.loads(bots)), tuple(json.loads(places)),
                                tuple(json.loads(totals)), tuple(json.loads(forfeited)),
                                tuple((f["seat"], f["kind"]) for f in json.loads(faults)),
                                tuple(stats_of_json(s) for s in json.loads(stats)), luck.get(idx, ()))
                    for idx, match_id, bots, places, totals, forfeited, faults, stats in db.execute(
                        "SELECT idx, match_id, bots, places, totals, forfeited, faults, stats FROM matches "
                        "ORDER BY idx")]
        assert store.records() == expected
        assert any(record.faults for record in expected)  # the illegal bot's faults come through
        assert all(len(record.luck) == len(record.bots) for record in expected)  # every match was measured


def test_deals_of_stored_and_voided_matches_in_index_order(played_round_robin: Path, tmp_path: Path) -> None:
    output = tmp_path / "out"
    shutil.copytree(played_round_robin, output)
    store = ResultStore(output)
    try:
        store.void(ScheduledMatch(12, "c2/random+heuristic/r0", "77", ("random", "heuristic"), 2, 0), "killed")
        store.void(ScheduledMatch(13, "c2/random+heuristic/r1", "77", ("heuristic", "random"), 2, 1), "killed")
    finally:
        store.close()
    with both(output) as (db, store):
        expected = [(idx, match_id, seed, json.loads(bots)) for idx, match_id, seed, bots in db.execute(
            "SELECT idx, match_id, seed, bots FROM matches UNION ALL "
            "SELECT idx, match_id, seed, bots FROM voided ORDER BY idx")]
        assert list(store.deals()) == expected and [d[0] for d in expected] == list(range(14))
        assert store.voided_deals() == [(str(seed), int(rotation), len(json.loads(bots))) for seed, rotation, bots
                                        in db.execute("SELECT seed, rotation, bots FROM voided")]
        assert store.voided_deals() == [("77", 0, 2), ("77", 1, 2)]


def test_a_read_transaction_sees_one_state_while_a_run_writes(played_round_robin: Path, tmp_path: Path) -> None:
    output = tmp_path / "out"
    shutil.copytree(played_round_robin, output)
    reader = ResultStore(output, readonly=True)
    writer = ResultStore(output)
    try:
        with reader.reading():
            before = reader.count()
            writer.void(ScheduledMatch(12, "c2/random+heuristic/r0", "77", ("random", "heuristic"), 2, 0), "killed")
            assert reader.count() == before and reader.voided() == []  # the snapshot holds
        assert [v.index for v in reader.voided()] == [12]  # and the next read sees the write
    finally:
        writer.close()
        reader.close()


def test_a_new_store_gets_its_first_tables_in_one_transaction(tmp_path: Path) -> None:
    # A process killed between the first two tables of a new file left one that every later open called
    # damaged; the layout is now created whole or not at all.
    from arena.tournament.store import schema

    statements: list[str] = []
    db = sqlite3.connect(tmp_path / "new.sqlite")
    db.set_trace_callback(statements.append)
    try:
        schema.migrate(db)
    finally:
        db.close()
    creates = [i for i, s in enumerate(statements) if "CREATE TABLE IF NOT EXISTS" in s]
    begin = next(i for i, s in enumerate(statements) if s.startswith("BEGIN"))
    commit = next(i for i, s in enumerate(statements) if s.startswith("COMMIT"))
    assert creates and begin < min(creates) and max(creates) < commit
