"""Fit the luck meter's value function once, offline, on self-play of the bundled bots; write the value file.

The bundled policies play in-process (the heuristic, its known-strength dilutions and the random bot, the
same code the bots run), both presets, 2 to 5 seats. A meter with zero weights sums each seat's feature deltas
(:data:`arena.luck.value.FEATURES`, ``x(actual) - E[x]`` at every card the deck gives) over the match; the
least-squares regression of the seats' match totals on those sums, per preset and table size, gives the
weights: the ``V`` whose terms take the most variance out of the totals. The file is then fixed: the arena measures tournaments with
it and never refits on them (a value function tuned on the results it judges can make the variance look small
while the estimate is wrong). Run from the checkout:

    .venv/bin/python bench/fit_values.py [--matches 300] [--out arena/luck/values/cabo-v2.json]

Seeds are this script's own (``fit/...``), apart from every seed a tournament or a benchmark uses.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.game import Match  # noqa: E402
from arena.luck.meter import Meter  # noqa: E402
from arena.luck.value import DEFAULT_FILE, FEATURES, ValueModel, dumps  # noqa: E402
from tests.bots_examples.driver import PolicySeat, play  # noqa: E402
from tests.bots_examples.measure import heuristic_class, random_class  # noqa: E402

VERSION = "cabo-v2"
STRENGTHS = (0.0, 0.1, 0.2, 0.35, 0.5, 1.0)
"""The known-strength family: the heuristic diluted by a random action with these chances (1.0: random)."""


def policies() -> list[Any]:
    """A policy class per strength (random for 1.0)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fit_strategy", ROOT / "bots" / "lib" / "heuristic_strategy.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.path.insert(0, str(ROOT / "bots" / "lib"))
    spec.loader.exec_module(module)
    return [random_class() if p == 1.0 else module.known_strength(p) if p else heuristic_class() for p in STRENGTHS]


class RoundMeter(Meter):
    """A meter with zero weights that also keeps each seat's feature deltas per round."""

    def __init__(self, preset: str, players: int) -> None:
        super().__init__(ValueModel("fit", {}, ""), preset, players)
        self.rounds: dict[int, list[list[float]]] = {}

    def drawn(self, match: Any, kind: str, seat: int, card: int) -> None:
        before = [list(d) for d in self.deltas]
        super().drawn(match, kind, seat, card)
        rows = self.rounds.setdefault(match.round_no, [[0.0] * len(FEATURES) for _ in self.deltas])
        for row, now, then in zip(rows, self.deltas, before):
            for i, (a, b) in enumerate(zip(now, then)):
                row[i] += a - b


def samples(preset: str, players: int, matches: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Of ``matches`` self-play matches: per seat and round its summed feature deltas and round score, and per
    seat and match the same sums and its match total."""
    classes = policies()
    rng = random.Random(f"fit/{preset}/{players}")
    rx: list[list[float]] = []
    ry: list[float] = []
    mx: list[list[float]] = []
    my: list[float] = []
    for index in range(matches):
        meter = RoundMeter(preset, players)
        seats = [PolicySeat(rng.choice(classes)) for _ in range(players)]
        done = play(seats, preset, f"fit/{preset}/{players}/{index}", copy_json=False,
                    make_match=lambda rules, n, seed: Match(rules, n, seed, watcher=meter))
        assert done.result is not None
        for played in done.rounds:
            rx.extend(meter.rounds[played.round])
            ry.extend(float(v) for v in played.scores)
        mx.extend(meter.deltas)
        my.extend(float(t) for t in done.result.totals)
    return np.array(rx), np.array(ry), np.array(mx), np.array(my)


def fit(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, float]:
    """The least-squares ``w`` of ``y ~ c + w . x`` (the intercept is no part of ``V``: a constant's delta is
    zero) and the share of ``y``'s variance ``y - w . x`` no longer has."""
    design = np.column_stack([np.ones(len(y)), x])
    coef, *_ = np.linalg.lstsq(design, y, rcond=None)
    w = coef[1:]
    return w, 1 - float(np.var(y - x @ w)) / float(np.var(y))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=300, help="self-play matches per preset and table size")
    parser.add_argument("--out", type=Path, default=DEFAULT_FILE)
    args = parser.parse_args()
    weights = {}
    for preset in ("standard", "espanola"):
        for players in (2, 3, 4, 5):
            rx, ry, mx, my = samples(preset, players, args.matches)
            w, by_round = fit(rx, ry)
            removed = 1 - float(np.var(my - mx @ w)) / float(np.var(my))
            weights[(preset, players)] = [float(v) for v in w]
            print(f"{preset}/{players}: {len(ry)} round scores, variance removed {by_round:.3f}; {len(my)} match "
                  f"totals, {removed:.3f} (in sample; a match fit alone: {fit(mx, my)[1]:.3f}), "
                  f"w = {', '.join(f'{n} {v:.3f}' for n, v in zip(FEATURES, w))}", flush=True)
    args.out.write_text(dumps(VERSION, weights, f"bench/fit_values.py --matches {args.matches}"), encoding="utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
