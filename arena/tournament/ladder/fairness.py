"""The ladder's fairness floor: nobody falls far behind the field's median since joining it.

Informative matchmaking seats uncertain bots and bots of close ratings; left alone it
would starve a bot whose rating is settled and far from the rest. The floor bounds that:
for every active bot, its matches since it joined the field are compared with the median,
over the bots in the field for that whole time, of their matches over the same time. A
bot whose count is below ``(1 - fraction) * median`` is behind, and the
matchmaker seats it before anybody else. The matchmaker sees a submission at its next draw and
counts a table's rotations when it draws it, so counted as each match is handed out a bot can be
up to two tables behind: ``own >= (1 - fraction) * median - 2 * largest table``, the bound
tests/tournament/test_ladder_matchmaking.py checks over simulated runs. A retirement can lift
a median at once; the bots it leaves behind sit first from the next table on.

Bots that join together share a window (its base: everybody's count when they joined),
and each window keeps the counts since its base sorted, so a seat costs one binary search
per window and the median is read off in constant time.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass, field
from typing import Iterable, Mapping


@dataclass
class Window:
    """The time since some bots (``members``) joined: the field's counts then, and the counts since."""

    base: dict[str, int]
    """Count of every bot in the field when the window opened (the population of its median)."""
    members: set[str]
    """The bots that joined when it opened: those whose floor it decides."""
    since: list[int] = field(default_factory=list)
    """Sorted matches since the base, one per bot of the population."""
    mine: list[int] = field(default_factory=list)
    """Sorted matches since the base, one per member: the smallest says at once if anybody is behind."""

    def bump(self, key: str, before: int) -> None:
        """A bot of the population with ``before`` matches since the base got one more (a sorted list
        stays sorted when its last ``before`` becomes ``before + 1``)."""
        for values in (self.since, self.mine) if key in self.members else (self.since,):
            values[bisect_right(values, before) - 1] += 1

    def drop(self, key: str, now: int) -> None:
        """A bot of the population with ``now`` matches since the base left the field."""
        for values in (self.since, self.mine) if key in self.members else (self.since,):
            del values[bisect_left(values, now)]
        self.members.discard(key)

    def median(self) -> float:
        count = len(self.since)
        return (self.since[(count - 1) // 2] + self.since[count // 2]) / 2 if count else 0.0


class Floor:
    """Matches handed out per bot, and who is behind the floor."""

    def __init__(self, fraction: float) -> None:
        if not 0 <= fraction < 1:
            raise ValueError(f"fairness floor must be in [0, 1), got {fraction!r}")
        self.fraction = fraction
        self.counts: Counter[str] = Counter()
        self.windows: list[Window] = []
        self.present: set[str] = set()

    def join(self, keys: Iterable[str], base: Mapping[str, int] | None = None) -> None:
        """``keys`` join the field together now (``base``: the field's counts when they joined, if that
        was earlier, as a resumed ladder reconstructs it; it must name the field of that time)."""
        new = set(keys) - self.present
        if not new:
            return
        self.present |= new
        start = {k: self.counts[k] if base is None else base.get(k, 0) for k in self.present}
        since = {k: self.counts[k] - v for k, v in start.items()}
        self.windows.append(Window(start, new, sorted(since.values()), sorted(since[k] for k in new)))

    def leave(self, key: str) -> None:
        """``key`` left the field (retired, replaced or unusable): it is no longer in anybody's median."""
        if key not in self.present:
            return
        self.present.discard(key)
        for window in self.windows:
            if key in window.base:
                window.drop(key, self.counts[key] - window.base.pop(key))
        self.windows = [w for w in self.windows if w.members]

    def seat(self, key: str, matches: int) -> None:
        """``key`` was handed ``matches`` more matches."""
        for _ in range(matches):
            for window in self.windows:
                if key in window.base:
                    window.bump(key, self.counts[key] - window.base[key])
            self.counts[key] += 1

    def behind(self) -> list[str]:
        """Active bots below the floor, the furthest behind first."""
        short: list[tuple[float, str]] = []
        for window in self.windows:
            line = (1 - self.fraction) * window.median()
            if window.mine[0] >= line:
                continue  # nobody of this window is behind: no need to look at each
            for key in window.members:
                own = self.counts[key] - window.base[key]
                if own < line:
                    short.append((own - line, key))
        return [key for _, key in sorted(short)]
