"""SIGKILL at any moment: the real ``arena run`` and ``arena submit``, killed mid-way as whole process groups.

After every kill the store must hold each match once, each with its replay; the field
must hold each bot either whole (a row pointing at a complete snapshot) or not at
all; no worker or bot may outlive its arena; and the ladder must go on: another run
stores exactly what it is asked to, and the killed submission can be made again.
"""

from __future__ import annotations

import gzip
import itertools
import json
import os
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Callable, Iterator, TypeVar

import pytest

from arena.tournament.ladder.snapshot import bot_files, digest_of
from arena.tournament.rating import RatingParams, rate
from arena.tournament.store import ResultStore
from tests.tournament.test_ladder import ROOT, copy_bot, write_ladder
from tests.tournament.test_ladder import submit as submit_here

T = TypeVar("T")

BIG = 48 << 20
"""Bytes of data a bot carries so that copying it into a snapshot takes long enough to be killed in."""

_logs = itertools.count()
_digests: dict[Path, str] = {}


# ------------------------------------------------------------------ processes

@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen[bytes]]]:
    """Every process group a test starts; whatever is left of them is killed at the end, pass or fail."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for proc in started:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            pass


def arena(*args: object) -> list[str]:
    return [sys.executable, "-m", "arena.cli", *map(str, args)]


def _default_sigint() -> None:
    """Ctrl-C must reach the child even if this test runs where SIGINT is ignored (a background job)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def start(procs: list[subprocess.Popen[bytes]], tmp_path: Path, *args: object) -> tuple[subprocess.Popen[bytes], Path]:
    """Start the CLI in a process group (and session) of its own, its output going to a log file."""
    log = tmp_path / f"log-{next(_logs)}.txt"
    with open(log, "wb") as sink:
        proc = subprocess.Popen(arena(*args), cwd=ROOT, stdout=sink, stderr=subprocess.STDOUT,
                                env={**os.environ, "PYTHONUNBUFFERED": "1"}, start_new_session=True,
                                preexec_fn=_default_sigint)
    procs.append(proc)
    return proc, log


def call(*args: object, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    return subprocess.run(arena(*args), cwd=ROOT, capture_output=True, text=True, timeout=timeout)


def _stat(pid: str) -> tuple[str, int] | None:
    """State and process group of a process (None: gone)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return fields[0], int(fields[2])


def _read(path: str) -> str:
    try:
        with open(path, "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def group_of(pgid: int) -> set[int]:
    """The live members of a process group."""
    return {int(pid) for pid in os.listdir("/proc") if pid.isdigit() and (_stat(pid) or ("", -1))[1] == pgid}


def survivors(pgid: int, members: set[int], marker: str) -> list[str]:
    """Live processes (zombies are dead) that belong to a killed arena: its process group, its workers
    (whose command line names a file under ``marker``), its bots (bots run in sessions of their own, so
    they are found by the command line or by the token naming the arena process that started them)."""
    found = []
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        stat = _stat(pid)
        if stat is None or stat[0] == "Z":
            continue
        cmdline = _read(f"/proc/{pid}/cmdline")
        tokens = re.findall(r"ARENA_SANDBOX=(\d+)\.", _read(f"/proc/{pid}/environ"))
        if stat[1] == pgid or marker in cmdline or any(int(t) in members for t in tokens):
            found.append(f"{pid} [{stat[0]}] {cmdline}")
    return found


def kill(proc: subprocess.Popen[bytes], marker: Path) -> int:
    """SIGKILL the process's whole group, reap it, and see that nothing it started lives on; its exit code."""
    members = group_of(proc.pid) | {proc.pid}
    os.killpg(proc.pid, signal.SIGKILL)
    code = proc.wait(10)
    left = wait_for(lambda: not survivors(proc.pid, members, str(marker)), 120, "the killed arena's processes to go",
                    lambda: f"still alive: {survivors(proc.pid, members, str(marker))}")
    assert left
    return code


def wait_for(done: Callable[[], T], timeout: float, what: str, detail: Callable[[], str] = lambda: "",
             proc: subprocess.Popen[bytes] | None = None, log: Path | None = None, step: float = 0.02) -> T:
    """Poll ``done`` until it is true; fail (never hang) after ``timeout`` or if ``proc`` ends first."""
    deadline = time.monotonic() + timeout
    while True:
        value = done()
        if value:
            return value
        if proc is not None and proc.poll() is not None:
            pytest.fail(f"waiting for {what}: the process ended with {proc.returncode}:\n{tail(log)}")
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout} s waiting for {what} {detail()}\n{tail(log)}")
        time.sleep(step)


def tail(log: Path | None) -> str:
    return "" if log is None or not log.exists() else log.read_text(errors="replace")[-3000:]


# ------------------------------------------------------------------ the store, read-only

def _query(out: Path, sql: str, params: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
    """Rows of a query on the store, read-only (a running arena writes it); none if there is no store yet."""
    path = out / "results.sqlite"
    if not path.exists():
        return []
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=10)
    try:
        return db.execute(sql, params).fetchall()
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return []  # created, not laid out yet
        raise
    finally:
        db.close()


def stored(out: Path) -> list[tuple[object, ...]]:
    """``(idx, match_id, seed, bots, rotation, replay)`` of every stored match, by index."""
    return _query(out, "SELECT idx, match_id, seed, bots, rotation, replay FROM matches ORDER BY idx")


def ids(out: Path) -> set[str]:
    return {str(row[1]) for row in stored(out)}


def check_matches(out: Path, seen: set[str] | frozenset[str] = frozenset()) -> list[tuple[object, ...]]:
    """Every stored match once, with a readable replay, as its table says (its players, its rotation, one
    deal per table); ``seen`` (stored before a kill) still there. The rows."""
    rows = stored(out)
    match_ids = [str(r[1]) for r in rows]
    assert len(set(match_ids)) == len(match_ids), f"a match stored twice: {sorted(match_ids)}"
    assert len({r[0] for r in rows}) == len(rows)
    assert seen <= set(match_ids), f"stored matches lost: {sorted(seen - set(match_ids))}"
    tables: dict[int, set[tuple[str, str]]] = defaultdict(set)
    for idx, match_id, seed, bots, rotation, replay in rows:
        parsed = re.fullmatch(r"L(\d+)/(.+)/r(\d+)", str(match_id))
        assert parsed, match_id
        first, players, turn = int(parsed[1]), parsed[2].split("+"), int(parsed[3])
        assert rotation == turn and int(str(idx)) >= first + turn, (idx, match_id)  # a stopped table ends later
        assert sorted(json.loads(str(bots))) == sorted(players), (match_id, bots)
        tables[first].add((str(seed), parsed[2]))
        path = out / str(replay)
        assert path.is_file(), f"match {match_id}: no replay {path}"
        with gzip.open(path, "rt") as f:
            lines = f.read().splitlines()
        assert lines and all(json.loads(line) is not None for line in lines), f"replay of {match_id}"
    assert all(len(variants) == 1 for variants in tables.values()), f"a table number reused: {dict(tables)}"
    return rows


def check_board(out: Path) -> None:
    """The board a finished run wrote: each entry's matches and rating are those of a recomputation from
    every stored match (the ladder keeps its ratings as it goes; a kill must not skew them)."""
    store = ResultStore(out, readonly=True)
    try:
        records = store.records()
        params = RatingParams(**(store.meta("rating") or {}))
    finally:
        store.close()
    counts = Counter(bot for record in records for bot in record.bots)
    ratings = rate(records, params, sorted(counts))
    for row in json.loads((out / "ladder.json").read_text()):
        key = f"{row['name']}@v{row['version']}"
        assert row["matches"] == counts[key], (key, row, counts)
        if counts[key]:
            assert row["mu"] == pytest.approx(ratings[key].mu, abs=2e-3), (key, row, ratings[key])
            assert row["sigma"] == pytest.approx(ratings[key].sigma, abs=2e-3), (key, row, ratings[key])


def field_rows(out: Path) -> list[tuple[object, ...]]:
    return _query(out, "SELECT name, version, digest, path, status FROM ladder_bots ORDER BY name, version")


def check_field(out: Path) -> dict[str, int]:
    """Every entry whole: its row points at a complete snapshot of exactly its digest; no row refers to a
    temporary directory. The number of versions per name."""
    versions: dict[str, int] = defaultdict(int)
    for name, version, digest, path, status in field_rows(out):
        snapshot = Path(str(path))
        assert snapshot.parent == out / "bots" / str(name) / str(digest) and snapshot.name == "bot", path
        assert (snapshot / "bot.yaml").is_file(), f"{name}@v{version}: entered, but {snapshot} is not complete"
        if _digests.get(snapshot) != digest:  # a snapshot never changes: read each one once
            _digests[snapshot] = digest_of(bot_files(str(snapshot)))
        assert _digests[snapshot] == digest, f"{name}@v{version}: the snapshot is not its files"
        versions[str(name)] += 1
    return dict(versions)


def snapshots(out: Path, name: str) -> list[Path]:
    """The complete snapshots of ``name`` (a ``.tmp-*`` directory is one a killed submission was writing)."""
    return sorted(p for p in (out / "bots" / name).glob("*") if not p.name.startswith(".tmp-"))


def big_bot(tmp_path: Path, name: str) -> Path:
    """A bot whose copy takes long enough to kill a submission in the middle of it, and to see that it began."""
    bot = copy_bot(tmp_path, name)
    (bot / "data.bin").write_bytes(b"\x01" * BIG)
    return bot


def kill_in_copy(procs: list[subprocess.Popen[bytes]], tmp_path: Path, path: Path, bot: Path, name: str) -> None:
    """Submit ``bot`` (a big one) as ``name`` and kill it as soon as its snapshot's copy has begun."""
    out = tmp_path / "out"
    proc, log = start(procs, tmp_path, "submit", path, bot, "--name", name)
    wait_for(lambda: list((out / "bots" / name).glob("*")), 600, "the copy to begin", proc=proc, log=log,
             step=0.001)
    os.killpg(proc.pid, signal.SIGSTOP)  # frozen mid-copy at once; kill() looks for its processes before the kill
    kill(proc, bot)


def kill_before_entering(procs: list[subprocess.Popen[bytes]], tmp_path: Path, path: Path, bot: Path,
                         name: str) -> None:
    """Submit ``bot`` (a big one) as ``name`` and kill it once its snapshot is in place, while it waits to
    enter it: the test takes the store's write lock while the copy goes on."""
    out = tmp_path / "out"
    proc, log = start(procs, tmp_path, "submit", path, bot, "--name", name)
    wait_for(lambda: list((out / "bots" / name).glob("*")), 600, "the copy to begin", proc=proc, log=log,
             step=0.001)
    writer = sqlite3.connect(out / "results.sqlite", timeout=10, isolation_level=None)
    try:
        writer.execute("BEGIN IMMEDIATE")
        wait_for(lambda: snapshots(out, name), 300, "the snapshot", proc=proc, log=log, step=0.005)
        time.sleep(0.2)
        assert proc.poll() is None, tail(log)  # waiting for the write lock, in enter()
        kill(proc, bot)
    finally:
        writer.execute("ROLLBACK")
        writer.close()


# ------------------------------------------------------------------ kills

def test_a_run_killed_at_any_moment_keeps_every_match_once_and_goes_on(tmp_path, procs):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")])
    out = tmp_path / "out"
    # when to kill: as soon as the store exists (the run sets up, enters its starting field), then
    # after a few matches, with some time on top to land elsewhere in a match's life
    moments = [(None, 0.0), (2, 0.0), (3, 0.1), (3, 0.27)]
    bots_seen = False  # the search for survivors does find bots: it sees them before the kill
    for least, extra in moments:
        before = len(stored(out))
        proc, log = start(procs, tmp_path, "run", path)
        if least is None:
            wait_for(lambda: (out / "results.sqlite").exists(), 300, "the store", proc=proc, log=log, step=0.002)
        else:
            wait_for(lambda: len(stored(out)) >= before + least, 300, f"{least} more matches", proc=proc, log=log)
        time.sleep(extra)
        seen = ids(out)
        bots_seen |= any("bot.py" in p for p in survivors(proc.pid, group_of(proc.pid), str(tmp_path)))
        assert kill(proc, tmp_path) == -signal.SIGKILL, tail(log)
        assert "Traceback" not in tail(log), tail(log)
        check_matches(out, seen)
        check_field(out)
    assert bots_seen
    total = len(stored(out))
    assert total >= 7
    done = call("run", path, "--matches", 6)
    assert done.returncode == 0, done.stdout + done.stderr
    rows = check_matches(out)
    assert len(rows) == total + 6
    assert check_field(out) == {"ann": 1, "bob": 1, "carl": 1}
    board = call("leaderboard", out)
    assert board.returncode == 0, board.stdout + board.stderr
    assert f"ladder: {total + 6} matches played" in board.stdout
    check_board(out)


def test_a_submit_killed_at_any_moment_enters_the_bot_whole_or_not_at_all(tmp_path, procs):
    dan = copy_bot(tmp_path, "dan")
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    out = tmp_path / "out"
    (tmp_path / "probe").mkdir()
    probe = write_ladder(tmp_path / "probe", [])  # how long a whole submission takes, to kill across it
    began = time.monotonic()
    measured = call("submit", probe, dan)
    duration = time.monotonic() - began
    assert measured.returncode == 0 and "entered dan@v1" in measured.stdout, measured.stdout + measured.stderr
    rng = random.Random()
    seed = rng.randrange(1 << 30)
    rng.seed(seed)
    slots = 10
    fractions = [1.1 * (i + rng.random()) / slots for i in range(slots)]
    outcomes = []
    for i, fraction in enumerate(fractions):
        name = f"dan{i}"
        delay = duration * fraction
        proc, log = start(procs, tmp_path, "submit", path, dan, "--name", name)
        time.sleep(delay)
        code = kill(proc, tmp_path)
        if code != -signal.SIGKILL:  # it was over before the kill: submissions take less now than measured
            duration = min(duration, delay)  # (a busy machine's load comes and goes)
        assert "Traceback" not in tail(log), tail(log)
        versions = check_field(out)
        assert versions.get(name, 0) <= 1
        outcomes.append((round(delay, 3), code, versions.get(name, 0), len(snapshots(out, name)),
                         len(list((out / "bots" / name).glob(".tmp-*")))))
    detail = f"(seed {seed}, duration {duration:.2f} s; delay, exit code, entered, snapshots, temporaries: {outcomes})"
    assert sum(code == -signal.SIGKILL for _, code, *_ in outcomes) >= slots // 2, f"too few were killed {detail}"
    # submitted again: each one a kill left a trace of (an entry, a snapshot, a temporary copy), and
    # the first one it left none of (the others are the same case: killed before the copy)
    traced = [i for i, (*_, entered, copies, temporary) in enumerate(outcomes) if entered or copies or temporary]
    again = sorted({*traced, *[i for i in range(slots) if i not in traced][:1]})
    for i in again:  # in this process: the same command, without starting yet another interpreter
        status, output = submit_here(path, dan, "--name", f"dan{i}")
        assert status == 0, output + detail
        assert f"entered dan{i}@v1" in output or f"already entered as dan{i}@v1" in output, output + detail
    assert check_field(out) == {f"dan{i}": 1 for i in again}
    done = call("run", path, "--matches", 4)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(check_matches(out)) == 4
    check_board(out)
    assert check_field(out) == {**{f"dan{i}": 1 for i in again}, "ann": 1, "bob": 1}


def test_a_submit_killed_while_copying_or_before_entering_leaves_no_entry_and_can_be_redone(tmp_path, procs):
    big = big_bot(tmp_path, "big")
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    out = tmp_path / "out"

    # 1. in the middle of the copy: its temporary directory is there, no snapshot, no entry
    kill_in_copy(procs, tmp_path, path, big, "one")
    assert check_field(out) == {} and snapshots(out, "one") == []
    assert len(list((out / "bots" / "one").glob(".tmp-*"))) == 1  # left behind, referred to by nothing

    # 2. copied and renamed into place, then killed waiting to enter it (another writer holds the store)
    kill_before_entering(procs, tmp_path, path, big, "two")
    assert check_field(out) == {}
    (orphan,) = snapshots(out, "two")
    assert (orphan / "bot" / "bot.yaml").is_file()

    # both can be submitted again; the snapshot already in place is the one entered
    for name in ("one", "two"):
        again = call("submit", path, big, "--name", name)
        assert again.returncode == 0 and f"entered {name}@v1" in again.stdout, again.stdout + again.stderr
    assert check_field(out) == {"one": 1, "two": 1}
    assert [str(r[3]) for r in field_rows(out) if r[0] == "two"] == [str(orphan / "bot")]
    done = call("run", path, "--matches", 4)
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(check_matches(out)) == 4
    check_board(out)


def test_a_submit_killed_while_the_ladder_runs_leaves_the_run_going(tmp_path, procs):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")])
    out = tmp_path / "out"
    dan, big = copy_bot(tmp_path, "dan"), big_bot(tmp_path, "big")
    run, run_log = start(procs, tmp_path, "run", path)
    wait_for(lambda: len(stored(out)) >= 2, 300, "the first matches", proc=run, log=run_log)

    # killed in its check
    proc, log = start(procs, tmp_path, "submit", path, dan)
    wait_for(lambda: "standard:" in tail(log), 300, "the check to play", proc=proc, log=log, step=0.005)
    kill(proc, dan)
    # killed in its copy, and after it (its snapshot in place, not entered: the run must not take it)
    kill_in_copy(procs, tmp_path, path, big, "big")
    kill_before_entering(procs, tmp_path, path, big, "big2")
    assert check_field(out) == {"ann": 1, "bob": 1, "carl": 1}
    assert snapshots(out, "big") == [] and len(snapshots(out, "big2")) == 1

    # the run goes on, and stops cleanly on Ctrl-C (which the terminal sends to its whole group)
    after = len(stored(out))
    wait_for(lambda: len(stored(out)) >= after + 3, 300, "the run to go on", proc=run, log=run_log)
    assert run.poll() is None
    members = group_of(run.pid) | {run.pid}
    os.killpg(run.pid, signal.SIGINT)
    try:
        code = run.wait(300)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the run did not stop on SIGINT:\n{tail(run_log)}")
    assert code == 130, tail(run_log)
    assert "Traceback" not in tail(run_log), tail(run_log)
    assert "interrupted:" in tail(run_log)
    wait_for(lambda: not survivors(run.pid, members, str(tmp_path)), 120, "the run's processes to go",
             lambda: str(survivors(run.pid, members, str(tmp_path))))
    rows = check_matches(out)
    assert {b for r in rows for b in json.loads(str(r[3]))} == {"ann@v1", "bob@v1", "carl@v1"}
    assert check_field(out) == {"ann": 1, "bob": 1, "carl": 1}
    check_board(out)
