"""Rating schemes measured on bots of known strength: how many matches until the order is right for good.

The field is the known-strength family (``bots/known-p*``: the heuristic playing a uniformly
random legal action with probability p; true order p0 > p10 > p20 > p35 > p50 > p100), played
in-process (``arena.game.Match``, the policies of ``bots/lib/heuristic_strategy.py``): the
same decisions as the bots under the arena, without processes. Four seats, both rule sets,
``--seeds`` independent round robins of ``--matches`` matches each, two ways:

- ``duplicate``: the arena's schedule, every 4-bot table of the field under its 4 rotations
  with one deal, a new deal each cycle;
- ``plain``: the same schedule with a fresh deal for every rotation.

The games are played once and cached (``--cache``), so every rating scheme is measured on the
SAME games. For each scheme (``RatingParams`` and a ``method``, rated by the arena's own
``RatingFold``) the figure is the number of matches after which the order by mu - 3 sigma
equals the true order and stays so to the end of the run; a run whose order is still wrong at
its end counts as ``--matches`` (and is counted as unsettled). Means are over the seeds.

The ladder's matchmaking (``LadderSchedule``) is driven in-process too, with the arena's
default parameters, on the same number of matches and seeds; its games depend on the ratings,
so they are played for that one setting only.

Before the last lines, the share of a place's variance that the deal and seat explain (what
duplicate deals could take away at best: :func:`luck_share`). Last four lines:
``rating: round-robin/ladder = R`` (default parameters) and ``rating: duplicate/plain = R``
(duplicate deals rated by method ``deal`` against fresh deals rated match by match, the
default parameters otherwise; the target was R <= 0.7), both ratios of the means over the
two rule sets; ``rating: openskill/trueskill matches to settle = R, cost = C``: the two rating
models (:mod:`arena.tournament.rating`) with the default parameters on the same duplicate games,
and the cost of one match's update, timed side by side (best of 5); then ``compare: paired/unpaired = R``: matches until ``arena compare``'s
default test (luck-corrected points, its default margin) answers for p = 0.1 against p = 0.2, on paired deals against independent ones
(``--compare-reps`` comparisons each way, ``pairing`` in ``bench/compare.py``, which
``bench/compare.py`` also runs; the target was R <= 0.5). The two comparisons' own lines come first,
before the table, so that these lines end the output.

Cost: about 15,000 in-process matches (30-50 ms each) the first time, 12 minutes on two
busy cores; then about a minute and a half of rating from the cache.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from itertools import combinations
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import BotSpec  # noqa: E402
from arena.tournament.ladder.entries import ACTIVE, Entry  # noqa: E402
from arena.tournament.rating import MODELS, Rating, RatingFold, RatingParams, exposure, model_of  # noqa: E402
from arena.tournament.records import MatchRecord  # noqa: E402
from arena.tournament.ladder.matchmaking import LadderSchedule  # noqa: E402

from tests.bots_examples.measure import load_module  # noqa: E402

_compare = load_module("bench_compare", ROOT / "bench" / "compare.py")
RATIO_REPS: int = _compare.RATIO_REPS

PCTS = (0, 10, 20, 35, 50, 100)
TRUE_ORDER = tuple(f"known-p{p}" for p in PCTS)
"""Best first: a bot that plays randomly more often is weaker."""
SEATS = 4
PRESETS = ("standard", "espanola")
CACHE_VERSION = 2
"""Bumped whenever the games would differ (2: the known-strength bots draw from the match's stream alone)."""

Game = tuple[tuple[str, ...], tuple[int, ...]]
"""Bots by seat and their places."""


def _policies() -> dict[str, Any]:
    from tests.bots_examples.driver import BOTS
    strategy = load_module("bench_known_strength", BOTS / "lib" / "heuristic_strategy.py")
    return {name: strategy.known_strength(p / 100) for name, p in zip(TRUE_ORDER, PCTS)}


_POLICIES: dict[str, Any] | None = None


def play_one(preset: str, bots: Sequence[str], deal: str, match_id: str) -> tuple[int, ...]:
    """Places of one in-process match of ``bots`` (by seat) on deal ``deal``."""
    global _POLICIES
    from tests.bots_examples.driver import PolicySeat, play
    if _POLICIES is None:
        _POLICIES = _policies()
    match = play([PolicySeat(_POLICIES[b]) for b in bots], preset, deal, match_id=match_id, copy_json=False)
    assert match.result is not None
    return tuple(match.result.places)


def tables() -> list[tuple[str, ...]]:
    """The round robin's tables, in the arena's order (names sorted, combinations in order)."""
    return list(combinations(sorted(TRUE_ORDER), SEATS))


def round_robin(kind: str, preset: str, seed: int, matches: int) -> list[tuple[str, Game]]:
    """The first ``matches`` games of a round robin, as (match id, game); ``kind`` duplicate or plain."""
    games: list[tuple[str, Game]] = []
    cycle = 0
    while len(games) < matches:
        cycle += 1
        for table in tables():
            for rotation in range(SEATS):
                if len(games) == matches:
                    return games
                seating = table[rotation:] + table[:rotation]
                mid = f"c{cycle}/{'+'.join(table)}/r{rotation}"
                deal = f"bench/{preset}/{seed}/c{cycle}/{'+'.join(table)}"
                if kind == "plain":
                    deal += f"/r{rotation}"
                games.append((mid, (seating, play_one(preset, seating, deal, f"{preset}/{seed}/{kind}/{mid}"))))
    return games


def ladder(preset: str, seed: int, matches: int, params: RatingParams) -> list[tuple[str, Game]]:
    """The first ``matches`` games of the arena's ladder matchmaking over the field, played in order."""
    stamp = 0.0
    entries = [Entry(name, 1, "d" * 64, f"/snapshots/{name}", f"/authors/{name}", stamp, ACTIVE) for name in TRUE_ORDER]
    schedule = LadderSchedule(lambda: entries, lambda e: BotSpec(name=e.key, command=("x",)), (SEATS,), preset,
                              f"bench/{seed}", params)
    schedule.resume(set(), [])
    games: list[tuple[str, Game]] = []
    while len(games) < matches:
        batch = schedule.next_batch()
        assert batch, "the ladder drew no table"
        scheduled = batch[0]
        names = tuple(key.split("@")[0] for key in scheduled.bots)  # player keys are name@version
        places = play_one(preset, names, scheduled.seed, f"{preset}/{seed}/ladder/{scheduled.match_id}")
        games.append((scheduled.match_id, (names, places)))
        schedule.finished(scheduled, MatchRecord(scheduled.index, scheduled.match_id, scheduled.bots, places,
                                                 places, (False,) * SEATS, ()))
    return games


def _job(job: tuple[str, str, int, int, dict[str, Any]]) -> list[tuple[str, Game]]:
    kind, preset, seed, matches, params = job
    if kind == "ladder":
        return ladder(preset, seed, matches, RatingParams(**params))
    return round_robin(kind, preset, seed, matches)


def games(cache: Path, kind: str, preset: str, seeds: int, matches: int, workers: int,
          params: RatingParams | None = None) -> list[list[tuple[str, Game]]]:
    """Every seed's games of one kind, from the cache where it has them (played and cached otherwise)."""
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SystemExit(f"bench/rating.py: --cache {cache}: cannot make the directory ({exc.strerror})") from None
    tag = "" if params is None else "-" + "-".join(f"{k}{v}" for k, v in sorted(dataclasses.asdict(params).items()))
    paths = [longest(cache, f"v{CACHE_VERSION}-{kind}-{preset}-s{seed}-m", tag, matches) for seed in range(seeds)]
    todo = [seed for seed, path in enumerate(paths) if not path.exists()]
    if todo:
        asdict = {} if params is None else dataclasses.asdict(params)
        with ProcessPoolExecutor(workers) as pool:
            for seed, played in zip(todo, pool.map(_job, [(kind, preset, s, matches, asdict) for s in todo])):
                tmp = paths[seed].with_suffix(".tmp")
                tmp.write_text(json.dumps(played))
                os.replace(tmp, paths[seed])
    out = []
    for path in paths:
        try:
            out.append([(str(mid), (tuple(map(str, bots)), tuple(map(int, places))))
                        for mid, (bots, places) in json.loads(path.read_text())[:matches]])
        except (OSError, ValueError, TypeError) as exc:
            raise SystemExit(f"bench/rating.py: cached games {path} are unreadable ({exc}); delete the file "
                             "and run again to play them anew") from None
    return out


def longest(cache: Path, head: str, tag: str, matches: int) -> Path:
    """The cached run with the most matches (at least ``matches``: its first ones are the same games), or
    the path to play ``matches`` into."""
    have = []
    for path in cache.glob(f"{head}*{tag}.json"):
        count = path.name[len(head):len(path.name) - len(tag) - len(".json")]
        if count.isdigit() and int(count) >= matches:
            have.append((int(count), path))
    return max(have)[1] if have else cache / f"{head}{matches}{tag}.json"


def settled_after(played: Sequence[tuple[str, Game]], params: RatingParams) -> int | None:
    """Matches after which the order by mu - 3 sigma is the true one and stays so; None if wrong at the end."""
    fold = RatingFold(params, list(TRUE_ORDER), expected=range(len(played)))
    last_wrong = 0
    for index, (mid, (bots, places)) in enumerate(played):
        fold.add(MatchRecord(index, mid, bots, places, places, (False,) * len(bots), ()))
        order = tuple(sorted(TRUE_ORDER, key=lambda b: -exposure(fold.ratings[b])))
        if order != TRUE_ORDER:
            last_wrong = index + 1
    return None if last_wrong == len(played) else last_wrong


@dataclasses.dataclass(frozen=True)
class Scheme:
    name: str
    params: RatingParams


def summary(runs: Sequence[Sequence[tuple[str, Game]]], params: RatingParams, cap: int) -> tuple[float, int]:
    """Mean matches until settled over the runs (an unsettled run counts as ``cap``), and how many were unsettled."""
    figures = [settled_after(run, params) for run in runs]
    return statistics.fmean(cap if f is None else f for f in figures), sum(f is None for f in figures)


def _summary(task: tuple[Sequence[Sequence[tuple[str, Game]]], RatingParams, int]) -> tuple[float, int]:
    return summary(*task)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=20, help="independent runs per rule set (default 20)")
    parser.add_argument("--matches", type=int, default=180, help="matches per run (default 180: 3 cycles)")
    parser.add_argument("--workers", type=int, default=2, help="processes playing games (default 2)")
    parser.add_argument("--cache", type=Path, default=Path.home() / ".cache" / "cabo-arena" / "bench-rating",
                        help="where played games are kept, so a second run only rates")
    parser.add_argument("--no-ladder", action="store_true", help="skip the ladder's matchmaking")
    parser.add_argument("--compare-reps", type=int, default=RATIO_REPS,
                        help=f"comparisons each way behind the compare: line (default {RATIO_REPS}; 0 skips it)")
    args = parser.parse_args()
    if args.seeds < 1 or args.matches < SEATS or args.workers < 1:
        parser.error("--seeds and --workers must be at least 1, --matches at least 4")
    print(f"field {', '.join(TRUE_ORDER)} (true order), {SEATS} seats, {args.seeds} seeds x {args.matches} matches")
    start = time.perf_counter()
    played = {(kind, preset): games(args.cache, kind, preset, args.seeds, args.matches, args.workers)
              for preset in PRESETS for kind in ("duplicate", "plain")}
    print(f"games ready in {time.perf_counter() - start:.0f} s (cache {args.cache})")
    # the pairing's own lines first, so that the rating: lines and the compare: line end the output
    pairing = _compare.pairing(args.compare_reps, None, args.workers) if args.compare_reps > 0 else None
    print_schemes(played, args)
    print("compare: paired/unpaired = " + ("not measured (--compare-reps 0)" if pairing is None else f"{pairing:.2f}"))


def print_schemes(played: dict[tuple[str, str], list[list[tuple[str, Game]]]], args: argparse.Namespace) -> None:
    default = RatingParams()
    schemes = SCHEMES
    print("matches until the order is right for good (mean over seeds; unsettled runs count as --matches, "
          "their number in brackets)")
    print(f"{'scheme':<44}" + "".join(f"{p + ' ' + k:>20}" for p in PRESETS for k in ("duplicate", "plain")))
    figures: dict[tuple[str, str, str], float] = {}
    cells = [(preset, kind) for preset in PRESETS for kind in ("duplicate", "plain")]
    with ProcessPoolExecutor(args.workers) as pool:
        rows = pool.map(_summary, [(played[kind, preset], scheme.params if kind == "duplicate" else
                                    as_plain(scheme.params), args.matches)
                                   for scheme in schemes for preset, kind in cells])
        for scheme in schemes:
            shown = []
            for preset, kind in cells:
                mean, unsettled = next(rows)
                figures[scheme.name, preset, kind] = mean
                shown.append(f"{mean:.1f} [{unsettled}]")
            print(f"{scheme.name:<44}" + "".join(f"{c:>20}" for c in shown), flush=True)
    for preset in PRESETS:
        share = luck_share(played["duplicate", preset], played["plain", preset])
        print(f"{preset}: the deal and seat explain {share:.0%} of the variance of a place; duplicate deals "
              f"that took all of it away would need {1 - share:.2f} of the matches")
    dflt = next(s.name for s in schemes if s.params == default)
    best = next(s.name for s in schemes if s.params == dataclasses.replace(default, method="deal"))
    rr = statistics.fmean(figures[dflt, p, "duplicate"] for p in PRESETS)
    if args.no_ladder:
        print("rating: round-robin/ladder = not measured (--no-ladder)")
    else:
        lad = []
        for preset in PRESETS:
            runs = games(args.cache, "ladder", preset, args.seeds, args.matches, args.workers, default)
            mean, unsettled = summary(runs, default, args.matches)
            lad.append(mean)
            print(f"ladder {preset} ({dflt}): {mean:.1f} [{unsettled}], round robin "
                  f"{figures[dflt, preset, 'duplicate']:.1f}")
        print(f"rating: round-robin/ladder = {rr / statistics.fmean(lad):.2f}")
    plain = statistics.fmean(figures[dflt, p, "plain"] for p in PRESETS)
    print(f"duplicate/plain with each match one game (method match): {rr / plain:.2f}")
    deal = statistics.fmean(figures[best, p, "duplicate"] for p in PRESETS)
    print(f"rating: duplicate/plain = {deal / plain:.2f} (duplicate deals rated by method deal, fresh ones by match)")
    print_models(played, figures, dflt)


def print_models(played: dict[tuple[str, str], list[list[tuple[str, Game]]]],
                 figures: dict[tuple[str, str, str], float], dflt: str) -> None:
    """The two rating models side by side: matches to settle on the same games, and the cost of a match's
    update (best of 5 timings of rating every game, taken in turn, so both see the same machine)."""
    other = "openskill (default otherwise)"
    for kind in ("duplicate", "plain"):
        ts = statistics.fmean(figures[dflt, p, kind] for p in PRESETS)
        pl = statistics.fmean(figures[other, p, kind] for p in PRESETS)
        print(f"{kind}: matches to settle, trueskill {ts:.1f}, openskill {pl:.1f}")
    every = [game for runs in played.values() for run in runs for _, game in run]
    best = {name: float("inf") for name in MODELS}
    for _ in range(5):
        for name in MODELS:
            model = model_of(RatingParams(model=name))
            ratings: dict[str, Rating] = {}
            began = time.perf_counter()
            for bots, places in every:  # the points model's scores: any numbers cost the same
                model.update(ratings, bots, places, places)
            best[name] = min(best[name], (time.perf_counter() - began) / len(every))
    print(f"cost per match (best of 5 over {len(every)} games): trueskill {best['trueskill'] * 1e6:.0f} us, "
          f"openskill {best['openskill'] * 1e6:.0f} us")
    ts = statistics.fmean(figures[dflt, p, "duplicate"] for p in PRESETS)
    pl = statistics.fmean(figures[other, p, "duplicate"] for p in PRESETS)
    print(f"rating: openskill/trueskill matches to settle = {pl / ts:.2f}, cost = "
          f"{best['openskill'] / best['trueskill']:.2f}")


OLD = RatingParams(tau=25 / 300, draw_probability=0.10, beta=25 / 6)
"""The defaults before this measurement (trueskill's own): skill that drifts between matches."""
SCHEMES: list[Scheme] = [
    Scheme("old default: tau 25/300, draw 0.10", OLD),
    Scheme("psyleague: tau 0.00025, draw 0.0001", RatingParams(tau=0.00025, beta=25 / 6, draw_probability=0.0001)),
    Scheme("tau 0, draw 0.10", RatingParams(tau=0.0, draw_probability=0.10)),
    Scheme("default: tau 0, draw 0.01, beta 25/6", RatingParams(tau=0.0, draw_probability=0.01, beta=25 / 6)),
    Scheme("tau 0, draw 0.01, beta 25/3", RatingParams(tau=0.0, draw_probability=0.01, beta=25 / 3)),
    Scheme("tau 0, draw 0.01, beta 50/3", RatingParams(tau=0.0, draw_probability=0.01, beta=50 / 3)),
    Scheme("table (default otherwise)", RatingParams(tau=0.0, draw_probability=0.01, method="table")),
    Scheme("deal (default otherwise)", RatingParams(tau=0.0, draw_probability=0.01, method="deal")),
    Scheme("openskill (default otherwise)", RatingParams(model="openskill")),
    Scheme("openskill, deal (default otherwise)", RatingParams(model="openskill", method="deal")),
]
"""Compared on the same games. A fresh deal for every match leaves a deal nothing to compare within,
so ``plain`` games are rated with method ``match`` whatever the scheme says."""


def luck_share(duplicate: Sequence[Sequence[tuple[str, Game]]], plain: Sequence[Sequence[tuple[str, Game]]]) -> float:
    """The share of a place's variance that the deal and seat explain, from the spread of seat averages.

    Over a table's rotations every bot holds every seat once, so the bots' skills cancel in the average
    place of a seat; what is left is the seat's luck D plus a quarter of the rest (noise e). With one
    deal for the rotations that average varies as var(D) + var(e)/4; with a deal for each as
    var(D)/4 + var(e)/4. So var(D) = 4/3 of the difference: what duplicate deals can take away at best.
    """
    def spread(runs: Sequence[Sequence[tuple[str, Game]]]) -> tuple[float, float]:
        seat_vars: list[float] = []
        every: list[int] = []
        for run in runs:
            for start in range(0, len(run) - SEATS + 1, SEATS):
                deal = [game for _, game in run[start:start + SEATS]]
                means = [sum(places[seat] for _, places in deal) / SEATS for seat in range(SEATS)]
                seat_vars.append(statistics.variance(means))
                every.extend(p for _, places in deal for p in places)
        return statistics.fmean(seat_vars), statistics.pvariance(every)
    (dup, total), (fresh, _) = spread(duplicate), spread(plain)
    return max(0.0, 4 / 3 * (dup - fresh)) / total


def as_plain(params: RatingParams) -> RatingParams:
    return dataclasses.replace(params, method="match")


if __name__ == "__main__":
    main()
