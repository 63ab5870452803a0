"""A dead worker process costs a replay, never the tournament: a bot that kills it, and kill -9 from outside."""

from __future__ import annotations

import csv
import io
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import load_config
from arena.tournament.driver import publish, run_tournament, schedule_of
from arena.tournament.store import ResultStore

from ..tournament.test_driver import results_of

ROOT = Path(__file__).resolve().parents[2]
KILLER = ROOT / "tests" / "bots" / "kill_worker.py"
REASON = "killed its worker process twice, SIGKILL each time"
VOIDED = ["c1/heuristic+killer/r0", "c1/heuristic+killer/r1", "c1/killer+random/r0", "c1/killer+random/r1"]


def killer_config(tmp_path: Path, name: str, workers: int) -> Path:
    """random, heuristic and a bot that SIGKILLs its worker at its first act: 6 matches, 4 with the killer."""
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nseats: 2\nseed: 8\nsandbox: none\nworkers: {workers}\n"
                    f"output: {tmp_path / name}\nbots:\n  - {ROOT / 'bots' / 'random'}\n"
                    f"  - {ROOT / 'bots' / 'heuristic'}\n  - {{name: killer, command: \"{{python}} {KILLER}\"}}\n")
    return path


def arena_run(path: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(path), *args], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def table(output: Path, sql: str) -> list[tuple]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


PLAYED = "SELECT idx, match_id, seed, bots, places, totals, rounds, faults FROM matches ORDER BY idx"
VOIDS = "SELECT idx, match_id, seed, cycle, rotation, bots, reason FROM voided ORDER BY idx"


@pytest.fixture(scope="module")
def killed(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, int]:
    """The killer tournament run by `arena run` with 2 workers: its file, its output, its exit status."""
    tmp = tmp_path_factory.mktemp("killer")
    path = killer_config(tmp, "killer2", workers=2)
    proc = arena_run(path)
    out, _ = proc.communicate(timeout=1200)
    return path, out, proc.returncode


def test_a_bot_that_kills_its_worker_voids_its_matches_and_the_run_finishes(killed):
    path, out, code = killed
    config = load_config(path)
    assert code == 0, out
    assert "Traceback" not in out
    assert out.rstrip().splitlines()[-1] == f"4 matches voided: {', '.join(VOIDED)} ({REASON})"
    assert out.count("died (SIGKILL) while playing") == 4  # each culprit's first death; the second voids it
    for match in VOIDED:
        assert f"voided {match} ({REASON}): not rated, not played again" in out
    schedule = {s.match_id: s for s in schedule_of(config)}
    played = table(config.output, PLAYED)
    assert [r[1] for r in played] == ["c1/heuristic+random/r0", "c1/heuristic+random/r1"]
    assert all(json.loads(r[4]) for r in played)  # rated matches with places
    voids = table(config.output, VOIDS)
    assert voids == [(schedule[m].index, m, schedule[m].seed, 1, schedule[m].rotation, json.dumps(list(schedule[m].bots)),
                      REASON) for m in VOIDED]

    board = json.loads((config.output / "leaderboard.json").read_text())
    assert board["matches"] == 2 and [v["match"] for v in board["voided"]] == VOIDED
    assert {s["bot"]: (s["matches"], s["voided"]) for s in board["standings"]} == {
        "heuristic": (2, 2), "random": (2, 2), "killer": (0, 4)}
    with (config.output / "voided.csv").open(newline="") as handle:
        assert [row["match"] for row in csv.DictReader(handle)] == VOIDED
    assert "## Voided matches" in (config.output / "leaderboard.md").read_text()
    shown = CliRunner().invoke(main, ["leaderboard", str(config.output)])
    assert shown.exit_code == 0 and "2 of 6 matches finished, 4 voided" in shown.output
    assert f"4 matches voided: {', '.join(VOIDED)} ({REASON})" in shown.output

    written = (config.output / "leaderboard.json").read_text()  # rated live, in schedule order
    store = ResultStore(config.output)
    try:
        publish(store, config)  # no fold: recomputed from the database, voids left out
    finally:
        store.close()
    assert (config.output / "leaderboard.json").read_text() == written


def test_one_worker_survives_the_killer_too_and_gives_the_same_results(killed, tmp_path):
    config = load_config(killer_config(tmp_path, "killer1", workers=1))
    told: list[str] = []
    summary = run_tournament(config, out=io.StringIO(), say=told.append)
    assert (summary.played, summary.voided, summary.failed, summary.stopped) == (2, 4, 0, "")
    reference = load_config(killed[0]).output
    assert table(config.output, PLAYED) == table(reference, PLAYED)
    assert table(config.output, VOIDS) == table(reference, VOIDS)
    assert results_of(config.output) == results_of(reference)  # reply times differ from run to run


def test_a_resume_does_not_play_voided_matches_again(killed, tmp_path):
    config = load_config(killed[0])
    voids = table(config.output, "SELECT * FROM voided ORDER BY idx")
    db = sqlite3.connect(config.output / "results.sqlite")
    with db:  # one rated match still to play, between the voided ones
        db.execute("DELETE FROM matches WHERE match_id = 'c1/heuristic+random/r1'")
    db.close()
    told: list[str] = []
    summary = run_tournament(config, out=io.StringIO(), say=told.append)
    assert (summary.skipped, summary.played, summary.voided) == (5, 1, 0)
    assert any("5 already stored (4 of them voided), 1 to play" in line for line in told)
    assert not [line for line in told if "died" in line]
    assert table(config.output, "SELECT * FROM voided ORDER BY idx") == voids  # untouched
    assert len(table(config.output, PLAYED)) == 2


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                kids += [int(k) for k in f.read().split()]
        except OSError:
            pass
    return kids


def test_a_worker_killed_from_outside_has_its_batch_played_again_and_nothing_is_lost_or_doubled(tmp_path):
    field = "".join(f"  - {ROOT / 'bots' / bot}\n" for bot in ("random", "c-random", "heuristic", "js-greedy"))
    lines = (f"seats: 2\ncycles: 3\nseed: 21\nsandbox: none\nbots:\n{field}")
    path, reference = tmp_path / "outside.yaml", tmp_path / "reference.yaml"
    path.write_text(f"name: outside\nworkers: 2\noutput: {tmp_path / 'outside'}\n{lines}")
    reference.write_text(f"name: reference\nworkers: 2\noutput: {tmp_path / 'reference'}\n{lines}")
    proc = arena_run(path)  # 36 matches in two batches of 18, one per worker
    output = tmp_path / "outside"
    victim = None
    end = time.monotonic() + 600
    while victim is None and time.monotonic() < end and proc.poll() is None:
        try:
            stored = len(table(output, PLAYED)) if (output / "results.sqlite").exists() else 0
        except sqlite3.OperationalError:  # the database is still being set up
            stored = 0
        if stored >= 3:  # both workers are in the middle of their batch: pick one that runs bots
            victim = next((pid for pid in _children(proc.pid) if _children(pid)), None)
        time.sleep(0.02)
    assert victim is not None, "no busy worker found"
    os.kill(victim, signal.SIGKILL)
    out, _ = proc.communicate(timeout=1200)
    assert proc.returncode == 0, out
    assert "Traceback" not in out and "matches voided" not in out and "match voided" not in out
    assert f"worker process {victim} died (SIGKILL) while playing" in out
    assert "unfinished match(es) of its batch will be played again" in out
    kept = table(output, PLAYED)
    assert len(kept) == 36 and len({r[1] for r in kept}) == 36
    assert table(output, "SELECT COUNT(*) FROM voided") == [(0,)]
    run_tournament(load_config(reference), out=io.StringIO())
    assert kept == table(tmp_path / "reference", PLAYED)  # as if no worker had died


def test_workers_that_cannot_be_kept_alive_stop_the_run_in_one_line(tmp_path, monkeypatch):
    from arena.execute import local

    def deadly(jobs, spare=None):
        os.kill(os.getpid(), signal.SIGKILL)  # every worker, before it starts a match

    monkeypatch.setattr(local, "play_batch", deadly)
    path = killer_config(tmp_path, "doomed", workers=2)
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.rstrip().splitlines()[-1] == (
        f"Error: {local.IDLE_DEATHS_LIMIT} worker processes in a row died before playing a match (the last: SIGKILL); "
        "finished matches are kept, run again to resume")
    assert (tmp_path / "doomed" / "leaderboard.json").exists()  # published from what was kept


def test_a_sigterm_caught_in_a_finalizer_prints_no_traceback_but_other_errors_still_do(capsys):
    """Ctrl-C stops workers with SIGTERM; landing in ``Popen.__del__`` it used to print a traceback."""
    import sys

    from arena.execute.worker import _quiet

    class Finalized:
        def __init__(self, exc: BaseException) -> None:
            self.exc = exc

        def __del__(self) -> None:
            raise self.exc

    before = sys.unraisablehook
    sys.unraisablehook = _quiet
    try:
        Finalized(SystemExit(143))  # dropped at once: its __del__ raises where nothing can catch it
        quiet = capsys.readouterr().err
        Finalized(ValueError("a real bug"))
        loud = capsys.readouterr().err
    finally:
        sys.unraisablehook = before
    assert quiet == ""
    assert "ValueError: a real bug" in loud
