"""What one seat may know: the only path from a match's hidden state to a bot.

:func:`observe` builds the protocol's ``state`` object and :func:`events_for` the
seat's own event stream; both read hidden cards only through the per-card
knowledge masks, so a card reaches a seat exactly when that seat has seen it.
"""

from __future__ import annotations

from typing import Any

from .events import project
from .state import CLAIM, LOOK_INITIAL, REY, Match


def observe(match: Match, seat: int) -> dict[str, Any]:
    """The protocol ``state`` object for ``seat``."""
    bit = 1 << seat
    codes, known = match.codes, match.known
    hands = [
        [None if card is None else (codes[card] if known[card] & bit else "?") for card in hand]
        for hand in match.hands
    ]
    mine = match.held is not None and match.to_move == seat and match.phase != CLAIM
    simultaneous = match.phase in (LOOK_INITIAL, CLAIM)
    state: dict[str, Any] = {
        "phase": match.phase,
        "round": match.round_no,
        "turn": match.turn,
        "seat": seat,
        "to_move": None if simultaneous or match.over else match.to_move,
        "starter": match.starter,
        "dealer": match.dealer,
        "hands": hands,
        "held": codes[match.held] if mine and match.held is not None else None,
        "held_from": match.held_from if mine else None,
        "discard": list(map(codes.__getitem__, match.discard)),
        "deck": len(match.deck),
        "cabo": match.cabo,
        "totals": list(match.totals),
        "reset_used": list(match.reset_used),
    }
    if match.phase == REY and match.looked is not None:
        state["looked"] = {"seat": match.looked[0], "slot": match.looked[1]}
    return state


def events_for(match: Match, seat: int, start: int = 0) -> list[dict[str, Any]]:
    """Events from index ``start`` on, as ``seat`` may see them."""
    return [project(event, seat) for event in match.events[start:]]
