"""Events with per-seat visibility.

An event is stored once, omnisciently: public fields plus card fields that carry the
set of seats allowed to see them. :func:`project` is the only way an event reaches a
seat, and :func:`omniscient` writes the replay form that says who saw what.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Event:
    """One thing that happened, as the engine knows it."""

    public: dict[str, Any]
    """Fields every seat sees (always ``type`` and ``seat``)."""
    private: tuple[tuple[str, Any, int], ...] = ()
    """``(field, value, seen_mask)``: the field is shown to seat s iff bit s is set."""

    @property
    def type(self) -> str:
        return str(self.public["type"])


def project(event: Event, seat: int) -> dict[str, Any]:
    """The event as ``seat`` may see it."""
    out = dict(event.public)
    bit = 1 << seat
    for name, value, mask in event.private:
        if mask & bit:
            out[name] = value
    return out


def omniscient(event: Event, players: int) -> dict[str, Any]:
    """The full event plus ``seen``: for each private field, the seats that saw it."""
    out = dict(event.public)
    if event.private:
        seen = {}
        for name, value, mask in event.private:
            out[name] = value
            seen[name] = [s for s in range(players) if mask >> s & 1]
        out["seen"] = seen
    return out
