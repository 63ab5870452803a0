"""Rule presets, their options, and validation.

A :class:`Rules` object is the fixed part of a game (OpenSpiel's *Game*): preset,
options with defaults filled in, and the value of every card. It is frozen and
picklable so a match can be shipped to another process as a self-contained job.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

from .cards import FRENCH, SPANISH, Deck


class RuleError(ValueError):
    """A preset or option that does not exist or has a bad value."""


@dataclass(frozen=True)
class Option:
    """One rule option of a preset."""

    name: str
    """Key used in configs and on the command line."""
    kind: str
    """``bool``, ``int``, ``choice`` or ``int_or_none``."""
    default: Any
    """Value when the option is not given."""
    help: str
    """One line for ``arena rules``."""
    choices: tuple[str, ...] = ()
    """Allowed values of a ``choice`` option."""
    minimum: int | None = None
    """Smallest allowed value of an integer option."""
    maximum: int | None = None
    """Largest allowed value of an integer option."""

    def allowed(self) -> str:
        """Describe the allowed values, for error messages."""
        if self.kind == "bool":
            return "true or false"
        if self.kind == "choice":
            return " | ".join(self.choices)
        if self.minimum is not None and self.maximum is not None:
            bounds = f" from {self.minimum} to {self.maximum}"
        else:
            bounds = f" >= {self.minimum}" if self.minimum is not None else \
                (f" <= {self.maximum}" if self.maximum is not None else "")
        return f"an integer{bounds}" + (" or null" if self.kind == "int_or_none" else "")

    def coerce(self, value: Any) -> Any:
        """Return ``value`` checked and converted (strings from the command line too)."""
        if isinstance(value, str) and self.kind != "choice":
            value = _parse_scalar(value)
        ok = True
        if self.kind == "bool":
            ok = isinstance(value, bool)
        elif self.kind == "choice":
            ok = value in self.choices
        elif value is None:
            ok = self.kind == "int_or_none"
        else:
            ok = isinstance(value, int) and not isinstance(value, bool)
            ok = ok and (self.minimum is None or value >= self.minimum)
            ok = ok and (self.maximum is None or value <= self.maximum)
        if not ok:
            raise RuleError(f"option {self.name!r}: {value!r} is not allowed; expected {self.allowed()}")
        return value


def _parse_scalar(text: str) -> Any:
    low = text.strip().lower()
    if low in ("true", "yes", "on"):
        return True
    if low in ("false", "no", "off"):
        return False
    if low in ("null", "none", "~", ""):
        return None
    try:
        return int(low)
    except ValueError:
        return text.strip()


_SAFETY = (
    Option("max_turns_per_round", "int", 400, "safety limit: a round with this many turns is scored with no caller",
           minimum=1, maximum=10_000),
    Option("max_rounds", "int", 100, "safety limit: the match stops after this many rounds", minimum=1,
           maximum=10_000),
)

_OPTIONS: dict[str, tuple[Option, ...]] = {
    "standard": (
        Option("multi_swap_from_discard", "bool", True, "a card taken from the discard may be used for a multi-swap"),
        *_SAFETY,
    ),
    "espanola": (
        Option("kings_zero", "choice", "two", "which Reyes are worth 0: two (bastos, espadas), all, none", choices=("two", "all", "none")),
        Option("pairs", "bool", True, "claim windows: discard a card of the discard top's rank out of turn"),
        Option("cabo_bonus", "choice", "modifier", "a winning caller scores sum-10 (modifier) or -10 (literal)", choices=("modifier", "literal")),
        Option("rounds", "int", 5, "the match ends after this many rounds", minimum=1, maximum=10_000),
        Option("target_score", "int_or_none", None, "the match also ends once a total is at or below this",
               minimum=-100_000, maximum=100_000),
        *_SAFETY,
    ),
}

_DECKS = {"standard": FRENCH, "espanola": SPANISH}

MIN_PLAYERS = 2
MAX_PLAYERS = 5
HAND_SIZE = 4


def preset_names() -> tuple[str, ...]:
    """Names of the available presets."""
    return tuple(_OPTIONS)


def options_of(preset: str) -> tuple[Option, ...]:
    """Options of a preset, in documentation order."""
    if preset not in _OPTIONS:
        raise RuleError(f"unknown rule preset {preset!r}; expected one of: {', '.join(_OPTIONS)}")
    return _OPTIONS[preset]


def _values(preset: str, deck: Deck, options: Mapping[str, Any]) -> tuple[int, ...]:
    values = []
    for code in deck.codes:
        rank, suit = code[0], code[1]
        if preset == "standard":
            value = {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}.get(rank) or int(rank)
            if code in ("KH", "KD"):
                value = 0
        else:
            value = 10 if rank in "SCR" else int(rank)
            zero = options["kings_zero"]
            if rank == "R" and (zero == "all" or (zero == "two" and suit in "BE")):
                value = 0
        values.append(value)
    return tuple(values)


@dataclass(frozen=True)
class Rules:
    """A validated preset with every option set; build it with :func:`make_rules`."""

    preset: str
    """``standard`` or ``espanola``."""
    options: Mapping[str, Any]
    """Every option of the preset, defaults filled in."""
    deck: Deck = field(repr=False)
    """The physical deck."""
    values: tuple[int, ...] = field(repr=False)
    """Score value of each card id under these options."""

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
    specs = {o.name: o for o in options_of(preset)}
    chosen = {name: spec.default for name, spec in specs.items()}
    for key, value in (options or {}).items():
        if key not in specs:
            raise RuleError(f"unknown option {key!r} for preset {preset!r}; allowed: {', '.join(specs)}")
        chosen[key] = specs[key].coerce(value)
    deck = _DECKS[preset]
    return Rules(preset, chosen, deck, _values(preset, deck, chosen))


def parse_option_args(pairs: tuple[str, ...] | list[str]) -> dict[str, str]:
    """Turn command-line ``key=value`` strings into a dict (values checked later)."""
    out: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise RuleError(f"option {pair!r} must look like key=value")
        out[key.strip()] = value
    return out
