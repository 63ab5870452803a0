"""The fixed policy that plays for a faulted seat, so the match goes on for the others.

It reads only the legal action list, never the state: it cannot leak anything and
always gives the same answer in the same situation.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

_PREFERENCE = ("pass", "draw", "take", "discard", "cabo")


def fallback_index(legal: Sequence[Mapping[str, Any]]) -> int:
    """Pass a claim, draw rather than take, discard what was drawn; else the first legal action."""
    kinds = [a["do"] for a in legal]
    for kind in _PREFERENCE:
        if kind in kinds:
            return kinds.index(kind)
    return 0
