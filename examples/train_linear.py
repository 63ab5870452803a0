"""Train a small Cabo policy against the arena, then measure it against the bundled random bot.

The policy scores each legal action of the ``act`` message with a weighted sum of a few features of
that action (what a swap would gain by the cards the seat knows, how low its hand looks before a
Cabo call, whether a claim's card is known to match, ...) and plays the best. The weights are
trained by the cross-entropy method: each generation plays every candidate on the same deals
against three in-process random opponents (fast), keeps the best fifth and draws the next
generation around them. Then the trained policy and a random one each play the same deals at a
4-seat table against three copies of ``bots/random``, run under the sandbox exactly as in a
tournament, a quarter of the deals in each seat; the script prints both average places.

    .venv/bin/python examples/train_linear.py                # 80 to 140 s on 2 cores (docs/training.md)
    .venv/bin/python examples/train_linear.py --generations 4 --eval 40   # a quick look

Needs NumPy, PettingZoo and Gymnasium: ``pip install 'cabo-arena[env]'`` (docs/training.md).
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from arena.env import cabo_gym, random_policy  # noqa: E402

KINDS = ("draw", "take", "cabo", "swap", "multi", "discard", "peek", "spy", "blind_swap", "look", "place",
         "claim", "pass", "look_initial")
FEATURES = len(KINDS) + 8


def features(message: Mapping[str, Any], values: Mapping[str, int]) -> np.ndarray:
    """One row per legal action: its kind, then what it is worth by what the seat knows."""
    state = message["state"]
    me = state["seat"]
    mean = float(np.mean(list(values.values())))
    top = max(abs(v) for v in values.values())

    def worth(card: Any) -> float:  # a card's value, or the average for one the seat does not know
        return mean if card == "?" else float(values.get(card, mean))

    mine = state["hands"][me]
    slots = [worth(c) for c in mine if c is not None]
    held = worth(state["held"]) if state.get("held") else None
    discard = state["discard"][-1] if state["discard"] else None
    worst = max(slots, default=0.0)
    rows = np.zeros((len(message["legal"]), FEATURES), dtype=np.float32)
    for i, action in enumerate(message["legal"]):
        kind = action["do"]
        rows[i, KINDS.index(kind)] = 1.0
        extra = rows[i, len(KINDS):]
        if kind == "swap" and held is not None:
            extra[0] = (worth(mine[action["slot"]]) - held) / top
        elif kind == "discard" and held is not None:
            extra[1] = -max(0.0, worst - held) / top
        elif kind == "take" and discard is not None:
            extra[2] = (worst - values.get(discard, mean)) / top
        elif kind == "cabo":
            extra[3] = sum(slots) / (4 * top)
            extra[4] = sum(1 for c in mine if c == "?") / 4
        elif kind == "claim" and discard is not None:
            card = mine[action["slot"]]
            extra[5] = 0.0 if card == "?" else (1.0 if card[:-1] == discard[:-1] else -1.0)
        elif kind in ("peek", "spy", "look"):
            target = state["hands"][action.get("seat", me)][action["slot"]]
            extra[6] = 1.0 if target == "?" else -1.0
        elif kind == "blind_swap":
            extra[7] = (worth(mine[action["slot"]]) - worth(state["hands"][action["seat"]][action["their"]])) / top
    return rows


def linear_policy(weights: np.ndarray, values: Mapping[str, int]) -> Callable[[Mapping[str, Any]], int]:
    return lambda message: int(np.argmax(features(message, values) @ weights))


def play(env: Any, choose: Callable[[Mapping[str, Any]], int], seed: int) -> int:
    """One match of ``env`` with ``choose`` in the learner's seat; the learner's place."""
    observation, info = env.reset(seed=seed)
    done = False
    while not done:
        observation, _, done, _, info = env.step(choose(observation["message"]))
    return int(info["result"]["places"][env.seat])


def train(generations: int, population: int, deals: int, seed: int) -> np.ndarray:
    """Cross-entropy method over the weights, against three in-process random players."""
    rng = np.random.default_rng(seed)
    env = cabo_gym([random_policy(1), random_policy(2), random_policy(3)], seat=0)
    values = env.values
    mean, spread = np.zeros(FEATURES), np.ones(FEATURES)
    elite = max(2, population // 5)
    for generation in range(generations):
        candidates = mean + spread * rng.standard_normal((population, FEATURES))
        seeds = [int(s) for s in rng.integers(2**31, size=deals)]  # the same deals for every candidate
        scores = np.array([np.mean([play(env, linear_policy(w, values), s) for s in seeds]) for w in candidates])
        best = candidates[np.argsort(scores)[:elite]]
        mean, spread = best.mean(axis=0), best.std(axis=0) + 0.05
        print(f"generation {generation + 1}: average place of the best {elite}: {np.sort(scores)[:elite].mean():.2f} "
              f"(all: {scores.mean():.2f})", flush=True)
    env.close()
    return mean


def evaluate(weights: np.ndarray, deals: int, seed: int, opponent: str) -> tuple[Sequence[int], Sequence[int]]:
    """Places of the trained policy and of a random one on the same deals against three ``opponent`` bots, a
    quarter of the deals in each seat."""
    trained, uniform = [], []
    for seat in range(4):
        env = cabo_gym([opponent] * 3, seat=seat)
        values = env.values
        chooser = random_policy(seed + seat)
        for deal in range(seat, deals, 4):
            trained.append(play(env, linear_policy(weights, values), seed + deal))
            uniform.append(play(env, chooser, seed + deal))
        env.close()
    return trained, uniform


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--generations", type=int, default=15)
    parser.add_argument("--population", type=int, default=30)
    parser.add_argument("--deals", type=int, default=32, help="deals each candidate plays per generation")
    parser.add_argument("--eval", type=int, default=200, help="deals of the final measurement")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--opponent", default=str(ROOT / "bots" / "random"), help="bot directory to measure against")
    args = parser.parse_args()
    weights = train(args.generations, args.population, args.deals, args.seed)
    print("weights: " + ", ".join(f"{name} {w:+.2f}" for name, w in
                                  zip([*KINDS, "swap gain", "discard loss", "take gain", "hand before cabo",
                                       "unknown before cabo", "claim match", "look unknown", "blind gain"], weights)))
    trained, uniform = evaluate(weights, args.eval, 10_000 + args.seed, args.opponent)
    for label, places in (("trained", trained), ("random", uniform)):
        mean, se = float(np.mean(places)), float(np.std(places, ddof=1) / math.sqrt(len(places)))
        wins = sum(1 for p in places if p == 1) / len(places)
        print(f"{label}: average place {mean:.2f} ± {se:.2f}, first in {wins:.0%} of {len(places)} deals "
              f"against 3 x {Path(args.opponent).name} (4 seats)")
    diff = np.array(uniform) - np.array(trained)
    print(f"trained ahead of random on the same deals by {diff.mean():.2f} ± "
          f"{diff.std(ddof=1) / math.sqrt(len(diff)):.2f} places a match")


if __name__ == "__main__":
    main()
