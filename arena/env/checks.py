"""The environment's argument checks: a bad argument fails at the call that gave it, in one line naming the
argument and what is allowed, not as an exception from deep inside a match or as a value quietly taken
for another (``step(1.7)`` playing index 1).

A wrong type raises :class:`TypeError`, a value of the right type that is not allowed :class:`ValueError`.
NumPy integers count as ints (array code hands them on: ``np.argmax``, ``Discrete.sample``); bools and
floats never do.
"""

from __future__ import annotations

import reprlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..game.registry import game_named, games
from ..game.seam import Game
from ..suggest import did_you_mean

__all__ = ["act_message", "game_of", "integer", "legal_index", "one_of", "optional", "reset_seed", "shown", "whole"]


def shown(value: Any) -> str:
    """``value`` for "got ..." in a message: its type and a short repr (a huge list stays one short line)."""
    return f"{type(value).__name__} {reprlib.repr(value)}"


def whole(name: str, value: Any, allowed: str) -> int:
    """``value`` as a plain int; a :class:`TypeError` saying ``allowed`` for anything not an int. A 0-d array
    counts as its one number (some RL libraries hand a ``Discrete`` action on as one)."""
    if isinstance(value, np.ndarray) and value.ndim == 0:
        value = value[()]
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be {allowed}, got {shown(value)}")
    return int(value)


def integer(name: str, value: Any, low: int, high: int | None = None, extra: str = "") -> int:
    """``value`` as a plain int from ``low`` to ``high`` (no upper bound if None); ``extra`` names what else
    the argument may be (" or None")."""
    allowed = f"an int from {low}" + (f" to {high}" if high is not None else " up") + extra
    number = whole(name, value, allowed)
    if number < low or (high is not None and number > high):
        raise ValueError(f"{name} must be {allowed}, got {number}")
    return number


def one_of(name: str, value: Any, choices: Sequence[str | None]) -> None:
    """``value`` is one of ``choices``, exactly as spelled there (None only if a choice)."""
    allowed = "one of " + " | ".join(repr(choice) for choice in choices)
    if not isinstance(value, str) and (value is not None or None not in choices):
        raise TypeError(f"{name} must be {allowed}, got {shown(value)}")
    if value not in choices:
        raise ValueError(f"{name} must be {allowed}, got {value!r}{did_you_mean(value, [c for c in choices if c])}")


def optional(name: str, value: Any, kind: type, what: str) -> None:
    """``value`` is None or a ``kind`` (``what`` says it in words)."""
    if value is not None and not isinstance(value, kind):
        raise TypeError(f"{name} must be {what} or None, got {shown(value)}")


def reset_seed(seed: Any, options: Any) -> int | None:
    """``reset``'s ``seed`` as a plain int: None or an int from 0 up (a negative one would draw the stream of its
    absolute value, and Gymnasium refuses it); its ``options`` a mapping or None (unused, as the rules are the
    constructor's, but PettingZoo's API test passes some)."""
    optional("reset(options)", options, Mapping, "a mapping")
    return None if seed is None else integer("reset(seed)", seed, 0, extra=" or None")


def legal_index(name: str, value: Any, seat: int, count: int) -> int:
    """An index into seat ``seat``'s ``count`` legal actions, as a plain int."""
    legal = f"seat {seat}'s {count} legal actions (0..{count - 1})"
    index = whole(name, value, f"an int index of one of {legal}")
    if not 0 <= index < count:
        raise ValueError(f"{name}: {index} is not one of {legal}")
    return index


def game_of(value: Any) -> Game:
    """The game registered as ``value`` (the ``game`` argument)."""
    one_of("game", value, games())
    return game_named(value)


def act_message(name: str, value: Any, state: bool = True) -> Mapping[str, Any]:
    """``value`` is an ``act`` message: a mapping with a ``legal`` list and (if ``state``) a ``state`` mapping."""
    allowed = "an act message (a mapping with " + ("a 'state' mapping and " if state else "") + "a 'legal' list)"
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be {allowed}, got {shown(value)}")
    if not isinstance(value.get("legal"), list) or (state and not isinstance(value.get("state"), Mapping)):
        raise ValueError(f"{name} must be {allowed}, got one with keys {sorted(map(str, value))}")
    return value
