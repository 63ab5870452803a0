"""The store's aggregates equal the computations over every row they replaced: a ladder's kept pair sums and luck
(tables ``ladder_pairs`` and ``ladder_luck``, kept with every match stored, in any order), the count of matches a
public board holds back (one SQL aggregate), and the check for a match stored twice (made once while the matches
stay as they were)."""

from __future__ import annotations

import dataclasses

import json
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Callable

import pytest

from arena.match.runner import MatchOutcome, SeatStats
from arena.site.withhold import held_back, withheld_in
from arena.tournament.evidence import PairEvidence
from arena.tournament.ladder.matchmaking import ladder_match_id
from arena.tournament.rating import deal_key
from arena.tournament.records import is_replay
from arena.tournament.scheduled import ScheduledMatch
from arena.tournament.store import LadderStore, ResultStore, StoreDamaged
from arena.tournament.store.ladder import COUNTED, KeptSums

BOTS = ("ann@v1", "bob@v1", "carl@v1", "dan@v1", "eve@v1", "ann@v2")


def recomputed(directory: Path) -> KeptSums:
    """The sums as the board computed them before they were kept: every stored match read, in index order."""
    store = LadderStore.open(directory)
    try:
        deals: dict[str, dict[str, list[int]]] = {}
        for _, match_id, bots, places, _ in store.matches_after(-1):
            if is_replay(match_id):
                continue
            deal = deals.setdefault(deal_key(match_id), {})
            for bot, place in zip(bots, places):
                deal.setdefault(bot, [0, 0])
                deal[bot][0] += place
                deal[bot][1] += 1
        pairs: dict[tuple[str, str], list[float]] = {}
        for deal in deals.values():
            mean = {bot: total / count for bot, (total, count) in deal.items()}
            for a in sorted(mean):
                for b in sorted(mean):
                    if a < b:
                        sums = pairs.setdefault((a, b), [0, 0.0, 0.0])
                        sums[0] += 1
                        sums[1] += mean[b] - mean[a]
                        sums[2] += (mean[b] - mean[a]) ** 2
        luck: dict[str, list[float]] = {}
        for _, bots, values in store.luck_after(-1):
            for bot, value in zip(bots, values):
                tally = luck.setdefault(bot, [0.0, 0])
                tally[0] += value
                tally[1] += 1
        return KeptSums({pair: (int(n), total, squares) for pair, (n, total, squares) in pairs.items()},
                        {bot: (total, int(n)) for bot, (total, n) in luck.items()})
    finally:
        store.close()


def assert_equal(kept: KeptSums | None, expected: KeptSums) -> None:
    assert kept is not None
    assert set(kept.pairs) == set(expected.pairs) and set(kept.luck) == set(expected.luck)
    for pair, (deals, total, squares) in expected.pairs.items():
        assert kept.pairs[pair][0] == deals, pair
        assert kept.pairs[pair][1:] == pytest.approx((total, squares), abs=1e-9), pair
    for bot, (total, matches) in expected.luck.items():
        assert kept.luck[bot][1] == matches and kept.luck[bot][0] == pytest.approx(total, abs=1e-9), bot


def kept(directory: Path) -> KeptSums | None:
    store = LadderStore.open(directory)
    try:
        return store.kept_sums()
    finally:
        store.close()


def outcome(match: ScheduledMatch, places: tuple[int, ...], luck: tuple[float, ...]) -> MatchOutcome:
    seats = len(match.bots)
    return MatchOutcome(match.match_id, match.seed, match.bots, tuple(10 * p for p in places), places,
                        (False,) * seats, (), "target", ((0,) * seats,), 10 * seats, 0.01, 0.01,
                        tuple(SeatStats(10, 1.0, 0.5, None) for _ in range(seats)), "none", b"",
                        luck=luck, luck_model="1@test" if luck else "")


def tables(rng: random.Random, count: int) -> list[tuple[ScheduledMatch, tuple[int, ...], tuple[float, ...]]]:
    """``count`` ladder tables of 2 to 4 seats, every rotation of each, and a replay of some by ann@v2 (ann@v1's
    tables): what a ladder stores, some matches without luck (an unmeasured game)."""
    out = []
    index = 0
    for _ in range(count):
        seats = rng.randint(2, 4)
        table = rng.sample(list(BOTS[:5]), seats)
        plays: list[tuple[int, list[str], int | None]] = [(index, table, None)]
        if "ann@v1" in table and rng.random() < 0.4:
            plays.append((index + seats, ["ann@v2" if b == "ann@v1" else b for b in table], index))
        for first, players, source in plays:
            for rotation in range(seats):
                seated = tuple(players[rotation:] + players[:rotation])
                places = tuple(rng.sample(range(1, seats + 1), seats))
                if rng.random() < 0.2:  # a tie
                    places = tuple(min(p, 2) for p in places)
                luck = () if rng.random() < 0.1 else tuple(round(rng.gauss(0, 3), 3) for _ in range(seats))
                match = ScheduledMatch(first + rotation, ladder_match_id(first, players, rotation, source),
                                       f"d{index}", seated, 1, rotation)
                out.append((match, places, luck))
        index += seats * len(plays)
    return out


def new_ladder(directory: Path) -> ResultStore:
    store = ResultStore(directory)
    store.claim("ladder", {"name": "ladder", "schedule": "ladder"}, None)
    store.set_meta("ladder", {"placement_matches": 1})
    return store


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_kept_sums_equal_a_recomputation_whatever_order_the_matches_are_stored_in(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    played = tables(rng, 40)
    assert any(is_replay(m.match_id) for m, _, _ in played)
    rng.shuffle(played)  # matches come back out of order, rotations of one table too
    store = new_ladder(tmp_path)
    try:
        assert store.ladder.kept_sums() is None  # not kept until a ladder run's start counts them
        assert store.ladder.keep_sums() and not store.ladder.keep_sums()
        assert store.ladder.kept_sums() == KeptSums({}, {})
        held = []
        for match, places, luck in played[:len(played) // 2]:
            store.record(match, outcome(match, places, luck))
        store.void(played[-1][0], "killed its worker twice")  # a ladder plays a voided rotation again
        for match, places, luck in played[len(played) // 2:-1]:
            store.record(match, outcome(match, places, luck))
            held.append((held_back(store), len(withheld_in(store, store.deal_rows()))))
        assert all(count == decoded for count, decoded in held) and max(held) > (0, 0)
    finally:
        store.close()
    expected = recomputed(tmp_path)
    assert expected.pairs and expected.luck
    assert_equal(kept(tmp_path), expected)

    # the board's own measure of a deal gives the same sums (a < b: b's mean place minus a's)
    ladder = LadderStore.open(tmp_path)
    try:
        evidence = PairEvidence()
        for _, match_id, seated, placed, _ in ladder.matches_after(-1):
            evidence.add_places(match_id, seated, placed)
        sums = ladder.kept_sums()
        assert sums is not None
        for (a, b), (deals, total, squares) in sums.pairs.items():
            n, mean, _ = evidence.of(a, b)  # b's mean place minus a's: positive, a placed ahead
            assert n == deals and mean == pytest.approx(total / deals, abs=1e-9)

        # counted anew from the matches, in one pass, the sums are the same
        ladder._db.execute("DELETE FROM meta WHERE key = ?", (COUNTED,))
        ladder._db.commit()
        assert ladder.kept_sums() is None
        assert ladder.keep_sums()
        assert_equal(ladder.kept_sums(), expected)
    finally:
        ladder.close()


def test_a_match_stored_by_hand_makes_the_kept_sums_unused_until_counted_again(tmp_path: Path) -> None:
    played = tables(random.Random(4), 10)
    store = new_ladder(tmp_path)
    try:
        store.ladder.keep_sums()
        for match, places, luck in played[:-1]:
            store.record(match, outcome(match, places, luck))
        assert store.ladder.kept_sums() is not None
    finally:
        store.close()
    db = sqlite3.connect(tmp_path / "results.sqlite")
    with db:  # the last match, as a store written without them would hold it
        match, places, _ = played[-1]
        db.execute("INSERT INTO matches SELECT ?, ?, ?, cycle, ?, ?, ?, totals, forfeited, reason, rounds, faults, "
                   "decisions, seconds, stats, sandbox, replay, finished_at FROM matches LIMIT 1",
                   (match.index, match.match_id, match.seed, match.rotation, json.dumps(match.bots),
                    json.dumps(places)))
    db.close()
    assert kept(tmp_path) is None
    ladder = LadderStore.open(tmp_path)
    try:
        assert ladder.keep_sums()
    finally:
        ladder.close()
    assert_equal(kept(tmp_path), recomputed(tmp_path))


def test_a_store_of_an_older_layout_keeps_no_sums(tmp_path: Path) -> None:
    store = new_ladder(tmp_path)
    store.close()
    db = sqlite3.connect(tmp_path / "results.sqlite")
    with db:
        db.execute("DROP TABLE ladder_pairs")
        db.execute("DROP TABLE ladder_luck")
    db.execute("PRAGMA user_version = 7")
    db.close()
    store = ResultStore(tmp_path, readonly=True)
    try:
        assert store.ladder.kept_sums() is None
    finally:
        store.close()


def test_a_ladder_run_keeps_its_sums(played_ladder: Path) -> None:
    # two runs with a new version's replays, a retirement and measured luck between them, stored as the driver does
    output = played_ladder.parent / "out"
    expected = recomputed(output)
    assert expected.pairs and expected.luck and any("@v2" in pair[0] + pair[1] for pair in expected.pairs)
    assert_equal(kept(output), expected)


# ------------------------------------------------------------------ held back

def deal_store(directory: Path, rows: list[tuple[str, int, list[str]]], voided: list[tuple[str, int, list[str]]],
               ladder: bool) -> None:
    """A store of ``rows`` (seed, rotation, bots) and ``voided`` ones, written as they are."""
    store = ResultStore(directory)
    try:
        store.claim("deals", {"name": "deals", "schedule": "ladder" if ladder else "sampled"}, None)
        if ladder:
            store.set_meta("ladder", {"placement_matches": 1})
        with store._db:
            for index, (seed, rotation, bots) in enumerate(rows):
                store._db.execute(f"INSERT INTO matches VALUES ({', '.join('?' * 18)})",
                                  (index, f"m{index}", seed, 1, rotation, json.dumps(bots),
                                   json.dumps(list(range(1, len(bots) + 1))), json.dumps([0] * len(bots)),
                                   json.dumps([False] * len(bots)), "score", "[]", "[]", 1, 0.1, "[]", "none",
                                   f"replays/{index:06d}.jsonl.gz", 1.0))
            for index, (seed, rotation, bots) in enumerate(voided, start=len(rows)):
                store._db.execute("INSERT INTO voided VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                  (index, f"v{index}", seed, 1, rotation, json.dumps(bots), "lost", 1.0))
    finally:
        store.close()


def random_deals(rng: random.Random) -> tuple[list[tuple[str, int, list[str]]], list[tuple[str, int, list[str]]]]:
    """Deals of 2 to 4 seats with rotations missing, voided, played twice (a replay seats another version), and
    some of more seats than others of the same seed."""
    rows, voided = [], []
    for deal in range(rng.randint(1, 25)):
        seats = rng.randint(2, 4)
        bots = [f"b{i}" for i in rng.sample(range(8), seats)]
        for rotation in range(seats):
            pick = rng.random()
            if pick < 0.6:
                rows.append((f"s{deal}", rotation, bots))
            elif pick < 0.75:
                voided.append((f"s{deal}", rotation, bots))
            elif pick < 0.85:
                rows.append((f"s{deal}", rotation, bots))
                rows.append((f"s{deal}", rotation, bots[1:] + ["b9"]))
        if rng.random() < 0.1:
            rows.append((f"s{deal}", 0, bots + ["b8"]))  # the same seed at one seat more
    rng.shuffle(rows)
    return rows, voided


@pytest.mark.parametrize("seed", range(12))
def test_held_back_counts_as_the_rows_decoded(tmp_path: Path, seed: int) -> None:
    rows, voided = random_deals(random.Random(seed))
    for ladder in (False, True):
        directory = tmp_path / f"ladder-{ladder}"
        deal_store(directory, rows, voided, ladder)
        store = ResultStore(directory, readonly=True)
        try:
            decoded = len(withheld_in(store, store.deal_rows()))
            assert store.withheld_count(voided=not ladder) == decoded == held_back(store)
        finally:
            store.close()


@pytest.mark.parametrize("odd", [
    ("s0", 5, ["a", "b"]),  # a rotation beyond its seats
    ("s0", -1, ["a", "b"]),
    ("s1", "x", ["a", "b"]),  # a rotation that is no number
    ("s1", 0, []),  # no seats
])
def test_held_back_of_odd_rows_is_counted_by_decoding_them(tmp_path: Path, odd: tuple[str, object, list[str]]) -> None:
    rows: list[tuple[str, object, list[str]]] = [("s0", 0, ["a", "b"]), ("s0", 1, ["b", "a"]), ("s1", 0, ["a", "b"])]
    deal_store(tmp_path, rows + [odd], [], False)  # type: ignore[arg-type]
    store = ResultStore(tmp_path, readonly=True)
    try:
        assert store.withheld_count(voided=True) is None
        assert answer(lambda: held_back(store)) == answer(lambda: len(withheld_in(store, store.deal_rows())))
    finally:
        store.close()


def answer(count: Callable[[], int]) -> object:
    """A count, or the error it raised (its kind and message)."""
    try:
        return count()
    except Exception as exc:
        return type(exc), str(exc)


def test_held_back_refuses_bots_that_are_not_json_as_the_rows_decoded_do(tmp_path: Path) -> None:
    deal_store(tmp_path, [("s0", 0, ["a", "b"])], [], False)
    db = sqlite3.connect(tmp_path / "results.sqlite")
    with db:
        db.execute("UPDATE matches SET bots = '[\"a\", ' WHERE idx = 0")
    db.close()
    store = ResultStore(tmp_path, readonly=True)
    try:
        with pytest.raises(StoreDamaged, match=r"match 0: bots is not JSON"):
            held_back(store)
    finally:
        store.close()


# ------------------------------------------------------------------ repeats

def test_a_run_checks_for_repeats_once_and_still_sees_another_process_add_one(played_ladder: Path,
                                                                               tmp_path: Path) -> None:
    output = tmp_path / "out"
    shutil.copytree(played_ladder.parent / "out", output)
    store = ResultStore(output)
    grouped: list[str] = []
    store._db.set_trace_callback(lambda sql: grouped.append(sql) if "GROUP BY seed, rotation, bots" in sql else None)
    try:
        store.check_matches()
        store.set_meta("settle", {"margin": 0.25})  # what a run writes in between changes no match
        store.records()
        assert len(grouped) == 1
        db = sqlite3.connect(output / "results.sqlite")
        with db:
            db.execute("INSERT INTO matches SELECT 1000, match_id || '-copy', seed, cycle, rotation, bots, places, "
                       "totals, forfeited, reason, rounds, faults, decisions, seconds, stats, sandbox, replay, "
                       "finished_at FROM matches WHERE idx = (SELECT MIN(idx) FROM matches)")
        db.close()
        with pytest.raises(StoreDamaged, match="repeats match"):
            store.records()
    finally:
        store.close()


def test_a_count_of_kept_matches_that_is_not_one_is_damage(tmp_path: Path) -> None:
    new_ladder(tmp_path).close()
    db = sqlite3.connect(tmp_path / "results.sqlite")
    with db:
        db.execute("INSERT INTO meta VALUES (?, ?)", (COUNTED, json.dumps({"matches": 3})))
    db.close()
    with pytest.raises(StoreDamaged, match="meta 'ladder_counted' is not a count of matches and a sum of their indices"):
        ResultStore(tmp_path, readonly=True)


def test_a_ladders_board_from_the_kept_sums_is_the_board_from_its_matches(played_ladder: Path) -> None:
    from arena.tournament.ladder.board import StoredEvidence, load, stored_evidence
    from arena.tournament.rating import RatingParams

    output = played_ladder.parent / "out"
    ladder = LadderStore.open(output)
    try:
        assert ladder.kept_sums() is not None
        kept_evidence = stored_evidence(ladder)
        read = StoredEvidence()
        read.read(ladder)
        names = sorted({name for pair in ladder.kept_sums().pairs for name in pair})  # type: ignore[union-attr]
        for a in names:
            for b in names:
                got, want = kept_evidence.evidence.stats(a, b), read.evidence.stats(a, b)
                assert got[0] == want[0] and got[1:] == pytest.approx(want[1:], abs=1e-9)
        assert kept_evidence.luck() == pytest.approx(read.luck())
        def board(**given: object) -> list:
            rows = load(ladder, RatingParams(), 0, **given)  # type: ignore[arg-type]
            return [dataclasses.replace(r, luck=None if r.luck is None else round(r.luck, 9)) for r in rows]

        assert board() == board(evidence=StoredEvidence())  # the same board, luck's last bits of rounding apart
    finally:
        ladder.close()
