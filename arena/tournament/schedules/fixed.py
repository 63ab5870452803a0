"""A schedule known in full before the first match: round robin and sampled tables.

Every match, with its index, id and deal, is decided by the configuration alone, so a
resumed run plays exactly the matches a first run would have played and not stored.
The batches are cut over the whole list (:func:`..schedule.batches`), so resuming
regroups nothing.
"""

from __future__ import annotations

from collections import deque
from typing import Collection, Iterable, Sequence

from ..records import MatchRecord
from ..schedule import ScheduledMatch, batches


class FixedSchedule:
    """A finite list of matches behind :class:`.base.Schedule`."""

    def __init__(self, matches: Sequence[ScheduledMatch], batch_size: int) -> None:
        if [m.index for m in matches] != list(range(len(matches))):
            raise ValueError("a fixed schedule's indices must be 0, 1, 2, ... in order")
        self.matches = list(matches)
        """Every match, in index order."""
        self.batch_size = batch_size
        """Matches per batch (``matches_per_process``)."""
        self._runs: deque[list[ScheduledMatch]] | None = None
        self._unfinished: set[int] = set()

    @property
    def total(self) -> int:
        return len(self.matches)

    def resume(self, done: Collection[int], records: Sequence[MatchRecord]) -> None:
        pending = {m.index for m in self.matches if m.index not in done}
        self._unfinished = pending
        self._runs = deque(batches(self.matches, pending, self.batch_size))

    def unfinished(self) -> Iterable[int]:
        return sorted(self._unfinished)

    def next_batch(self) -> list[ScheduledMatch] | None:
        if self._runs is None:
            raise RuntimeError("resume() tells the schedule what is stored before the first batch")
        return self._runs.popleft() if self._runs else None

    def waiting(self) -> None:
        """Never: a fixed schedule always has its next batch ready, or is done."""
        return None

    def finished(self, scheduled: ScheduledMatch, record: MatchRecord | None) -> None:
        self._unfinished.discard(scheduled.index)
