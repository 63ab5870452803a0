"""The ladder's matchmaking: an open-ended schedule drawing one table at a time from the active field.

Before each table it re-reads the field from the store, so bots submitted or retired
while the run goes are picked up at the next table. A table's size goes round the
file's ``seats`` (a size the field cannot fill is passed over); only bots that play that
size sit at it. The bot with the fewest matches (stored, plus handed out) sits first, so
a new bot plays at once (placement); the other seats go to the active bots whose
conservative rating (mu - 3 sigma, over the longest rated prefix) is closest to its
rating. Ties break on a generator seeded with the master seed and the table's first
match index, so a given state always draws the same table. Each table is played under
every rotation of its seats with one deal; each rotation is a batch of its own, since a
batch never holds one deal twice. A table is numbered by its first match index:
``L{n}/{bots}/r{k}``.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from typing import Callable, Collection, Iterable, Sequence

from ...bots import BotConfigError, BotSpec
from ..ladder.entries import Entry
from ..rating import RatingFold, RatingParams, exposure
from ..records import MatchRecord
from ..schedule import ScheduledMatch

SpecOf = Callable[[Entry], BotSpec]
"""How an entry becomes the bot that plays under its player key (raises BotConfigError if it cannot)."""


def ladder_match_id(first: int, table: Sequence[str], rotation: int) -> str:
    """``L{first index}/{players}/r{rotation}``: names the match, never its deal."""
    return f"L{first}/{'+'.join(table)}/r{rotation}"


class LadderSchedule:
    """An open-ended :class:`.base.Schedule` over a field that changes while it runs."""

    def __init__(self, field: Callable[[], list[Entry]], spec_of: SpecOf, seats: Sequence[int], preset: str,
                 master: int | str, params: RatingParams) -> None:
        self.field = field
        """Reads the active field (from the store) before each table."""
        self.spec_of = spec_of
        self.sizes = tuple(sorted(set(seats)))
        self.preset = preset
        self.master = master
        self.params = params
        self.specs: dict[str, BotSpec] = {}
        """Player key -> bot, for every entry seen: the driver builds jobs from it."""
        self.unusable: dict[str, str] = {}
        """Player key -> why it cannot be played (its snapshot does not build): never seated."""
        self._fold = RatingFold(params, [])
        self._played: Counter[str] = Counter()
        self._pending: Counter[str] = Counter()
        self._queue: deque[ScheduledMatch] = deque()
        self._issued: set[int] = set()
        self._next = 0
        self._tables = 0
        self._short: str | None = None

    @property
    def total(self) -> None:
        return None

    def resume(self, done: Collection[int], records: Sequence[MatchRecord]) -> None:
        self._next = max(done, default=-1) + 1
        self._fold = RatingFold(self.params, [], records)
        self._played = Counter(bot for record in records for bot in record.bots)
        self._tables = len({record.match_id.split("/", 1)[0] for record in records})

    def unfinished(self) -> Iterable[int]:
        return sorted(self._issued)

    def next_batch(self) -> list[ScheduledMatch] | None:
        if not self._queue:
            self._draw()
        if not self._queue:
            return []  # too few bots for any table: wait for submissions
        match = self._queue.popleft()
        self._issued.add(match.index)
        return [match]

    def finished(self, scheduled: ScheduledMatch, record: MatchRecord | None) -> None:
        self._issued.discard(scheduled.index)
        for bot in scheduled.bots:
            self._pending[bot] -= 1
        if record is None:
            self._fold.void(scheduled.index)
            return
        self._played.update(record.bots)
        self._fold.add(record)

    def matches_of(self, key: str) -> int:
        """Matches stored and handed out with ``key`` seated: who has played least sits first."""
        return self._played[key] + self._pending[key]

    def _usable(self) -> list[str]:
        keys = []
        for entry in self.field():
            if entry.key not in self.specs and entry.key not in self.unusable:
                try:
                    self.specs[entry.key] = self.spec_of(entry)
                except BotConfigError as exc:
                    self.unusable[entry.key] = str(exc)
            if entry.key in self.specs:
                keys.append(entry.key)
        return sorted(keys)

    def waiting(self) -> str | None:
        """Why no table can be drawn now (the run waits for submissions), or None when one can."""
        return self._short

    def _draw(self) -> None:
        """Queue every rotation of the next table, if the field can fill one."""
        keys = self._usable()
        for step in range(len(self.sizes)):
            n = self.sizes[(self._tables + step) % len(self.sizes)]
            able = [k for k in keys if self.specs[k].supports.plays(self.preset, n)]
            if len(able) >= n:
                break
        else:
            sizes = " or ".join(str(n) for n in self.sizes)
            self._short = (f"waiting for bots: {len(keys)} usable in the field ({', '.join(keys) or 'none'}), "
                           f"a table needs {sizes} that play {self.preset}; add some with arena submit")
            return
        self._short = None
        first_index = self._next
        rng = random.Random(f"{self.master}/ladder/{first_index}")
        tiebreak = {k: rng.random() for k in able}
        first = min(able, key=lambda k: (self.matches_of(k), tiebreak[k]))
        fresh = self._fold.env.create_rating()
        rating = {k: exposure(self._fold.ratings.get(k, fresh)) for k in able}
        others = sorted((k for k in able if k != first),
                        key=lambda k: (abs(rating[k] - rating[first]), tiebreak[k]))
        table = tuple(sorted([first, *others[:n - 1]]))
        seed = f"{self.master}/L{first_index}/{'+'.join(table)}"
        indices = range(first_index, first_index + n)
        self._fold.expect(indices)
        for rotation, index in enumerate(indices):
            seating = table[rotation:] + table[:rotation]
            self._queue.append(ScheduledMatch(index, ladder_match_id(first_index, table, rotation), seed,
                                              seating, 1, rotation))
            self._pending.update(seating)
        self._next += n
        self._tables += 1
