"""The fixed policy that plays for a faulted seat, so the match goes on for the others.

The policy is the game's (:meth:`arena.game.seam.Game.fallback`): it reads only the legal
action list, never the state, so it cannot leak anything and always gives the same answer
in the same situation. Cabo's passes a claim, draws rather than takes and discards what was
drawn.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..game.registry import DEFAULT_GAME, game_named


def fallback_index(legal: Sequence[Mapping[str, Any]], game: str = DEFAULT_GAME) -> int:
    """The index into ``legal`` that ``game``'s fallback policy plays."""
    return game_named(game).fallback(legal)
