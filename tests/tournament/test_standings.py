"""One store, one set of standings: the leaderboard files a run writes, ``arena leaderboard`` and the report's
leaderboard list the same players in the same order with the same ranks, numbers and statuses."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.site.data import compute, leaderboard_rows, read_snapshot

Line = tuple[int | None, str, int, str]
"""(rank, player, matches, status) of one line of a board."""


def cli(*args: str) -> list[str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == 0, result.output
    return result.output.splitlines()


def rank(cell: str) -> int | None:
    return None if cell == "-" else int(cell)


def confident(cells: list[str], at: int) -> tuple[str, str, list[str]]:
    """(rank interval, P(>next), the cells after them) of a printed board row whose interval is cell ``at``:
    the last ranked row's P(>next) is blank, so it is no cell of ``line.split()``."""
    if "." in cells[at + 1]:
        return cells[at], cells[at + 1], cells[at + 2:]
    return cells[at], "", cells[at + 1:]


def printed_p(value: object) -> str:
    """P(>next) of a file as the terminal prints it."""
    if value is None:
        return ""
    p = float(str(value))
    return ">0.99" if p >= 0.995 else "<0.01" if p < 0.005 else f"{p:.2f}"


def files(output: Path) -> list[dict[str, object]]:
    return list(json.loads((output / "leaderboard.json").read_text())["standings"])


def site(output: Path) -> list[dict[str, object]]:
    return leaderboard_rows(compute(read_snapshot(output)).board)


def test_a_tournament_has_one_set_of_standings(played_round_robin: Path) -> None:
    written = files(played_round_robin)
    shown = site(played_round_robin)
    lines = cli("leaderboard", str(played_round_robin))
    assert lines[0] == "12 of 12 matches finished"
    printed = [line.split() for line in lines[2:2 + len(written)]]

    numbers = [(s["rank"], s["bot"], s["exposure"], s["mu"], s["sigma"], s["matches"], s["wins"], s["forfeits"])
               for s in written]
    assert numbers == [(s["rank"], s["bot"], s["exposure"], s["mu"], s["sigma"], s["matches"], s["wins"],
                        s["forfeits"]) for s in shown]
    assert [(rank(p[0]), p[1], int(confident(p, 5)[2][0]), int(confident(p, 5)[2][1])) for p in printed] == \
        [(s["rank"], s["bot"], s["matches"], s["wins"]) for s in written]
    sure = [(s["rank_interval"], s["p_ahead_next"]) for s in written]
    assert sure == [(s["rank_interval"], s["p_ahead_next"]) for s in shown]
    assert [confident(p, 5)[:2] for p in printed] == [(f"{low}-{high}", printed_p(p_next))
                                                     for (low, high), p_next in sure]
    assert sure[-1][1] is None  # the last: nobody to be ahead of; the others: blank before 20 deals of a pair
    assert all(p_next is None or 0 <= float(str(p_next)) <= 1 for _, p_next in sure)
    assert [s["tier"] for s in written] == [s["tier"] for s in shown]
    for cells, standing in zip(printed, written):  # two decimals printed, three written
        assert abs(float(cells[2]) - float(standing["exposure"])) <= 0.0051
    assert {s["bot"] for s in written} == {"random", "heuristic", "illegal", "writer"}
    assert [s["rank"] for s in written] == [1, 2, 3, 4]


def test_a_ladder_has_one_set_of_standings(played_ladder: Path) -> None:
    output = played_ladder.parent / "out"
    written: list[Line] = [(s["rank"], s["bot"], s["matches"], s["status"])
                           for s in files(output)]
    own: list[Line] = [(r["rank"], f"{r['name']}@v{r['version']}", r["matches"], r["status"])
                       for r in json.loads((output / "ladder.json").read_text())]
    shown: list[Line] = [(s["rank"], s["bot"], s["matches"], s["status"] or "ranked") for s in site(output)]
    lines = cli("leaderboard", str(output), "--all")
    assert lines[0].startswith("ladder: ") and lines[1].split()[:3] == ["#", "bot", "version"]
    printed: list[Line] = [(rank(cells[0]), f"{cells[1]}@{cells[2]}", int(confident(cells, 4)[2][0]), cells[-1])
                           for cells in (line.split() for line in lines[2:2 + len(own)])]
    assert written == own == shown == printed
    sure = [(s["rank_interval"], s["p_ahead_next"]) for s in files(output)]
    assert sure == [(r["rank_interval"], r["p_ahead_next"]) for r in json.loads((output / "ladder.json").read_text())]
    assert sure == [(s["rank_interval"], s["p_ahead_next"]) for s in site(output)]
    assert [bool(interval) for interval, _ in sure] == [r == "ranked" for *_, r in written]
    statuses = {player: status for _, player, _, status in written}
    assert statuses["ann@v1"] == "replaced" and statuses["carl@v1"] == "retired" and statuses["bob@v1"] == "ranked"
    assert statuses["dan@v1"] in ("placement", "ranked")  # joined late: placed once it has 4 matches
    exposures = {s["bot"]: s["exposure"] for s in files(output)}
    assert exposures == {s["bot"]: s["exposure"] for s in site(output)}
