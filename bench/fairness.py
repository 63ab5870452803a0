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
- ``settle: false settled = R`` under the arena's own stop rule (its gate, its claims, its tables chosen for
  the pairs still open), on a field with one identical pair among separated bots (``a-p0``, ``b-p0``,
  ``known-p20``, ``known-p50``, ``known-p100``; 4 seats), one with an equal-strength pair whose random moves
  come from streams of their own (``known-p20``, ``twin-p20`` among ``known-p0``, ``known-p50``,
  ``known-p100``), an all-equal field (four copies of ``known-p0``) and the known-strength field: over
  ``--runs`` round robins of fresh master seeds, looked at after every cycle up to ``--cap`` cycles, the
  share that stopped settled with a claim that is false (a row shown ahead of one at least as strong, or in
  the tier of a stronger one), with its standard error.
- ``settle: matches to settle = M`` on the known-strength field (``known-p0`` ... ``known-p100``, 6 bots, 4
  seats): mean matches to settled over the runs, and how many settled orders were the true one.
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

from arena.evidence.claims import AHEAD, TIER, PairCall  # noqa: E402
from arena.tournament import evidence as ev  # noqa: E402
from arena.tournament.evidence import PairEvidence, board_rules  # noqa: E402
from arena.tournament.open_tables import OpenTables  # noqa: E402
from arena.tournament.schedules.fixed import FixedSchedule  # noqa: E402
from arena.tournament.settle import SettleGate  # noqa: E402
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
    "twins": {"known-p20": "known-p20", "twin-p20": "twin-p20", "known-p0": "known-p0", "known-p50": "known-p50",
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
        classes["twin-p20"] = twin(classes["known-p20"], 0.2)
        _SEATS[field] = {name: PolicySeat(classes[policy]) for name, policy in FIELDS[field].items()}
    seats: dict[str, Any] = _SEATS[field]
    return seats


def twin(base: Any, p: float) -> Any:
    """``base`` drawing its random moves from a stream of its own: the same strength, other moves."""
    class Twin(base):  # type: ignore[misc]
        def __init__(self, hello: dict[str, Any], params: dict[str, float] | None = None) -> None:
            super().__init__(hello, params)
            self.rng = random.Random(f"twin/{hello.get('match', '')}/{hello.get('seat', 0)}/{p}")

    return Twin


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


def wrong(field: str, calls: Sequence[PairCall]) -> bool:
    """Whether a settled board's claims include a false one: a row shown ahead of one at least as strong, or in the
    tier of one stronger than it (every gap of these fields is above the margin: 0.27 places or more)."""
    for call in calls:
        upper, lower = strength(field, call.upper), strength(field, call.lower)
        if call.relation == AHEAD and upper >= lower:
            return True
        if call.relation == TIER and upper > lower:
            return True
    return False


def settle_task(job: tuple[str, int, int, float]) -> dict[str, Any]:
    """A round robin of ``field`` under the arena's own stop rule (:class:`SettleGate` with tables chosen for the
    pairs still open), a look at each cycle's end, until settled or ``cap`` cycles. Matches are rated in index
    order at each look, as the driver's rating fold rates them."""
    field, master, cap, margin = job
    names = list(FIELDS[field])
    model = model_of(RatingParams())
    ratings = {name: model.fresh() for name in names}
    pending: list[MatchRecord] = []
    schedule = FixedSchedule(list(round_robin(names, [4], cap, master)), 3)
    schedule.resume(set(), [])

    def rated() -> dict[str, Any]:
        for record in sorted(pending, key=lambda r: r.index):
            model.update(ratings, record.bots, record.places)
        pending.clear()
        return ratings

    def pass_over(matches: Sequence[ScheduledMatch]) -> None:
        for m in matches:
            schedule.finished(m, None)

    played = [0]
    gate = SettleGate(schedule, P, lambda m: m.cycle, lambda m: f"cycle {m.cycle}", rated, lambda: None, lambda: 0,
                      lambda: played[0], (), margin, OpenTables(PairEvidence(), board_rules(P, margin)), pass_over)
    while (batch := gate.next_batch()) is not None:
        for m in batch:
            record = play(field, m, master)
            pending.append(record)
            gate.stored(record)
            schedule.finished(m, record)
            played[0] += 1
    verdict = gate.verdict
    order = [call.upper for call in verdict.calls] + [verdict.calls[-1].lower] if verdict.calls else []
    truth = sorted(names, key=lambda n: (strength(field, n), n))
    return {"settled": verdict.settled, "matches": verdict.at, "false": verdict.settled and wrong(field, verdict.calls),
            "order_true": [strength(field, n) for n in order] == [strength(field, n) for n in truth]}


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


SETTLE_FIELDS = ("pair", "twins", "equal", "family")


def settle(pool: PoolType, runs: int, cap: int, family_runs: int, margin: float,
           fields: Sequence[str] = SETTLE_FIELDS) -> None:
    """False stops on fields with identical or equal-strength bots; matches to settle on the known-strength field."""
    for field, label, count in (("pair", "one identical pair among separated bots", runs),
                                ("twins", "an equal-strength pair with its own random stream among separated bots",
                                 runs),
                                ("equal", "four identical bots", runs),
                                ("family", "the known-strength field", max(family_runs, runs))):
        if field not in fields:
            continue
        started = time.perf_counter()
        results = pool.map(settle_task, [(field, 5000 + k, cap, margin) for k in range(count)])
        per_cycle = len(list(round_robin(list(FIELDS[field]), [4], 1, 0)))
        stopped = [r["matches"] for r in results if r["settled"]]
        false = sum(bool(r["false"]) for r in results)
        p, se = share(false, count)
        print(f"{label} ({per_cycle} matches a cycle, at most {cap} cycles): settled in {len(stopped)} of {count} "
              f"runs, median {statistics.median(stopped) if stopped else math.nan:.0f} matches; false settled in "
              f"{false}", flush=True)
        print(f"settle: false settled = {p:.3f} ± {se:.3f} ({label}, {count} runs, P {P:g})", flush=True)
        if field == "family" and stopped:
            mean = statistics.mean(stopped)
            spread = statistics.stdev(stopped) / math.sqrt(len(stopped)) if len(stopped) > 1 else math.nan
            true = sum(r["order_true"] for r in results if r["settled"])
            print(f"settle: matches to settle = {mean:.0f} ± {spread:.0f} (the known-strength field, mean of the "
                  f"{len(stopped)} of {count} runs that settled, P {P:g}; every settled order true: "
                  f"{true} of {len(stopped)})", flush=True)
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
    parser.add_argument("--cap", type=int, default=60, help="most cycles a settle run plays (default 60)")
    parser.add_argument("--family-runs", type=int, default=30, help="least runs of the known-strength field (30; "
                        "--runs when more)")
    parser.add_argument("--margin", type=float, default=ev.DEFAULT_MARGIN, help="settle margin (places per match)")
    parser.add_argument("--contrast", action="store_true", help="also play the old seating, for comparison")
    parser.add_argument("--only", default="fairness,settle,calibration", help="which parts, comma separated")
    parser.add_argument("--fields", default=",".join(SETTLE_FIELDS),
                        help="which settle fields, comma separated (default pair,twins,equal,family)")
    args = parser.parse_args(argv)
    parts, fields = set(args.only.split(",")), args.fields.split(",")
    if min(args.workers, args.decided, args.runs, args.cap, args.family_runs) < 1 or args.margin <= 0 or \
            not parts <= {"fairness", "settle", "calibration"} or not set(fields) <= set(SETTLE_FIELDS):
        parser.error("counts must be at least 1, --margin above 0, --only of fairness, settle, calibration, "
                     "--fields of pair, twins, equal, family")
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
