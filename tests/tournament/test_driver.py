"""Tournaments end to end: determinism across workers, resume after SIGKILL, Ctrl-C, the CLI."""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament, sandbox_line
from arena.tournament.schedules.round_robin import schedule_size

ROOT = Path(__file__).resolve().parents[2]


def write_config(tmp_path: Path, name: str, seats: str = "[2, 3]", bots: int = 3, cycles: int = 1,
                 workers: int = 1, extra: str = "") -> Path:
    field = ["random", "c-random", "heuristic", "js-greedy"][:bots]
    lines = [f"name: {name}", "rules: standard", f"seats: {seats}", f"cycles: {cycles}", "seed: 11",
             "time: {move_ms: 2000, startup_ms: 10000}", "sandbox: none", f"workers: {workers}",
             f"output: {tmp_path / name}", "bots:"] + [f"  - {ROOT / 'bots' / b}" for b in field]
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n" + extra)
    return path


def rows(output: Path) -> list[tuple]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return db.execute("SELECT idx, match_id, seed, bots, places, totals, rounds, faults FROM matches ORDER BY idx").fetchall()
    finally:
        db.close()


TIMES = ("mean_ms", "max_ms", "startup_ms")
"""Leaderboard columns that measure a run (reply and start-up times), not its results."""


def results_of(output: Path) -> dict:
    """``leaderboard.json`` without the timing columns: what two runs of one tournament must agree on."""
    board = json.loads((output / "leaderboard.json").read_text())
    board["standings"] = [{k: v for k, v in s.items() if k not in TIMES} for s in board["standings"]]
    return board


def test_same_results_and_ratings_with_one_and_two_workers(tmp_path):
    one = load_config(write_config(tmp_path, "one", workers=1))
    two = load_config(write_config(tmp_path, "two", workers=2))
    a = run_tournament(one, out=open(os.devnull, "w"))
    b = run_tournament(two, out=open(os.devnull, "w"))
    assert a.played == b.played == 9 and a.failed == b.failed == 0
    assert rows(one.output) == rows(two.output)
    assert results_of(one.output) == results_of(two.output)
    untimed = [dataclasses.replace(s, mean_ms=None, max_ms=None, startup_ms=None) for s in a.leaderboard.standings]
    assert untimed == [dataclasses.replace(s, mean_ms=None, max_ms=None, startup_ms=None)
                       for s in b.leaderboard.standings]


def test_second_run_resumes_and_plays_nothing_again(tmp_path):
    config = load_config(write_config(tmp_path, "again"))
    first = run_tournament(config, out=open(os.devnull, "w"))
    before = rows(config.output)
    second = run_tournament(config, out=open(os.devnull, "w"))
    assert (first.played, second.played, second.skipped) == (9, 0, 9)
    assert rows(config.output) == before


def test_replays_stored_compressed_per_match(tmp_path):
    import gzip

    config = load_config(write_config(tmp_path, "replays"))
    run_tournament(config, out=open(os.devnull, "w"))
    files = sorted((config.output / "replays").iterdir())
    assert len(files) == 9 and all(f.name.endswith(".jsonl.gz") for f in files)
    header = json.loads(gzip.decompress(files[0].read_bytes()).decode().splitlines()[0])
    assert header["type"] == "header" and header["match"] == rows(config.output)[0][1]


def _start(path: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def _wait_rows(output: Path, count: int, proc: subprocess.Popen, timeout: float = 600) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if (output / "results.sqlite").exists():
            try:
                if len(rows(output)) >= count:
                    return
            except sqlite3.OperationalError:
                pass
        assert proc.poll() is None, proc.stdout.read() if proc.stdout else ""
        time.sleep(0.05)
    raise AssertionError("the run did not store matches in time")


def _descendants(pid: int) -> set[int]:
    """Every live descendant of ``pid`` (workers, bots and what they started)."""
    found, stack = set(), [pid]
    while stack:
        current = stack.pop()
        try:
            tasks = os.listdir(f"/proc/{current}/task")
        except OSError:
            continue
        for tid in tasks:
            try:
                with open(f"/proc/{current}/task/{tid}/children") as f:
                    kids = [int(k) for k in f.read().split()]
            except OSError:
                continue
            found.update(kids)
            stack.extend(kids)
    return found


def _alive(pids: set[int]) -> set[int]:
    """Those of ``pids`` that still run (zombies do not count)."""
    alive = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] != "Z":
                    alive.add(pid)
        except OSError:
            pass
    return alive


def _family(pid: int, timeout: float = 120.0) -> set[int]:
    """The descendants of ``pid`` once there are some (between two matches there are none)."""
    end = time.monotonic() + timeout
    while not (found := _descendants(pid)) and time.monotonic() < end:
        time.sleep(0.005)
    return found


def _wait_gone(pids: set[int], timeout: float = 60.0) -> set[int]:
    end = time.monotonic() + timeout
    while _alive(pids) and time.monotonic() < end:
        time.sleep(0.05)
    return _alive(pids)


@pytest.mark.parametrize("workers", [1, 2])
def test_sigkill_mid_run_loses_no_finished_match_and_duplicates_none(tmp_path, workers):
    reference = load_config(write_config(tmp_path, f"ref{workers}", bots=4, workers=2))
    run_tournament(reference, out=open(os.devnull, "w"))
    path = write_config(tmp_path, f"killed{workers}", bots=4, workers=workers)
    output = tmp_path / f"killed{workers}"
    proc = _start(path)
    _wait_rows(output, 3, proc)
    family = _family(proc.pid)
    assert family  # bots (and workers) were running
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    kept = rows(output)
    total = schedule_size(4, [2, 3], 1)
    assert 3 <= len(kept) < total
    assert not _wait_gone(family)  # workers notice their parent died and take their bots down
    config = load_config(path)
    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert summary.skipped == len(kept) and summary.played == total - len(kept)
    final = rows(output)
    assert len(final) == total and len({r[1] for r in final}) == total
    strip = lambda rs: [r[:1] + r[2:] for r in rs]  # noqa: E731 - compare everything but the output dir
    assert strip(final) == strip(rows(reference.output))


def test_ctrl_c_keeps_finished_matches_and_says_how_to_resume(tmp_path):
    path = write_config(tmp_path, "interrupted", bots=4, workers=2)
    output = tmp_path / "interrupted"
    proc = _start(path)
    _wait_rows(output, 2, proc)
    family = _family(proc.pid)
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out
    assert "interrupted:" in out and "run the same command again to resume" in out
    kept = rows(output)
    assert 2 <= len(kept) < schedule_size(4, [2, 3], 1)
    assert (output / "leaderboard.json").exists()  # published from what was kept
    version = json.loads((output / "report" / "version.json").read_text())
    assert version["matches"] == len(kept)  # the report is rebuilt on an interrupted run too
    assert "report: rebuilding it" in out and f"report: {output / 'report' / 'index.html'}" in out
    assert ", report/)" in out
    assert not _wait_gone(family)
    summary = run_tournament(load_config(path), out=open(os.devnull, "w"))
    assert summary.skipped == len(kept) and len(rows(output)) == schedule_size(4, [2, 3], 1)


def test_sigterm_keeps_finished_matches_and_says_how_to_resume(tmp_path):
    path = write_config(tmp_path, "terminated", bots=4, workers=2)
    output = tmp_path / "terminated"
    proc = _start(path)
    _wait_rows(output, 2, proc)
    proc.send_signal(signal.SIGTERM)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + signal.SIGTERM, out
    kept = rows(output)
    total = schedule_size(4, [2, 3], 1)
    assert 2 <= len(kept) < total
    assert (f"terminated (SIGTERM): {len(kept)} match(es) stored by this run, {len(kept)} in all; run the same "
            "command again to resume") in out
    summary = run_tournament(load_config(path), out=open(os.devnull, "w"))
    assert summary.skipped == len(kept) and summary.played == total - len(kept) and summary.failed == 0
    final = rows(output)
    assert len({r[1] for r in final}) == total and set(kept) <= set(final)  # nothing lost, changed or doubled


def test_run_given_a_results_directory_names_the_file_that_made_it_and_the_leaderboard(played_round_robin):
    result = CliRunner().invoke(main, ["run", str(played_round_robin)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert result.output.splitlines() == [
        f"Error: {played_round_robin} is a directory holding a stored tournament; give its tournament YAML file "
        f"(arena run {played_round_robin.parent / 'rr.yaml'} resumes it), or see its leaderboard with arena "
        f"leaderboard {played_round_robin}"]


def test_run_given_a_directory_of_tournament_files_names_them(tmp_path):
    write_config(tmp_path, "b")
    write_config(tmp_path, "a")
    result = CliRunner().invoke(main, ["run", str(tmp_path)])
    assert result.exit_code == 1
    assert result.output.splitlines() == [f"Error: {tmp_path} is a directory; give a tournament YAML file "
                                          "(docs/tournaments.md), such as one it holds: a.yaml, b.yaml"]


def test_the_sandbox_has_a_short_line_and_a_run_with_nothing_to_play_says_only_that(tmp_path):
    path = write_config(tmp_path, "short", seats="2", bots=2)
    first = CliRunner().invoke(main, ["run", str(path), "--no-report"])
    assert first.exit_code == 0, first.output
    lines = first.output.splitlines()
    opening = next(i for i, line in enumerate(lines) if line.startswith("tournament short "))
    assert lines[opening].endswith("2 matches, 0 already stored, 2 to play on 1 worker(s)")
    assert lines[opening + 1] == "sandbox: none (requested: no walls but rlimits; docs/sandbox.md)"
    again = CliRunner().invoke(main, ["run", str(path), "--no-report"])
    assert again.exit_code == 0, again.output
    assert f"tournament short (results in {tmp_path / 'short'}): all 2 matches are stored: nothing to play" \
        in again.output.splitlines()
    assert "sandbox:" not in again.output and "worker(s)" not in again.output


@pytest.mark.parametrize("requested, chosen, remote", [("auto", "bwrap", False), ("auto", "none", False),
                                                       ("none", "none", False), ("docker", "docker", False),
                                                       ("auto", "auto", True)])
def test_every_sandbox_line_fits_in_100_characters(requested, chosen, remote):
    line = sandbox_line(requested, chosen, remote)
    assert line.startswith(f"sandbox: {requested if remote else chosen}") and len(line) <= 100


def test_cli_run_and_leaderboard(tmp_path):
    path = write_config(tmp_path, "cli")
    runner = CliRunner()
    result = runner.invoke(main, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert "rank" in result.output and "heuristic" in result.output
    board = runner.invoke(main, ["leaderboard", str(tmp_path / "cli")])
    assert board.exit_code == 0 and "9 of 9 matches finished" in board.output
    first_line = [l for l in board.output.splitlines() if l.strip().startswith("1 ")][0]
    assert "heuristic" in first_line


def test_cli_refuses_a_changed_config_for_the_same_output(tmp_path):
    path = write_config(tmp_path, "changed")
    runner = CliRunner()
    assert runner.invoke(main, ["run", str(path)]).exit_code == 0
    path.write_text(path.read_text().replace("seed: 11", "seed: 12"))
    result = runner.invoke(main, ["run", str(path)])
    assert result.exit_code == 1 and "different tournament configuration" in result.output and "seed" in result.output


def test_cli_bad_config_names_the_key_and_starts_nothing(tmp_path):
    path = write_config(tmp_path, "bad", extra="colour: blue\n")
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 1 and "colour" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "bad").exists()


def test_leaderboard_of_a_non_tournament_directory(tmp_path):
    result = CliRunner().invoke(main, ["leaderboard", str(tmp_path)])
    assert result.exit_code == 1 and "not a tournament output directory" in result.output


def _sent_to_bots(tmp_path: Path, name: str, extra: str = "", seats: str = "[2, 3]") -> tuple[Any, list[bytes]]:
    """Run a tournament of three recording bots (alice, bob, carol); its config and every line they received."""
    seen = tmp_path / f"{name}-seen"
    seen.mkdir()
    recorder = f"/usr/bin/python3 {ROOT / 'tests' / 'bots' / 'recorder.py'} {seen}"
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nrules: standard\nseats: {seats}\nsandbox: none\nworkers: 1\n"
                    f"output: {tmp_path / name}\n{extra}bots:\n"
                    + "".join(f"  - {{name: {bot}, command: \"{recorder}\"}}\n" for bot in ("alice", "bob", "carol")))
    config = load_config(path)
    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert summary.failed == 0
    return config, [line for log in sorted(seen.iterdir()) for line in log.read_bytes().splitlines(keepends=True)]


def test_no_message_to_a_bot_holds_the_master_seed_or_a_deal_seed_or_a_bot_name(tmp_path):
    """Knowing a match's seed, a bot could recompute its deal with the engine; the seed must stay with the arena.

    Nor may a bot learn who it plays: by default the match id in hello is opaque.
    """
    import gzip
    from collections import Counter

    from arena.tournament.driver import schedule_of

    config, sent = _sent_to_bots(tmp_path, "secret", extra="seed: s3cret-master\n")
    schedule = schedule_of(config)
    assert len(schedule) == 9 and len(sent) > 9 * 50
    seeds = {s.seed for s in schedule}
    assert all(b"s3cret" not in line for line in sent)
    assert not [seed for seed in seeds for line in sent if seed.encode() in line]
    names = [b.name.encode() for b in config.bots]
    assert not [line for line in sent for name in names if name in line]
    hellos = [m for m in map(json.loads, sent) if m["type"] == "hello"]
    # one opaque id per match, the same for each of its seats, a new one for every rotation
    assert Counter(h["match"] for h in hellos) == {config.wire_id(s.match_id): len(s.bots) for s in schedule}
    assert len({config.wire_id(s.match_id) for s in schedule}) == 9
    assert all(h["match"].startswith("m-") and len(h["match"]) == 18 for h in hellos)
    assert not {h["match"] for h in hellos} & {s.match_id for s in schedule}
    # the organiser still sees the readable ids; the replay says which id the bots were sent
    stored = rows(config.output)
    assert [r[1] for r in stored] == [s.match_id for s in schedule]
    for scheduled in schedule:
        replay = config.output / "replays" / f"{scheduled.index:06d}.jsonl.gz"
        header = json.loads(gzip.decompress(replay.read_bytes()).decode().splitlines()[0])
        assert (header["match"], header["wire_id"]) == (scheduled.match_id, config.wire_id(scheduled.match_id))


def test_with_tell_opponents_bots_get_the_readable_match_id(tmp_path):
    from collections import Counter

    from arena.tournament.driver import schedule_of

    config, sent = _sent_to_bots(tmp_path, "told", extra="seed: 3\ntell_opponents: true\n", seats="3")
    hellos = [m for m in map(json.loads, sent) if m["type"] == "hello"]
    assert Counter(h["match"] for h in hellos) == {f"c1/alice+bob+carol/r{r}": 3 for r in range(3)}
    assert [s.match_id for s in schedule_of(config)] == [f"c1/alice+bob+carol/r{r}" for r in range(3)]


def test_jobs_hide_the_results_and_the_config_directory_from_bots(tmp_path):
    from arena.tournament.driver import _job, schedule_of

    config = load_config(write_config(tmp_path, "private"))
    job = _job(config, schedule_of(config)[0], {b.name: b for b in config.bots}, "bwrap")
    assert set(job.private) == {str(config.output), str(tmp_path)}


def test_without_a_seed_a_secret_one_is_drawn_kept_and_reused_on_resume(tmp_path):
    from arena.tournament.driver import DRAWN_SEED
    from arena.tournament.store import ResultStore

    configs = []
    for name in ("drawn-a", "drawn-b"):
        path = write_config(tmp_path, name)
        path.write_text(path.read_text().replace("seed: 11\n", ""))
        configs.append(load_config(path))
    a, b = configs
    assert a.seed is None
    lines: list[str] = []
    first = run_tournament(a, say=lines.append)
    assert first.played == 9 and any("drew a secret master seed at random" in line for line in lines)
    store = ResultStore(a.output, readonly=True)
    try:
        drawn = store.meta(DRAWN_SEED)
    finally:
        store.close()
    assert isinstance(drawn, str) and len(drawn) == 32
    from arena.match.seeds import deal_seed
    stored = rows(a.output)
    assert all(row[2] == deal_seed(drawn, row[1].rsplit("/r", 1)[0]) and drawn not in row[2] for row in stored)
    lines.clear()
    again = run_tournament(a, say=lines.append)
    assert (again.played, again.skipped) == (0, 9)  # the same seed again: the same fingerprint, nothing replayed
    assert any("the secret master seed drawn by its first run" in line for line in lines)
    run_tournament(b, out=open(os.devnull, "w"))
    assert [r[2] for r in rows(a.output)] != [r[2] for r in rows(b.output)]  # another directory, other deals


def test_reusing_bot_processes_changes_no_result(tmp_path):
    """Bots that start afresh on hello (all bundled ones) play the same with 1 or 4 matches per process."""
    fresh = load_config(write_config(tmp_path, "fresh", cycles=3, extra="matches_per_process: 1\n"))
    reused = load_config(write_config(tmp_path, "reused", cycles=3, extra="matches_per_process: 4\n"))
    assert (fresh.matches_per_process, reused.matches_per_process) == (1, 4)
    a = run_tournament(fresh, out=open(os.devnull, "w"))
    b = run_tournament(reused, workers=2, out=open(os.devnull, "w"))
    assert a.played == b.played == 27 and a.failed == b.failed == 0
    assert rows(fresh.output) == rows(reused.output)


def test_reusing_processes_across_tables_changes_no_result(tmp_path):
    """One cycle of a larger field: processes follow their bot from table to table, results stay put."""
    field = "".join(f"  - {{name: {name}, path: {ROOT / 'bots' / bot}}}\n" for name, bot in [
        ("r1", "random"), ("r2", "random"), ("c1", "c-random"), ("c2", "c-random"), ("h", "heuristic"),
        ("g", "js-greedy")])
    configs = []
    for name, per_process in (("one", 1), ("many", 16)):
        path = tmp_path / f"{name}.yaml"
        path.write_text(f"name: {name}\nrules: espanola\nseats: 3\ncycles: 1\nseed: 4\nsandbox: none\n"
                        f"matches_per_process: {per_process}\noutput: {tmp_path / name}\nbots:\n{field}")
        configs.append(load_config(path))
    a = run_tournament(configs[0], out=open(os.devnull, "w"))
    b = run_tournament(configs[1], workers=2, out=open(os.devnull, "w"))
    assert a.played == b.played == 60 and a.failed == b.failed == 0
    assert rows(configs[0].output) == rows(configs[1].output)


def test_ratings_kept_during_the_run_equal_a_recomputation_from_the_database(tmp_path):
    from arena.tournament.driver import publish
    from arena.tournament.store import ResultStore

    config = load_config(write_config(tmp_path, "fold", cycles=2))
    run_tournament(config, workers=2, out=open(os.devnull, "w"))  # results arrive out of schedule order
    written = (config.output / "leaderboard.json").read_text()
    store = ResultStore(config.output)
    try:
        assert publish(store, config) is not None  # no fold given: recomputed from every stored record
    finally:
        store.close()
    assert (config.output / "leaderboard.json").read_text() == written


def test_the_record_of_a_fresh_outcome_is_what_the_store_reads_back(tmp_path):
    import dataclasses

    from arena.match.faults import Fault, FaultKind
    from arena.match.runner import play_match
    from arena.tournament.driver import _job, schedule_of
    from arena.tournament.records import record_of
    from arena.tournament.store import ResultStore

    config = load_config(write_config(tmp_path, "records", bots=2, seats="2"))
    scheduled = schedule_of(config)[0]
    outcome = play_match(_job(config, scheduled, {b.name: b for b in config.bots}, "none"))
    fault = Fault(1, outcome.bots[1], FaultKind.TIMEOUT, "no reply within 2000 ms", "", 1, 3)
    outcome = dataclasses.replace(outcome, faults=(fault,))
    store = ResultStore(config.output)
    try:
        store.record(scheduled, outcome)
        assert store.records() == [record_of(scheduled, outcome)]
    finally:
        store.close()
