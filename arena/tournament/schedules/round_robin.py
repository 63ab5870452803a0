"""``schedule: round_robin`` (the default): every table of every size, with seat rotations and duplicate deals.

Every combination of ``n`` bots (a *table*) is played under every rotation of its
seats with the same deal seed, so each bot holds each seat's cards once and the luck
of the deal cancels out. Ids and seeds come from bot names, not list positions, so a
match keeps its id and its deal when the field is reordered. A bot whose manifest
supports only some table sizes (or not the tournament's preset) is left out of the
other sizes' tables.

A match id never contains its seed (:mod:`.seeds`).
"""

from __future__ import annotations

from itertools import combinations
from math import comb
from typing import Any, Collection, Iterator, Mapping, Sequence

from ..seating import restricted_sizes
from . import ROUND_ROBIN
from .balance import BALANCED, block_order, rotated, seated
from .base import ScheduledMatch
from .fixed import FixedKind, refuse_oversize
from .kind import Field, KeyPath, KeyReader, TournamentConfig
from .sampled import fields
from ...match.seeds import deal_seed


def table_seed(master: int | str, cycle: int, table: Sequence[str]) -> str:
    """Seed of a table's deals: derived from the master seed, the cycle and the bots."""
    return deal_seed(master, f"c{cycle}/{'+'.join(table)}")


def match_id(cycle: int, table: Sequence[str], rotation: int) -> str:
    """``cCYCLE/BOT+BOT+.../rROTATION``: names the match without revealing its deal."""
    return f"c{cycle}/{'+'.join(table)}/r{rotation}"


def round_robin(bots: Sequence[str], seats: Sequence[int], cycles: int, master: int | str,
                sizes_of: Mapping[str, Collection[int]] | None = None,
                seating: str = BALANCED) -> Iterator[ScheduledMatch]:
    """Every table of every size in ``seats``, every rotation, ``cycles`` times, in a fixed order.

    ``sizes_of`` limits bots to some table sizes (what their manifests support): a size's
    tables are drawn only among the bots that play it. A bot it does not name plays every
    size, so without limits the schedule is exactly the one tournaments always had.
    Table ``t`` of its size (counted from 0) is seated in cycle ``c`` in the cyclic order
    :func:`.balance.block_order` of step ``c - 1 + t``: each table goes round its size's design
    over that many cycles, and tables of one cycle start at different places in it. Under
    ``seating: cyclic`` (tournaments begun before) every table keeps the order of its names.
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
            for number, table in enumerate(combinations(field[n], n)):
                seed = table_seed(master, cycle, table)
                order = seated(table, block_order(n, cycle - 1 + number, seating))
                for rotation in range(n):
                    yield ScheduledMatch(index, match_id(cycle, table, rotation), seed, rotated(order, rotation),
                                         cycle, rotation)
                    index += 1


def schedule_size(bots: int, seats: Sequence[int], cycles: int) -> int:
    """Number of matches :func:`round_robin` yields without ``sizes_of``, without building it."""
    return cycles * sum(comb(bots, n) * n for n in set(seats))




class RoundRobin(FixedKind):
    """``schedule: round_robin``, the default: no keys of its own, nothing in the fingerprint (tournaments
    begun before ``schedule`` existed keep theirs)."""

    name = ROUND_ROBIN

    def check(self, reader: KeyReader, field: Field, options: Any) -> Any:
        able = fields([b.name for b in field.bots], field.seats,
                      restricted_sizes(field.bots, field.rules.preset, field.seats))
        per_cycle = sum(comb(len(names), n) * n for n, names in able.items())
        key: KeyPath = ("seats",) if "seats" in field.data else ("bots",)
        refuse_oversize(reader, field.cycles, per_cycle,
                        f"every table of {len(field.bots)} bots at seats {list(field.seats)}", key,
                        "use fewer bots or seats, or schedule: sampled with a number of tables")
        return options

    def describe(self, options: Any) -> dict[str, Any]:
        return {}

    def matches(self, config: TournamentConfig) -> list[ScheduledMatch]:
        if config.seed is None:
            raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
        sizes = restricted_sizes(config.bots, config.rules.preset, config.seats)
        return list(round_robin([b.name for b in config.bots], config.seats, config.cycles, config.seed, sizes,
                                config.seating))


KIND = RoundRobin()
