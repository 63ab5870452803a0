"""Two authors submit to a real server process through the command line while a real ladder run plays:
each sees their own bots, logs and checks, and is refused the other's; the organiser sees everything."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from .live import ServerProcess, add_author, api, cli, copy_bot, wait_for, write_ladder


@pytest.fixture
def session(tmp_path: Path):  # type: ignore[no-untyped-def]
    ladder = write_ladder(tmp_path)
    tokens = {"ann": add_author(ladder, "ann"), "bob": add_author(ladder, "bob"),
              "org": add_author(ladder, "org", organiser=True)}
    server = ServerProcess(ladder, tmp_path / "server.log")
    yield ladder, server, tokens
    server.stop()


def test_two_authors_submit_play_and_keep_to_their_own(session, tmp_path):
    ladder, server, tokens = session
    home = tmp_path / "authors"
    ann_bot = copy_bot(home / "ann", "ann", stderr="ann writes this to stderr")
    bob_bot = copy_bot(home / "bob", "bob", stderr="bob writes this to stderr")

    code, out, err = cli("submit", "--server", server.url, "--token", tokens["ann"], str(ann_bot))
    assert code == 0, out + err
    assert "result: clean" in out and out.splitlines()[-1] == "entered ann@v1"  # the server's paths are its own
    code, out, err = cli("submit", "--server", server.url, str(bob_bot), env={"ARENA_TOKEN": tokens["bob"]})
    assert code == 0, out + err
    assert out.splitlines()[-1] == "entered bob@v1"

    # a name is its first author's: bob cannot submit a version of ann, nor retire it
    code, out, err = cli("submit", "--server", server.url, "--token", tokens["bob"], str(bob_bot), "--name", "ann")
    assert code == 1 and err.strip() == ("Error: the name ann belongs to another author; choose another name with "
                                         "--name (HTTP 403)")
    code, out, err = cli("retire", "--server", server.url, "--token", tokens["bob"], "ann")
    assert code == 1 and err.strip() == "Error: ann is another author's bot (HTTP 403)"

    code, out, err = cli("run", str(ladder), "--matches", "5", "--no-report")  # odd: a deal is left half-played
    assert code == 0, out + err
    db = sqlite3.connect(tmp_path / "out" / "results.sqlite")
    try:
        deals = db.execute("SELECT seed, group_concat(idx), count(*) FROM matches GROUP BY seed").fetchall()
    finally:
        db.close()
    open_deals = {int(i) for _, idx, count in deals if count < 2 for i in idx.split(",")}  # two seats: two rotations
    assert open_deals

    status, logs, _ = api(server.url, tokens["ann"], "GET", "/api/bots/ann/logs")
    assert status == 200 and logs["bot"] == "ann" and logs["logs"]
    texts = "".join(row["text"] or "" for row in logs["logs"])  # a process kept for later matches writes it once
    assert "ann writes this to stderr" in texts and "bob writes" not in texts
    assert not open_deals & {row["index"] for row in logs["logs"]}  # their other rotation is still to be played
    assert {row["seat"] for row in logs["logs"]} <= {0, 1, 2}
    status, refused, _ = api(server.url, tokens["ann"], "GET", "/api/bots/bob/logs")
    assert status == 403 and refused == {"error": "the logs of bob are its author's"}
    status, refused, _ = api(server.url, tokens["bob"], "GET", "/api/bots/ann/logs")
    assert status == 403
    for name in ("ann", "bob"):
        status, logs, _ = api(server.url, tokens["org"], "GET", f"/api/bots/{name}/logs")
        assert status == 200 and f"{name} writes this to stderr" in "".join(row["text"] or "" for row in logs["logs"])
    assert api(server.url, tokens["org"], "GET", "/api/bots/nobody/logs")[0] == 404

    status, mine, _ = api(server.url, tokens["ann"], "GET", "/api/bots")
    assert status == 200 and [(b["name"], b["author"], [v["key"] for v in b["versions"]]) for b in mine["bots"]] \
        == [("ann", "ann", ["ann@v1"])]
    status, everyone, _ = api(server.url, tokens["org"], "GET", "/api/bots")
    assert [b["name"] for b in everyone["bots"]] == ["ann", "bob"]

    # the public report ranks both once the server has rebuilt it after the run
    def ranked() -> str | None:
        status, page, _ = api(server.url, None, "GET", "/")
        return page if status == 200 and "ann@v1" in page and "bob@v1" in page else None
    assert wait_for("the report to show both bots", ranked)
    assert api(server.url, None, "GET", "/server.sqlite")[0] == 404
    assert api(server.url, None, "GET", "/../server.sqlite")[0] == 404

    code, out, err = cli("retire", "--server", server.url, "--token", tokens["ann"], "ann")
    assert (code, out.strip()) == (0, "retired ann@v1: no longer scheduled, history kept")
    db = sqlite3.connect(tmp_path / "out" / "results.sqlite")
    try:
        assert db.execute("SELECT name, version, status FROM ladder_bots ORDER BY name").fetchall() == \
            [("ann", 1, "retired"), ("bob", 1, "active")]
    finally:
        db.close()


def test_tokens_missing_unknown_and_removed_get_401(session, tmp_path):
    ladder, server, tokens = session
    bot = copy_bot(tmp_path / "home", "cid")
    status, body, headers = api(server.url, None, "GET", "/api/me")
    assert status == 401 and body["error"].startswith("no token") and headers.get("www-authenticate") == "Bearer"
    assert api(server.url, "x" * 43, "GET", "/api/me")[:2] == \
        (401, {"error": "unknown token: check it, or ask the organiser for a new one"})
    assert api(server.url, tokens["ann"], "GET", "/api/me")[:2] == (200, {"author": "ann", "organiser": False})
    assert api(server.url, tokens["org"], "GET", "/api/me")[:2] == (200, {"author": "org", "organiser": True})

    code, out, err = cli("submit", "--server", server.url, str(bot), env={"ARENA_TOKEN": ""})
    assert code == 1 and err.strip().startswith("Error: no token: give --token TOKEN or set ARENA_TOKEN")
    code, out, err = cli("submit", "--server", server.url, "--token", "wrong", str(bot))
    assert code == 1 and err.strip() == ("Error: the server refused the token: unknown token: check it, or ask "
                                         "the organiser for a new one")
    assert cli("author", "remove", str(ladder), "ann")[0] == 0
    assert api(server.url, tokens["ann"], "GET", "/api/me")[0] == 401
    assert not (tmp_path / "out" / "uploads" / "cid").exists()


def test_an_unreachable_server_is_one_line(tmp_path):
    bot = copy_bot(tmp_path, "cid")
    code, out, err = cli("submit", "--server", "http://127.0.0.1:9", "--token", "t", str(bot))
    assert code == 1 and err.count("\n") == 1
    assert err.startswith("Error: cannot reach the server at http://127.0.0.1:9: ") and "Traceback" not in err
    code, out, err = cli("submit", "--server", "ftp://x", "--token", "t", str(bot))
    assert code == 1 and "give the server's address as http://HOST:PORT" in err


def test_submit_and_retire_take_a_ladder_or_a_server(tmp_path):
    bot = copy_bot(tmp_path, "cid")
    ladder = write_ladder(tmp_path)
    for args, said in [(["submit", "--server", "http://x", "--token", "t", str(ladder), str(bot)],
                        "give BOT_DIR only with --server"),
                       (["submit", str(bot)], "give LADDER and BOT_DIR (or --server URL and BOT_DIR)"),
                       (["submit", str(ladder), str(tmp_path / "nowhere")],
                        "Invalid value for '[LADDER] BOT_DIR': Directory"),
                       (["retire", "--server", "http://x", "--token", "t", str(ladder), "cid"],
                        "give NAME only with --server"),
                       (["retire", "cid"], "give LADDER and NAME (or --server URL and NAME)")]:
        code, out, err = cli(*args)
        assert code == 2 and err.splitlines()[-1].startswith(f"Error: {said}"), err
