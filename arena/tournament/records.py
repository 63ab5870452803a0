"""The stored form of a finished (or voided) match: what ratings and leaderboards are computed from.

A stored row becomes a :class:`MatchRecord` in one place, :func:`record_of_row`, whoever reads it
(the store's :meth:`~.store.ResultStore.records`, the report's snapshot): two conversions would
drift apart one column at a time, and the terminal and the web page would rate different records.
"""

from __future__ import annotations

import json

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Mapping

from ..execute.results import Voided
from ..match.runner import SeatStats, stats_json, stats_of_json

if TYPE_CHECKING:
    from ..match.runner import MatchOutcome
    from .scheduled import ScheduledMatch


REPLAY_MARK = "~"
"""In a match id's first part, names the table whose deal it plays again: ``L{n}~{m}/...`` replays table ``m``."""


def is_replay(match_id: str) -> bool:
    """A ladder's replay of an earlier table for a new version (docs/ladder.md, "A new version against the
    old one"). Replays are never rated: every bot at one has played its deal before, and the cards it saw
    then (the discards show most of the deck) would let a bot that kept notes play it with foreknowledge.
    They measure a new version against its previous one, not against the field."""
    return REPLAY_MARK in match_id.partition("/")[0]


@dataclass(frozen=True)
class MatchRecord:
    """One finished match as the tournament keeps it."""

    index: int
    """Position in the schedule: ratings are applied in this order."""
    match_id: str
    """Stable id, unique in the tournament."""
    bots: tuple[str, ...]
    """Bot name per seat."""
    places: tuple[int, ...]
    """Final place per seat (1 = best; equal places share; forfeited seats rank below the rest)."""
    totals: tuple[int, ...]
    """Final game total per seat."""
    forfeited: tuple[bool, ...]
    """Seats whose bot was forfeited."""
    faults: tuple[tuple[int, str], ...]
    """``(seat, fault kind)`` for every fault in the match."""
    stats: tuple[SeatStats, ...] = ()
    """Per seat, its bot's reply and start-up times (for the leaderboard's timing columns)."""
    luck: tuple[float, ...] = ()
    """Per seat, the points the cards gave it over expectation (:mod:`arena.luck`); empty: not measured."""


def record_of(scheduled: ScheduledMatch, outcome: MatchOutcome) -> MatchRecord:
    """The record of a match just played, as :meth:`ResultStore.records` will read it back."""
    faults = tuple((f.seat, str(f.to_json()["kind"])) for f in outcome.faults)
    stats = tuple(stats_of_json(stats_json(s)) for s in outcome.stats)  # rounded as stored
    return MatchRecord(scheduled.index, scheduled.match_id, tuple(outcome.bots), tuple(outcome.places),
                       tuple(outcome.totals), tuple(outcome.forfeited), faults, stats,
                       tuple(float(v) for v in json.loads(json.dumps(list(outcome.luck)))))  # as stored


def record_of_row(row: Mapping[str, Any], luck: tuple[float, ...] = ()) -> MatchRecord:
    """The record of a stored row of ``matches`` whose JSON columns are decoded and checked
    (:func:`~.store.decode_match`), with its stored ``luck``: the one conversion from the stored form."""
    return MatchRecord(int(row["idx"]), str(row["match_id"]), tuple(row["bots"]), tuple(row["places"]),
                       tuple(row["totals"]), tuple(row["forfeited"]),
                       tuple((int(f["seat"]), str(f["kind"])) for f in row["faults"]),
                       tuple(stats_of_json(s) for s in row["stats"]), luck)


VoidRecord = Voided
"""A match that was not played to the end because it killed its worker process twice: the executor's
:class:`~arena.execute.results.Voided` as the store gives it back. It counts as done (a resume does not
play it again) but is never rated: its result, if it had one, is unknown."""


@dataclass(frozen=True)
class SeatLogRecord:
    """One seat of one stored match and its bot's log, for ``arena bot log``."""

    index: int
    """Position in the schedule."""
    match_id: str
    """Stable id, unique in the tournament."""
    seat: int
    """The seat the bot held."""
    players: int
    """Seats at the table."""
    place: int
    """The bot's final place."""
    text: str | None
    """The end of what the bot wrote on stderr in that match; None for a match stored by an arena
    that kept no logs."""
    replay: str
    """The match's replay file, relative to the output directory."""
