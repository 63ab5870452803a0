"""The stored form of a finished match: what ratings and leaderboards are computed from."""

from __future__ import annotations

from dataclasses import dataclass


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
