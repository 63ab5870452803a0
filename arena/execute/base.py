"""The two faces of an executor: what a run starts (:class:`Start`) and what it iterates (:class:`Executor`).

The driver iterates the results and then calls ``close()`` however the run ended (a Ctrl-C,
``--hours``, a :class:`.results.PoolFailure`), which stops what is still in play and kills its bots;
the type says so, so a checker catches an executor that could not be stopped. A generator
function is the usual way to write one: a generator is an :class:`Executor` as it stands.
"""

from __future__ import annotations

from typing import Iterable, Iterator, Protocol

from .results import Batch, Result

__all__ = ["Executor", "Start"]


class Executor(Protocol):
    """Every match's result as it comes; ``close()`` stops whatever is still in play."""

    def __iter__(self) -> Iterator[Result]: ...

    def close(self) -> None: ...


class Start(Protocol):
    """An executor ready for a run, as a registry entry makes it (:mod:`.registry`)."""

    def __call__(self, batches: Iterable[Batch], workers: int) -> Executor:
        """Play ``batches`` of ``(index, job)`` on ``workers`` (a hint an executor may ignore), taking a
        batch only when it can start it; an empty batch means the source has nothing ready yet (ask again
        after the next result, or a moment later), the end of ``batches`` ends the run."""
        ...

    def describe(self, workers: int) -> str:
        """Where it plays, for the first line of a run (``2 worker(s)``, ``Dask at tcp://...``)."""
        ...
