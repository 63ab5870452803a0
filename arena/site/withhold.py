"""Which stored matches a report must not show yet: those whose deal is still to be played.

Every schedule plays a deal under every rotation of one table's seats, each rotation a
match of its own with the same deal seed (round robin: :mod:`..tournament.schedules.round_robin`;
sampled tables: :mod:`..tournament.schedules.sampled`; a ladder table, also one cut short
and completed by a later run under new indices: :mod:`..tournament.ladder.matchmaking`).
Whoever watches one rotation's frames, or reads its seed, knows every card of the
rotations still to come. So the report shows a match only once every rotation of its deal
is stored.

The store keeps each match's seed and rotation, played or voided, in every layout, so
this is one pass over the rows the report reads anyway (grouped by seed, no query per
match, no layout change): a deal is whole when its stored rotations cover
``0 .. seats - 1``.

A voided match of a tournament is never played again, so its rotation counts as stored.
A ladder does play a voided rotation again (with the same deal) when a later run
completes the table, so there only played rotations count. A ladder table whose bots
left the field before it was completed is never completed: its matches stay withheld.
"""

from __future__ import annotations

from itertools import chain
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from ..tournament.kinds import reading

if TYPE_CHECKING:
    from ..tournament.store import ResultStore

Deal = tuple[str, int, int]
"""One stored match's deal: its seed, its rotation, and the seats at its table."""


def withheld_in(store: ResultStore, rows: Sequence[Mapping[str, Any]]) -> set[int]:
    """:func:`withheld` of ``rows`` read from ``store``, with its voided matches unless its kind plays a voided
    rotation again (a ladder does: :attr:`..tournament.schedules.kind.Reading.replays_voided`)."""
    return withheld(rows, () if reading(store).replays_voided else store.voided_deals())


def held_back(store: ResultStore) -> int:
    """How many stored matches of ``store`` a public board leaves out (:func:`withheld_in`), counted by the store
    in one aggregate (:meth:`..tournament.store.ResultStore.withheld_count`), no row decoded, unless a row is not
    what that count reads: for the organiser's board, which counts them, to say so."""
    counted = store.withheld_count(voided=not reading(store).replays_voided)
    return len(withheld_in(store, store.deal_rows())) if counted is None else counted


def held_back_note(count: int) -> str:
    """What the organiser's board says of :func:`held_back` (nothing when it is 0)."""
    return f"; the public board holds back {count} {until_played_out(count)}" if count else ""


def until_played_out(count: int) -> str:
    """Why ``count`` matches are held back, as every board and page says it."""
    return f"until {'its deal is' if count == 1 else 'their deals are'} played out"


def withheld(rows: Sequence[Mapping[str, Any]], voided: Iterable[Deal] = ()) -> set[int]:
    """The indices of the stored ``rows`` (with ``idx``, ``seed``, ``rotation``, ``bots``) whose deal still
    has a rotation that is neither among ``rows`` nor among ``voided`` (the deals that settle a rotation)."""
    seats: dict[str, int] = {}
    stored: dict[str, set[int]] = {}
    deals = ((row["seed"], row["rotation"], len(row["bots"])) for row in rows)
    for seed, rotation, count in chain(deals, voided):
        stored.setdefault(seed, set()).add(int(rotation))
        if seats.get(seed, 0) < count:
            seats[seed] = count
    whole = {seed for seed, rotations in stored.items() if rotations.issuperset(range(seats[seed]))}
    return {int(row["idx"]) for row in rows if row["seed"] not in whole}
