"""One store, one set of standings: the leaderboard files a run writes, ``arena leaderboard`` and the report's
leaderboard list the same players in the same order with the same ranks, numbers and statuses."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from statistics import StatisticsError
from typing import NoReturn

from click.testing import CliRunner, Result

from arena.cli import main
from arena.site.data import compute, leaderboard_rows, read_snapshot
from arena.tournament import leaderboard
from arena.tournament.store import ResultStore

from .test_store import two_bots

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
    assert [(rank(p[0]), p[1], int(confident(p, 3)[2][0]), int(confident(p, 3)[2][1])) for p in printed] == \
        [(s["rank"], s["bot"], s["matches"], s["wins"]) for s in written]
    sure = [(s["rank_interval"], s["p_ahead_next"]) for s in written]
    assert sure == [(s["rank_interval"], s["p_ahead_next"]) for s in shown]
    assert [confident(p, 3)[:2] for p in printed] == [(f"{low}-{high}", printed_p(p_next))
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


def _degenerate(*args: object, **kwargs: object) -> NoReturn:
    """What NormalDist says of a spread of 0: a board computation that fails on a degenerate input."""
    raise StatisticsError("cdf() not defined when sigma at or below zero")


def _one_line(result: Result) -> str:
    """The last line of a command that failed in one line (exit status 1, no traceback)."""
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, (result.exception, result.output)
    assert "Traceback" not in result.output
    return result.output.strip().splitlines()[-1]


def test_a_board_that_cannot_be_computed_ends_the_run_in_one_line_with_every_match_kept(tmp_path: Path,
                                                                                         monkeypatch) -> None:
    """The run stored its matches, then its board raised: the traceback once hid that they were kept."""
    out = tmp_path / "store"
    monkeypatch.setattr(leaderboard, "rank_intervals", _degenerate)
    line = _one_line(CliRunner().invoke(main, ["run", str(two_bots(tmp_path))]))
    assert line == (f"Error: {out / 'results.sqlite'}: the board could not be computed (StatisticsError: cdf() not "
                    "defined when sigma at or below zero); every stored match is kept, and the leaderboard files and "
                    "the report were not brought up to date")
    store = ResultStore(out, readonly=True)
    try:
        assert store.count() == 2 and len(list((out / "replays").iterdir())) == 2
    finally:
        store.close()
    assert not (out / "leaderboard.md").exists() and not (out / "report").exists()
    for command in ("leaderboard", "report"):
        assert _one_line(CliRunner().invoke(main, [command, str(out)])) == \
            f"Error: {out / 'results.sqlite'}: the board could not be computed (StatisticsError: cdf() not defined " \
            "when sigma at or below zero)"
    monkeypatch.undo()
    assert cli("leaderboard", str(out))[0] == "2 of 2 matches finished"


def test_rating_parameters_stored_out_of_range_by_an_older_arena_are_said_and_replaced_by_the_next_run(
        tmp_path: Path) -> None:
    """``rating: {sigma: 1.0e-300}`` once passed: its store overflowed every later ``arena leaderboard``."""
    path = two_bots(tmp_path)
    out = tmp_path / "store"
    cli("run", str(path), "--no-report")
    db = sqlite3.connect(out / "results.sqlite")
    with db:
        db.execute("UPDATE meta SET value = '{\"sigma\": 1e-300}' WHERE key = 'rating'")
    db.close()
    for command in ("leaderboard", "report"):
        assert _one_line(CliRunner().invoke(main, [command, str(out)])) == (
            f"Error: {out / 'results.sqlite'}: the board could not be computed: rating parameter sigma must be a "
            "number from 0.00416667 to 41.6667 (beta/1000 to 10 beta), got 1e-300, as an earlier run stored it; run "
            "the tournament file again, which stores its own rating parameters")
    lines = cli("run", str(path), "--no-report")
    assert "all 2 matches are stored: nothing to play" in lines[0] and lines[1].startswith("rank  bot")
    assert cli("leaderboard", str(out))[0] == "2 of 2 matches finished"


def test_each_format_prints_the_content_of_the_board_s_file(played_round_robin: Path, played_ladder: Path) -> None:
    """``arena leaderboard --format md|csv|json`` prints exactly what the run wrote into leaderboard.md, .csv and
    .json (a ladder's ladder.md, .csv, .json), nothing else on stdout; text is the default."""
    for out, stem in ((played_round_robin, "leaderboard"), (played_ladder.parent / "out", "ladder")):
        for form in ("md", "csv", "json"):
            result = CliRunner().invoke(main, ["leaderboard", str(out), "--format", form])
            assert result.exit_code == 0, result.output
            assert result.stdout == (out / f"{stem}.{form}").read_text(encoding="utf-8")
        assert cli("leaderboard", str(out), "--format", "text") == cli("leaderboard", str(out))
    given = CliRunner().invoke(main, ["leaderboard", str(played_ladder), "--format", "csv"])  # the ladder's file
    assert given.exit_code == 0 and given.stdout == (played_ladder.parent / "out" / "ladder.csv").read_text()


def test_a_bad_format_or_wide_off_text_is_refused_by_click(played_round_robin: Path) -> None:
    bad = CliRunner().invoke(main, ["leaderboard", str(played_round_robin), "--format", "xml"])
    assert bad.exit_code == 2 and "Invalid value for '--format': 'xml' is not one of 'text', 'md', 'csv', 'json'." \
        in bad.output
    for flag in ("--wide", "--all"):
        refused = CliRunner().invoke(main, ["leaderboard", str(played_round_robin), "--format", "json", flag])
        assert refused.exit_code == 2 and f"Error: {flag} applies to --format text only" in refused.output


def test_wide_prints_every_column_of_a_tournament_and_of_a_ladder(played_round_robin: Path,
                                                                   played_ladder: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")
    default = cli("leaderboard", str(played_round_robin))
    wide = cli("leaderboard", str(played_round_robin), "--wide")
    assert [t.strip() for t in wide[1].split("  ") if t.strip()] == list(leaderboard.TEXT_HEADER)
    assert [t.strip() for t in default[1].split("  ") if t.strip()] == list(leaderboard.TERMINAL_HEADER)
    assert all(len(line) <= 100 for line in default) and max(len(line) for line in wide) > 100
    assert "illegal:" in "\n".join(wide) and "illegal:" not in "\n".join(default)  # the fault kinds: wide only
    ladder = cli("leaderboard", str(played_ladder.parent / "out"), "--wide")
    assert [t.strip() for t in ladder[1].split("  ") if t.strip()][3:6] == ["mu-3σ", "mu", "sigma"]


def test_run_prints_the_default_board_or_with_wide_every_column(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    path = two_bots(tmp_path)
    lines = cli("run", str(path), "--no-report")
    header = next(line for line in lines if line.startswith("rank  bot"))
    assert "ms/move" not in header and "95% rank" in header
    assert all(len(line) <= 60 for line in lines[lines.index(header) + 3:] if not line.startswith("results: "))
    again = cli("run", str(path), "--no-report", "--wide")
    assert "ms/move" in next(line for line in again if line.startswith("rank  bot"))
