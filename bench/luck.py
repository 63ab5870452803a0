"""How much of a match's luck the referee's meter takes out, on the fields a user runs, and what it costs.

The known-strength family (the heuristic diluted by random actions: p0, p10, p20, p35, p50, and the random
bot) plays in-process (the bots' own policy code; the meter watches the engine, so pipes change nothing it
measures) at the bundled leagues' table size, four seats, under both presets, with seeds of this script's own
(the value file was fitted on others). Each seat's match total is the outcome; its luck is the sum of the
meter's terms with the shipped value file (:mod:`arena.luck`). Printed per preset, each with its standard
error (bootstrap over matches or deals):

* ``family``: seats drawn from the family; the share of the totals' variance ``total - luck`` removes, and of
  the table-relative totals' (a seat's total minus its table's mean: what places and ratings read); the mean
  luck, zero within its error (unbiased);
* ``equals``: four copies of p20 with their own random streams (the same bot, so every difference is luck);
* ``paired``: ``arena compare``'s design, known-p10 (NEW) against known-p20 (OLD), each deal played twice in
  the same seat against the same three family opponents: the deals a verdict needs scale with
  ``var(x) / mean(x)^2`` of the paired difference ``x``, printed for the plain place difference (what compare
  tests), the plain points difference and the luck-corrected points difference;
* the meter's cost: seconds per match in process, plain and metered, best of 5 alternated, and against a
  match of four bundled heuristic bots over real pipes.

    .venv/bin/python bench/luck.py [--matches 400] [--deals 400]   (about 15 minutes on 2 cores)

Last lines: ``luck: variance removed = V (standard), V (espanola)`` (table-relative totals, the family),
``luck: compare corrected/uncorrected = R (projected)`` (deals to a verdict, corrected points against compare's
plain place test, from the paired variances), ``luck: meter cost = R of a match`` (against a piped match).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from arena.game import Match  # noqa: E402
from arena.luck.meter import Meter  # noqa: E402
from arena.luck.value import ValueModel, load  # noqa: E402
from fit_values import STRENGTHS, policies  # noqa: E402
from tests.bots_examples.driver import BOTS, BotProc, PolicySeat, ProcSeat, play  # noqa: E402

SEATS = 4
BOOTSTRAP = 400
REPEATS = 5
"""Runs of each way the cost is timed by, alternated; the fastest counts."""
MODEL = load()


def metered(seats: Sequence[Any], preset: str, seed: str, model: ValueModel | None = MODEL) -> tuple[Match, Meter]:
    """One match of ``seats`` with a meter watching it (``model`` None: unwatched, the meter stays empty)."""
    meter = Meter(model or MODEL, preset, len(seats))
    make = Match if model is None else (lambda rules, n, s: Match(rules, n, s, watcher=meter))
    done = play(seats, preset, seed, copy_json=False, make_match=make)
    assert done.result is not None
    return done, meter


def relative(row: Sequence[float]) -> list[float]:
    mean = statistics.fmean(row)
    return [v - mean for v in row]


def share_removed(plain: Sequence[float], fixed: Sequence[float]) -> float:
    return 1 - statistics.pvariance(fixed) / statistics.pvariance(plain)


def boot_se(groups: Sequence[Any], stat: Callable[[Sequence[Any]], float]) -> float:
    """The bootstrap standard error of ``stat`` over resampled ``groups`` (matches, or deals)."""
    rng = random.Random(0)
    return statistics.stdev(stat([groups[rng.randrange(len(groups))] for _ in groups]) for _ in range(BOOTSTRAP))


def removed(matches: Sequence[tuple[list[float], list[float]]], table: bool) -> float:
    """Share of the (table-relative, if ``table``) totals' variance that subtracting the luck removes."""
    plain, fixed = [], []
    for totals, luck in matches:
        corrected = [t - lk for t, lk in zip(totals, luck)]
        plain.extend(relative(totals) if table else totals)
        fixed.extend(relative(corrected) if table else corrected)
    return share_removed(plain, fixed)


def field(preset: str, matches: int, pick: Callable[[random.Random], list[Any]], label: str) -> float:
    """Play ``matches`` matches of the seats ``pick`` draws; print and return the table-relative share."""
    rows = []
    for index in range(matches):
        rng = random.Random(f"luck/{label}/{preset}/{index}")
        done, meter = metered([PolicySeat(c) for c in pick(rng)], preset, f"luck/{label}/{preset}/{index}")
        assert done.result is not None
        rows.append(([float(t) for t in done.result.totals], list(meter.luck)))
    flat = [v for _, luck in rows for v in luck]
    mean, se = statistics.fmean(flat), statistics.stdev(flat) / len(flat) ** 0.5
    plain = statistics.pvariance([t for totals, _ in rows for t in totals])
    rel = removed(rows, True)
    print(f"{preset} {label}: {matches} matches; total variance {plain:.1f}, removed "
          f"{removed(rows, False):.3f} (se {boot_se(rows, lambda g: removed(g, False)):.3f}); table-relative "
          f"removed {rel:.3f} (se {boot_se(rows, lambda g: removed(g, True)):.3f}); mean luck {mean:+.2f} "
          f"points (se {se:.2f})", flush=True)
    return rel


def efficiency(xs: Sequence[float]) -> float:
    """``var / mean^2``: proportional to the deals a test of the mean needs."""
    mean = statistics.fmean(xs)
    return statistics.pvariance(xs) / mean ** 2 if mean else float("inf")


def paired(preset: str, deals: int) -> float:
    """compare's design, NEW known-p10 against OLD known-p20; print the three differences, return the
    projected ratio of deals to a verdict (corrected points over plain places)."""
    classes = dict(zip(STRENGTHS, policies()))
    rows = []
    for deal in range(deals):
        rng = random.Random(f"luck/paired/{preset}/{deal}")
        seat = deal % SEATS
        others = [classes[rng.choice(STRENGTHS)] for _ in range(SEATS - 1)]
        out = []
        for mine in (classes[0.1], classes[0.2]):
            lineup = others[:seat] + [mine] + others[seat:]
            done, meter = metered([PolicySeat(c) for c in lineup], preset, f"luck/paired/{preset}/{deal}")
            assert done.result is not None
            out.append((done.result.places[seat], done.result.totals[seat], meter.luck[seat]))
        (p_new, t_new, l_new), (p_old, t_old, l_old) = out
        rows.append((p_new - p_old, t_new - t_old, (t_new - l_new) - (t_old - l_old)))
    label = ("place", "points", "corrected points")
    for i, name in enumerate(label):
        xs = [r[i] for r in rows]
        print(f"{preset} paired: {deals} deals; {name} difference mean {statistics.fmean(xs):+.3f} "
              f"sd {statistics.pstdev(xs):.3f}; var/mean^2 {efficiency(xs):.2f}", flush=True)

    def ratio(group: Sequence[tuple[float, float, float]]) -> float:
        return efficiency([r[2] for r in group]) / efficiency([r[0] for r in group])

    points = efficiency([r[2] for r in rows]) / efficiency([r[1] for r in rows])
    print(f"{preset} paired: corrected/plain points = {points:.3f}; corrected points/plain place = "
          f"{ratio(rows):.3f} (se {boot_se(rows, ratio):.3f})", flush=True)
    return ratio(rows)


def seconds_per_match(preset: str, matches: int, model: ValueModel | None) -> float:
    heuristic = policies()[0]
    start = time.perf_counter()
    for index in range(matches):
        metered([PolicySeat(heuristic) for _ in range(SEATS)], preset, f"luck/cost/{index}", model)
    return (time.perf_counter() - start) / matches


def piped_seconds(preset: str, matches: int) -> float:
    """Seconds per match of four bundled heuristic bots over real pipes (processes started per match)."""
    start = time.perf_counter()
    for index in range(matches):
        procs = [BotProc(BOTS / "heuristic") for _ in range(SEATS)]
        try:
            play([ProcSeat(p) for p in procs], preset, f"luck/cost/{index}")
        finally:
            for proc in procs:
                proc.close()
    return (time.perf_counter() - start) / matches


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=400)
    parser.add_argument("--deals", type=int, default=400)
    args = parser.parse_args()
    classes = policies()
    shares, ratios, costs = {}, {}, []
    for preset in ("standard", "espanola"):
        shares[preset] = field(preset, args.matches, lambda rng: [rng.choice(classes) for _ in range(SEATS)],
                               "family")
        field(preset, args.matches, lambda rng: [classes[STRENGTHS.index(0.2)]] * SEATS, "equals")
        ratios[preset] = paired(preset, args.deals)
        few, plains, watches, pipes = 10, [], [], []
        for _ in range(REPEATS):  # alternated, so that a busy spell slows both ways alike
            plains.append(seconds_per_match(preset, few, None))
            watches.append(seconds_per_match(preset, few, MODEL))
            pipes.append(piped_seconds(preset, 3))
        plain, watched, piped = min(plains), min(watches), min(pipes)
        costs.append((watched - plain) / piped)
        print(f"{preset} cost: per match, best of {REPEATS}: {plain * 1000:.1f} ms in process, {watched * 1000:.1f} ms "
              f"metered ({watched / plain - 1:+.2f}); {piped * 1000:.0f} ms over pipes (four bundled heuristic "
              f"bots): the meter adds {(watched - plain) / piped:.3f} of a piped match", flush=True)
    print(f"luck: variance removed = {shares['standard']:.3f} (standard), {shares['espanola']:.3f} (espanola)")
    print(f"luck: compare corrected/uncorrected = {ratios['standard']:.3f} (standard), {ratios['espanola']:.3f} "
          f"(espanola) (projected from the paired variances)")
    print(f"luck: meter cost = {max(costs):.3f} of a match (four bundled heuristic bots over pipes)")


if __name__ == "__main__":
    main()
