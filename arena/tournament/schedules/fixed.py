"""A schedule known in full before the first match (round robin, sampled tables), and its kinds' common part.

Every match, with its index, id and deal, is decided by the configuration alone, so a
resumed run plays exactly the matches a first run would have played and not stored.
The batches are cut over the whole list (:func:`batches`), so resuming
regroups nothing.
"""

from __future__ import annotations

from collections import deque
from typing import Collection, Iterable, Sequence

from ...bounds import MAX_SCHEDULE_MATCHES
from ...sandbox.backends import Backend
from ..records import MatchRecord
from .base import Schedule, ScheduledMatch
from .kind import KeyPath, KeyReader, ScheduleKind, TournamentConfig


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

    def next_batch(self, room: int | None = None) -> list[ScheduledMatch] | None:
        if self._runs is None:
            raise RuntimeError("resume() tells the schedule what is stored before the first batch")
        return self._runs.popleft() if self._runs else None

    def waiting(self) -> None:
        """Never: a fixed schedule always has its next batch ready, or is done."""
        return None

    def finished(self, scheduled: ScheduledMatch, record: MatchRecord | None) -> None:
        self._unfinished.discard(scheduled.index)


def batches(schedule: Sequence[ScheduledMatch], pending: set[int], size: int) -> list[list[ScheduledMatch]]:
    """Runs of up to ``size`` matches for bot processes to serve in turn, never a deal twice.

    A run holds matches of one rotation and table size: a table in consecutive cycles,
    then the next tables in order. Consecutive tables differ by one bot (combinations
    change one at a time), so most processes serve the whole run even when the field is
    large and there is a single cycle; a table's rotations, which share its deal, are in
    different runs. Runs are cut over the *whole* schedule (so a run is the same whatever
    was already played), then finished matches are dropped. Runs are ordered by their
    first pending match.
    """
    if size < 1:
        raise ValueError("batch size must be at least 1")
    by_rotation: dict[tuple[int, int], list[ScheduledMatch]] = {}
    for scheduled in schedule:
        by_rotation.setdefault((len(scheduled.bots), scheduled.rotation), []).append(scheduled)
    runs: list[list[ScheduledMatch]] = []
    for matches in by_rotation.values():
        matches.sort(key=lambda m: (sorted(m.bots), m.cycle))  # the table (its sorted bots), then the cycle
        for start in range(0, len(matches), size):
            run = [m for m in matches[start:start + size] if m.index in pending]
            if run:
                runs.append(run)
    return sorted(runs, key=lambda run: run[0].index)


class FixedKind(ScheduleKind):
    """A kind known in full before the first match: :meth:`matches` lists them, a :class:`FixedSchedule`
    hands them out."""

    def build(self, config: TournamentConfig, backend: Backend | None) -> Schedule:
        return FixedSchedule(self.matches(config), config.matches_per_process)


def refuse_oversize(reader: KeyReader, cycles: int, per_cycle: int, source: str, key: KeyPath, lower: str) -> None:
    """Refuse a schedule of more than :data:`MAX_SCHEDULE_MATCHES` matches (``per_cycle`` each cycle, from
    ``source``), naming ``key`` and how to ``lower`` it: the run builds the whole schedule before the first
    match. Counted, not built."""
    total = per_cycle * cycles
    if total <= MAX_SCHEDULE_MATCHES:
        return
    if per_cycle <= MAX_SCHEDULE_MATCHES:
        key, lower = ("cycles",), f"lower cycles to at most {MAX_SCHEDULE_MATCHES // per_cycle}"
    reader.fail(key, f"the schedule would hold {total:,} matches ({source}, every rotation, {cycles} "
                     f"cycle{'' if cycles == 1 else 's'}), over the {MAX_SCHEDULE_MATCHES:,} a run can build; "
                     f"{lower}")
