"""The one interface between the driver and a schedule, and the matches it hands out.

The driver knows nothing of how matches are chosen: it asks for the next batch when a
worker is free, tells the schedule about every match that came back, and shows
progress against :attr:`Schedule.total`. So a schedule that is not known in advance
(a ladder choosing opponents from the ratings so far, with bots arriving during the
run) needs no change to the driver, the pool or the store.
"""

from __future__ import annotations

from typing import Collection, Iterable, Protocol, Sequence

from ..records import MatchRecord
from ..scheduled import ScheduledMatch as ScheduledMatch


class Schedule(Protocol):
    """Where a tournament's matches come from.

    Indices are the matches' positions: results are stored under them and ratings are
    applied in their order, so a schedule must never hand out an index twice, and an
    index it hands out after a match was rated must be larger than that match's.
    """

    @property
    def total(self) -> int | None:
        """Matches in the whole tournament, stored ones included; None when it has no end."""

    def resume(self, done: Collection[int], records: Sequence[MatchRecord]) -> None:
        """What the store already holds, once, before the first :meth:`next_batch`: the indices of the
        stored and voided matches, and the stored results in index order (not played again)."""

    def unfinished(self) -> Iterable[int]:
        """Indices the rating fold must wait for before rating any later match: every match still to
        play of a schedule known in advance; of an open-ended one, those drawn (handed out, or queued to
        be handed out later, possibly after higher indices) and not finished. The driver asks an
        open-ended one again after each batch, and at the end of a run passes over those it never handed
        out: such a schedule plays what is left of those deals under new indices, if at all."""

    def next_batch(self, room: int | None = None) -> list[ScheduledMatch] | None:
        """Matches for one worker to play in turn on the same bot processes, never one deal twice;
        ``[]`` when none is ready yet (the pool asks again after the next result, or a moment later),
        None once no match will ever come again. ``room``: matches the run may still hand out (``--matches``;
        None: no limit); a schedule that draws as it goes draws no more than fits in it, so that a stop
        leaves few deals half played. The driver keeps a batch's part beyond it for later."""

    def finished(self, scheduled: ScheduledMatch, record: MatchRecord | None) -> None:
        """A match handed out came back: stored with ``record``, or None when it has no result (voided,
        or the arena failed on it: a schedule known in advance plays it again on the next run)."""

    def waiting(self) -> str | None:
        """Why ``next_batch`` has nothing to hand out now, in words for the organiser (a ladder whose
        field cannot fill a table), or None; the driver says it once each time it changes."""
