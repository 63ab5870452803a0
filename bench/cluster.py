"""Tournament throughput through Dask (a scheduler and 2 ``dask worker`` processes on loopback)
against the local pool with 2 worker processes, on this machine.

Plays the league's field (tournaments/league.yaml, ``--cycles`` of it) into fresh output
directories, alternating the two ways ``--repeats`` times; the fastest run of each counts
(short runs on a shared machine are noisy; the median of the run-by-run ratios is printed too).
The Dask workers start once, each in its own empty working directory with its own arena cache,
and stay up across repeats, as a cluster would: a first Dask run, not counted, unpacks and builds
the bots on them. Last line:
``cluster: dask/local = R`` (matches per second through Dask over those of the local pool;
target >= 0.9).
"""

from __future__ import annotations

import dataclasses
import io
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import arena.cluster  # noqa: E402,F401  registers the Dask executor chosen below
from arena.execute import DASK as DASK_EXECUTOR, choose  # noqa: E402
from arena.tournament.driver import run_tournament  # noqa: E402
from tournament import league_config, league_parser  # noqa: E402  (bench/tournament.py)

DASK = Path(sys.executable).with_name("dask")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_cluster(root: Path, workers: int) -> tuple[str, list[subprocess.Popen[bytes]]]:
    """A scheduler and ``workers`` single-threaded workers on loopback, each worker in its own directory."""
    import distributed

    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    log = open(root / "cluster.log", "ab")
    procs = [subprocess.Popen([str(DASK), "scheduler", "--host", "127.0.0.1", "--port", str(port), "--no-dashboard"],
                              stdout=log, stderr=log, cwd=root, start_new_session=True)]
    for n in range(workers):
        cwd = root / f"w{n}"
        cwd.mkdir()
        procs.append(subprocess.Popen(
            [str(DASK), "worker", address, "--nworkers", "1", "--nthreads", "1", "--no-dashboard", "--host",
             "127.0.0.1"], stdout=log, stderr=log, cwd=cwd, env={**os.environ, "ARENA_CACHE": str(cwd / "cache")},
            start_new_session=True))
    client: Any = getattr(distributed, "Client")(address, timeout=30)
    try:
        client.wait_for_workers(workers, timeout=60)
    finally:
        client.close()
    return address, procs


def main() -> None:
    args = league_parser(__doc__, 8, "runs of each way, alternating; the fastest counts").parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        config = league_config(args)
        address, procs = start_cluster(Path(tmp), 2)
        try:
            best: dict[str, float] = {}
            pairs: list[float] = []

            def play(way: str, label: str) -> float:
                out = Path(tmp) / label
                start = time.perf_counter()
                summary = run_tournament(dataclasses.replace(config, output=out), out=io.StringIO(),
                                         workers=2, executor=choose(DASK_EXECUTOR, address) if way == "dask" else None)
                wall = time.perf_counter() - start
                if summary.played != summary.total or summary.stopped:
                    raise SystemExit(f"{way}: {summary.played} of {summary.total} played; {summary.stopped}")
                rate = summary.played / wall
                print(f"{label:12} {summary.played} matches in {wall:.2f} s = {rate:.1f} matches/s "
                      f"(sandbox {summary.sandbox})", flush=True)
                return rate

            play("dask", "dask warm-up")  # the workers unpack and build the bots once: not counted
            for repeat in range(args.repeats):
                rates = {way: play(way, f"{way} run {repeat + 1}") for way in ("local", "dask")}
                pairs.append(rates["dask"] / rates["local"])
                for way, rate in rates.items():
                    best[way] = max(best.get(way, 0.0), rate)
        finally:
            for proc in procs:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
    print(f"best: local {best['local']:.1f} matches/s, dask {best['dask']:.1f} matches/s; "
          f"run by run dask/local: median {statistics.median(pairs):.2f}, from {min(pairs):.2f} to {max(pairs):.2f}")
    print(f"cluster: dask/local = {best['dask'] / best['local']:.2f}")


if __name__ == "__main__":
    main()
