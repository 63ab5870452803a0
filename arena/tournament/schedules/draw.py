"""Drawing balanced tables: every bot at the same number of tables within one, pairs meeting evenly.

Two steps per table size, both driven by one seeded generator, so the same input always
gives the same tables:

1. A greedy draw (here). Each seat goes to a bot of the lowest group by (tables of this
   size, tables of any size), so table counts never drift more than one apart; within
   that group, to one that met the bots already at the table least often.
2. A polish (:mod:`.polish`): swaps between tables that even out the pair meetings the
   greedy could not, without changing any bot's table count.

Bots are numbered in name order and kept in lists: sets of strings iterate in an order
that changes from run to run, so nothing here walks one.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

from .polish import meet, polish
from .tiebreak import TieBreaker


def draw_tables(able: Mapping[int, Sequence[str]], counts: Mapping[int, int],
                rng: TieBreaker) -> list[tuple[str, ...]]:
    """``counts[n]`` tables of each size ``n`` among the bots ``able[n]``, sizes in increasing order;
    each table is its bots in name order. Pair meetings and table counts carry over from size to size."""
    names = sorted({name for field in able.values() for name in field})
    number = {name: i for i, name in enumerate(names)}  # in name order: sorting numbers sorts names
    met: list[dict[int, int]] = [{} for _ in names]
    total = [0] * len(names)
    out: list[tuple[str, ...]] = []
    for size in sorted(counts):
        players = [number[name] for name in sorted(able[size])]
        tables = list(_greedy(players, size, counts[size], met, total, rng))
        polish(tables, players, met, rng)
        out.extend(tuple(names[i] for i in sorted(table)) for table in tables)
    return out


def _greedy(players: Sequence[int], size: int, count: int, met: list[dict[int, int]], total: list[int],
            rng: TieBreaker) -> Iterator[list[int]]:
    """``count`` tables of ``size`` among ``players``, updating ``met`` (pair meetings) and ``total`` (tables)."""
    here = {p: 0 for p in players}  # tables of this size
    pool = _Pool(lambda p: (here[p], total[p]))
    for player in players:
        pool.put(player)
    for _ in range(count):
        table: list[int] = []
        near: dict[int, int] = {}  # bot -> how often it met the bots already at the table
        for seat in range(size):
            bot = pool.pick(near, rng)
            table.append(bot)
            if seat < size - 1:
                for other, times in met[bot].items():
                    near[other] = near.get(other, 0) + times
        for bot in table:
            for other in table:
                if other != bot:
                    meet(met, bot, other, 1)
            here[bot] += 1
            total[bot] += 1
        for bot in table:
            pool.put(bot)
        yield table


class _Pool:
    """The bots not at the table being filled, grouped by a key (tables of this size, tables in all).

    Only the lowest group may take a seat, so table counts never drift more than one apart.
    Groups are lists (removal swaps in the last one), so a seeded generator picks in them by
    position.
    """

    def __init__(self, key: Callable[[int], tuple[int, int]]) -> None:
        self.key = key
        self.groups: dict[tuple[int, int], list[int]] = {}
        self.where: dict[int, tuple[tuple[int, int], int]] = {}  # bot -> its group and position there

    def put(self, bot: int) -> None:
        key = self.key(bot)
        group = self.groups.setdefault(key, [])
        self.where[bot] = (key, len(group))
        group.append(bot)

    def take(self, bot: int) -> None:
        key, position = self.where.pop(bot)
        group = self.groups[key]
        last = group.pop()
        if last != bot:
            group[position] = last
            self.where[last] = (key, position)
        if not group:
            del self.groups[key]

    def pick(self, near: Mapping[int, int], rng: TieBreaker) -> int:
        """Take a bot of the lowest group that met the table least often, ties at random."""
        key = min(self.groups)
        group = self.groups[key]
        met = [(times, bot) for bot, times in near.items() if self.where.get(bot, (None, 0))[0] == key]
        free = len(group) - len(met)
        if not met:
            bot = group[rng.below(len(group))]
        elif 4 * free >= len(group):  # mostly strangers to the table: draw until one is (4 tries expected at most)
            while (bot := group[rng.below(len(group))]) in near:
                pass
        elif free:
            strangers = [b for b in group if b not in near]
            bot = strangers[rng.below(len(strangers))]
        else:
            fewest = min(times for times, _ in met)
            best = [b for times, b in met if times == fewest]
            bot = best[rng.below(len(best))]
        self.take(bot)
        return bot
