"""Where a tournament's matches are played: local worker processes, or an executor registered by name.

The tournament package plays on local worker processes (:func:`.pool.run_jobs`) by itself and
knows any other executor only through this registry, so it imports nothing of the packages that
provide one: :mod:`arena.cluster` registers ``dask`` when it is imported (``arena run`` imports
it), and only that package imports this one. An address is checked here, without the executor,
so a tournament file is validated the same whether or not the executor is installed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Protocol

from ..bounds import MAX_WORKERS
from .pool import Batch, PoolFailure, Results

Executor = Callable[[Iterable[Batch], int], Results]
"""Where matches are played: batches of ``(index, job)`` and a number of workers in, every match's result
out (:func:`.pool.run_jobs` says what it must do). Two of them: :func:`.pool.run_jobs` (worker processes
here) and :class:`arena.cluster.dask_executor.DaskExecutor` (a Dask cluster), registered as ``dask``."""

DASK = "dask"
"""The name the Dask executor is registered under (the ``executor: {dask: ADDRESS}`` key, ``--dask``)."""
LOCAL = "local:"
"""``local:N``: a LocalCluster of N worker processes on this machine, for trying it out."""


class Remote(Protocol):
    """An executor playing somewhere else: an :data:`Executor` that says where, for the first line of a run."""

    def __call__(self, batches: Iterable[Batch], workers: int) -> Results: ...

    def describe(self) -> str: ...


@dataclass(frozen=True)
class Registered:
    """What a run needs from an executor package: ``require`` raises :class:`PoolFailure` (saying what to
    install) when it cannot be used here; ``make(address, sandbox, say)`` makes the executor."""

    require: Callable[[], object]
    make: Callable[[str, str, Callable[[str], None]], Remote]


_registry: dict[str, Registered] = {}


def register(name: str, entry: Registered) -> None:
    """Make ``name`` an executor a run can choose (a later registration of the same name replaces it)."""
    _registry[name] = entry


def registered(name: str) -> Registered:
    """The executor registered as ``name``; :class:`PoolFailure` if its package was never imported."""
    try:
        return _registry[name]
    except KeyError:
        raise PoolFailure(f"no {name} executor is registered (arena.cluster registers it when imported)") from None


def parse_address(address: str) -> str:
    """Check an executor address: ``tcp://HOST:PORT`` (any Dask address) or ``local:N``."""
    if address.startswith(LOCAL):
        count = address[len(LOCAL):]
        if not (count.isascii() and count.isdigit() and 1 <= int(count) <= MAX_WORKERS):
            raise ValueError(f"{address!r}: expected local:N with N a number of worker processes from 1 to "
                             f"{MAX_WORKERS}")
    elif "://" not in address and ":" not in address:
        raise ValueError(f"{address!r}: expected a Dask scheduler address such as tcp://10.0.0.5:8786, or local:N")
    return address
