"""Paired evidence and the stop rule that holds at every look: simulated sequences, tiers in every format."""

from __future__ import annotations

import csv
import json
import math
import random
from pathlib import Path

import pytest
import trueskill

from arena.evidence.claims import AHEAD, OPEN, TIER, settled, tiers
from arena.tournament.evidence import MIN_DEALS, PairEvidence, judged, sure_text, tier_text
from arena.tournament.leaderboard import build, markdown, text, write_files
from arena.tournament.records import MatchRecord

# ---------------------------------------------------------------- the evidence itself


def record(index: int, match_id: str, bots: tuple[str, ...], places: tuple[int, ...]) -> MatchRecord:
    n = len(bots)
    return MatchRecord(index, match_id, bots, places, (0,) * n, (False,) * n, ())


def test_a_deal_is_one_difference_the_mean_over_its_rotations():
    evidence = PairEvidence()
    evidence.add(record(0, "c1/a+b/r0", ("a", "b"), (1, 2)))
    assert evidence.of("a", "b") == (1, 1.0, 0.0)
    evidence.add(record(1, "c1/a+b/r1", ("b", "a"), (1, 2)))  # the same deal: b ahead this time
    assert evidence.of("a", "b") == (1, 0.0, 0.0) and evidence.of("b", "a") == (1, 0.0, 0.0)
    evidence.add(record(2, "c2/a+b/r0", ("a", "b"), (1, 2)))
    deals, mean, variance = evidence.of("b", "a")
    assert (deals, mean, variance) == (2, -0.5, pytest.approx(0.5))
    assert evidence.of("a", "z") == (0, 0.0, 0.0)
    copy = evidence.copy()
    evidence.add(record(3, "c2/a+b/r1", ("b", "a"), (2, 1)))
    assert copy.of("a", "b")[0] == 2 and evidence.of("a", "b") == (2, pytest.approx(0.5), pytest.approx(0.5))


def test_a_ladders_replays_count_nowhere():
    evidence = PairEvidence()
    evidence.add(record(0, "L4~0/a@v2+b@v1/r0", ("a@v2", "b@v1"), (1, 2)))
    assert evidence.of("a@v2", "b@v1") == (0, 0.0, 0.0)


def test_stats_give_the_sum_of_squared_deviations_the_claims_read():
    evidence = PairEvidence()
    for deal, places in enumerate([(1, 2), (2, 1), (1, 2)]):
        evidence.add(record(deal, f"c{deal + 1}/a+b/r0", ("a", "b"), places))
    n, mean, m2 = evidence.stats("a", "b")
    assert (n, mean, m2) == (3, pytest.approx(1 / 3), pytest.approx(8 / 3))
    assert evidence.stats("b", "a")[1] == pytest.approx(-1 / 3)


def test_a_sure_cell_never_claims_certainty_nor_reads_as_sure_of_the_reverse():
    assert [sure_text(p) for p in (0.999, 0.5, 0.871, 0.001, 0.49, None)] == [">0.99", "0.50", "0.87", "", "", ""]


# ---------------------------------------------------------------- tiers on every board

def four(deals: int = 30) -> list[MatchRecord]:
    """a always first, b second, c and d sharing third: a > b > c = d."""
    out = []
    for deal in range(deals):
        table = ("a", "b", "c", "d")
        for rotation in range(4):
            seats = table[rotation:] + table[:rotation]
            places = tuple({"a": 1, "b": 2, "c": 3, "d": 3}[bot] for bot in seats)
            out.append(record(4 * deal + rotation, f"c{deal + 1}/a+b+c+d/r{rotation}", seats, places))
    return out


RATINGS = {"a": trueskill.Rating(40, 1), "b": trueskill.Rating(30, 1), "c": trueskill.Rating(20, 1),
           "d": trueskill.Rating(19, 1)}


def test_tiers_from_the_calls():
    evidence = PairEvidence()
    for r in four():
        evidence.add(r)
    order, calls = judged(evidence, ["a", "b", "c", "d"], 0.95, 0.25)
    assert order == ["a", "b", "c", "d"] and [c.relation for c in calls] == [AHEAD, AHEAD, TIER] and settled(calls)
    assert tiers(["a", "b", "c", "d"], calls) == {"a": 1, "b": 2, "c": 3, "d": 3}
    assert tier_text(3, 3, True) == "3=" and tier_text(2, 2, False) == "2" and tier_text(None, None, False) == "-"
    few = PairEvidence()
    for r in four(MIN_DEALS - 1):
        few.add(r)
    assert [c.relation for c in judged(few, ["a", "b", "c", "d"], 0.95, 0.25)[1]] == [OPEN] * 3


def test_every_format_shows_the_tier(tmp_path: Path):
    board = build(four(), RATINGS, ["a", "b", "c", "d"])
    assert [(s.rank, s.tier, s.tier_shared) for s in board.standings] == [(1, 1, False), (2, 2, False), (3, 3, True),
                                                                           (4, 3, True)]
    assert [s.next for s in board.standings] == [AHEAD, AHEAD, TIER, None]
    assert board.standings[2].rank_interval[1] >= 4 and board.standings[3].rank_interval[0] <= 3  # a tier overlaps
    rows = text(board).splitlines()[1:5]
    assert [row.split()[0] for row in rows] == ["1", "2", "3=", "3="]
    assert rows[0].split()[4] == ">0.99"  # a is surely ahead of b
    write_files(board, tmp_path)
    data = json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))
    assert [(s["rank"], s["tier"], s["next"]) for s in data["standings"]] == [(1, 1, "ahead"), (2, 2, "ahead"),
                                                                                (3, 3, "tier"), (4, 3, None)]
    with (tmp_path / "leaderboard.csv").open(newline="", encoding="utf-8") as handle:
        assert [r["tier"] for r in csv.DictReader(handle)] == ["1", "2", "3", "3"]
    md = markdown(board)
    assert "| 3= | c |" in md and "| 3= | d |" in md and "| 1 | a |" in md
    narrow = build(four(), RATINGS, ["a", "b", "c", "d"], margin=0.01)  # too narrow a margin to show c = d yet
    assert [s.tier for s in narrow.standings] == [1, 2, 3, 4] and not narrow.standings[2].tier_shared


def test_the_ladder_board_and_the_report_show_the_tier():
    from arena.site.data import leaderboard_rows
    from arena.site.pages import leaderboard_table
    from arena.tournament.ladder import board as ladder_board
    from arena.tournament.ladder.entries import Entry

    evidence = PairEvidence()
    for r in four():
        evidence.add(r)
    fields = [Entry(n, 1, "d", "p", "s", 0.0, "active") for n in "abcd"]
    keyed = {f"{name}@v1": rating for name, rating in RATINGS.items()}
    keyed_evidence = PairEvidence()
    for r in four():
        keyed_evidence.add(record(r.index, r.match_id.replace("c", "L", 1), tuple(f"{b}@v1" for b in r.bots),
                                  r.places))
    rows = ladder_board.rows(fields, keyed, {k: 120 for k in keyed}, {}, 0, trueskill.Rating(), keyed_evidence)
    assert [(r.rank, r.tier, r.tier_shared) for r in rows] == [(1, 1, False), (2, 2, False), (3, 3, True),
                                                               (4, 3, True)]
    assert [line.split()[0] for line in ladder_board.text(rows).splitlines()[1:5]] == ["1", "2", "3=", "3="]
    assert [r["tier"] for r in json.loads(ladder_board.to_json(rows))] == [1, 2, 3, 3]
    assert "tier" in ladder_board.to_csv(rows).splitlines()[0].split(",")
    table = leaderboard_table(leaderboard_rows(build(four(), RATINGS, ["a", "b", "c", "d"])))
    assert table.count(">3=<") == 2 and ">2<" in table



def test_a_run_keeps_its_margin_for_every_board_that_reads_the_store(tmp_path: Path):
    import os

    from arena.tournament.config import load_config
    from arena.tournament.driver import run_tournament
    from arena.tournament.standings import read
    from arena.tournament.store import ResultStore

    root = Path(__file__).resolve().parents[2]
    path = tmp_path / "m.yaml"
    path.write_text(f"name: m\nseats: 2\nseed: 1\nsandbox: none\nworkers: 1\nsettle: {{margin: 0.5}}\n"
                    f"output: {tmp_path / 'm'}\nbots:\n  - {root / 'bots' / 'random'}\n  - {root / 'bots' / 'c-random'}\n")
    run_tournament(load_config(path), out=open(os.devnull, "w"))
    store = ResultStore(tmp_path / "m", readonly=True)
    try:
        assert store.meta("settle") == {"margin": 0.5} and read(store).margin == 0.5
    finally:
        store.close()
