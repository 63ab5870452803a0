"""The ladder's own standings: per entry its version, rating, matches, last match and status.

The usual leaderboard files (by player key ``NAME@vK``) are written too; this adds
what only a ladder has: which entries are still in placement, which left the field.
Ranked entries come first by conservative rating, then those in placement, then the
replaced and retired ones, so the top of the list is always who is really ranked.
The terminal and Markdown boards show the current field (no replaced versions) unless asked
for everything; the JSON and CSV files always hold every version.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence

import trueskill

from ..leaderboard import _csv, _md_row, _number, _rounded, write_atomic
from ..rating import RatingParams, exposure
from .entries import ACTIVE, Entry, entries
from .kept import read

JSON_NAME = "ladder.json"
TEXT_NAME = "ladder.txt"
CSV_NAME = "ladder.csv"
MARKDOWN_NAME = "ladder.md"
PLACEMENT = "placement"
RANKED = "ranked"
REPLACED = "replaced"
RETIRED = "retired"
ORDER = {RANKED: 0, PLACEMENT: 1}
"""Status groups in board order; every other status (replaced, retired) after them."""
TEXT_HEADER: tuple[str, ...] = ("#", "bot", "version", "rating", "matches", "last played (UTC)", "status")
"""Column titles of the terminal board and of ``ladder.md``."""
LEFT = frozenset({1, 5, 6})
"""Columns that read better left-aligned (name, time, status); numbers are right-aligned."""
CSV_COLUMNS: tuple[str, ...] = ("rank", "bot", "version", "rating", "mu", "sigma", "matches", "last_played",
                                "status")
"""Column order of ``ladder.csv``."""
EMPTY = "(no bot entered yet: arena submit LADDER.yaml BOT_DIR)"


@dataclass(frozen=True)
class LadderRow:
    """One entry's line."""

    name: str
    version: int
    rating: float
    """mu - 3 sigma."""
    mu: float
    sigma: float
    matches: int
    last_played: float | None
    """Unix time its last stored match finished; None before its first."""
    status: str
    """``ranked``, ``placement`` (fewer than ``placement_matches``), ``replaced`` or ``retired``."""


def rows(field: Sequence[Entry], ratings: Mapping[str, trueskill.Rating], counts: Mapping[str, int],
         last: Mapping[str, float], placement: int, fresh: trueskill.Rating) -> list[LadderRow]:
    """The board, best first (``fresh``: the rating of an entry without matches)."""
    out = []
    for entry in field:
        rating = ratings.get(entry.key, fresh)
        played = counts.get(entry.key, 0)
        status = entry.status if entry.status != ACTIVE else PLACEMENT if played < placement else RANKED
        out.append(LadderRow(entry.name, entry.version, exposure(rating), float(rating.mu), float(rating.sigma),
                             played, last.get(entry.key), status))
    return sorted(out, key=lambda r: (ORDER.get(r.status, 2), -r.rating, r.name, r.version))


def when(stamp: float | None) -> str:
    return "-" if stamp is None else datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d %H:%M")


def iso(stamp: float | None) -> str:
    """``2026-11-30T17:20:00Z`` ("" before the first match): unambiguous and sortable for other programs."""
    return "" if stamp is None else datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def current(board: Sequence[LadderRow]) -> list[LadderRow]:
    """The current field, in board order: every row but the replaced versions. A retired entry stays,
    as the last word on its name."""
    return [row for row in board if row.status != REPLACED]


def ranks(board: Sequence[LadderRow]) -> list[int | None]:
    """Each row's place among the ranked rows (None if not ranked). Replaced rows are never ranked, so
    a place is the same whether or not the older versions are shown."""
    out: list[int | None] = []
    rank = 0
    for row in board:
        rank += row.status == RANKED
        out.append(rank if row.status == RANKED else None)
    return out


def _cells(board: Sequence[LadderRow]) -> list[list[str]]:
    return [["-" if rank is None else str(rank), row.name, f"v{row.version}", _number(row.rating, 2),
             str(row.matches), when(row.last_played), row.status] for rank, row in zip(ranks(board), board)]


def text(board: Sequence[LadderRow], hidden: int = 0) -> str:
    """The rows given as aligned columns for a terminal; ``hidden``: how many older versions the caller left
    out, said in one line so nobody takes the list for everything."""
    table = [list(TEXT_HEADER)] + _cells(board)
    widths = [max(len(r[c]) for r in table) for c in range(len(TEXT_HEADER))]
    lines = ["  ".join(cell.ljust(w) if c in LEFT else cell.rjust(w)
                       for c, (cell, w) in enumerate(zip(r, widths))).rstrip() for r in table]
    if hidden:
        lines.append(f"({hidden} older version{'s' if hidden > 1 else ''} hidden: "
                     f"--all shows {'them' if hidden > 1 else 'it'})")
    elif not board:
        lines.append(EMPTY)
    return "\n".join(lines) + "\n"


def view(board: Sequence[LadderRow], everything: bool = False) -> str:
    """:func:`text` of the current field (or, with ``everything``, of every row)."""
    shown = list(board) if everything else current(board)
    return text(shown, len(board) - len(shown))


def to_json(board: Sequence[LadderRow]) -> str:
    """``ladder.json``: every row, floats rounded to 3 decimals."""
    data = [{**asdict(r), "rating": _rounded(r.rating), "mu": _rounded(r.mu), "sigma": _rounded(r.sigma)}
            for r in board]
    return json.dumps(data, indent=2) + "\n"


def to_csv(board: Sequence[LadderRow]) -> str:
    """``ladder.csv``: every row, older versions too; rank empty for rows not ranked."""
    rows: list[Sequence[object]] = [CSV_COLUMNS]
    rows.extend(("" if rank is None else rank, r.name, r.version, _rounded(r.rating), _rounded(r.mu),
                 _rounded(r.sigma), r.matches, iso(r.last_played), r.status) for rank, r in zip(ranks(board), board))
    return _csv(rows)


def _md_table(board: Sequence[LadderRow]) -> list[str]:
    align = "|" + "|".join("---" if c in LEFT else "---:" for c in range(len(TEXT_HEADER))) + "|"
    return [_md_row(TEXT_HEADER), align, *(_md_row(cells) for cells in _cells(board))]


def markdown(board: Sequence[LadderRow]) -> str:
    """``ladder.md``: the current field as the terminal shows it, then the older versions in a section of
    their own, so the table on top is who plays now."""
    field, older = current(board), [r for r in board if r.status == REPLACED]
    count = {status: sum(r.status == status for r in field) for status in (RANKED, PLACEMENT, RETIRED)}
    lines = ["# Ladder", "", f"{count[RANKED]} ranked, {count[PLACEMENT]} in placement, {count[RETIRED]} retired; "
             "rating is mu-3σ (conservative TrueSkill).", "", *_md_table(field)]
    if not board:
        lines += ["", EMPTY]
    if older:
        lines += ["", "## Older versions", "", "Replaced by a newer version of the same name: no longer scheduled; "
                  "their matches and ratings stay.", "", *_md_table(older)]
    return "\n".join(lines) + "\n"


def write(board: Sequence[LadderRow], directory: Path) -> None:
    """``ladder.json``, ``.csv``, ``.md`` and ``.txt`` beside the usual leaderboard files, each replaced
    atomically, so whoever reads them during a run sees a whole file."""
    outputs = {JSON_NAME: to_json(board), CSV_NAME: to_csv(board), MARKDOWN_NAME: markdown(board),
               TEXT_NAME: view(board)}
    for name, content in outputs.items():
        write_atomic(Path(directory) / name, content)


def load(db: sqlite3.Connection, params: RatingParams, placement: int) -> list[LadderRow]:
    """The board of every entry ever made, from the ratings kept in the store (also while a run writes)."""
    kept = read(db, params)
    return rows(entries(db), kept.ratings, kept.matches, kept.last, placement, kept.env.create_rating())
