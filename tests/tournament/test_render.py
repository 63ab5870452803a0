"""One renderer interface for both boards: the leaderboard and a ladder's board are each a ``render.Board``,
published by one writer and printed by one call, their tables drawn by one rule in every format."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import trueskill

from arena.tournament import render
from arena.tournament.ladder.board import LadderBoard, LadderRow
from arena.tournament.leaderboard import build
from arena.tournament.records import MatchRecord

HOSTILE = "a|b\\c"
"""A bot name with a Markdown cell separator and a backslash in it."""


def boards() -> dict[str, render.Board]:
    ratings = {HOSTILE: trueskill.Rating(30.0, 2.0), "plain": trueskill.Rating(20.0, 3.0)}
    record = MatchRecord(0, "m0", (HOSTILE, "plain"), (1, 2), (3, 9), (False, False), ())
    rows = [LadderRow(HOSTILE, 1, 24.0, 30.0, 2.0, 1, None, "ranked", 1, (1, 1), None, 1),
            LadderRow("plain", 2, 11.0, 20.0, 3.0, 1, None, "ranked", 2, (2, 2), None, 2),
            LadderRow("plain", 1, 5.0, 20.0, 5.0, 0, None, "replaced")]
    return {"leaderboard": build([record], ratings, [HOSTILE, "plain"]), "ladder": LadderBoard(rows)}


@pytest.mark.parametrize("kind", ["leaderboard", "ladder"])
def test_every_board_is_published_by_one_writer_and_printed_by_one_call(kind: str, tmp_path: Path) -> None:
    board = boards()[kind]
    files = board.files()
    paths = render.write(board, tmp_path / "out")
    assert sorted(p.name for p in paths) == sorted(files) == sorted(os.listdir(tmp_path / "out"))  # no temp left
    assert {p.name: p.read_text(encoding="utf-8") for p in paths} == files
    shown = board.terminal()
    assert shown.endswith("\n") and HOSTILE in shown
    markdown = next(content for name, content in files.items() if name.endswith(".md"))
    assert "| a\\|b\\\\c |" in markdown  # escaped, the same way on both boards
    assert HOSTILE not in markdown.replace("a\\|b\\\\c", "")


def test_the_two_boards_draw_their_tables_by_one_rule() -> None:
    """Names left, numbers right, two spaces between columns, no trailing spaces; in Markdown the same
    columns left-aligned as in the terminal."""
    table = render.Table(["#", "bot", "score"], [["1", "long-name", "3.5"], ["10", "b", "12.25"]], {1})
    assert table.text() == [" #  bot        score", " 1  long-name    3.5", "10  b          12.25"]
    assert table.markdown() == ["| # | bot | score |", "|---:|---|---:|", "| 1 | long-name | 3.5 |",
                                "| 10 | b | 12.25 |"]
    for shown in (board.terminal(everything=True) for board in boards().values()):
        assert all(line == line.rstrip() for line in shown.splitlines())


def test_a_ladder_board_keeps_its_replaced_versions_apart_on_the_terminal_only() -> None:
    ladder = boards()["ladder"]
    assert ladder.terminal().count("plain") == 1 and "1 older version hidden" in ladder.terminal()
    assert ladder.terminal(everything=True).count("plain") == 2
    assert ladder.files()["ladder.csv"].count("plain") == 2  # the files always hold every version
    assert ladder.files()["ladder.txt"] == ladder.terminal()


def test_failed_write_keeps_old_file_and_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = tmp_path / "leaderboard.json"
    target.write_text("old", encoding="utf-8")

    def broken(src: str, dst: str) -> None:
        raise OSError("disk gone")

    monkeypatch.setattr(os, "replace", broken)
    with pytest.raises(OSError, match="disk gone"):
        render.write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["leaderboard.json"]



@pytest.mark.parametrize("kind", ["leaderboard", "ladder"])
def test_every_board_offers_the_cells_its_terminal_and_markdown_draw(kind: str) -> None:
    """The report draws a board's :meth:`~render.Board.table`: the same cells its terminal form and its Markdown
    file show."""
    board = boards()[kind]
    table = board.table()
    assert board.terminal().splitlines()[:len(table.rows) + 1] == table.text()
    wide = board.table(wide=True)
    assert board.terminal(wide=True).splitlines()[:len(wide.rows) + 1] == wide.text()
    assert len(wide.header) > len(table.header) and set(table.header) < set(wide.header)
    markdown = next(content for name, content in board.files().items() if name.endswith(".md"))
    drawn = wide if kind == "leaderboard" else table  # leaderboard.md keeps every column; ladder.md its own
    assert "\n".join(drawn.markdown()) in markdown
    assert len(board.table(everything=True).rows) == (3 if kind == "ladder" else 2)


@pytest.mark.parametrize("kind", ["leaderboard", "ladder"])
def test_every_board_prints_each_format_as_its_file(kind: str) -> None:
    """``arena leaderboard --format``: text is the terminal's board, md, csv and json the content of the board's own
    file of that format."""
    board = boards()[kind]
    stem = "leaderboard" if kind == "leaderboard" else "ladder"
    assert render.FORMATS == ("text", "md", "csv", "json")
    for form in ("md", "csv", "json"):
        assert render.formatted(board, form) == board.files()[f"{stem}.{form}"]
    assert render.formatted(board) == board.terminal() and render.formatted(board, "text", wide=True) == \
        board.terminal(wide=True)
    with pytest.raises(ValueError, match="unknown format 'xml'"):
        render.formatted(board, "xml")


def test_a_ladder_board_from_the_leaderboard_of_its_versions_keeps_every_number() -> None:
    """The report makes a ladder's board from the leaderboard it rated (keys ``NAME@vK``): name and version
    apart, ratings, order, intervals and status as they were, the last match's time from the rows."""
    ratings = {"ann@v2": trueskill.Rating(30.0, 2.0), "bob@v1": trueskill.Rating(20.0, 3.0)}
    record = MatchRecord(0, "m0", ("ann@v2", "bob@v1"), (1, 2), (3, 9), (False, False), (), (), (-1.5, 2.25))
    leaderboard = build([record], ratings, ["ann@v2", "bob@v1"])
    ladder = LadderBoard.of(leaderboard, {"ann@v2": 1_780_000_000.0})
    assert [(r.name, r.version, r.rank, r.mu, r.sigma, r.rank_interval, r.status) for r in ladder.rows] == [
        (s.bot.split("@v")[0], int(s.bot.split("@v")[1]), s.rank, s.mu, s.sigma, s.rank_interval, s.status)
        for s in leaderboard.standings]
    assert [r.last_played for r in ladder.rows] == [1_780_000_000.0, None]
    assert ladder.table().rows[0][8] == "2026-05-28 20:26" and ladder.table().rows[1][8] == "-"
    assert [r.luck for r in ladder.rows] == [-1.5, 2.25] and [row[7] for row in ladder.table().rows] == ["-1.5", "+2.2"]
