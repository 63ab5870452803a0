"""The arena's Docker image as a Dask worker, as docs/cluster.md builds and runs it.

Built with ``--build-arg EXTRAS=dask`` from the local base image, run with host networking
against a scheduler on loopback, while an arena on the host keeps sweeping for orphans: the
host sees the container's bots but must never take them for its own (their tokens name the
container's PID namespace). Runs only with ARENA_DOCKER_IMAGE_TEST=1 (CI sets it once it has
an engine and the base image); the build takes about a minute.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import threading
from pathlib import Path

import pytest

import arena.cluster  # noqa: F401  registers the Dask executor these runs choose
from arena.execute import DASK, choose
from arena.sandbox import orphans
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament

from .harness import Cluster, copy_bots, reference, results, write_tournament

ROOT = Path(__file__).resolve().parents[2]
BASE = os.environ.get("ARENA_BASE_IMAGE", "cabo-arena-base:bookworm")
IMAGE = "cabo-arena-dask:ci"

pytestmark = pytest.mark.skipif(os.environ.get("ARENA_DOCKER_IMAGE_TEST") != "1",
                                reason="builds a Docker image: runs only with ARENA_DOCKER_IMAGE_TEST=1 (CI)")


def _ok(*command: str) -> bool:
    return subprocess.run(command, capture_output=True, timeout=60).returncode == 0


@pytest.fixture(scope="module")
def image() -> str:
    if not _ok("docker", "info"):
        pytest.skip("no Docker engine answers")
    if not _ok("docker", "image", "inspect", BASE):
        pytest.skip(f"no base image {BASE} (docker/make-base-image.sh makes it)")
    build = subprocess.run(["docker", "build", "--network=host", "--build-arg", f"BASE={BASE}",
                            "--build-arg", "EXTRAS=dask", "-t", IMAGE, "."],
                           cwd=ROOT, capture_output=True, text=True, timeout=15 * 60)
    assert build.returncode == 0, build.stdout[-3000:] + build.stderr[-3000:]
    return IMAGE


def test_the_image_plays_as_a_dask_worker_beside_a_sweeping_host_arena(image: str, tmp_path: Path) -> None:
    expected = reference(tmp_path, {}, 2)
    root = tmp_path / "cluster"
    root.mkdir()
    cluster = Cluster(root)
    name = f"arena-dask-worker-{os.getpid()}"
    stop = threading.Event()

    def sweep_all_the_while() -> None:  # what any arena started on the host does before its first bot
        while not stop.is_set():
            orphans.sweep(timeout=1.0, force=True)
            stop.wait(0.02)

    sweeper = threading.Thread(target=sweep_all_the_while, daemon=True)
    try:
        cluster.start_scheduler()
        subprocess.run(["docker", "run", "-d", "--name", name, "--network", "host", "--entrypoint",
                        "/opt/arena/bin/dask", image, "worker", cluster.address, "--nworkers", "2", "--nthreads", "1"],
                       check=True, capture_output=True, timeout=60)
        cluster.wait_for(2, timeout=300)
        sweeper.start()
        bots = copy_bots(tmp_path / "bots")
        output = tmp_path / "out"
        lines: list[str] = []
        summary = run_tournament(load_config(write_tournament(tmp_path / "t.yaml", bots, output, sandbox="auto")),
                                 workers=2, say=lines.append, executor=choose(DASK, cluster.address))
    finally:
        stop.set()
        subprocess.run(["docker", "rm", "-f", name], capture_output=True, timeout=60)
        cluster.close()
    assert summary.played == 12 and summary.failed == 0 and not summary.stopped, lines
    with sqlite3.connect(output / "results.sqlite") as db:
        faults = [json.loads(row[0]) for row in db.execute("select faults from matches")]
    assert faults == [[]] * 12  # no bot of the container killed by the host's sweeps
    assert results(output) == expected  # the same matches as two local worker processes
