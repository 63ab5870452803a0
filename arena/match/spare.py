"""Bot processes a worker keeps from one batch to a later one that holds none of their deals.

A batch reuses a bot's process from match to match (:func:`.runner.play_batch`), and a batch
never holds one deal twice. A ladder's batches are cut across the tables in play, one match
per table, and at most :data:`arena.tournament.ladder.matchmaking.LAG` + 1 tables are in
play: so a worker's batches alternate between the other rotations of the same tables, which
share their deals, and the tables drawn after them, which do not. Started afresh for every
batch, a ladder's processes served about half as many matches as a round robin's (whose
batches of up to ``matches_per_process`` run over the cycles), and starting them was most of
what separated the two (docs/performance.md, "Ladder throughput"). So the processes that play
a batch's last match are kept, idle, and a later batch of the same worker takes them instead
of starting new ones, if:

* the process has served none of that batch's deals: it remembers every deal it served, so
  no process ever sees one deal twice, as within a batch;
* it serves no more matches in all than ``matches_per_process`` (:attr:`.runner.MatchJob.per_process`);
* what is left of its CPU allowance covers the new matches. ``cpu_seconds`` is an allowance
  per match, set once as the process starts (RLIMIT_CPU: ``cpu_seconds`` times the matches it
  was to serve then) and never raised. What it used is not read (no backend gives it the same
  way); it is bounded instead by the process's age times every core of this machine, which no
  process can exceed. So a kept process gets at least ``cpu_seconds`` for each new match, as a
  fresh one would, never more in all than a fresh process for all of its matches;
* it runs on this machine (``none``, ``bwrap``): a Docker engine may count CPUs elsewhere;
* it is still alive.

A worker keeps the processes that ended its last :data:`KEPT_BATCHES` batches: each of the
rotations of a table it plays needs processes of their own, which the next tables' matches
can then take again; keeping more would only leave idle processes about.
Outcomes are those of fresh processes for any bot that starts afresh on ``hello``, as the
protocol asks; which processes play a match changes no result.
"""

from __future__ import annotations

import os
import time
from collections import Counter, deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Iterable, Sequence

from ..bots import BotSpec
from .link import BotLink

if TYPE_CHECKING:
    from .runner import MatchJob

KEPT_BATCHES = 4
"""How many of a worker's last batches leave their final match's processes for a later batch: as many as a
table of 4 has rotations (one worker may play all of them, each on processes of their own; with two kept,
one worker started a third more processes in tests/tournament/test_ladder_batches.py)."""

LOCAL = ("none", "bwrap")
"""Backends whose processes run on this machine: the age bound on their CPU counts its cores."""


@dataclass(eq=False)
class Held:
    """One process and what decides whether a later batch may take it."""

    spec: BotSpec
    link: BotLink
    allowance: float
    """CPU seconds of its RLIMIT_CPU, set as it started."""
    local: bool
    """It runs on this machine (:data:`LOCAL`)."""
    seen: set[int | str] = field(default_factory=set)
    """Deals (seeds) of every match it served."""

    def fits(self, seeds: set[int | str], matches: int, cpu_seconds: float, most: int, now: float,
             cores: int) -> bool:
        """Whether it may serve ``matches`` more matches, none of whose deals (``seeds``) it has seen, and
        at most ``most`` in all."""
        spent = (now - self.link.started) * cores  # the most CPU it can have used
        return (self.local and self.link.process.alive() and not self.seen & seeds
                and len(self.seen) + matches <= most and self.allowance - spent >= matches * cpu_seconds)


class Spare:
    """The idle processes of one worker, between its batches (create it in the worker: it holds processes)."""

    def __init__(self, cores: int | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.cores = cores or os.cpu_count() or 1
        self.clock = clock
        self.kept: deque[list[Held]] = deque()
        """Per batch, oldest first: the processes that ended it, not taken yet."""

    def take(self, jobs: Sequence[MatchJob]) -> dict[BotSpec, Held]:
        """For each bot of the batch ``jobs``, a kept process that may serve all of its matches there, the
        most recent first; the others stay kept."""
        seeds = {job.seed for job in jobs}
        matches: Counter[BotSpec] = Counter(spec for job in jobs for spec in set(job.bots))
        cpu = max((job.limits.cpu_seconds for job in jobs), default=0)
        most = min((job.per_process for job in jobs), default=0)
        now = self.clock()
        taken: dict[BotSpec, Held] = {}
        for group in reversed(self.kept):
            for held in group:
                if held.spec in matches and held.spec not in taken and held.fits(seeds, matches[held.spec], cpu,
                                                                                  most, now, self.cores):
                    taken[held.spec] = held
        chosen = set(map(id, taken.values()))
        self.kept = deque(rest for group in self.kept if (rest := [h for h in group if id(h) not in chosen]))
        return taken

    def keep(self, held: Iterable[Held]) -> None:
        """The processes that ended a batch; those kept longest are killed when more than :data:`KEPT_BATCHES`
        batches' are kept (a batch that took all of an earlier one's processes leaves it nothing to count)."""
        self.kept.append(list(held))
        while len(self.kept) > KEPT_BATCHES:
            for old in self.kept.popleft():
                old.link.kill()

    def close(self) -> None:
        """Kill every kept process (the worker stops)."""
        while self.kept:
            for held in self.kept.popleft():
                held.link.kill()
