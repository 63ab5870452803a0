"""``arena compare``'s figures, measured on bots of known strength, and the choices behind its defaults.

In-process (the policy classes of ``bots/lib``, the test driver of ``tests/bots_examples``, the referee's
luck meter watching every match), with ``arena compare``'s own test (:func:`arena.compare.stats.new_test`:
fishtest's SPRT(0, margin) through :mod:`arena.evidence.sequential`) and its tables (seat ``k mod 4`` in deal
``k``, opponents in turn from the field, the same match id for both matches of a deal). The field is the
bundled bots that run in-process: random, heuristic and known-p50. Standard rules, 4 seats, alpha = beta =
0.05. The known-strength bots (``bots/known-p*``) are the heuristic playing a random legal action with
probability p; a *twin* of known-p{p} draws its random choices from a stream of its own: an equal version
that plays other moves.

Parts (``--only``, repeatable; default all but ``family`` and ``pairing``):

* ``identical``: the heuristic against a byte-identical copy of its module, and known-p10 against a copy,
  3 seeds each: every gain is 0, so every run takes the same number of matches (no standard error to give).
* ``ratio``: ``--ratio-reps`` (24) comparisons of known-p10 (NEW) against known-p20 (OLD), each deal fed to
  the default test and to the betting test ``arena compare`` ran before (its arithmetic is copied here, in
  :class:`OldTest`, at its default margin of 2.5 luck-corrected points) until both have answered: the mean
  matches of each on the same deals and their ratio, its standard error bootstrapped over comparisons.
* ``equal``: ``--equal`` (200) comparisons of known-p{p} twins against known-p{p} (p = 0.1, 0.2, 0.35, 0.5
  in turn), each on deals of its own, with the default test: the median matches (bootstrapped se) and the
  share called better (binomial se).
* ``pool``: ``--pool`` (500) played deals of each twin pair and of known-p10 against known-p20, their gains
  resampled as the deals of ``--tests`` (4,000) tests per choice of margin and ``min_deals``, in both
  currencies (a twin pool with its negatives, so that its mean is exactly 0): what each choice gives, one line
  each, and the default choice again on five times as many tests.
* ``family`` (optional): ``--reps`` (8) comparisons of each neighbouring pair of the family, half with the
  stronger as NEW: better when the stronger is NEW, not better when the weaker is.
* ``pairing`` (optional; ``bench/rating.py`` calls it): known-p10 against known-p20 on paired deals and on
  independent deals (NEW and OLD each on a deal of its own), same test otherwise.

Last lines::

    compare: matches to verdict, identical deterministic = N
    compare: known-p10 vs known-p20, new/old = R (se s) (new M1 matches, old M2 matches, same deals)
    compare: equal versions, median matches = M (se s), called better = F (se s) over N comparisons

    .venv/bin/python bench/compare.py [--equal 200] [--equal-from 0] [--ratio-reps 24] [--pool 500] [--tests 4000] [--jobs 2]
        [--only PART]   (5 to 9 minutes on 2 cores)
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import random
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.compare.stats import MIN_DEALS, PLACES_MARGIN, POINTS_MARGIN, currency_of, new_test  # noqa: E402
from arena.evidence.sequential import Answer, Sprt, SprtPlan  # noqa: E402
from arena.game import Match  # noqa: E402
from arena.luck.meter import Meter  # noqa: E402
from arena.luck.value import load  # noqa: E402
from tests.bots_examples.driver import BOTS, PolicySeat, play  # noqa: E402
from tests.bots_examples.measure import load_module, random_class  # noqa: E402

SEATS = 4
PRESET = "standard"
MAX_DEALS = 3000
"""Deals before a comparison is left undecided (6,000 matches)."""
TWIN_PS = (0.1, 0.2, 0.35, 0.5)
RATIO_REPS = 24
"""Comparisons behind ``new/old`` (and each way behind ``paired/unpaired``)."""
FAMILY = (0.0, 0.1, 0.2, 0.35, 0.5, 1.0)
GAINS = ("corrected", "points", "places")
BOOTSTRAP = 1000
MODEL = load()

_strategy = load_module("bench_compare_heuristic_strategy", BOTS / "lib" / "heuristic_strategy.py")
_copy = load_module("bench_compare_heuristic_copy", BOTS / "lib" / "heuristic_strategy.py")
"""The same file loaded a second time: a byte-identical copy of the heuristic, its own classes."""


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


def _result(bot: Any, seat: int, opponents: list[Any], seed: str, match_id: str) -> tuple[int, int, float]:
    """Place, total and luck of ``bot`` in ``seat`` of one metered match."""
    seats = list(opponents)
    seats.insert(seat, bot)
    meter = Meter(MODEL, PRESET, SEATS)
    done = play([PolicySeat(c) for c in seats], PRESET, seed, copy_json=False, match_id=match_id,
                make_match=lambda rules, n, s: Match(rules, n, s, watcher=meter))
    assert done.result is not None
    return done.result.places[seat], done.result.totals[seat], meter.luck[seat]


def deal_gains(new: Any, old: Any, label: str, deal: int, paired: bool = True) -> dict[str, float]:
    """Deal ``deal`` played as ``arena compare`` plays it: OLD's result minus NEW's (positive: NEW did better) in
    luck-corrected points, points and places. ``paired=False``: NEW and OLD each on a deal of its own."""
    opponents_of = field()
    seat = deal % SEATS
    opponents = [opponents_of[(deal + j) % len(opponents_of)] for j in range(SEATS - 1)]
    seeds = ([(f"{label}/{deal}", f"m-{label}-{deal}")] * 2 if paired else
             [(f"{label}/{deal}/{side}", f"m-{label}-{deal}-{side}") for side in ("new", "old")])
    (p_n, t_n, l_n), (p_o, t_o, l_o) = (_result(new, seat, opponents, *seeds[0]),
                                        _result(old, seat, opponents, *seeds[1]))
    return {"corrected": (t_o - l_o) - (t_n - l_n), "points": float(t_o - t_n), "places": float(p_o - p_n)}


class OldTest:
    """The betting test ``arena compare`` ran before the SPRT, kept here only to measure the new one beside it: its
    luck-corrected points test at its default margin. Four wealths bet on the paired difference ``x`` (NEW minus OLD)
    with a Kelly stake ``M / (var + M^2)`` from the deals before (a prior of 10 deals of 625 points^2), at most half
    of what a deal could take within a bound of 150 points that grows to the largest difference seen: "better" at
    ``2 / alpha``, "worse" likewise, "no difference" when both "within the margin" wealths reach ``1 / beta``."""

    def __init__(self, margin: float = 2.5, alpha: float = 0.05, beta: float = 0.05) -> None:
        self.margin, self.upper, self.lower = margin, math.log(2 / alpha), math.log(1 / beta)
        self.spread = 150.0
        self.n, self.mean, self.m2 = 0, 0.0, 0.0
        self.log = [0.0, 0.0, 0.0, 0.0]
        self.verdict: str | None = None

    @property
    def deals(self) -> int:
        return self.n

    def add(self, diff: float) -> str | None:
        m = self.margin
        variance = (self.m2 + 10 * 625.0) / (max(self.n - 1, 0) + 10)
        lam = min(m / (variance + m * m), 0.5 / (self.spread + m))
        x = max(-self.spread, min(self.spread, diff))
        for i, gain in enumerate((-x, x, x + m, m - x)):
            self.log[i] += math.log1p(lam * gain)
        self.spread = max(self.spread, abs(diff))
        self.n += 1
        delta = diff - self.mean
        self.mean += delta / self.n
        self.m2 += delta * (diff - self.mean)
        better, worse, above, below = self.log
        if better >= self.upper:
            self.verdict = "better"
        elif worse >= self.upper:
            self.verdict = "worse"
        elif above >= self.lower and below >= self.lower:
            self.verdict = "no difference"
        return self.verdict


@dataclass(frozen=True)
class Run:
    answer: Answer | None
    deals: int
    mean: float

    @property
    def matches(self) -> int:
        return 2 * self.deals


def compare(new: Any, old: Any, label: str, luck: bool = True, margin: float | None = None,
            paired: bool = True) -> Run:
    """One comparison with the default test (or ``margin``), as ``arena compare`` runs it."""
    test = new_test(luck, margin)
    key = "corrected" if luck else "places"
    for deal in range(MAX_DEALS):
        if test.add(deal_gains(new, old, label, deal, paired)[key]) is not None:
            break
    return Run(test.answer, test.deals, test.gains.mean)


def side_by_side(label: str) -> tuple[Run, str | None, int]:
    """known-p10 (NEW) against known-p20: each deal to the new test and the old one until both have answered."""
    new, old = new_test(True), OldTest()
    for deal in range(MAX_DEALS):
        gain = deal_gains(known(0.1), known(0.2), label, deal)["corrected"]
        if new.answer is None:
            new.add(gain)
        if old.verdict is None:
            old.add(-gain)
        if new.answer is not None and old.verdict is not None:
            break
    return Run(new.answer, new.deals, new.gains.mean), old.verdict, old.deals


def _task(args: tuple[Any, ...]) -> Any:
    kind, *rest = args
    if kind == "compare":
        p_new, p_old, twin, label, luck, margin, paired = rest
        return compare(known(p_new, twin), known(p_old), label, luck, margin, paired)
    if kind == "side":
        return side_by_side(rest[0])
    if kind == "pool":
        p_new, p_old, twin, label, first, count = rest
        return [deal_gains(known(p_new, twin), known(p_old), label, deal) for deal in range(first, first + count)]
    if kind == "identical":
        bot, seed = rest
        new, old = ((_copy.HeuristicPolicy, _strategy.HeuristicPolicy) if bot == "heuristic" else
                    (_copy.known_strength(0.1), _strategy.known_strength(0.1)))
        return compare(new, old, f"identical-{bot}-{seed}")
    raise ValueError(kind)


def _map(tasks: list[tuple[Any, ...]], jobs: int) -> list[Any]:
    if jobs <= 1:
        return [_task(t) for t in tasks]
    with multiprocessing.get_context("fork").Pool(jobs) as pool:
        return pool.map(_task, tasks, chunksize=1)


def boot_se(items: Sequence[Any], stat: Callable[[Sequence[Any]], float]) -> float:
    """The bootstrap standard error of ``stat`` over resampled ``items``."""
    rng = random.Random(0)
    return statistics.stdev(stat([items[rng.randrange(len(items))] for _ in items]) for _ in range(BOOTSTRAP))


def _share_se(share: float, n: int) -> float:
    return math.sqrt(share * (1 - share) / n)


def _count(runs: Sequence[Run], answer: Answer | None) -> int:
    return sum(r.answer is answer for r in runs)


def _summary(runs: Sequence[Run]) -> str:
    used = [r.matches for r in runs]
    return (f"{_count(runs, Answer.H1)} better, {_count(runs, Answer.H0)} not better, {_count(runs, None)} undecided; "
            f"matches: mean {statistics.fmean(used):.0f}, median {statistics.median(used):.0f}, max {max(used)}")


def identical(jobs: int) -> int:
    runs: list[Run] = _map([("identical", bot, seed) for bot in ("heuristic", "known-p10") for seed in range(3)], jobs)
    said = ", ".join(f"{'not better' if r.answer is Answer.H0 else r.answer} after {r.matches}" for r in runs)
    print(f"identical: heuristic and known-p10 against byte-identical copies, 3 seeds each: {said}", flush=True)
    assert len({r.matches for r in runs}) == 1, "identical versions took different numbers of matches"
    return runs[0].matches


def ratio(reps: int, jobs: int) -> tuple[float, float, float, float]:
    """Part ``ratio``: new/old on the same deals, its se, and each test's mean matches."""
    got = _map([("side", f"ratio{i}") for i in range(reps)], jobs)
    news = [run for run, _, _ in got]
    olds = [(verdict, 2 * deals) for _, verdict, deals in got]
    print(f"known-p10 against known-p20, new test (margin {POINTS_MARGIN:g} points): {_summary(news)}", flush=True)
    old_counts = {v: sum(o[0] == v for o in olds) for v in ("better", "worse", "no difference", None)}
    old_used = [m for _, m in olds]
    print(f"known-p10 against known-p20, old test (margin 2.5 points), same deals: {old_counts['better']} better, "
          f"{old_counts['worse']} worse, {old_counts['no difference']} no difference, {old_counts[None]} undecided; "
          f"matches: mean {statistics.fmean(old_used):.0f}, median {statistics.median(old_used):.0f}, "
          f"max {max(old_used)}", flush=True)
    pairs = list(zip([r.matches for r in news], old_used))

    def r(group: Sequence[tuple[int, int]]) -> float:
        return statistics.fmean(a for a, _ in group) / statistics.fmean(b for _, b in group)

    return r(pairs), boot_se(pairs, r), statistics.fmean(r.matches for r in news), statistics.fmean(old_used)


def equal(count: int, jobs: int, first: int = 0) -> tuple[float, float, float, float, int]:
    """Part ``equal``: median matches and its se, share called better and its se, comparisons (numbered from
    ``first``: each has deals of its own)."""
    tasks = [("compare", TWIN_PS[i % 4], TWIN_PS[i % 4], True, f"equal{i}", True, None, True)
             for i in range(first, first + count)]
    runs = _map(tasks, jobs)
    for p in TWIN_PS:
        mine = [r for r, t in zip(runs, tasks) if t[1] == p]
        print(f"equal versions, known-p{round(p * 100)} twin against known-p{round(p * 100)}: {_summary(mine)}",
              flush=True)
    used = [r.matches for r in runs]
    better = _count(runs, Answer.H1) / len(runs)
    return (statistics.median(used), boot_se(used, statistics.median), better, _share_se(better, len(runs)),
            len(runs))


def pools(deals: int, jobs: int) -> tuple[list[list[dict[str, float]]], list[dict[str, float]]]:
    """Played gains: ``deals`` deals of each twin pair, and of known-p10 against known-p20."""
    chunk = 25
    tasks = [("pool", p, p, True, f"pool{p}", first, min(chunk, deals - first))
             for p in TWIN_PS for first in range(0, deals, chunk)]
    tasks += [("pool", 0.1, 0.2, False, "pool1020", first, min(chunk, deals - first)) for first in range(0, deals, chunk)]
    got = _map(tasks, jobs)
    per: dict[Any, list[dict[str, float]]] = {}
    for task, gains in zip(tasks, got):
        per.setdefault(task[4], []).extend(gains)
    return [per[f"pool{p}"] for p in TWIN_PS], per["pool1020"]


def chosen_test(luck: bool, margin: float, min_deals: int) -> Sprt:
    """The default test but for its margin and ``min_deals``."""
    return Sprt(SprtPlan(0.05, 0.05, margin, min_deals), currency_of(luck).prior_variance)


def resample(pool: Sequence[float], luck: bool, margin: float, min_deals: int, tests: int,
             seed: int) -> list[tuple[Answer | None, int]]:
    rng = random.Random(seed)
    out = []
    for _ in range(tests):
        test = chosen_test(luck, margin, min_deals)
        while test.deals < MAX_DEALS and test.add(rng.choice(pool)) is None:
            pass
        out.append((test.answer, test.deals))
    return out


def identical_deals(luck: bool, margin: float, min_deals: int) -> int:
    test = chosen_test(luck, margin, min_deals)
    while test.add(0.0) is None:
        pass
    return test.deals


def choice_line(twins: list[list[float]], better: list[float], luck: bool, margin: float, min_deals: int,
                tests: int) -> str:
    """What one choice of margin and ``min_deals`` gives, on resampled deals."""
    unit = "points" if luck else "places"
    runs = [run for i, twin in enumerate(twins) for run in
            resample(twin, luck, margin, min_deals, tests // len(twins), seed=1000 * i + min_deals)]
    share = sum(a is Answer.H1 for a, _ in runs) / len(runs)
    used = [2 * d for _, d in runs]
    power = resample(better, luck, margin, min_deals, max(tests // 4, 100), seed=7 + min_deals)
    hits = sum(a is Answer.H1 for a, _ in power) / len(power)
    return (f"margin {margin:g} {unit}, min_deals {min_deals}: identical {2 * identical_deals(luck, margin, min_deals)} "
            f"matches; equal: median {statistics.median(used):.0f} matches, called better {share:.4f} (se "
            f"{_share_se(share, len(runs)):.4f}) of {len(runs)}; p10/p20: better {hits:.3f} after "
            f"{statistics.fmean(2 * d for _, d in power):.0f} matches")


def pool_part(deals: int, tests: int, jobs: int) -> None:
    twin_played, better_played = pools(deals, jobs)
    for luck, key, margins in ((True, "corrected", (3.0, 4.0, 5.0, 6.0)), (False, "places", (0.15, 0.2, 0.25))):
        twins = [[g[key] for g in pool] + [-g[key] for g in pool] for pool in twin_played]
        better = [g[key] for g in better_played]
        sds = ", ".join(f"{statistics.stdev(t):.2f}" for t in twins)
        print(f"pool, {key}: {len(twins)} x {deals} played twin deals (sd {sds}); known-p10 over known-p20 "
              f"{statistics.fmean(better):+.3f} a match (sd {statistics.stdev(better):.2f}, {deals} deals)", flush=True)
        for margin in margins:
            for min_deals in (10, MIN_DEALS, 20):
                print(f"pool, {key}: {choice_line(twins, better, luck, margin, min_deals, tests)}", flush=True)
        default = POINTS_MARGIN if luck else PLACES_MARGIN
        print(f"pool, {key}, default: {choice_line(twins, better, luck, default, MIN_DEALS, 5 * tests)}", flush=True)


def family(reps: int, jobs: int) -> None:
    right_total, total = 0, 0
    for strong, weak in zip(FAMILY, FAMILY[1:]):
        tasks = []
        for rep in range(reps):
            new, old = (strong, weak) if rep % 2 == 0 else (weak, strong)
            tasks.append(("compare", new, old, False, f"family{strong}-{weak}/{rep}", True, None, True))
        runs = _map(tasks, jobs)
        right = sum(r.answer is (Answer.H1 if t[1] == strong else Answer.H0) for r, t in zip(runs, tasks))
        right_total, total = right_total + right, total + len(runs)
        print(f"family p{round(strong * 100)} against p{round(weak * 100)}, each way: {right}/{len(runs)} right; "
              f"{_summary(runs)}", flush=True)
    print(f"family: {right_total}/{total} right (better with the stronger as NEW, not better with the weaker)")


def pairing(reps: int = RATIO_REPS, margin: float | None = None, jobs: int = 1) -> float:
    """known-p10 against known-p20, ``reps`` comparisons on paired deals and as many on independent ones, each line
    printed; the mean matches to a verdict paired over the mean unpaired."""
    means: dict[bool, float] = {}
    for paired in (True, False):
        tasks = [("compare", 0.1, 0.2, False, f"pairing{'p' if paired else 'u'}{i}", True, margin, paired)
                 for i in range(reps)]
        runs = _map(tasks, jobs)
        means[paired] = statistics.fmean(r.matches for r in runs)
        print(f"p10 against p20 on {'paired' if paired else 'independent'} deals, margin "
              f"{POINTS_MARGIN if margin is None else margin:g} points: {_summary(runs)}", flush=True)
    return means[True] / means[False]


PARTS = ("identical", "ratio", "equal", "pool", "family", "pairing")
DEFAULT_PARTS = ("identical", "ratio", "equal", "pool")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--equal", type=int, default=200, help="Played comparisons of equal versions.")
    parser.add_argument("--equal-from", type=int, default=0, help="Number of the first equal-version comparison "
                        "(--equal-from 200 plays 200 others, to narrow the rate).")
    parser.add_argument("--ratio-reps", type=int, default=RATIO_REPS)
    parser.add_argument("--pool", type=int, default=500, help="Played deals per pair behind the resampled tests.")
    parser.add_argument("--tests", type=int, default=4000, help="Resampled tests per choice.")
    parser.add_argument("--reps", type=int, default=8, help="Comparisons per neighbouring pair (family).")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--only", choices=PARTS, action="append", default=None,
                        help=f"Run only this part (repeatable; default: {', '.join(DEFAULT_PARTS)}).")
    args = parser.parse_args()
    parts = set(args.only or DEFAULT_PARTS)
    start = time.time()
    print(f"compare bench: {PRESET}, {SEATS} seats, field random, heuristic, known-p50; alpha 0.05, beta 0.05; "
          f"margin {POINTS_MARGIN:g} points ({PLACES_MARGIN:g} places), min_deals {MIN_DEALS}", flush=True)
    lines = []
    if "pool" in parts:
        pool_part(args.pool, args.tests, args.jobs)
    if "family" in parts:
        family(args.reps, args.jobs)
    if "pairing" in parts:
        lines.append(f"compare: paired/unpaired = {pairing(args.ratio_reps, None, args.jobs):.2f}")
    if "identical" in parts:
        lines.append(f"compare: matches to verdict, identical deterministic = {identical(args.jobs)} "
                     "(every run alike: se 0)")
    if "ratio" in parts:
        r, se, new, old = ratio(args.ratio_reps, args.jobs)
        lines.append(f"compare: known-p10 vs known-p20, new/old = {r:.2f} (se {se:.2f}) (new {new:.0f} matches, "
                     f"old {old:.0f} matches, same deals)")
    if "equal" in parts and args.equal:
        median, median_se, better, better_se, n = equal(args.equal, args.jobs, args.equal_from)
        lines.append(f"compare: equal versions, median matches = {median:.0f} (se {median_se:.0f}), called better = "
                     f"{better:.3f} (se {better_se:.3f}) over {n} comparisons")
    print(f"bench time {time.time() - start:.0f} s")
    for line in lines:
        print(line)


if __name__ == "__main__":
    main()
