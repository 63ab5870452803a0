"""Neighbour-balanced seatings: the designs' counts, and every schedule known in advance seated by them."""

from __future__ import annotations

import dataclasses
import os
from collections import Counter
from itertools import combinations, combinations_with_replacement
from pathlib import Path

import pytest

from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament, schedule_of
from arena.tournament.schedules.balance import (BALANCED, CYCLIC, adjacency, adjacent, block_order, design,
                                                every_order, least_imbalanced, rotated, seated, unrotated)
from arena.tournament.schedules.round_robin import round_robin
from arena.tournament.schedules.sampled import sampled
from arena.tournament.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["ana", "bea", "cid", "dan", "eve", "fay"]


def distances(orders, n):
    """(x, y, d) -> how often y sits d seats after x over ``orders``."""
    counts: Counter = Counter()
    for order in orders:
        for i, x in enumerate(order):
            for d in range(1, n):
                counts[x, order[(i + d) % n], d] += 1
    return counts


@pytest.mark.parametrize("n, size, each", [(2, 1, 1), (3, 2, 1), (4, 6, 2), (5, 4, 1)])
def test_every_ordered_pair_is_adjacent_equally_often(n, size, each):
    """For 2 seats the one order has a after b and b after a; otherwise each ordered pair once (twice at 4)."""
    orders = design(n)
    assert len(orders) == size and orders[0] == tuple(range(n))
    assert all(sorted(order) == list(range(n)) and order[0] == 0 for order in orders)
    assert len(set(orders)) == len(orders)
    counts = adjacency(orders)
    pairs = [(x, y) for x in range(n) for y in range(n) if x != y]
    assert {counts[pair] for pair in pairs} == {each} and sum(counts.values()) == len(pairs) * each


@pytest.mark.parametrize("n", [3, 4, 5])
def test_every_ordered_pair_sits_at_every_distance_equally_often(n):
    """Not only adjacent: two seats after, three after... each as often as any other (so also as seen
    from the other side of the table)."""
    counts = distances(design(n), n)
    assert len(set(counts.values())) == 1 and len(counts) == n * (n - 1) * (n - 1)


@pytest.mark.parametrize("n", [3, 4, 5])
def test_the_designs_are_the_smallest(n):
    """No set of fewer cyclic orders (repeats allowed) is balanced: at 4 seats not even 3, the least a
    balanced set could have, so the design of 6 is the smallest."""
    pairs = [(x, y) for x in range(n) for y in range(n) if x != y]
    for size in range(1, len(design(n))):
        for chosen in combinations_with_replacement(every_order(n), size):
            counts = adjacency(chosen)
            assert len({counts[pair] for pair in pairs}) > 1, chosen


def test_seatings_rotations_and_their_inverse():
    assert seated(("a", "b", "c", "d"), (0, 2, 3, 1)) == ("a", "c", "d", "b")
    assert rotated(("a", "c", "d", "b"), 1) == ("c", "d", "b", "a")
    for r in range(4):
        assert unrotated(rotated(("a", "c", "d", "b"), r), r) == ("a", "c", "d", "b")
    assert adjacent(("a", "b")) == [("a", "b"), ("b", "a")] and adjacent(("a",)) == []
    assert block_order(4, 7, CYCLIC) == (0, 1, 2, 3) and block_order(4, 7) == design(4)[1]


def test_a_size_without_a_design_takes_every_cyclic_order():
    assert design(6) == every_order(6) and len(design(6)) == 120
    counts = adjacency(design(6))
    assert len(set(counts.values())) == 1


def check_balanced(matches) -> None:
    """Every deal under all rotations of one seating; over the whole schedule every bot in every seat
    equally often, and after every other bot of its tables equally often."""
    deals: dict[str, list] = {}
    for m in matches:
        deals.setdefault(m.seed, []).append(m)
    for group in deals.values():
        base = unrotated(group[0].bots, group[0].rotation)
        assert sorted(m.rotation for m in group) == list(range(len(base)))
        assert all(m.bots == rotated(base, m.rotation) for m in group)
    seats = Counter((bot, len(m.bots), seat) for m in matches for seat, bot in enumerate(m.bots))
    for bot, n in {(bot, n) for bot, n, _ in seats}:
        assert len({seats[bot, n, seat] for seat in range(n)}) == 1  # as often in each seat of a size
    adjacent_counts = adjacency([m.bots for m in matches])
    diffs = [adjacent_counts[x, y] - adjacent_counts[y, x] for x, y in adjacent_counts]
    assert set(diffs) == {0}


@pytest.mark.parametrize("seats, cycles", [([2], 1), ([3], 2), ([4], 6), ([5], 4), ([2, 3, 4, 5], 12)])
def test_a_round_robin_of_whole_blocks_is_balanced(seats, cycles):
    check_balanced(list(round_robin(BOTS, seats, cycles, "s")))


def test_the_identical_pair_of_the_old_schedule_is_balanced_now():
    """The old schedule always had bea directly after ana (adjacent in name order) at every table of
    them both; the balanced one has either after the other equally often."""
    old = adjacency([m.bots for m in round_robin(BOTS[:4], [4], 6, "s", seating=CYCLIC)])
    new = adjacency([m.bots for m in round_robin(BOTS[:4], [4], 6, "s")])
    assert old["ana", "bea"] == 24 and old["bea", "ana"] == 0
    assert new["ana", "bea"] == new["bea", "ana"] == 8


@pytest.mark.parametrize("cycles", [1, 2, 3, 5, 6, 7, 13])
def test_a_run_cut_short_is_off_by_at_most_one_block(cycles):
    """After any number of cycles, a pair's two directions differ by no more than the part of one block
    played beyond the last whole one: each table's orders are consecutive steps of its design."""
    matches = list(round_robin(BOTS, [4], cycles, "s"))
    counts = adjacency([m.bots for m in matches])
    shared = Counter(pair for m in matches if m.rotation == 0 and m.cycle == 1
                     for pair in combinations(sorted(m.bots), 2))
    left = cycles % len(design(4))  # cycles past the last whole block
    for (x, y), count in counts.items():
        assert abs(count - counts[y, x]) <= shared[tuple(sorted((x, y)))] * 4 * left
    if left == 0:
        assert all(count == counts[y, x] for (x, y), count in counts.items())


def test_tables_of_one_cycle_start_at_different_orders():
    firsts = [unrotated(m.bots, m.rotation) for m in round_robin(BOTS[:5], [4], 1, "s") if m.rotation == 0]
    orders = [tuple(sorted(t).index(b) for b in t) for t in firsts]
    assert orders == list(design(4)[:5])


@pytest.mark.parametrize("seats, tables, cycles", [([3], 4, 2), ([4], 3, 6), ([2, 5], 6, 4)])
def test_sampled_tables_are_balanced_over_a_block(seats, tables, cycles):
    check_balanced(list(sampled(BOTS, seats, tables, cycles, "s")))


def test_the_ladder_choice_evens_out_a_pair_seen_before():
    counts: Counter = Counter()
    table = ("a", "b", "c", "d")
    for _ in range(60):
        counts.update(adjacent(seated(table, least_imbalanced(table, counts))))
    assert all(abs(counts[x, y] - counts[y, x]) <= 1 for x, y in counts)
    assert least_imbalanced(table, Counter()) == design(4)[0]


# ---------------------------------------------------------------- an old store resumes as it was

def three_bots(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nseats: 3\ncycles: 2\nseed: 5\nsandbox: none\nworkers: 1\n"
                    f"output: {tmp_path / name}\nbots:\n  - {ROOT / 'bots' / 'random'}\n"
                    f"  - {ROOT / 'bots' / 'c-random'}\n  - {ROOT / 'bots' / 'heuristic'}\n")
    return path


def stored_seatings(output: Path) -> list[tuple[str, ...]]:
    store = ResultStore(output, readonly=True)
    try:
        return [r.bots for r in sorted(store.records(), key=lambda r: r.index)]
    finally:
        store.close()


def test_a_store_begun_before_balanced_seatings_resumes_with_its_own(tmp_path):
    config = load_config(three_bots(tmp_path, "old"))
    assert config.seating == BALANCED and config.describe()["seating"] == BALANCED
    old = dataclasses.replace(config, seating=CYCLIC)  # what an arena before balanced seatings played
    assert "seating" not in old.describe()
    quiet = open(os.devnull, "w")
    run_tournament(old, out=quiet, max_matches=2)
    summary = run_tournament(config, out=quiet)  # the file as it is, resumed by this arena
    assert (summary.skipped, summary.played) == (2, 4)
    assert stored_seatings(config.output) == [m.bots for m in schedule_of(old)]
    store = ResultStore(config.output, readonly=True)
    try:
        assert store.meta("fingerprint") == old.fingerprint() != config.fingerprint()
    finally:
        store.close()

    fresh = load_config(three_bots(tmp_path, "new"))
    run_tournament(fresh, out=quiet)
    assert stored_seatings(fresh.output) == [m.bots for m in schedule_of(fresh)]
    assert schedule_of(fresh) != schedule_of(old)
    assert [m.seed for m in schedule_of(fresh)] == [m.seed for m in schedule_of(old)]  # the same deals


# ---------------------------------------------------------------- the ladder's tables

def ladder(names: str, seats: list[int], seating: str = BALANCED):
    from arena.bots import BotSpec
    from arena.tournament.ladder.entries import Entry
    from arena.tournament.rating import RatingParams
    from arena.tournament.ladder.matchmaking import LadderSchedule

    return LadderSchedule(lambda: [Entry(n, 1, "d", "p", "s", 0.0, "active") for n in names],
                          lambda e: BotSpec(name=e.key, command=("x",)), seats, "standard", 4, RatingParams(), 0,
                          seating=seating)


def play_ladder(schedule, tables: int, records=()):
    """Hand out and finish ``tables`` tables' matches (every bot ahead by name order); the records."""
    from arena.tournament.records import MatchRecord

    out = list(records)
    while len({r.match_id.rsplit("/", 1)[0] for r in out}) < tables:
        for match in schedule.next_batch() or []:
            places = tuple(sorted(match.bots).index(b) + 1 for b in match.bots)
            record = MatchRecord(match.index, match.match_id, match.bots, places, (0,) * len(places),
                                 (False,) * len(places), ())
            schedule.finished(match, record)
            out.append(record)
    return out


@pytest.mark.parametrize("names, seats", [("abcd", [4]), ("abcdef", [3, 4]), ("abcdefg", [5])])
def test_a_ladder_seats_every_pair_both_ways_as_often(names, seats):
    """Tables drawn as the ratings go: each pair's two directions end within one table of each other
    (the old ladder had the earlier name first at every table of both)."""
    schedule = ladder(names, seats)
    schedule.resume(set(), [])
    records = play_ladder(schedule, 120)
    counts = adjacency([unrotated(r.bots, int(r.match_id.rsplit("/r", 1)[1])) for r in records
                        if r.match_id.endswith("/r0")])
    assert max(abs(counts[x, y] - counts[y, x]) for x, y in counts) <= 1
    old = ladder(names, seats, CYCLIC)
    old.resume(set(), [])
    cyclic = adjacency([r.bots for r in play_ladder(old, 120) if r.match_id.endswith("/r0")])
    assert max(abs(cyclic[x, y] - cyclic[y, x]) for x, y in cyclic) > 10


def test_a_ladder_resumed_completes_a_table_in_its_own_seating_and_goes_on_balanced():
    schedule = ladder("abcd", [4])
    schedule.resume(set(), [])
    records = play_ladder(schedule, 5)
    tables = Counter(r.match_id.rsplit("/", 1)[0] for r in records)
    last = max((t for t, count in tables.items() if count == 4), key=lambda t: int(t.split("/")[0][1:]))
    kept = min((r for r in records if r.match_id.startswith(last + "/")), key=lambda r: r.index)
    cut = [r for r in records if not r.match_id.startswith(last + "/") or r is kept]
    assert len(records) - len(cut) >= 1
    again = ladder("abcd", [4])
    again.resume({r.index for r in cut}, cut)
    base = unrotated(kept.bots, int(kept.match_id.rsplit("/r", 1)[1]))
    completed = [m for m in again.next_batch() or [] if m.match_id.startswith(last + "/")]
    assert completed and all(m.bots == rotated(base, m.rotation) for m in completed)
    assert again.adjacent == adjacency([unrotated(r.bots, int(r.match_id.rsplit("/r", 1)[1])) for r in
                                        {r.match_id.rsplit("/", 1)[0]: r for r in records}.values()])
