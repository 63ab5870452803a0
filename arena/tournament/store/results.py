"""SQLite results of one tournament, in its output directory.

Only the driver writes here (workers return outcomes), one transaction per finished
or voided match, so a run killed at any instant keeps every match it committed and
none twice. WAL mode lets ``arena leaderboard`` read while a run writes. The layout
and its migrations are in :mod:`.schema`.

A damaged file (a table gone, malformed pages, a directory in its place) is refused with
:class:`StoreDamaged`, raised by the connection itself (:class:`_Connection`) wherever the
damage shows, so no caller needs its own ``sqlite3`` handling; a failed statement or
transaction changes nothing. A file that holds matches but no record of the tournament
they belong to (its ``meta`` gone or emptied) is refused too: binding it to whatever
configuration runs next would relabel those matches and replay over their files.
"""

from __future__ import annotations

import json
import math
import os
import sqlite3
import time
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Collection, Iterable, Iterator

from ...match.runner import MatchOutcome, stats_json
from . import schema
from ..records import MatchRecord, SeatLogRecord, VoidRecord, record_of_row
from ..scheduled import ScheduledMatch

if TYPE_CHECKING:
    from .ladder import LadderStore

DB_NAME = "results.sqlite"
REPLAY_DIR = "replays"


class StoreMismatch(Exception):
    """The output directory holds a different tournament; the message says what differs."""


class StoreDamaged(StoreMismatch):
    """The results file cannot be used as it is (damaged, locked, not a file); the message names it,
    says it was not changed and what to do. A :class:`StoreMismatch`, so every caller that reports
    one reports this too."""


_RESTORE = "it was not changed. Restore it from a backup, or use another output directory"


def _damaged(path: Path, exc: Exception) -> StoreDamaged:
    """The one-line refusal for an ``sqlite3`` error ``exc`` on the store at ``path``."""
    text = str(exc) or type(exc).__name__
    if isinstance(exc, sqlite3.OperationalError) and ("locked" in text or "busy" in text):
        return StoreDamaged(f"{path}: the store is in use by another process ({text}); "
                            "try again once it is done")
    if "not a database" in text:  # some other file: nothing of this arena's was ever in it
        return StoreDamaged(f"{path}: not a results database this arena can use ({text}); it was not changed; "
                            "choose another output directory")
    if isinstance(exc, sqlite3.OperationalError) and not text.startswith(("no such", "malformed")):
        return StoreDamaged(f"{path}: the store cannot be used ({text}); {_RESTORE}")
    return StoreDamaged(f"{path}: the store is damaged ({text}); {_RESTORE}")


class _Cursor(sqlite3.Cursor):
    """A cursor whose ``sqlite3`` errors are :class:`StoreDamaged` naming the file."""

    path: Path

    def execute(self, *args: Any) -> "_Cursor":
        try:
            return super().execute(*args)
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def executemany(self, *args: Any) -> "_Cursor":
        try:
            return super().executemany(*args)
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def executescript(self, *args: Any) -> "_Cursor":
        try:
            return super().executescript(*args)  # type: ignore[return-value]
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def fetchone(self) -> Any:
        try:
            return super().fetchone()
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def fetchmany(self, *args: Any) -> list[Any]:
        try:
            return super().fetchmany(*args)
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def fetchall(self) -> list[Any]:
        try:
            return super().fetchall()
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def __next__(self) -> Any:
        try:
            return super().__next__()
        except sqlite3.DatabaseError as exc:  # a malformed page shows only when its row is read
            raise _damaged(self.path, exc) from None


class _Connection(sqlite3.Connection):
    """The store's connection: every statement runs on a :class:`_Cursor`, so damage found anywhere
    (here, in the ladder's tables of :mod:`.ladder`, in a reader's own connection) is one :class:`StoreDamaged`."""

    path: Path

    def cursor(self, factory: Any = None) -> _Cursor:  # type: ignore[override]
        cursor = super().cursor(factory or _Cursor)
        cursor.path = self.path
        return cursor

    def execute(self, *args: Any) -> _Cursor:
        return self.cursor().execute(*args)

    def executemany(self, *args: Any) -> _Cursor:
        return self.cursor().executemany(*args)

    def executescript(self, *args: Any) -> _Cursor:
        return self.cursor().executescript(*args)

    def commit(self) -> None:
        try:
            super().commit()
        except sqlite3.DatabaseError as exc:
            raise _damaged(self.path, exc) from None

    def __exit__(self, *args: Any) -> Any:
        try:
            return super().__exit__(*args)
        except sqlite3.DatabaseError as exc:  # the commit at the end of ``with db:``
            raise _damaged(self.path, exc) from None


OWN_NAMES = (DB_NAME, "server.sqlite", "run.lock")
"""Files that make a directory a tournament's output even before its first match: the results store, a ladder's
authors (``arena author add`` may come first) and a ladder's run lock."""


def check_output(directory: Path) -> None:
    """Refuse an output directory a run would write into among files that are not a tournament's: one that
    exists, is not empty, and holds none of :data:`OWN_NAMES` (``output: /``, or a folder of other things).
    A new directory, an empty one, and the output of an earlier run are fine. Nothing is written either way."""
    try:
        if not directory.is_dir() or any((directory / name).exists() for name in OWN_NAMES):
            return
        entries = [entry.name for entry in os.scandir(directory)]
    except OSError as exc:
        raise StoreMismatch(f"{directory}: cannot use it as the output directory: {exc.strerror or exc}; "
                            "choose another output directory") from None
    if set(entries) - {REPLAY_DIR, "report"}:  # what a run makes first (replays/, a report/ of nothing yet)
        shown = ", ".join(sorted(entries)[:3]) + (f" and {len(entries) - 3} more" if len(entries) > 3 else "")
        raise StoreMismatch(f"{directory}: not a tournament's output directory (it holds {shown}, and no "
                            f"{DB_NAME}); a run writes its results, replays and leaderboards there, so give a new "
                            "or empty directory as output (nothing was written)")


def connect(path: Path, uri: str | None = None) -> _Connection:
    """A connection to the store at ``path`` (or ``uri``) whose errors are :class:`StoreDamaged`, for a
    reader that opens one of its own."""
    db = sqlite3.connect(uri or path, uri=uri is not None, timeout=30, factory=_Connection)
    db.path = path
    return db


class ResultStore:
    """Finished and voided matches of one tournament."""

    def __init__(self, directory: Path, readonly: bool = False) -> None:
        self.directory = Path(directory)
        self.path = path = self.directory / DB_NAME
        self._repeats_checked: tuple[Any, ...] | None = None  # what the matches were when last found without repeats
        if self.directory.exists() and not self.directory.is_dir():
            raise StoreDamaged(f"{self.directory} is not a directory; a tournament's output must be a directory "
                               "(a new one, or the output of an earlier run of the same tournament)")
        if path.exists() and not path.is_file():
            raise StoreDamaged(f"{path} is not a file; {_RESTORE}")
        if readonly:
            if not path.is_file():
                raise FileNotFoundError(f"{self.directory}: no {DB_NAME} here (not a tournament output directory)")
            try:
                self._db = connect(path, f"file:{path}?mode=ro")
            except sqlite3.DatabaseError as exc:
                raise _damaged(path, exc) from None
        else:
            try:
                (self.directory / REPLAY_DIR).mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreDamaged(f"cannot make the output directory {exc.filename or self.directory}: "
                                   f"{exc.strerror or exc}; choose another output directory") from None
            try:
                self._db = connect(path)
            except sqlite3.DatabaseError as exc:
                raise _damaged(path, exc) from None
        try:
            layout = schema.version(self._db)
            if layout > schema.VERSION:
                raise StoreMismatch(f"{path}: written by a newer arena (layout {layout}; this arena knows layouts "
                                    f"up to {schema.VERSION}); use that arena, or choose another output directory")
            missing = schema.missing_tables(self._db)
            if missing:  # before migrating: creating them anew would hide the loss
                raise StoreDamaged(f"{path}: the store is damaged (no table {', '.join(missing)}); {_RESTORE}")
            loose = schema.lost_keys(self._db)
            if loose:  # a table remade by hand: one match could be stored twice and counted twice
                raise StoreDamaged(f"{path}: the store is damaged (table {', '.join(loose)} lost its keys: a match "
                                   f"index or id may be stored twice); {_RESTORE}")
            self._check_meta()
            self._check_played_and_voided()
            if not readonly:
                self._db.execute("PRAGMA journal_mode=WAL")
                self._db.execute("PRAGMA synchronous=NORMAL")
                schema.migrate(self._db)
        except BaseException:
            self._db.close()
            raise

    def close(self) -> None:
        self._db.close()

    @property
    def ladder(self) -> LadderStore:
        """The ladder's tables on this store's connection (:mod:`.ladder`), whose writes join this store's
        transactions."""
        from .ladder import LadderStore  # it builds on this module's connection
        return LadderStore(self._db)

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """Everything written inside one transaction: committed together, or (on an exception) not at all."""
        with self._db:
            yield

    # ------------------------------------------------------------ meta
    def meta(self, key: str) -> Any:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        if row is None:
            return None
        try:
            return json.loads(row[0])
        except (TypeError, ValueError):
            raise StoreDamaged(f"{self.path}: the store is damaged (meta {key!r} is not JSON); {_RESTORE}") from None

    def set_meta(self, key: str, value: Any) -> None:
        self._set_metas({key: value})

    def claim(self, fingerprint: str, described: dict[str, Any], total: int | None,
              unbound: tuple[str, ...] = ()) -> bool:
        """Bind this directory to a tournament (``total``: its matches, None when open-ended; :meth:`extend`
        raises it); True if it was new. Refuse a different one, unless it differs only in the ``unbound``
        parts of its configuration: then rebind the directory to it."""
        stored = self.meta("fingerprint")  # None: nothing is stored either (checked on opening)
        if stored is None:
            self._set_metas({"fingerprint": fingerprint, "config": described, "total": total, "created": time.time()})
            return True
        if stored != fingerprint:
            before = self.meta("config") or {}
            if not unbound or _bound(before, unbound) != _bound(described, unbound):
                raise StoreMismatch(_difference(before, described))
            self._set_metas({"fingerprint": fingerprint, "config": described})
        return False

    def _set_metas(self, values: dict[str, Any]) -> None:
        """Write these meta keys in one transaction."""
        with self._db:
            for key, value in values.items():
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))

    def extend(self, before: str, fingerprint: str, described: dict[str, Any], total: int) -> None:
        """Rebind this directory from the tournament ``before`` to a longer one (:mod:`.extend` checked that
        its stored matches are the longer one's first): fingerprint, configuration and total in one transaction,
        refused if another run rebound it meanwhile."""
        self._db.execute("BEGIN IMMEDIATE")  # re-read under the write lock
        try:
            if self.meta("fingerprint") != before:
                raise StoreMismatch(f"{self.path}: another run changed this tournament's configuration meanwhile; "
                                    "run again")
            for key, value in (("fingerprint", fingerprint), ("config", described), ("total", total)):
                self._db.execute("INSERT OR REPLACE INTO meta VALUES (?, ?)", (key, json.dumps(value)))
            self._db.execute("COMMIT")
        except BaseException:
            if self._db.in_transaction:
                self._db.execute("ROLLBACK")
            raise

    def _check_meta(self) -> None:
        """Refuse a store whose ``meta`` cannot be trusted: a value that is not JSON, or matches stored
        but no fingerprint (meta lost or emptied: they belong to a tournament nobody can name now, and
        binding them to the next configuration run here would relabel them)."""
        meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall()) \
            if schema.has_table(self._db, "meta") else {}
        for key in meta:
            why = _meta_problem(key, self.meta(key))
            if why:
                raise StoreDamaged(f"{self.path}: the store is damaged (meta {key!r} {why}); {_RESTORE}")
        if "fingerprint" in meta:
            return
        held = []
        for table, what in (("matches", "stored matches"), ("voided", "voided matches")):  # not ladder
            # entries: ``arena submit`` may enter bots before a ladder's first run binds its store
            if schema.has_table(self._db, table) and self._db.execute(f"SELECT 1 FROM {table} LIMIT 1").fetchone():
                count = int(self._db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])
                held.append(f"{count} {what}")
        if held:
            raise StoreDamaged(f"{self.path}: the store is damaged (it holds {' and '.join(held)} but no record "
                               f"of their tournament's configuration); {_RESTORE}")

    def _check_played_and_voided(self) -> None:
        """Refuse a match held twice under one index, played and voided: read from the keys alone, so every command
        checks it on opening whatever the store's size."""
        if not schema.has_table(self._db, "voided"):
            return
        both = self._db.execute("SELECT v.idx, v.match_id FROM voided v CROSS JOIN matches m ON m.idx = v.idx "
                                "LIMIT 1").fetchone()
        if both:
            raise StoreDamaged(f"{self.path}: the store is damaged (match {both[0]} ({both[1]}) is stored both as "
                               f"played and as voided); {_RESTORE}")

    def _check_repeats(self) -> None:
        """Refuse a played match stored twice under two indices and ids: the same deal, rotation and seats (every
        schedule deals each seating of a table once; a ladder's replayed table seats another version). Such a
        copy made a run say "-2 to play" and its board "4 of 2 matches finished", counting it twice. A scan of
        every row, so made where every row is read anyway (:meth:`check_matches`, :meth:`records`, :meth:`raw_rows`),
        and made once while the matches stay as they were (a run's start reads them twice)."""
        unchanged = (self._db.execute("PRAGMA data_version").fetchone()[0],
                     *self._db.execute("SELECT count(*), total(idx) FROM matches").fetchone())
        if unchanged == self._repeats_checked:
            return
        twice = self._db.execute("SELECT MIN(idx), MAX(idx) FROM matches GROUP BY seed, rotation, bots "
                                 "HAVING COUNT(*) > 1 ORDER BY MIN(idx) LIMIT 1").fetchone()
        if twice:
            first, again = (self._db.execute("SELECT match_id FROM matches WHERE idx = ?", (index,)).fetchone()[0]
                            for index in twice)
            raise StoreDamaged(f"{self.path}: the store is damaged (match {twice[1]} ({again}) repeats match "
                               f"{twice[0]} ({first}): the same deal, rotation and seats stored twice); {_RESTORE}")
        self._repeats_checked = unchanged

    # ------------------------------------------------------------ matches
    def done(self) -> set[int]:
        """Schedule indices of the finished and the voided matches: what a resume does not play."""
        done = {row[0] for row in self._db.execute("SELECT idx FROM matches")}
        return done | {record.index for record in self.voided()}

    def check_matches(self) -> None:
        """Decode and check every stored match now (:func:`decode_match`), so that a run refuses a damaged
        row before it writes anything rather than when it first reads that row; and every match's luck, and that
        no match is stored twice."""
        self._check_repeats()
        cursor = self._db.execute(f"SELECT idx, bots, {', '.join(_MATCH_COLUMNS)} FROM matches")
        names = [d[0] for d in cursor.description]
        for values in cursor:
            decode_match(self.path, dict(zip(names, values)))
        self.luck()

    def count(self) -> int:
        """Finished matches stored."""
        return int(self._db.execute("SELECT COUNT(*) FROM matches").fetchone()[0])

    def record(self, scheduled: ScheduledMatch, outcome: MatchOutcome, finished: float | None = None,
               also: Callable[[LadderStore], None] | None = None) -> None:
        """Store one finished match: replay file first (atomically), then the row in one transaction, with a
        ladder's kept sums (:meth:`.ladder.LadderStore.count_match`) and whatever ``also`` writes (a ladder's kept
        ratings), so a kill never separates them."""
        if self._is_void(scheduled.index):
            raise ValueError(f"match {scheduled.match_id} was voided; it cannot be stored as played")
        name = f"{REPLAY_DIR}/{scheduled.index:06d}.jsonl.gz"
        tmp = self.directory / (name + ".tmp")
        tmp.write_bytes(outcome.replay)
        os.replace(tmp, self.directory / name)
        stats = [stats_json(s) for s in outcome.stats]
        row = (scheduled.index, scheduled.match_id, scheduled.seed, scheduled.cycle, scheduled.rotation,
               json.dumps(list(outcome.bots)), json.dumps(list(outcome.places)), json.dumps(list(outcome.totals)),
               json.dumps(list(outcome.forfeited)), outcome.reason, json.dumps([list(r) for r in outcome.rounds]),
               json.dumps([f.to_json() for f in outcome.faults]), outcome.decisions, outcome.seconds,
               json.dumps(stats), outcome.sandbox, name, time.time() if finished is None else finished)
        self._repeats_checked = None
        with self._db:
            self._db.execute(f"INSERT INTO matches VALUES ({', '.join('?' * len(row))})", row)
            self._db.executemany("INSERT OR REPLACE INTO logs VALUES (?, ?, ?)",  # the row above guards doubles
                                 [(scheduled.index, seat, text) for seat, text in enumerate(outcome.logs)])
            self._db.execute("INSERT OR REPLACE INTO decision_times VALUES (?, ?)",
                             (scheduled.index, json.dumps(list(outcome.decision_ms), separators=(",", ":"))))
            if outcome.frames is not None:
                self._db.execute("INSERT OR REPLACE INTO frames VALUES (?, ?, ?, ?)",
                                 (scheduled.index, *outcome.frames))
            if outcome.luck:
                self._db.execute("INSERT OR REPLACE INTO luck VALUES (?, ?, ?)",
                                 (scheduled.index, outcome.luck_model, json.dumps(list(outcome.luck))))
            self.ladder.count_match(scheduled.index, scheduled.match_id, outcome.bots, outcome.places, outcome.luck)
            if also is not None:
                also(self.ladder)

    def void(self, scheduled: ScheduledMatch, reason: str) -> None:
        """Store a match as voided (never rated, never played again), with its seating and why."""
        row = (scheduled.index, scheduled.match_id, scheduled.seed, scheduled.cycle, scheduled.rotation,
               json.dumps(list(scheduled.bots)), reason, time.time())
        with self._db:
            if self._db.execute("SELECT 1 FROM matches WHERE idx = ?", (scheduled.index,)).fetchone():
                raise ValueError(f"match {scheduled.match_id} is stored as played; it cannot be voided")
            if self._is_void(scheduled.index):
                raise ValueError(f"match {scheduled.match_id} is voided already")
            self._db.execute(f"INSERT INTO voided VALUES ({', '.join('?' * len(row))})", row)

    def voided(self) -> list[VoidRecord]:
        """Every voided match in schedule order (none in a file from before voiding existed)."""
        if not schema.has_table(self._db, "voided"):
            return []
        return [VoidRecord(idx, match_id, tuple(json.loads(bots)), reason) for idx, match_id, bots, reason
                in self._db.execute("SELECT idx, match_id, bots, reason FROM voided ORDER BY idx")]

    def _is_void(self, index: int) -> bool:
        return self._db.execute("SELECT 1 FROM voided WHERE idx = ?", (index,)).fetchone() is not None

    def records(self) -> list[MatchRecord]:
        """Every finished match in schedule order (a match stored twice is damage: it would count twice)."""
        self._check_repeats()
        out = []
        luck = self.luck()
        cursor = self._db.execute(
            "SELECT idx, match_id, bots, places, totals, forfeited, faults, stats FROM matches ORDER BY idx")
        names = [d[0] for d in cursor.description]
        for values in cursor:
            out.append(record_of_row(decode_match(self.path, dict(zip(names, values))), luck.get(values[0], ())))
        return out

    def luck(self, after: int | None = None) -> dict[int, tuple[float, ...]]:
        """Each measured match's luck per seat (beyond index ``after``), by index (none in a file from before
        luck was measured); each a finite number per seat of its match (:func:`decode_luck`)."""
        if not schema.has_table(self._db, "luck"):
            return {}
        out = {}
        # the seats of each match counted by SQLite, not by decoding its bots again (the readers of the rows do,
        # and refuse bots that are not a list); None where its row is missing or its bots are not a list
        for index, seats, players in self._db.execute(
                "SELECT l.idx, l.seats, CASE WHEN json_valid(m.bots) AND json_type(m.bots) = 'array' "
                "THEN json_array_length(m.bots) END FROM luck l LEFT JOIN matches m ON m.idx = l.idx WHERE l.idx > ?",
                (-1 if after is None else after,)):
            out[int(index)] = decode_luck(self.path, int(index), seats, players)
        return out

    def luck_models(self) -> list[str]:
        """The value functions that measured this store's matches (one, unless the arena's file changed)."""
        if not schema.has_table(self._db, "luck"):
            return []
        return [row[0] for row in self._db.execute("SELECT DISTINCT model FROM luck ORDER BY model")]

    def bot_logs(self, bot: str, every_row: bool = True) -> list[SeatLogRecord]:
        """Every seat ``bot`` held, in schedule order, with its log (None: played before logs were kept).
        ``every_row`` False: only the rows naming ``bot`` are read and checked (the submission server, asked
        often, at any size of ladder), so a damaged row elsewhere goes unnoticed; True: every row is checked, as
        every command checks the store it reads."""
        kept = self.keeps_logs()
        out = []
        if every_row:
            self.check_matches()  # every column of every row, as the other commands read them
        rows = self._db.execute("SELECT idx, match_id, bots, places, replay FROM matches ORDER BY idx") if every_row \
            else self._db.execute("SELECT idx, match_id, bots, places, replay FROM matches WHERE instr(bots, ?) > 0 "
                                  "ORDER BY idx", (json.dumps(bot),))  # only the rows naming it, as JSON writes it
        for idx, match_id, bots, places, replay in rows:
            decoded = decode_match(self.path, {"idx": idx, "bots": bots, "places": places})
            names, ranks = decoded["bots"], decoded["places"]
            for seat, name in enumerate(names):
                if name != bot:
                    continue
                text = self.log(idx, seat) if kept else None
                out.append(SeatLogRecord(idx, match_id, seat, len(names), ranks[seat], text, replay))
        return out

    def keeps_logs(self) -> bool:
        """Whether the file keeps seat logs (one written before they were kept, read as it is, does not)."""
        return schema.has_table(self._db, "logs")

    def log(self, index: int, seat: int) -> str | None:
        """The log of ``seat`` in match ``index``; None when none is stored (or :meth:`keeps_logs` is False)."""
        if not self.keeps_logs():
            return None
        row = self._db.execute("SELECT text FROM logs WHERE idx = ? AND seat = ?", (index, seat)).fetchone()
        return None if row is None else str(row[0])

    def seatings(self) -> Iterator[list[str]]:
        """The bots of every stored match, seat 0 first, in schedule order."""
        for idx, bots in self._db.execute("SELECT idx, bots FROM matches ORDER BY idx"):
            yield decode_match(self.path, {"idx": idx, "bots": bots})["bots"]

    def seating_of(self, match_id: str) -> list[str] | None:
        """The bots of the stored match ``match_id``, seat 0 first; None when no such match is stored."""
        row = self._db.execute("SELECT idx, bots FROM matches WHERE match_id = ?", (match_id,)).fetchone()
        return None if row is None else decode_match(self.path, {"idx": row[0], "bots": row[1]})["bots"]

    def deals(self) -> Iterator[tuple[int, str, str, list[str]]]:
        """``(index, match id, seed, bots)`` of every stored and voided match, in index order, each read as it
        is asked for (a damaged row: one :class:`StoreDamaged` line)."""
        for index, match_id, seed, bots in self._db.execute(
                "SELECT idx, match_id, seed, bots FROM matches UNION ALL "
                "SELECT idx, match_id, seed, bots FROM voided ORDER BY idx"):
            yield index, match_id, seed, decode_match(self.path, {"idx": index, "bots": bots})["bots"]

    def voided_deals(self) -> list[tuple[str, int, int]]:
        """``(seed, rotation, seats)`` of every voided match (none in a file from before voiding existed)."""
        if not schema.has_table(self._db, "voided"):
            return []
        return [(str(seed), int(rotation), len(json.loads(bots)))
                for seed, rotation, bots in self._db.execute("SELECT seed, rotation, bots FROM voided")]

    @contextmanager
    def reading(self) -> Iterator[None]:
        """One read transaction: whatever is read inside agrees (rows, records, voided), even while a run
        writes; nothing is written."""
        self._db.execute("BEGIN")
        try:
            yield
        finally:
            if self._db.in_transaction:
                self._db.rollback()

    def decision_times(self, index: int) -> list[float | None] | None:
        """Match ``index``'s time of each decision in order (None where the fallback policy chose); None
        when it has none stored (played before times were kept) or what is stored is not such a list."""
        if not schema.has_table(self._db, "decision_times"):
            return None
        row = self._db.execute("SELECT ms FROM decision_times WHERE idx = ?", (index,)).fetchone()
        try:
            times = json.loads(row[0]) if row is not None else None
        except (TypeError, ValueError):
            return None
        if not isinstance(times, list) or not all(t is None or _is_number(t) for t in times):
            return None
        return times

    def packed_frames(self, indices: Collection[int]) -> dict[int, tuple[str, str, bytes]]:
        """The stored viewer frames of the matches ``indices`` that have them: (frames format, packing, bytes)
        by index (:mod:`arena.game.framepack`)."""
        if not indices or not schema.has_table(self._db, "frames"):
            return {}
        out: dict[int, tuple[str, str, bytes]] = {}
        wanted = sorted(indices)
        for at in range(0, len(wanted), 500):  # SQLite's limit on the parameters of one statement is higher
            part = wanted[at:at + 500]
            for idx, frames_format, packing, data in self._db.execute(
                    f"SELECT idx, format, packing, data FROM frames WHERE idx IN ({', '.join('?' * len(part))})", part):
                if isinstance(frames_format, str) and isinstance(packing, str) and isinstance(data, bytes):
                    out[int(idx)] = (frames_format, packing, data)
        return out

    def rows(self) -> Iterator[dict[str, Any]]:
        """Every finished match as a dict (JSON columns decoded), schedule order."""
        names, cursor = self.raw_rows()
        for values in cursor:
            yield decode_match(self.path, dict(zip(names, values)))

    def raw_rows(self, after: int | None = None) -> tuple[list[str], Iterator[tuple[Any, ...]]]:
        """The column names, and every finished match (beyond index ``after``) as its raw values in schedule
        order, read as they are asked for: a report that keeps the rows it decoded decodes only new ones. Every
        row read (``after`` None) is checked for a match stored twice first."""
        if after is None:
            self._check_repeats()
        cursor = self._db.execute("SELECT * FROM matches ORDER BY idx") if after is None else \
            self._db.execute("SELECT * FROM matches WHERE idx > ? ORDER BY idx", (after,))
        return [d[0] for d in cursor.description], cursor

    def row_keys(self) -> dict[int, tuple[str, float]]:
        """``{index: (match id, finish time)}`` of every finished match: what tells a kept row from a changed one."""
        return {idx: (match_id, finished_at) for idx, match_id, finished_at in
                self._db.execute("SELECT idx, match_id, finished_at FROM matches")}

    def sums_through(self, top: int) -> tuple[Any, ...]:
        """Count, sum of indices and of finish times of the rows up to index ``top``, as SQLite adds them: equal
        sums say (all but surely) that no row up to there changed."""
        return tuple(self._db.execute("SELECT count(*), total(idx), total(finished_at) FROM matches WHERE idx <= ?",
                                      (top,)).fetchone())

    def deals_of(self, indices: Collection[int]) -> list[dict[str, Any]]:
        """``{idx, seed, rotation, bots}`` of every finished match that shares a deal with one of ``indices``,
        a few hundred parameters a statement: an author's logs read only the rows of their own deals, never
        every match of a ladder of 100,000."""
        seeds = sorted({seed for (seed,) in self._chunked("SELECT seed FROM matches WHERE idx IN ({})",
                                                          sorted(indices))})
        return self._deal_rows(self._chunked("SELECT idx, seed, rotation, bots FROM matches WHERE seed IN ({})",
                                             seeds))

    def deal_rows(self) -> list[dict[str, Any]]:
        """``{idx, seed, rotation, bots}`` of every finished match: what tells which deals are whole
        (:mod:`arena.site.withhold`), without decoding the rest of each row."""
        return self._deal_rows(self._db.execute("SELECT idx, seed, rotation, bots FROM matches"))

    def withheld_count(self, voided: bool) -> int | None:
        """How many stored matches have a deal with a rotation neither stored nor (``voided``) voided: the count of
        :func:`arena.site.withhold.withheld` over :meth:`deal_rows` (and :meth:`voided_deals`), made by SQLite in one
        pass instead of decoding every row. None when a row is not what that count reads (bots not a JSON list of
        seats, a rotation not a whole number from 0 to its deal's seats less one): then the rows are to be decoded,
        which refuses the damage, or counts the odd deal as :func:`arena.site.withhold.withheld` does. (A list of
        seats that are not all names is counted by its length here; every other reader of the rows refuses it.)"""
        voided = voided and schema.has_table(self._db, "voided")
        seats = "CASE WHEN json_valid(bots) THEN json_array_length(bots) END"  # 0 for JSON that is no list
        rows = f"SELECT seed, rotation, {seats} AS seats, 1 AS played FROM matches" + (
            f" UNION ALL SELECT seed, rotation, {seats}, 0 FROM voided" if voided else "")
        # a deal is whole when its rotations, all from 0 to its seats less one, are as many as its seats
        played, odd = self._db.execute(
            "SELECT TOTAL(played * NOT (kinds = seats AND low >= 0 AND high < seats)), TOTAL(odd) FROM ("
            "SELECT SUM(played) AS played, MAX(seats) AS seats, MIN(rotation) AS low, MAX(rotation) AS high, "
            "COUNT(DISTINCT rotation) AS kinds, MAX(seats IS NULL OR seats < 1 OR typeof(rotation) != 'integer') "
            f"OR MIN(rotation) < 0 OR MAX(rotation) >= MAX(seats) AS odd FROM ({rows}) GROUP BY seed)").fetchone()
        return None if odd else int(played)

    def _deal_rows(self, rows: Iterable[tuple[Any, ...]]) -> list[dict[str, Any]]:
        return [decode_match(self.path, {"idx": idx, "seed": seed, "rotation": rotation, "bots": bots})
                for idx, seed, rotation, bots in rows]

    def _chunked(self, sql: str, values: list[Any], size: int = 500) -> list[tuple[Any, ...]]:
        """The rows of ``sql`` (one ``IN ({})``) over ``values``, ``size`` parameters a statement."""
        out: list[tuple[Any, ...]] = []
        for at in range(0, len(values), size):
            part = values[at:at + size]
            out += self._db.execute(sql.format(", ".join("?" * len(part))), part).fetchall()
        return out


def _seat_list(kind: Callable[[Any], bool]) -> Callable[[Any, int], bool]:
    return lambda value, seats: isinstance(value, list) and len(value) == seats and all(kind(v) for v in value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_stats(value: Any) -> bool:
    return isinstance(value, dict) and all(_is_number(value.get(k)) for k in ("decisions", "think_ms", "max_ms"))


_MATCH_COLUMNS: dict[str, tuple[str, Callable[[Any, int], bool]]] = {
    "places": ("a whole number per seat", _seat_list(lambda v: _is_int(v))),
    "totals": ("a number per seat", _seat_list(_is_number)),
    "forfeited": ("true or false per seat", _seat_list(lambda v: isinstance(v, bool))),
    "rounds": ("a list of rounds", lambda v, seats: isinstance(v, list) and all(isinstance(r, list) for r in v)),
    "faults": ("a list of faults", lambda v, seats: isinstance(v, list) and all(
        isinstance(f, dict) and _is_int(f.get("seat")) and 0 <= f["seat"] < seats and isinstance(f.get("kind"), str)
        for f in v)),
    "stats": ("timings per seat", lambda v, seats: isinstance(v, list) and len(v) in (0, seats)
              and all(_is_stats(s) for s in v)),
}
"""The JSON columns of ``matches`` besides ``bots``: what each must hold, and the check."""


def decode_match(path: Path, row: dict[str, Any]) -> dict[str, Any]:
    """``row`` (some columns of ``matches``, with ``idx``) with its JSON columns decoded, each checked to
    be what the readers use it as; a value that is not is damage (:class:`StoreDamaged` naming the match),
    never a TypeError three modules later."""
    where = f"match {row.get('idx')}"
    out = dict(row)
    seats = 0
    for key in ["bots"] + [k for k in _MATCH_COLUMNS if k in row]:
        if key not in row:
            continue
        try:
            value = json.loads(row[key])
        except (TypeError, ValueError):
            raise StoreDamaged(f"{path}: the store is damaged ({where}: {key} is not JSON); {_RESTORE}") from None
        if key == "bots":
            if not (isinstance(value, list) and value and all(isinstance(b, str) for b in value)):
                raise StoreDamaged(f"{path}: the store is damaged ({where}: bots is not a list of bot names); "
                                   f"{_RESTORE}")
            seats = len(value)
        else:
            want, ok = _MATCH_COLUMNS[key]
            if not ok(value, seats):
                raise StoreDamaged(f"{path}: the store is damaged ({where}: {key} is not {want}); {_RESTORE}")
        out[key] = value
    return out


def decode_luck(path: Path, index: int, text: Any, players: int | None) -> tuple[float, ...]:
    """Match ``index``'s stored luck: a finite number for each of its ``players`` seats (None: its row is not
    stored, so any count), else damage naming the match. A NaN would make every rating the points model reaches
    NaN and every luck column a mean of it; a list of another length gives seats each other's luck."""
    try:
        values = json.loads(text)
    except (TypeError, ValueError):
        values = None
    if not (isinstance(values, list) and (players is None or len(values) == players)
            and all(_is_number(v) and math.isfinite(v) for v in values)):
        seats = "" if players is None else f" of its {players}"
        raise StoreDamaged(f"{path}: the store is damaged (match {index}: luck is not a finite number for each"
                           f"{seats} seat{'' if players == 1 else 's'}, got {str(text)[:80]}); {_RESTORE}")
    return tuple(float(v) for v in values)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _meta_problem(key: str, value: Any) -> str:
    """What is wrong with a ``meta`` value the arena wrote and reads back ("" if nothing): every reader
    may then use it as it is. Keys the arena does not know are left alone."""
    from ..rating import RatingParamError, RatingParams

    if key == "fingerprint" and not isinstance(value, str):
        return "is not a string"
    if key == "config" and not isinstance(value, dict):
        return "is not an object"
    if key in ("total", "ladder_field", "ladder_rated_through") and value is not None and not _is_int(value):
        return "is not a whole number"
    if key == "ladder_counted" and not (isinstance(value, list) and len(value) == 2 and all(_is_int(v) for v in value)):
        return "is not a count of matches and a sum of their indices"
    if key == "bots" and not (isinstance(value, list) and all(isinstance(name, str) for name in value)):
        return "is not a list of bot names"
    if key == "drawn_seed" and not (_is_int(value) or isinstance(value, str)):
        return "is not a seed"
    if key == "ladder" and not (isinstance(value, dict) and _is_int(value.get("placement_matches"))):
        return "has no whole placement_matches"
    if key == "ladder_left" and not (isinstance(value, dict) and all(_is_number(v) for v in value.values())):
        return "is not a map of player keys to times"
    if key == "ladder_reclaimed" and not (isinstance(value, dict) and all(
            isinstance(v, dict) and _is_number(v.get("bytes")) and _is_number(v.get("at")) for v in value.values())):
        return "is not a map of player keys to removed snapshots"
    if key == "bot_files" and not (isinstance(value, dict) and all(
            isinstance(v, dict) and isinstance(v.get("files"), dict) and isinstance(v.get("built"), list)
            for v in value.values())):
        return "is not a map of bots to their files"
    if key == "rating":
        if not isinstance(value, dict):
            return "is not an object"
        try:
            RatingParams(**value)
        except RatingParamError as exc:
            if not exc.out_of_range:
                return f"is not rating parameters: {exc}"
            # a number outside today's range, as an older arena took it, is no damage: the file's next run
            # stores its own, and until then a board says why it cannot rate (..standings.read)
        except (TypeError, ValueError) as exc:
            return f"is not rating parameters: {exc}"
    return ""


def _bound(described: dict[str, Any], unbound: tuple[str, ...]) -> dict[str, Any]:
    """The parts of a stored configuration that bind its directory."""
    return {key: value for key, value in described.items() if key not in unbound}


def _difference(stored: dict[str, Any], wanted: dict[str, Any]) -> str:
    keys = sorted(set(stored) | set(wanted))
    changed = [k for k in keys if stored.get(k) != wanted.get(k)]
    lines = ["this output directory holds results of a different tournament configuration; "
             "run with the original configuration, or choose another output directory"]
    for key in changed[:8]:
        lines.append(f"  {key}: stored {json.dumps(stored.get(key))[:200]}, now {json.dumps(wanted.get(key))[:200]}")
    return "\n".join(lines)
