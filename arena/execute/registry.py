"""Where a tournament's matches are played, by name: ``local`` worker processes, ``dask``, or any executor registered.

The driver knows an executor only through this registry (a name, an address, an entry that makes
it), so it imports nothing of the packages that provide one: :mod:`arena.cluster` registers ``dask``
when it is imported (``arena run`` imports it), and only that package imports the Dask code. A
file's ``executor: {NAME: ADDRESS}`` is checked here, without the executor: ``dask`` is declared
with its address check below, so a tournament file is validated the same whether or not Dask is
installed or :mod:`arena.cluster` imported.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Protocol

from ..bounds import MAX_WORKERS
from .base import Start
from .results import PoolFailure

__all__ = ["Choice", "DASK", "LOCAL", "PROCESSES", "Registered", "choose", "names", "parse_address", "register",
           "registered"]

PROCESSES = "local"
"""The name of the executor on local worker processes (:mod:`.local`): a file's ``executor: local``, or none."""
DASK = "dask"
"""The name the Dask executor is registered under (the ``executor: {dask: ADDRESS}`` key, ``--dask``)."""
LOCAL = "local:"
"""``local:N``: a Dask LocalCluster of N worker processes on this machine, for trying it out."""


class Make(Protocol):
    def __call__(self, address: str, sandbox: str, say: Callable[[str], None]) -> Start: ...


@dataclass(frozen=True)
class Registered:
    """What a run needs from an executor: ``require`` raises :class:`PoolFailure` (saying what to install)
    when it cannot be used here; ``make(address, sandbox, say)`` makes it for a run (``say`` takes lines for
    the user, such as a worker refused); ``parse(address)`` returns the address as stored, or raises
    ValueError saying what would be right; ``remote``: its matches are played on other machines, whose
    workers build the bots and resolve the file's sandbox themselves (``make`` gets the file's sandbox as
    written), where a local one's bots are built here and ``make`` gets the sandbox resolved here."""

    require: Callable[[], object]
    make: Make
    parse: Callable[[str], str] = str
    remote: bool = False


@dataclass(frozen=True)
class Choice:
    """The executor a run plays on: a registered name and the address it was given."""

    name: str
    address: str


def _local(address: str, sandbox: str, say: Callable[[str], None]) -> Start:
    from .local import LocalStart
    return LocalStart()


def parse_address(address: str) -> str:
    """Check a Dask address: ``tcp://HOST:PORT`` (any Dask address) or ``local:N``."""
    if address.startswith(LOCAL):
        count = address[len(LOCAL):]
        if not (count.isascii() and count.isdigit() and 1 <= int(count) <= MAX_WORKERS):
            raise ValueError(f"{address!r}: expected local:N with N a number of worker processes from 1 to "
                             f"{MAX_WORKERS}")
    elif "://" not in address and ":" not in address:
        raise ValueError(f"{address!r}: expected a Dask scheduler address such as tcp://10.0.0.5:8786, or local:N")
    return address


_registry: dict[str, Registered] = {PROCESSES: Registered(lambda: None, _local)}

_declared: dict[str, Callable[[str], str]] = {DASK: parse_address}
"""Executors a package registers when it is imported, named here with their address check so that a file
naming one is checked before (or without) that import."""


def register(name: str, entry: Registered) -> None:
    """Make ``name`` an executor a run can choose (a later registration of the same name replaces it)."""
    _registry[name] = entry


def registered(name: str) -> Registered:
    """The executor registered as ``name``; :class:`PoolFailure` if its package was never imported."""
    try:
        return _registry[name]
    except KeyError:
        where = " (arena.cluster registers it when imported)" if name == DASK else ""
        raise PoolFailure(f"no {name} executor is registered{where}") from None


def names() -> list[str]:
    """Every executor a file may name as ``executor: {NAME: ADDRESS}`` (``local`` takes no address)."""
    return sorted((set(_registry) | set(_declared)) - {PROCESSES})


def choose(name: str, address: str) -> Choice:
    """The executor ``name`` at ``address``; ValueError, saying what would be right, for an unknown name or
    an address the executor refuses."""
    entry = _registry.get(name)
    parse = entry.parse if entry is not None else _declared.get(name)
    if parse is None:
        raise ValueError(f"unknown executor {name!r}; expected one of: {', '.join([PROCESSES, *names()])}")
    return Choice(name, parse(address))
