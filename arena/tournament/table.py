"""Aligned columns and wrapped notes for a terminal: the one layout of the leaderboard and the ladder's board.

Both boards are read side by side (``arena leaderboard`` of a tournament, ``ladder.txt``), so
they are laid out by one rule: each column as wide as its widest cell, two spaces between
columns, names and words left-aligned, numbers right-aligned, no trailing spaces. The notes under
a table are one per column explained, each wrapped to the width of the terminal (:func:`notes`).
"""

from __future__ import annotations

import shutil
import textwrap
from typing import Collection, Iterable, Sequence

TEXT_WIDTH = 100
"""The width a board's default columns are chosen to fit (with names as long as the bundled bots'), and the
width its notes are wrapped to when there is no terminal to ask (a pipe, a file such as ``ladder.txt``)."""
NARROWEST = 20
"""Notes are never wrapped narrower than this, whatever the terminal says."""


def aligned(rows: Sequence[Sequence[str]], left: Collection[int] = ()) -> list[str]:
    """``rows`` (the header first; every row as long as the first) as lines of aligned columns; the columns
    numbered in ``left`` are left-aligned, the others right-aligned."""
    if not rows:
        return []
    widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) if col in left else cell.rjust(width)
                      for col, (cell, width) in enumerate(zip(row, widths))).rstrip()
            for row in rows]


def terminal_width() -> int:
    """The columns of the terminal printed to (``COLUMNS`` when set), else :data:`TEXT_WIDTH`."""
    return shutil.get_terminal_size((TEXT_WIDTH, 24)).columns


def notes(lines: Iterable[str], width: int | None = None) -> list[str]:
    """Each of ``lines`` wrapped to ``width`` columns (None: :func:`terminal_width`), its continuation lines
    indented by two spaces so that each note stands apart. Words are never cut: one longer than the width (a
    path, a long bot name) stays whole on a line of its own."""
    room = max(NARROWEST, terminal_width() if width is None else width)
    out: list[str] = []
    for line in lines:
        out += textwrap.wrap(line, room, subsequent_indent="  ", break_long_words=False,
                             break_on_hyphens=False) or [""]
    return out
