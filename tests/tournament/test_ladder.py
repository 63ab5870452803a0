"""The living ladder end to end: runs with --matches, submissions between runs, versions, retiring, the lock."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import load_config
from arena.tournament.driver import publish, run_tournament
from arena.tournament.ladder.entries import Entry
from arena.tournament.ladder.lock import run_lock
from arena.tournament.rating import RatingParams
from arena.tournament.ladder.matchmaking import LadderSchedule
from arena.tournament.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]


def copy_bot(tmp_path: Path, name: str) -> Path:
    """A copy of bots/random named ``name`` (with the shared lib beside it), editable by the test."""
    home = tmp_path / "bots"
    if not (home / "lib").exists():
        shutil.copytree(ROOT / "bots" / "lib", home / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    target = home / name
    shutil.copytree(ROOT / "bots" / "random", target, ignore=shutil.ignore_patterns("__pycache__"))
    manifest = target / "bot.yaml"
    manifest.write_text(manifest.read_text().replace("name: random", f"name: {name}"))
    return target


def write_ladder(tmp_path: Path, bots: list[Path], extra: str = "") -> Path:
    lines = ["name: lad", "schedule: ladder", "seats: [2, 3]", "seed: 5", "time: {move_ms: 2000, startup_ms: 10000}",
             "sandbox: none", "unsandboxed_builds: true",  # fast: the bots' builds are trusted here
             "workers: 2", "placement_matches: 2", f"output: {tmp_path / 'out'}", "bots:"]
    lines += [f"  - {b}" for b in bots] or ["  []"]
    path = tmp_path / "ladder.yaml"
    path.write_text("\n".join(lines).replace("bots:\n  []", "bots: []") + "\n" + extra)
    return path


def run(path: Path, matches: int) -> None:
    result = CliRunner().invoke(main, ["run", str(path), "--matches", str(matches)])
    assert result.exit_code == 0, result.output


def submit(path: Path, bot: Path, *more: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["submit", str(path), str(bot), *more])
    return result.exit_code, result.output


def played(output: Path) -> list[tuple[str, ...]]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        if not db.execute("SELECT 1 FROM sqlite_master WHERE name = 'matches'").fetchone():
            return []  # a run is creating the file just now
        return [tuple(json.loads(b)) for (b,) in db.execute("SELECT bots FROM matches ORDER BY idx")]
    finally:
        db.close()


def field(output: Path) -> list[tuple[str, int, str]]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return db.execute("SELECT name, version, status FROM ladder_bots ORDER BY name, version").fetchall()
    finally:
        db.close()


def test_run_with_matches_stores_that_many_and_resumes(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    run(path, 5)
    assert len(played(tmp_path / "out")) == 5
    run(path, 3)
    matches = played(tmp_path / "out")
    assert len(matches) == 8
    assert {bot for seats in matches for bot in seats} == {"ann@v1", "bob@v1"}
    board = CliRunner().invoke(main, ["leaderboard", str(tmp_path / "out")])
    assert board.exit_code == 0 and "ann" in board.output and "ranked" in board.output
    assert "8 matches played" in board.output


def test_a_bot_submitted_between_runs_plays_first_then_resubmitting_it_is_a_no_op(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    run(path, 2)
    carl = copy_bot(tmp_path, "carl")
    code, output = submit(path, carl)
    assert code == 0 and "entered carl@v1" in output, output
    run(path, 3)
    assert all("carl@v1" in seats for seats in played(tmp_path / "out")[2:])  # placement: fewest matches first
    code, output = submit(path, carl)
    assert code == 0 and "already entered as carl@v1" in output
    assert field(tmp_path / "out") == [("ann", 1, "active"), ("bob", 1, "active"), ("carl", 1, "active")]


def test_a_bot_failing_its_check_is_refused_and_leaves_no_trace(tmp_path):
    path = write_ladder(tmp_path, [])
    broken = tmp_path / "broken"
    broken.mkdir()
    for name in ("fault_startup.py", "fault_common.py"):
        shutil.copy(ROOT / "tests" / "bots" / name, broken / name)
    (broken / "bot.yaml").write_text('name: broken\nrun: ["python3", "fault_startup.py", "exit"]\n')
    code, output = submit(path, broken)
    assert code == 1 and "refused: the bot failed its check" in output
    assert not (tmp_path / "out").exists()


def test_a_new_version_replaces_the_old_one_unless_versions_are_kept(tmp_path):
    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob])
    run(path, 2)
    with open(ann / "bot.py", "a") as f:
        f.write("# a new version\n")
    code, output = submit(path, ann)
    assert code == 0 and "entered ann@v2" in output and "replaces v1" in output
    assert field(tmp_path / "out") == [("ann", 1, "replaced"), ("ann", 2, "active"), ("bob", 1, "active")]
    run(path, 3)
    assert all(set(seats) == {"ann@v2", "bob@v1"} for seats in played(tmp_path / "out")[2:])
    code, output = submit(path, copy_bot(tmp_path / "elsewhere", "ann"))
    assert code == 1 and "the name ann belongs to the ladder's own field" in output
    assert submit(path, copy_bot(tmp_path, "cid"))[0] == 0
    code, output = submit(path, copy_bot(tmp_path / "elsewhere", "cid"))
    assert code == 1 and "the name cid is taken by a bot submitted from" in output


def test_kept_versions_play_side_by_side(tmp_path):
    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob], "keep_versions: true\n")
    run(path, 1)
    with open(ann / "bot.py", "a") as f:
        f.write("# a new version\n")
    assert submit(path, ann)[0] == 0
    assert field(tmp_path / "out") == [("ann", 1, "active"), ("ann", 2, "active"), ("bob", 1, "active")]


def test_a_retired_bot_is_no_longer_scheduled_and_keeps_its_history(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")])
    run(path, 3)
    result = CliRunner().invoke(main, ["retire", str(path), "carl"])
    assert result.exit_code == 0 and "retired carl@v1" in result.output
    before = len(played(tmp_path / "out"))
    run(path, 4)
    assert all("carl@v1" not in seats for seats in played(tmp_path / "out")[before:])
    board = CliRunner().invoke(main, ["leaderboard", str(tmp_path / "out")])
    assert "retired" in board.output and "carl" in board.output


def test_a_second_run_of_a_running_ladder_is_refused(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    with run_lock(tmp_path / "out"):
        result = CliRunner().invoke(main, ["run", str(path), "--matches", "1"])
    assert result.exit_code == 1
    assert "already being run by another arena run" in result.output and result.output.count("\n") == 1
    run(path, 1)  # released with the lock


def test_live_ratings_equal_a_recomputation_from_the_store(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")])
    config = load_config(path)
    run_tournament(config, out=open(os.devnull, "w"), max_matches=9)
    written = [(tmp_path / "out" / name).read_text() for name in ("leaderboard.json", "ladder.json")]
    store = ResultStore(config.output)
    try:
        publish(store, config)  # no fold given: recomputed from every stored record
    finally:
        store.close()
    assert [(tmp_path / "out" / name).read_text() for name in ("leaderboard.json", "ladder.json")] == written


def entry(name: str) -> Entry:
    return Entry(name, 1, "d", "p", "s", 0.0, "active")


def test_matchmaking_is_deterministic_and_seats_the_least_played_first(tmp_path):
    from arena.bots import BotSpec

    def schedule() -> LadderSchedule:
        s = LadderSchedule(lambda: [entry(n) for n in "abcde"], lambda e: BotSpec(name=e.key, command=("x",)),
                           [2, 3], "standard", 9, RatingParams())
        s.resume(set(), [])
        return s

    one, two = schedule(), schedule()
    first = [one.next_batch() for _ in range(12)]
    assert first == [two.next_batch() for _ in range(12)]
    ids = [batch[0].match_id for batch in first if batch]
    assert ids[0].startswith("L0/") and ids[0].endswith("/r0") and ids[2].startswith("L2/")
    seated = {key for batch in first if batch for key in batch[0].bots}
    assert seated == {f"{n}@v1" for n in "abcde"}  # everyone placed before anyone plays a lot
    assert [len(batch[0].bots) for batch in first if batch][:5] == [2, 2, 3, 3, 3]


def test_the_schedule_rereads_the_field_before_each_table():
    from arena.bots import BotSpec

    names = ["a", "b"]
    s = LadderSchedule(lambda: [entry(n) for n in names], lambda e: BotSpec(name=e.key, command=("x",)),
                       [2], "standard", 9, RatingParams())
    s.resume(set(), [])
    assert [b[0].bots for b in (s.next_batch(), s.next_batch()) if b] == [("a@v1", "b@v1"), ("b@v1", "a@v1")]
    names.append("c")  # submitted while the run goes
    batch = s.next_batch()
    assert batch and "c@v1" in batch[0].bots
    assert s.waiting() is None
    names[:] = ["a"]  # too few to fill a table: wait, do not end, and say why
    s.next_batch()
    assert s.next_batch() == []
    assert s.waiting() == ("waiting for bots: 1 usable in the field (a@v1), a table needs 2 that play standard; "
                           "add some with arena submit")


def test_a_bot_submitted_while_the_ladder_runs_joins_it(tmp_path):
    import signal
    import subprocess
    import sys
    import time

    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(path)], cwd=ROOT,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.time() + 600  # a bound only a broken run reaches
        while not (tmp_path / "out" / "results.sqlite").exists() or not played(tmp_path / "out"):
            assert time.time() < deadline and proc.poll() is None
            time.sleep(0.2)
        code, output = submit(path, copy_bot(tmp_path, "carl"))
        assert code == 0, output
        while not any("carl@v1" in seats for seats in played(tmp_path / "out")):
            assert time.time() < deadline and proc.poll() is None
            time.sleep(0.2)
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)


def test_an_entry_that_never_played_is_on_the_board(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    run(path, 1)
    assert submit(path, copy_bot(tmp_path, "carl"))[0] == 0
    assert CliRunner().invoke(main, ["retire", str(path), "carl"]).exit_code == 0
    run(path, 1)
    board = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert {(r["name"], r["matches"], r["status"]) for r in board} == {("ann", 2, "ranked"), ("bob", 2, "ranked"),
                                                                     ("carl", 0, "retired")}


def test_matches_limits_a_round_robin_too_and_the_rest_is_played_on_resume(tmp_path):
    lines = ["name: rr", "seats: 2", "seed: 3", "sandbox: none", "workers: 2", f"output: {tmp_path / 'rr'}",
             "bots:", f"  - {ROOT / 'bots' / 'random'}", f"  - {ROOT / 'bots' / 'heuristic'}",
             f"  - {ROOT / 'bots' / 'c-random'}"]
    path = tmp_path / "rr.yaml"
    path.write_text("\n".join(lines) + "\n")
    run(path, 4)
    assert len(played(tmp_path / "rr")) == 4
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0 and len(played(tmp_path / "rr")) == 6


PICKY = '''import json, random, sys
for line in sys.stdin:
    message = json.loads(line)
    if message["type"] == "hello":
        if not message["rules"]["options"].get("multi_swap_from_discard", True):
            sys.exit("this bot never learnt the single-swap variant")
        reply = {"type": "ready"}
    elif message["type"] == "act":
        reply = {"type": "action", "id": message["id"], "index": random.randrange(len(message["legal"]))}
    else:
        continue
    print(json.dumps(reply), flush=True)
'''


def picky_bot(tmp_path: Path, seats: str = "") -> Path:
    home = tmp_path / "picky"
    home.mkdir()
    (home / "bot.py").write_text(PICKY)
    (home / "bot.yaml").write_text('name: picky\nlanguage: python\nrun: ["{python}", "bot.py"]\n' + seats)
    return home


def test_a_submission_is_checked_under_the_ladders_own_rule_options(tmp_path):
    options = "rules: {preset: standard, options: {multi_swap_from_discard: false}}\n"
    path = write_ladder(tmp_path, [], options)
    bot = picky_bot(tmp_path)
    assert CliRunner().invoke(main, ["bot", "check", str(bot), "--sandbox", "none"]).exit_code == 0  # defaults: fine
    code, output = submit(path, bot)
    assert code == 1 and "never learnt the single-swap variant" in output
    assert "refused" in output and not (tmp_path / "out" / "bots" / "picky").exists()


def test_a_bot_that_plays_none_of_the_ladders_tables_is_refused_in_one_line(tmp_path):
    path = write_ladder(tmp_path, [])
    code, output = submit(path, picky_bot(tmp_path, "supports: {seats: [5]}\n"))
    assert code == 1 and output.count("\n") == 1
    assert "plays none of these tables: standard at 2 or 3 seats" in output


def test_under_none_the_files_own_bots_build_and_a_submission_is_refused_without_the_opt_in(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    path.write_text(path.read_text().replace("unsandboxed_builds: true\n", ""))
    run(path, 2)  # the organiser's bots: built although nothing walls the build in
    assert len(played(tmp_path / "out")) == 2
    code, output = submit(path, copy_bot(tmp_path, "carl"))
    assert code == 1
    assert output.strip().splitlines()[-1] == (
        "Error: bot 'carl': refused: its build command '{python} -m compileall -q . ../lib' would run unsandboxed "
        "as the arena's user (sandbox none); run the ladder under bwrap or docker, or set unsandboxed_builds: true "
        "in the ladder file to allow it")


def test_a_submission_entered_with_the_opt_in_is_not_built_unsandboxed_once_it_is_withdrawn(tmp_path):
    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    assert submit(path, copy_bot(tmp_path, "carl"))[0] == 0
    path.write_text(path.read_text().replace("unsandboxed_builds: true\n", ""))
    run(path, 6)  # a fresh process: carl's snapshot would be built anew
    seated = {name for table in played(tmp_path / "out") for name in table}
    assert seated == {"ann@v1", "bob@v1"}


def test_a_retired_bot_submitted_again_comes_back_as_a_new_version(tmp_path):
    ann, bob, carl = (copy_bot(tmp_path, n) for n in ("ann", "bob", "carl"))
    path = write_ladder(tmp_path, [ann, bob, carl])
    out = tmp_path / "out"
    run(path, 3)
    assert CliRunner().invoke(main, ["retire", str(path), "carl"]).exit_code == 0
    code, output = submit(path, carl)  # the very same files
    assert code == 0, output
    assert "entered carl@v2" in output and "the same files as carl@v1 (retired), back as a new version" in output
    assert field(out)[2:] == [("carl", 1, "retired"), ("carl", 2, "active")]
    before = len(played(out))
    run(path, 3)
    assert any("carl@v2" in seats for seats in played(out)[before:])  # scheduled again, in placement first
    code, output = submit(path, carl)
    assert code == 0 and "already entered as carl@v2 (active); nothing changed" in output


def test_the_files_of_an_old_version_come_back_as_the_newest(tmp_path):
    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob])
    run(path, 2)
    original = (ann / "bot.py").read_text()
    (ann / "bot.py").write_text(original + "# v2\n")
    assert submit(path, ann)[0] == 0
    (ann / "bot.py").write_text(original)  # back to the first version's files
    code, output = submit(path, ann)
    assert code == 0 and "entered ann@v3" in output and "replaces v2" in output and "ann@v1 (replaced)" in output
    assert field(tmp_path / "out")[:3] == [("ann", 1, "replaced"), ("ann", 2, "replaced"), ("ann", 3, "active")]


def test_a_starting_bot_edited_and_submitted_or_a_bot_added_to_the_file_does_not_refuse_the_next_run(tmp_path):
    # The file's bots are a starting field, entered once by name and played from snapshots: editing one
    # (then submitting it as a new version) or listing one more changes no match already decided.
    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob])
    run(path, 4)
    manifest = ann / "bot.yaml"
    manifest.write_text(manifest.read_text().replace("run:", "description: a new version\nrun:"))
    code, output = submit(path, ann)
    assert code == 0 and "entered ann@v2" in output, output
    run(path, 4)
    cid = copy_bot(tmp_path, "cid")
    path = write_ladder(tmp_path, [ann, bob, cid])
    result = CliRunner().invoke(main, ["run", str(path), "--matches", "4"])
    assert result.exit_code == 0, result.output
    assert "entered cid@v1 from the file's bots" in result.output
    # what decides the matches still binds the directory
    path.write_text(path.read_text().replace("seats: [2, 3]", "seats: [2]"))
    refused = CliRunner().invoke(main, ["run", str(path), "--matches", "4"])
    assert refused.exit_code == 1 and "different tournament configuration" in refused.output
    assert "seats: stored [2, 3], now [2]" in refused.output


@pytest.mark.parametrize("target", ["/etc/shadow", "../../../../etc/passwd", "../lib/../../outside"])
def test_a_bot_with_a_link_leading_out_is_refused_locally_and_by_the_server_alike(tmp_path, target):
    """A local arena submit refuses, in the same words, the link the submission server refuses: the snapshot
    would keep it, and the bot would read whatever it points to on the machine that plays it."""
    path = write_ladder(tmp_path, [])
    bot = copy_bot(tmp_path, "linker")
    (bot / "data").symlink_to(target)
    code, output = submit(path, bot)
    assert code == 1 and output.strip().splitlines()[-1] == (
        f"Error: {bot / 'data'} is a link to {target}, outside the bot's directory; a ladder takes only links "
        "that stay inside it")
    assert not (tmp_path / "out" / "bots" / "linker").exists()
    remote = CliRunner().invoke(main, ["submit", "--server", "http://127.0.0.1:9", "--token", "t", str(bot)])
    assert remote.exit_code == 1 and isinstance(remote.exception, SystemExit), remote.output
    assert remote.output.strip().splitlines() == [output.strip().splitlines()[-1]]  # before anything is sent


def test_a_name_of_the_files_own_field_is_submitted_only_from_the_directory_the_file_names(tmp_path):
    """Before any run, as after: another directory under one of the file's names is refused in one line, and
    nothing is written; the file's own directory may be submitted (the organiser's version of their bot)."""
    ann = copy_bot(tmp_path, "ann")
    path = write_ladder(tmp_path, [ann, copy_bot(tmp_path, "bob")])
    impostor = copy_bot(tmp_path / "elsewhere", "ann")
    refused = "Error: the name ann belongs to the ladder's own field (ladder.yaml bots:); choose another name with --name"
    for given in [(impostor,), (copy_bot(tmp_path / "elsewhere", "cid"), "--name", "ann")]:
        code, output = submit(path, *given)
        assert code == 1 and output.strip().splitlines()[-1] == refused, output
    assert not (tmp_path / "out" / "results.sqlite").exists()
    code, output = submit(path, ann)
    assert code == 0 and "entered ann@v1" in output, output
    run(path, 2)
    assert field(tmp_path / "out") == [("ann", 1, "active"), ("bob", 1, "active")]
