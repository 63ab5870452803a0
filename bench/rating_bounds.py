"""Where each rating model's arithmetic stops being finite: the measurement behind the ranges in arena/bounds.py.

Every model rates alike when mu, sigma, beta and tau are scaled together, so beta is the unit here (1) and sigma,
tau and mu are stepped in units of it. Each setting rates tables of 2, 4 and 5 seats drawn from a field whose
order follows fixed skills plus a performance noise of 1, from a near coin toss (skills 0.3 apart) to a sure
order (1000 apart), 400 tables for each of 2 seeds; it fails when an update raises, when a belief is not finite
with a spread, or when the board's rank intervals cannot be drawn. Printed: each setting and the first failure.
Measured: only TrueSkill fails, at a sigma of 30 beta with tau 0 (``FloatingPointError``, gap 3, 5 seats); 20 beta
and every end of the ranges pass.

    .venv/bin/python bench/rating_bounds.py   (about 1.5 minutes on 1 core)
"""

from __future__ import annotations

import math
import random
import sys
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.tournament.confidence import rank_intervals  # noqa: E402
from arena.tournament.rating import Rating, RatingModel, RatingParams  # noqa: E402
from arena.tournament.rating.openskill_model import OpenSkillModel  # noqa: E402
from arena.tournament.rating.points_model import PointsModel  # noqa: E402
from arena.tournament.rating.trueskill_model import TrueSkillModel  # noqa: E402

GAPS = (0.3, 1.0, 3.0, 10.0, 30.0, 1000.0)
"""Skill between neighbours of the field, in units of the performance noise."""
TABLES = ((2, 3), (4, 6), (5, 8))
"""(seats, bots in the field)."""
MODELS: dict[str, Callable[[RatingParams], RatingModel]] = {
    "trueskill": TrueSkillModel, "openskill": OpenSkillModel, "points": PointsModel}
"""Each model's class, built here without the ranges :meth:`RatingParams.validate` holds it to (this measures
past them)."""


def unchecked(**values: float) -> RatingParams:
    """The default parameters with ``values`` put in as they are, in range or not."""
    params = RatingParams()
    for name, value in values.items():
        object.__setattr__(params, name, value)
    return params


def rate(model: RatingModel, gap: float, seats: int, bots: int, seed: int, tables: int = 400) -> None:
    """Rate ``tables`` tables of the field; raise on anything not finite."""
    rng = random.Random(seed)
    ratings: dict[str, Rating] = {}
    names = [f"b{i}" for i in range(bots)]
    for _ in range(tables):
        table = rng.sample(names, seats)
        performance = [int(name[1:]) * gap + rng.gauss(0.0, 1.0) for name in table]
        order = sorted(range(seats), key=lambda seat: -performance[seat])
        places = [0] * seats
        for place, seat in enumerate(order, 1):
            places[seat] = place
        if rng.random() < 0.05:  # a tie at the top
            places[order[1]] = 1
        model.update(ratings, table, places, [-10.0 * p for p in performance])
    if not all(math.isfinite(r.mu) and math.isfinite(r.sigma) and r.sigma > 0 for r in ratings.values()):
        raise ArithmeticError("a belief that is not finite with a spread")
    rank_intervals(ratings)


def first_failure(name: str, params: RatingParams) -> str:
    """"ok", or the first failure of the model ``name`` over every gap, table size and seed."""
    for gap in GAPS:
        for seats, bots in TABLES:
            for seed in range(2):
                try:
                    rate(MODELS[name](params), gap, seats, bots, seed)
                except (ArithmeticError, ValueError) as exc:
                    return f"{type(exc).__name__} (gap {gap:g}, {seats} seats)"
    return "ok"


def main() -> None:
    for model in MODELS:
        for sigma in (0.001, 2.0, 10.0, 20.0, 30.0):
            for tau in (0.0, 10.0):
                params = unchecked(mu=25.0, beta=1.0, sigma=sigma, tau=tau)
                print(f"{model:9}  sigma {sigma:5g} beta, tau {tau:2g} beta: {first_failure(model, params)}",
                      flush=True)
        for mu in (-1e6, 1e6):
            for beta in (0.001, 1e6):
                params = unchecked(mu=mu, beta=beta, sigma=10 * beta, tau=10 * beta, draw_probability=0.99)
                print(f"{model:9}  mu {mu:g}, beta {beta:g}, sigma and tau 10 beta: {first_failure(model, params)}",
                      flush=True)


if __name__ == "__main__":
    main()
