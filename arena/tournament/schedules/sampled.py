"""``schedule: sampled``: a given number of tables, drawn so that bots play equally often and meet evenly.

A round robin plays C(bots, seats) tables per cycle: 921,200 matches for 50 bots at
tables of four. A sampled tournament plays ``tables`` of them instead, each (like a
round-robin table) under every rotation of its seats with the same deal, so luck
still cancels out within a table. ``cycles`` plays the same tables again with new
deals.

The tables are split evenly over the sizes in ``seats`` (the smaller sizes take the
remainder) and drawn size after size among the bots that play the size (:mod:`.draw`):
at each size every bot sits at the same number of tables within one (and over all
sizes too, when every bot plays every size), and pairs of bots meet as evenly as a
greedy draw and a bounded polish get them. Ties are broken by a generator keyed with a
hash of the master seed (:mod:`.tiebreak`), so the tables depend only on the bot names, the sizes,
``tables`` and the seed: the same configuration draws the same tables whatever the
number of workers, and on every resume.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ...bounds import MAX_SCHEDULE_MATCHES
from ..seating import restricted_sizes
from . import SAMPLED
from .balance import BALANCED, block_order, rotated, seated
from .base import ScheduledMatch
from .draw import draw_tables
from .fixed import FixedKind, refuse_oversize
from .kind import Field, KeyReader, Keys, TournamentConfig
from ...match.seeds import deal_seed
from .tiebreak import TieBreaker


def split(tables: int, seats: Sequence[int]) -> dict[int, int]:
    """Tables of each size: ``tables`` shared evenly over the sizes in increasing order, the smaller sizes
    taking one more each while the remainder lasts (seats [2, 4] and 5 tables: 3 pairs, 2 tables of four)."""
    sizes = sorted(set(seats))
    share, extra = divmod(tables, len(sizes))
    return {n: share + (i < extra) for i, n in enumerate(sizes)}


def fields(bots: Sequence[str], seats: Sequence[int],
           sizes_of: Mapping[str, Collection[int]] | None = None) -> dict[int, list[str]]:
    """Size -> the bots that play it, in name order (a bot ``sizes_of`` does not name plays every size)."""
    limits = sizes_of or {}
    names = sorted(bots)
    return {n: [b for b in names if b not in limits or n in limits[b]] for n in sorted(set(seats))}


def minimum_tables(players: Mapping[int, int]) -> int:
    """The fewest tables whose even split seats every player of each size at least once.

    ``players`` maps each size to how many bots play it. A smaller ``tables`` would leave a
    bot out of a size it plays (or out of the tournament), so the configuration refuses it.
    """
    tables = len(players)
    while any(count * size < players[size] for size, count in split(tables, list(players)).items()):
        tables += 1
    return tables


def sampled(bots: Sequence[str], seats: Sequence[int], tables: int, cycles: int, master: int | str,
            sizes_of: Mapping[str, Collection[int]] | None = None,
            seating: str = BALANCED) -> Iterator[ScheduledMatch]:
    """The matches of ``tables`` drawn tables, every rotation, ``cycles`` times, in a fixed order.

    Table ``t`` (numbered from 1, smaller sizes first) of cycle ``c`` has the id
    ``cC/tT/BOT+BOT+.../rR`` (bots in name order; the number tells apart two draws of the
    same bots) and the deal seed :func:`..schedule.deal_seed` of ``cC/tT/BOT+BOT+...``: as in a round
    robin, the id never holds the seed and every rotation of a table shares its deal. Table ``t`` of
    cycle ``c`` is seated in the cyclic order :func:`.balance.block_order` of step ``c - 1 + t - 1``, as a
    round robin's tables are (``seating: cyclic``: the order of its names).
    """
    if len(set(bots)) != len(bots):
        raise ValueError("bot names must be unique")
    able = fields(bots, seats, sizes_of)
    unfilled = [n for n, names in able.items() if len(names) < n]
    if unfilled:
        raise ValueError(f"no table of {unfilled[0]} seats can be filled: {len(able[unfilled[0]])} bot(s) play it")
    counts = split(tables, seats)
    least = minimum_tables({n: len(names) for n, names in able.items()})
    if tables < least:
        raise ValueError(f"{tables} tables leave bots out; at least {least} are needed")
    drawn = draw_tables(able, counts, TieBreaker(master))
    index = 0
    for cycle in range(1, cycles + 1):
        for number, table in enumerate(drawn, 1):
            label = f"c{cycle}/t{number}/{'+'.join(table)}"
            seed = deal_seed(master, label)
            order = seated(table, block_order(len(table), cycle - 1 + number - 1, seating))
            for rotation in range(len(table)):
                yield ScheduledMatch(index, f"{label}/r{rotation}", seed, rotated(order, rotation), cycle, rotation)
                index += 1


@dataclass(frozen=True)
class SampledSettings:
    """The keys of ``schedule: sampled``."""

    tables: int
    """How many tables to play per cycle (each under every rotation)."""


class Sampled(FixedKind):
    """``schedule: sampled``: ``tables`` (required) tables per cycle, fingerprinted."""

    name = SAMPLED
    keys = Keys(shape=("tables",), only_note=" (a round robin plays every table)")

    def read(self, reader: KeyReader, data: Mapping[str, Any]) -> SampledSettings:
        if "tables" not in data:
            reader.missing("tables", ("schedule",), f"required key missing with schedule: {SAMPLED}; give the "
                                                    "number of tables to play per cycle, an integer >= 1 (e.g. "
                                                    "tables: 500)")
        return SampledSettings(reader.required_int(("tables",), data["tables"], 1, MAX_SCHEDULE_MATCHES))

    def check(self, reader: KeyReader, field: Field, options: Any) -> Any:
        tables = options.tables
        self.enough_tables(reader, tables, field)
        per_cycle = sum(count * n for n, count in split(tables, field.seats).items())
        refuse_oversize(reader, field.cycles, per_cycle, f"{tables} tables of seats {list(field.seats)}", ("tables",),
                        "lower tables")
        return options

    @staticmethod
    def enough_tables(reader: KeyReader, tables: int, field: Field) -> None:
        """Refuse a ``tables`` too small to seat every bot at each size it plays at least once."""
        seats = field.seats
        players = {n: len(names) for n, names in
                   fields([b.name for b in field.bots], seats,
                          restricted_sizes(field.bots, field.rules.preset, seats)).items()}
        least = minimum_tables(players)
        if tables >= least:
            return
        counts = split(tables, seats)
        n = next(n for n, count in counts.items() if count * n < players[n])
        at_n = f"{counts[n]} table{'' if counts[n] == 1 else 's'} of {n} seats"
        if len(counts) == 1:
            why = f"too few for every bot to play ({at_n}: room for {counts[n] * n} of {players[n]} bots)"
        else:
            why = (f"too few for every bot to play at each size it plays (split evenly over seats {list(counts)}, "
                   f"{tables} tables make {at_n}: room for {counts[n] * n} of the {players[n]} bots that play "
                   f"{n} seats)")
        reader.fail(("tables",), f"{why}; give at least {least}")

    def describe(self, options: Any) -> dict[str, Any]:
        return {"schedule": self.name, "tables": options.tables}

    def matches(self, config: TournamentConfig) -> list[ScheduledMatch]:
        if config.seed is None:
            raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
        sizes = restricted_sizes(config.bots, config.rules.preset, config.seats)
        settings: SampledSettings = config.schedule_settings
        return list(sampled([b.name for b in config.bots], config.seats, settings.tables, config.cycles,
                            config.seed, sizes, config.seating))


KIND = Sampled()
