"""The ladder's field, one row per submitted version, in the ``ladder_bots`` table of ``results.sqlite``.

Rows are never deleted: a retired or replaced version keeps its matches and its rating,
under its player key ``NAME@vK``. Every change is one transaction, so a run that reads
the field between two batches sees a submission whole or not at all.
"""

from __future__ import annotations

import json
import sqlite3
import time
from dataclasses import dataclass
from pathlib import Path

from .. import schema
from ..store import DB_NAME

ACTIVE = "active"
"""Scheduled."""
REPLACED = "replaced"
"""A newer version of the same name took its place (unless ``keep_versions``)."""
RETIRED = "retired"
"""Taken out of the field by ``arena retire``."""


@dataclass(frozen=True)
class Entry:
    """One version of one bot in the ladder."""

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


def player_key(name: str, version: int) -> str:
    """``NAME@vK``: ``@`` is not allowed in bot names, so a key never looks like a name."""
    return f"{name}@v{version}"


def entries(db: sqlite3.Connection) -> list[Entry]:
    """Every version ever entered, by name then version (none in a file that is no ladder)."""
    if not schema.has_table(db, "ladder_bots"):
        return []
    return [Entry(*row) for row in db.execute(
        "SELECT name, version, digest, path, source, submitted_at, status FROM ladder_bots ORDER BY name, version")]


def active(db: sqlite3.Connection) -> list[Entry]:
    """The versions to schedule."""
    return [e for e in entries(db) if e.status == ACTIVE]


@dataclass(frozen=True)
class Entered:
    """What :func:`enter` did."""

    entry: Entry
    new: bool
    """False: this digest was entered under this name already (nothing changed)."""
    replaced: tuple[int, ...] = ()
    """Versions that left the active field for it."""
    back: Entry | None = None
    """The version out of the field (retired or replaced) that had these very files: the bot comes back
    as the new version ``entry``."""


def playing(versions: list[Entry], digest: str) -> Entry | None:
    """The active version among ``versions`` (of one name) that has these files: submitting them again
    changes nothing. A version out of the field does not count: the same files come back as a new one."""
    return next((e for e in versions if e.digest == digest and e.status == ACTIVE), None)


class NameTaken(ValueError):
    """The name belongs to a bot submitted from another directory."""


def enter(db: sqlite3.Connection, name: str, digest: str, path: str, source: str, keep_versions: bool) -> Entered:
    """Enter ``name`` with these files as its next version, in one transaction.

    A name belongs to the directory it was first submitted from (:class:`NameTaken`). The
    digest of an active version again is a no-op; any other becomes version K+1 and, unless
    ``keep_versions``, replaces the active versions of the name. So a retired bot, or an old
    version, comes back as a new version: a version that left the field stays closed (its
    rating stands as it was, and ``arena prune`` may have taken its files), and the comeback
    earns its place again through placement.
    """
    db.execute("BEGIN IMMEDIATE")  # a concurrent submit of the same name waits here and then sees this one
    try:
        rows = [e for e in entries(db) if e.name == name]
        if rows and rows[-1].source != source:
            db.execute("ROLLBACK")
            raise NameTaken(f"the name {name} is taken by a bot submitted from {rows[-1].source}; "
                            "choose another name with --name")
        same = playing(rows, digest)
        if same is not None:
            db.execute("ROLLBACK")
            return Entered(same, False)
        back = next((e for e in reversed(rows) if e.digest == digest), None)
        version = max((e.version for e in rows), default=0) + 1
        replaced = () if keep_versions else tuple(e.version for e in rows if e.status == ACTIVE)
        entry = Entry(name, version, digest, path, source, time.time(), ACTIVE)
        if replaced:
            db.execute("UPDATE ladder_bots SET status = ? WHERE name = ? AND status = ?", (REPLACED, name, ACTIVE))
            _left(db, [player_key(name, v) for v in replaced], entry.submitted_at)
        db.execute("INSERT INTO ladder_bots VALUES (?, ?, ?, ?, ?, ?, ?)",
                   (entry.name, entry.version, entry.digest, entry.path, entry.source, entry.submitted_at,
                    entry.status))
        _changed(db)
        db.execute("COMMIT")
        return Entered(entry, True, replaced, back)
    except BaseException:
        if db.in_transaction:
            db.execute("ROLLBACK")
        raise


def retire(db: sqlite3.Connection, name: str) -> list[int]:
    """Take every active version of ``name`` out of the field; the versions retired (none: nothing to do)."""
    with db:
        versions = [row[0] for row in db.execute(
            "SELECT version FROM ladder_bots WHERE name = ? AND status = ? ORDER BY version", (name, ACTIVE))]
        db.execute("UPDATE ladder_bots SET status = ? WHERE name = ? AND status = ?", (RETIRED, name, ACTIVE))
        _left(db, [player_key(name, v) for v in versions], time.time())
        _changed(db)
    return versions


LEFT_AT = "ladder_left"
"""Meta key: ``{"NAME@vK": Unix time}`` when each version left the active field (replaced or retired);
``arena prune`` deletes a version's snapshot only if no running ``arena run`` can still play it."""


def left_at(db: sqlite3.Connection) -> dict[str, float]:
    """When each version that left the field left it (versions that left before this was kept: absent)."""
    row = db.execute("SELECT value FROM meta WHERE key = ?", (LEFT_AT,)).fetchone() \
        if schema.has_table(db, "meta") else None
    return {} if row is None else dict(json.loads(row[0]))


def _left(db: sqlite3.Connection, keys: list[str], at: float) -> None:
    """Record, inside the caller's transaction, that ``keys`` left the field at ``at``."""
    if keys:
        db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (LEFT_AT, json.dumps({**left_at(db),
                                                                                  **{k: at for k in keys}})))


FIELD_VERSION = "ladder_field"
"""Meta key counting the changes to the field: a running ladder re-reads the entries only when it moved."""


def _changed(db: sqlite3.Connection) -> None:
    """Count one change of the field, inside the caller's transaction."""
    db.execute("INSERT INTO meta VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
               (FIELD_VERSION,))


class ActiveField:
    """The active field as the store holds it now, for a running ladder that asks before every table (so
    a submission joins without a restart): one small read, and the entries only after a change."""

    def __init__(self, directory: Path) -> None:
        self.path = Path(directory) / DB_NAME
        self._db: sqlite3.Connection | None = None
        self._version: object = None
        self._field: list[Entry] = []
        self._keys: frozenset[str] = frozenset()

    def __call__(self) -> list[Entry]:
        if self._db is None:
            self._db = sqlite3.connect(f"file:{self.path}?mode=ro", uri=True, timeout=30)
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (FIELD_VERSION,)).fetchone()
        if row is None or row[0] != self._version:
            self._field, self._version = active(self._db), None if row is None else row[0]
            self._keys = frozenset(e.key for e in self._field)
        return self._field  # the same list while nothing changed: the matchmaker skips its work then

    def keys(self) -> frozenset[str]:
        """The player keys of the active field."""
        self()
        return self._keys

    def close(self) -> None:
        if self._db is not None:
            self._db.close()
            self._db = None
