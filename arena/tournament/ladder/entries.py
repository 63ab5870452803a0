"""The ladder's field, one row per submitted version, in the ``ladder_bots`` table of ``results.sqlite``.

Rows are never deleted: a retired or replaced version keeps its matches and its rating,
under its player key ``NAME@vK``. Every change is one transaction, so a run that reads
the field between two batches sees a submission whole or not at all. The rules are here;
the statements, and :class:`Entry` (a row), are the store's (:mod:`..store.ladder`).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..store.ladder import ACTIVE, FIELD_VERSION, LEFT_AT, REPLACED, RETIRED, Entry, LadderStore, player_key

__all__ = ["ACTIVE", "FIELD_VERSION", "LEFT_AT", "REPLACED", "RETIRED", "ActiveField", "Entered", "Entry",
           "NameTaken", "active", "enter", "entries", "left_at", "player_key", "playing", "retire"]


def entries(store: LadderStore) -> list[Entry]:
    """Every version ever entered, by name then version (none in a file that is no ladder)."""
    return store.entries()


def active(store: LadderStore) -> list[Entry]:
    """The versions to schedule."""
    return [e for e in entries(store) if e.status == ACTIVE]


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


def enter(store: LadderStore, name: str, digest: str, path: str, source: str, keep_versions: bool) -> Entered:
    """Enter ``name`` with these files as its next version, in one transaction.

    A name belongs to the directory it was first submitted from (:class:`NameTaken`). The
    digest of an active version again is a no-op; any other becomes version K+1 and, unless
    ``keep_versions``, replaces the active versions of the name. So a retired bot, or an old
    version, comes back as a new version: a version that left the field stays closed (its
    rating stands as it was, and ``arena prune`` may have taken its files), and the comeback
    earns its place again through placement.
    """
    with store.write():  # a concurrent submit of the same name waits here and then sees this one
        rows = [e for e in store.entries() if e.name == name]
        if rows and rows[-1].source != source:
            raise NameTaken(f"the name {name} is taken by a bot submitted from {rows[-1].source}; "
                            "choose another name with --name")
        same = playing(rows, digest)
        if same is not None:
            return Entered(same, False)
        back = next((e for e in reversed(rows) if e.digest == digest), None)
        version = max((e.version for e in rows), default=0) + 1
        replaced = () if keep_versions else tuple(e.version for e in rows if e.status == ACTIVE)
        entry = Entry(name, version, digest, path, source, time.time(), ACTIVE)
        store.add(entry, list(replaced))
    return Entered(entry, True, replaced, back)


def retire(store: LadderStore, name: str) -> list[int]:
    """Take every active version of ``name`` out of the field; the versions retired (none: nothing to do)."""
    return store.retire(name, time.time())


def retired_line(name: str, versions: list[int]) -> str:
    """What ``arena retire`` says of :func:`retire`'s answer: the same words locally and through the server."""
    if not versions:
        return f"{name} is not in the active field; nothing changed"
    return f"retired {', '.join(f'{name}@v{v}' for v in versions)}: no longer scheduled, history kept"


def left_at(store: LadderStore) -> dict[str, float]:
    """When each version that left the field left it (versions that left before this was kept: absent)."""
    return store.left_at()


class ActiveField:
    """The active field as the store holds it now, for a running ladder that asks before every table (so
    a submission joins without a restart): one small read, and the entries only after a change."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)
        self._store: LadderStore | None = None
        self._version: object = None
        self._field: list[Entry] = []
        self._keys: frozenset[str] = frozenset()

    def __call__(self) -> list[Entry]:
        if self._store is None:
            self._store = LadderStore.reader(self.directory)
        version = self._store.field_version()
        if version is None or version != self._version:
            self._field, self._version = active(self._store), version
            self._keys = frozenset(e.key for e in self._field)
        return self._field  # the same list while nothing changed: the matchmaker skips its work then

    def keys(self) -> frozenset[str]:
        """The player keys of the active field."""
        self()
        return self._keys

    def close(self) -> None:
        if self._store is not None:
            self._store.close()
            self._store = None
