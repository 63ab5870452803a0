"""The layout of ``results.sqlite``, and the steps that bring a file written by an older arena up to date.

``PRAGMA user_version`` numbers the layout. :data:`BASE` is layout 0 (the first
arena's); step ``n`` of :data:`MIGRATIONS` takes a file from layout ``n`` to ``n + 1``
in one transaction, so results stored by any older arena still open and resume, and
two arenas opening the same old file migrate it once.
"""

from __future__ import annotations

import sqlite3

BASE = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS matches (
    idx INTEGER PRIMARY KEY,
    match_id TEXT UNIQUE NOT NULL,
    seed TEXT NOT NULL,
    cycle INTEGER NOT NULL,
    rotation INTEGER NOT NULL,
    bots TEXT NOT NULL,
    places TEXT NOT NULL,
    totals TEXT NOT NULL,
    forfeited TEXT NOT NULL,
    reason TEXT NOT NULL,
    rounds TEXT NOT NULL,
    faults TEXT NOT NULL,
    decisions INTEGER NOT NULL,
    seconds REAL NOT NULL,
    stats TEXT NOT NULL,
    sandbox TEXT NOT NULL,
    replay TEXT NOT NULL,
    finished_at REAL NOT NULL
);
"""

MIGRATIONS: tuple[str, ...] = (
    # 1: voided matches, kept apart from played ones so that nothing reading `matches` rates them
    """
    CREATE TABLE voided (
        idx INTEGER PRIMARY KEY,
        match_id TEXT UNIQUE NOT NULL,
        seed TEXT NOT NULL,
        cycle INTEGER NOT NULL,
        rotation INTEGER NOT NULL,
        bots TEXT NOT NULL,
        reason TEXT NOT NULL,
        voided_at REAL NOT NULL
    )
    """,
    # 2: each seat's log (the end of what its bot wrote on stderr) per match; every match stored
    # since has a row for each seat, so a missing row means "played before logs were kept"
    """
    CREATE TABLE logs (
        idx INTEGER NOT NULL,
        seat INTEGER NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (idx, seat)
    )
    """,
    # 3: the entries of a ladder, one row per submitted version; a row is never deleted, so a
    # retired or replaced version keeps its history (its matches name it as NAME@vK)
    """
    CREATE TABLE ladder_bots (
        name TEXT NOT NULL,
        version INTEGER NOT NULL,
        digest TEXT NOT NULL,
        path TEXT NOT NULL,
        source TEXT NOT NULL,
        submitted_at REAL NOT NULL,
        status TEXT NOT NULL,
        PRIMARY KEY (name, version)
    )
    """,
    # 4: a ladder's current ratings, kept with every match stored, so its leaderboard never replays
    # 100,000 updates; ``rated`` (in meta) is how many stored matches they include, in index order
    """
    CREATE TABLE ladder_ratings (
        player TEXT PRIMARY KEY,
        mu REAL NOT NULL,
        sigma REAL NOT NULL,
        matches INTEGER NOT NULL,
        last_played REAL NOT NULL,
        last_index INTEGER NOT NULL
    )
    """,
    # 5: each decision's time per match, a JSON list in decision order (milliseconds; null where the
    # fallback policy chose), written with the match's row; kept out of the replay, which a replayed
    # match repeats byte for byte. A match without a row was played before times were kept
    """
    CREATE TABLE decision_times (
        idx INTEGER PRIMARY KEY,
        ms TEXT NOT NULL
    )
    """,
    # 6: each match's viewer frames, made by the worker that played it and packed (arena/game/framepack.py),
    # written with the match's row, so that a report copies them instead of rebuilding every match; a match
    # without a row (played before, or by a run that makes no report) has its frames made from its replay
    """
    CREATE TABLE frames (
        idx INTEGER PRIMARY KEY,
        format TEXT NOT NULL,
        packing TEXT NOT NULL,
        data BLOB NOT NULL
    )
    """,
    # 7: each seat's luck per match (arena/luck: the points the cards gave it over expectation, a JSON list by
    # seat) and the value function that measured it (its version and hash), written with the match's row;
    # a match without a row was not measured (played before, or of a game with no value function)
    """
    CREATE TABLE luck (
        idx INTEGER PRIMARY KEY,
        model TEXT NOT NULL,
        seats TEXT NOT NULL
    )
    """,
    # 8: a ladder's every pair's sums over the deals they shared (arena/tournament/evidence.py: per deal, b's mean
    # place minus a's over its rotations stored, a < b by name; replays left out): how many deals, the sum of the
    # differences and of their squares, kept with every match stored, so that its board never reads 100,000
    # matches to judge its tiers; ``ladder_counted`` (in meta) says which stored matches they include
    """
    CREATE TABLE ladder_pairs (
        a TEXT NOT NULL,
        b TEXT NOT NULL,
        deals INTEGER NOT NULL,
        total REAL NOT NULL,
        squares REAL NOT NULL,
        PRIMARY KEY (a, b)
    ) WITHOUT ROWID
    """,
    # 9: a ladder's every player's luck summed over its measured matches (table luck), kept beside the pairs' sums
    # and counted with them
    """
    CREATE TABLE ladder_luck (
        player TEXT PRIMARY KEY,
        total REAL NOT NULL,
        matches INTEGER NOT NULL
    )
    """,
)

VERSION = len(MIGRATIONS)
"""The layout this arena writes."""


def version(db: sqlite3.Connection) -> int:
    """The layout number of an open database (0 for a new file and for the first arena's)."""
    return int(db.execute("PRAGMA user_version").fetchone()[0])


def has_table(db: sqlite3.Connection, name: str) -> bool:
    """True if the table exists (a read-only look at an older file may lack it)."""
    return db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?", (name,)).fetchone() is not None


KEYED = ("matches", "voided")
"""Tables whose every row is one match: keyed by its index (the primary key) and its id (unique)."""


def lost_keys(db: sqlite3.Connection) -> list[str]:
    """The tables of :data:`KEYED` present without their keys (remade by hand, say), whose rows could then hold
    a match twice; every layout of every arena has had them."""
    out = []
    for table in KEYED:
        if not has_table(db, table):
            continue
        primary = [row[1] for row in db.execute(f"PRAGMA table_info({table})") if row[5]]
        unique = any(row[2] and [column[2] for column in db.execute(f"PRAGMA index_info('{row[1]}')")] == ["match_id"]
                     for row in db.execute(f"PRAGMA index_list({table})").fetchall())
        if primary != ["idx"] or not unique:
            out.append(table)
    return out


TABLES = ("meta", "matches", "voided", "logs", "ladder_bots", "ladder_ratings", "decision_times", "frames", "luck",
          "ladder_pairs", "ladder_luck")
"""The tables of :data:`BASE` (two) and of each migration (one each), in that order."""


def missing_tables(db: sqlite3.Connection) -> list[str]:
    """The tables a file at its layout must have and lacks: a file that lost one is damaged, and creating
    it anew (as :func:`migrate` would) would hide what was lost. A file without any table is new."""
    present = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not present:
        return []
    expected = TABLES[:2 + min(version(db), VERSION)]
    return [name for name in expected if name not in present]


def migrate(db: sqlite3.Connection) -> None:
    """Create a new file at :data:`VERSION`, or bring an older one to it; never touches a newer one."""
    db.executescript(f"BEGIN IMMEDIATE;{BASE}COMMIT;")  # all of BASE or none: a process killed between its
    # tables would leave a file that has ``meta`` and lacks ``matches``, which every later open calls damaged
    while True:
        db.execute("BEGIN IMMEDIATE")  # re-read under the write lock: another arena may have migrated meanwhile
        try:
            current = version(db)
            if current >= VERSION:
                db.execute("ROLLBACK")
                return
            db.execute(MIGRATIONS[current])
            db.execute(f"PRAGMA user_version = {current + 1}")
            db.execute("COMMIT")
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
