"""The luck of a match rebuilt from its replay: the meter watching the rebuild gives the terms the worker
measured as it played, since every card follows from the seed and the actions."""

from __future__ import annotations

from typing import Any, Iterable

from ..game.registry import DEFAULT_GAME
from ..game.rules import RuleError, make_rules
from ..game.state import Match
from . import MEASURED_GAMES, shipped_model
from .meter import Meter


class LuckReplayError(ValueError):
    """A replay whose luck cannot be measured; the message says why, in one line."""


def measured(header: dict[str, Any], records: Iterable[dict[str, Any]]) -> Meter:
    """The meter of the match rebuilt from ``header`` and its action ``records``."""
    if header.get("game", DEFAULT_GAME) not in MEASURED_GAMES:
        raise LuckReplayError(f"a replay of {header['game']}: only Cabo's cards have a value function to measure "
                              "luck by")
    rules = header["rules"]
    meter = Meter(shipped_model(), rules["preset"], header["players"])
    try:
        match = Match(make_rules(rules["preset"], rules.get("options") or {}), header["players"], header["seed"],
                      watcher=meter)
        for record in records:
            if record["type"] == "action":
                match.apply(record["seat"], record["action"])
    except (RuleError, ValueError, KeyError, TypeError, IndexError) as exc:
        raise LuckReplayError(f"its actions do not rebuild a match here ({exc})") from None
    return meter


def replayed_terms(header: dict[str, Any], records: Iterable[dict[str, Any]]) -> list[tuple[float, ...]] | None:
    """Per card the deck gave the rebuilt match, each seat's term (what the viewer's frames take), or None for
    a game the arena has no value function for."""
    if header.get("game", DEFAULT_GAME) not in MEASURED_GAMES:
        return None
    return measured(header, records).terms()
