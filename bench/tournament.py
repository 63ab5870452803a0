"""Tournament throughput with 1 and 2 workers, and the cost of the tournament machinery.

Plays the league's field (tournaments/league.yaml, fewer cycles) three ways in one run:
the scheduled jobs played directly with ``play_match`` in a loop (no scheduling,
storage, rating or progress), then ``run_tournament`` with 1 worker and with 2 workers
into fresh output directories. Last line:
``tournament: speedup2 = S, machinery = M%``.
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
from arena.runner import play_match  # noqa: E402
from arena.sandbox import resolve_backend  # noqa: E402
from arena.tournament.config import load_config  # noqa: E402
from arena.tournament.driver import _job, run_tournament, schedule_of  # noqa: E402


def cpu_seconds() -> float:
    """CPU time of this process and of its reaped children (bots, workers)."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--config", default=str(ROOT / "tournaments" / "league.yaml"))
    parser.add_argument("--cycles", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        base = load_config(Path(args.config))
        config = dataclasses.replace(base, cycles=args.cycles, seed=1 if base.seed is None else base.seed)
        for spec in config.bots:
            build_bot(spec)
        backend, _ = resolve_backend(config.sandbox)
        schedule = schedule_of(config)
        specs = {b.name: b for b in config.bots}

        start = time.perf_counter()
        for scheduled in schedule:
            play_match(_job(config, scheduled, specs, backend.name))
        direct = time.perf_counter() - start

        walls, cpus = {}, {}
        for workers in (1, 2):
            run = dataclasses.replace(config, output=Path(tmp) / f"w{workers}", workers=workers)
            cpu0, start = cpu_seconds(), time.perf_counter()
            summary = run_tournament(run, out=io.StringIO())
            walls[workers], cpus[workers] = time.perf_counter() - start, cpu_seconds() - cpu0
            assert summary.played == len(schedule) and summary.failed == 0
        n = len(schedule)
        print(f"{n} matches, sandbox {backend.name}: direct {n / direct:.2f} matches/s; "
              f"tournament 1 worker {n / walls[1]:.2f} matches/s, 2 workers {n / walls[2]:.2f} matches/s")
        cores = len(os.sched_getaffinity(0))
        busy = cpus[1] / walls[1]  # bots start in parallel, so one worker already uses more than a core
        print(f"CPU: 1 worker kept {busy:.2f} cores busy, 2 workers {cpus[2] / walls[2]:.2f}; "
              f"{cores} cores allow a 2-worker speed-up of at most {min(2.0, cores / busy):.2f}")
        machinery = max(0.0, (walls[1] - direct) / walls[1])
        print(f"tournament: speedup2 = {walls[1] / walls[2]:.2f}, machinery = {100 * machinery:.1f}%")


if __name__ == "__main__":
    main()
