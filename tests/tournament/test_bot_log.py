"""Bots' logs in a tournament: stored per seat and match, read back by ``arena bot log``; stores from
before logs were kept still open, resume and say so."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.tournament.store import schema
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
WRITER = ROOT / "tests" / "bots" / "log_writer.py"


def tournament(tmp_path: Path) -> Path:
    path = tmp_path / "logs.yaml"
    # one match a process: each ends with its match (none is kept for a later batch), so its log runs to its exit
    path.write_text(f"name: logs\nseats: 2\nseed: 5\nsandbox: none\nworkers: 1\noutput: {tmp_path / 'out'}\n"
                    f"log_bytes: 4096\nmatches_per_process: 1\nbots:\n  - {ROOT / 'bots' / 'random'}\n"
                    f"  - {{name: writer, command: /usr/bin/python3 {WRITER}}}\n")
    return path


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.output


def test_logs_are_stored_per_seat_and_printed_by_bot_log(tmp_path):
    config = load_config(tournament(tmp_path))
    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert summary.played == 2 and summary.failed == 0
    store = ResultStore(config.output, readonly=True)
    try:
        seats = store.bot_logs("writer")
        assert [s.match_id for s in seats] == [r.match_id for r in store.records()]
        wire = {row["match_id"]: row for row in store.rows()}
        for entry in seats:
            acts = wire[entry.match_id]["stats"][entry.seat]["decisions"]
            assert entry.text is not None and entry.text.count(" act ") == acts and entry.text.endswith(" eof\n")
            assert entry.text.startswith("m-")  # the bot was told the opaque id, and its log says so
        assert {s.text for s in store.bot_logs("random")} == {""}
    finally:
        store.close()

    code, out = run("bot", "log", str(config.output), "writer")
    assert code == 0, out
    for entry in seats:
        assert (f"== {entry.match_id}: seat {entry.seat} of 2, place {entry.place} (replay {entry.replay})"
                in out.splitlines())
        assert entry.text is not None and entry.text.splitlines()[-1] in out
    code, one = run("bot", "log", str(config.output), "writer", "--match", seats[1].match_id)
    assert code == 0 and one.splitlines()[0].startswith(f"== {seats[1].match_id}: ")
    assert seats[0].match_id not in one
    code, quiet = run("bot", "log", str(config.output), "random", "--match", seats[0].match_id)
    assert code == 0 and quiet.splitlines()[1] == "(nothing on stderr)"

    code, out = run("bot", "log", str(config.output), "nobody")
    assert code == 1 and out.count("\n") == 1 and "no bot 'nobody'" in out and "bots there: random, writer" in out
    code, out = run("bot", "log", str(config.output), "writer", "--match", "c9/x/r0")
    assert code == 1 and out.count("\n") == 1 and "no stored match 'c9/x/r0'" in out
    assert f"writer's matches: {seats[0].match_id}, {seats[1].match_id}" in out
    code, out = run("bot", "log", str(tmp_path / "nowhere"), "writer")
    assert code == 1 and "no results.sqlite here" in out and "Traceback" not in out

    code, board = run("leaderboard", str(config.output), "--wide")
    assert code == 0 and "ms/move" in board and "start ms" in board


def test_a_store_from_before_logs_opens_says_so_and_resumes(tmp_path):
    config = load_config(tournament(tmp_path))
    run_tournament(config, out=open(os.devnull, "w"))
    db = sqlite3.connect(config.output / "results.sqlite")
    with db:  # back to layout 1: no logs, stats without start-ups, one match still to play
        db.execute("DROP TABLE logs")
        db.execute("DROP TABLE ladder_bots")
        db.execute("DROP TABLE ladder_ratings")
        db.execute("DROP TABLE decision_times")
        db.execute("DROP TABLE frames")
        db.execute("DROP TABLE luck")
        db.execute("DROP TABLE ladder_pairs")
        db.execute("DROP TABLE ladder_luck")
        db.execute("DELETE FROM matches WHERE idx = 1")
        db.execute("UPDATE matches SET stats = json_array(json_remove(json_extract(stats, '$[0]'), '$.startup_ms'),"
                   " json_remove(json_extract(stats, '$[1]'), '$.startup_ms'))")
    db.execute("PRAGMA user_version = 1")
    db.close()

    code, out = run("bot", "log", str(config.output), "writer")
    assert code == 0 and "(no log kept: this match was stored by an arena that kept no logs)" in out
    code, board = run("leaderboard", str(config.output))
    assert code == 0 and "1 of 2 matches finished" in board

    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert (summary.skipped, summary.played) == (1, 1)
    db = sqlite3.connect(config.output / "results.sqlite")
    try:
        assert schema.version(db) == schema.VERSION == 9
        assert db.execute("SELECT idx, seat FROM logs ORDER BY idx, seat").fetchall() == [(1, 0), (1, 1)]
    finally:
        db.close()
    code, out = run("bot", "log", str(config.output), "writer")
    assert code == 0 and out.count("(no log kept") == 1 and " eof" in out
    writer = next(s for s in summary.leaderboard.standings if s.bot == "writer")
    assert writer.startup_ms is not None and writer.mean_ms is not None  # the one start timed, every decision


def test_a_ladder_name_without_a_version_shows_its_newest_version_and_says_so(tmp_path):
    from tests.tournament.test_ladder import copy_bot, run, submit, write_ladder

    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob])
    out = tmp_path / "out"
    run(path, 2)
    with open(ann / "bot.py", "a") as f:
        f.write("# v2\n")
    assert submit(path, ann)[0] == 0
    run(path, 2)
    named = CliRunner().invoke(main, ["bot", "log", str(out), "ann@v2"])
    assert named.exit_code == 0 and named.output.startswith("== L"), named.output
    plain = CliRunner().invoke(main, ["bot", "log", str(out), "ann"])
    assert plain.exit_code == 0, plain.output
    assert plain.output == ("ann: the logs of ann@v2, its newest version (active); older: ann@v1 (name one as "
                            "ann@vK)\n" + named.output)
    assert CliRunner().invoke(main, ["bot", "log", str(out), "bob"]).output.startswith(
        "bob: the logs of bob@v1, its newest version (active)\n== L")
    assert submit(path, copy_bot(tmp_path, "cid"))[0] == 0  # entered, not played yet
    fresh = CliRunner().invoke(main, ["bot", "log", str(out), "cid"])
    assert fresh.exit_code == 0 and fresh.output == ("cid: the logs of cid@v1, its newest version (active)\n"
                                                     "cid@v1 has no stored match yet\n")
    missing = CliRunner().invoke(main, ["bot", "log", str(out), "dan"])
    assert missing.exit_code == 1 and missing.output.startswith("Error: no bot 'dan' in ")
