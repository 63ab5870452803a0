"""The rating section of a configuration: which model rates, with which settings, and how matches become games."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

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
    """Uncertainty a new bot starts with; must be positive."""
    beta: float = 25.0 / 6.0
    """Skill gap that gives about 76% chance of winning; must be positive."""
    tau: float = 0.0
    """Uncertainty added before each match, for a skill that drifts between matches; must be >= 0."""
    draw_probability: float = 0.01
    """Prior chance that two players tie; must be in [0, 1)."""
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

    def validate(self) -> None:
        """Reject settings a model would accept but compute nonsense (or crash) with."""
        if self.method not in METHODS:
            raise ValueError(f"rating parameter method must be one of {', '.join(METHODS)}, got {self.method!r}")
        if self.model not in MODELS:
            raise ValueError(f"rating parameter model must be one of {', '.join(MODELS)}, got {self.model!r}")
        for field in fields(self):
            if field.name in _WORDS:
                continue
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ValueError(f"rating parameter {field.name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise ValueError(f"rating parameter {field.name} must be finite, got {value!r}")
        if self.sigma <= 0:
            raise ValueError(f"rating parameter sigma must be > 0, got {self.sigma!r}")
        if self.beta <= 0:
            raise ValueError(f"rating parameter beta must be > 0, got {self.beta!r}")
        if self.tau < 0:
            raise ValueError(f"rating parameter tau must be >= 0, got {self.tau!r}")
        if not 0 <= self.draw_probability < 1:
            raise ValueError(
                f"rating parameter draw_probability must be in [0, 1), got {self.draw_probability!r}")

    def stored(self) -> dict[str, object]:
        """The ``rating`` meta a store keeps: every field, except ``model`` when it is the default, so a
        store an older arena wrote and one this arena writes with the same settings read alike."""
        kept = {field.name: getattr(self, field.name) for field in fields(self)}
        if self.model == DEFAULT_MODEL:
            del kept["model"]
        return kept
