"""One renderer interface for every board: the leaderboard and a ladder's own board.

A board is a :class:`Board`: the files it is published as (by name, one per format: JSON, CSV,
Markdown, and a ladder's text), what a terminal shows of it (the columns a reader needs, fitting
:data:`.table.TEXT_WIDTH`; every column when wide), and its main table's cells, which the report draws
as HTML (``arena/site/templates/board_table.html``). :func:`write` publishes any board, each file
replaced atomically; ``arena leaderboard`` prints any board in any of :data:`FORMATS` (:func:`formatted`).
Inside a board, its table of cells is one :class:`Table`, drawn as aligned terminal columns or as a
Markdown table by the same rule (names left, numbers right), and its machine rows are
:func:`csv_text`, so the two boards never disagree on how a format looks.
"""

from __future__ import annotations

import csv
import io
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Collection, Iterable, Mapping, Protocol, Sequence

from .table import aligned

TEXT = "text"
"""The format of :meth:`Board.terminal`."""
FORMATS: tuple[str, ...] = (TEXT, "md", "csv", "json")
"""What ``arena leaderboard --format`` prints: the terminal's board, or the board's Markdown, CSV or JSON file."""


class Board(Protocol):
    """What a board is to those who publish and print it."""

    def files(self) -> Mapping[str, str]:
        """Every file it is published as, by name, each whole."""

    def names(self) -> Mapping[str, str]:
        """The name of its standings file in each format but text (``md``, ``csv``, ``json``: keys of
        :meth:`files`)."""

    def terminal(self, everything: bool = False, wide: bool = False, width: int | None = None) -> str:
        """What a terminal shows: its default columns (within :data:`.table.TEXT_WIDTH` unless a name is longer
        than the room), or with ``wide`` every column; under the rows a note per column shown, wrapped to
        ``width`` (None: the terminal's, :func:`.table.terminal_width`). ``everything``: the rows it keeps apart
        too (a ladder's replaced versions)."""

    def table(self, everything: bool = False, wide: bool = False) -> "Table":
        """Its main table's cells, the same the terminal draws (``wide``: every column) and the report draws."""


def formatted(board: Board, form: str = TEXT, everything: bool = False, wide: bool = False,
              width: int | None = None) -> str:
    """``board`` in the format ``form`` (one of :data:`FORMATS`): text is :meth:`Board.terminal`, the others the
    content of its file in that format, as :func:`write` publishes it."""
    if form == TEXT:
        return board.terminal(everything, wide, width)
    if form not in FORMATS:
        raise ValueError(f"unknown format {form!r}: one of {', '.join(FORMATS)}")
    return board.files()[board.names()[form]]


@dataclass(frozen=True)
class Table:
    """A board's cells: a header, rows as long, and the columns read better left-aligned (names, words)."""

    header: Sequence[str]
    rows: Sequence[Sequence[str]]
    left: Collection[int] = ()

    def text(self) -> list[str]:
        """Aligned columns for a terminal (:func:`.table.aligned`)."""
        return aligned([list(self.header), *(list(row) for row in self.rows)], self.left)

    def markdown(self) -> list[str]:
        """A Markdown table: the header, its alignment row (numbers right), the rows, every cell escaped."""
        align = "|" + "|".join("---" if col in self.left else "---:" for col in range(len(self.header))) + "|"
        return [markdown_row(self.header), align, *(markdown_row(row) for row in self.rows)]


def markdown_row(cells: Sequence[str]) -> str:
    """One Markdown table row, its cells escaped."""
    return "| " + " | ".join(cell.replace("\\", "\\\\").replace("|", "\\|") for cell in cells) + " |"


def csv_text(rows: Iterable[Sequence[object]]) -> str:
    """``rows`` as CSV text, one line each."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerows(rows)
    return out.getvalue()


def write_atomic(path: Path, content: str) -> None:
    """Write via a temp file in the same directory, then ``os.replace``: readers see old or new, never half."""
    handle, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.chmod(temp, 0o644)  # mkstemp makes 0600; boards are meant to be read by others
        with os.fdopen(handle, "w", encoding="utf-8", newline="") as out:
            out.write(content)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


def write(board: Board, directory: str | os.PathLike[str]) -> list[Path]:
    """Publish ``board`` into ``directory`` (created if missing): each of its files replaced atomically, so
    whoever reads them during a run sees a whole file. Returns their paths."""
    target = Path(directory)
    target.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, content in board.files().items():
        path = target / name
        write_atomic(path, content)
        paths.append(path)
    return paths
