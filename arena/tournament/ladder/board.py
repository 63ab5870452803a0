"""The ladder's own standings: per entry its version, rating, matches, last match and status.

The usual leaderboard files (by player key ``NAME@vK``) are written too; this adds
what only a ladder has: which entries are still in placement, which left the field.
Ranked entries come first by conservative rating, then those in placement, then the
replaced and retired ones, so the top of the list is always who is really ranked.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence

import trueskill

from ..leaderboard import write_atomic
from ..rating import exposure
from .entries import ACTIVE, Entry

JSON_NAME = "ladder.json"
TEXT_NAME = "ladder.txt"
PLACEMENT = "placement"
RANKED = "ranked"
ORDER = {RANKED: 0, PLACEMENT: 1}
"""Status groups in board order; every other status (replaced, retired) after them."""


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


def last_played(db: sqlite3.Connection) -> tuple[dict[str, int], dict[str, float]]:
    """Per player key: stored matches, and when the last one finished."""
    counts: dict[str, int] = {}
    last: dict[str, float] = {}
    for bots, finished in db.execute("SELECT bots, finished_at FROM matches"):
        for key in json.loads(bots):
            counts[key] = counts.get(key, 0) + 1
            last[key] = max(last.get(key, 0.0), float(finished))
    return counts, last


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


def text(board: Sequence[LadderRow]) -> str:
    """Aligned columns for a terminal."""
    header = ["#", "bot", "version", "rating", "matches", "last played (UTC)", "status"]
    table = [header]
    rank = 0
    for row in board:
        rank += row.status == RANKED
        table.append([str(rank) if row.status == RANKED else "-", row.name, f"v{row.version}", f"{row.rating:.2f}",
                      str(row.matches), when(row.last_played), row.status])
    widths = [max(len(r[c]) for r in table) for c in range(len(header))]
    lines = ["  ".join(cell.ljust(w) if c in (1, 5, 6) else cell.rjust(w)
                       for c, (cell, w) in enumerate(zip(r, widths))).rstrip() for r in table]
    if not board:
        lines.append("(no bot entered yet: arena submit LADDER.yaml BOT_DIR)")
    return "\n".join(lines) + "\n"


def write(board: Sequence[LadderRow], directory: Path) -> None:
    """``ladder.json`` and ``ladder.txt`` beside the usual leaderboard files."""
    data = [{**asdict(r), "rating": round(r.rating, 3), "mu": round(r.mu, 3), "sigma": round(r.sigma, 3)}
            for r in board]
    write_atomic(Path(directory) / JSON_NAME, json.dumps(data, indent=2) + "\n")
    write_atomic(Path(directory) / TEXT_NAME, text(board))


def board_of(db: sqlite3.Connection, field: Sequence[Entry], ratings: Mapping[str, trueskill.Rating],
             placement: int, fresh: trueskill.Rating) -> list[LadderRow]:
    """The board of every entry ever made, from the store and the ratings of everything stored."""
    counts, last = last_played(db)
    return rows(field, ratings, counts, last, placement, fresh)
