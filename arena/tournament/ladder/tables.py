"""A ladder's stored tables, and the ones a new version replays (docs/ladder.md, "A new version against the old one").

When version K of a name enters, its first tables are those version K-1 played, dealt again
with the same seed and seating, K in K-1's seat: the deal's luck, the seats and the
opponents are then the same for both, and what differs is the version. This module reads
the store for that: which of K-1's tables can be replayed now (:func:`plan`), and the stored
tables of a replay and its source, for a resumed run that completes a replay cut short and for
the board line (:mod:`.paired`). Everything comes from ``results.sqlite``, never from a run's
memory, so a resumed run plans what an uninterrupted one would have, and the board says the
same whoever reads it.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Collection, Iterable, Sequence

from .matchmaking import source_of, table_of
from ..store.ladder import LadderStore, TableRow


@dataclass
class StoredTable:
    """One ladder table as the store holds it: every rotation stored or voided, under any index."""

    head: str
    """``L{first}`` or, for a replay, ``L{first}~{source}``."""
    first: int
    """The index its rotation 0 was drawn at (its name)."""
    source: int | None
    """The first index of the table it replays; None for an ordinary table."""
    players: tuple[str, ...]
    """The players of its match id, in the seats of its rotation 0."""
    seed: str = ""
    seats: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Rotation -> who sat where, for every rotation stored or voided."""
    places: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """Rotation -> places per seat, for the rotations stored as played."""
    voided: set[int] = field(default_factory=set)
    """Rotations stored as voided (a later run may have played one again)."""
    earliest: int = -1
    """The lowest index of its matches: the order in which its players first played it."""

    @property
    def complete(self) -> bool:
        """Every rotation stored as played, none ever voided: a table a new version may replay."""
        return not self.voided and set(self.places) == set(range(len(self.players)))

    def add(self, row: TableRow) -> None:
        self.seed = row.seed
        self.seats[row.rotation] = row.bots
        if row.places is None:
            self.voided.add(row.rotation)
        else:
            self.places[row.rotation] = row.places
        if self.earliest < 0 or row.index < self.earliest:
            self.earliest = row.index


def group(rows: Iterable[TableRow]) -> dict[str, StoredTable]:
    """The ladder tables of ``rows`` by head (rows of another kind of id are left out)."""
    tables: dict[str, StoredTable] = {}
    for row in rows:
        parsed = table_of(row.match_id)
        if parsed is None:
            continue
        head = row.match_id.partition("/")[0]
        table = tables.get(head)
        if table is None:
            table = tables[head] = StoredTable(head, parsed[0], source_of(row.match_id), parsed[1])
        table.add(row)
    return tables


def previous(key: str) -> str | None:
    """``NAME@v(K-1)`` for ``NAME@vK`` with K >= 2; None for a first version."""
    name, sep, version = key.rpartition("@v")
    if not sep or not version.isdigit() or int(version) < 2:
        return None
    return f"{name}@v{int(version) - 1}"


@dataclass(frozen=True)
class Replay:
    """A table to deal again with a new version in its previous version's seat."""

    source: int
    """The first index of the table replayed."""
    seed: str
    """The source's deal seed."""
    seatings: tuple[tuple[str, ...], ...]
    """Per rotation, the source's seating with the new version in the old one's seat."""
    told: str = ""
    """The match id, without its rotation, that the bots were told at the first table of this deal (the
    source's, or the one the source replays): a replay tells the bots the same, so that bots seeding
    their randomness from it draw the same numbers (""; not known: its own)."""

    @property
    def players(self) -> tuple[str, ...]:
        """The players as its match id names them: the seats of rotation 0."""
        return self.seatings[0]


def substituted(table: StoredTable, old: str, new: str) -> tuple[tuple[str, ...], ...]:
    """``table``'s seating under each rotation, ``new`` where ``old`` sat, every other bot where it sat."""
    return tuple(tuple(new if key == old else key for key in table.seats[r]) for r in range(len(table.players)))


def replayed(source: StoredTable | None, players: Sequence[str], told: str = "") -> Replay | None:
    """The replay of ``source`` whose match id names ``players`` (the seats of its rotation 0): the
    source's seed and seatings with the one bot that differs substituted. None when the source is not
    stored whole (it always is: a replay is planned from a complete table, and rows are never deleted)
    or ``players`` is not the source's with one bot changed."""
    if source is None or not source.complete or len(players) != len(source.players):
        return None
    changed = [(old, new) for old, new in zip(source.seats[0], players) if old != new]
    if len(changed) != 1:
        return None
    old, new = changed[0]
    return Replay(source.first, source.seed, substituted(source, old, new), told)


def plan(rows: Sequence[TableRow], new: str, active: Collection[str], limit: int) -> list[Replay]:
    """The tables ``new`` (``NAME@vK``) replays, in the order the previous version first played them.

    ``rows``: the stored matches that seat the previous version or ``new``. A table is replayed when
    it was complete, every other player at it is in ``active`` now, and ``new`` has not begun
    to replay it; at most ``limit`` replays in all, those begun counted. None once ``new`` has played
    a table that is not a replay: replays are a version's first tables.
    """
    old = previous(new)
    if old is None or limit <= 0:
        return []
    tables = group(rows)
    if any(new in t.players and t.source is None for t in tables.values()):
        return []
    begun = {t.source for t in tables.values() if new in t.players and t.source is not None}
    out: list[Replay] = []
    for table in sorted(tables.values(), key=lambda t: t.earliest):
        if len(out) + len(begun) >= limit:
            break
        others = [k for k in table.players if k != old]
        if (old not in table.players or new in table.players or table.first in begun or not table.complete
                or not set(others) <= set(active)):
            continue
        out.append(Replay(table.first, table.seed, substituted(table, old, new)))
    return out


def of_new(ladder: LadderStore, new: str) -> list[TableRow]:
    """The stored matches :func:`plan` needs for ``new``: those of it and of its previous version."""
    old = previous(new)
    return ladder.table_rows([k for k in (old, new) if k is not None])


class StoredTables:
    """The store's tables for a running ladder's matchmaker, read on a connection of its own."""

    def __init__(self, directory: Path) -> None:
        self.directory = Path(directory)

    def plan(self, new: str, active: Collection[str], limit: int) -> list[Replay]:
        """:func:`plan` for ``new`` from the store as it is now."""
        if previous(new) is None or limit <= 0:
            return []
        store = LadderStore.open(self.directory)
        try:
            planned = plan(of_new(store, new), new, active, limit)
            return [replace(r, told=self._told(store, r.source)) for r in planned]
        finally:
            store.close()

    def replay(self, source: int, players: Sequence[str]) -> Replay | None:
        """:func:`replayed` of the stored table ``source``, for a replay of it cut short."""
        store = LadderStore.open(self.directory)
        try:
            return replayed(self._table(store, source), players, self._told(store, source))
        finally:
            store.close()

    @staticmethod
    def _table(store: LadderStore, first: int) -> StoredTable | None:
        return next((t for t in group(store.table_rows(firsts=[first])).values() if t.first == first), None)

    def _told(self, store: LadderStore, first: int) -> str:
        """The match id without its rotation of the first table dealt as table ``first`` was: following the
        replays back to an ordinary table ("" if one is not stored)."""
        seen = set()
        table = self._table(store, first)
        while table is not None and table.source is not None and table.first not in seen:
            seen.add(table.first)
            table = self._table(store, table.source)
        return "" if table is None or table.source is not None else f"{table.head}/{'+'.join(table.players)}"


