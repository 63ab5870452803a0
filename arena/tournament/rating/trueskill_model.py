"""TrueSkill (Herbrich, Minka and Graepel, 2006) behind the rating seam: the one module that imports ``trueskill``."""

from __future__ import annotations

from typing import Sequence

import trueskill

from .model import Rating, register
from .params import RatingParams


class TrueSkillModel:
    """Each seat its own team, places as ranks, in a private environment: the process-wide
    ``trueskill.setup()`` never leaks in or out."""

    name = "trueskill"

    def __init__(self, params: RatingParams) -> None:
        self.env = trueskill.TrueSkill(mu=float(params.mu), sigma=float(params.sigma), beta=float(params.beta),
                                       tau=float(params.tau), draw_probability=float(params.draw_probability))

    def fresh(self) -> Rating:
        rating: Rating = self.env.create_rating()
        return rating

    def rating(self, mu: float, sigma: float) -> Rating:
        rating: Rating = self.env.create_rating(mu, sigma)
        return rating

    def update(self, ratings: dict[str, Rating], bots: Sequence[str], places: Sequence[int],
               scores: Sequence[float] | None = None) -> None:
        groups = [(ratings.setdefault(bot, self.env.create_rating()),) for bot in bots]
        updated = self.env.rate(groups, ranks=[place - 1 for place in places])
        for bot, (rating,) in zip(bots, updated):
            ratings[bot] = rating


register(TrueSkillModel.name, TrueSkillModel)
