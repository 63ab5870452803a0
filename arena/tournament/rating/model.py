"""The rating seam: what every rating model gives the rest of the arena, and the registry that names them.

A model keeps, for every player, a normal belief about its skill (:class:`Rating`: mean ``mu``,
spread ``sigma``) and updates the beliefs of a table's players from their places. Everything else
the arena does with ratings is written against this interface, never against a library: the fold in
schedule order (:mod:`.fold`), the boards' order (``mu - 3 sigma``), the rank intervals and the
chance one player is ahead of another (:mod:`..confidence`), the ladder's kept ratings (written as
``mu`` and ``sigma`` and read back with :meth:`RatingModel.rating`). A model is chosen by the
configuration's ``rating: {model: NAME}`` (:attr:`.params.RatingParams.model`); each model's module
is the one place its library is imported.
"""

from __future__ import annotations

import math
from importlib import import_module
from dataclasses import dataclass
from typing import Callable, Protocol, Sequence

from .params import RatingParams


class Rating(Protocol):
    """One player's posterior: a normal belief N(mu, sigma^2) about its skill. Picklable, immutable."""

    @property
    def mu(self) -> float: ...

    @property
    def sigma(self) -> float: ...


@dataclass(frozen=True, slots=True)
class Belief:
    """A :class:`Rating` of plain floats, for a model whose library's own objects do not pickle."""

    mu: float
    sigma: float


class BeliefModel:
    """A model's fresh and stored beliefs as :class:`Belief` (for a model whose library's objects do not pickle, or
    that has no library): a subclass sets ``start``, the fresh one, from its parameters."""

    start: Belief

    def fresh(self) -> Rating:
        return self.start

    def rating(self, mu: float, sigma: float) -> Rating:
        return Belief(float(mu), float(sigma))


class RatingModel(Protocol):
    """What a rating model does: fresh and stored beliefs, and one table's update."""

    name: str
    """The name ``rating: {model: ...}`` gives."""

    def fresh(self) -> Rating:
        """The belief about a player that has played nothing (``rating.mu``, ``rating.sigma``)."""
        ...

    def rating(self, mu: float, sigma: float) -> Rating:
        """A belief read back from a store (a ladder's kept ratings)."""
        ...

    def update(self, ratings: dict[str, Rating], bots: Sequence[str], places: Sequence[int],
               scores: Sequence[float] | None = None) -> None:
        """One table's result, in place: each seat its own team, 1-based places (equal places draw);
        a bot not in ``ratings`` starts from :meth:`fresh`. ``scores``: each seat's match total less its
        luck (:func:`.fold.scores_of`), given to a model that :func:`reads_scores`."""
        ...


def reads_scores(model: RatingModel) -> bool:
    """Whether ``model`` rates seats' luck-corrected totals (``scores``), not places alone: then every caller of
    its update must pass them."""
    return bool(getattr(model, "scores", False))


def exposure(rating: Rating) -> float:
    """Conservative skill estimate (mu - 3 sigma): a lucky newcomer cannot top the board."""
    return float(rating.mu - 3.0 * rating.sigma)


def p_ahead(a: Rating, b: Rating) -> float:
    """The probability that ``a``'s true skill is above ``b``'s, from their posteriors:
    Phi((mu_a - mu_b) / sqrt(sigma_a^2 + sigma_b^2)). Symmetric: p_ahead(a, b) + p_ahead(b, a) == 1.
    The same for every model, since every model's belief is normal."""
    spread = math.sqrt(float(a.sigma) ** 2 + float(b.sigma) ** 2)
    gap = float(a.mu) - float(b.mu)
    if spread == 0:
        return 0.5 if gap == 0 else float(gap > 0)
    return 0.5 * math.erfc(-gap / (spread * math.sqrt(2.0)))


_MODELS: dict[str, Callable[[RatingParams], RatingModel]] = {}


def register(name: str, make: Callable[[RatingParams], RatingModel]) -> None:
    """Make ``rating: {model: NAME}`` choose the model ``make(params)`` builds."""
    _MODELS[name] = make


def model_of(params: RatingParams) -> RatingModel:
    """The model ``params`` chooses, built privately for them (no process-wide setting leaks in or out)."""
    params.validate()
    if params.model not in _MODELS:  # a bundled model registers itself when its module is first imported,
        import_module(f"{__package__}.{params.model}_model")  # so a library loads only when its model rates
    return _MODELS[params.model](params)
