"""Executors: where a tournament's matches are played, behind one protocol and a registry of names.

The driver hands an executor batches of ``(index, job)`` and iterates what comes back
(:class:`Done`, :class:`Voided`, :class:`WorkerLost`; :class:`PoolFailure` when nothing can be
played), then closes it. It imports only this package's protocol (:mod:`.base`), result types
(:mod:`.results`) and registry (:mod:`.registry`); how and where matches are played stays in the
executor's own module. What a worker death costs is decided once, by :class:`.ledger.DeathLedger`,
for every executor.

* :mod:`.local` and :mod:`.worker`: worker processes on this machine (``executor: local``, the default);
* :mod:`arena.cluster.dask_executor`: a Dask cluster (``executor: {dask: ADDRESS}``, ``--dask``), kept
  in :mod:`arena.cluster` because it needs Dask; that package registers it when imported.

Adding an executor is one module and one registry entry. The module has a callable that takes
``(batches, workers)`` and returns an :class:`Executor` (a generator function will do), with a
``describe(workers)`` for the first line of a run (:class:`.base.Start`); it applies the
:class:`.ledger.DeathLedger` when a worker dies. The entry is
``register(NAME, Registered(require, make, parse))``, in the module's package on import (as
:mod:`arena.cluster` does) or in :data:`.registry._registry`; a tournament file then chooses it with
``executor: {NAME: ADDRESS}``, and nothing in :mod:`arena.tournament` changes.
"""

from __future__ import annotations

from .base import Executor, Start
from .ledger import DEATHS_TO_VOID, DeathLedger, death_reason
from .registry import (DASK, LOCAL, PROCESSES, Choice, Registered, choose, names, parse_address, register,
                       registered)
from .results import Batch, Done, Play, PoolFailure, Result, Started, Voided, WorkerLost

__all__ = ["Batch", "Choice", "DASK", "DEATHS_TO_VOID", "DeathLedger", "Done", "Executor", "LOCAL", "PROCESSES",
           "Play", "PoolFailure", "Registered", "Result", "Start", "Started", "Voided", "WorkerLost", "choose",
           "death_reason", "names", "parse_address", "register", "registered"]
