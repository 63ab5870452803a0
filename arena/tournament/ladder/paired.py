"""The ladder board's paired view of a new version: ``NAME@vK against NAME@v(K-1) on the same N tables``.

A new version's first tables replay its previous version's (:mod:`.tables`): the same deal,
seats and opponents. At each such table the two versions' mean places over the same
rotations differ by the version alone, give or take how the bots' own choices happen to fall,
so the mean of those differences over the tables estimates how many places per match the new
version gains, with much less of the deal's luck in it than two unpaired records would carry
(docs/bots.md "Is my new version better?"). The interval is Student's t over the tables, each
table one observation: its rotations share a deal and are not independent of each other.

It is an estimate with an interval, not a verdict: ``arena compare`` plays until it can
say better or worse at stated error rates. Computed from the stored matches alone (a pure
function of the store), so the run, ``arena leaderboard`` and a later reader agree.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence

from ..leaderboard import rounded
from ..store.ladder import LadderStore
from .tables import StoredTable, group

T_975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131,
         2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)
"""Student's t 0.975 quantile for 1 to 30 degrees of freedom; above 30 the normal's 1.96 is within 4%."""

NOTE = ("places per match: the old version's mean place minus the new one's over the same rotations of the same "
        "deals (positive: the new version placed better), [95% interval across tables]; an estimate, not a verdict "
        "(arena compare gives one)")
"""Under the lines, wherever they are shown."""


def t_quantile(freedom: int) -> float:
    """The 0.975 quantile of Student's t with ``freedom`` (>= 1) degrees of freedom, 1.96 above 30."""
    return T_975[freedom - 1] if freedom <= len(T_975) else 1.96


@dataclass(frozen=True)
class Paired:
    """One new version against its previous one on the tables it replayed."""

    name: str
    new: str
    """``NAME@vK``."""
    old: str
    """``NAME@v(K-1)``."""
    tables: int
    """Replayed tables with at least one rotation stored in both."""
    matches: int
    """Rotations counted: stored both in the original and in the replay."""
    mean: float
    """Mean over the tables of (old mean place - new mean place): positive, the new version placed better."""
    low: float | None
    """95% interval across tables (None with one table)."""
    high: float | None

    def line(self) -> str:
        """``NAME@vK against NAME@v(K-1) on the same N tables (M matches): NAME@vK gains +x places per match
        [lo, hi] (old minus new; ...)``: the sign said in the line, as ``arena compare`` says it."""
        tables = f"{self.tables} table{'s' if self.tables != 1 else ''}"
        matches = f"{self.matches} match{'es' if self.matches != 1 else ''}"
        interval = ("(one table: no interval)" if self.low is None or self.high is None
                    else f"[{_signed(self.low)}, {_signed(self.high)}]")
        return f"{self.new} against {self.old} on the same {tables} ({matches}): {self.new} gains " \
               f"{_signed(self.mean)} places per match {interval} (old minus new; positive: the new version better)"

    def to_json(self) -> dict[str, Any]:
        """The fields of ``ladder.json``'s ``paired``, floats rounded to 3 decimals."""
        return {"name": self.name, "new": self.new, "old": self.old, "tables": self.tables, "matches": self.matches,
                "mean": rounded(self.mean), "low": rounded(self.low), "high": rounded(self.high)}


def _signed(value: float) -> str:
    """``+0.25``, ``-1.50``; never ``-0.00``."""
    return f"{round(value, 2) + 0.0:+.2f}"


def difference(original: StoredTable, replay: StoredTable) -> tuple[str, str, float, int] | None:
    """``(old, new, old mean place - new mean place, rotations)`` of one replay against its original, over
    the rotations both have stored as played; None when there is none, or the two do not differ in
    exactly one player."""
    changed = [(a, b) for a, b in zip(original.players, replay.players) if a != b]
    if len(changed) != 1 or len(original.players) != len(replay.players):
        return None
    old, new = changed[0]
    before, after = [], []
    for rotation in sorted(set(original.places) & set(replay.places)):
        if old not in original.seats[rotation] or new not in replay.seats[rotation]:
            continue
        before.append(original.places[rotation][original.seats[rotation].index(old)])
        after.append(replay.places[rotation][replay.seats[rotation].index(new)])
    if not before:
        return None
    return old, new, sum(before) / len(before) - sum(after) / len(after), len(before)


def summary(name: str, new: str, old: str, differences: Sequence[tuple[float, int]]) -> Paired:
    """The line of ``new`` against ``old`` from each table's difference and rotations counted."""
    values = [d for d, _ in differences]
    n = len(values)
    mean = sum(values) / n
    low = high = None
    if n > 1:
        spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
        half = t_quantile(n - 1) * spread / math.sqrt(n)
        low, high = mean - half, mean + half
    return Paired(name, new, old, n, sum(m for _, m in differences), mean, low, high)


def read(store: LadderStore) -> list[Paired]:
    """Every new version's line, by name then version, from the stored matches of ``store`` (none in a store
    without replays, or no ladder's)."""
    replays = [t for t in group(store.table_rows(replays=True)).values() if t.source is not None]
    if not replays:
        return []
    originals = {t.first: t for t in group(store.table_rows(firsts=sorted({t.source for t in replays
                                                                           if t.source is not None}))).values()}
    found: dict[tuple[str, str], list[tuple[float, int]]] = {}
    for replay in sorted(replays, key=lambda t: t.first):
        original = originals.get(replay.source) if replay.source is not None else None
        counted = None if original is None else difference(original, replay)
        if counted is not None:
            old, new, value, rotations = counted
            found.setdefault((new, old), []).append((value, rotations))
    out = [summary(new.rpartition("@v")[0], new, old, values) for (new, old), values in found.items()]
    return sorted(out, key=lambda p: (p.name, _version(p.new)))


def _version(key: str) -> int:
    version = key.rpartition("@v")[2]
    return int(version) if version.isdigit() else 0


def lines(paired: Sequence[Paired]) -> list[str]:
    """The lines under a board (none without replays), then what they mean, after an empty line."""
    return ["", *(p.line() for p in paired), NOTE] if paired else []
