"""The ladder's part of ``results.sqlite``: its entries, its kept ratings, its pruned snapshots.

A ladder shares one file with its matches (layout: :mod:`.schema`, tables ``ladder_bots``
and ``ladder_ratings`` and a few ``meta`` keys), and several processes write it at
once: ``arena run``, ``arena submit``, ``arena retire``, ``arena prune``. So every
statement on these tables is here, each change one transaction (or, for the kept
ratings, inside the caller's, beside the match that changed them), and the ladder's
modules (:mod:`..ladder.entries`, :mod:`..ladder.kept`, :mod:`..ladder.prune`) keep
only their rules. :class:`LadderStore` works on any connection to the file: the
:class:`.results.ResultStore`'s, or one a reader opens of its own.
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Sequence

from . import schema
from ..rating.fold import deal_key
from ..records import MatchRecord, is_replay
from .results import DB_NAME, connect, decode_luck, decode_match

ACTIVE = "active"
"""Scheduled."""
REPLACED = "replaced"
"""A newer version of the same name took its place (unless ``keep_versions``)."""
RETIRED = "retired"
"""Taken out of the field by ``arena retire``."""

LEFT_AT = "ladder_left"
"""Meta key: ``{"NAME@vK": Unix time}`` when each version left the active field (replaced or retired);
``arena prune`` deletes a version's snapshot only if no running ``arena run`` can still play it."""
FIELD_VERSION = "ladder_field"
"""Meta key counting the changes to the field: a running ladder re-reads the entries only when it moved."""
THROUGH = "ladder_rated_through"
"""Meta key: the index of the last match the kept ratings include (absent: none)."""
RECLAIMED = "ladder_reclaimed"
"""Meta key: ``{"NAME@vK": {"bytes": N, "at": Unix time}}`` for every version whose snapshot was removed."""
COUNTED = "ladder_counted"
"""Meta key: ``[matches, sum of their indices]`` of the stored matches the kept sums (tables ``ladder_pairs`` and
``ladder_luck``) include (absent: none are kept); they hold for the store only while these equal its matches'."""


def player_key(name: str, version: int) -> str:
    """``NAME@vK``: ``@`` is not allowed in bot names, so a key never looks like a name."""
    return f"{name}@v{version}"


@dataclass(frozen=True)
class Entry:
    """One version of one bot in the ladder: a row of ``ladder_bots``."""

    name: str
    version: int
    digest: str
    """sha256 over the bot's files (names and contents): identical resubmissions are recognised by it."""
    path: str
    """The snapshot directory the ladder runs."""
    source: str
    """The directory it was submitted from: a name belongs to one source directory."""
    submitted_at: float
    status: str

    @property
    def key(self) -> str:
        """The player the ratings and the matches name: versions of one bot are separate players."""
        return player_key(self.name, self.version)


@dataclass(frozen=True)
class KeptRating:
    """One player's row of ``ladder_ratings``."""

    key: str
    mu: float
    sigma: float
    matches: int
    last_played: float


@dataclass(frozen=True)
class KeptSums:
    """A ladder's sums over every stored match, as tables ``ladder_pairs`` and ``ladder_luck`` keep them."""

    pairs: dict[tuple[str, str], tuple[int, float, float]]
    """``(a, b)``, a < b by name -> (deals, sum of the differences, sum of their squares): per deal the two shared,
    b's mean place minus a's over its rotations stored (:mod:`..evidence`), replays left out."""
    luck: dict[str, tuple[float, int]]
    """Player key -> (its luck summed over its measured matches, those matches), replays included."""


@dataclass(frozen=True)
class TableRow:
    """One stored (or voided) ladder match, as the replays of a new version and their board line read it."""

    index: int
    match_id: str
    seed: str
    rotation: int
    bots: tuple[str, ...]
    places: tuple[int, ...] | None
    """Per seat (ties share a place); None for a voided match."""


class LadderStore:
    """The ladder's tables on the connection ``db``."""

    def __init__(self, db: sqlite3.Connection) -> None:
        self._db = db
        self.path = Path(getattr(db, "path", DB_NAME))

    @classmethod
    def open(cls, directory: Path) -> "LadderStore":
        """On a connection of its own to the store in ``directory`` (its errors: ``StoreDamaged``)."""
        return cls(connect(Path(directory) / DB_NAME))

    @classmethod
    def reader(cls, directory: Path) -> "LadderStore":
        """On a read-only connection of its own, for a running ladder that polls the field."""
        return cls(sqlite3.connect(f"file:{Path(directory) / DB_NAME}?mode=ro", uri=True, timeout=30))

    def close(self) -> None:
        self._db.close()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """The caller's transaction (the kept ratings land with the match that changed them): committed
        together at the end, or not at all on an exception."""
        with self._db:
            yield

    @contextmanager
    def write(self) -> Iterator[None]:
        """One write transaction taken at once (``BEGIN IMMEDIATE``): a concurrent writer waits here and
        then sees what this one did; an exception rolls everything back."""
        self._db.execute("BEGIN IMMEDIATE")
        try:
            yield
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _meta(self, key: str) -> str | None:
        if not schema.has_table(self._db, "meta"):
            return None
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def _set_meta(self, key: str, value: object) -> None:
        self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    # ------------------------------------------------------------ entries
    def entries(self) -> list[Entry]:
        """Every version ever entered, by name then version (none in a file that is no ladder)."""
        if not schema.has_table(self._db, "ladder_bots"):
            return []
        return [Entry(*row) for row in self._db.execute(
            "SELECT name, version, digest, path, source, submitted_at, status FROM ladder_bots "
            "ORDER BY name, version")]

    def add(self, entry: Entry, replaced: list[int]) -> None:
        """Inside :meth:`write`: enter ``entry``, its name's active ``replaced`` versions leaving the field
        as it comes; one change of the field."""
        if replaced:
            self._db.execute("UPDATE ladder_bots SET status = ? WHERE name = ? AND status = ?",
                             (REPLACED, entry.name, ACTIVE))
            self._left([player_key(entry.name, v) for v in replaced], entry.submitted_at)
        self._db.execute("INSERT INTO ladder_bots VALUES (?, ?, ?, ?, ?, ?, ?)",
                         (entry.name, entry.version, entry.digest, entry.path, entry.source, entry.submitted_at,
                         entry.status))
        self._changed()

    def retire(self, name: str, at: float) -> list[int]:
        """Take every active version of ``name`` out of the field at ``at``, in one transaction; the versions
        retired (none: nothing to do)."""
        with self._db:
            versions = [int(row[0]) for row in self._db.execute(
                "SELECT version FROM ladder_bots WHERE name = ? AND status = ? ORDER BY version", (name, ACTIVE))]
            self._db.execute("UPDATE ladder_bots SET status = ? WHERE name = ? AND status = ?",
                             (RETIRED, name, ACTIVE))
            self._left([player_key(name, v) for v in versions], at)
            self._changed()
        return versions

    def left_at(self) -> dict[str, float]:
        """When each version that left the field left it (versions that left before this was kept: absent)."""
        value = self._meta(LEFT_AT)
        return {} if value is None else dict(json.loads(value))

    def _left(self, keys: list[str], at: float) -> None:
        """Record, inside the caller's transaction, that ``keys`` left the field at ``at``."""
        if keys:
            self._set_meta(LEFT_AT, {**self.left_at(), **{k: at for k in keys}})

    def _changed(self) -> None:
        """Count one change of the field, inside the caller's transaction."""
        self._db.execute("INSERT INTO meta VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET "
                         "value = CAST(value AS INTEGER) + 1", (FIELD_VERSION,))

    def field_version(self) -> str | None:
        """The count of changes to the field as stored (None: never changed); compare, do not parse."""
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (FIELD_VERSION,)).fetchone()
        return None if row is None else row[0]

    # ------------------------------------------------------------ kept ratings
    def kept_ratings(self) -> list[KeptRating]:
        """Every player's kept rating (none in a file that is no ladder)."""
        if not schema.has_table(self._db, "ladder_ratings"):
            return []
        return [KeptRating(str(key), float(mu), float(sigma), int(matches), float(last))
                for key, mu, sigma, matches, last, _ in self._db.execute("SELECT * FROM ladder_ratings")]

    def rated_through(self) -> int:
        """The index of the last match the kept ratings include; -1 before the first."""
        if not schema.has_table(self._db, "ladder_ratings"):
            return -1
        value = self._meta(THROUGH)
        return -1 if value is None else int(json.loads(value))

    def save_ratings(self, ratings: list[KeptRating], through: int) -> None:
        """Write these players' ratings and the rated prefix; the caller holds the transaction, so they
        land together with the match that changed them."""
        self._db.executemany("INSERT OR REPLACE INTO ladder_ratings VALUES (?, ?, ?, ?, ?, ?)",
                             [(r.key, r.mu, r.sigma, r.matches, r.last_played, through) for r in ratings])
        self._set_meta(THROUGH, through)

    def forget_ratings(self) -> int:
        """Drop every kept rating (the next reader rates every stored match anew); the number dropped."""
        if not schema.has_table(self._db, "ladder_ratings"):
            return 0
        with self.write():
            dropped = self._db.execute("DELETE FROM ladder_ratings").rowcount
            self._db.execute("DELETE FROM meta WHERE key = ?", (THROUGH,))
        return int(dropped)

    def matches_after(self, index: int) -> Iterator[tuple[int, str, list[str], list[int], float]]:
        """``(index, match_id, bots, places, finished_at)`` of every stored match beyond ``index``, in index
        order (a damaged row: one ``StoreDamaged`` line)."""
        for idx, match_id, bots, places, finished in self._db.execute(
                "SELECT idx, match_id, bots, places, finished_at FROM matches WHERE idx > ? ORDER BY idx", (index,)):
            row = decode_match(self.path, {"idx": idx, "bots": bots, "places": places})
            yield int(idx), str(match_id), row["bots"], row["places"], float(finished)

    def luck_after(self, index: int) -> Iterator[tuple[int, list[str], list[float]]]:
        """``(index, bots, luck)`` of every measured match beyond ``index``, in index order: each seat's luck
        (:mod:`arena.luck`) with who sat there."""
        if not schema.has_table(self._db, "luck"):
            return
        for idx, bots, seats in self._db.execute(
                "SELECT m.idx, m.bots, l.seats FROM luck l JOIN matches m ON m.idx = l.idx WHERE l.idx > ? "
                "ORDER BY l.idx", (index,)):
            row = decode_match(self.path, {"idx": idx, "bots": bots})
            yield int(idx), row["bots"], list(decode_luck(self.path, idx, seats, len(row["bots"])))

    def scored_after(self, index: int) -> Iterator[tuple[MatchRecord, float]]:
        """Every stored match beyond ``index``, in index order, as the record a rating model reads (places,
        totals, forfeits and, where measured, luck; no faults or times) with when it finished: what a model that
        rates luck-corrected totals (:func:`..rating.reads_scores`) needs beyond :meth:`matches_after`."""
        measured = schema.has_table(self._db, "luck")
        query = ("SELECT m.idx, m.match_id, m.bots, m.places, m.totals, m.forfeited, m.finished_at, "
                 + ("l.seats FROM matches m LEFT JOIN luck l ON l.idx = m.idx" if measured else
                    "NULL FROM matches m") + " WHERE m.idx > ? ORDER BY m.idx")
        for idx, match_id, bots, places, totals, forfeited, finished, seats in self._db.execute(query, (index,)):
            row = decode_match(self.path, {"idx": idx, "bots": bots, "places": places, "totals": totals,
                                           "forfeited": forfeited})
            luck = () if seats is None else decode_luck(self.path, idx, seats, len(row["bots"]))
            yield MatchRecord(int(idx), str(match_id), tuple(row["bots"]), tuple(row["places"]),
                              tuple(row["totals"]), tuple(row["forfeited"]), (), (), luck), float(finished)

    def finished(self) -> list[tuple[float, tuple[str, ...]]]:
        """When each stored match finished and who sat at it, in finishing order."""
        return [(float(at), tuple(decode_match(self.path, {"idx": idx, "bots": bots})["bots"]))
                for idx, at, bots in self._db.execute(
                    "SELECT idx, finished_at, bots FROM matches ORDER BY finished_at, idx")]

    # ------------------------------------------------------------ kept sums
    def kept_sums(self) -> KeptSums | None:
        """Every pair's deal sums and every player's luck over every stored match, read from the kept tables in
        one read transaction (a few rows per player, however many matches); None when they are not kept, or do
        not include exactly the stored matches (a store written before they were kept, rows inserted by hand):
        then the matches themselves are read."""
        if not schema.has_table(self._db, "ladder_luck"):
            return None
        with self._read():
            counted = self._meta(COUNTED)
            if counted is None or json.loads(counted) != self._stored_count():
                return None
            pairs = {(a, b): (deals, total, squares) for a, b, deals, total, squares  # typed by their columns
                     in self._db.execute("SELECT a, b, deals, total, squares FROM ladder_pairs")}
            luck = {player: (total, matches) for player, total, matches
                    in self._db.execute("SELECT player, total, matches FROM ladder_luck")}
        return KeptSums(pairs, luck)

    def keep_sums(self) -> bool:
        """Count every stored match into the kept sums anew, in one transaction, unless they hold already; True
        if they were counted. From then on :meth:`count_match` keeps them with every match stored."""
        if self.kept_sums() is not None:
            return False
        with self.write():
            self._db.execute("DELETE FROM ladder_pairs")
            self._db.execute("DELETE FROM ladder_luck")
            deals: dict[str, dict[str, list[int]]] = {}
            for _, match_id, bots, places, _ in self.matches_after(-1):
                if not is_replay(match_id):
                    _seat(deals.setdefault(deal_key(match_id), {}), bots, places)
            sums: dict[tuple[str, str], list[float]] = {}
            for deal in deals.values():
                for pair, value in _differences(deal).items():
                    pair_sums = sums.setdefault(pair, [0, 0.0, 0.0])
                    pair_sums[0] += 1
                    pair_sums[1] += value
                    pair_sums[2] += value * value
            self._db.executemany("INSERT INTO ladder_pairs VALUES (?, ?, ?, ?, ?)",
                                 [(a, b, int(n), total, squares) for (a, b), (n, total, squares) in sums.items()])
            luck: dict[str, list[float]] = {}
            for _, bots, values in self.luck_after(-1):
                for bot, value in zip(bots, values):
                    tally = luck.setdefault(bot, [0.0, 0])
                    tally[0] += value
                    tally[1] += 1
            self._db.executemany("INSERT INTO ladder_luck VALUES (?, ?, ?)",
                                 [(player, total, int(n)) for player, (total, n) in luck.items()])
            self._set_meta(COUNTED, self._stored_count())
        return True

    def count_match(self, index: int, match_id: str, bots: Sequence[str], places: Sequence[int],
                    luck: Sequence[float] = ()) -> None:
        """Inside the caller's transaction, once match ``index`` is stored: add it to the kept sums, if they are
        kept (:meth:`keep_sums`). Its deal's differences are taken from the deal's matches stored before it and
        with it, so they are the same whatever order its rotations were stored in."""
        counted = self._meta(COUNTED) if schema.has_table(self._db, "ladder_luck") else None
        if counted is None:
            return
        if not is_replay(match_id):
            key = deal_key(match_id)
            before: dict[str, list[int]] = {}
            for other_bots, other_places in self._deal_rows(key, index):
                _seat(before, other_bots, other_places)
            after = {bot: list(sums) for bot, sums in before.items()}
            _seat(after, bots, places)
            old, new = _differences(before), _differences(after)
            for (a, b), value in new.items():
                was = old.get((a, b))
                self._db.execute(  # a pair new at this deal counts one deal more
                    "INSERT INTO ladder_pairs VALUES (?, ?, ?, ?, ?) ON CONFLICT (a, b) DO UPDATE SET deals = deals + "
                    "excluded.deals, total = total + excluded.total, squares = squares + excluded.squares",
                    (a, b, 0 if was is not None else 1, value - (was or 0.0), value * value - (was or 0.0) ** 2))
        for bot, value in zip(bots, luck):
            self._db.execute("INSERT INTO ladder_luck VALUES (?, ?, 1) ON CONFLICT (player) DO UPDATE SET "
                             "total = total + excluded.total, matches = matches + 1", (bot, value))
        matches, indices = json.loads(counted)
        self._set_meta(COUNTED, [matches + 1, indices + index])

    def _deal_rows(self, key: str, index: int) -> Iterator[tuple[list[str], list[int]]]:
        """The stored matches of deal ``key`` but match ``index``: their ids share its prefix, found on the index
        of ids without a scan."""
        for idx, match_id, bots, places in self._db.execute(
                "SELECT idx, match_id, bots, places FROM matches WHERE (match_id = ? OR (match_id >= ? AND "
                "match_id < ?)) AND idx != ?", (key, key + "/r", key + "/s", index)):
            if deal_key(match_id) == key and not is_replay(match_id):
                row = decode_match(self.path, {"idx": idx, "bots": bots, "places": places})
                yield row["bots"], row["places"]

    def _stored_count(self) -> list[int]:
        """``[matches, sum of their indices]`` of the stored matches: what :data:`COUNTED` must equal."""
        count, indices = self._db.execute("SELECT count(*), total(idx) FROM matches").fetchone()
        return [int(count), int(indices)]

    @contextmanager
    def _read(self) -> Iterator[None]:
        """One read transaction (or the caller's), so that what is read inside agrees while a run writes."""
        if self._db.in_transaction:
            yield
            return
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            if self._db.in_transaction:
                self._db.rollback()

    # ------------------------------------------------------------ tables a new version replays
    def table_rows(self, keys: Sequence[str] = (), firsts: Sequence[int] = (), replays: bool = False) -> list[TableRow]:
        """Every stored and voided ladder match with one of ``keys`` seated, or of one of the tables first
        drawn at ``firsts`` (ids ``L12/...`` or ``L12~3/...``), or (``replays``) of any replay table, in index
        order (a damaged row: one ``StoreDamaged`` line). A match id is unique and indexed, so a table is
        found without a scan."""
        tests: list[tuple[str, list[object]]] = [("instr(bots, ?) > 0", [json.dumps(key)]) for key in keys]
        tests += [("(match_id GLOB ? OR match_id GLOB ?)", [f"L{int(first)}/*", f"L{int(first)}~*"])
                  for first in firsts]
        if replays:
            tests.append(("match_id GLOB 'L*~*'", []))
        found: dict[tuple[bool, int], TableRow] = {}
        voided = schema.has_table(self._db, "voided")
        for start in range(0, len(tests), 100):  # an expression of a bounded depth
            chunk = tests[start:start + 100]
            test = " OR ".join(t for t, _ in chunk)
            args = [a for _, values in chunk for a in values]
            rows = self._db.execute(f"SELECT idx, match_id, seed, rotation, bots, places FROM matches WHERE {test}",
                                    args).fetchall()
            if voided:
                rows += self._db.execute(f"SELECT idx, match_id, seed, rotation, bots, NULL FROM voided WHERE {test}",
                                         args).fetchall()
            for idx, match_id, seed, rotation, bots, places in rows:
                row = decode_match(self.path, {"idx": idx, "bots": bots} if places is None else
                                   {"idx": idx, "bots": bots, "places": places})
                found[(places is None, int(idx))] = TableRow(
                    int(idx), str(match_id), str(seed), int(rotation), tuple(row["bots"]),
                    None if places is None else tuple(row["places"]))
        return sorted(found.values(), key=lambda r: (r.index, r.places is None))

    # ------------------------------------------------------------ pruned snapshots
    def reclaimed(self) -> dict[str, dict[str, float]]:
        """The versions whose snapshots were removed, by player key."""
        value = self._meta(RECLAIMED)
        return {} if value is None else dict(json.loads(value))

    def mark_reclaimed(self, key: str, size: int, at: float) -> None:
        """Record, in a transaction of its own, that ``key``'s snapshot (``size`` bytes) is being removed."""
        with self.write():
            marks = self.reclaimed()
            marks[key] = {"bytes": size, "at": at}
            self._set_meta(RECLAIMED, marks)


def _seat(deal: dict[str, list[int]], bots: Sequence[str], places: Sequence[int]) -> None:
    """Add one rotation of a deal: each bot's place to its ``[sum of places, rotations]``."""
    for bot, place in zip(bots, places):
        sums = deal.setdefault(bot, [0, 0])
        sums[0] += place
        sums[1] += 1


def _differences(deal: dict[str, list[int]]) -> dict[tuple[str, str], float]:
    """``(a, b)`` -> b's mean place minus a's at this deal, for every pair at it (a < b by name), as
    :class:`..evidence.PairEvidence` measures a deal."""
    bots = sorted(deal)
    mean = {bot: deal[bot][0] / deal[bot][1] for bot in bots}
    return {(a, b): mean[b] - mean[a] for i, a in enumerate(bots) for b in bots[i + 1:]}
