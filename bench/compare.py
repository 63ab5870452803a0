"""``arena compare``'s error rates and the worth of pairing, measured on bots of known strength.

In-process (the policy classes of ``bots/lib``, the test driver of ``tests/bots_examples``), with
``arena compare``'s own test (:mod:`arena.compare.sprt`) and its tables (seat ``k mod 4`` in deal
``k``, opponents in turn from the field, the same match id for both matches of a deal). The field is
the bundled bots that run in-process: random, heuristic, and known-p50. Standard rules, 4 seats.

1. Equal bots: ``--self`` (200) comparisons of ``known-p{p}`` against a twin of itself whose random
   choices come from another stream (p = 0.1, 0.2, 0.35, 0.5 in turn), each on its own deals: the
   fraction called better and worse (each should be at most alpha/2, together at most alpha), how
   often the 95% interval held the true effect 0, and the matches used. A bot compared with its
   exact copy plays the same moves and is reported apart (``no difference`` after 146 matches).
   The same at other margins, cheaply: ``--pool`` (250) played twin deals per p, their paired
   differences (and their negatives, so that the mean is exactly 0) drawn at random as a test's
   deals, 2,000 tests per margin (0.1, 0.2, 0.3). ``--pool 0 --self-from 200`` plays 200 further
   played comparisons alone (deals of their own), to narrow the played rate.
2. The family: ``--reps`` (8) comparisons of each neighbouring pair (p0/p10, p10/p20, p20/p35,
   p35/p50, p50/p100), half with the stronger one as NEW: the fraction in the right direction
   (should be at least 1 - beta when the pair's difference is at least the margin).
3. Pairing: ``--ratio-reps`` (24) comparisons of p = 0.1 against p = 0.2 on paired deals, and as
   many on independent deals (NEW and OLD each on a deal of its own), same test otherwise.

Every figure is printed; the last line is ``compare: paired/unpaired = R``, the mean matches to a
verdict on paired deals over the mean on independent deals (target R <= 0.5).

    .venv/bin/python bench/compare.py [--self 200] [--pool 250] [--reps 8] [--ratio-reps 24] [--margin 0.1]
        [--self-margin 0.3] [--jobs 1]

The equal-bot comparisons run at ``--self-margin`` (0.3): a larger margin stops sooner, on fewer
deals, where the normal approximation and the estimated variance are least accurate, so it is the
harder check of alpha (and a ninth of the cost of margin 0.1).
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.compare.sprt import BETTER, NO_DIFFERENCE, WORSE, Plan, Sequential, Verdict  # noqa: E402
from tests.bots_examples.driver import PolicySeat, play  # noqa: E402
from tests.bots_examples.driver import BOTS  # noqa: E402
from tests.bots_examples.measure import load_module, random_class  # noqa: E402

SEATS = 4
PRESET = "standard"
MAX_DEALS = 3000
"""Deals before a comparison is left undecided (6,000 matches)."""
SELF_PS = (0.1, 0.2, 0.35, 0.5)
RATIO_REPS = 24
"""Comparisons each way behind ``compare: paired/unpaired`` (the matches to a verdict vary by half their mean)."""
FAMILY = (0.0, 0.1, 0.2, 0.35, 0.5, 1.0)

_strategy = load_module("bench_compare_heuristic_strategy", BOTS / "lib" / "heuristic_strategy.py")


def known(p: float, twin: bool = False) -> Any:
    """``known_strength(p)``; a twin draws its random choices from a stream of its own: an equal bot, other moves."""
    base = _strategy.known_strength(p)
    if not twin:
        return base

    class Twin(base):  # type: ignore[misc, valid-type]
        def __init__(self, hello: dict[str, Any], params: dict[str, float] | None = None) -> None:
            super().__init__(hello, params)
            self.rng = random.Random(f"twin/{hello.get('match', '')}/{hello.get('seat', 0)}/{p}")

    return Twin


def field() -> list[Any]:
    return [random_class(), _strategy.HeuristicPolicy, known(0.5)]


@dataclass(frozen=True)
class Run:
    verdict: Verdict | None
    deals: int
    mean: float
    low: float
    high: float

    @property
    def matches(self) -> int:
        return 2 * self.deals


def _place(bot: Any, seat: int, opponents: list[Any], seed: str, match_id: str) -> int:
    seats = list(opponents)
    seats.insert(seat, bot)
    match = play([PolicySeat(c) for c in seats], PRESET, seed, match_id=match_id, copy_json=False)
    assert match.result is not None
    return match.result.places[seat]


def compare(new: Any, old: Any, plan: Plan, label: str, paired: bool = True) -> Run:
    """One comparison as ``arena compare`` runs it (paired), or on independent deals (``paired=False``)."""
    test = Sequential(plan)
    opponents_of = field()
    for deal in range(MAX_DEALS):
        seat = deal % SEATS
        opponents = [opponents_of[(deal + j) % len(opponents_of)] for j in range(SEATS - 1)]
        if paired:
            seeds = [(f"{label}/{deal}", f"m-{label}-{deal}")] * 2
        else:
            seeds = [(f"{label}/{deal}/{side}", f"m-{label}-{deal}-{side}") for side in ("new", "old")]
        diff = (_place(new, seat, opponents, *seeds[0]) - _place(old, seat, opponents, *seeds[1]))
        if test.add(diff) is not None:
            break
    low, high = test.diffs.interval()
    return Run(test.verdict, test.deals, test.diffs.mean, low, high)


def twin_pool(deals: int) -> list[list[int]]:
    """Paired place differences of ``deals`` played deals of each ``known-p{p}`` against its twin."""
    pools = []
    opponents_of = field()
    for p in SELF_PS:
        diffs = []
        for deal in range(deals):
            seat = deal % SEATS
            opponents = [opponents_of[(deal + j) % len(opponents_of)] for j in range(SEATS - 1)]
            label = (f"pool{p}/{deal}", f"m-pool{p}-{deal}")
            diffs.append(_place(known(p, True), seat, opponents, *label) - _place(known(p), seat, opponents, *label))
        pools.append(diffs + [-x for x in diffs])
    return pools


def resampled(pools: list[list[int]], margin: float, tests: int, seed: int) -> tuple[float, float]:
    """False verdicts and mean matches of ``tests`` tests on deals drawn from the pools (mean 0)."""
    rng = random.Random(seed)
    false, deals = 0, 0
    for i in range(tests):
        pool = pools[i % len(pools)]
        test = Sequential(Plan(margin=margin))
        while test.add(rng.choice(pool)) is None and test.deals < MAX_DEALS:
            pass
        false += test.verdict in (BETTER, WORSE)
        deals += test.deals
    return false / tests, 2 * deals / tests


def _task(args: tuple[str, float, float, bool, float, bool, str]) -> Run:
    kind, p_new, p_old, twin, margin, paired, label = args
    return compare(known(p_new, twin), known(p_old), Plan(margin=margin), label, paired)


def _runs(tasks: list[tuple[str, float, float, bool, float, bool, str]], jobs: int) -> list[Run]:
    if jobs <= 1:
        return [_task(t) for t in tasks]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(_task, tasks, chunksize=1)


def _summary(runs: list[Run]) -> str:
    used = [r.matches for r in runs]
    return (f"matches to a verdict: mean {statistics.mean(used):.0f}, median {statistics.median(used):.0f}, "
            f"max {max(used)}")


def _count(runs: list[Run], verdict: Verdict | None) -> int:
    return sum(r.verdict is verdict for r in runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--self", dest="self_runs", type=int, default=200)
    parser.add_argument("--self-from", type=int, default=0, help="Number of the first equal-bot comparison "
                        "(each has deals of its own: --self-from 200 plays 200 others).")
    parser.add_argument("--pool", type=int, default=250)
    parser.add_argument("--reps", type=int, default=8)
    parser.add_argument("--ratio-reps", type=int, default=RATIO_REPS)
    parser.add_argument("--margin", type=float, default=0.1)
    parser.add_argument("--self-margin", type=float, default=0.3)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--only", choices=("self", "family", "ratio"), action="append", default=None,
                        help="Run only this part (repeatable; default: all three).")
    args = parser.parse_args()
    plan = Plan(margin=args.margin)
    start = time.time()
    print(f"compare bench: {PRESET}, {SEATS} seats, field random, heuristic, known-p50; alpha {plan.alpha}, "
          f"beta {plan.beta}; at most {2 * MAX_DEALS} matches a comparison", flush=True)

    parts = set(args.only or ("self", "family", "ratio"))
    if "self" in parts:
        equal_bots(args, plan)
    if "family" in parts:
        family(args, plan)
    ratio = pairing(args.ratio_reps, args.margin, args.jobs) if "ratio" in parts else None
    print(f"bench time {time.time() - start:.0f} s")
    if ratio is not None:
        print(f"compare: paired/unpaired = {ratio:.2f}")


def pairing(reps: int, margin: float, jobs: int) -> float:
    """Part 3: ``reps`` comparisons of p10 against p20 on paired deals and as many on independent ones,
    each line printed; the mean matches to a verdict paired over the mean unpaired."""
    means: dict[bool, float] = {}
    for paired in (True, False):
        tasks = [("ratio", 0.1, 0.2, False, margin, paired, f"ratio{'p' if paired else 'u'}{i}") for i in range(reps)]
        runs = _runs(tasks, jobs)
        means[paired] = statistics.mean(r.matches for r in runs)
        print(f"p10 against p20 on {'paired' if paired else 'independent'} deals, margin {margin:g}: "
              f"{_count(runs, BETTER)} better, {_count(runs, WORSE)} worse, {_count(runs, NO_DIFFERENCE)} no "
              f"difference, {_count(runs, None)} undecided; {_summary(runs)}", flush=True)
    return means[True] / means[False]


def equal_bots(args: argparse.Namespace, plan: Plan) -> None:
    """Part 1: equal bots, played and resampled."""
    if args.pool:
        exact = [compare(known(0.1), known(0.1), Plan(margin=args.margin), f"exact{i}") for i in range(3)]
        print(f"exact copy (known-p10 against itself, margin {args.margin:g}): "
              + ", ".join(f"{r.verdict.value if r.verdict else 'undecided'} after {r.matches}" for r in exact),
              flush=True)

    first = args.self_from
    tasks = [("self", SELF_PS[i % len(SELF_PS)], SELF_PS[i % len(SELF_PS)], True, args.self_margin, True, f"self{i}")
             for i in range(first, first + args.self_runs)]
    runs = _runs(tasks, args.jobs)
    better, worse, same = _count(runs, BETTER), _count(runs, WORSE), _count(runs, NO_DIFFERENCE)
    held = sum(r.low <= 0.0 <= r.high for r in runs)
    print(f"equal bots, margin {args.self_margin:g}: {len(runs)} comparisons: {better} better, {worse} worse, "
          f"{same} no difference, {len(runs) - better - worse - same} undecided; false verdicts "
          f"{(better + worse) / len(runs):.3f} (alpha {plan.alpha}); 95% interval held 0 in {held / len(runs):.3f}; "
          f"{_summary(runs)}", flush=True)

    pools = twin_pool(args.pool)
    for margin in (0.1, 0.2, 0.3) if args.pool else ():
        rate, used = resampled(pools, margin, 2000, seed=round(margin * 10))
        print(f"equal bots, resampled from {len(pools) * args.pool} played deals, margin {margin:g}: 2000 tests, "
              f"false verdicts {rate:.3f} (alpha {plan.alpha}); mean {used:.0f} matches to a verdict", flush=True)


def family(args: argparse.Namespace, plan: Plan) -> None:
    """Part 2: neighbours of the known-strength family, each way round."""
    right_total, pair_total = 0, 0
    for strong, weak in zip(FAMILY, FAMILY[1:]) if args.reps else ():
        tasks = []
        for rep in range(args.reps):
            new, old = (strong, weak) if rep % 2 == 0 else (weak, strong)
            tasks.append(("pair", new, old, False, args.margin, True, f"pair{strong}-{weak}/{rep}"))
        runs = _runs(tasks, args.jobs)
        right = sum(r.verdict is (BETTER if t[1] == strong else WORSE) for r, t in zip(runs, tasks))
        effect = statistics.mean(r.mean if t[1] == strong else -r.mean for r, t in zip(runs, tasks))
        right_total, pair_total = right_total + right, pair_total + len(runs)
        print(f"p{round(strong * 100)} against p{round(weak * 100)}, margin {args.margin:g}: {right}/{len(runs)} in "
              f"the right direction, {_count(runs, NO_DIFFERENCE)} no difference, {_count(runs, None)} undecided; "
              f"place difference of the stronger {effect:+.3f} per match; {_summary(runs)}", flush=True)
    print(f"family: {right_total}/{max(pair_total, 1)} = {right_total / pair_total:.3f} in the right direction "
          f"(1 - beta = {1 - plan.beta})" if pair_total else "family: not run (--reps 0)", flush=True)


if __name__ == "__main__":
    main()
