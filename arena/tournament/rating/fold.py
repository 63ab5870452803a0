"""Ratings computed from finished matches, by whichever model :mod:`.model` names.

Ratings are a pure function of the records and the parameters: matches are
applied in schedule order (``MatchRecord.index``), never in the order they
happened to finish, so parallel workers and resumed runs give the same numbers.
"""

from __future__ import annotations

import bisect
from typing import Callable, Container, Iterable, Mapping, Sequence

from ..records import MatchRecord, is_replay
from .model import Rating, exposure, model_of, reads_scores
from .params import RatingParams

def check_record(record: MatchRecord) -> None:
    """Refuse a malformed record: a silently misread one would skew every later rating."""
    seats = len(record.bots)
    if seats < 2:
        raise ValueError(f"match {record.match_id}: needs at least 2 seats, has {seats}")
    for name in ("places", "totals", "forfeited"):
        if len(getattr(record, name)) != seats:
            raise ValueError(f"match {record.match_id}: {name} has {len(getattr(record, name))} entries "
                             f"for {seats} seats")
    if len(set(record.bots)) != seats:
        raise ValueError(f"match {record.match_id}: a bot sits in more than one seat {record.bots!r}")
    if any(place < 1 for place in record.places):
        raise ValueError(f"match {record.match_id}: places must be 1-based, got {record.places!r}")
    for seat, kind in record.faults:
        if not 0 <= seat < seats:
            raise ValueError(f"match {record.match_id}: fault {kind!r} names seat {seat} of {seats}")


def schedule_order(records: Iterable[MatchRecord]) -> list[MatchRecord]:
    """Records checked and sorted by schedule index (match id breaks ties) so results never depend on finish order."""
    ordered = sorted(records, key=lambda r: (r.index, r.match_id))
    seen: set[str] = set()
    for record in ordered:
        check_record(record)
        if record.match_id in seen:
            raise ValueError(f"match {record.match_id} appears more than once")
        seen.add(record.match_id)
    return ordered


def roster(bots: Sequence[str], records: Iterable[MatchRecord]) -> list[str]:
    """The given bots in their order, then any other bot the records name (sorted), each once.

    Bots dropped from the configuration still played the recorded matches, so they keep a rating.
    """
    names = list(dict.fromkeys(bots))
    known = set(names)
    extra = sorted({bot for record in records for bot in record.bots} - known)
    return names + extra


def rate(records: Iterable[MatchRecord], params: RatingParams,
         bots: Sequence[str]) -> dict[str, Rating]:
    """Final rating of every bot after applying all matches in schedule order.

    Each seat is its own team; ``places`` become the model's ranks, so equal places
    are a draw between those seats. Every bot in ``bots`` gets an entry, played or not.
    """
    fold = RatingFold(params, bots, records)
    assert fold.complete
    return fold.ratings


class RatingFold:
    """Ratings in schedule order, fed with matches in any order.

    A ladder's replays are passed over like voided matches (:func:`.records.is_replay`: why).
    A match is applied once every match before it in ``expected`` (and in the records
    given at the start, and in later :meth:`expect` calls) has been applied or passed
    over; until then it waits. So :attr:`ratings` while a run is going are those of the
    longest finished prefix of the schedule (:meth:`top` can add the waiting ones, as
    provisional numbers), and once everything expected is in they are
    exactly :func:`rate` of all records (the same updates in the same order: a voided
    match is no record and no update), and need not be computed again.
    """

    def __init__(self, params: RatingParams, bots: Sequence[str], records: Iterable[MatchRecord] = (),
                 expected: Iterable[int] = (), initial: Mapping[str, Rating] | None = None,
                 after: int = -1, on_rate: Callable[[MatchRecord], None] | None = None,
                 on_pass: Callable[[MatchRecord], None] | None = None) -> None:
        """``initial`` and ``after``: ratings that already include every match up to index ``after``
        (kept in a ladder's store), the start instead of fresh ratings; ``records`` then holds only
        later matches. ``on_rate`` hears each match as it is applied, in order; ``on_pass`` each replay
        as it is passed over, in the same order."""
        ordered = schedule_order(records)
        if ordered and ordered[0].index <= after:
            raise ValueError(f"match index {ordered[0].index} is rated already (ratings kept through {after})")
        self.model = model_of(params)
        self._scores = reads_scores(self.model)
        self.ratings: dict[str, Rating] = {name: self.model.fresh()
                                                     for name in roster(bots, ordered)}
        self.ratings.update(initial or {})
        self._after = after
        self._on_rate = on_rate
        self._on_pass = on_pass
        self._order = sorted({r.index for r in ordered} | set(expected))
        self._known = set(self._order)
        self._open = set(self._order)  # expected and not yet added
        self._next = 0
        self._waiting: dict[int, MatchRecord | None] = {}  # None: voided, passed over
        self._held = 0  # records added and not rated yet: in _waiting, or in a deal held back (_deal)
        self._preview: dict[str, Rating] | None = None  # see :meth:`top`; None: same as ratings
        self._method = params.method
        self._deal: list[MatchRecord] = []  # rotations of one deal in order, held until the deal is whole
        for record in ordered:
            self._open.discard(record.index)
            self._waiting[record.index] = record
            self._held += not is_replay(record.match_id)
        self._advance()
        for record in ordered:
            if record.index in self._waiting and not is_replay(record.match_id):
                self._preview_add(record)

    @property
    def complete(self) -> bool:
        """True once every expected match has been applied or voided."""
        return self._next == len(self._order)

    def expect(self, indices: Iterable[int]) -> None:
        """More matches to wait for, as an open-ended schedule hands them out; those already awaited
        are left as they are. One that came already, or that comes before a match already applied,
        is refused: the fold cannot go back."""
        for index in indices:
            if index in self._open:
                continue
            if index in self._known or index <= self._after:
                raise ValueError(f"match index {index} came already")
            if self._next and index < self._order[self._next - 1]:
                raise ValueError(f"match index {index} comes before matches already rated")
            bisect.insort(self._order, index)
            self._known.add(index)
            self._open.add(index)

    def add(self, record: MatchRecord) -> None:
        """One more finished match (any order); a replay (:func:`.records.is_replay`) is passed over, never rated."""
        check_record(record)
        if record.index not in self._open:
            raise ValueError(f"match {record.match_id} (index {record.index}) is not expected or came twice")
        self._open.discard(record.index)
        self._waiting[record.index] = record
        if is_replay(record.match_id):
            self._advance()
            if not self._held:
                self._preview = None
            return
        self._held += 1
        self._advance()
        self._preview_add(record)

    def void(self, index: int) -> None:
        """An expected match that is not rated (voided, or failed and left for a later run, which
        folds again from the store): later ones need not wait for it."""
        if index not in self._open:
            raise ValueError(f"match index {index} is not expected or came twice")
        self._open.discard(index)
        self._waiting[index] = None
        self._advance()
        if not self._held:
            self._preview = None

    def settled(self, before: int) -> bool:
        """True once every expected match with an index below ``before`` is applied or passed over."""
        return self._next == len(self._order) or self._order[self._next] >= before

    @property
    def ahead(self) -> int:
        """Matches added that still wait for an earlier one: :attr:`ratings` leave them out."""
        return self._held

    def top(self, count: int = 3, among: Container[str] | None = None,
            provisional: bool = False) -> list[tuple[str, float]]:
        """The ``count`` best bots by exposure (mu - 3 sigma), best first (``among``: only those).

        ``provisional``: over every match added, those :attr:`ahead` of the schedule order applied
        in the order they came on top of :attr:`ratings`. A progress line shows these, since the
        exact ones can stand still for most of a run while one early match is still in play; they
        equal the exact ones whenever nothing is ahead."""
        ratings = self._preview if provisional and self._preview is not None else self.ratings
        rated = ((n, exposure(r)) for n, r in ratings.items() if among is None or n in among)
        return sorted(rated, key=lambda item: -item[1])[:count]

    def _preview_add(self, record: MatchRecord) -> None:
        """Keep the provisional ratings: every added match, applied or waiting, in one update each."""
        if not self._held:
            self._preview = None  # the exact ratings cover every match added
            return
        if self._preview is None:
            self._preview = dict(self.ratings)  # only ``record`` and a deal's rotations held back are new
            for held in self._deal:
                if held is not record:
                    self.model.update(self._preview, held.bots, held.places, self._scored(held))
        self.model.update(self._preview, record.bots, record.places, self._scored(record))

    def _scored(self, record: MatchRecord) -> tuple[float, ...] | None:
        return scores_of(record) if self._scores else None

    def _advance(self) -> None:
        while self._next < len(self._order) and self._order[self._next] in self._waiting:
            record = self._waiting.pop(self._order[self._next])
            self._next += 1
            if record is None:
                continue
            if is_replay(record.match_id):
                if self._on_pass is not None:
                    self._on_pass(record)
                continue
            if self._method == "match":
                self._rate([record])
                continue
            if self._deal and deal_key(self._deal[0].match_id) != deal_key(record.match_id):
                self._rate(self._deal)
            self._deal.append(record)
            if len(self._deal) == len(record.bots):  # every rotation of the deal is in
                self._rate(self._deal)
        if self._deal and self.complete:
            self._rate(self._deal)

    def _rate(self, records: list[MatchRecord]) -> None:
        """Apply these matches (one, or the rotations of one deal) and tell ``on_rate`` of each."""
        scored = game_scores(self._method, records) if self._scores else None
        for index, (bots, places) in enumerate(games(self._method, records)):
            self.model.update(self.ratings, bots, places, None if scored is None else scored[index])
        self._held -= len(records)
        done = list(records)
        records.clear()
        if self._on_rate is not None:
            for record in done:
                self._on_rate(record)


def deal_key(match_id: str) -> str:
    """A match id without its rotation (``c1/a+b+c/r2`` -> ``c1/a+b+c``): the rotations of a table share it
    and their deal, in every kind of schedule (round robin, sampled, ladder)."""
    head, sep, rotation = match_id.rpartition("/r")
    return head if sep and rotation.isdigit() else match_id


def games(method: str, records: Sequence[MatchRecord]) -> list[tuple[tuple[str, ...], tuple[int, ...]]]:
    """The games (bots by seat, 1-based ranks) that ``records`` become under ``method``.

    ``records`` are one match, or the rotations of one deal in schedule order. A deal that lost
    rotations (voided ones) is rated on those it has; a lone rotation is compared with nothing
    and is rated as a plain match.
    """
    if method == "match" or len(records) < 2 or len({len(r.bots) for r in records}) > 1:
        return [(r.bots, r.places) for r in records]
    if method == "table":
        summed: dict[str, int] = {}
        for record in records:
            for bot, place in zip(record.bots, record.places):
                summed[bot] = summed.get(bot, 0) + place
        bots = tuple(summed)
        return [(bots, ranks([summed[b] for b in bots]))]
    # deal: place less the seat's average place over the deal's rotations, both times the number of
    # rotations so the comparison is exact in integers
    count = len(records)
    by_seat = [sum(r.places[seat] for r in records) for seat in range(len(records[0].bots))]
    return [(r.bots, ranks([count * place - by_seat[seat] for seat, place in enumerate(r.places)]))
            for r in records]


def scores_of(record: MatchRecord) -> tuple[float, ...]:
    """Each seat's match total less its luck (:mod:`arena.luck`; a match not measured counts no luck), lower is
    better. A forfeited seat was played out by the fallback policy, so its points are not its bot's: it counts as
    no better than the worst seat not forfeited, as its place ranks it below them."""
    luck = record.luck or (0.0,) * len(record.bots)
    corrected = [total - lk for total, lk in zip(record.totals, luck)]
    kept = [c for c, lost in zip(corrected, record.forfeited) if not lost]
    if not kept:  # every seat forfeited: among themselves, by their totals, as their places are
        return tuple(corrected)
    worst = max(kept)
    return tuple(max(c, worst) if lost else c for c, lost in zip(corrected, record.forfeited))


def game_scores(method: str, records: Sequence[MatchRecord]) -> list[tuple[float, ...]]:
    """The scores (:func:`scores_of`) of the games :func:`games` makes of ``records``, in the same order: as they
    are (``match``), summed over the deal (``table``), or less the seat's average over the deal's rotations
    (``deal``: what the cards and the seat gave, taken out once more)."""
    scored = [scores_of(r) for r in records]
    if method == "match" or len(records) < 2 or len({len(r.bots) for r in records}) > 1:
        return scored
    if method == "table":
        summed: dict[str, float] = {}
        for record, row in zip(records, scored):
            for bot, score in zip(record.bots, row):
                summed[bot] = summed.get(bot, 0.0) + score
        return [tuple(summed.values())]
    count = len(records)
    by_seat = [sum(row[seat] for row in scored) / count for seat in range(len(records[0].bots))]
    return [tuple(score - by_seat[seat] for seat, score in enumerate(row)) for row in scored]


def ranks(scores: Sequence[int]) -> tuple[int, ...]:
    """1-based competition ranks of ``scores``, lower is better, equal scores sharing a rank (a draw)."""
    ordered = sorted(scores)
    return tuple(ordered.index(score) + 1 for score in scores)
