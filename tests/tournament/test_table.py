"""The terminal layout of every board: aligned columns, and notes wrapped to the terminal's width."""

from __future__ import annotations

import os

import pytest

from arena.tournament.table import NARROWEST, TEXT_WIDTH, aligned, notes, terminal_width

NOTES = ["95% rank: the ranks the bot holds in 95% of draws from the rating model, reconciled with the claims",
         "luck: points per match the cards gave the bot over the expected cards (+: more points, worse luck; the "
         "referee's measure, docs/tournaments.md \"Luck and skill\")",
         "short note",
         "",
         "a-name-longer-than-any-terminal-" + "x" * 120 + " then words"]


def unwrapped(lines: list[str]) -> list[str]:
    """The notes back from their wrapped lines: a continuation line (indented two spaces) joins the one before."""
    out: list[str] = []
    for line in lines:
        if line.startswith("  "):
            out[-1] += " " + line[2:]
        else:
            out.append(line)
    return out


@pytest.mark.parametrize("width", [40, 60, 100])
def test_each_note_is_wrapped_to_the_width_whole_and_apart(width: int) -> None:
    lines = notes(NOTES, width)
    assert unwrapped(lines) == NOTES  # every word kept, in order, each note starting a line of its own
    long = NOTES[-1].split()[0]
    assert long in lines  # a word longer than the width is never cut: it stands whole on a line of its own
    assert all(len(line) <= width for line in lines if line != long)
    assert len(lines) > len(NOTES)  # the long ones did wrap


def test_a_hyphenated_title_is_never_split() -> None:
    lines = notes(["ranked by mu-3σ (conservative TrueSkill: mu minus 3 sigma), ties by name; " * 3], 30)
    assert all(not line.rstrip().endswith("mu-") for line in lines)
    assert sum(line.count("mu-3σ") for line in lines) == 3


def test_a_width_below_the_narrowest_is_raised_to_it() -> None:
    assert notes(["word " * 30], 5) == notes(["word " * 30], NARROWEST)


def test_the_width_is_the_terminal_s_columns_else_100(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    assert terminal_width() == 60
    assert max(len(line) for line in notes(NOTES[:2])) <= 60
    monkeypatch.setenv("COLUMNS", "132")
    assert terminal_width() == 132
    monkeypatch.delenv("COLUMNS")

    def no_terminal(*_: object) -> os.terminal_size:
        raise OSError("not a terminal")

    monkeypatch.setattr(os, "get_terminal_size", no_terminal)  # a pipe, a file, a test runner's capture
    assert terminal_width() == TEXT_WIDTH == 100
    assert max(len(line) for line in notes(NOTES[:2])) <= 100 < len(NOTES[1])


def test_columns_are_aligned_names_left_numbers_right() -> None:
    assert aligned([["#", "bot", "score"], ["1", "long-name", "3.5"], ["10", "b", "12.25"]], {1}) == [
        " #  bot        score", " 1  long-name    3.5", "10  b          12.25"]
    assert aligned([]) == []
