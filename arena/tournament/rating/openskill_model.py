"""openskill's Plackett-Luce model (Weng and Lin, 2011) behind the rating seam.

The one module that imports ``openskill``.

A full-ranking model: a table of n seats is n - 1 successive choices of the best of those left,
so every seat learns from every other in one closed-form step (no message passing, unlike
TrueSkill's chain of factors). ``draw_probability`` has no meaning here: an equal place is an
equal rank.
"""

from __future__ import annotations

from typing import Sequence

from openskill.models import PlackettLuce

from .model import Belief, BeliefModel, Rating, register
from .params import RatingParams


class OpenSkillModel(BeliefModel):
    """``rating: {model: openskill}``: mu, sigma, beta and tau as for TrueSkill."""

    name = "openskill"

    def __init__(self, params: RatingParams) -> None:
        self.tau = float(params.tau)
        self.model = PlackettLuce(mu=float(params.mu), sigma=float(params.sigma), beta=float(params.beta),
                                  tau=self.tau)

        self.start = Belief(float(params.mu), float(params.sigma))

    def update(self, ratings: dict[str, Rating], bots: Sequence[str], places: Sequence[int],
               scores: Sequence[float] | None = None) -> None:
        """openskill's own rating objects do not pickle: they are made for the step and read back as beliefs.

        The table is rated about its mean mu: Plackett-Luce is unchanged by a shift of every mu, but openskill
        takes ``exp(mu / c)`` of each, which overflows once a mu is some 700 times ``c`` from 0 (``mu: 25`` with
        ``beta: 0.01`` is already past it)."""
        seated = [ratings.setdefault(bot, self.start) for bot in bots]
        offset = sum(float(r.mu) for r in seated) / len(seated)
        teams = [[self.model.rating(mu=float(r.mu) - offset, sigma=r.sigma)] for r in seated]
        updated = self.model.rate(teams, ranks=[float(place) for place in places], tau=self.tau)
        for bot, (rating,) in zip(bots, updated):
            ratings[bot] = Belief(float(rating.mu) + offset, float(rating.sigma))


register(OpenSkillModel.name, OpenSkillModel)
