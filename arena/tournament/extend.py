"""Extending a tournament: more ``cycles`` (or more sampled ``tables``) on an output directory that holds fewer.

Cycles are the outer loop of a round robin and of a sampled schedule, and a match's id
and deal seed name its cycle, never how many cycles there are: cycle ``c`` has the same
indices, ids and deals in a tournament of 3 cycles as in one of 6. So the stored matches
of a shorter tournament are exactly the first ones of the longer one, and a run with
``cycles`` raised keeps them and plays the rest, as a fresh run of the longer tournament
would have played them.

Raising a sampled schedule's ``tables`` draws every table again (the greedy draw and its
polish look at all tables at once): the longer draw often, not always, begins with the
shorter one, and in a tournament of several cycles the later cycles move to higher
indices anyway. So every stored and voided match is compared with the match at its index
in the longer schedule (id, deal seed, seating), and the extension is refused when one
differs. The same comparison guards raised cycles, where it cannot fail.

``cycles`` and ``tables`` stay in the fingerprint, so stores written before extending
existed need nothing new, and an arena without it refuses an extended store's old file
as it always did. Extending rewrites the stored fingerprint, configuration and ``total``
together, as if the longer tournament had been run from the start. Lowering is refused: the
stored matches beyond the shorter schedule, and the results published from them, would
belong to no tournament.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .schedules.base import ScheduledMatch
from .store import ResultStore, StoreMismatch

EXTENDABLE = ("cycles", "tables")
"""Fingerprinted settings that may be raised on a stored tournament (``tables`` only under ``sampled``)."""


@dataclass(frozen=True)
class Extension:
    """A stored tournament that the configuration extends, checked and not yet written."""

    before: str
    """The stored fingerprint, which the configuration's replaces."""
    fingerprint: str
    """The configuration's fingerprint."""
    described: dict[str, Any]
    """The configuration's :meth:`~.config.TournamentConfig.describe`."""
    total: int
    """Matches of the longer schedule."""
    raised: dict[str, tuple[int, int]]
    """Each raised setting: stored value, new value."""
    was: int | None
    """The stored ``total``."""

    def note(self, name: str, kept: int) -> str:
        """The line a run prints when it extends the tournament."""
        changes = ", ".join(f"{key} {old} -> {new}" for key, old, new in
                            ((k, *v) for k, v in self.raised.items()))
        size = f"{self.was} -> {self.total}" if self.was is not None else f"now {self.total}"
        return (f"tournament {name}: extended ({changes}; {size} matches); the {kept} stored match(es) are the "
                "first ones of the longer schedule and are kept")


def extension(store: ResultStore, fingerprint: str, described: dict[str, Any],
              matches: Sequence[ScheduledMatch]) -> Extension | None:
    """The extension of the stored tournament to ``described`` (whose schedule is ``matches``), or None when
    there is none to make: a new store, the same fingerprint, or other settings changed too (the claim refuses
    those, listing them). Raises :class:`StoreMismatch` with one line when a setting of :data:`EXTENDABLE` was
    lowered, or when a stored match is not the match at its index in the longer schedule."""
    before = store.meta("fingerprint")
    stored = store.meta("config")
    if before is None or before == fingerprint or not isinstance(stored, dict):
        return None
    changed = [key for key in sorted(set(stored) | set(described)) if stored.get(key) != described.get(key)]
    if not changed or any(key not in EXTENDABLE for key in changed):
        return None
    if not all(_is_int(stored.get(key)) and _is_int(described.get(key)) for key in changed):
        return None  # e.g. a schedule without tables: the claim lists what changed
    for key in changed:
        old, new = stored[key], described[key]
        if new < old:
            raise StoreMismatch(
                f"{key}: stored {old}, now {new}: a tournament can be extended, not shortened (its stored matches "
                f"and published results belong to {key}: {old}); give {key}: {old} or more, or choose another "
                "output directory")
    moved = _first_moved(store, matches)
    if moved:
        raised = ", ".join(f"{key}: {stored[key]} -> {described[key]}" for key in changed)
        hint = (f"keep tables: {stored['tables']} (raise cycles to play more), or choose another output directory"
                if "tables" in changed else "run with the stored configuration, or choose another output directory")
        raise StoreMismatch(f"{raised}: the longer schedule does not begin with the stored matches ({moved}), so "
                            f"they would not be its results; {hint}")
    total = store.meta("total")
    return Extension(before, fingerprint, described, len(matches),
                     {key: (stored[key], described[key]) for key in changed},
                     total if _is_int(total) else None)


def _first_moved(store: ResultStore, matches: Sequence[ScheduledMatch]) -> str:
    """How the first stored or voided match that is not the match at its index in ``matches`` differs, or ""."""
    for index, match_id, seed, seating in store.deals():  # damage: one line, not a traceback
        there = matches[index] if 0 <= index < len(matches) else None
        if there is None:
            return f"match {index}, {match_id}, is beyond its {len(matches)} matches"
        if (there.match_id, there.seed) != (match_id, seed) or list(there.bots) != seating:
            same = there.match_id == match_id
            return (f"match {index} is {there.match_id} in it, stored as {match_id}" if not same else
                    f"match {index}, {match_id}, has another deal or seating in it")
    return ""


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
