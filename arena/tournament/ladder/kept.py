"""A ladder's current ratings, kept in the store beside its matches.

A ladder runs for weeks, and its leaderboard must not replay 100,000 rating updates
each time somebody looks. So the driver writes the ratings a stored match changes in the
same transaction as the match: table ``ladder_ratings`` (per player mu, sigma, matches
rated, when its last one finished) and, in ``meta``, the index of the last match they
include. Matches are rated in index order. A match stored beyond the rated prefix (a run
was killed while an earlier match was still in play, and that one will never come) is
rated by whoever reads next, in the same order, so the kept numbers always equal a
recomputation from every stored match.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

import trueskill

from .. import schema
from ..rating import RatingParams, apply, make_env
from ..store import DB_NAME, connect, decode_match

THROUGH = "ladder_rated_through"
"""Meta key: the index of the last match the kept ratings include (absent: none)."""


@dataclass
class Kept:
    """Ratings, rated match counts and last finish times per player key, through match ``through``."""

    env: trueskill.TrueSkill
    ratings: dict[str, trueskill.Rating] = field(default_factory=dict)
    matches: dict[str, int] = field(default_factory=dict)
    last: dict[str, float] = field(default_factory=dict)
    through: int = -1
    """Index of the last match included; -1 before the first."""
    changed: set[str] = field(default_factory=set)
    """Players whose numbers differ from the table's (rated here, not saved yet)."""

    def rate(self, index: int, bots: Iterable[str], places: Iterable[int], finished: float) -> None:
        """Apply one more match, the next in index order."""
        if index <= self.through:
            raise ValueError(f"match index {index} is rated already (through {self.through})")
        seated = tuple(bots)
        apply(self.env, self.ratings, seated, tuple(places))
        self.count(index, seated, finished)

    def count(self, index: int, bots: Iterable[str], finished: float) -> None:
        """Note a match whose update ``ratings`` already holds (a rating fold sharing the dict applied it)."""
        for key in bots:
            self.matches[key] = self.matches.get(key, 0) + 1
            self.last[key] = max(self.last.get(key, 0.0), finished)
            self.changed.add(key)
        self.through = max(self.through, index)

    def save(self, db: sqlite3.Connection) -> None:
        """Write the changed players and the rated prefix; the caller holds the transaction, so they
        land together with the match that changed them."""
        db.executemany("INSERT OR REPLACE INTO ladder_ratings VALUES (?, ?, ?, ?, ?, ?)",
                       [(key, float(self.ratings[key].mu), float(self.ratings[key].sigma), self.matches[key],
                         self.last[key], self.through) for key in sorted(self.changed)])
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (THROUGH, json.dumps(self.through)))
        self.changed.clear()


def read(db: sqlite3.Connection, params: RatingParams) -> Kept:
    """The kept ratings, with every stored match beyond them rated on top (``changed`` names whom that
    touched: a writer saves them, a reader just shows them)."""
    kept = Kept(make_env(params))
    if schema.has_table(db, "ladder_ratings"):
        for key, mu, sigma, matches, last, _ in db.execute("SELECT * FROM ladder_ratings"):
            kept.ratings[key] = kept.env.create_rating(mu, sigma)
            kept.matches[key] = int(matches)
            kept.last[key] = float(last)
        row = db.execute("SELECT value FROM meta WHERE key = ?", (THROUGH,)).fetchone()
        kept.through = -1 if row is None else int(json.loads(row[0]))
    where = Path(getattr(db, "path", DB_NAME))
    for index, bots, places, finished in db.execute(
            "SELECT idx, bots, places, finished_at FROM matches WHERE idx > ? ORDER BY idx", (kept.through,)):
        row = decode_match(where, {"idx": index, "bots": bots, "places": places})  # damage: one line
        kept.rate(index, row["bots"], row["places"], float(finished))
    return kept


def kept_in(directory: Path, params: RatingParams) -> tuple[dict[str, trueskill.Rating], int]:
    """The ratings of a ladder's store and the last match index they include, read on a connection of
    its own (the schedule's start, without replaying every stored match)."""
    db = connect(Path(directory) / DB_NAME)
    try:
        kept = read(db, params)
        return kept.ratings, kept.through
    finally:
        db.close()


def finished_in(directory: Path) -> list[tuple[float, tuple[str, ...]]]:
    """When each stored match finished and who sat at it, in finishing order: the fairness floor's
    windows of a resumed ladder are rebuilt from it."""
    path = Path(directory) / DB_NAME
    db = connect(path)
    try:
        return [(float(at), tuple(decode_match(path, {"idx": idx, "bots": bots})["bots"]))
                for idx, at, bots in db.execute("SELECT idx, finished_at, bots FROM matches ORDER BY finished_at, idx")]
    finally:
        db.close()
