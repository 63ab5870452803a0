"""Tournament throughput with 1 and 2 workers, and the cost of the tournament machinery and of the luck meter.

Plays the league's field (tournaments/league.yaml) four ways in one run: the
scheduled jobs played directly, batch after batch with ``play_batch`` as the workers
do (no pool, storage, rating or progress), the same without the referee's luck meter
(``MatchJob.luck`` off), then ``run_tournament`` with 1 worker and
with 2 workers into fresh output directories. Last lines:
``tournament: speedup2 = S, machinery = M%`` and ``tournament: luck meter = L% of a match``.
"""

from __future__ import annotations

import argparse
import dataclasses
import io
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import build_bot  # noqa: E402
from arena.match.runner import play_batch  # noqa: E402
from arena.sandbox import resolve_backend  # noqa: E402
from arena.tournament.config import TournamentConfig, load_config  # noqa: E402
from arena.tournament.driver import _job, run_tournament, schedule_of  # noqa: E402
from arena.tournament.schedules.fixed import batches  # noqa: E402


def cpu_seconds() -> float:
    """CPU time of this process and of its reaped children (bots, workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def league_parser(description: str | None, repeats: int, repeats_help: str) -> argparse.ArgumentParser:
    """The options of the benches that play the league: ``--config``, ``--cycles``, ``--repeats``."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--config", default=str(ROOT / "tournaments" / "league.yaml"))
    parser.add_argument("--cycles", type=int, default=60, help="league cycles (4 matches each)")
    parser.add_argument("--repeats", type=int, default=repeats, help=repeats_help)
    return parser


def league_config(args: argparse.Namespace) -> TournamentConfig:
    """The tournament those options name, ``--cycles`` long, with a fixed seed if it has none."""
    base = load_config(Path(args.config))
    return dataclasses.replace(base, cycles=args.cycles, seed=1 if base.seed is None else base.seed)


def main() -> None:
    args = league_parser(__doc__, 5, "runs of each way; the fastest counts").parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = league_config(args)
        for spec in config.bots:
            build_bot(spec)
        backend, _ = resolve_backend(config.sandbox)
        schedule = schedule_of(config)
        specs = {b.name: b for b in config.bots}

        best: dict[str, tuple[float, float]] = {}  # way -> (wall, cpu) of its fastest run
        for repeat in range(args.repeats):  # the best of each: short runs on a shared machine are noisy
            for way in ("1", "direct", "unmetered", "2"):
                cpu0, start = cpu_seconds(), time.perf_counter()
                if way in ("direct", "unmetered"):
                    for run in batches(schedule, {s.index for s in schedule}, config.matches_per_process):
                        jobs = [_job(config, scheduled, specs, backend.name) for scheduled in run]
                        for _ in play_batch([dataclasses.replace(j, luck=way == "direct") for j in jobs]):
                            pass
                else:
                    out = Path(tmp) / f"r{repeat}w{way}"
                    summary = run_tournament(dataclasses.replace(config, output=out, workers=int(way)), out=io.StringIO())
                    assert summary.played == len(schedule) and summary.failed == 0
                wall, cpu = time.perf_counter() - start, cpu_seconds() - cpu0
                if wall < best.get(way, (float("inf"), 0.0))[0]:
                    best[way] = (wall, cpu)
        direct, (one, cpu_one), (two, cpu_two) = best["direct"][0], best["1"], best["2"]
        n = len(schedule)
        print(f"{n} matches, sandbox {backend.name}, {config.matches_per_process} matches per bot process: "
              f"direct {n / direct:.2f} matches/s; tournament 1 worker {n / one:.2f} matches/s, "
              f"2 workers {n / two:.2f} matches/s (best of {args.repeats})")
        cores = len(os.sched_getaffinity(0))
        busy = cpu_one / one  # bots start in parallel, so one worker already uses more than a core
        print(f"CPU: 1 worker kept {busy:.2f} cores busy, 2 workers {cpu_two / two:.2f}; "
              f"{cores} cores leave room for a 2-worker speed-up of about {min(2.0, cores / busy):.2f}")
        machinery = max(0.0, (one - direct) / one)
        print(f"tournament: speedup2 = {one / two:.2f}, machinery = {100 * machinery:.1f}%")
        unmetered = best["unmetered"][0]
        print(f"direct without the luck meter {n / unmetered:.2f} matches/s (best of {args.repeats})")
        print(f"tournament: luck meter = {100 * (direct - unmetered) / unmetered:.1f}% of a match")


if __name__ == "__main__":
    main()
