"""A seat's ``act`` message as numbers: a fixed-size vector and a mask of the legal actions.

Made from the message alone (what the seat was sent, never the match), so it can hold nothing the
seat may not know. Seats are written from the seat's own point of view: relative seat 0 is itself,
1 the next clockwise, and so on, padded to :data:`MAX_PLAYERS`. Cards are written as their value under
the match's rules (the ``values`` of ``hello``) over the largest value, so both presets share a
layout. :func:`layout` names every entry.

An action is the protocol's own: an index into the message's ``legal`` list. The mask has
:func:`action_count` entries, the longest list a seat can be offered while every hand has at most
``max_slots`` slots; a longer one (a hand grown past ``max_slots`` by penalty cards) is offered its
first entries only, and :func:`mask` says how many it left out. The vector has ``max_slots`` slots a
seat too: a hand's slots past them (penalty cards added to a hand with no empty slot) are left out of it,
never out of the message. In 24,883 decisions of random play at 4 and 5 seats no legal list was cut,
though hands reached 16 slots (most of them empty: claims empty slots, and penalties fill them first).
"""

from __future__ import annotations

from math import comb
from typing import Any, Mapping

import numpy as np

from ..game.rules import HAND_SIZE
from .checks import act_message, integer, shown

__all__ = ["MAX_PLAYERS", "MAX_SLOTS", "MIN_SLOTS", "PHASES", "action_count", "encode", "layout", "mask",
           "players_of", "slots_of"]

MAX_PLAYERS = 5
MIN_SLOTS = HAND_SIZE
"""Smallest ``max_slots``: the slots a hand is dealt (fewer would cut every hand from the first look)."""
MAX_SLOTS = 64
"""Largest ``max_slots``: more slots than a deck has cards are never filled, and the mask grows with the
square of them (2.7 million entries at 5 seats and 64 slots)."""
PHASES = ("look_initial", "turn", "drawn", "rey", "claim", "over")
_SLOT = ("occupied", "known", "value")


def slots_of(max_slots: Any) -> int:
    """``max_slots`` checked: an int from :data:`MIN_SLOTS` to :data:`MAX_SLOTS`."""
    return integer("max_slots", max_slots, MIN_SLOTS, MAX_SLOTS)


def players_of(players: Any) -> int:
    """``players`` checked: an int from 2 to :data:`MAX_PLAYERS`, the seats the vector has room for."""
    return integer("players", players, 2, MAX_PLAYERS)


def layout(max_slots: int) -> list[str]:
    """The name of each entry of :func:`encode`'s vector, in order."""
    max_slots = slots_of(max_slots)
    names = [f"phase={phase}" for phase in PHASES]
    names += [f"players={n}" for n in range(2, MAX_PLAYERS + 1)]
    for rel in range(MAX_PLAYERS):
        names += [f"seat+{rel}.slot{slot}.{part}" for slot in range(max_slots) for part in _SLOT]
        names += [f"seat+{rel}.total", f"seat+{rel}.reset_used", f"seat+{rel}.to_move", f"seat+{rel}.cabo",
                  f"seat+{rel}.dealer", f"seat+{rel}.starter", f"seat+{rel}.looked"]
    names += ["held", "held.value", "held_from=deck", "held_from=discard", "discard", "discard.value",
              "discard.size", "deck.size", "round", "turn", "looked.slot"]
    return names


def encode(message: Mapping[str, Any], values: Mapping[str, int], players: int, max_slots: int) -> np.ndarray:
    """The vector of ``message`` (an ``act``), ``values`` the card values of ``hello``, as float32 in [-1, 1]."""
    state, players, max_slots = _checked(message, values, players, max_slots)
    me = int(state["seat"])
    top = max(1, max(abs(v) for v in values.values()))
    cards = sum(1 for _ in values) or 52
    out = np.zeros(len(layout(max_slots)), dtype=np.float32)
    at = 0

    def put(index: int, value: float) -> None:
        out[at + index] = value

    put(PHASES.index(state["phase"]) if state["phase"] in PHASES else 0, 1.0)
    at += len(PHASES)
    put(players - 2, 1.0)
    at += MAX_PLAYERS - 1
    looked = state.get("looked") or {}
    per_seat = max_slots * len(_SLOT) + 7
    for rel in range(MAX_PLAYERS):
        if rel < players:
            seat = (me + rel) % players
            for slot, card in enumerate(state["hands"][seat][:max_slots]):
                if card is None:
                    continue
                put(slot * 3, 1.0)
                if card != "?":
                    put(slot * 3 + 1, 1.0)
                    put(slot * 3 + 2, values.get(card, 0) / top)
            base = max_slots * 3
            put(base, max(-1.0, min(1.0, state["totals"][seat] / 100)))
            put(base + 1, float(bool(state["reset_used"][seat])))
            put(base + 2, float(state["to_move"] == seat))
            put(base + 3, float(state["cabo"] == seat))
            put(base + 4, float(state["dealer"] == seat))
            put(base + 5, float(state["starter"] == seat))
            put(base + 6, float(looked.get("seat") == seat))
        at += per_seat
    held = state.get("held")
    put(0, float(held is not None))
    put(1, values.get(held, 0) / top if held else 0.0)
    put(2, float(state.get("held_from") == "deck"))
    put(3, float(state.get("held_from") == "discard"))
    discard = state["discard"]
    put(4, float(bool(discard)))
    put(5, values.get(discard[-1], 0) / top if discard else 0.0)
    put(6, len(discard) / cards)
    put(7, state["deck"] / cards)
    put(8, min(1.0, state["round"] / 10))
    put(9, min(1.0, state["turn"] / 100))
    put(10, (looked.get("slot", -1) + 1) / max_slots if looked else 0.0)
    return out


def _checked(message: Any, values: Any, players: Any, max_slots: Any) -> tuple[Mapping[str, Any], int, int]:
    """:func:`encode`'s arguments checked: the message's state, and the seats and slots as plain ints."""
    state = act_message("message", message)["state"]
    players, max_slots = players_of(players), slots_of(max_slots)
    allowed = "the card values of hello (a mapping of card to int, not empty)"
    if not isinstance(values, Mapping):
        raise TypeError(f"values must be {allowed}, got {shown(values)}")
    if not values:
        raise ValueError(f"values must be {allowed}, got an empty one")
    seats = len(state.get("hands") or ())
    if seats != players:
        raise ValueError(f"players must be the seats the message shows, {seats}, got {players}")
    return state, players, max_slots


def action_count(players: int, max_slots: int) -> int:
    """The longest legal list while every hand has at most ``max_slots`` slots: holding a drawn card, a swap per
    slot, every multi-swap (2 to 4 slots, into each of them), the discard, and the largest power's targets
    (a blind swap of any own slot with any other seat's); or the initial look's pairs, if more."""
    players, max_slots = players_of(players), slots_of(max_slots)
    multi = sum(comb(max_slots, k) * k for k in range(2, min(4, max_slots) + 1))
    drawn = max_slots + multi + 1 + max_slots * (players - 1) * max_slots
    return max(drawn, comb(max_slots, 2), max_slots + 1, 3)


def mask(message: Mapping[str, Any], size: int) -> tuple[np.ndarray, int]:
    """The mask of ``message``'s legal indices (int8, ``size`` entries) and how many legal actions did not fit."""
    legal = len(act_message("message", message, state=False)["legal"])
    size = integer("size", size, 1)
    out = np.zeros(size, dtype=np.int8)
    out[:min(legal, size)] = 1
    return out, max(0, legal - size)
