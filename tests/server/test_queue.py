"""The check queue and the rate limit, on the app served by uvicorn in this process with a check that waits
for the test: a busy server says "queued, N ahead", a full queue 503, an author past the rate limit 429."""

from __future__ import annotations

import socket
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import uvicorn

from arena.server import client
from arena.server.app import create_app
from arena.server.archive import pack
from arena.tournament.config import load_config
from arena.tournament.ladder.entries import ACTIVE, Entered, Entry
from arena.tournament.ladder.submit import Submission

from .live import add_author, api, copy_bot, wait_for, write_ladder


class HeldCheck:
    """Stands in for the ladder's check: says it started, then waits until the test lets it finish."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.started: list[str] = []

    def __call__(self, config: Any, directory: str, name: str, echo: Any) -> Submission:
        self.started.append(name)
        echo(f"checking {name}")
        assert self.release.wait(30)
        return Submission(Entered(Entry(name, 1, "d", directory, directory, time.time(), ACTIVE), True), True)


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Any]:
    """A factory: ``served(**create_app options)`` -> (url, ladder path), stopped at the end."""
    servers: list[tuple[uvicorn.Server, threading.Thread]] = []

    def start(extra: str = "", **options: Any) -> tuple[str, Path]:
        ladder = write_ladder(tmp_path, extra)
        app = create_app(load_config(ladder), report=False, **options)
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(64)
        server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
        thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
        thread.start()
        servers.append((server, thread))
        return f"http://127.0.0.1:{sock.getsockname()[1]}", ladder

    yield start
    for server, thread in servers:
        server.should_exit = True
        thread.join(10)


def test_a_busy_server_says_how_many_are_ahead_and_a_full_queue_503(served, tmp_path):
    check = HeldCheck()
    url, ladder = served(queue_size=2, check=check)
    token = add_author(ladder, "ann")
    bots = [copy_bot(tmp_path / "home", name) for name in ("ann", "bob", "cid")]

    status, first, _ = api(url, token, "POST", "/api/bots", pack(bots[0]), {"Content-Type": "application/gzip"})
    assert (status, first["status"], first["ahead"]) == (202, "queued", 0)
    wait_for("the first check to start", lambda: check.started == ["ann"])

    said: list[str] = []
    errors: list[str] = []
    outcome: list[int] = []
    waiting = threading.Thread(target=lambda: outcome.append(
        client.submit(client.Client(url, token), bots[1], None, said.append, errors.append)))
    waiting.start()
    wait_for("the second upload to be queued", lambda: said)
    assert said == ["queued, 1 ahead"]

    status, full, headers = api(url, token, "POST", "/api/bots", pack(bots[2]), {"Content-Type": "application/gzip"})
    assert (status, full) == (503, {"error": "the check queue is full (2 waiting); try again in a minute"})
    assert len(list((tmp_path / "out" / ".incoming").iterdir())) == 1  # bob's, waiting; cid's was never unpacked

    check.release.set()
    waiting.join(30)
    assert outcome == [0] and errors == []
    assert said[1] == "checking bob" and said[-1] == "entered bob@v1"
    status, sub, _ = api(url, token, "GET", f"/api/submissions/{first['id']}")
    assert status == 200 and (sub["status"], sub["exit"], sub["output"]) == ("done", 0, ["checking ann"])
    assert sub["message"] == "entered ann@v1"

    other = add_author(ladder, "bob")
    assert api(url, other, "GET", f"/api/submissions/{first['id']}")[0] == 403


def test_an_author_past_the_rate_limit_gets_429_with_retry_after(served, tmp_path):
    url, ladder = served(per_minute=2, check=HeldCheck())
    ann, bob = add_author(ladder, "ann"), add_author(ladder, "bob")
    answers = [api(url, ann, "POST", "/api/bots", b"not an archive") for _ in range(3)]
    assert [status for status, _, _ in answers] == [400, 400, 429]
    status, body, headers = answers[-1]
    assert body["error"].startswith("too many uploads: at most 2 a minute; try again in ")
    assert 1 <= int(headers["retry-after"]) <= 61
    assert api(url, bob, "POST", "/api/bots", b"not an archive")[0] == 400  # the limit is each author's own


def test_uploads_past_the_size_limit_get_413_before_they_are_read_whole(served, tmp_path):
    url, ladder = served("submission: {max_mb: 1}\n", check=HeldCheck())
    token = add_author(ladder, "ann")
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=30) as conn:  # a length past the limit: refused unread
        conn.sendall(f"POST /api/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                     f"Content-Length: {2 * 1024 * 1024}\r\n\r\n".encode())
        answer = b""
        while piece := conn.recv(4096):  # the server closes the connection: the body was never read
            answer += piece
    assert answer.startswith(b"HTTP/1.1 413 ")
    assert answer.endswith(b'{"error":"the upload is larger than 1 MB (submission.max_mb of ladder.yaml); leave build '
                           b'outputs and data out of the archive"}')
    with socket.create_connection((host, int(port)), timeout=30) as conn:  # no length said: counted as it comes
        conn.sendall(f"POST /api/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                     "Transfer-Encoding: chunked\r\n\r\n".encode())
        for _ in range(17):  # 17 pieces of 64 KiB: past 1 MB at the last
            conn.sendall(b"10000\r\n" + b"\0" * 65536 + b"\r\n")
        assert conn.recv(4096).startswith(b"HTTP/1.1 413 ")
    assert not (tmp_path / "out" / "uploads").exists()


def test_fifty_uploads_at_once_are_each_answered_and_the_server_goes_on(served, tmp_path):
    check = HeldCheck()
    check.release.set()  # checks finish at once: the point is the flood of requests
    url, ladder = served(check=check)
    tokens = [add_author(ladder, f"a{i}") for i in range(10)]
    bots = [pack(copy_bot(tmp_path / f"h{i}", f"bot{i}")) for i in range(10)]
    answers: list[int] = []

    def upload(i: int) -> None:
        answers.append(api(url, tokens[i % 10], "POST", "/api/bots", bots[i % 10], {"Content-Type": "application/gzip"})[0])

    threads = [threading.Thread(target=upload, args=(i,)) for i in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(answers) == 50 and set(answers) <= {202, 503} and 202 in answers
    assert api(url, tokens[0], "GET", "/api/me")[:2] == (200, {"author": "a0", "organiser": False})
    wait_for("the checks to end", lambda: all(not list(p.iterdir()) for p in [tmp_path / "out" / ".incoming"]))


def test_a_client_leaving_mid_upload_leaves_no_traceback_and_nothing_behind(served, tmp_path, capfd):
    url, ladder = served(check=HeldCheck())
    token = add_author(ladder, "ann")
    host, port = url.removeprefix("http://").split(":")
    for _ in range(3):
        with socket.create_connection((host, int(port)), timeout=30) as conn:
            conn.sendall(f"POST /api/bots HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n"
                         f"Content-Length: {512 * 1024}\r\n\r\n".encode() + b"\0" * 70_000)
    time.sleep(0.5)  # the server notices the three left
    assert api(url, token, "POST", "/api/bots", b"not an archive")[0] == 400  # still answering
    err = capfd.readouterr().err
    assert "Traceback" not in err and "ClientDisconnect" not in err, err
    assert not (tmp_path / "out" / "uploads").exists() or not any((tmp_path / "out" / "uploads").iterdir())
