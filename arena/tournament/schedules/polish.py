"""The polish after the greedy draw: swaps between tables that make pair meetings more even.

The greedy must seat the last bots of each round together whoever they met, which leaves
a few pairs meeting once too often or too rarely. Swapping two bots between two tables
of the same size changes no bot's table count, so swaps are tried around each pair
outside the even range (the floor and the ceiling of the mean number of meetings) and
kept when they bring meetings closer to it, or leave that as it is and lower the sum of
squares, or change neither: such a swap moves an uneven pair elsewhere, where it may
cancel out against another. A swap that widens the range between the fewest and the
most meetings is never kept. The effort is bounded, so when evenness cannot be reached
(or not by single swaps) the polish stops, having made nothing worse.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from itertools import combinations

from .tiebreak import TieBreaker

POLISH_EFFORT = 300
"""Swaps tried per pair found uneven after the greedy draw, at most."""
DRAWS = 8
"""Tables of a bot drawn at random when looking for one with (or without) some other bot, before searching them all."""


def meet(met: list[dict[int, int]], one: int, other: int, times: int) -> None:
    """Count ``times`` more (or fewer) meetings of ``one`` with ``other``, one direction; callers do both.

    A pair that no longer meets is dropped, so every entry of ``met`` means "they met"."""
    times += met[one].get(other, 0)
    if times:
        met[one][other] = times
    else:
        del met[one][other]


Swap = tuple[int, int, int, int]
"""Table ``A``, its bot ``x``, table ``B``, its bot ``y``: ``x`` moves to ``B`` and ``y`` to ``A``."""


class _Polish:
    """Swaps between the tables of one size that make pair meetings more even (see the module)."""

    def __init__(self, tables: list[list[int]], players: Sequence[int], met: list[dict[int, int]],
                 rng: TieBreaker) -> None:
        self.tables = tables
        self.players = players
        self.met = met
        self.rng = rng
        self.seated: dict[int, list[int]] = {p: [] for p in players}  # bot -> its tables (positions in tables)
        for position, table in enumerate(tables):
            for bot in table:
                self.seated[bot].append(position)
        field = set(players)
        meetings = sum(times for a in players for b, times in met[a].items() if b in field)  # each pair twice
        pairs = len(players) * (len(players) - 1)
        self.low = meetings // pairs
        self.high = -(-meetings // pairs)
        self.counts: dict[int, int] = {}  # meetings -> pairs of players meeting that often
        for a in players:
            for b, times in met[a].items():
                if a < b and b in field:
                    self.counts[times] = self.counts.get(times, 0) + 1
        never = pairs // 2 - sum(self.counts.values())
        if never:
            self.counts[0] = never
        self.uneven: list[tuple[int, int]] = []  # pairs outside the even range, smaller bot first
        self.slot: dict[tuple[int, int], int] = {}  # uneven pair -> its position in self.uneven
        for pair in self.initially_uneven():
            self.mark(pair)

    def run(self, effort: int = POLISH_EFFORT) -> None:
        """Try swaps around uneven pairs drawn at random until none is left or ``effort`` tries per
        pair uneven at the start are spent."""
        for _ in range(effort * len(self.uneven)):
            if not self.uneven:
                return
            u, v = self.uneven[self.rng.below(len(self.uneven))]
            swaps = self.apart(u, v) if self.met[u].get(v, 0) > self.high else self.together(u, v)
            if swaps:
                gain, swap = min((self.gain(swap), swap) for swap in swaps)
                if gain <= (0, 0, 0):
                    self.apply(swap)

    def initially_uneven(self) -> list[tuple[int, int]]:
        """Pairs of this size's players meeting more often than the ceiling of the mean, or less than its floor."""
        field = set(self.players)
        out = [(a, b) for a in self.players for b, times in self.met[a].items()
               if a < b and b in field and times > self.high]
        if self.low:
            out += [(a, b) for a, b in combinations(self.players, 2) if self.met[a].get(b, 0) < self.low]
        return out

    def mark(self, pair: tuple[int, int]) -> None:
        """Keep ``pair`` (smaller bot first) in the list of uneven pairs exactly while it is uneven."""
        uneven = not self.low <= self.met[pair[0]].get(pair[1], 0) <= self.high
        if uneven and pair not in self.slot:
            self.slot[pair] = len(self.uneven)
            self.uneven.append(pair)
        elif not uneven and pair in self.slot:
            position = self.slot.pop(pair)
            last = self.uneven.pop()
            if last != pair:
                self.uneven[position] = last
                self.slot[last] = position

    def apart(self, u: int, v: int) -> list[Swap]:
        """Swaps taking ``u`` or ``v`` away from a table they share, to a table drawn at random."""
        a = self.table_of(u, lambda table: v in table)
        if a is None or len(self.tables) < 2:
            return []
        b = self.rng.below(len(self.tables) - 1)
        b += b >= a
        return [(a, x, b, y) for x in (u, v) for y in self.tables[b]
                if x not in self.tables[b] and y not in self.tables[a]]

    def together(self, u: int, v: int) -> list[Swap]:
        """Swaps bringing ``v`` to a table of ``u``'s in exchange for another bot there (tables drawn at random)."""
        a = self.table_of(u, lambda table: v not in table)
        b = self.table_of(v, lambda table: u not in table)
        if a is None or b is None:
            return []
        return [(a, x, b, v) for x in self.tables[a] if x != u and x not in self.tables[b]]

    def table_of(self, bot: int, wanted: Callable[[list[int]], bool]) -> int | None:
        """One of ``bot``'s tables that is ``wanted``, drawn at random (a few draws, then a search)."""
        seated = self.seated[bot]
        for _ in range(DRAWS):
            table = seated[self.rng.below(len(seated))]
            if wanted(self.tables[table]):
                return table
        found = [table for table in seated if wanted(self.tables[table])]
        return found[self.rng.below(len(found))] if found else None

    def changes(self, swap: Swap) -> list[tuple[int, int, int]]:
        """``(bot, bot, +1 or -1)`` for every pair whose meetings the swap changes."""
        a, x, b, y = swap
        out = []
        for bot in self.tables[a]:
            if bot != x and bot not in self.tables[b]:
                out += [(x, bot, -1), (y, bot, 1)]
        for bot in self.tables[b]:
            if bot != y and bot not in self.tables[a]:
                out += [(y, bot, -1), (x, bot, 1)]
        return out

    def gain(self, swap: Swap) -> tuple[int, int, int]:
        """What the swap changes, lower is better: whether it widens the range of meeting counts (refused:
        the fewest and most meetings are what evenness is judged by), how far meetings are outside the
        even range (squared, so one pair far out weighs more than two just out), the sum of squares."""
        fewest, most, low, high = min(self.counts), max(self.counts), self.low, self.high
        outside = squares = 0
        for one, other, step in self.changes(swap):
            times = self.met[one].get(other, 0)
            after = times + step
            if not fewest <= after <= most:
                return 1, 0, 0
            was = times - high if times > high else low - times if times < low else 0
            now = after - high if after > high else low - after if after < low else 0
            outside += now * now - was * was
            squares += step * (2 * times + step)
        return 0, outside, squares

    def apply(self, swap: Swap) -> None:
        a, x, b, y = swap
        for one, other, step in self.changes(swap):
            times = self.met[one].get(other, 0)
            self.counts[times] -= 1
            if not self.counts[times]:
                del self.counts[times]
            self.counts[times + step] = self.counts.get(times + step, 0) + 1
            meet(self.met, one, other, step)
            meet(self.met, other, one, step)
            self.mark((min(one, other), max(one, other)))
        self.tables[a][self.tables[a].index(x)] = y
        self.tables[b][self.tables[b].index(y)] = x
        self.seated[x][self.seated[x].index(a)] = b
        self.seated[y][self.seated[y].index(b)] = a


def polish(tables: list[list[int]], players: Sequence[int], met: list[dict[int, int]],
           rng: TieBreaker) -> None:
    """Make the pair meetings of ``tables`` (one size) more even in place; ``met`` follows."""
    if len(players) > 1 and tables:
        _Polish(tables, players, met, rng).run()
