"""The schedule a tournament configuration names, built for the driver through its kind.

The driver gets a :class:`.base.Schedule` and nothing else; which schedule that is, and
how it is built, is its kind's business (:mod:`.registry`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Mapping

from ...bots import BotSpec
from ...sandbox.backends import Backend
from .base import Schedule, ScheduledMatch
from .registry import kind_of

if TYPE_CHECKING:
    from ..config import TournamentConfig


def schedule_for(config: TournamentConfig, backend: Backend | None = None) -> Schedule:
    """The schedule of ``config`` (whose master seed must be resolved), not yet told what is stored;
    one that builds its bots as they join builds them under ``backend`` (None: ``none``)."""
    return kind_of(config.schedule).build(config, backend)


def schedule_of(config: TournamentConfig) -> list[ScheduledMatch]:
    """Every match of ``config``'s schedule in index order (one known in advance), e.g. to replay one alone."""
    if config.seed is None:
        raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
    return kind_of(config.schedule).matches(config)


def players_of(config: TournamentConfig, schedule: Schedule) -> Mapping[str, BotSpec]:
    """Name -> bot for the jobs: the file's bots, or those the schedule meets as it runs (a live map)."""
    return kind_of(config.schedule).players(config, schedule)
