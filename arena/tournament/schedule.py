"""Scheduled matches, and round-robin schedules with seat rotations and duplicate deals.

:class:`ScheduledMatch` is what every schedule hands out (see :mod:`.schedules`), and
:func:`batches` cuts any schedule known in advance into runs for bot processes.

Every combination of ``n`` bots (a *table*) is played under every rotation of its
seats with the same deal seed, so each bot holds each seat's cards once and the luck
of the deal cancels out. Ids and seeds come from bot names, not list positions, so a
match keeps its id and its deal when the field is reordered. A bot whose manifest
supports only some table sizes (or not the tournament's preset) is left out of the
other sizes' tables.

A match id never contains its seed: the id is sent to the bots in ``hello``, and a bot
that knew the seed could recompute every card of the deal with the engine.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass
from itertools import combinations
from math import comb
from typing import Collection, Iterator, Mapping, Sequence


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


def deal_seed(master: int | str, label: str) -> str:
    """The seed of one table's deals: ``d-`` and 32 hex digits of HMAC-SHA256 keyed with the master seed.

    Whoever deals a match needs its seed: a Dask worker, its operator, a replay file. From
    it nobody can recover the master seed, nor the seed of any other table. ``label``
    names the table (``c1/a+b``, ``L40/a@v1+b@v2``).
    """
    mac = hmac.new(str(master).encode(), b"cabo-arena/deal\0" + label.encode(), hashlib.sha256)
    return "d-" + mac.hexdigest()[:32]


def table_seed(master: int | str, cycle: int, table: Sequence[str]) -> str:
    """Seed of a table's deals: derived from the master seed, the cycle and the bots."""
    return deal_seed(master, f"c{cycle}/{'+'.join(table)}")


def match_id(cycle: int, table: Sequence[str], rotation: int) -> str:
    """``cCYCLE/BOT+BOT+.../rROTATION``: names the match without revealing its deal."""
    return f"c{cycle}/{'+'.join(table)}/r{rotation}"


def opaque_match_id(master: int | str, match_id: str) -> str:
    """The id bots get instead of ``match_id``: ``m-`` and 16 hex digits of HMAC-SHA256 keyed with the master seed.

    Unique per match and the same on every run and resume, but without the key a bot can
    recover neither the id (which names the bots at its table) nor the key (the seed of
    every deal). ``1`` and ``"1"`` give the same ids, as they give the same deals.
    """
    mac = hmac.new(str(master).encode(), b"cabo-arena/match-id\0" + match_id.encode(), hashlib.sha256)
    return "m-" + mac.hexdigest()[:16]


def play_match_id(seed: int | str) -> str:
    """The id of the one match ``arena play`` plays with deal seed ``seed``: opaque as a tournament's
    (the seed is its key), its own for each seed and the same whenever that seed is played again. A
    bot that seeds its randomness from the match id then plays differently in every match a league
    manager drives through ``arena play``, and the same in a match played again."""
    return opaque_match_id(seed, "play")


def round_robin(bots: Sequence[str], seats: Sequence[int], cycles: int, master: int | str,
                sizes_of: Mapping[str, Collection[int]] | None = None) -> Iterator[ScheduledMatch]:
    """Every table of every size in ``seats``, every rotation, ``cycles`` times, in a fixed order.

    ``sizes_of`` limits bots to some table sizes (what their manifests support): a size's
    tables are drawn only among the bots that play it. A bot it does not name plays every
    size, so without limits the schedule is exactly the one tournaments always had.
    """
    if len(set(bots)) != len(bots):
        raise ValueError("bot names must be unique")
    names = sorted(bots)
    limits = sizes_of or {}
    field = {n: [name for name in names if name not in limits or n in limits[name]] for n in set(seats)}
    short = [n for n, able in field.items() if limits and len(able) < n]
    if short:
        raise ValueError(f"no table of {min(short)} seats can be filled: {len(field[min(short)])} bot(s) play it")
    index = 0
    for cycle in range(1, cycles + 1):
        for n in sorted(set(seats)):
            for table in combinations(field[n], n):
                seed = table_seed(master, cycle, table)
                for rotation in range(n):
                    seating = table[rotation:] + table[:rotation]
                    yield ScheduledMatch(index, match_id(cycle, table, rotation), seed, seating, cycle, rotation)
                    index += 1


def schedule_size(bots: int, seats: Sequence[int], cycles: int) -> int:
    """Number of matches :func:`round_robin` yields without ``sizes_of``, without building it."""
    return cycles * sum(comb(bots, n) * n for n in set(seats))


def batches(schedule: Sequence[ScheduledMatch], pending: set[int], size: int) -> list[list[ScheduledMatch]]:
    """Runs of up to ``size`` matches for bot processes to serve in turn, never a deal twice.

    A run holds matches of one rotation and table size: a table in consecutive cycles,
    then the next tables in order. Consecutive tables differ by one bot (combinations
    change one at a time), so most processes serve the whole run even when the field is
    large and there is a single cycle; a table's rotations, which share its deal, are in
    different runs. Runs are cut over the *whole* schedule (so a run is the same whatever
    was already played), then finished matches are dropped. Runs are ordered by their
    first pending match.
    """
    if size < 1:
        raise ValueError("batch size must be at least 1")
    by_rotation: dict[tuple[int, int], list[ScheduledMatch]] = {}
    for scheduled in schedule:
        by_rotation.setdefault((len(scheduled.bots), scheduled.rotation), []).append(scheduled)
    runs: list[list[ScheduledMatch]] = []
    for matches in by_rotation.values():
        matches.sort(key=lambda m: (sorted(m.bots), m.cycle))  # the table (its sorted bots), then the cycle
        for start in range(0, len(matches), size):
            run = [m for m in matches[start:start + size] if m.index in pending]
            if run:
                runs.append(run)
    return sorted(runs, key=lambda run: run[0].index)
