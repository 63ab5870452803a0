"""The rating section of a configuration: which model rates, with which settings, and how matches become games."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import TypeGuard

from ...bounds import MAX_DRAW_PROBABILITY, MIN_BETA, RATING_MAX, SIGMA_PER_BETA

METHODS = ("match", "deal", "table")
"""How matches become games (:attr:`RatingParams.method`)."""
MODELS = ("trueskill", "openskill", "points")
"""The rating models there are (:attr:`RatingParams.model`): :mod:`.trueskill_model`, :mod:`.openskill_model`,
:mod:`.points_model`."""
MODEL_LABELS = {"trueskill": "TrueSkill", "openskill": "Plackett-Luce", "points": "luck-corrected points"}
"""Each model as a board names it."""
DEFAULT_MODEL = "trueskill"
"""The model a configuration that names none is rated with: docs/tournaments.md, "Rating models", says why."""
_WORDS = ("method", "model")
"""Fields that are names, not numbers."""
_NUMBERS = ("mu", "sigma", "beta", "tau", "draw_probability")
"""Fields that are numbers."""


class RatingParamError(ValueError):
    """A rating parameter that is not a number in its range: which one, what it may be and what it is, so that a
    reader can name it where it was written (a file's key and line, a store's meta)."""

    def __init__(self, name: str, allowed: str, value: object) -> None:
        super().__init__(f"rating parameter {name} must be {allowed}, got {value!r}")
        self.name = name
        """The field."""
        self.allowed = allowed
        """What it may be: "a number from 0 to 41.6667 (at most 10 beta)"."""
        self.value = value
        """What it is."""

    @property
    def out_of_range(self) -> bool:
        """Whether the value is a finite number, only outside the range (an older arena took wider ones)."""
        return _is_number(self.value) and math.isfinite(self.value)


def _is_number(value: object) -> TypeGuard[int | float]:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _text(number: float) -> str:
    """A bound as a message shows it: whole numbers in full, others to six digits."""
    return str(int(number)) if number == int(number) and abs(number) < 1e15 else f"{number:g}"


def _ranges(beta: float) -> dict[str, tuple[float, float, str]]:
    """Each number's (lowest, highest, what else to say), given ``beta``: the bounds of :mod:`arena.bounds`, where
    each is derived."""
    low, high = SIGMA_PER_BETA
    return {"beta": (MIN_BETA, RATING_MAX, ""), "mu": (-RATING_MAX, RATING_MAX, ""),
            "sigma": (low * beta, high * beta, f" (beta/{_text(1 / low)} to {_text(high)} beta)"),
            "tau": (0.0, high * beta, f" (at most {_text(high)} beta)"),
            "draw_probability": (0.0, MAX_DRAW_PROBABILITY, "")}


def _check(name: str, value: object, beta: float) -> None:
    """Refuse ``value`` for the field ``name`` unless it is a number within :func:`_ranges` of ``beta``."""
    low, high, note = _ranges(beta)[name]
    if not (_is_number(value) and math.isfinite(value) and low <= value <= high):
        raise RatingParamError(name, f"a number from {_text(low)} to {_text(high)}{note}", value)


@dataclass(frozen=True)
class RatingParams:
    """Rating settings, chosen by measurement on bots of known strength (``bench/rating.py``,
    docs/tournaments.md "Ratings").

    mu, sigma and beta mean the same in both models (TrueSkill's and openskill's Plackett-Luce).
    ``tau`` is 0, not TrueSkill's 25/300: a bot version does not change its skill between matches,
    and a dynamics factor that says it does keeps every sigma near 0.7 for good, so close neighbours
    swap places for hundreds of matches (the true order of the known-strength field held for good
    after 70 matches with tau 0 against 91 with 25/300, standard rules, duplicate deals; 74 against
    110 with a fresh deal per match; 85 against 92 and 55 against 75 in a second realisation of the
    games: docs/tournaments.md, "Measured"). ``rating: {tau: 0.0833}`` keeps the drifting-skill
    setting for bots that learn between matches. ``draw_probability`` (TrueSkill only: Plackett-Luce
    has no draw margin) is what the games show: two seats share a place in 0.7% of pairs (standard)
    and 0.2% (espanola), not trueskill's 10%. A larger beta measured no better.
    """

    mu: float = 25.0
    """Mean skill a new bot starts with."""
    sigma: float = 25.0 / 3.0
    """Uncertainty a new bot starts with; from beta/1000 to 10 beta (:data:`arena.bounds.SIGMA_PER_BETA`)."""
    beta: float = 25.0 / 6.0
    """Skill gap that gives about 76% chance of winning; from 0.001 to 1000000."""
    tau: float = 0.0
    """Uncertainty added before each match, for a skill that drifts between matches; from 0 to 10 beta."""
    draw_probability: float = 0.01
    """Prior chance that two players tie; from 0 to 0.99 (:data:`arena.bounds.MAX_DRAW_PROBABILITY`)."""
    method: str = "match"
    """How matches become games (one of :data:`METHODS`): ``match``, each match one game ranked by
    its places; ``deal``, each match one game ranked by every seat's place less the average place of
    that seat over the rotations of its deal (what the cards gave), so a deal's luck cancels out
    within each game; ``table``, a deal's rotations one game ranked by the summed places."""
    model: str = DEFAULT_MODEL
    """The rating model (one of :data:`MODELS`). A store written before there was a choice has no
    ``model`` in its ``rating`` meta and reads as the default."""

    def __post_init__(self) -> None:
        self.validate()
        for name in _NUMBERS:  # an integer the file gave is kept as the float every model computes with
            object.__setattr__(self, name, float(getattr(self, name)))

    def validate(self) -> None:
        """Reject settings a model would accept but compute nonsense with, or crash on: each number within the
        range :func:`_ranges` gives (:class:`RatingParamError` naming it), beta's first: it is the unit of
        sigma's and tau's."""
        if self.method not in METHODS:
            raise ValueError(f"rating parameter method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if self.model not in MODELS:
            raise ValueError(f"rating parameter model must be one of {', '.join(MODELS)}, got {self.model!r}")
        _check("beta", self.beta, 1.0)
        for name in ("mu", "sigma", "tau", "draw_probability"):
            _check(name, getattr(self, name), self.beta)

    def stored(self) -> dict[str, object]:
        """The ``rating`` meta a store keeps: every field, except ``model`` when it is the default, so a
        store an older arena wrote and one this arena writes with the same settings read alike."""
        kept = {field.name: getattr(self, field.name) for field in fields(self)}
        if self.model == DEFAULT_MODEL:
            del kept["model"]
        return kept
