"""Any path, however long or odd, is a 404 (or a 414 for a request line too long to read) from both servers'
reports, never a 500 nor a traceback: ``arena serve RESULTS_DIR`` and the report routes of ``arena serve
LADDER.yaml``, each a real process of its own, spoken to with bare sockets."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.server.live import ServerProcess, write_ladder

from .synthetic import synthetic_store

ODD = {
    "300-byte segment": b"/" + b"a" * 300,
    "300-byte segment in the middle": b"/bots/" + b"b" * 300 + b"/x.html",
    "5000-byte segment": b"/" + b"c" * 5000,
    "300-byte encoded segment": b"/" + b"%61" * 300,
    "NUL": b"/index.html%00.js",
    "NUL alone": b"/%00",
    "invalid UTF-8": b"/%ff",
    "invalid UTF-8 pair": b"/bots/%ff%fe.html",
    "invalid percent-encoding": b"/%zz",
    "truncated percent-encoding": b"/index.html%",
    "100 KB URL": b"/" + b"d" * 100_000,
    "many segments": b"/" + b"/".join([b"e" * 250] * 20),
    "a directory without index.html": b"/empty",
    "a directory without index.html, slash": b"/empty/",
    "a FIFO": b"/fifo",
    "a socket": b"/socket",
    "a file that cannot be read": b"/unreadable.html",
    "a link to a FIFO": b"/fifo-link",
    "a loop of links": b"/loop/x",
}


def odd_files(root: Path) -> list[Any]:
    """Put into the report at ``root`` what the odd paths name; what must be closed at the end."""
    (root / "empty").mkdir()
    os.mkfifo(root / "fifo")
    (root / "fifo-link").symlink_to(root / "fifo")
    (root / "loop").symlink_to(root / "loop")
    (root / "unreadable.html").write_text("secret")
    (root / "unreadable.html").chmod(0)
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(str(root / "socket"))
    return [listener]


def status(port: int, target: bytes) -> int:
    """The status of ``GET target`` sent as it is (no client-side normalising)."""
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(b"GET " + target + b" HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        return int(_answer(sock).split(b" ", 2)[1])


def _answer(sock: socket.socket) -> bytes:
    data = b""
    while chunk := sock.recv(1 << 16):
        data += chunk
    return data


class Served:
    def __init__(self, port: int, log: Path | None = None) -> None:
        self.port = port
        self.log = log


@pytest.fixture(scope="module")
def results_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    tmp = tmp_path_factory.mktemp("results-server")
    results = tmp / "results"
    synthetic_store(results, 5, ["a", "b"], voided=0)
    log = tmp / "server.log"
    with open(log, "wb") as err:  # a file, not a pipe: a server writing much to a full pipe would hang
        process = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", str(results), "--port", "0"],
                                   stdout=subprocess.PIPE, stderr=err)
    closing: list[Any] = []
    try:
        assert process.stdout is not None
        line = process.stdout.readline().decode()
        assert line.startswith("serving "), line
        closing = odd_files(results / "report")
        yield Served(int(line.split(" at ")[1].split()[0].rstrip("/").rsplit(":", 1)[1]), log), process
    finally:
        if process.poll() is None:
            process.send_signal(signal.SIGINT)
            process.wait(30)
        if process.stdout is not None:
            process.stdout.close()
        for thing in closing:
            thing.close()


@pytest.fixture(scope="module")
def ladder_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    tmp = tmp_path_factory.mktemp("ladder-server")
    server = ServerProcess(write_ladder(tmp), tmp / "server.log")
    public = tmp / "out" / "public"  # no match yet: nothing rebuilds it under the test
    public.mkdir(parents=True)
    (public / "index.html").write_text("<!DOCTYPE html><title>the leaderboard</title>\n")
    (public / ".arena-report").write_text("")
    closing = odd_files(public)
    try:
        yield Served(server.port, tmp / "server.log"), server
    finally:
        server.stop()
        for thing in closing:
            thing.close()


@pytest.fixture(params=["results", "ladder"])
def either(request: pytest.FixtureRequest) -> Served:
    served: Served = request.getfixturevalue(f"{request.param}_server")[0]
    return served


@pytest.mark.parametrize("target", ODD.values(), ids=ODD.keys())
def test_an_odd_path_is_not_found(either: Served, target: bytes) -> None:
    if target == b"/unreadable.html" and os.geteuid() == 0:
        pytest.skip("root reads a file whatever its mode")
    assert status(either.port, target) in (404, 414)
    assert status(either.port, b"/index.html") == 200  # and the server goes on


@pytest.mark.parametrize("head, expected", [
    (b"GET /" + b"f" * 20_000, 414),  # a request line longer than MAX_HEAD: it is never read whole
    (b"GET / HTTP/1.1\r\nHost: x\r\nX-Long: " + b"g" * 20_000, 431),  # headers longer than it
    (b"GET /\xff\xfe HTTP/1.1\r\nHost: x\r\n\r\n", 400),  # bytes no request line may hold (not even encoded)
    (b"GET /\x00 HTTP/1.1\r\nHost: x\r\n\r\n", 400),
    (b"NONSENSE\r\n\r\n", 400),
], ids=["long request line", "long headers", "raw non-ASCII bytes", "raw NUL", "no request line"])
def test_a_malformed_request_gets_its_4xx(either: Served, head: bytes, expected: int) -> None:
    with socket.create_connection(("127.0.0.1", either.port), timeout=30) as sock:
        sock.sendall(head)
        assert int(_answer(sock).split(b" ", 2)[1]) == expected
    assert status(either.port, b"/index.html") == 200


@pytest.mark.parametrize("name", ["results", "ladder"])
def test_odd_paths_leave_no_traceback(request: pytest.FixtureRequest, name: str) -> None:
    """After every odd path and malformed request above (this runs last in this file): not one traceback,
    error or warning on the server's stderr."""
    served, process = request.getfixturevalue(f"{name}_server")
    for target in ODD.values():
        status(served.port, target)
    if name == "results":
        process.send_signal(signal.SIGINT)
        assert process.wait(30) == 0
    else:
        process.stop()
    assert served.log is not None
    err = served.log.read_text(errors="replace")
    assert "Traceback" not in err and "ERROR" not in err and "WARNING" not in err, err[-3000:]
