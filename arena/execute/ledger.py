"""Who killed its worker: the one policy every executor applies when a worker dies with a batch in hand.

A worker can die of anything: a bot that kills its parent, the OOM killer, ``kill -9``, a lost
machine. Only the match that was in play can be to blame, and only if it does it again: so it is
played again *alone*, on fresh processes, and a second death with it in play pins it and *voids*
it (reported, never rated) instead of letting it take down worker after worker. The matches of the
batch that had not started are not suspects: they go back together (they keep sharing bot
processes). A result that came back is never played again; the executor hands in only what is
still pending.

Kept in one class so that the local pool and the Dask executor cannot drift apart: a match voided
here is voided there, with the same reason.
"""

from __future__ import annotations

from collections import deque
from typing import Sequence

from ..match.runner import MatchJob
from .results import Voided, WorkerLost

__all__ = ["DEATHS_TO_VOID", "DeathLedger", "death_reason"]

DEATHS_TO_VOID = 2
"""Worker deaths with a match in play after which the match is voided instead of played again."""


class DeathLedger:
    """The deaths each match was in play for, and the batches to play again before anything new."""

    def __init__(self) -> None:
        self.again: deque[list[tuple[int, MatchJob]]] = deque()
        """Batches to play before taking new ones from the source (an executor may put back a batch
        that was never started, too: ``again.appendleft(batch)``)."""
        self.causes: dict[int, list[str]] = {}
        """Match index -> how each worker that died with it in play ended."""

    def died(self, pid: int, cause: str, pending: Sequence[tuple[int, MatchJob]],
             playing: int | None) -> list[WorkerLost | Voided]:
        """A worker died holding ``pending`` (its batch's matches not come back, in playing order) with
        ``playing`` in play (None: between matches). Queues what is played again (the match in play
        alone, unless voided now, then the rest together) and returns what to report: a
        :class:`WorkerLost`, then the :class:`Voided` if the match in play is voided now."""
        rest = []
        voided = None
        for index, job in pending:
            if index != playing:
                rest.append((index, job))
                continue
            causes = self.causes.setdefault(index, [])
            causes.append(cause)
            if len(causes) >= DEATHS_TO_VOID:
                voided = Voided(index, job.match_id, tuple(b.name for b in job.bots), death_reason(causes))
            else:
                self.again.append([(index, job)])  # alone: a second death pins this very match
        if rest:
            self.again.append(rest)
        in_play = next((job.match_id for index, job in pending if index == playing), None)
        lost = WorkerLost(pid, cause, in_play, len(pending) - (voided is not None), voided is not None)
        return [lost] if voided is None else [lost, voided]

    def take(self) -> list[tuple[int, MatchJob]] | None:
        """The next batch to play again, or None."""
        return self.again.popleft() if self.again else None


def death_reason(causes: list[str]) -> str:
    """Why a match is voided, from the causes of its worker deaths."""
    times = "twice" if len(causes) == 2 else f"{len(causes)} times"
    how = f"{causes[0]} each time" if len(set(causes)) == 1 else " then ".join(causes)
    return f"killed its worker process {times}, {how}"
