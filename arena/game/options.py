"""Rule options: how one is declared, described and checked.

Apart from :mod:`arena.game.rules` so that each rule set (:mod:`arena.game.rulesets`) can declare
its own options without importing the module that builds :class:`~arena.game.rules.Rules` from it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


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

    def coerce(self, value: Any, text: bool = True) -> Any:
        """Return ``value`` checked and converted; ``text``: a string is read as the command line writes values
        (``-o pairs=yes``). A file's values are typed already (``text=False``): there a quoted ``'yes'`` is a
        string, refused, never taken for true."""
        if isinstance(value, str) and self.kind != "choice":
            if not text:
                quoted = ", written without quotes" if _parse_scalar(value) != value.strip() else ""
                raise RuleError(f"option {self.name!r}: {value!r} is a string; expected {self.allowed()}{quoted}")
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


SAFETY = (
    Option("max_turns_per_round", "int", 400, "safety limit: a round with this many turns is scored with no caller",
           minimum=1, maximum=10_000),
    Option("max_rounds", "int", 100, "safety limit: the match stops after this many rounds", minimum=1,
           maximum=10_000),
)
"""The safety limits every preset has (a bot can stall neither a round nor a match)."""
