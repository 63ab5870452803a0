"""Are the boards' 95% rank intervals honest? Measured on bots whose true order is known.

The known-strength field (the heuristic playing a uniformly random legal action with
probability p = 0, 0.1, 0.2, 0.35, 0.5, 1; true order p0 first, p100 last) plays in-process,
4 seats, under each rule set, ``--seeds`` times (20) with a different master seed each time:
the arena's own round-robin schedule (every table of 4 under every rotation of one deal) cut
after each number of ``--matches`` (20 and 60), rated with the arena's own rating code and
parameters (``RatingParams()``), then ranked with the boards' own
:func:`arena.tournament.confidence.rank_intervals`. Why two lengths: after one cycle (60
matches, each of the 15 tables under its 4 rotations) the board's mu-3σ order is still wrong
in some seeds, but the order of mu is all but always the true one, so any interval around it
holds the true rank (even sigma x 0.1 does); after 20 the order of mu is often wrong, and
only intervals as wide as the uncertainty hold the truth. The first shows the intervals are
honest where it matters, the second that they narrow as the matches come in.

A case is one (seed, bot): does its interval contain its true rank? Per rule set and length
one line with that fraction, the mean interval width and how often the board order was
already the true one, then the last line, over every case::

    calibration: 95% rank intervals contain the true rank in X% of N cases

(target >= 93%), for the default model; a line for each other model (``calibration (openskill): ...``)
follows, each model rating the same games. ``--widen`` scales every sigma before the intervals are drawn (1: the
posterior itself, as the boards use it), to see how much room there is; ``--tau`` rates with
another dynamics factor (0: a skill that never drifts, whose posteriors are the narrowest).

    .venv/bin/python bench/calibration.py [--seeds 20] [--matches 20,60] [--widen 1.0] [--tau T] [--model M]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


from arena.game import Match  # noqa: E402
from arena.luck import shipped_model  # noqa: E402
from arena.luck.meter import Meter  # noqa: E402
from arena.tournament.confidence import WIDEN, board_order, rank_intervals  # noqa: E402
from arena.tournament.rating import DEFAULT_MODEL, MODELS, Rating, RatingParams, model_of  # noqa: E402
from arena.tournament.schedules.round_robin import round_robin  # noqa: E402
from arena.match.seeds import opaque_match_id  # noqa: E402
from tests.bots_examples.driver import BOTS, PolicySeat, play  # noqa: E402
from tests.bots_examples.measure import load_module  # noqa: E402

STRENGTHS = (0.0, 0.1, 0.2, 0.35, 0.5, 1.0)
"""The field's p, strongest first: a bot's true rank is its place in this list."""
PRESETS = ("standard", "espanola")
SEATS = 4


def policies() -> dict[str, Any]:
    """Each known-strength bot's policy class by name (``known-p0`` ...), played in-process."""
    module = load_module("calibration_heuristic_strategy", BOTS / "lib" / "heuristic_strategy.py")
    return {f"known-p{round(p * 100)}": module.known_strength(p) for p in STRENGTHS}


Game = tuple[tuple[str, ...], list[int], list[float], list[int]]
"""Bots by seat, their places, their totals less their luck (what the points model rates), and their totals."""


def one_field(classes: dict[str, Any], preset: str, seed: int, matches: int) -> list[Game]:
    """Play the first ``matches`` of the round robin with master seed ``seed``, the referee's luck meter watching:
    (bots, places, corrected totals, totals) of each."""
    seats = {name: PolicySeat(cls) for name, cls in classes.items()}
    schedule = round_robin(list(classes), [SEATS], cycles=matches // 60 + 1, master=seed)
    played = []
    for _, scheduled in zip(range(matches), schedule):
        meter = Meter(shipped_model(), preset, SEATS)
        match = play([seats[bot] for bot in scheduled.bots], preset, scheduled.seed,
                     match_id=opaque_match_id(seed, scheduled.match_id), copy_json=False,
                     make_match=lambda rules, n, s: Match(rules, n, s, watcher=meter))
        assert match.result is not None
        played.append((scheduled.bots, list(match.result.places),
                       [t - lk for t, lk in zip(match.result.totals, meter.luck)], list(match.result.totals)))
    return played


def rated(classes: dict[str, Any], played: Sequence[Game], params: RatingParams) -> dict[str, Rating]:
    """The final ratings of ``played`` under ``params``."""
    model = model_of(params)
    ratings = {name: model.fresh() for name in classes}
    for bots, places, scores, _ in played:
        model.update(ratings, bots, places, scores)
    return ratings


def measure(preset: str, seeds: Sequence[int], matches: int, widen: float, classes: dict[str, Any],
            params: Sequence[RatingParams] = (RatingParams(),)) -> list[tuple[int, int, float, int]]:
    """Per rating setting, on the same games: (cases whose interval holds the true rank, cases, mean
    interval width, seeds ranked right)."""
    truth = {name: rank for rank, name in enumerate(classes, start=1)}
    tallies = [[0, 0, 0, 0] for _ in params]
    for seed in seeds:
        played = one_field(classes, preset, seed, matches)
        for tally, setting in zip(tallies, params):
            ratings = rated(classes, played, setting)
            for name, (low, high) in rank_intervals(ratings, widen=widen).items():
                tally[0] += low <= truth[name] <= high
                tally[1] += 1
                tally[2] += high - low + 1
            tally[3] += board_order(ratings) == list(classes)
    return [(hits, cases, width / max(cases, 1), exact) for hits, cases, width, exact in tallies]


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="master seeds per rule set (default 20)")
    parser.add_argument("--matches", default="20,60",
                        help="matches per seed, one or more separated by commas (default 20,60; 60 is one cycle)")
    parser.add_argument("--widen", type=float, default=WIDEN, help=f"scale every sigma by this (default {WIDEN:g}, the boards')")
    parser.add_argument("--tau", type=float, default=None,
                        help="rate with this tau instead of the arena's default (0: a fixed skill)")
    parser.add_argument("--model", choices=MODELS, default=None,
                        help="rate with this model only (default: every model, on the same games)")
    args = parser.parse_args(argv)
    try:
        lengths = [int(part) for part in str(args.matches).split(",")]
    except ValueError:
        parser.error(f"--matches takes whole numbers separated by commas, got {args.matches!r}")
    if args.seeds < 1 or min(lengths) < 1 or args.widen <= 0:
        parser.error("--seeds and every --matches must be at least 1, --widen above 0")
    models = MODELS if args.model is None else (args.model,)
    try:
        params = [RatingParams(model=m) if args.tau is None else RatingParams(model=m, tau=args.tau) for m in models]
    except ValueError as exc:
        parser.error(str(exc))
    classes = policies()
    started = time.perf_counter()
    totals = {m: [0, 0] for m in models}
    for matches in lengths:
        for preset in PRESETS:
            figures = measure(preset, range(1, args.seeds + 1), matches, args.widen, classes, params)
            for model, (hits, cases, width, exact) in zip(models, figures):
                totals[model][0] += hits
                totals[model][1] += cases
                print(f"{preset} ({model}): {args.seeds} seeds x {matches} matches, 95% rank intervals contain the "
                      f"true rank in {100 * hits / cases:.1f}% of {cases} cases; mean width {width:.2f} ranks; "
                      f"board order true in {exact} of {args.seeds} seeds", flush=True)
    print(f"({time.perf_counter() - started:.0f} s; tau {params[0].tau:g}; sigma x {args.widen:g}; every model on the "
          "same games)")
    for model in models:
        hits, cases = totals[model]
        label = "" if model == DEFAULT_MODEL else f" ({model})"
        print(f"calibration{label}: 95% rank intervals contain the true rank in {100 * hits / cases:.1f}% "
              f"of {cases} cases")


if __name__ == "__main__":
    main()
