"""The submission server's own state in ``OUTPUT/server.sqlite``: authors, who owns which bot, submissions.

Kept apart from ``results.sqlite``, which the ladder's run writes: the server's tables change on
every upload and a run must never wait on them. A token is shown once, when the author is
added, and only its SHA-256 is stored, so a copy of the file (a backup) gives no one a way in;
a token is checked against every stored hash with :func:`hmac.compare_digest`, so the time an
answer takes says nothing about how much of a hash was right. Every change is one transaction.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DB_NAME = "server.sqlite"
"""The server's file in the ladder's output directory."""
AUTHOR_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""What an author's name may be."""
SCHEMA = """
CREATE TABLE IF NOT EXISTS authors (name TEXT PRIMARY KEY, token_sha256 TEXT NOT NULL UNIQUE,
                                    organiser INTEGER NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS owners (bot TEXT PRIMARY KEY, author TEXT NOT NULL, since REAL NOT NULL);
CREATE TABLE IF NOT EXISTS submissions (id TEXT PRIMARY KEY, bot TEXT NOT NULL, author TEXT NOT NULL,
                                        status TEXT NOT NULL, output TEXT NOT NULL, message TEXT,
                                        exit INTEGER, created REAL NOT NULL);
"""


class AuthorError(ValueError):
    """An author command that cannot be done; the message says why in one line."""


@dataclass(frozen=True)
class Author:
    """A row of ``authors``, with the bots the author owns."""

    name: str
    organiser: bool
    created: float
    bots: tuple[str, ...] = ()


def token_hash(token: str) -> str:
    """What is stored of a token."""
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).hexdigest()


def removed_owner(name: str) -> str:
    """Who owns the bots of the removed author ``name``: ``name (removed)``, which is no author name (it holds a
    space), so no token ever matches it and no author added later owns those bots."""
    return f"{name} (removed)"


class ServerDB:
    """``server.sqlite`` of one ladder, created on first use; safe to share between threads."""

    def __init__(self, output: Path) -> None:
        self.path = Path(output) / DB_NAME
        self._lock = threading.RLock()
        try:
            Path(output).mkdir(parents=True, exist_ok=True)
            self.db = sqlite3.connect(self.path, timeout=30, isolation_level=None, check_same_thread=False)
            self.db.execute("PRAGMA journal_mode=WAL")
            self.db.executescript(SCHEMA)
        except (OSError, sqlite3.Error) as exc:
            raise AuthorError(f"{self.path}: cannot open the server's state ({exc}); check the ladder's output "
                              "directory") from None

    def close(self) -> None:
        self.db.close()

    @contextmanager
    def write(self) -> Iterator[sqlite3.Connection]:
        """One transaction, taken at once (BEGIN IMMEDIATE): a reader in between never sees half of it."""
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    def _rows(self, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self.db.execute(sql, args).fetchall()

    # authors

    def add_author(self, name: str, organiser: bool = False) -> str:
        """Add ``name`` and return its new token (shown once: only its hash is kept)."""
        if not AUTHOR_RE.match(name):
            raise AuthorError(f"{name!r} is not an author name: use 1 to 64 letters, digits, '_', '.' or '-', "
                              "starting with a letter or digit")
        token = secrets.token_urlsafe(32)
        with self.write() as db:
            if db.execute("SELECT 1 FROM authors WHERE name = ?", (name,)).fetchone():
                raise AuthorError(f"the author name {name} is taken; choose another or remove it first")
            # bots still owned under this name are a removed author's (an older arena kept the bare name): the
            # new author of the same name must not inherit them
            db.execute("UPDATE owners SET author = ? WHERE author = ?", (removed_owner(name), name))
            db.execute("INSERT INTO authors VALUES (?, ?, ?, ?)", (name, token_hash(token), int(organiser), time.time()))
        return token

    def new_token(self, name: str) -> str:
        """A new token for the author ``name``, who keeps their bots; the old token stops working (a lost one
        cannot be shown again: only its hash was kept)."""
        token = secrets.token_urlsafe(32)
        with self.write() as db:
            if db.execute("UPDATE authors SET token_sha256 = ? WHERE name = ?", (token_hash(token), name)).rowcount == 0:
                raise AuthorError(f"no author named {name}; `arena author list` shows them")
        return token

    def remove_author(self, name: str) -> None:
        """Remove ``name``: its token stops working; its bots stay in the ladder, owned by the removed author
        (:func:`removed_owner`), which no author added later, of that name or any other, can take over."""
        with self.write() as db:
            if db.execute("DELETE FROM authors WHERE name = ?", (name,)).rowcount == 0:
                raise AuthorError(f"no author named {name}; `arena author list` shows them")
            db.execute("UPDATE owners SET author = ? WHERE author = ?", (removed_owner(name), name))

    def authors(self) -> list[Author]:
        """Every author, by name, with the bots they own."""
        owned: dict[str, list[str]] = {}
        for bot, author in self._rows("SELECT bot, author FROM owners ORDER BY bot"):
            owned.setdefault(author, []).append(bot)
        return [Author(name, bool(org), created, tuple(owned.get(name, ())))
                for name, org, created in self._rows("SELECT name, organiser, created FROM authors ORDER BY name")]

    def author_of_token(self, token: str) -> Author | None:
        """The author whose token this is, or None; every stored hash is compared in constant time."""
        wanted = token_hash(token).encode()
        found = None
        for name, stored, org, created in self._rows("SELECT name, token_sha256, organiser, created FROM authors"):
            if hmac.compare_digest(wanted, str(stored).encode()):
                found = Author(name, bool(org), created)
        return found

    # ownership

    def owner(self, bot: str) -> str | None:
        rows = self._rows("SELECT author FROM owners WHERE bot = ?", (bot,))
        return str(rows[0][0]) if rows else None

    def claim(self, bot: str, author: str) -> str:
        """Give ``bot`` to ``author`` unless someone owns it already; its owner after this."""
        with self.write() as db:
            row = db.execute("SELECT author FROM owners WHERE bot = ?", (bot,)).fetchone()
            if row is not None:
                return str(row[0])
            db.execute("INSERT INTO owners VALUES (?, ?, ?)", (bot, author, time.time()))
        return author

    def owned(self, author: str) -> list[str]:
        return [str(b) for (b,) in self._rows("SELECT bot FROM owners WHERE author = ? ORDER BY bot", (author,))]

    def owners(self) -> dict[str, str]:
        return {str(b): str(a) for b, a in self._rows("SELECT bot, author FROM owners")}

    # submissions

    def add_submission(self, sub_id: str, bot: str, author: str) -> None:
        with self.write() as db:
            db.execute("INSERT INTO submissions VALUES (?, ?, ?, 'queued', '[]', NULL, NULL, ?)",
                       (sub_id, bot, author, time.time()))

    def set_submission(self, sub_id: str, status: str, output: list[str], message: str | None,
                       exit: int | None) -> None:
        with self.write() as db:
            db.execute("UPDATE submissions SET status = ?, output = ?, message = ?, exit = ? WHERE id = ?",
                       (status, json.dumps(output), message, exit, sub_id))

    def submission(self, sub_id: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT id, bot, author, status, output, message, exit FROM submissions WHERE id = ?",
                          (sub_id,))
        if not rows:
            return None
        sid, bot, author, status, output, message, exit = rows[0]
        return {"id": sid, "bot": bot, "author": author, "status": status, "output": json.loads(output),
                "message": message, "exit": exit}

    def created(self, sub_id: str) -> float:
        rows = self._rows("SELECT created FROM submissions WHERE id = ?", (sub_id,))
        return float(rows[0][0]) if rows else 0.0

    def unfinished(self) -> list[tuple[str, str, str]]:
        """``(id, bot, status)`` of the submissions a stopped server left queued or checking."""
        return [(str(i), str(b), str(s)) for i, b, s in
                self._rows("SELECT id, bot, status FROM submissions WHERE status != 'done'")]
