"""SQLite results of one tournament, in its output directory.

Only the driver writes here (workers return outcomes), one transaction per finished
match, so a run killed at any instant keeps every match it committed and none twice.
WAL mode lets ``arena leaderboard`` read while a run writes.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path
from typing import Any, Iterator

from ..runner import MatchOutcome
from .records import MatchRecord
from .schedule import ScheduledMatch

DB_NAME = "results.sqlite"
REPLAY_DIR = "replays"
SCHEMA = """
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


class StoreMismatch(Exception):
    """The output directory holds a different tournament; the message says what differs."""


class ResultStore:
    """Finished matches of one tournament."""

    def __init__(self, directory: Path, readonly: bool = False) -> None:
        self.directory = Path(directory)
        path = self.directory / DB_NAME
        if readonly:
            if not path.is_file():
                raise FileNotFoundError(f"{self.directory}: no {DB_NAME} here (not a tournament output directory)")
            self.db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=30)
        else:
            (self.directory / REPLAY_DIR).mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(path, timeout=30)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.execute("PRAGMA synchronous=NORMAL")
            self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # ------------------------------------------------------------ meta
    def meta(self, key: str) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else json.loads(row[0])

    def set_meta(self, key: str, value: Any) -> None:
        with self.db:
            self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def claim(self, fingerprint: str, described: dict[str, Any], total: int) -> bool:
        """Bind this directory to a tournament; True if it was new. Refuse a different one."""
        stored = self.meta("fingerprint")
        if stored is None:
            with self.db:
                for key, value in (("fingerprint", fingerprint), ("config", described), ("total", total),
                                   ("created", time.time())):
                    self.db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
            return True
        if stored != fingerprint:
            raise StoreMismatch(_difference(self.meta("config") or {}, described))
        return False

    # ------------------------------------------------------------ matches
    def done(self) -> set[int]:
        """Schedule indices of the finished matches."""
        return {row[0] for row in self.db.execute("SELECT idx FROM matches")}

    def record(self, scheduled: ScheduledMatch, outcome: MatchOutcome) -> None:
        """Store one finished match: replay file first (atomically), then the row in one transaction."""
        name = f"{REPLAY_DIR}/{scheduled.index:06d}.jsonl.gz"
        tmp = self.directory / (name + ".tmp")
        tmp.write_bytes(outcome.replay)
        os.replace(tmp, self.directory / name)
        stats = [{"decisions": s.decisions, "think_ms": round(s.think_ms, 3), "max_ms": round(s.max_ms, 3)}
                 for s in outcome.stats]
        row = (scheduled.index, scheduled.match_id, scheduled.seed, scheduled.cycle, scheduled.rotation,
               json.dumps(list(outcome.bots)), json.dumps(list(outcome.places)), json.dumps(list(outcome.totals)),
               json.dumps(list(outcome.forfeited)), outcome.reason, json.dumps([list(r) for r in outcome.rounds]),
               json.dumps([f.to_json() for f in outcome.faults]), outcome.decisions, outcome.seconds,
               json.dumps(stats), outcome.sandbox, name, time.time())
        with self.db:
            self.db.execute(f"INSERT INTO matches VALUES ({', '.join('?' * len(row))})", row)

    def records(self) -> list[MatchRecord]:
        """Every finished match in schedule order."""
        out = []
        for idx, match_id, bots, places, totals, forfeited, faults in self.db.execute(
                "SELECT idx, match_id, bots, places, totals, forfeited, faults FROM matches ORDER BY idx"):
            out.append(MatchRecord(idx, match_id, tuple(json.loads(bots)), tuple(json.loads(places)),
                                   tuple(json.loads(totals)), tuple(json.loads(forfeited)),
                                   tuple((f["seat"], f["kind"]) for f in json.loads(faults))))
        return out

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every finished match as a dict (JSON columns decoded), schedule order."""
        cursor = self.db.execute("SELECT * FROM matches ORDER BY idx")
        names = [d[0] for d in cursor.description]
        for values in cursor:
            row = dict(zip(names, values))
            for key in ("bots", "places", "totals", "forfeited", "rounds", "faults", "stats"):
                row[key] = json.loads(row[key])
            yield row


def _difference(stored: dict[str, Any], wanted: dict[str, Any]) -> str:
    keys = sorted(set(stored) | set(wanted))
    changed = [k for k in keys if stored.get(k) != wanted.get(k)]
    lines = ["this output directory holds results of a different tournament configuration; "
             "run with the original configuration, or choose another output directory"]
    for key in changed[:8]:
        lines.append(f"  {key}: stored {json.dumps(stored.get(key))[:200]}, now {json.dumps(wanted.get(key))[:200]}")
    return "\n".join(lines)
