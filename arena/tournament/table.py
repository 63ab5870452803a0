"""Aligned columns for a terminal: the one table writer of the leaderboard and the ladder's board.

Both boards are read side by side (``arena leaderboard`` of a tournament, ``ladder.txt``), so
they are laid out by one rule: each column as wide as its widest cell, two spaces between
columns, names and words left-aligned, numbers right-aligned, no trailing spaces.
"""

from __future__ import annotations

from typing import Collection, Sequence


def aligned(rows: Sequence[Sequence[str]], left: Collection[int] = ()) -> list[str]:
    """``rows`` (the header first; every row as long as the first) as lines of aligned columns; the columns
    numbered in ``left`` are left-aligned, the others right-aligned."""
    if not rows:
        return []
    widths = [max(len(row[col]) for row in rows) for col in range(len(rows[0]))]
    return ["  ".join(cell.ljust(width) if col in left else cell.rjust(width)
                      for col, (cell, width) in enumerate(zip(row, widths))).rstrip()
            for row in rows]
