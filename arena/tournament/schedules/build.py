"""The schedule a tournament configuration names, built for the driver.

This is the one place that knows which schedules exist: the driver gets a
:class:`.base.Schedule` and nothing else, so adding one means a branch here and a
module beside this one.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Mapping

from ...bots import BotSpec
from ...sandbox.backends import Backend

from ..schedule import ScheduledMatch, round_robin
from ..seating import restricted_sizes
from ..ladder.entries import ActiveField
from ..ladder.kept import finished_in, kept_in
from ..ladder.snapshot import player_spec
from . import LADDER, ROUND_ROBIN, SAMPLED
from .base import Schedule
from .fixed import FixedSchedule
from .ladder import LadderSchedule
from .sampled import sampled

if TYPE_CHECKING:
    from ..config import TournamentConfig


def schedule_for(config: TournamentConfig, backend: Backend | None = None) -> Schedule:
    """The schedule of ``config`` (whose master seed must be resolved), not yet told what is stored;
    a ladder builds the entries joining it under ``backend`` (None: ``none``)."""
    if config.schedule == LADDER:
        if config.seed is None:
            raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
        output, params = config.output, config.rating
        own = {str(Path(b.directory).resolve()) for b in config.bots if b.directory}  # the organiser's choice
        build = functools.partial(player_spec, backend=backend, exempt=own,
                                  unsandboxed_builds=config.unsandboxed_builds)
        return LadderSchedule(ActiveField(output), build, config.seats, config.rules.preset,
                              config.seed, params, config.placement_matches, config.fairness_floor,
                              lambda: kept_in(output, params), lambda: finished_in(output))
    return FixedSchedule(schedule_of(config), config.matches_per_process)


def schedule_of(config: TournamentConfig) -> list[ScheduledMatch]:
    """Every match of ``config``'s schedule in index order (one known in advance), e.g. to replay one alone."""
    if config.seed is None:
        raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
    if config.schedule == LADDER:
        raise ValueError("a ladder draws its tables as it runs: it has no schedule known in advance")
    names = [b.name for b in config.bots]
    sizes = restricted_sizes(config.bots, config.rules.preset, config.seats)
    if config.schedule == ROUND_ROBIN:
        return list(round_robin(names, config.seats, config.cycles, config.seed, sizes))
    if config.schedule == SAMPLED:
        if config.tables is None:
            raise ValueError("schedule: sampled needs tables, the number of tables to play")
        return list(sampled(names, config.seats, config.tables, config.cycles, config.seed, sizes))
    raise ValueError(f"unknown schedule {config.schedule!r}")


def players_of(config: TournamentConfig, schedule: Schedule) -> Mapping[str, BotSpec]:
    """Name -> bot for the jobs: the file's bots, or a ladder's entries as its schedule meets them (a live map)."""
    if isinstance(schedule, LadderSchedule):
        return schedule.specs
    return {b.name: b for b in config.bots}
