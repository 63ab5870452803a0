"""Playing a tournament's matches on other machines: bots travel as content-addressed archives.

:mod:`.archive` packs a bot version into bytes named by its digest and unpacks it once per
machine; :mod:`.portable` turns a :class:`arena.match.runner.MatchJob` into one that names bots by
version and carries no host path, and plays it on a worker; :mod:`.dask_executor` runs the
driver's batches on a Dask distributed cluster (``pip install 'cabo-arena[dask]'``).

Importing this package registers the Dask executor as ``dask`` with :mod:`arena.execute.registry`,
which is how a run finds it: neither the tournament nor the execute package imports this one.
"""

from __future__ import annotations

from typing import Callable

from ..execute import DASK, Registered, Start, parse_address, register


def _require() -> object:
    from .dask_executor import require_dask
    return require_dask()


def _make(address: str, sandbox: str, say: Callable[[str], None]) -> Start:
    from .dask_executor import DaskExecutor
    return DaskExecutor(address, sandbox, say)


register(DASK, Registered(_require, _make, parse_address, remote=True))  # its workers build and sandbox there
