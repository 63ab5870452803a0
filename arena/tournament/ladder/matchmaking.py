"""The ladder's matchmaking: an open-ended schedule drawing one table at a time from the active field.

Before each table it re-reads the field from the store, so bots submitted or retired
while the run goes are picked up at the next table. A table's size goes round the file's
``seats`` (a size the field cannot fill is passed over); only bots that play that size
sit at it. Seats are filled in this order (docs/ladder.md, "Matchmaking"):

1. bots behind the fairness floor (:mod:`.fairness`), the furthest behind first;
2. else a bot still in placement (fewer than ``placement_matches`` rated matches: replays do not
   count), the least played;
3. else the bot whose rating is most uncertain (largest sigma);

and the other seats go to the bots whose mean rating is closest to the first one's.
Ties break on a generator seeded with the master seed and the table's first match index.

A new version's first tables replay those its previous version played (:mod:`..ladder.tables`,
docs/ladder.md "A new version against the old one"): the same deal and seating, the new version
in the old one's seat. They are drawn before the ordinary tables, except that a table for the bots
behind the fairness floor goes first when none of them sits at the next replay. A replay is named
``L{n}~{m}/{bots}/r{k}`` (table ``n`` replays table ``m``) and keeps its source's seed: a resumed run
completes one cut short from the stored source, never from a seed recomputed from its id.

Ratings used for a draw are those of every match up to :data:`LAG` tables back, waited
for if need be, never "whatever came back first": so with a fixed field the tables do
not depend on the number of workers. Each table is played under every rotation of its
seats with one deal; a table left incomplete by a stopped run is completed first on the
next one. A table is named by its first match index: ``L{n}/{bots}/r{k}``.

Batches are cut across tables, as a round robin's are (:mod:`.fixed`): a batch takes the
earliest rotation still queued of each of the first tables in the queue, one match per
deal, so a worker's bot processes follow their bots from table to table and no process
sees a deal twice. Tables are drawn only when the queue holds too few deals to fill the
batch being cut, so a table is drawn as its first match is handed out, and a submission
or a retirement is seen by the next table drawn. How long a batch may be is
``matches_per_process``, shared out among the batches seen in play at once
(:meth:`LadderSchedule._longest`): when the lookahead cannot fill every worker's batch,
shorter batches keep every worker busy. Which worker plays which match changes no table,
result or rating.
"""

from __future__ import annotations

import random
from collections import Counter, deque
from typing import TYPE_CHECKING, Callable, Collection, Iterable, Sequence

from ...bots import BotConfigError, BotSpec
from .entries import Entry
from ..rating import Rating, RatingFold, RatingParams
from ..records import REPLAY_MARK, MatchRecord, is_replay
from ..schedules.balance import BALANCED, CYCLIC, adjacent, least_imbalanced, rotated, seated, unrotated
from ..schedules.base import ScheduledMatch
from ...match.seeds import deal_seed
from .fairness import Floor
from .nearest import RatingIndex

if TYPE_CHECKING:
    from .tables import Replay, StoredTables

SpecOf = Callable[[Entry], BotSpec]
"""How an entry becomes the bot that plays under its player key (raises BotConfigError if it cannot)."""

LAG = 16
"""Tables drawn ahead of the ratings they use: a draw waits for every table but the last LAG, so up to
LAG + 1 are in play at once, and a batch (one match per table) holds at most LAG + 1 matches."""

DEFAULT_FLOOR = 0.25
"""No active bot's matches since joining fall more than this fraction below the field's median."""

DEFAULT_REPLAY_TABLES = 8
"""Tables of its previous version a new version replays first (0: none)."""


def ladder_match_id(first: int, table: Sequence[str], rotation: int, source: int | None = None) -> str:
    """``L{first index}/{players}/r{rotation}``: names the match, never its deal. A replay of the table first
    drawn at ``source`` (docs/ladder.md, "A new version against the old one") is ``L{first}~{source}/...``,
    its players in the seats of its rotation 0."""
    head = f"L{first}" if source is None else f"L{first}{REPLAY_MARK}{source}"
    return f"{head}/{'+'.join(table)}/r{rotation}"


def table_of(match_id: str) -> tuple[int, tuple[str, ...], int] | None:
    """First index, players and rotation of a ladder match id, a replay's too (None for another kind of id)."""
    head, _, rest = match_id.partition("/")
    players, _, rotation = rest.rpartition("/r")
    first, _, source = head[1:].partition(REPLAY_MARK)
    if (not head.startswith("L") or not first.isdigit() or not rotation.isdigit() or not players
            or not (source == "" or source.isdigit()) or head.endswith(REPLAY_MARK)):
        return None
    return int(first), tuple(players.split("+")), int(rotation)


def source_of(match_id: str) -> int | None:
    """The first index of the table a replay's match id replays (None: an ordinary table, or no ladder id)."""
    if table_of(match_id) is None:
        return None
    first, _, source = match_id.partition("/")[0].partition(REPLAY_MARK)
    return int(source) if source else None


class LadderSchedule:
    """An open-ended :class:`.base.Schedule` over a field that changes while it runs."""

    def __init__(self, field: Callable[[], list[Entry]], spec_of: SpecOf, seats: Sequence[int], preset: str,
                 master: int | str, params: RatingParams, placement: int = 5, floor: float = DEFAULT_FLOOR,
                 kept: Callable[[], tuple[dict[str, Rating], int]] | None = None,
                 history: Callable[[], list[tuple[float, tuple[str, ...]]]] | None = None,
                 stored: StoredTables | None = None, replay_tables: int = 0, batch_size: int = 1,
                 seating: str = BALANCED) -> None:
        if batch_size < 1:
            raise ValueError("batch size must be at least 1")
        self.field = field
        """Reads the active field (from the store) before each table."""
        self.spec_of = spec_of
        self.sizes = tuple(sorted(set(seats)))
        self.preset = preset
        self.master = master
        self.params = params
        self.placement = placement
        self.kept = kept
        """The ratings kept in the store and the last match index they include (None: rate the
        records given to :meth:`resume`)."""
        self.history = history
        """When each stored match finished and who sat at it: a resumed ladder measures the fairness
        floor since each bot's submission, not since the run began (None: since the run began)."""
        self.stored = stored
        """The store's tables: what a new version replays, and a replay cut short (None: no replays)."""
        self.replay_tables = replay_tables
        """At most this many replays per new version."""
        self.batch_size = batch_size
        """Most matches in a batch (``matches_per_process``; 1: one match at a time)."""
        self.seating = seating
        """How a new table is seated: ``balanced`` (:func:`.balance.least_imbalanced`) or ``cyclic`` (its names'
        order, as ladders did before)."""
        self.adjacent: Counter[tuple[str, str]] = Counter()
        """Tables drawn (replays too) in which the second player sat directly after the first."""
        self.specs: dict[str, BotSpec] = {}
        """Player key -> bot, for every entry seen: the driver builds jobs from it."""
        self.unusable: dict[str, str] = {}
        """Player key -> why it cannot be played (its snapshot does not build): never seated."""
        self.floor = Floor(floor)
        self.index = RatingIndex()
        """The active field's ratings in order (those of the fold: up to :data:`LAG` tables back)."""
        self._fold = self._new_fold()
        self._entries: object = None  # the field as last read: the same object means nothing changed
        self._keys: list[str] = []
        self._able: dict[int, list[str]] = {}
        self._learning: set[str] = set()
        self._replayed: Counter[str] = Counter()  # seats at replays, which are never rated: not placement
        self._arrived: dict[int, MatchRecord | None] = {}
        self._queue: deque[ScheduledMatch] = deque()
        self._replays: deque[Replay] = deque()
        self._planned: set[str] = set()  # player keys whose replays were planned
        self._issued: set[int] = set()
        self._batch_of: dict[int, int] = {}  # index handed out -> its batch's number
        self._batches: Counter[int] = Counter()  # batch number -> its matches not back yet
        self._spread = 1  # the most batches seen wanted at once: those in play and the one asked for
        self._firsts: list[int] = []  # first index of each table drawn by this run
        self._begin = 0
        self._next = 0
        self._tables = 0
        self._short: str | None = None

    @property
    def total(self) -> None:
        return None

    def resume(self, done: Collection[int], records: Sequence[MatchRecord]) -> None:
        """Counts from the stored matches, ratings from the store (or the records), and the rotations of
        any table a stopped run left incomplete queued first."""
        self._next = self._begin = max(done, default=-1) + 1
        if self.kept is not None:
            ratings, through = self.kept()
            self._fold = self._new_fold([r for r in records if r.index > through], ratings, through)
        else:
            self._fold = self._new_fold(records)
        for record in records:
            replay = is_replay(record.match_id)
            for key in record.bots:
                self.floor.counts[key] += 1
                self._replayed[key] += replay
        self._tables = len({r.match_id.split("/", 1)[0] for r in records})
        seatings = self._seatings(records)
        for base in seatings.values():
            self.adjacent.update(adjacent(base))
        self._windows()
        self._complete(records, seatings)

    @staticmethod
    def _seatings(records: Sequence[MatchRecord]) -> dict[tuple[int, tuple[str, ...]], tuple[str, ...]]:
        """Each stored table (first index, players) -> its seating (rotation 0's seats), from any stored rotation."""
        out: dict[tuple[int, tuple[str, ...]], tuple[str, ...]] = {}
        for record in records:
            parsed = table_of(record.match_id)
            if parsed is not None and parsed[:2] not in out:
                out[parsed[:2]] = unrotated(record.bots, parsed[2])
        return out

    def _windows(self) -> None:
        """Reopen the floor's windows of the active field as they were: bots submitted with no match
        finished in between share one, whose base is everybody's count at that time."""
        if self.history is None:
            return
        field = self.field()
        usable = set(self._playable(field))
        joined = sorted((e.submitted_at, e.key) for e in field if e.key in usable)
        done = sorted(self.history())
        counts: Counter[str] = Counter()
        step = 0
        group: list[str] = []
        for at, key in joined:
            if step < len(done) and done[step][0] <= at and group:
                self.floor.join(group, counts)
                group = []
            while step < len(done) and done[step][0] <= at:
                counts.update(done[step][1])
                step += 1
            group.append(key)
        self.floor.join(group, counts)

    def _new_fold(self, records: Sequence[MatchRecord] = (), initial: dict[str, Rating] | None = None,
                  after: int = -1) -> RatingFold:
        """The matchmaker's own rating fold, which moves the bots it rates in :attr:`index`."""
        def moved(record: MatchRecord) -> None:
            for key in record.bots:
                if key in self.index.mu:
                    self.index.set(key, self._fold.ratings[key])
        return RatingFold(self.params, [], records, initial=initial, after=after, on_rate=moved)

    def _complete(self, records: Sequence[MatchRecord],
                  seatings: dict[tuple[int, tuple[str, ...]], tuple[str, ...]]) -> None:
        """Queue, under new indices, the rotations never stored of tables whose bots are all still active."""
        seen: dict[tuple[int, tuple[str, ...]], set[int]] = {}
        sources: dict[int, int] = {}
        for record in records:
            parsed = table_of(record.match_id)
            if parsed is not None:
                seen.setdefault(parsed[:2], set()).add(parsed[2])
                source = source_of(record.match_id)
                if source is not None:
                    sources[parsed[0]] = source
        active = set(self._usable())
        for (first, table), rotations in sorted(seen.items()):
            missing = [r for r in range(len(table)) if r not in rotations]
            if missing and active.issuperset(table):
                if first in sources:
                    replay = self._stored_replay(sources[first], table)
                    if replay is not None:
                        self._queue_table(first, table, missing, replay, again=True)
                else:
                    self._queue_table(first, table, missing, seating=seatings[first, table])

    def _stored_replay(self, source: int, players: tuple[str, ...]) -> Replay | None:
        """The deal and seatings of a replay of table ``source`` with ``players``, from the stored source
        (None without a store, or when the source is not stored: its matches stay withheld)."""
        return None if self.stored is None else self.stored.replay(source, players)

    def unfinished(self) -> Iterable[int]:
        """Handed out and not back, and queued: a batch may hand out a later table's match before an
        earlier table's last rotation."""
        return sorted(self._issued.union(m.index for m in self._queue))

    def next_batch(self, room: int | None = None) -> list[ScheduledMatch] | None:
        """The earliest queued match of each of up to :meth:`_longest` deals, drawing tables while the
        queue holds fewer deals than that (module docstring), and, within ``room``, only tables that
        fit in it whole (but one table when nothing is queued, as ever)."""
        self._spread = max(self._spread, len(self._batches) + 1)
        most = self._longest()
        while not self._queue or (len({m.seed for m in self._queue}) < most and
                                  (room is None or len(self._queue) + max(self.sizes) <= room)):
            queued = len(self._queue)
            self._draw()
            if len(self._queue) == queued:
                break  # too few bots for a table, or the ratings it needs are still in play
        if not self._queue:
            return []  # nothing to hand out: wait
        batch: list[ScheduledMatch] = []
        deals: set[str] = set()
        for match in self._queue:
            if match.seed not in deals:
                deals.add(match.seed)
                batch.append(match)
                if len(batch) == most:
                    break
        taken = {m.index for m in batch}
        self._queue = deque(m for m in self._queue if m.index not in taken)
        number = batch[0].index
        self._batches[number] = len(batch)
        for match in batch:
            self._issued.add(match.index)
            self._batch_of[match.index] = number
        return batch

    def _longest(self) -> int:
        """How many matches the next batch may hold: ``batch_size``, or less when the lookahead's
        matches (:data:`LAG` tables and the one being drawn, of the smallest size) shared among the
        batches seen wanted at once are fewer, so that every worker gets some."""
        window = (LAG + 1) * min(self.sizes, default=1)
        return max(1, min(self.batch_size, -(-window // self._spread)))

    def finished(self, scheduled: ScheduledMatch, record: MatchRecord | None) -> None:
        self._issued.discard(scheduled.index)
        self._arrived[scheduled.index] = record
        number = self._batch_of.pop(scheduled.index, None)
        if number is not None:
            self._batches[number] -= 1
            if self._batches[number] <= 0:
                del self._batches[number]

    def matches_of(self, key: str) -> int:
        """Matches handed out with ``key`` seated, stored ones included."""
        return self.floor.counts[key]

    def rated_of(self, key: str) -> int:
        """Those of :meth:`matches_of` that will be rated: all but replays (what placement counts)."""
        return self.floor.counts[key] - self._replayed[key]

    def waiting(self) -> str | None:
        """Why no table can be drawn now (the run waits for submissions), or None."""
        return self._short

    def _usable(self) -> list[str]:
        """The active field's player keys that can be played; when the field changed, the floor, the
        rating index and the placement set follow it."""
        entries = self.field()
        if entries is self._entries:
            return self._keys
        keys = self._playable(entries)
        self._entries, self._keys, self._able = entries, keys, {}
        for key in sorted(self.floor.present - set(keys)):
            self.floor.leave(key)
            self.index.drop(key)
            self._learning.discard(key)
        fresh = self._fold.model.fresh()
        for key in keys:
            if key not in self.index.mu:
                self.index.set(key, self._fold.ratings.get(key, fresh))
                if self.rated_of(key) < self.placement:
                    self._learning.add(key)
        self.floor.join(keys)
        self._plan(keys)
        return self._keys

    def _plan(self, keys: list[str]) -> None:
        """Queue the replays of every new version just seen in the field (docs/ladder.md, "A new version
        against the old one"), in the order of the keys, each version's in the order of its source tables."""
        for key in keys:
            if key in self._planned:
                continue
            self._planned.add(key)
            if self.stored is not None and self.replay_tables > 0:
                self._replays.extend(self.stored.plan(key, keys, self.replay_tables))

    def _next_replay(self) -> Replay | None:
        """The next replay still playable (every bot of it usable now, and able to sit at its size); those
        whose bots left the field are dropped."""
        while self._replays:
            replay = self._replays[0]
            n = len(replay.players)
            if all(k in self.specs and k in self._keys and self.specs[k].supports.plays(self.preset, n)
                   for k in replay.players):
                return replay
            self._replays.popleft()
        return None

    def _playable(self, entries: Iterable[Entry]) -> list[str]:
        """The player keys of ``entries`` that can be played (each entry's bot is built once)."""
        keys = []
        for entry in entries:
            if entry.key not in self.specs and entry.key not in self.unusable:
                try:
                    self.specs[entry.key] = self.spec_of(entry)
                except BotConfigError as exc:
                    self.unusable[entry.key] = str(exc)
            if entry.key in self.specs:
                keys.append(entry.key)
        return sorted(keys)

    def _able_at(self, size: int) -> list[str]:
        """The usable bots that play tables of ``size``."""
        if size not in self._able:
            self._able[size] = [k for k in self._keys if self.specs[k].supports.plays(self.preset, size)]
        return self._able[size]

    def _rated_until(self) -> bool:
        """Feed the fold every result from before the cap of the table about to be drawn; True once
        all of them are in (the draw may go on)."""
        drawn = len(self._firsts)
        cap = self._firsts[drawn - LAG] if drawn >= LAG else self._begin
        for index in sorted(i for i in self._arrived if i < cap):
            record = self._arrived.pop(index)
            if record is None:
                self._fold.void(index)
            else:
                self._fold.add(record)
        return self._fold.settled(cap)

    def _draw(self) -> None:
        """Queue every rotation of the next table (a replay while one is pending), if the field can fill one
        and its ratings are in."""
        keys = self._usable()
        replay = self._next_replay()
        able: list[str] = []
        for step in range(len(self.sizes)):
            n = self.sizes[(self._tables + step) % len(self.sizes)]
            able = self._able_at(n)
            if len(able) >= n:
                break
        else:
            able = []
            if replay is None:
                sizes = " or ".join(str(n) for n in self.sizes)
                self._short = (f"waiting for bots: {len(keys)} usable in the field ({', '.join(keys) or 'none'}), "
                               f"a table needs {sizes} that play {self.preset}; add some with arena submit")
                return
        self._short = None
        if not self._rated_until():
            return
        first_index = self._next
        if replay is not None and not (able and self._floor_first(replay, able)):
            self._replays.popleft()
            self._queue_table(first_index, replay.players, range(len(replay.players)), replay)
        else:
            table = self._pick(able, n, random.Random(f"{self.master}/ladder/{first_index}"))
            self._queue_table(first_index, table, range(n))
        self._firsts.append(first_index)
        self._tables += 1

    def _floor_first(self, replay: Replay, able: list[str]) -> bool:
        """Whether an ordinary table of the bots ``able`` to sit at it goes before ``replay``: some of them
        are behind the fairness floor and none of those sits at the replay (replays alone would keep them
        waiting). The ordinary table seats them first, so the replays wait at most a few tables."""
        behind = set(self.floor.behind()) & set(able)
        return bool(behind) and not behind & set(replay.players)

    def _pick(self, able: list[str], n: int, rng: random.Random) -> tuple[str, ...]:
        """The ``n`` bots of the next table (module docstring: who sits first, who joins them)."""
        allowed = set(able) if len(able) < len(self._keys) else self.index.mu
        seated = [k for k in self.floor.behind() if k in allowed][:n]
        if not seated:
            learning = sorted(k for k in self._learning if k in allowed)
            if learning:
                fewest = min(self.rated_of(k) for k in learning)
                seated = [rng.choice([k for k in learning if self.rated_of(k) == fewest])]
            else:
                seated = [self.index.most_uncertain(allowed, rng)]
        seated += self.index.nearest(self.index.mu[seated[0]], n - len(seated), allowed, set(seated), rng)
        return tuple(sorted(seated))

    def _queue_table(self, first: int, table: tuple[str, ...], rotations: Iterable[int],
                     replay: Replay | None = None, seating: tuple[str, ...] | None = None,
                     again: bool = False) -> None:
        """Queue these rotations of ``table`` (first drawn at index ``first``) under the next indices; a
        ``replay`` with its source's deal and seatings. A new table is seated by :attr:`seating`; one cut
        short is completed in its stored ``seating`` (``again``: a replay cut short), already counted."""
        if replay is None:
            seed = deal_seed(self.master, f"L{first}/{'+'.join(table)}")
            if seating is None:
                order = tuple(range(len(table))) if self.seating == CYCLIC else least_imbalanced(table, self.adjacent)
                seating = seated(table, order)
                self.adjacent.update(adjacent(seating))
            seatings = [rotated(seating, r) for r in range(len(table))]
        else:
            seed = replay.seed
            if not again:
                self.adjacent.update(adjacent(replay.seatings[0]))
            seatings = list(replay.seatings)
        for rotation in rotations:
            index = self._next
            self._next += 1
            self._fold.expect([index])
            match_id = ladder_match_id(first, table, rotation, None if replay is None else replay.source)
            told = f"{replay.told}/r{rotation}" if replay is not None and replay.told else None
            self._queue.append(ScheduledMatch(index, match_id, seed, seatings[rotation], 1, rotation, told))
            for key in seatings[rotation]:
                self.floor.seat(key, 1)
                self._replayed[key] += replay is not None
                if key in self._learning and self.rated_of(key) >= self.placement:
                    self._learning.discard(key)
