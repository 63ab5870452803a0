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
* ``compare``: ``arena compare``'s own SPRT (:func:`arena.compare.stats.new_test`) played to its answers, on its
  own tables (the seat turns, the field of ``bench/compare.py``: random, heuristic, known-p50), three tests fed the
  same deals side by side: the default test of luck-corrected points (its default margin), the place test of
  ``--luck off`` (its default margin) and, to tell the correction's part from the unit's, the same points test
  without the correction. ``--compare-reps`` (24) comparisons of known-p10 (NEW) against known-p20 per preset,
  and ``--false-reps`` (400) comparisons of equal bots under ``standard``: known-p{10,20,35,50} against a twin
  drawing its random choices from its own stream (equal strength, other moves), at the default margins; then the
  default test at margins 4, 5 and 6 points, 2,000 tests each on deals drawn from ``--pool`` (250) played twin
  deals per p and their negatives (a mean of exactly zero), as ``bench/compare.py`` does;
* ``settle``: ``--settle-seeds`` (20) round robins of the known-strength family per preset, ``--settle-matches``
  (180) matches each (the arena's schedule, ``bench/calibration.py``'s games, metered), rated by TrueSkill on places,
  by the points model on luck-corrected totals and by the same model on plain totals: matches until the board's
  order is the true one for good;
* the meter's cost: seconds per match in process, plain and metered, best of 5 alternated, and against a
  match of four bundled heuristic bots over real pipes.

    .venv/bin/python bench/luck.py [--matches 400] [--deals 400] [--compare-reps 24] [--false-reps 400] [--pool 250]
        [--settle-seeds 20] [--settle-matches 180] [--jobs 2] [--only PART]   (about 17 minutes on 2 cores)

Last lines: ``luck: variance removed = V (standard), V (espanola)`` (table-relative totals, the family),
``luck: compare corrected/uncorrected = R`` (mean matches to a verdict of the default test over the place test's,
p10 against p20, per preset, played), ``luck: false verdicts = F (alpha A)`` (equal bots called better by the
default test), ``luck: matches to settle corrected/trueskill = R`` (the points model over TrueSkill on the family, the mean of
both presets), ``luck: meter cost = R of a match`` (against a piped match).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from arena.compare.stats import PLACES_MARGIN, POINTS_MARGIN, new_test  # noqa: E402
from arena.evidence.sequential import Answer, Sprt  # noqa: E402
from arena.game import Match  # noqa: E402
from arena.luck.meter import Meter  # noqa: E402
from arena.tournament.rating import RatingParams, exposure, model_of  # noqa: E402
from arena.luck.value import ValueModel, load  # noqa: E402
from calibration import one_field  # noqa: E402
from calibration import policies as field_policies  # noqa: E402
from compare import known  # noqa: E402
from compare import field as compare_field  # noqa: E402
from fit_values import STRENGTHS, policies  # noqa: E402
from tests.bots_examples.driver import BOTS, BotProc, PolicySeat, ProcSeat, play  # noqa: E402

SEATS = 4
PARTS = ("variance", "compare", "false", "settle", "cost")
BOOTSTRAP = 400
REPEATS = 5
"""Runs of each way the cost is timed by, alternated; the fastest counts."""
MODEL = load()


def metered(seats: Sequence[Any], preset: str, seed: str, model: ValueModel | None = MODEL,
            match_id: str | None = None) -> tuple[Match, Meter]:
    """One match of ``seats`` with a meter watching it (``model`` None: unwatched, the meter stays empty)."""
    meter = Meter(model or MODEL, preset, len(seats))
    make = Match if model is None else (lambda rules, n, s: Match(rules, n, s, watcher=meter))
    done = play(seats, preset, seed, copy_json=False, make_match=make, match_id=match_id)
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


COMPARE_MAX_DEALS = 1500
"""Deals before a played comparison is left undecided."""
TESTS = ("corrected", "points", "places")
"""The tests fed each deal side by side: the default (luck-corrected points), the same points test without the
correction, and the plain place test of ``--luck off``."""


def _tests(points_margin: float, places_margin: float) -> dict[str, Sprt]:
    return {"corrected": new_test(True, points_margin), "points": new_test(True, points_margin),
            "places": new_test(False, places_margin)}


def deal_diffs(new: Any, old: Any, preset: str, label: str, deal: int) -> dict[str, float]:
    """Deal ``deal`` played twice as ``arena compare`` plays it (the seat turns, opponents from ``bench/compare.py``'s
    field in turn, one match id for both): NEW minus OLD in luck-corrected points, plain points and places."""
    opponents_of = compare_field()
    seat = deal % SEATS
    opponents = [opponents_of[(deal + j) % len(opponents_of)] for j in range(SEATS - 1)]
    got = []
    for bot in (new, old):
        lineup = list(opponents)
        lineup.insert(seat, bot)
        done, meter = metered([PolicySeat(c) for c in lineup], preset, f"{label}/{deal}", match_id=f"m-{label}-{deal}")
        assert done.result is not None
        got.append((done.result.places[seat], done.result.totals[seat], meter.luck[seat]))
    (p_n, t_n, l_n), (p_o, t_o, l_o) = got
    return {"corrected": (t_n - l_n) - (t_o - l_o), "points": float(t_n - t_o), "places": float(p_n - p_o)}


def played_comparison(task: tuple[str, float, float, bool, float, float, str]) -> dict[str, Any]:
    """One comparison as ``arena compare`` plays it, the three tests fed the same deals until each has a verdict:
    per test its answer and deals, and the largest corrected difference seen. A test's gain is OLD minus NEW."""
    preset, p_new, p_old, twin, points_margin, places_margin, label = task
    new, old = known(p_new, twin), known(p_old)
    tests = _tests(points_margin, places_margin)
    largest = 0.0
    for deal in range(COMPARE_MAX_DEALS):
        diffs = deal_diffs(new, old, preset, label, deal)
        largest = max(largest, abs(diffs["corrected"]))
        for name, test in tests.items():
            if test.answer is None:
                test.add(-diffs[name])
        if all(test.answer is not None for test in tests.values()):
            break
    return {"largest": largest, **{name: (test.answer, test.deals) for name, test in tests.items()}}


def _played(tasks: list[tuple[str, float, float, bool, float, float, str]], jobs: int) -> list[dict[str, Any]]:
    if jobs <= 1:
        return [played_comparison(t) for t in tasks]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(played_comparison, tasks, chunksize=1)


def _verdicts(runs: Sequence[dict[str, Any]], name: str) -> str:
    count = {v: sum(r[name][0] is v for r in runs) for v in (Answer.H1, Answer.H0, None)}
    matches = [2 * r[name][1] for r in runs]
    return (f"{count[Answer.H1]} better, {count[Answer.H0]} not better, {count[None]} undecided; matches to a verdict: mean {statistics.fmean(matches):.0f}, median "
            f"{statistics.median(matches):.0f}, max {max(matches)}")


def wilson_upper(hits: int, n: int, z: float = 1.959964) -> float:
    """The upper end of the Wilson 95% interval of a rate of ``hits`` in ``n`` (honest at 0 hits, unlike a se)."""
    rate = hits / n
    centre = rate + z * z / (2 * n)
    spread = z * math.sqrt((rate * (1 - rate) + z * z / (4 * n)) / n)
    return (centre + spread) / (1 + z * z / n)


def twin_deals(task: tuple[float, int]) -> list[float]:
    """Paired luck-corrected differences of ``deals`` played deals of known-p{p} against its twin (standard)."""
    p, deals = task
    return [deal_diffs(known(p, True), known(p), "standard", f"lpool{p}", deal)["corrected"] for deal in range(deals)]


def resampled_false(deals: int, tests: int, jobs: int) -> None:
    """The default test at smaller margins, where 400 played comparisons would take many hours: ``tests`` tests a
    margin on deals drawn from ``deals`` played twin deals per p and their negatives (a mean of exactly 0)."""
    ps = (0.1, 0.2, 0.35, 0.5)
    with multiprocessing.get_context("fork").Pool(max(jobs, 1)) as pool:
        pools = [diffs + [-x for x in diffs] for diffs in pool.map(twin_deals, [(p, deals) for p in ps])]
    for margin in (4.0, 5.0, 6.0):
        rng = random.Random(round(margin * 10))
        wrong, used = 0, 0
        for i in range(tests):
            drawn = pools[i % len(pools)]
            test = new_test(True, margin)
            while test.add(rng.choice(drawn)) is None and test.deals < COMPARE_MAX_DEALS * 2:
                pass
            wrong += test.answer is Answer.H1
            used += test.deals
        print(f"standard equal bots, resampled from {len(ps) * deals} played twin deals, corrected test at margin "
              f"{margin:g} points: {tests} tests, called better {wrong / tests:.3f} (95% upper bound "
              f"{wilson_upper(wrong, tests):.3f}); mean {2 * used / tests:.0f} matches to a verdict", flush=True)


def compare_speed(preset: str, reps: int, jobs: int) -> float:
    """known-p10 against known-p20, ``reps`` played comparisons: print each test's verdicts and matches, return the
    mean matches of the default test over the plain place test's."""
    runs = _played([(preset, 0.1, 0.2, False, POINTS_MARGIN, PLACES_MARGIN, f"lcmp/{preset}/{i}")
                    for i in range(reps)], jobs)
    for name in TESTS:
        print(f"{preset} compare p10 against p20, {name} test: {_verdicts(runs, name)}", flush=True)

    def ratio(group: Sequence[dict[str, Any]], top: str = "corrected", bottom: str = "places") -> float:
        return statistics.fmean(r[top][1] for r in group) / statistics.fmean(r[bottom][1] for r in group)

    print(f"{preset} compare: corrected/places = {ratio(runs):.3f} (se {boot_se(runs, ratio):.3f}); "
          f"corrected/plain points = {ratio(runs, bottom='points'):.3f} "
          f"(se {boot_se(runs, lambda g: ratio(g, bottom='points')):.3f}); largest corrected difference "
          f"{max(r['largest'] for r in runs):.1f} points", flush=True)
    return ratio(runs)


def false_verdicts(reps: int, jobs: int) -> float:
    """``reps`` played comparisons of a known-p bot against its twin under ``standard``: print how often each test
    called one better; return the default test's rate."""
    ps = (0.1, 0.2, 0.35, 0.5)
    runs = _played([("standard", ps[i % 4], ps[i % 4], True, POINTS_MARGIN, PLACES_MARGIN, f"lfalse/{i}")
                    for i in range(reps)], jobs)
    rates = {}
    for name in TESTS:
        wrong = sum(r[name][0] is Answer.H1 for r in runs)
        rates[name] = wrong / len(runs)
        margin = f"{PLACES_MARGIN:g} places" if name == "places" else f"{POINTS_MARGIN:g} points"
        print(f"standard equal bots, {name} test (margin {margin}): {_verdicts(runs, name)}; called better "
              f"{rates[name]:.3f} ({wrong} of {len(runs)}; 95% upper bound {wilson_upper(wrong, len(runs)):.3f})",
              flush=True)
    print(f"standard equal bots: largest corrected difference {max(r['largest'] for r in runs):.1f} points", flush=True)
    return rates["corrected"]


SETTLE_MODELS = ("trueskill", "points", "points, uncorrected")
"""Rated on the same games: the default, on places; the model of luck-corrected points; the same model on the
plain totals (the correction's own part)."""


def settled_after(played: Sequence[tuple[Any, ...]], truth: Sequence[str], model_name: str) -> int | None:
    """Matches after which the board's order (mu - 3 sigma) is the true one and stays so; None if wrong at the end.
    Strictly: bots tied on the board (two that have not played, say) are not yet in order."""
    model = model_of(RatingParams(model=model_name.split(",")[0]))
    ratings = {name: model.fresh() for name in truth}
    last_wrong = 0
    for index, (bots, places, corrected, totals) in enumerate(played):
        model.update(ratings, bots, places, totals if model_name.endswith("uncorrected") else corrected)
        shown = [exposure(ratings[b]) for b in truth]
        if any(ahead <= behind for ahead, behind in zip(shown, shown[1:])):
            last_wrong = index + 1
    return None if last_wrong == len(played) else last_wrong


def settle_run(task: tuple[str, int, int]) -> dict[str, int | None]:
    """One round robin of the known-strength field (the arena's schedule, metered), each model's matches to settle."""
    preset, seed, matches = task
    classes = field_policies()
    played = one_field(classes, preset, seed, matches)
    return {name: settled_after(played, list(classes), name) for name in SETTLE_MODELS}


def settle(seeds: int, matches: int, jobs: int) -> float:
    """Per preset, ``seeds`` round robins of ``matches`` matches: each model's mean matches to settle (an unsettled
    run counts as ``matches``); return the points model's over TrueSkill's, the mean over both presets."""
    ratios = []
    for preset in ("standard", "espanola"):
        tasks = [(preset, 7000 + seed, matches) for seed in range(seeds)]
        if jobs <= 1:
            runs = [settle_run(t) for t in tasks]
        else:
            with multiprocessing.get_context("fork").Pool(jobs) as pool:
                runs = pool.map(settle_run, tasks, chunksize=1)

        def mean(group: Sequence[dict[str, int | None]], name: str) -> float:
            return statistics.fmean(matches if r[name] is None else r[name] for r in group)  # type: ignore[misc]

        def ratio(group: Sequence[dict[str, int | None]]) -> float:
            return mean(group, "points") / mean(group, "trueskill")

        shown = ", ".join(f"{name} {mean(runs, name):.1f} [{sum(r[name] is None for r in runs)} unsettled]"
                          for name in SETTLE_MODELS)
        ratios.append(ratio(runs))

        def own(group: Sequence[dict[str, int | None]]) -> float:
            return mean(group, "points") / mean(group, "points, uncorrected")

        print(f"{preset} settle: {seeds} round robins of the known-strength field, {matches} matches each: matches "
              f"until the board's order is the true one for good: {shown}; points/trueskill {ratios[-1]:.3f} "
              f"(se {boot_se(runs, ratio):.3f}); corrected/uncorrected points {own(runs):.3f} "
              f"(se {boot_se(runs, own):.3f})", flush=True)
    return statistics.fmean(ratios)


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
    parser.add_argument("--compare-reps", type=int, default=24)
    parser.add_argument("--false-reps", type=int, default=400)
    parser.add_argument("--pool", type=int, default=250, help="Played twin deals per p behind the resampled tests "
                        "of the default margin (0: none).")
    parser.add_argument("--settle-seeds", type=int, default=20)
    parser.add_argument("--settle-matches", type=int, default=180)
    parser.add_argument("--jobs", type=int, default=2, help="Processes for the played comparisons and round robins.")
    parser.add_argument("--only", choices=PARTS, action="append", default=None,
                        help="Run only this part (repeatable; default: all).")
    args = parser.parse_args()
    parts = set(args.only or PARTS)
    classes = policies()
    shares, projected, ratios, costs = {}, {}, {}, []
    for preset in ("standard", "espanola"):
        if "variance" in parts:
            shares[preset] = field(preset, args.matches, lambda rng: [rng.choice(classes) for _ in range(SEATS)],
                                   "family")
            field(preset, args.matches, lambda rng: [classes[STRENGTHS.index(0.2)]] * SEATS, "equals")
            projected[preset] = paired(preset, args.deals)
        if "compare" in parts:
            ratios[preset] = compare_speed(preset, args.compare_reps, args.jobs)
        if "cost" not in parts:
            continue
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
    false = false_verdicts(args.false_reps, args.jobs) if "false" in parts and args.false_reps else None
    if "false" in parts and args.pool:
        resampled_false(args.pool, 2000, args.jobs)
    settling = settle(args.settle_seeds, args.settle_matches, args.jobs) if "settle" in parts else None
    if shares:
        print(f"luck: variance removed = {shares['standard']:.3f} (standard), {shares['espanola']:.3f} (espanola)")
        print(f"luck: compare corrected/uncorrected projected = {projected['standard']:.3f} (standard), "
              f"{projected['espanola']:.3f} (espanola) (from the paired variances)")
    if ratios:
        print(f"luck: compare corrected/uncorrected = {ratios['standard']:.3f} (standard), {ratios['espanola']:.3f} "
              "(espanola) (played to their verdicts: the default test over --luck off's)")
    if false is not None:
        print(f"luck: false verdicts = {false:.3f} (alpha {new_test(True).plan.alpha:g})")
    if settling is not None:
        print(f"luck: matches to settle corrected/trueskill = {settling:.3f} (the points model over TrueSkill, "
              "mean of both presets)")
    if costs:
        print(f"luck: meter cost = {max(costs):.3f} of a match (four bundled heuristic bots over pipes)")


if __name__ == "__main__":
    main()
