"""What a bot plays: the ``supports`` key of its manifest.

A bot may be written for one rule preset or for two-player tables only. Declaring it
lets schedules seat the bot only where it can play and lets ``arena bot check`` test
exactly what the author promises, instead of failing the bot at tables it never meant
to sit at. Nothing declared means every preset and every table size.

A manifest is read before anyone knows which game it will be played in, so ``rules`` and
``seats`` are checked against every registered game (:mod:`arena.game.registry`): presets of
any of them, sizes within their player ranges. What a bot plays of one game (``presets``,
``table_sizes``) is asked with that game's name.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..game.registry import DEFAULT_GAME, game_named, games

SUPPORTS_KEYS = ("rules", "seats")
"""Sub-keys of ``supports``, in documentation order."""


class SupportsError(ValueError):
    """A ``supports`` value that cannot be used; the message names the key and what would be right."""


@dataclass(frozen=True)
class Supports:
    """Rule presets and table sizes a bot plays; None means "all of them" (nothing declared).

    Frozen tuples keep :class:`~arena.bots.spec.BotSpec` hashable and picklable.
    """

    rules: tuple[str, ...] | None = None
    """Preset names, in the order of the registered games' presets."""
    seats: tuple[int, ...] | None = None
    """Table sizes, ascending."""

    @property
    def declared(self) -> bool:
        """True if the manifest restricts anything."""
        return self.rules is not None or self.seats is not None

    def presets(self, game: str = DEFAULT_GAME) -> tuple[str, ...]:
        """The presets of ``game`` played, in the game's order."""
        known = game_named(game).preset_names()
        return known if self.rules is None else tuple(p for p in known if p in self.rules)

    def table_sizes(self, game: str = DEFAULT_GAME) -> tuple[int, ...]:
        """The table sizes of ``game`` played, ascending."""
        played = game_named(game)
        every = tuple(range(played.min_players, played.max_players + 1))
        return every if self.seats is None else tuple(n for n in self.seats if n in every)

    def plays(self, preset: str, seats: int) -> bool:
        """Whether the bot plays a table of ``seats`` under ``preset`` (of the game being played: the
        caller has checked both against it)."""
        return (self.rules is None or preset in self.rules) and (self.seats is None or seats in self.seats)

    def why_not(self, preset: str, seats: int) -> str | None:
        """Why the bot cannot sit at a table of ``seats`` under ``preset``, or None if it can."""
        if self.plays(preset, seats):
            return None
        return f"its manifest supports {self.text()}, not {preset} at {seats} seats"

    def text(self, game: str = DEFAULT_GAME) -> str:
        """For people: ``standard, 2 seats`` or ``every preset, 2-5 seats`` (the sizes of ``game``)."""
        presets = " and ".join(self.rules) if self.rules is not None else "every preset"
        return f"{presets}, {seat_text(self.seats or self.table_sizes(game))}"

    def short(self) -> str:
        """What is declared, as written: ``rules [standard], seats [2, 3]``; ``all`` when nothing is."""
        parts = ([f"rules [{', '.join(self.rules)}]"] if self.rules is not None else []) + \
                ([f"seats [{', '.join(map(str, self.seats))}]"] if self.seats is not None else [])
        return ", ".join(parts) or "all"


def seat_text(sizes: tuple[int, ...]) -> str:
    """``2 seats``, ``2 or 3 seats``, ``2-5 seats`` (a run of three or more)."""
    if len(sizes) >= 3 and list(sizes) == list(range(sizes[0], sizes[-1] + 1)):
        return f"{sizes[0]}-{sizes[-1]} seats"
    if len(sizes) == 1:
        return f"{sizes[0]} seats"
    return f"{', '.join(map(str, sizes[:-1]))} or {sizes[-1]} seats"


EVERYTHING = Supports()
"""A bot that declares nothing."""


def parse_supports(value: Any) -> Supports:
    """The manifest's ``supports`` value checked: a mapping with ``rules`` and/or ``seats``.

    Each may be one value or a non-empty list of them; ``null`` (or no key) means all.
    """
    if value is None:
        return EVERYTHING
    if not isinstance(value, dict):
        raise SupportsError(f"field 'supports' must be a mapping such as {{rules: [standard], seats: [2, 3]}}, "
                            f"got {_shown(value)}")
    unknown = [key for key in value if key not in SUPPORTS_KEYS]
    if unknown:
        raise SupportsError(f"supports: unknown key {str(unknown[0])!r}; allowed: {', '.join(SUPPORTS_KEYS)}")
    return Supports(rules=_rules(value.get("rules")), seats=_seats(value.get("seats")))


def _items(key: str, value: Any, example: str) -> list[Any] | None:
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    if not items:
        raise SupportsError(f"supports.{key}: an empty list plays nothing; list at least one, e.g. {example}, "
                            "or leave the key out to play all")
    return items


def _rules(value: Any) -> tuple[str, ...] | None:
    known = tuple(dict.fromkeys(p for name in games() for p in game_named(name).preset_names()))
    items = _items("rules", value, f"[{known[0]}]")
    if items is None:
        return None
    for item in items:
        if not isinstance(item, str) or item not in known:
            raise SupportsError(f"supports.rules: unknown rule preset {_shown(item)}; expected "
                                f"{' | '.join(known)} (or a list of them)")
    return tuple(p for p in known if p in items)


def _seats(value: Any) -> tuple[int, ...] | None:
    items = _items("seats", value, "[2]")
    if items is None:
        return None
    lowest = min(game_named(name).min_players for name in games())
    highest = max(game_named(name).max_players for name in games())
    for item in items:
        if not isinstance(item, int) or isinstance(item, bool) or not lowest <= item <= highest:
            raise SupportsError(f"supports.seats: {_shown(item)} is not a table size; expected integers from "
                                f"{lowest} to {highest} (or a list of them)")
    return tuple(sorted(set(items)))


def _shown(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return {True: "true", False: "false", None: "null"}[value]
    if isinstance(value, (list, dict)):
        return "a list" if isinstance(value, list) else "a mapping"
    return repr(value)
