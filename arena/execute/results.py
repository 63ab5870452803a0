"""What an executor hands in and gives back: batches of jobs in, one result per match out.

These are the only shapes the driver sees of where matches are played, so an executor
(local processes, a Dask cluster, a test's in-process fake) is known by them alone.
Every match index ends up exactly once in a :class:`Done` or a :class:`Voided`;
:class:`WorkerLost` reports a death in between.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generator, Sequence

from ..match.runner import MatchJob, MatchOutcome

__all__ = ["Batch", "Done", "Play", "PoolFailure", "Result", "Started", "Voided", "WorkerLost"]


Batch = Sequence[tuple[int, MatchJob]]
"""Schedule indices and jobs that share bot processes (see :func:`arena.match.runner.play_batch`)."""

Play = Callable[[Sequence[MatchJob]], Generator[MatchOutcome, None, None]]
"""Plays jobs in order, one outcome each: :func:`arena.match.runner.play_batch` (tests pass fakes)."""


@dataclass(frozen=True)
class Started:
    """A worker is about to play this match: if it dies now, this match was in play."""

    index: int
    """Schedule index of the match."""


@dataclass(frozen=True)
class Done:
    """One match played (or failed inside the arena)."""

    index: int
    """Schedule index of the job."""
    outcome: MatchOutcome | None
    """The outcome, or None if the arena itself failed on this match."""
    error: str = ""
    """Traceback of an arena failure (never a bot's fault: those are in the outcome)."""


@dataclass(frozen=True)
class Voided:
    """A match that killed its worker :data:`arena.execute.ledger.DEATHS_TO_VOID` times: not played again,
    never rated (the driver stores it as voided, with ``reason``)."""

    index: int
    """Position in the schedule."""
    match_id: str
    """Stable id, unique in the tournament."""
    bots: tuple[str, ...]
    """Bot name per seat."""
    reason: str
    """Why it was voided, e.g. ``killed its worker process twice, SIGKILL each time``."""


@dataclass(frozen=True)
class WorkerLost:
    """A worker died; a fresh one takes over what it held."""

    pid: int
    """The dead worker's process id (0 where it is not known)."""
    cause: str
    """How it ended: a signal name (``SIGKILL``), ``exit status N``, or ``Dask worker ADDRESS lost``."""
    playing: str | None
    """Id of the match that was in play, if any."""
    replayed: int
    """Matches of its batch that will be played again (a match voided now is not among them)."""
    voided: bool = False
    """True if the match in play is voided now (a :class:`Voided` follows)."""


Result = Done | Voided | WorkerLost
"""One item of what an executor gives back."""


class PoolFailure(RuntimeError):
    """Matches cannot be played at all (workers keep dying without playing, none can be started, the
    cluster is gone, the executor is not installed); the message says which, in one line."""
