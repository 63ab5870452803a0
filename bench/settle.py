"""How often ``--until settled`` stops on a field whose order is a coin flip, and how soon it stops on a real gap.

Simulated (no bots are played): two bots meet at a 2-seat table under both rotations each cycle, the
first finishing ahead in each with probability ``q``; four bots meet at one 4-seat table under its four
rotations, finishing in a random order. The stop rule is asked after every cycle, as a round robin asks
it, two ways on the same simulated results: the arena's rule (confidence sequences on each pair's deal
differences, :mod:`arena.tournament.evidence`, at P and the default margin) and the rule it replaced
(every adjacent pair's TrueSkill P(ahead) at least P, a single look's test asked again and again).
A stop is false when it orders a pair the wrong way (equal bots either way), or shows a pair within the
margin whose true difference is not (the first bot ahead 60% of the time leads by 0.2 places per match:
within the default margin of 0.25). The old rule had no margin: any stop on equal bots is false. Prints
absolute figures only; ``bench/fairness.py`` measures the same on real bots.

    .venv/bin/python bench/settle.py [--runs 400] [--cycles 200] [--p 0.95]
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.evidence.claims import AHEAD, TIER, PairCall, settled as claims_settled  # noqa: E402
from arena.tournament import evidence as ev  # noqa: E402
from arena.tournament.confidence import board_order, settled  # noqa: E402
from arena.tournament.rating import RatingParams, model_of  # noqa: E402
from arena.tournament.records import MatchRecord  # noqa: E402


def wrong(call: PairCall, q: float) -> bool:
    """Whether a call is false: ``b0`` truly leads ``b1`` by ``2q - 1`` places per match, and equal bots by 0."""
    lead = {("b0", "b1"): 2 * q - 1, ("b1", "b0"): 1 - 2 * q}.get((call.upper, call.lower), 0.0)
    if call.relation == AHEAD:
        return lead <= 0
    return call.relation == TIER and lead <= -ev.DEFAULT_MARGIN


def one_run(bots: int, q: float, p: float, cycles: int, rng: random.Random) -> dict[str, tuple[int, bool] | None]:
    """Per rule, (the cycle it stopped at, whether what it claimed was false), or None if it never stopped."""
    model = model_of(RatingParams())
    names = [f"b{i}" for i in range(bots)]
    ratings = {name: model.fresh() for name in names}
    evidence = ev.PairEvidence()
    out: dict[str, tuple[int, bool] | None] = {"new": None, "old": None}
    for cycle in range(1, cycles + 1):
        for rotation in range(bots):
            seats = names[rotation:] + names[:rotation]
            if bots == 2:
                order = names if rng.random() < q else names[::-1]
            else:
                order = rng.sample(names, bots)
            places = tuple(order.index(name) + 1 for name in seats)
            model.update(ratings, seats, places)
            evidence.add(MatchRecord(0, f"c{cycle}/t/r{rotation}", tuple(seats), places, (0,) * bots,
                                     (False,) * bots, ()))
        ranked = board_order(ratings)
        if out["old"] is None and settled(ratings, p, ranked):
            out["old"] = (cycle, q == 0.5 or ranked[0] != names[0])
        _, calls = ev.judged(evidence, ranked, p, ev.DEFAULT_MARGIN)
        if out["new"] is None and claims_settled(calls):
            out["new"] = (cycle, any(wrong(call, q) for call in calls))
        if out["new"] is not None and out["old"] is not None:
            break
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=400)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--p", type=float, default=0.95)
    args = parser.parse_args()
    if args.runs < 1 or args.cycles < 1 or not 0.5 < args.p < 1:
        parser.error("--runs and --cycles must be at least 1, --p above 0.5 and below 1")
    for bots, q, label in ((2, 0.5, "2 equal bots"), (4, 0.5, "4 equal bots"),
                           (2, 0.6, "2 bots, the first ahead 60% of the time"),
                           (2, 0.7, "2 bots, the first ahead 70% of the time")):
        rng = random.Random(f"settle/{bots}/{q}")
        runs = [one_run(bots, q, args.p, args.cycles, rng) for _ in range(args.runs)]
        for rule, name in (("new", "the arena's rule"), ("old", "one look's test asked every cycle")):
            stops = sorted(r[rule][0] for r in runs if r[rule] is not None)  # type: ignore[index]
            false = sum(r[rule][1] for r in runs if r[rule] is not None)  # type: ignore[index]
            median = f" (median cycle {stops[len(stops) // 2]})" if stops else ""
            print(f"{label}, {name}: settled at P {args.p:g} in {len(stops) / args.runs:.1%} of {args.runs} runs "
                  f"within {args.cycles} cycles{median}; falsely in {false / args.runs:.1%}")


if __name__ == "__main__":
    main()
