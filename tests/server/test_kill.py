"""A server killed (SIGKILL) in the middle of an upload or of a check leaves no half entry: no row in the ladder,
no half-written upload; the next start closes the submission and puts the bot's previous upload back."""

from __future__ import annotations

import socket
import time
from pathlib import Path

from arena.server.archive import pack
from arena.server.queue import STOPPED

from ..tournament.test_ladder import field as ladder_field
from .live import ServerProcess, add_author, api, cli, copy_bot, wait_for, write_ladder


def field(output: Path) -> list[tuple[str, int]]:
    """The ladder's entries by name and version."""
    return [(name, version) for name, version, _ in ladder_field(output)]


def test_a_server_killed_mid_upload_or_mid_check_leaves_no_half_entry(tmp_path):
    ladder = write_ladder(tmp_path)
    out = tmp_path / "out"
    token = add_author(ladder, "ann")
    home = tmp_path / "home"
    server = ServerProcess(ladder, tmp_path / "server.log")
    try:
        code, said, err = cli("submit", "--server", server.url, "--token", token, str(copy_bot(home, "ann")))
        assert code == 0, said + err

        # killed while the body arrives: half an archive sent, its length promised
        cid = copy_bot(home, "cid")
        data = pack(cid)
        with socket.create_connection(("127.0.0.1", server.port), timeout=10) as conn:
            conn.sendall(f"POST /api/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                         f"Content-Type: application/gzip\r\nContent-Length: {len(data)}\r\n\r\n".encode())
            conn.sendall(data[: len(data) // 2])
            time.sleep(0.5)
            server.kill()
        assert field(out) == [("ann", 1)]
        assert not (out / "uploads" / "cid").exists()

        # killed while a new version of ann is being checked (its build takes a while)
        server = ServerProcess(ladder, tmp_path / "server.log")
        slow = copy_bot(tmp_path / "home2", "ann", build="sleep 60; {python} -m compileall -q . ../lib")
        status, queued, _ = api(server.url, token, "POST", "/api/bots", pack(slow), {"Content-Type": "application/gzip"})
        assert status == 202
        wait_for("the check to start", lambda: (out / "uploads" / ".prev-ann").exists())
        server.kill()
        assert field(out) == [("ann", 1)]

        server = ServerProcess(ladder, tmp_path / "server.log")
        assert "sleep" not in (out / "uploads" / "ann" / "bot" / "bot.yaml").read_text()  # the entered version's
        assert sorted(p.name for p in (out / "uploads").iterdir()) == ["ann"]
        assert not (out / ".incoming").exists()
        status, sub, _ = api(server.url, token, "GET", f"/api/submissions/{queued['id']}")
        assert status == 200 and (sub["status"], sub["exit"], sub["message"]) == ("done", 1, STOPPED)
        code, said, err = cli("submit", "--server", server.url, "--token", token, str(cid))
        assert code == 0, said + err  # the server goes on as before
        assert field(out) == [("ann", 1), ("cid", 1)]
    finally:
        server.stop()
