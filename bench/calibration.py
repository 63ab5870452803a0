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

(target >= 93%). ``--widen`` scales every sigma before the intervals are drawn (1: the
posterior itself, as the boards use it), to see how much room there is; ``--tau`` rates with
another dynamics factor (0: a skill that never drifts, whose posteriors are the narrowest).

    .venv/bin/python bench/calibration.py [--seeds 20] [--matches 20,60] [--widen 1.0] [--tau T]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import trueskill  # noqa: E402

from arena.tournament.confidence import board_order, rank_intervals  # noqa: E402
from arena.tournament.rating import RatingParams, apply, make_env  # noqa: E402
from arena.tournament.schedules.round_robin import round_robin  # noqa: E402
from arena.tournament.schedules.seeds import opaque_match_id  # noqa: E402
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


def one_field(classes: dict[str, Any], preset: str, seed: int, matches: int,
              params: RatingParams) -> dict[str, trueskill.Rating]:
    """Play the first ``matches`` of the round robin with master seed ``seed``; the final ratings."""
    env = make_env(params)
    ratings = {name: env.create_rating() for name in classes}
    seats = {name: PolicySeat(cls) for name, cls in classes.items()}
    schedule = round_robin(list(classes), [SEATS], cycles=matches // 60 + 1, master=seed)
    for _, scheduled in zip(range(matches), schedule):
        match = play([seats[bot] for bot in scheduled.bots], preset, scheduled.seed,
                     match_id=opaque_match_id(seed, scheduled.match_id), copy_json=False)
        assert match.result is not None
        apply(env, ratings, scheduled.bots, list(match.result.places))
    return ratings


def measure(preset: str, seeds: Sequence[int], matches: int, widen: float, classes: dict[str, Any],
            params: RatingParams | None = None) -> tuple[int, int, float, int]:
    """(cases whose interval holds the true rank, cases, mean interval width, seeds ranked right)."""
    truth = {name: rank for rank, name in enumerate(classes, start=1)}
    hits = cases = width = exact = 0
    for seed in seeds:
        ratings = one_field(classes, preset, seed, matches, params or RatingParams())
        intervals = rank_intervals(ratings, widen=widen)
        for name, (low, high) in intervals.items():
            cases += 1
            hits += low <= truth[name] <= high
            width += high - low + 1
        exact += board_order(ratings) == list(classes)
    return hits, cases, width / max(cases, 1), exact


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="master seeds per rule set (default 20)")
    parser.add_argument("--matches", default="20,60",
                        help="matches per seed, one or more separated by commas (default 20,60; 60 is one cycle)")
    parser.add_argument("--widen", type=float, default=1.0, help="scale every sigma by this (default 1)")
    parser.add_argument("--tau", type=float, default=None,
                        help="rate with this TrueSkill tau instead of the arena's default (0: a fixed skill)")
    args = parser.parse_args(argv)
    try:
        lengths = [int(part) for part in str(args.matches).split(",")]
    except ValueError:
        parser.error(f"--matches takes whole numbers separated by commas, got {args.matches!r}")
    if args.seeds < 1 or min(lengths) < 1 or args.widen <= 0:
        parser.error("--seeds and every --matches must be at least 1, --widen above 0")
    try:
        params = RatingParams() if args.tau is None else RatingParams(tau=args.tau)
    except ValueError as exc:
        parser.error(str(exc))
    classes = policies()
    started = time.perf_counter()
    hits_all = cases_all = 0
    for matches in lengths:
        for preset in PRESETS:
            hits, cases, width, exact = measure(preset, range(1, args.seeds + 1), matches, args.widen, classes,
                                                params)
            hits_all += hits
            cases_all += cases
            print(f"{preset}: {args.seeds} seeds x {matches} matches, 95% rank intervals contain the true rank "
                  f"in {100 * hits / cases:.1f}% of {cases} cases; mean width {width:.2f} ranks; board order true "
                  f"in {exact} of {args.seeds} seeds", flush=True)
    print(f"({time.perf_counter() - started:.0f} s; tau {params.tau:g}; sigma x {args.widen:g})")
    print(f"calibration: 95% rank intervals contain the true rank in {100 * hits_all / cases_all:.1f}% "
          f"of {cases_all} cases")


if __name__ == "__main__":
    main()
