"""``arena run --until settled[=P]``: stop once the ranking is settled, at a point the results alone decide.

A run that stops "when the order is sure" must stop at the same match however many workers
play it, or the same file and seed would give different tournaments. So the schedule is handed
out one *unit* at a time (a cycle of a round robin, a table of a ladder: the kind says which,
:attr:`.ScheduleKind.settle`), and at each unit's end the gate waits until every match handed
out is back and rated. Only then does it ask whether every adjacent pair of the board is either
ahead of the next or in its tier (at most ``settle: {margin}`` behind it), by tests that hold at every
look at once, all claims together with error at most 1 - P (:mod:`arena.evidence.claims`); if so it
hands out nothing more. The wait costs the few seconds in which the last matches of a unit play while a worker idles.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Mapping, Sequence

from ..evidence.claims import AHEAD, OPEN, PairCall, settled
from .confidence import board_order
from .rating import Rating
from .evidence import DEFAULT_MARGIN, PairEvidence, judged
from .open_tables import OpenTables
from .records import MatchRecord
from .schedules.base import Schedule, ScheduledMatch

DEFAULT_P = 0.95
"""``--until settled`` without a probability."""


class UntilError(ValueError):
    """A ``--until`` value that is not ``settled`` or ``settled=P``."""


def parse_until(text: str) -> float:
    """The probability P of ``settled`` (:data:`DEFAULT_P`) or ``settled=P``, with 0.5 < P < 1."""
    word, sep, value = text.partition("=")
    if word.strip() != "settled":
        raise UntilError(f"expected settled or settled=P (P a probability such as 0.95), got {text!r}")
    if not sep:
        return DEFAULT_P
    try:
        p = float(value)
    except ValueError:
        raise UntilError(f"settled={value}: expected a probability such as 0.95") from None
    if not 0.5 < p < 1:
        raise UntilError(f"settled={value}: P must be above 0.5 (a coin flip) and below 1 (never reached)")
    return p


@dataclass
class Verdict:
    """Where a run with a stop rule ended, for its last line."""

    p: float
    settled: bool = False
    at: int = 0
    """Matches rated when it was decided."""
    unit: str = ""
    """The unit at whose end it was decided (``cycle 3``, ``table at match 40``)."""
    margin: float = DEFAULT_MARGIN
    calls: tuple[PairCall, ...] = ()
    """What the last check showed of each adjacent pair, best first."""

    def line(self) -> str:
        """The last line of the run: settled (how many rows shown ahead of the next, how many in its tier), or
        which pair was still open when it stopped."""
        head = f"until settled={self.p:g} (margin {self.margin:g} places per match): "
        ahead = sum(call.relation == AHEAD for call in self.calls)
        tied = len(self.calls) - ahead - sum(call.relation == OPEN for call in self.calls)
        if self.settled:
            counts = f"{ahead} row{'' if ahead == 1 else 's'} ahead of the next, {tied} in the next one's tier"
            return head + f"settled after {self.at} rated matches, at the end of {self.unit}: {counts}"
        still = [call for call in self.calls if call.relation == OPEN]
        pair = "" if not still else f"; still open: {still[0].text(self.margin)}" + \
            (f" and {len(still) - 1} more pair{'' if len(still) == 2 else 's'}" if len(still) > 1 else "")
        return head + f"not settled when the run stopped ({self.at} rated matches){pair}"


class SettleGate:
    """The schedule seen through the stop rule: :meth:`next_batch` and :meth:`waiting` as the
    schedule's, but one unit at a time, with a wait at each unit's end and no more batches once
    the ranking is settled. A batch that spans units (a round robin's run of one table over several
    cycles) is handed out a unit's part at a time."""

    def __init__(self, schedule: Schedule, p: float, unit: Callable[[ScheduledMatch], int],
                 unit_name: Callable[[ScheduledMatch], str], ratings: Callable[[], Mapping[str, Rating]],
                 among: Callable[[], frozenset[str] | None], in_play: Callable[[], int],
                 counted: Callable[[], int], records: Sequence[MatchRecord] = (), margin: float = DEFAULT_MARGIN,
                 tables: OpenTables | None = None,
                 pass_over: Callable[[Sequence[ScheduledMatch]], None] = lambda matches: None) -> None:
        self.schedule = schedule
        self.verdict = Verdict(p, margin=margin)
        self.evidence = tables.evidence if tables is not None else PairEvidence()
        """Every pair's deals stored so far (:meth:`stored` adds each match the run stores)."""
        self.tables = tables
        """Tables chosen for what is still open (:mod:`.open_tables`): a schedule known in advance only."""
        self._pass_over = pass_over
        self._unit = unit
        self._unit_name = unit_name
        self._ratings = ratings
        self._among = among
        self._in_play = in_play
        self._counted = counted
        self._held: list[list[ScheduledMatch]] = []
        self._current: int | None = None
        self._unit_taken = False  # every match of the current unit has come from the schedule
        self._schedule_done = False
        self._last: ScheduledMatch | None = None
        known = {s.index: unit(s) for s in getattr(schedule, "matches", ())}
        self._by_unit: dict[int, list[ScheduledMatch]] = {}
        if tables is not None:
            for scheduled in getattr(schedule, "matches", ()):
                self._by_unit.setdefault(known[scheduled.index], []).append(scheduled)
        self._first = min(known.values(), default=0)
        # A resumed run's stored matches join the evidence unit by unit, so that each unit's tables are chosen
        # from the deals of the units before it, as the first run chose them.
        self._later = sorted((known.get(r.index, self._first), r.index, r) for r in records) \
            if tables is not None else []
        if tables is None:
            for record in records:
                self.evidence.add(record)

    def stored(self, record: MatchRecord) -> None:
        """A match the run stored: its deal joins the evidence (and the tables' seating counts)."""
        self.evidence.add(record)
        if self.tables is not None:
            self.tables.stored(record)

    def _join(self, before: int) -> None:
        """The resumed run's stored matches of every unit before ``before`` into the evidence."""
        while self._later and self._later[0][0] < before:
            self.stored(self._later.pop(0)[2])

    def _begin(self, unit: int) -> None:
        """Unit ``unit`` is next: after the first, its tables are chosen for the pairs still undecided, and the
        matches of the others are passed over."""
        self._current = unit
        if self.tables is None:
            return
        self._join(unit)
        if unit > self._first:
            # chosen among the unit's every table, those a resumed run already stored too, as the first run chose
            held = {s.index for batch in self._held for s in batch if self._unit(s) == unit}
            whole = self._by_unit.get(unit) or [s for batch in self._held for s in batch if s.index in held]
            play, skipped = self.tables.choose(whole)
            skipped = [s for s in skipped if s.index in held]
            if skipped:
                seated = {s.index: s for s in play}
                self._held = [kept for batch in self._held
                              if (kept := [seated.get(s.index, s) for s in batch
                                           if self._unit(s) != unit or s.index in seated])]
                self._pass_over(skipped)
        self._join(unit + 1)

    @property
    def total(self) -> int | None:
        return self.schedule.total

    def unfinished(self) -> Iterable[int]:
        return self.schedule.unfinished()

    def waiting(self) -> str | None:
        return self.schedule.waiting()

    def next_batch(self, room: int | None = None) -> list[ScheduledMatch] | None:
        while True:
            if self.verdict.settled:
                return None
            batch = self._take_current()
            if batch is not None:
                return batch
            if self._current is None and self.schedule.total is not None:
                self._take_all()  # a schedule known in advance: its batches need not come in unit order
                continue
            if not self._unit_taken:
                held = sum(len(b) for b in self._held)
                fresh = self.schedule.next_batch(None if room is None else max(0, room - held))
                if fresh == []:
                    return []  # the schedule waits (a ladder's field, ratings in play)
                if fresh is None:
                    self._schedule_done = self._unit_taken = True
                    continue
                if self._current is None:
                    self._begin(self._unit(fresh[0]))
                # Batches come in order of their first match: one that starts past the unit means the
                # schedule has no more of it.
                self._unit_taken = self._unit(fresh[0]) != self._current
                self._held.append(fresh)
                continue
            if self._in_play():
                return []  # the unit's last matches are in play: wait until they are rated
            if self.check() or not self._held:
                return None  # settled, or the schedule's end (its verdict made)
            self._begin(min(self._unit(s) for b in self._held for s in b))
            self._unit_taken = self._schedule_done

    def check(self) -> bool:
        """Decide on the ratings now (call it when every match handed out is rated): settled or not."""
        ratings = dict(self._ratings())
        among = self._among()
        if among is not None:
            ratings = {name: r for name, r in ratings.items() if name in among}
        _, calls = judged(self.evidence, board_order(ratings), self.verdict.p, self.verdict.margin)
        self.verdict.calls = tuple(calls)
        self.verdict.at = self._counted()
        if self._last is not None:
            self.verdict.unit = self._unit_name(self._last)
        self.verdict.settled = settled(calls)
        return self.verdict.settled

    def _take_all(self) -> None:
        """Hold every batch of a finite schedule (a round robin's runs each hold one table over many
        cycles, in order of their first match only), and start at the lowest unit."""
        while (batch := self.schedule.next_batch()) is not None:
            if batch:
                self._held.append(batch)
        self._schedule_done = self._unit_taken = True
        self._begin(min((self._unit(s) for b in self._held for s in b), default=0))

    def _take_current(self) -> list[ScheduledMatch] | None:
        """The current unit's part of the first held batch that has one; the rest stays held."""
        for position, batch in enumerate(self._held):
            if all(self._unit(s) != self._current for s in batch):
                continue
            now = [s for s in batch if self._unit(s) == self._current]
            later = [s for s in batch if self._unit(s) != self._current]
            if later:
                self._held[position] = later
            else:
                del self._held[position]
            self._last = now[-1]
            return now
        return None
