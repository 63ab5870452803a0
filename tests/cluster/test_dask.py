"""Tournaments played through a real Dask scheduler and two ``dask worker`` processes on loopback.

Each worker runs in its own empty working directory with its own arena cache, and the bots'
directories are deleted once the driver has packed them: the workers can only play what
Dask carried to them. Results must equal those of local worker processes.
"""

from __future__ import annotations

import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Callable, Iterator

import pytest

from arena.cluster import portable
from arena.execute import DASK, choose
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament

from .harness import Cluster, copy_bots, make_tls, reference, results, stored, watched_cluster, write_tournament


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    with watched_cluster(tmp_path) as made:
        yield made.start(workers=2)


@pytest.fixture(scope="module")
def local_results(tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[tuple[object, ...]]]:
    """The reference: each tournament size played by two local worker processes."""
    return {}


def test_same_results_as_local_without_a_shared_file_system(
        cluster: Cluster, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        local_results: dict[int, list[tuple[object, ...]]]) -> None:
    expected = reference(tmp_path, local_results, 2)
    bots = copy_bots(tmp_path / "bots")
    config = load_config(write_tournament(tmp_path / "t.yaml", bots, tmp_path / "out"))
    packed = portable.Packer.portable

    def pack_all_then_delete(self: portable.Packer, job: portable.MatchJob) -> portable.RemoteJob:
        if bots.exists():
            for spec in config.bots:
                self.digest(spec)
            shutil.rmtree(bots)  # from now on nobody can read the bots at their original path
        return packed(self, job)

    monkeypatch.setattr(portable.Packer, "portable", pack_all_then_delete)
    lines: list[str] = []
    summary = run_tournament(config, workers=2, say=lines.append, executor=choose(DASK, cluster.address))
    assert not bots.exists()
    assert summary.played == 12 and summary.failed == 0 and not summary.stopped, lines
    assert results(tmp_path / "out") == expected
    from distributed import Client
    with Client(cluster.address, timeout=10) as client:  # the run left no messages on the scheduler
        topics = client.run_on_scheduler(lambda dask_scheduler: list(dask_scheduler._broker._topics))
        assert not [topic for topic in topics if topic.startswith("arena-")], topics
    # each worker that played unpacked (and built) its own copies (the scheduler may give one all the batches)
    played_here = [w for w in cluster.worker_dirs if (w / "cache" / portable.CACHE_DIR).is_dir()]
    assert played_here
    for worker in played_here:
        unpacked = list((worker / "cache" / portable.CACHE_DIR).iterdir())
        assert unpacked and all(len(p.name) == 64 for p in unpacked)


def test_a_worker_killed_mid_run_loses_nothing_and_stores_nothing_twice(
        cluster: Cluster, tmp_path: Path, local_results: dict[int, list[tuple[object, ...]]]) -> None:
    expected = reference(tmp_path, local_results, 6)
    bots = copy_bots(tmp_path / "bots")
    output = tmp_path / "out"
    config = load_config(write_tournament(tmp_path / "t.yaml", bots, output, cycles=6, per_process=6))
    victim = cluster.workers[0]

    def kill_when_playing() -> None:
        until = time.monotonic() + 600  # a bound only a broken run reaches
        while stored(output) < 3 and time.monotonic() < until:
            time.sleep(0.02)
        cluster.kill(victim)  # kill -9 of the worker process (and of the bots it runs)

    killer = threading.Thread(target=kill_when_playing)
    killer.start()
    lines: list[str] = []
    try:
        summary = run_tournament(config, workers=2, say=lines.append, executor=choose(DASK, cluster.address))
    finally:
        killer.join()
    assert victim.poll() is not None
    assert summary.failed == 0 and not summary.stopped, lines
    assert summary.played + summary.voided == 36
    assert results(output) == expected  # every match once, as local workers played it
    assert any(" died (Dask worker tcp://127.0.0.1:" in line and " lost)" in line for line in lines), lines


def test_every_worker_lost_at_once_then_a_new_one_joins(
        cluster: Cluster, tmp_path: Path, local_results: dict[int, list[tuple[object, ...]]]) -> None:
    """The bots' archives die with the only workers that held them: the run waits, says so, and sends
    them again to the worker that joins."""
    expected = reference(tmp_path, local_results, 6)
    bots = copy_bots(tmp_path / "bots")
    output = tmp_path / "out"
    config = load_config(write_tournament(tmp_path / "t.yaml", bots, output, cycles=6, per_process=6))
    lines: list[str] = []

    def kill_all_then_add_one() -> None:
        until = time.monotonic() + 600  # a bound only a broken run reaches
        while stored(output) < 3 and time.monotonic() < until:
            time.sleep(0.02)
        for worker in list(cluster.workers):
            cluster.kill(worker)
        while not any("waiting for one to join" in line for line in lines) and time.monotonic() < until:
            time.sleep(0.05)
        cluster.start_worker("late")

    helper = threading.Thread(target=kill_all_then_add_one)
    helper.start()
    try:
        summary = run_tournament(config, workers=2, say=lines.append, executor=choose(DASK, cluster.address))
    finally:
        helper.join()
    assert summary.failed == 0 and not summary.stopped and summary.played == 36, lines
    assert results(output) == expected
    assert any(line.startswith("no Dask worker at ") and "waiting for one to join" in line for line in lines)
    assert list((cluster.root / "late" / "cache" / portable.CACHE_DIR).iterdir())  # it got the bots too


POISON = """import os, signal, sys, time
sys.stdin.readline()  # hello
os.kill(os.getppid(), signal.SIGKILL)  # under sandbox none the parent is the Dask worker playing this match
time.sleep(30)
"""


@pytest.mark.parametrize("allowed_failures", [None, "0"], ids=["dask-default", "dask-gives-up-at-once"])
def test_a_match_that_kills_its_worker_twice_is_voided(tmp_path: Path, allowed_failures: str | None) -> None:
    """Workers under nannies (restarted when they die), a bot that kills whichever worker plays it: each of its
    matches is voided after two deaths and the others are played, whether the scheduler retries a task
    whose worker died (its default) or gives up on it at once (KilledWorker)."""
    env = {} if allowed_failures is None else {"DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES": allowed_failures}
    with watched_cluster(tmp_path) as cluster:
        cluster.start(workers=2, nanny=True, scheduler_env=env)
        bots = copy_bots(tmp_path / "bots")
        (bots / "poison").mkdir()
        (bots / "poison" / "bot.py").write_text(POISON)
        (bots / "poison" / "bot.yaml").write_text('name: poison\nlanguage: python\nrun: ["{python}", "bot.py"]\n')
        output = tmp_path / "out"
        file = write_tournament(tmp_path / "t.yaml", bots, output, cycles=1)
        file.write_text(file.read_text().replace(f"  - {bots / 'c-random'}", f"  - {bots / 'poison'}"))
        lines: list[str] = []
        summary = run_tournament(load_config(file), workers=2, say=lines.append, executor=choose(DASK, cluster.address))
    assert summary.failed == 0 and not summary.stopped, lines
    assert (summary.played, summary.voided) == (2, 4), lines
    played = results(output)
    assert all("poison" not in str(row[2]) for row in played)
    with sqlite3.connect(output / "results.sqlite") as db:
        voided = db.execute("select bots, reason from voided").fetchall()
    assert len(voided) == 4
    for bots_json, reason in voided:
        assert "poison" in bots_json and reason.startswith("killed its worker process twice"), reason
    if allowed_failures == "0":  # the scheduler's KilledWorker, not only the driver's own look, buried some
        assert any(" died" in reason for _, reason in voided), voided


def test_local_n_and_no_worker_is_sent_the_master_seed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``local:N`` starts its own cluster; what the driver submits and scatters (jobs, archives) holds each
    match's deal seed, which a worker needs to deal, but never the master seed they are drawn from."""
    import cloudpickle
    import distributed

    master = "918273645546372819"
    bots = copy_bots(tmp_path / "bots")
    file = write_tournament(tmp_path / "t.yaml", bots, tmp_path / "out", cycles=1)
    file.write_text(file.read_text().replace("seed: 7\n", f"seed: '{master}'\n"))
    sent: list[object] = []
    submit, scatter = distributed.Client.submit, distributed.Client.scatter

    def record_submit(self: distributed.Client, *args: object, **kwargs: object) -> object:
        sent.append((args, kwargs))
        return submit(self, *args, **kwargs)

    def record_scatter(self: distributed.Client, data: object, *args: object, **kwargs: object) -> object:
        sent.append(data)
        return scatter(self, data, *args, **kwargs)

    monkeypatch.setattr(distributed.Client, "submit", record_submit)
    monkeypatch.setattr(distributed.Client, "scatter", record_scatter)
    lines: list[str] = []
    summary = run_tournament(load_config(file), workers=2, say=lines.append, executor=choose(DASK, "local:2"))
    assert summary.played == 6 and summary.failed == 0 and not summary.stopped, lines
    assert any("on Dask at local:2" in line for line in lines), lines
    blob = cloudpickle.dumps(sent)
    deal_seeds = {row[1] for row in results(tmp_path / "out")}
    assert deal_seeds and all(str(seed).encode() in blob for seed in deal_seeds)  # the capture saw the jobs
    assert master.encode() not in blob


def test_a_tls_cluster_with_the_driver_certificates_in_the_dask_configuration(tmp_path: Path) -> None:
    """docs/cluster.md's advice where others can reach the cluster: TLS for the scheduler and workers, a ``tls://``
    address for ``--dask`` and the driver's certificates in the Dask configuration. Without them: one line."""
    import dask

    tls = make_tls(tmp_path / "certs")
    options = ["--tls-ca-file", str(tls["ca"]), "--tls-cert", str(tls["cert"]), "--tls-key", str(tls["key"])]
    settings = {"distributed.comm.tls.ca-file": str(tls["ca"]), "distributed.comm.tls.client.cert": str(tls["cert"]),
                "distributed.comm.tls.client.key": str(tls["key"])}
    bots = copy_bots(tmp_path / "bots")
    with watched_cluster(tmp_path, tls=options) as cluster:
        assert cluster.address.startswith("tls://")
        with dask.config.set(settings):
            cluster.start(workers=1)
            summary = run_tournament(load_config(write_tournament(tmp_path / "t.yaml", bots, tmp_path / "out")),
                                     workers=2, say=lambda line: None, executor=choose(DASK, cluster.address))
        assert summary.played == 12 and summary.failed == 0 and not summary.stopped, summary
        refused = run_tournament(load_config(write_tournament(tmp_path / "u.yaml", bots, tmp_path / "out2")),
                                 workers=2, say=lambda line: None, executor=choose(DASK, cluster.address))
    assert refused.played == 0 and refused.stopped.startswith(f"cannot reach the Dask scheduler at {cluster.address}: ")


def stopped_run(cluster: Cluster, tmp_path: Path, cycles: int,
                stop: Callable[[subprocess.Popen[str]], object]) -> tuple[int, str, Path, Path]:
    """``arena run --dask`` of a fresh tournament, stopped by ``stop`` once 3 matches are stored: its exit
    code, its stderr, the output directory and the file."""
    bots = copy_bots(tmp_path / "bots")
    output = tmp_path / "out"
    file = write_tournament(tmp_path / "t.yaml", bots, output, cycles=cycles, per_process=3)
    arena = [sys.executable, "-m", "arena.cli", "run", str(file), "--dask", cluster.address, "--no-report"]
    run = subprocess.Popen(arena, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        until = time.monotonic() + 600  # a bound only a broken run reaches
        while stored(output) < 3 and time.monotonic() < until and run.poll() is None:
            time.sleep(0.02)
        stop(run)
        _, err = run.communicate(timeout=600)
    finally:
        if run.poll() is None:
            run.kill()
    return run.returncode, err, output, file

def test_the_scheduler_going_away_stops_the_run_and_a_later_run_resumes(
        cluster: Cluster, tmp_path: Path, local_results: dict[int, list[tuple[object, ...]]]) -> None:
    expected = reference(tmp_path, local_results, 6)
    returncode, err, output, file = stopped_run(cluster, tmp_path, 6, lambda run: cluster.kill(cluster.scheduler))
    arena = [sys.executable, "-m", "arena.cli", "run", str(file), "--dask", cluster.address, "--no-report"]
    assert returncode == 1, err
    assert err.strip().splitlines()[-1].startswith("Error: lost the Dask scheduler at "), err
    assert " died (" not in err  # the workers did not: the scheduler's end is not blamed on them
    first = stored(output)
    assert 3 <= first < 36
    cluster.close()
    cluster.start(workers=2)
    again = subprocess.run(arena, capture_output=True, text=True, timeout=1200)
    assert again.returncode == 0, again.stderr
    assert f"{first} already stored" in again.stderr
    assert results(output) == expected


def test_a_worker_without_the_sandbox_is_refused_before_play(tmp_path: Path) -> None:
    with watched_cluster(tmp_path) as cluster:
        cluster.start(workers=2, DOCKER_HOST="unix:///nonexistent/docker.sock")  # no Docker engine for them
        bots = copy_bots(tmp_path / "bots")
        output = tmp_path / "out"
        config = load_config(write_tournament(tmp_path / "t.yaml", bots, output, sandbox="docker"))
        lines: list[str] = []
        summary = run_tournament(config, workers=2, say=lines.append, executor=choose(DASK, cluster.address))
    refused = [line for line in lines if " refused: " in line]
    assert len(refused) == 2, lines
    for line in refused:
        assert line.startswith("Dask worker tcp://127.0.0.1:") and "docker" in line and "\n" not in line
    assert summary.played == 0 and summary.stopped.startswith("no Dask worker at "), summary.stopped


def test_sampled_and_ladder_schedules(cluster: Cluster, tmp_path: Path) -> None:
    bots = copy_bots(tmp_path / "bots")
    sampled = tmp_path / "sampled.yaml"
    for way in ("local", "dask"):
        write_tournament(sampled, bots, tmp_path / f"sampled-{way}", cycles=2)
        sampled.write_text(sampled.read_text().replace("seats: 2\n", "seats: 2\nschedule: sampled\ntables: 2\n"))
        summary = run_tournament(load_config(sampled), workers=2, say=lambda line: None,
                                 executor=choose(DASK, cluster.address) if way == "dask" else None)
        assert summary.played == summary.total == 8
    assert results(tmp_path / "sampled-dask") == results(tmp_path / "sampled-local")

    seatings = []
    for way in ("local", "dask"):  # past the matchmaker's lag (16 tables): later tables follow the ratings
        ladder = tmp_path / f"ladder-{way}.yaml"
        executor = f'executor: {{dask: "{cluster.address}"}}\n' if way == "dask" else ""
        ladder.write_text(f"""name: lad
schedule: ladder
seats: 2
seed: 5
sandbox: none
placement_matches: 2
{executor}output: {tmp_path / f'ladder-{way}'}
bots:
  - {bots / 'random'}
  - {bots / 'heuristic'}
  - {bots / 'c-random'}
""")
        lines: list[str] = []
        summary = run_tournament(load_config(ladder), workers=2, say=lines.append, max_matches=24)
        assert summary.played == 24 and not summary.stopped and summary.failed == 0, lines
        where = next(line for line in lines if " already stored, " in line)
        assert ("on Dask at " + cluster.address in where) == (way == "dask"), where
        with sqlite3.connect(tmp_path / f"ladder-{way}" / "results.sqlite") as db:
            seatings.append(db.execute("SELECT idx, match_id, bots, places FROM matches ORDER BY idx").fetchall())
    assert seatings[0] == seatings[1]  # the same tables, seats and results wherever they were played


def test_ctrl_c_stops_the_run_and_a_later_run_resumes(cluster: Cluster, tmp_path: Path) -> None:
    returncode, err, output, file = stopped_run(cluster, tmp_path, 100, lambda run: run.send_signal(signal.SIGINT))
    arena = [sys.executable, "-m", "arena.cli", "run", str(file), "--dask", cluster.address, "--no-report"]
    assert returncode == 130, err
    lines = [line for line in err.replace("\r", "\n").splitlines() if line and not line.startswith("[")]
    assert lines[-1].startswith("interrupted: "), lines
    first = stored(output)
    assert 3 <= first < 600
    again = subprocess.run([*arena, "--matches", "3"], capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    assert f"{first} already stored" in again.stderr and stored(output) == first + 3
