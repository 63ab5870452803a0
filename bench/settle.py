"""How often ``--until settled`` stops on a field whose order is a coin flip, and how soon it stops on a real gap.

Simulated with the arena's own rating update and stop test (no bots are played): two bots
meet twice a cycle (both rotations of a 2-seat table), the first finishing ahead with
probability ``q``; the test is asked after every cycle, as a round robin asks it. With equal
bots (``q`` = 0.5) a stop claims an order that is a coin flip; with four equal bots every
adjacent pair must be sure at once. Prints absolute figures only.

    .venv/bin/python bench/settle.py [--runs 400] [--cycles 60] [--p 0.95]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.tournament.confidence import settled  # noqa: E402
from arena.tournament.rating import RatingParams, apply, make_env  # noqa: E402


def stops(bots: int, q: float, p: float, runs: int, cycles: int) -> tuple[float, int | None]:
    """The share of runs that stop settled within ``cycles``, and the median cycle of those that do."""
    env = make_env(RatingParams())
    when: list[int] = []
    for seed in range(runs):
        rng = random.Random(seed)
        names = [f"b{i}" for i in range(bots)]
        ratings = {name: env.create_rating() for name in names}
        for cycle in range(1, cycles + 1):
            for _ in range(2 if bots == 2 else bots):
                if bots == 2:
                    order = names if rng.random() < q else names[::-1]
                else:
                    order = rng.sample(names, bots)
                apply(env, ratings, names, [order.index(name) + 1 for name in names])
            if settled(ratings, p):
                when.append(cycle)
                break
    return len(when) / runs, (sorted(when)[len(when) // 2] if when else None)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--cycles", type=int, default=60)
    parser.add_argument("--p", type=float, default=0.95)
    args = parser.parse_args()
    if args.runs < 1 or args.cycles < 1 or not 0.5 < args.p < 1:
        parser.error("--runs and --cycles must be at least 1, --p above 0.5 and below 1")
    for bots, q, label in ((2, 0.5, "2 equal bots"), (4, 0.5, "4 equal bots"),
                           (2, 0.6, "2 bots, the first ahead 60% of the time"),
                           (2, 0.7, "2 bots, the first ahead 70% of the time")):
        share, median = stops(bots, q, args.p, args.runs, args.cycles)
        print(f"{label}: settled at P {args.p:g} in {share:.1%} of {args.runs} runs within {args.cycles} cycles"
              + (f" (median cycle {median})" if median is not None else ""))


if __name__ == "__main__":
    main()
