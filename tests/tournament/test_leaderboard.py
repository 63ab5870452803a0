"""Leaderboard: standings and head-to-head on a hand-computed case, and the files written."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest
import trueskill

from arena.match.runner import SeatStats
from arena.tournament.leaderboard import HeadToHead, Leaderboard, build, markdown, text, write_files
from arena.tournament.rating import RatingParams, rate
from arena.tournament.records import MatchRecord, VoidRecord

BOTS = ["a", "b", "c", "d"]

RECORDS = [
    # a and b share first place; c times out twice.
    MatchRecord(0, "m0", ("a", "b", "c"), (1, 1, 3), (5, 5, 20), (False, False, False),
                ((2, "timeout"), (2, "timeout")),
                (SeatStats(10, 50.0, 9.0, 120.0), SeatStats(10, 96.0, 20.0, 80.0), SeatStats(5, 25.0, 7.5, None))),
    # c makes an illegal move, b wins; b's process was kept from m0, so it has no start-up here.
    MatchRecord(1, "m1", ("b", "c"), (1, 2), (3, 12), (False, False), ((1, "illegal"),),
                (SeatStats(4, 20.0, 6.0, None), SeatStats(5, 75.0, 40.0, 200.0))),
    # b's process exits: forfeited, placed last.
    MatchRecord(2, "m2", ("c", "a", "b"), (1, 2, 3), (0, 7, 40), (False, False, True), ((2, "exit"),),
                (SeatStats(0, 0.0, 0.0, None), SeatStats(6, 30.0, 12.0, 100.0), SeatStats(2, 4.0, 3.0, 60.0))),
]
"""Timing: a 16 decisions in 80 ms (5.0 mean), slowest 12.0, starts 120 and 100 (110.0); b 16 in 120 ms
(7.5), 20.0, starts 80 and 60 (70.0); c 10 in 100 ms (10.0), 40.0, one start of 200.0; d none."""

# Chosen so the order is b (25), a (24), then c and d tied at 5 (name decides).
RATINGS = {
    "a": trueskill.Rating(mu=30.0, sigma=2.0),
    "b": trueskill.Rating(mu=28.0, sigma=1.0),
    "c": trueskill.Rating(mu=20.0, sigma=5.0),
    "d": trueskill.Rating(mu=20.0, sigma=5.0),
}


@pytest.fixture
def board() -> Leaderboard:
    return build(list(reversed(RECORDS)), RATINGS, BOTS)


def test_standings_every_column(board: Leaderboard) -> None:
    rows = [(s.rank, s.bot, s.exposure, s.mu, s.sigma, s.matches, s.wins, s.average_place, s.average_total,
             s.faults, s.forfeits) for s in board.standings]
    assert rows == [
        (1, "b", 25.0, 28.0, 1.0, 3, 2, pytest.approx(5 / 3), 16.0, {"exit": 1}, 1),
        (2, "a", 24.0, 30.0, 2.0, 2, 1, 1.5, 6.0, {}, 0),
        (3, "c", 5.0, 20.0, 5.0, 3, 1, 2.0, pytest.approx(32 / 3), {"timeout": 2, "illegal": 1}, 0),
        (4, "d", 5.0, 20.0, 5.0, 0, 0, None, None, {}, 0),
    ]
    assert list(board.standings[2].faults) == ["timeout", "illegal"]  # protocol order, not alphabetical
    assert board.matches == 3


def test_luck_is_the_mean_over_the_measured_matches_in_every_format(tmp_path: Path) -> None:
    """A bot's luck is the mean of its seats' luck over the matches that were measured (a record without luck,
    from before the meter, counts in no mean); terminal, Markdown, CSV and JSON all show it, signed."""
    import dataclasses

    measured = [dataclasses.replace(RECORDS[0], luck=(1.5, -2.0, 4.25)), RECORDS[1],
                dataclasses.replace(RECORDS[2], luck=(-1.0, 0.5, -3.0))]
    lb = build(measured, RATINGS, BOTS)
    luck = {s.bot: s.luck for s in lb.standings}
    assert luck == {"a": pytest.approx(1.0), "b": pytest.approx(-2.5), "c": pytest.approx(1.625), "d": None}
    drawn = lb.table()
    at = list(drawn.header).index("luck")
    assert {row[1]: row[at] for row in drawn.rows} == {"b": "-2.5", "a": "+1.0", "c": "+1.6", "d": "-"}
    assert all(f" {cell} " in text(lb) for cell in ("-2.5", "+1.0", "+1.6"))  # what the terminal prints
    assert "| 1 | b | 25.00 | 28.00 | 1.00 | 1-3 |  | 3 | 2 | 1.67 | 16.00 | -2.5 |" in markdown(lb)
    files = write_files(lb, tmp_path)
    assert files
    data = json.loads((tmp_path / "leaderboard.json").read_text())
    assert {r["bot"]: r["luck"] for r in data["standings"]} == {"a": 1.0, "b": -2.5, "c": 1.625, "d": None}
    with open(tmp_path / "leaderboard.csv", newline="") as f:
        table = list(csv.DictReader(f))
    assert {r["bot"]: r["luck"] for r in table} == {"a": "1.0", "b": "-2.5", "c": "1.625", "d": ""}
    assert "luck: points per match the cards gave" in (tmp_path / "leaderboard.md").read_text()


def test_head_to_head(board: Leaderboard) -> None:
    assert board.head_to_head == (
        HeadToHead("a", "b", 2, 1, 0, 1),
        HeadToHead("a", "c", 2, 1, 1, 0),
        HeadToHead("b", "a", 2, 0, 1, 1),
        HeadToHead("b", "c", 3, 2, 1, 0),
        HeadToHead("c", "a", 2, 1, 1, 0),
        HeadToHead("c", "b", 3, 1, 2, 0),
    )
    assert board.pair("c", "b") == HeadToHead("c", "b", 3, 1, 2, 0)
    assert board.pair("a", "d") is None
    for line in board.head_to_head:
        assert line.ahead + line.behind + line.level == line.shared


def test_missing_rating_refused() -> None:
    with pytest.raises(ValueError, match="d"):
        build(RECORDS, {k: v for k, v in RATINGS.items() if k != "d"}, BOTS)


def test_with_real_ratings_is_deterministic() -> None:
    ratings = rate(RECORDS, RatingParams(), BOTS)
    first = build(RECORDS, ratings, BOTS)
    again = build(list(reversed(RECORDS)), rate(list(reversed(RECORDS)), RatingParams(), BOTS), BOTS)
    assert first == again
    exposures = [s.exposure for s in first.standings]
    assert exposures == sorted(exposures, reverse=True)
    assert [s.rank for s in first.standings] == [1, 2, 3, 4]


def test_text_columns(board: Leaderboard) -> None:
    lines = text(board, wide=True, width=100).splitlines()
    header, rows = lines[0], lines[1:5]
    for title in ("rank", "bot", "mu-3σ", "mu", "sigma", "95% rank", "P(>next)", "matches", "wins", "avg place",
                  "avg total", "luck", "faults"):
        assert title in header
    # b is ranked first by mu-3σ; no pair shared 20 deals, so P(>next) claims nothing yet: blank; these records
    # were not measured, so luck is "-".
    assert rows[0].split()[:12] == ["1", "b", "25.00", "28.00", "1.00", "1-3", "3", "2", "1.67", "16.00", "-", "1"]
    assert rows[1].split()[5:7] == ["1-2", "2"]
    assert rows[2].split()[5:7] == ["3-4", "3"]
    assert rows[0].endswith("exit:1")
    assert rows[1].split()[-1] == "-"
    assert rows[2].endswith("timeout:2 illegal:1")
    # d's chance of first place is 2.55% (c's too), right at the 2.5% cut: 4,000 seeded draws put c's interval
    # end on one side of it and d's on the other, the same on every run.
    assert rows[3].split()[5:10] == ["3-4", "0", "0", "-", "-"]  # the last row: no P(>next), blank
    ahead = header.index("P(>next)")
    assert all(row[ahead:ahead + len("P(>next)")].strip() == "" for row in rows)
    # Aligned: the bot column starts, and the right-aligned mu-3σ column ends, at the same offset everywhere.
    assert len({row.index(" " + bot + " ") for row, bot in zip(rows, "bacd")} | {header.index(" bot ")}) == 1
    end = header.index("mu-3σ") + len("mu-3σ")
    assert all(row[end - 5:end] in ("25.00", "24.00", " 5.00") for row in rows)
    assert "3 matches" in lines[-1]


def test_written_files(board: Leaderboard, tmp_path: Path) -> None:
    out = tmp_path / "out"
    paths = write_files(board, out)
    names = {"leaderboard.json", "leaderboard.csv", "leaderboard.md", "head_to_head.csv", "voided.csv"}
    assert {p.name for p in paths} == names
    assert set(os.listdir(out)) == names  # no temp files left behind

    data = json.loads((out / "leaderboard.json").read_text(encoding="utf-8"))
    assert data["matches"] == 3
    assert [s["bot"] for s in data["standings"]] == ["b", "a", "c", "d"]
    assert data["standings"][0] == {"rank": 1, "bot": "b", "exposure": 25.0, "mu": 28.0, "sigma": 1.0,
                                    "matches": 3, "wins": 2, "average_place": 1.667, "average_total": 16.0,
                                    "faults": {"exit": 1}, "forfeits": 1, "voided": 0, "mean_ms": 7.5,
                                    "max_ms": 20.0, "startup_ms": 70.0, "status": "ranked", "rank_interval": [1, 3],
                                    "p_ahead_next": None, "tier": 1, "next": "open", "luck": None}
    assert data["standings"][2]["average_total"] == 10.667
    assert data["standings"][2]["faults"] == {"timeout": 2, "illegal": 1}
    assert data["standings"][3]["average_place"] is None
    assert (data["standings"][3]["rank_interval"], data["standings"][3]["p_ahead_next"]) == ([3, 4], None)
    assert data["head_to_head"][3] == {"bot": "b", "opponent": "c", "shared": 3, "ahead": 2, "behind": 1,
                                       "level": 0}
    assert len(data["head_to_head"]) == 6
    assert data["voided"] == []

    with (out / "leaderboard.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["bot"] for r in rows] == ["b", "a", "c", "d"]
    assert rows[0] == {"rank": "1", "bot": "b", "exposure": "25.0", "mu": "28.0", "sigma": "1.0", "matches": "3",
                       "wins": "2", "average_place": "1.667", "average_total": "16.0", "forfeits": "1",
                       "faults": "exit:1", "voided": "0", "mean_ms": "7.5", "max_ms": "20.0",
                       "startup_ms": "70.0", "status": "ranked", "rank_low": "1", "rank_high": "3",
                       "p_ahead_next": "", "tier": "1", "next": "open", "luck": ""}
    assert rows[2]["faults"] == "timeout:2;illegal:1"
    assert rows[1]["faults"] == ""
    assert rows[3]["average_place"] == "" and rows[3]["matches"] == "0"
    assert (rows[3]["rank_low"], rows[3]["rank_high"], rows[3]["p_ahead_next"]) == ("3", "4", "")

    with (out / "head_to_head.csv").open(newline="", encoding="utf-8") as handle:
        pairs = list(csv.reader(handle))
    assert pairs[0] == ["bot", "opponent", "shared", "ahead", "behind", "level"]
    assert pairs[1:] == [[h.bot, h.opponent, str(h.shared), str(h.ahead), str(h.behind), str(h.level)]
                         for h in board.head_to_head]
    assert pairs[4] == ["b", "c", "3", "2", "1", "0"]

    assert (out / "voided.csv").read_text(encoding="utf-8") == "index,match,bots,reason\n"

    md = (out / "leaderboard.md").read_text(encoding="utf-8")
    assert ("| rank | bot | mu-3σ | mu | sigma | 95% rank | P(>next) | matches | wins | avg place | avg total | luck | forfeits "
            "| ms/move | max ms | start ms | faults |") in md
    assert ("| 3 | c | 5.00 | 20.00 | 5.00 | 3-4 |  | 3 | 1 | 2.00 | 10.67 | - | 0 | 10.0 | 40.0 | 200.0 "
            "| timeout:2 illegal:1 |") in md
    assert "95% rank: the ranks the bot holds in 95% of draws" in md
    assert "|  | b | a | c | d |" in md  # matrix header in rank order
    assert "| b | · | 0/2 | 2/3 | – |" in md
    assert "| c | 1/3 | 1/2 | · | – |" in md
    assert "finished strictly ahead" in md
    for bot in BOTS:
        assert f"| {bot} |" in md


def test_timing_columns_in_every_format(board: Leaderboard, tmp_path: Path) -> None:
    """Mean and slowest decision and mean start-up per bot, in the terminal, JSON, CSV and Markdown."""
    timing = {s.bot: (s.mean_ms, s.max_ms, s.startup_ms) for s in board.standings}
    assert timing == {"a": (5.0, 12.0, 110.0), "b": (7.5, 20.0, 70.0), "c": (10.0, 40.0, 200.0),
                      "d": (None, None, None)}
    lines = text(board, wide=True).splitlines()
    header = lines[0].split("  ")
    assert [t.strip() for t in header if t.strip()][-4:] == ["ms/move", "max ms", "start ms", "faults"]
    assert lines[1].split()[-4:] == ["7.5", "20.0", "70.0", "exit:1"]
    assert lines[4].split()[-4:] == ["-", "-", "-", "-"]
    assert "start ms: mean time from process start to ready" in text(board, wide=True, width=100)
    assert "start ms" not in text(board)  # the default columns leave the times to the wide view
    write_files(board, tmp_path)
    data = json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))
    assert [(s["mean_ms"], s["max_ms"], s["startup_ms"]) for s in data["standings"]] == [
        (7.5, 20.0, 70.0), (5.0, 12.0, 110.0), (10.0, 40.0, 200.0), (None, None, None)]
    with (tmp_path / "leaderboard.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert [(r["mean_ms"], r["max_ms"], r["startup_ms"]) for r in rows] == [
        ("7.5", "20.0", "70.0"), ("5.0", "12.0", "110.0"), ("10.0", "40.0", "200.0"), ("", "", "")]
    md = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    assert "| 2 | a | 24.00 | 30.00 | 2.00 | 1-2 |  | 2 | 1 | 1.50 | 6.00 | - | 0 | 5.0 | 12.0 | 110.0 | - |" in md
    assert "| 4 | d | 5.00 | 20.00 | 5.00 | 3-4 |  | 0 | 0 | - | - | - | 0 | - | - | - | - |" in md
    assert "ms/move: mean time per decision" in md
    # Records from before start-ups were timed (or voided ones) leave the start-up column empty, nothing else.
    old = build([MatchRecord(0, "m0", ("a", "b"), (1, 2), (1, 2), (False, False), (),
                             (SeatStats(3, 3.0, 2.0), SeatStats(1, 5.0, 5.0)))], RATINGS, BOTS)
    assert {s.bot: (s.mean_ms, s.max_ms, s.startup_ms) for s in old.standings}["a"] == (1.0, 2.0, None)


def test_rewrite_is_byte_identical(board: Leaderboard, tmp_path: Path) -> None:
    write_files(board, tmp_path)
    first = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    write_files(build(RECORDS, RATINGS, BOTS), tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == first


def test_no_negative_zero(tmp_path: Path) -> None:
    # A fresh bot's mu - 3 sigma is a rounding error away from zero; it must read 0, not -0.
    board = build([], {"z": trueskill.Rating(mu=25.0, sigma=25.0 / 3.0 + 1e-12)}, ["z"])
    assert "-0" not in text(board)
    write_files(board, tmp_path)
    assert json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))["standings"][0]["exposure"] == 0.0
    assert "-0" not in (tmp_path / "leaderboard.csv").read_text(encoding="utf-8")
    assert board.head_to_head == () and board.matches == 0


VOIDED = (VoidRecord(5, "c1/a+k/r1", ("k", "a"), "killed its worker process twice, SIGKILL each time"),
          VoidRecord(4, "c1/a+k/r0", ("a", "k"), "killed its worker process twice, SIGKILL each time"))


def test_voided_matches_count_nowhere_but_every_output_lists_them(board: Leaderboard, tmp_path: Path) -> None:
    voided = build(RECORDS, RATINGS | {"k": trueskill.Rating()}, BOTS + ["k"], VOIDED)
    plain = build(RECORDS, RATINGS | {"k": trueskill.Rating()}, BOTS + ["k"])
    assert [v.match_id for v in voided.voided] == ["c1/a+k/r0", "c1/a+k/r1"]  # schedule order
    assert voided.head_to_head == plain.head_to_head and voided.matches == plain.matches == 3
    strip = lambda s: {**s.__dict__, "voided": 0}  # noqa: E731
    assert [strip(s) for s in voided.standings] == [strip(s) for s in plain.standings]
    assert {s.bot: s.voided for s in voided.standings} == {"a": 2, "b": 0, "c": 0, "d": 0, "k": 2}

    line = "2 matches voided: c1/a+k/r0, c1/a+k/r1 (killed its worker process twice, SIGKILL each time)"
    assert text(voided, width=40).splitlines()[-1] == line  # whole, however narrow: ids a reader copies
    assert line not in text(voided, voided=False) and "voided" not in text(plain)

    write_files(voided, tmp_path)
    data = json.loads((tmp_path / "leaderboard.json").read_text(encoding="utf-8"))
    assert data["matches"] == 3
    assert data["voided"] == [
        {"index": 4, "match": "c1/a+k/r0", "bots": ["a", "k"], "reason": VOIDED[0].reason},
        {"index": 5, "match": "c1/a+k/r1", "bots": ["k", "a"], "reason": VOIDED[0].reason},
    ]
    assert {s["bot"]: s["voided"] for s in data["standings"]}["k"] == 2
    with (tmp_path / "voided.csv").open(newline="", encoding="utf-8") as handle:
        assert list(csv.reader(handle)) == [["index", "match", "bots", "reason"],
                                            ["4", "c1/a+k/r0", "a;k", VOIDED[0].reason],
                                            ["5", "c1/a+k/r1", "k;a", VOIDED[0].reason]]
    with (tmp_path / "leaderboard.csv").open(newline="", encoding="utf-8") as handle:
        assert {row["bot"]: row["voided"] for row in csv.DictReader(handle)}["a"] == "2"
    md = (tmp_path / "leaderboard.md").read_text(encoding="utf-8")
    assert "3 matches; 2 voided, not rated (listed at the end)" in md
    assert md.endswith("## Voided matches\n\nMatches whose worker process was killed twice while they were in play: "
                       "not rated, not counted above, not played again on resume.\n\n"
                       "| match | bots by seat | reason |\n|---|---|---|\n"
                       f"| c1/a+k/r0 | a, k | {VOIDED[0].reason} |\n| c1/a+k/r1 | k, a | {VOIDED[0].reason} |\n")


def test_voided_summary_groups_by_reason_and_names_at_most_ten() -> None:
    from arena.tournament.leaderboard import voided_summary

    many = [VoidRecord(i, f"m{i}", ("a", "b"), "why") for i in range(12)] + [VoidRecord(12, "x", ("a", "b"), "other")]
    assert voided_summary([]) == ""
    assert voided_summary(many[:1]) == "1 match voided: m0 (why)"
    assert voided_summary(many) == ("13 matches voided: m0, m1, m2, m3, m4, m5, m6, m7, m8, m9 and 2 more (why); "
                                    "x (other)")


LEAGUE = ("heuristic", "js-greedy", "c-random", "random")
"""The bundled league's bots (tournaments/league.yaml), best first."""


def league(names: tuple[str, ...] = LEAGUE, cycles: int = 50) -> Leaderboard:
    """A board like the bundled league's after its 200 matches: four seats, every rotation of each deal, places
    from fixed strengths and seeded noise, totals, luck and times of a real run's size, and the faults of a bot
    whose kit helper played for it (by kind the widest cell of the wide board) and a forfeit."""
    import random

    from arena.tournament.rating import rate

    rng = random.Random(2026)
    strength = dict(zip(names, (3.0, 2.8, 0.2, 0.0)))
    records = []
    for cycle in range(cycles):
        for rotation in range(4):
            bots = tuple(names[(seat + rotation) % 4] for seat in range(4))
            score = {bot: strength[bot] + rng.gauss(0, 1) for bot in bots}
            order = sorted(bots, key=lambda bot: -score[bot])
            places = tuple(order.index(bot) + 1 for bot in bots)
            faults = tuple((seat, kind) for seat, bot in enumerate(bots) if bot == names[3] and cycle % 2 and
                           not rotation for kind in ("timeout", "helper_fallback"))
            forfeited = tuple(bot == names[2] and cycle == 7 and rotation == 0 for bot in bots)
            stats = tuple(SeatStats(40, 40 * rng.uniform(0.1, 0.4), rng.uniform(5, 120), rng.uniform(30, 120))
                          for _ in bots)
            records.append(MatchRecord(4 * cycle + rotation, f"c{cycle + 1}/{'+'.join(sorted(names))}/r{rotation}",
                                       bots, places, tuple(rng.randint(0, 160) for _ in bots), forfeited, faults,
                                       stats, tuple(rng.gauss(0, 3) for _ in bots)))
    return build(records, rate(records, RatingParams(), list(names)), list(names))


def titles(line: str) -> list[str]:
    """The column titles of a table's header line (titles are separated by at least two spaces)."""
    return [title.strip() for title in line.split("  ") if title.strip()]


def under(shown: str, rows: int) -> list[str]:
    """The notes under a board of ``rows`` rows, each wrapped note joined back into one."""
    out: list[str] = []
    for line in shown.splitlines()[rows + 1:]:
        if line.startswith("  "):
            out[-1] += " " + line[2:]
        else:
            out.append(line)
    return out


@pytest.mark.parametrize("columns", [60, 100])
def test_the_league_s_default_board_fits_100_columns_and_its_notes_the_terminal(columns: int, monkeypatch) -> None:
    from arena.tournament.leaderboard import (AHEAD_NOTE, FAULTS_NOTE, INTERVAL_NOTE, LUCK_NOTE, TERMINAL_HEADER,
                                              TIER_NOTE)

    monkeypatch.setenv("COLUMNS", str(columns))
    board = league()
    assert board.matches == 200 and {s.bot for s in board.standings} == set(LEAGUE)
    shown = text(board)
    lines = shown.splitlines()
    assert titles(lines[0]) == list(TERMINAL_HEADER)
    assert max(len(line) for line in lines) <= 100  # rows and notes: nothing wraps on a terminal of 100
    assert all(len(line) <= columns for line in lines[5:])  # the notes fit the terminal, however narrow
    assert max(len(line) for line in lines[:5]) > 80  # the rows are not cut to fit 60: they are what they are
    assert [line.split()[1] for line in lines[1:5]] == [s.bot for s in board.standings]
    tier = any(s.tier_shared for s in board.standings)
    assert under(shown, 4) == [TIER_NOTE] * tier + [INTERVAL_NOTE, AHEAD_NOTE, LUCK_NOTE, FAULTS_NOTE,
                                                    f"200 matches; {board_ranking(board)}"]
    faulty = next(s for s in board.standings if s.bot == "random")
    assert faulty.faults == {"timeout": 25, "helper_fallback": 25}
    assert lines[1 + board.standings.index(faulty)].split()[-1] == "50"  # the count; --wide names the kinds


def board_ranking(board: Leaderboard) -> str:
    from arena.tournament.leaderboard import ranking_note

    return ranking_note(board)


def test_the_wide_board_shows_every_column_and_the_notes_of_its_columns_only(monkeypatch) -> None:
    from arena.tournament.leaderboard import (FAULTS_NOTE, MAX_MS_NOTE, MOVE_NOTE, START_NOTE, TEXT_HEADER,
                                              TERMINAL_HEADER)

    monkeypatch.setenv("COLUMNS", "100")
    board = league()
    wide = text(board, wide=True)
    header = wide.splitlines()[0]
    assert titles(header) == list(TEXT_HEADER)
    assert f"| {' | '.join(TEXT_HEADER)} |" in markdown(board)  # leaderboard.md keeps every column
    assert set(TERMINAL_HEADER) < set(TEXT_HEADER)
    assert "timeout:25 helper_fallback:25" in wide and "helper_fallback" not in text(board)
    notes = under(wide, 4)
    assert {MOVE_NOTE, MAX_MS_NOTE, START_NOTE} <= set(notes) and FAULTS_NOTE not in notes
    assert not {MOVE_NOTE, MAX_MS_NOTE, START_NOTE} & set(under(text(board), 4))
    assert max(len(line) for line in wide.splitlines()[:5]) > 100  # every column: wider than the default


def test_a_tier_s_note_only_under_a_board_that_shows_one() -> None:
    import dataclasses

    from arena.tournament.leaderboard import TIER_NOTE

    board = league()
    alone = dataclasses.replace(board, standings=tuple(dataclasses.replace(s, tier=s.rank, tier_shared=False)
                                                       for s in board.standings))
    tiered = dataclasses.replace(board, standings=tuple(dataclasses.replace(s, tier=1, tier_shared=True)
                                                        for s in board.standings))
    assert TIER_NOTE not in under(text(alone, width=200), 4)
    assert under(text(tiered, width=200), 4)[0] == TIER_NOTE
    assert [line.split()[0] for line in text(tiered).splitlines()[1:5]] == ["1="] * 4


def test_a_name_longer_than_the_room_is_never_cut_and_the_notes_still_wrap(monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    long = "a-bot-whose-author-gave-it-a-name-far-longer-than-any-column-should-hold"
    board = league((long, *LEAGUE[1:]))
    lines = text(board).splitlines()
    assert sum(long in line for line in lines[1:5]) == 1 and max(len(line) for line in lines[:5]) > 100
    assert all(len(line) <= 100 for line in lines[5:])
