"""One match as a schedule hands it out: what the driver plays, the store keeps and the records name.

It sits below every schedule kind, the store and the records, so that each can speak of a
scheduled match without importing the schedules that make them.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ScheduledMatch:
    """One match of the schedule."""

    index: int
    """Position in the schedule; ratings are applied in this order."""
    match_id: str
    """Stable id: cycle, table and rotation (never the seed: bots see the id)."""
    seed: str
    """Deal seed, shared by every rotation of the same table and cycle."""
    bots: tuple[str, ...]
    """Bot name per seat."""
    cycle: int
    """Cycle number, from 1."""
    rotation: int
    """Rotation of the table's seats, 0..n-1."""
    told: str | None = None
    """The match id whose wire id the bots get instead of this one's: a ladder's replay of a table tells
    the original's, so that bots seeding their randomness from it play the deal as they did then."""
