"""A Thurstone model on luck-corrected points behind the rating seam: ``rating: {model: points}``.

Places throw away by how much a seat finished ahead, and carry all the luck of the cards. This model
rates each seat by its **luck-corrected total** instead: its match total less its luck, what the cards
gave it over the expected cards (:mod:`arena.luck`, measured by the referee). Each luck term has mean
zero whatever the players did, so the corrected total is an unbiased estimate of the total the seat's
play earns, with less of the cards' noise in it.

The model (Thurstone's case V on scores rather than ranks): a seat's performance is
``p = -c / POINTS_PER_UNIT`` (``c`` its corrected total; fewer points is better), and
``p = s + o + e``: ``s`` its bot's skill, ``e ~ N(0, beta^2)`` its own noise, ``o`` an offset shared by
the table (how long the match ran, how the rules score it), about which nothing is assumed. So only
differences between the seats of one table inform the skills. Given the seats' normal beliefs
``N(m_i, v_i)`` the update is exact and closed-form: with ``w_i = 1 / (v_i + beta^2)``, ``r_i = p_i - m_i``
and the table's offset ``o = sum(w r) / sum(w)``, each seat moves to mean ``m_i + v_i w_i (r_i - o)`` and
variance ``v_i - v_i^2 w_i (1 - w_i / sum(w))``: the exact marginals of the joint posterior, of which each
seat keeps its own (as TrueSkill keeps a product of marginals). No seat is a reference, and the update is
the same whatever order the seats are listed in: two identical bots' expected ratings are equal.

A forfeited seat was played out by the fallback policy, so its points are not its bot's: it counts as
scoring no better than the worst seat that was not forfeited (places rank it last). ``mu``, ``sigma``,
``beta`` and ``tau`` are in the units of the other models; :data:`POINTS_PER_UNIT` converts points.
"""

from __future__ import annotations

from typing import Sequence

from .model import Belief, BeliefModel, Rating, register
from .params import RatingParams

POINTS_PER_UNIT = 10.0
"""Points per match in one unit of skill. With the default ``beta`` of 25/6 a seat's own noise is 42 points a
match: how far a bot's corrected total strays from its table's mean at the bundled four-seat tables under
``espanola`` (43 points; 21 under ``standard``, where the model is so the more cautious). A scale fitted to
``standard`` (6 points a unit, 25 points of noise) settled the family a little sooner there and made every
interval under ``espanola`` too narrow by half again; the default ``sigma`` of 25/3 lets a new bot be 83 points a
match from 25."""


class PointsModel(BeliefModel):
    """``rating: {model: points}``: the luck-corrected points of every seat of a table, compared with each other."""

    name = "points"
    scores = True
    """It rates match totals less luck, which the fold passes as ``scores``."""

    def __init__(self, params: RatingParams) -> None:
        self.start = Belief(float(params.mu), float(params.sigma))
        self.noise = float(params.beta) ** 2
        self.drift = float(params.tau) ** 2

    def update(self, ratings: dict[str, Rating], bots: Sequence[str], places: Sequence[int],
               scores: Sequence[float] | None = None) -> None:
        """One table: ``scores`` are the seats' corrected totals (lower is better), forfeits already counted."""
        if scores is None or len(scores) != len(bots):
            raise ValueError("the points model rates each seat's match total less its luck: a table came without")
        seated = [ratings.setdefault(bot, self.start) for bot in bots]
        means = [float(r.mu) for r in seated]
        variances = [float(r.sigma) ** 2 + self.drift for r in seated]
        weights = [1.0 / (v + self.noise) for v in variances]
        residuals = [-score / POINTS_PER_UNIT - m for score, m in zip(scores, means)]
        total = sum(weights)
        offset = sum(w * r for w, r in zip(weights, residuals)) / total
        for bot, m, v, w, r in zip(bots, means, variances, weights, residuals):
            ratings[bot] = Belief(m + v * w * (r - offset), max(v - v * v * w * (1.0 - w / total), 0.0) ** 0.5)


register(PointsModel.name, PointsModel)
