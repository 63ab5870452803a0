"""Fair seats and a settled verdict that holds: measured on real bots at the bundled league's table size.

Plays the bundled heuristic bots in-process (the arena's engine and observations, no sandbox), with
the arena's own schedules, rating code and stop rule, and prints every absolute figure, then:

- ``fairness: identical copies ahead = X`` for 3, 4 and 5 seats and a ladder: two byte-identical
  deterministic bots (``known-p0`` under the names ``a-copy`` and ``b-copy``, adjacent in name order)
  with other bots (``known-p20``, ``known-p50``, and at 5 seats ``known-p35``), over at least
  ``--decided`` head-to-head results that are not level: the share ``a-copy`` placed ahead, with its
  standard error. Fair seating gives 0.5; ``--contrast`` plays the same under the old seating too
  (one cyclic order per table), and every line also gives the share won by the copy that sat directly
  after the other, which is the game's own edge for that seat (it is there either way: fairness is
  that both copies get it equally often).
- ``settle: false settled = R`` on a field with one identical pair among separated bots (``a-p0``,
  ``b-p0``, ``known-p20``, ``known-p50``, ``known-p100``; 4 seats) and on an all-equal field (four
  copies of ``known-p0``): over ``--runs`` round robins of fresh master seeds, looked at after every
  cycle up to ``--cap`` cycles, the share that stopped settled with a claim that is false (an identical
  pair ordered, a pair that differs shown within the margin, or an order against the truth), with
  its standard error. The old rule (every adjacent P(ahead) of the TrueSkill posteriors >= P, one
  look's worth of error asked after every cycle) is judged on the same games.
- ``settle: matches to settle new/old = R`` on the known-strength field (``known-p0`` ... ``known-p100``,
  6 bots, 4 seats): mean matches to settled under each rule over the same ``--family-runs`` games.
- the calibration line of ``bench/calibration.py`` (its rank intervals on the balanced schedule).

    .venv/bin/python bench/fairness.py [--workers 2] [--decided 2000] [--runs 200] [--cap 60]
                                       [--family-runs 30] [--contrast] [--only fairness,settle,calibration]
                                       [--fields pair,equal,family]
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections import Counter
from multiprocessing import Pool
from multiprocessing.pool import Pool as PoolType
from pathlib import Path
from typing import Any, Iterable, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.tournament import evidence as ev  # noqa: E402
from arena.tournament.confidence import board_order, settled as old_settled  # noqa: E402
from arena.tournament.rating import RatingParams, model_of  # noqa: E402
from arena.tournament.records import MatchRecord  # noqa: E402
from arena.tournament.schedules.balance import BALANCED, CYCLIC  # noqa: E402
from arena.tournament.schedules.base import ScheduledMatch  # noqa: E402
from arena.tournament.schedules.round_robin import round_robin  # noqa: E402
from arena.match.seeds import opaque_match_id  # noqa: E402

P = 0.95
PRESET = "standard"
COPIES = ("a-copy", "b-copy")
FIELDS: dict[str, dict[str, str]] = {
    "copies3": {"a-copy": "known-p0", "b-copy": "known-p0", "known-p20": "known-p20", "known-p50": "known-p50"},
    "copies4": {"a-copy": "known-p0", "b-copy": "known-p0", "known-p20": "known-p20", "known-p50": "known-p50"},
    "copies5": {"a-copy": "known-p0", "b-copy": "known-p0", "known-p20": "known-p20", "known-p35": "known-p35",
                "known-p50": "known-p50"},
    "pair": {"a-p0": "known-p0", "b-p0": "known-p0", "known-p20": "known-p20", "known-p50": "known-p50",
             "known-p100": "known-p100"},
    "equal": {f"{c}-p0": "known-p0" for c in "abcd"},
    "family": {f"known-p{p}": f"known-p{p}" for p in (0, 10, 20, 35, 50, 100)},
}
"""Each field: player name -> the known-strength policy it plays."""

_SEATS: dict[str, Any] = {}


def _seats(field: str) -> dict[str, Any]:
    """The field's in-process seats (one per player), made once per worker process."""
    if field not in _SEATS:
        from calibration import policies
        from tests.bots_examples.driver import PolicySeat

        classes = policies()
        _SEATS[field] = {name: PolicySeat(classes[policy]) for name, policy in FIELDS[field].items()}
    seats: dict[str, Any] = _SEATS[field]
    return seats


def strength(field: str, name: str) -> int:
    """The player's p (percent of random moves): lower is stronger, equal is equal."""
    return int(FIELDS[field][name].rsplit("p", 1)[1])


def play(field: str, scheduled: ScheduledMatch, master: int) -> MatchRecord:
    from tests.bots_examples.driver import play as play_match

    seats = _seats(field)
    match = play_match([seats[b] for b in scheduled.bots], PRESET, scheduled.seed,
                       match_id=opaque_match_id(master, scheduled.match_id), copy_json=False)
    assert match.result is not None
    n = len(scheduled.bots)
    return MatchRecord(scheduled.index, scheduled.match_id, scheduled.bots, tuple(match.result.places), (0,) * n,
                       (False,) * n, ())


def head_to_head(records: Iterable[MatchRecord]) -> tuple[int, int, int, int]:
    """(a-copy ahead, decided; the copy directly after the other ahead, decided with one directly after the
    other) over the matches both copies sat at."""
    first = after = decided = adjacent = 0
    for r in records:
        if not set(COPIES) <= set(r.bots):
            continue
        a, b = (r.bots.index(c) for c in COPIES)
        if r.places[a] == r.places[b]:
            continue
        decided += 1
        first += r.places[a] < r.places[b]
        later = b if (a + 1) % len(r.bots) == b else a if (b + 1) % len(r.bots) == a else None
        if later is not None:
            adjacent += 1
            after += r.places[later] < r.places[a if later == b else b]
    return first, decided, after, adjacent


def fairness_task(job: tuple[int, str, int, int]) -> tuple[int, int, int, int]:
    """One round robin of the copies' field at ``seats`` (``seating``), master seed ``master``."""
    seats, seating, master, cycles = job
    field = f"copies{seats}"
    matches = round_robin(list(FIELDS[field]), [seats], cycles, master, seating=seating)
    return head_to_head(play(field, m, master) for m in matches)


def ladder_task(job: tuple[str, int, int]) -> tuple[int, int, int, int]:
    """A ladder of the 4-seat copies' field for ``tables`` tables, its matchmaking fed real results."""
    from arena.bots import BotSpec
    from arena.tournament.ladder.entries import Entry
    from arena.tournament.ladder.matchmaking import LadderSchedule

    seating, master, tables = job
    names = list(FIELDS["copies4"])
    schedule = LadderSchedule(lambda: [Entry(n, 1, "d", "p", "s", 0.0, "active") for n in names],
                              lambda e: BotSpec(name=e.key, command=("x",)), [4], PRESET, master, RatingParams(), 0,
                              seating=seating)
    schedule.resume(set(), [])
    records: list[MatchRecord] = []
    while len(records) < 4 * tables:
        for m in schedule.next_batch() or []:
            plain = ScheduledMatch(m.index, m.match_id, m.seed, tuple(b.split("@")[0] for b in m.bots), m.cycle,
                                   m.rotation)
            record = play("copies4", plain, master)
            schedule.finished(m, MatchRecord(m.index, m.match_id, m.bots, record.places, record.totals,
                                             record.forfeited, ()))
            records.append(record)
    return head_to_head(records)


def wrong_new(field: str, calls: Sequence[ev.PairCall]) -> bool:
    """Whether a settled board's claims include a false one."""
    for call in calls:
        upper, lower = strength(field, call.upper), strength(field, call.lower)
        if call.state == ev.ORDERED and upper >= lower:
            return True
        if call.state == ev.WITHIN and upper != lower:
            return True
    return False


def wrong_old(field: str, order: Sequence[str]) -> bool:
    """Whether a board the old rule called settled orders some adjacent pair falsely (it had no ties)."""
    return any(strength(field, a) >= strength(field, b) for a, b in zip(order, order[1:]))


def settle_task(job: tuple[str, int, int, float]) -> dict[str, Any]:
    """A round robin of ``field`` looked at after each cycle, until both rules stopped or ``cap`` cycles."""
    field, master, cap, margin = job
    names = list(FIELDS[field])
    model = model_of(RatingParams())
    ratings = {name: model.fresh() for name in names}
    evidence = ev.PairEvidence()
    out: dict[str, Any] = {"new": None, "new_false": False, "old": None, "old_false": False, "played": 0}
    matches = list(round_robin(names, [4], cap, master))
    for cycle in range(1, cap + 1):
        for m in (m for m in matches if m.cycle == cycle):
            record = play(field, m, master)
            model.update(ratings, record.bots, record.places)
            evidence.add(record)
            out["played"] += 1
        order = board_order(ratings)
        if out["old"] is None and old_settled(ratings, P, order):
            out["old"], out["old_false"] = out["played"], wrong_old(field, order)
        calls = ev.judge(evidence, order, P, margin)
        if out["new"] is None and ev.settled(calls):
            out["new"], out["new_false"] = out["played"], wrong_new(field, calls)
        if out["new"] is not None and out["old"] is not None:
            break
    return out


def share(hits: int, total: int) -> tuple[float, float]:
    """A share and its standard error."""
    if total == 0:
        return math.nan, math.nan
    p = hits / total
    return p, math.sqrt(p * (1 - p) / total)


def fairness(pool: PoolType, decided: int, contrast: bool, workers: int) -> None:
    """Round robins (and a ladder) of the copies until ``decided`` level-free head-to-heads each."""
    cases: list[tuple[str, str, Any]] = []
    for seats in (3, 4, 5):
        for seating in (BALANCED, CYCLIC) if contrast else (BALANCED,):
            cases.append((f"{seats} seats", seating, lambda master, s=seats, g=seating: (s, g, master, 6 * (s - 1))))
    for seating in (BALANCED, CYCLIC) if contrast else (BALANCED,):
        cases.append(("a ladder of 4 seats", seating, lambda master, g=seating: (g, master, 48)))
    for label, seating, job in cases:
        task = ladder_task if label.startswith("a ladder") else fairness_task
        totals = [0, 0, 0, 0]
        master = 0
        started = time.perf_counter()
        while totals[1] < decided:
            batch = [job(1000 + master + k) for k in range(workers)]
            master += workers
            for counts in pool.map(task, batch):
                totals = [t + c for t, c in zip(totals, counts)]
        first, count, after, adjacent = totals
        p, se = share(first, count)
        q, qse = share(after, adjacent)
        print(f"{label}, {seating} seating: {count} decided head-to-heads of the identical copies over {master} "
              f"master seeds; a-copy ahead {p:.3f} ± {se:.3f} ({(p - 0.5) / se:+.1f} SE from 0.5); the copy "
              f"directly after the other ahead {q:.3f} ± {qse:.3f} of {adjacent} ({time.perf_counter() - started:.0f} s)",
              flush=True)
        if seating == BALANCED:
            print(f"fairness: identical copies ahead = {p:.3f} ± {se:.3f} ({label}, {count} decided)", flush=True)


SETTLE_FIELDS = ("pair", "equal", "family")


def settle(pool: PoolType, runs: int, cap: int, family_runs: int, margin: float,
           fields: Sequence[str] = SETTLE_FIELDS) -> None:
    """False stops on the identical-pair and all-equal fields; matches to settle on the known-strength field."""
    for field, label, count, limit in (("pair", "one identical pair among separated bots", runs, cap),
                                       ("equal", "four identical bots", runs, 2 * cap),
                                       ("family", "the known-strength field", family_runs, cap)):
        if field not in fields:
            continue
        started = time.perf_counter()
        results = pool.map(settle_task, [(field, 5000 + k, limit, margin) for k in range(count)])
        per_cycle = len(list(round_robin(list(FIELDS[field]), [4], 1, 0)))
        for rule in ("new", "old"):
            stopped = [r[rule] for r in results if r[rule] is not None]
            false = sum(bool(r[f"{rule}_false"]) for r in results)
            p, se = share(false, count)
            middle = f", median {statistics.median(stopped):.0f} matches" if stopped else ""
            print(f"{label} ({per_cycle} matches a cycle, at most {limit} cycles), {rule} rule: settled in "
                  f"{len(stopped)} of {count} runs{middle}; false settled in {false} ({p:.3f} ± {se:.3f})",
                  flush=True)
            if rule == "new" and field != "family":
                print(f"settle: false settled = {p:.3f} ± {se:.3f} ({label}, {count} runs, P {P:g})", flush=True)
        if field == "family":
            both = [(r["new"], r["old"]) for r in results if r["new"] is not None and r["old"] is not None]
            if not both:
                print(f"settle: matches to settle new/old = - (no run settled under both rules in {limit} cycles)")
                continue
            new, old = (statistics.mean(x[i] for x in both) for i in (0, 1))
            ratios = [n / o for n, o in both]
            spread = statistics.stdev(ratios) / math.sqrt(len(ratios)) if len(ratios) > 1 else math.nan
            print(f"settle: matches to settle new/old = {new / old:.2f} (mean {new:.0f} against {old:.0f} over the "
                  f"{len(both)} of {count} runs both settled; run by run {statistics.mean(ratios):.2f} ± {spread:.2f})",
                  flush=True)
        print(f"({time.perf_counter() - started:.0f} s)", flush=True)


def calibration() -> None:
    """The calibration bench's line, on the balanced schedule it now plays."""
    import calibration as bench_calibration

    bench_calibration.main([])


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--workers", type=int, default=2, help="processes playing at once (default 2)")
    parser.add_argument("--decided", type=int, default=2000, help="decided head-to-heads per line (default 2000)")
    parser.add_argument("--runs", type=int, default=200, help="runs per field for the false-settled lines (200)")
    parser.add_argument("--cap", type=int, default=60, help="most cycles a settle run plays (default 60; "
                        "the all-equal field twice as many)")
    parser.add_argument("--family-runs", type=int, default=30, help="runs of the known-strength field (30)")
    parser.add_argument("--margin", type=float, default=ev.DEFAULT_MARGIN, help="settle margin (places per match)")
    parser.add_argument("--contrast", action="store_true", help="also play the old seating, for comparison")
    parser.add_argument("--only", default="fairness,settle,calibration", help="which parts, comma separated")
    parser.add_argument("--fields", default=",".join(SETTLE_FIELDS),
                        help="which settle fields, comma separated (default pair,equal,family)")
    args = parser.parse_args(argv)
    parts, fields = set(args.only.split(",")), args.fields.split(",")
    if min(args.workers, args.decided, args.runs, args.cap, args.family_runs) < 1 or args.margin <= 0 or \
            not parts <= {"fairness", "settle", "calibration"} or not set(fields) <= set(SETTLE_FIELDS):
        parser.error("counts must be at least 1, --margin above 0, --only of fairness, settle, calibration, "
                     "--fields of pair, equal, family")
    random.seed(0)
    with Pool(args.workers) as pool:
        if "fairness" in parts:
            fairness(pool, args.decided, args.contrast, args.workers)
        if "settle" in parts:
            settle(pool, args.runs, args.cap, args.family_runs, args.margin, fields)
    if "calibration" in parts:
        calibration()


if __name__ == "__main__":
    main()
