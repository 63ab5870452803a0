"""Time limits too short for bots to keep: a warning before a run plays, and a run lost to the clock.

A limit a bot cannot keep forfeits its seat (``fault_policy: forfeit``) and the tournament rates
nothing but the clock; the run still ends normally. So a run says, before it plays, when a limit is
below what the bundled bots need (:func:`warnings`), and its command fails when every match it played
had a seat forfeited on time (:func:`lost_on_time`).
"""

from __future__ import annotations

from pathlib import Path

from ..match.faults import FaultKind
from ..match.link import TimeControl
from ..match.runner import MatchOutcome

MOVE_MS_NEEDED = 100
"""The least ``time.move_ms`` the bundled bots (``bots/*``) keep. Measured under the default sandbox
(``auto``, here ``bwrap``) with one worker per core, on 2 cores with a load average of 8 to 14: of
44,600 decisions of random, heuristic, js-greedy, c-random and known-p0/p50/p100, the median took
0.2 ms, the 99th percentile 10 ms, the 99.9th 20 ms and the slowest 57 ms (the scheduler, not the
bots: every one of them had moves over 20 ms). One late move forfeits a seat, so the limit must clear
the slowest move, not the typical one: of 182 matches of these bots, ``move_ms: 20`` still forfeited a
seat in 3, 10 in 11, 5 in 57 and 2 in 134. 100 ms is that slowest move with room to spare."""
STARTUP_MS_NEEDED = 1000
"""The least ``time.startup_ms`` the bundled bots keep: in the same measurement their start-ups (process,
sandbox and ``hello`` to ``ready``) took 60 to 180 ms at the median and up to 420 ms (js-greedy, node)."""
ON_TIME = frozenset({FaultKind.TIMEOUT, FaultKind.STARTUP})
"""Faults of a bot that ran out of time: to move, or to answer ``hello``."""


def warnings(time: TimeControl, source: Path) -> list[str]:
    """A line for each limit of ``time`` (from the file ``source``) below what the bundled bots need; a bank
    of at least that much covers the rare slow move."""
    lines = []
    if time.move_ms < MOVE_MS_NEEDED and (time.bank_ms or 0) < MOVE_MS_NEEDED:
        lines.append(_line(source, "move_ms", time.move_ms, MOVE_MS_NEEDED, " (or time.bank_ms to that)"))
    if time.startup_ms < STARTUP_MS_NEEDED:
        lines.append(_line(source, "startup_ms", time.startup_ms, STARTUP_MS_NEEDED))
    return lines


def _line(source: Path, key: str, value: int, needed: int, also: str = "") -> str:
    return (f"warning: {source.name}: time.{key} {value} is below the {needed} ms the bundled bots need on a busy "
            f"machine: expect seats forfeited on time; raise it to at least {needed}{also}")


def lost_on_time(outcome: MatchOutcome) -> bool:
    """A seat of the match was forfeited after it ran out of time."""
    return any(outcome.forfeited[fault.seat] for fault in outcome.faults if fault.kind in ON_TIME)
