"""Rule presets, their options, and validation.

A :class:`Rules` object is the fixed part of a game (OpenSpiel's *Game*): preset,
options with defaults filled in, the value of every card, and the preset's rule set
(:mod:`arena.game.rulesets`), which the engine asks wherever the presets differ. It is
frozen and picklable so a match can be shipped to another process as a self-contained job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, cast

from .cards import Deck
from .options import Option, RuleError
from .rulesets import RULESETS, RuleSet

__all__ = ["HAND_SIZE", "MAX_PLAYERS", "MIN_PLAYERS", "Option", "RuleError", "Rules", "make_rules", "options_of",
           "parse_option_args", "preset_names"]


MIN_PLAYERS = 2
MAX_PLAYERS = 5
HAND_SIZE = 4


def preset_names() -> tuple[str, ...]:
    """Names of the available presets."""
    return tuple(RULESETS)


def options_of(preset: str) -> tuple[Option, ...]:
    """Options of a preset, in documentation order."""
    return _ruleset(preset).options


def _ruleset(preset: str) -> RuleSet:
    if preset not in RULESETS:
        raise RuleError(f"unknown rule preset {preset!r}; expected one of: {', '.join(RULESETS)}")
    return RULESETS[preset]


@dataclass(frozen=True)
class Rules:
    """A validated preset with every option set; build it with :func:`make_rules`."""

    preset: str
    """A registered preset name (see :func:`preset_names`)."""
    options: Mapping[str, Any]
    """Every option of the preset, defaults filled in."""
    deck: Deck = field(repr=False)
    """The physical deck."""
    values: tuple[int, ...] = field(repr=False)
    """Score value of each card id under these options."""
    ruleset: RuleSet = field(default=cast(RuleSet, None), repr=False, compare=False)
    """What the preset decides (:mod:`arena.game.rulesets`): the engine asks it, never the preset's name.
    Left out, it is the preset's registered rule set, so ``Rules(preset, options, deck, values)`` still works."""

    def __post_init__(self) -> None:
        if self.ruleset is None:
            object.__setattr__(self, "ruleset", _ruleset(self.preset))

    def value_map(self) -> dict[str, int]:
        """Card code -> value, as sent to bots in ``hello``."""
        return dict(zip(self.deck.codes, self.values))

    def to_json(self) -> dict[str, Any]:
        """The ``rules`` object of the protocol and of replay files."""
        return {"preset": self.preset, "options": dict(self.options)}


def make_rules(preset: str, options: Mapping[str, Any] | None = None) -> Rules:
    """Validate ``options`` against ``preset`` and return the rules.

    Raises :class:`RuleError` naming the bad preset, option or value and what is allowed.
    """
    ruleset = _ruleset(preset)
    specs = {o.name: o for o in ruleset.options}
    chosen = {name: spec.default for name, spec in specs.items()}
    for key, value in (options or {}).items():
        if key not in specs:
            raise RuleError(f"unknown option {key!r} for preset {preset!r}; allowed: {', '.join(specs)}")
        chosen[key] = specs[key].coerce(value)
    return Rules(preset, chosen, ruleset.deck, ruleset.values(chosen), ruleset)


def parse_option_args(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Turn command-line ``key=value`` strings into a dict (values checked later)."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RuleError(f"option {pair!r} must look like key=value")
        out[key.strip()] = value
    return out
