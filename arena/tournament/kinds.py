"""Schedule kinds by name, the one place that lists them, and the schedule a configuration names.

The config loader looks up the kind a file's ``schedule:`` names, and the driver the
kind of a loaded config; neither knows which kinds exist. A kind is a
:class:`.kind.ScheduleKind` in a module of its own; :func:`register` adds one (a
plug-in, or a test), and the order of registration is the order in which the
allowed values and keys are listed to the user.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..sandbox.backends import Backend
from .ladder import kind as ladder
from .schedules import round_robin, sampled
from .schedules.base import Schedule, ScheduledMatch
from .schedules.kind import Reading, ScheduleKind, TournamentConfig

if TYPE_CHECKING:
    from .store import ResultStore

_KINDS: dict[str, ScheduleKind] = {k.name: k for k in (round_robin.KIND, sampled.KIND, ladder.KIND)}

DEFAULT = round_robin.KIND.name
"""The kind of a file that gives no ``schedule``."""

NOT_YET: tuple[str, ...] = ()
"""Schedule names kept for schedules to come: refused with a message saying so, not as typos."""


def register(kind: ScheduleKind) -> None:
    """Make ``schedule: NAME`` choose ``kind``; a name already taken is refused."""
    if not kind.name or kind.name in _KINDS:
        raise ValueError(f"schedule kind {kind.name!r} is {'taken' if kind.name else 'unnamed'}")
    _KINDS[kind.name] = kind


def unregister(name: str) -> None:
    """Forget the kind registered as ``name`` (a test's, when it ends)."""
    _KINDS.pop(name, None)


def names() -> tuple[str, ...]:
    """The values ``schedule`` may take, the default first."""
    return tuple(_KINDS)


def kinds() -> tuple[ScheduleKind, ...]:
    """Every kind, in registration order."""
    return tuple(_KINDS.values())


def kind_of(name: str) -> ScheduleKind:
    """The kind registered as ``name``; KeyError for a name no kind has (a loaded config never has one)."""
    return _KINDS[name]


def schedule_for(config: TournamentConfig, backend: Backend | None = None) -> Schedule:
    """The schedule of ``config`` (whose master seed must be resolved), not yet told what is stored;
    one that builds its bots as they join builds them under ``backend`` (None: ``none``)."""
    return kind_of(config.schedule).build(config, backend)


def schedule_of(config: TournamentConfig) -> list[ScheduledMatch]:
    """Every match of ``config``'s schedule in index order (one known in advance), e.g. to replay one alone."""
    if config.seed is None:
        raise ValueError("the tournament has no master seed yet: resolve_seed() chooses one")
    return kind_of(config.schedule).matches(config)


def reading(store: ResultStore) -> Reading:
    """The one question a reader of ``store`` asks its kind: what its results are to it
    (:class:`.schedules.kind.Reading`). The kind is the one its stored configuration names; a store
    begun before ``schedule`` was stored, or with no run yet, is the default kind's, and so is one
    of a kind not registered here."""
    config = store.meta("config")
    name = config.get("schedule", DEFAULT) if isinstance(config, dict) else DEFAULT
    return _KINDS.get(str(name), _KINDS[DEFAULT]).reading(store.meta)
