"""What the cards gave each seat, card by card, beside an omniscient replay's account (``arena replay --luck``).

The luck is not stored per card: the match is rebuilt from its replay with the referee's meter watching
(:mod:`arena.luck`), which gives the same terms the worker measured, since every card follows from the seed.
Only the omniscient account shows it: a term reads the whole state (every hand and the deck), so a seat's
view never does.
"""

from __future__ import annotations

from typing import Any, Iterable, Iterator

from ..game.chance import DEAL, DRAW, FLIP, PENALTY
from ..luck import model_label
from ..luck.meter import LuckEvent, Meter
from ..luck.replayed import LuckReplayError, measured

__all__ = ["LuckLines", "LuckReplayError", "measured"]


def _points(value: float) -> str:
    """A term as an account says it: fewer points is better in Cabo."""
    if abs(value) < 0.05:
        return "as expected"
    return f"{abs(value):.1f} points {'worse' if value > 0 else 'better'} than expected"


def _seats(terms: Iterable[float], names: list[str], skip: int | None = None) -> str:
    return ", ".join(f"{names[s]}@{s} {t:+.1f}" for s, t in enumerate(terms) if s != skip and abs(t) >= 0.05)


class LuckLines:
    """The meter's events in replay order, handed out as the account meets the records they belong to: a
    round's dealt cards at its ``round_start``, a drawn card at its ``draw``, a penalty card at its
    ``penalty``, the match's sums at its result."""

    def __init__(self, meter: Meter, names: list[str]) -> None:
        self.meter = meter
        self.names = names
        self._events: Iterator[LuckEvent] = iter(meter.events)
        self._next: LuckEvent | None = next(self._events, None)

    def _take(self, kinds: tuple[str, ...], most: int | None = None) -> list[LuckEvent]:
        """The next events while they are of ``kinds`` (at ``most`` that many)."""
        taken: list[LuckEvent] = []
        while self._next is not None and self._next.kind in kinds and (most is None or len(taken) < most):
            taken.append(self._next)
            self._next = next(self._events, None)
        return taken

    def at(self, record: dict[str, Any]) -> list[str]:
        """The luck lines that follow ``record`` in the account."""
        kind = record["type"]
        if kind == "round_start":
            dealt = self._take((DEAL, FLIP))
            sums = [sum(e.terms[s] for e in dealt) for s in range(len(self.names))]
            return [f"    luck of the deal, per seat (+: more points than the expected cards, worse): "
                    + ", ".join(f"{self.names[s]}@{s} {v:+.1f}" for s, v in enumerate(sums))]
        if kind in ("draw", "penalty"):
            taken = self._take((DRAW if kind == "draw" else PENALTY,), most=1)
            if not taken:
                return []
            event = taken[0]
            what = "drew" if kind == "draw" else "was given as a penalty"
            others = _seats(event.terms, self.names, event.seat)
            return [f"    luck: {self.names[event.seat]}@{event.seat} {what} {event.card}: "
                    f"{_points(event.terms[event.seat])}" + (f" (and so: {others})" if others else "")]
        if kind == "result":
            return [f"luck over the match (points over the expected cards, +: worse; value function "
                    f"{model_label(self.meter.model)}): "
                    + ", ".join(f"{self.names[s]}@{s} {v:+.1f}" for s, v in enumerate(self.meter.luck))]
        return []
