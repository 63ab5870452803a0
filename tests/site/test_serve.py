"""``arena serve``: the report over HTTP, read-only, confined to the report directory, rebuilt as
matches arrive. A real server (uvicorn, :mod:`arena.site.listen`) on port 0 in a thread, spoken to with
http.client, urllib and bare sockets."""

from __future__ import annotations

import http.client
import json
import os
import select
import socket
import struct
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from arena.site.serve import make_server, resolve

from .synthetic import add_match, synthetic_store

SECRET = b"SQLite format"


@pytest.fixture
def served(tmp_path):
    results = tmp_path / "results"
    synthetic_store(results, 40, ["alpha", "beta", "gamma"], faulty=["beta"], voided=0)
    (tmp_path / "outside.txt").write_text("outside the results")
    server, report = make_server(results, "127.0.0.1", 0, interval=0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server, report, results
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def request(server, method: str, path: str) -> tuple[int, dict[str, str], bytes]:
    """Send ``path`` exactly as given (no client-side normalising)."""
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(host, port, timeout=10)
    try:
        connection.putrequest(method, path, skip_host=False, skip_accept_encoding=True)
        connection.endheaders()
        response = connection.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        connection.close()


def url(server, path: str) -> str:
    host, port = server.server_address[:2]
    return f"http://{host}:{port}{path}"


def test_pages_are_served(served):
    server, report, _ = served
    with urllib.request.urlopen(url(server, "/")) as response:
        assert response.status == 200 and response.headers["Content-Type"] == "text/html; charset=utf-8"
        assert b"Leaderboard" in response.read()
    for path, kind in (("/index.html", "text/html"), ("/bots/alpha.html", "text/html"),
                       ("/data/matches-0.js", "text/javascript"), ("/assets/report.css", "text/css"),
                       ("/version.json", "application/json"), ("/matches.html?x=1#frag", "text/html")):
        status, headers, body = request(server, "GET", path)
        assert status == 200 and headers["content-type"].startswith(kind), path
        assert int(headers["content-length"]) == len(body) > 0
        assert headers["x-content-type-options"] == "nosniff"
    status, headers, body = request(server, "HEAD", "/index.html")
    assert status == 200 and body == b"" and int(headers["content-length"]) > 0
    assert request(server, "GET", "/nothing.html")[0] == 404


@pytest.mark.parametrize("method", ["POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PROPFIND"])
def test_only_reading_is_allowed(served, method):
    server, report, _ = served
    before = sorted(p.name for p in report.root.iterdir())
    status, headers, _ = request(server, method, "/index.html")
    assert status == 405 and headers["allow"] == "GET, HEAD"
    assert sorted(p.name for p in report.root.iterdir()) == before


@pytest.mark.parametrize("path", [
    "/../results.sqlite", "/%2e%2e/results.sqlite", "/%2E%2E/results.sqlite", "/%2e%2e%2fresults.sqlite",
    "/bots/../../results.sqlite", "/bots/%2e%2e/%2e%2e/results.sqlite", "/..%2f..%2foutside.txt",
    "/..%5cresults.sqlite", "/../../outside.txt", "//etc/passwd", "/%2fetc%2fpasswd", "/etc/passwd",
    "http://127.0.0.1/../results.sqlite", "/.arena-report", "/index.html%00.js", "/%2e%2e", "/..",
    "/leak/results.sqlite", "/leak.sqlite", "/data/up/outside.txt", "/" + "a" * 300, "/bots/" + "b" * 300 + "/x",
    "/" + "/".join(["c" * 250] * 20), "/loop/x",
])
def test_nothing_outside_the_report_is_reachable(served, path):
    server, report, results = served
    (report.root / "leak").symlink_to(results)  # links pointing out are not followed out
    (report.root / "leak.sqlite").symlink_to(results / "results.sqlite")
    (report.root / "data" / "up").symlink_to(results.parent)
    (report.root / "loop").symlink_to(report.root / "loop")
    status, _, body = request(server, "GET", path)
    assert status in (400, 404), (path, status)
    assert SECRET not in body and b"outside the results" not in body and b"root:" not in body


def test_a_link_that_stays_inside_is_served(served):
    server, report, _ = served
    (report.root / "home.html").symlink_to(report.root / "index.html")
    status, _, body = request(server, "GET", "/home.html")
    assert status == 200 and b"Leaderboard" in body


def test_resolve_refuses_everything_outside(tmp_path):
    root = tmp_path / "site"
    (root / "bots").mkdir(parents=True)
    (root / "index.html").write_text("x")
    (root / "bots" / "a.html").write_text("a")
    assert resolve(root, "/") == (root / "index.html").resolve()
    assert resolve(root, "/bots/a.html?q=1") == (root / "bots" / "a.html").resolve()
    assert resolve(root, "/bots/%61.html") == (root / "bots" / "a.html").resolve()
    for bad in ("/../site/index.html", "/%2e%2e/site/index.html", "/bots/", "/missing", "/.hidden", "/a\\b"):
        assert resolve(root, bad) is None, bad


def test_pages_update_as_matches_arrive(served):
    server, report, results = served
    first = json.loads(request(server, "GET", "/version.json")[2])
    assert first["matches"] == 40 and report.builds == 1
    assert request(server, "GET", "/version.json")[2] == json.dumps(first).encode() + b"\n"
    assert report.builds == 1  # nothing changed: no rebuild
    add_match(results, 40, ["gamma", "alpha"], [1, 2])
    time.sleep(0.01)
    second = json.loads(request(server, "GET", "/version.json")[2])
    assert second["matches"] == 41 and second["version"] != first["version"] and report.builds == 2
    status, _, body = request(server, "GET", "/matches.html")
    assert status == 200 and b"41 of 40 matches, 1 withheld until their deals" in body  # (the made-up schedule had 40)
    assert b'"m40/' not in request(server, "GET", "/data/matches-0.js")[2]  # its deal's other rotation is to come
    add_match(results, 41, ["alpha", "gamma"], [2, 1], deal="1/40", rotation=1)
    time.sleep(0.01)
    assert json.loads(request(server, "GET", "/version.json")[2])["matches"] == 42 and report.builds == 3
    listed = request(server, "GET", "/data/matches-0.js")[2]
    assert b'"m40/gamma+alpha"' in listed and b'"m41/alpha+gamma"' in listed
    assert b"withheld" not in request(server, "GET", "/matches.html")[2]


def test_changes_are_looked_for_at_most_every_interval(served):
    server, report, results = served
    report.interval = 3600
    report.refresh()  # counts as the last look
    add_match(results, 40, ["gamma", "alpha"], [1, 2])
    assert json.loads(request(server, "GET", "/version.json")[2])["matches"] == 40 and report.builds == 1


def test_a_failed_rebuild_keeps_serving_the_last_report(served, monkeypatch):
    server, report, results = served
    messages: list[str] = []
    report.say = messages.append
    monkeypatch.setattr("arena.site.serve.build_report", lambda *a, **k: (_ for _ in ()).throw(OSError("full")))
    add_match(results, 40, ["gamma", "alpha"], [1, 2])
    status, _, body = request(server, "GET", "/index.html")
    assert status == 200 and b"Leaderboard" in body and messages == ["report not rebuilt: full"]


def test_reading_while_rebuilding_never_fails(served):
    server, report, results = served
    failures: list[str] = []
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            for path in ("/", "/matches.html", "/bots/alpha.html", "/data/matches-0.js"):
                try:
                    with urllib.request.urlopen(url(server, path), timeout=10) as response:
                        if response.status != 200 or not response.read():
                            failures.append(path)
                except urllib.error.URLError as exc:
                    failures.append(f"{path}: {exc}")

    readers = [threading.Thread(target=reader) for _ in range(3)]
    for thread in readers:
        thread.start()
    for index in range(40, 50):
        add_match(results, index, ["alpha", "beta"], [1, 2])
        report.refresh()
    stop.set()
    for thread in readers:
        thread.join(10)
    assert failures == [] and report.builds >= 2


def test_serve_command_refuses_a_directory_without_results(tmp_path):
    from click.testing import CliRunner

    from arena.cli import main

    done = CliRunner().invoke(main, ["serve", str(tmp_path), "--port", "0"])
    assert done.exit_code == 1 and done.output.count("\n") == 1 and "is not a results directory" in done.output
    assert not (tmp_path / "report").exists()


def test_default_address_is_local(tmp_path):
    results = tmp_path / "results"
    synthetic_store(results, 5, ["a", "b"], voided=0)
    server, _ = make_server(results, port=0)
    try:
        assert server.server_address[0] == "127.0.0.1"
    finally:
        server.server_close()
    assert os.path.isdir(Path(results) / "report")


def test_serve_command_serves_until_interrupted(tmp_path):
    import signal
    import subprocess
    import sys

    results = tmp_path / "results"
    synthetic_store(results, 5, ["a", "b"], voided=0)
    process = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", str(results), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith(f"serving {results / 'report'} at http://127.0.0.1:") and "(Ctrl-C stops)" in line
        address = line.split(" at ")[1].split()[0]
        with urllib.request.urlopen(address + "bots/a.html", timeout=10) as response:
            assert response.status == 200 and b"<h1>a</h1>" in response.read()
        process.send_signal(signal.SIGINT)
        assert process.wait(10) == 0
        assert "Traceback" not in (process.stderr.read() if process.stderr else "")
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def test_ctrl_c_stops_the_server_while_a_client_is_still_being_answered(tmp_path):
    import signal
    import subprocess
    import sys

    results = tmp_path / "results"
    synthetic_store(results, 5, ["a", "b"], voided=0)
    process = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", str(results), "--port", "0"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    stop = threading.Event()
    sock = socket.socket()
    try:
        assert process.stdout is not None
        port = int(process.stdout.readline().split(" at ")[1].split()[0].rstrip("/").rsplit(":", 1)[1])
        (results / "report" / "big.bin").write_bytes(b"\0" * (32 << 20))
        sock.connect(("127.0.0.1", port))
        sock.sendall(b"GET /big.bin HTTP/1.1\r\nHost: x\r\n\r\n")
        got = [sock.recv(1 << 14)]

        def reader() -> None:  # 16 KiB every 50 ms: above the least rate, so the answer has minutes to go
            while not stop.is_set() and got[-1]:
                try:
                    got.append(sock.recv(1 << 14))
                except OSError:
                    return
                time.sleep(0.05)

        thread = threading.Thread(target=reader, daemon=True)
        thread.start()
        assert got[0].startswith(b"HTTP/1.1 200 ")
        process.send_signal(signal.SIGINT)
        assert process.wait(60) == 0  # it gives that answer TIMEOUT seconds more, not minutes
        assert "Traceback" not in (process.stderr.read() if process.stderr else "")
        assert sum(map(len, got)) < 32 << 20
    finally:
        stop.set()
        sock.close()
        if process.poll() is None:
            process.kill()
            process.wait()


# ------------------------------------------------------------------ hostile clients

@pytest.fixture
def quick(tmp_path):
    """A server whose clients get 0.5 s (a short timeout, for the tests that wait for it) and at most
    12 connections, with a 32 MiB file: more than loopback's socket buffers hold."""
    results = tmp_path / "results"
    synthetic_store(results, 5, ["a", "b"], voided=0)
    server, report = make_server(results, "127.0.0.1", 0, interval=3600, timeout=0.5, max_connections=12)
    (report.root / "big.bin").write_bytes(b"\0" * (32 << 20))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield server, report
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def connect(server, *, rcvbuf: int | None = None) -> socket.socket:
    sock = socket.socket()
    if rcvbuf is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    sock.connect(server.server_address[:2])
    return sock


def dropped(sock: socket.socket, wait: float, trickle: bytes = b"") -> bool:
    """Whether the server closes ``sock`` within ``wait`` seconds (sending ``trickle`` a byte at a
    time meanwhile), having answered nothing."""
    end = time.monotonic() + wait
    for byte in [trickle[i:i + 1] for i in range(len(trickle))] or [b""]:
        if byte:
            try:
                sock.sendall(byte)
            except (BrokenPipeError, ConnectionResetError):
                return True
        while True:
            readable, _, _ = select.select([sock], [], [], 0.05 if trickle else max(0.0, end - time.monotonic()))
            if readable:
                try:
                    data = sock.recv(1 << 16)
                except ConnectionResetError:
                    return True
                assert data == b"", data[:80]
                return True
            if trickle or time.monotonic() >= end:
                break
        if time.monotonic() >= end:
            return False
    return False


def until(condition, seconds: float = 120.0) -> bool:
    """Poll ``condition`` until it holds; False after ``seconds``, a bound only a broken server reaches."""
    end = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.02)
    return True


def test_idle_connections_do_not_stop_others_being_served(served):
    server, _, _ = served
    server.limits.timeout = 3600.0  # only a server that stops for them may drop them here, not a slow test
    assert request(server, "GET", "/version.json")[0] == 200  # the server is up
    idle = [connect(server) for _ in range(200)]  # connect and say nothing
    try:
        for _ in range(3):
            status, _, body = request(server, "GET", "/bots/alpha.html")
            assert status == 200 and b"<h1>alpha</h1>" in body
        assert not any(dropped(sock, 0.0) for sock in idle)  # still open, and answered nothing
    finally:
        for sock in idle:
            sock.close()


def test_an_idle_client_is_dropped_after_the_timeout(quick):
    server, _ = quick
    with connect(server) as sock:
        assert dropped(sock, 120)  # 0.5 s configured; 120 only bounds a broken server


def test_a_client_trickling_its_request_is_dropped(quick):
    server, _ = quick
    with connect(server) as sock:
        # One byte every 50 ms never lets a read wait long, but the whole request is due in 0.5 s.
        assert dropped(sock, 120, b"GET /index.html HTTP/1.0\r\nX-Slow: " + b"x" * 400)
    assert request(server, "GET", "/index.html")[0] == 200


def test_a_client_reading_too_slowly_is_dropped(quick):
    server, _ = quick
    with connect(server, rcvbuf=4096) as sock:
        sock.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
        assert until(lambda: server.connections == 1) and until(lambda: server.connections == 0)  # given up on
        sock.settimeout(10)
        got = 0
        while True:
            try:
                data = sock.recv(1 << 20)
            except ConnectionResetError:
                break
            if not data:
                break
            got += len(data)
    assert 0 < got < 32 << 20  # the headers and part of the file, then the end
    assert request(server, "GET", "/index.html")[0] == 200


def test_a_client_taking_the_answer_too_slowly_is_dropped(quick, monkeypatch):
    server, _ = quick
    monkeypatch.setattr(server.limits, "min_rate", 8 << 20)  # the 32 MiB are due in 0.5 + 4 s
    with connect(server, rcvbuf=65536) as sock:
        sock.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
        sock.settimeout(10)
        got = 0
        # 64 KiB every 50 ms: each piece well within 0.5 s, the whole far slower than 8 MiB/s. Once the
        # server has given up, the rest (what the socket buffers hold) is read at once.
        while data := sock.recv(1 << 16):
            got += len(data)
            if server.connections:
                time.sleep(0.05)
    assert 0 < got < 32 << 20
    assert request(server, "GET", "/index.html")[0] == 200


def test_a_client_leaving_mid_answer_leaves_no_traceback(quick, capfd):
    server, report = quick
    said: list[str] = []
    report.say = said.append
    for _ in range(3):
        with connect(server, rcvbuf=4096) as sock:
            sock.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
            assert sock.recv(1000)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # close with a reset
        assert until(lambda: server.connections == 0)
    assert request(server, "GET", "/index.html")[0] == 200
    out, err = capfd.readouterr()
    assert said == [] and "Traceback" not in err and "Error" not in err, err[-2000:]


def test_connections_past_the_limit_drop_the_oldest_waiting_ones(quick):
    server, _ = quick
    server.limits.timeout = 60.0  # only the limit may drop them here
    assert request(server, "GET", "/version.json")[0] == 200  # the server is up
    idle = [connect(server) for _ in range(30)]
    try:
        assert request(server, "GET", "/index.html")[0] == 200  # the newest connection is served
        # 31 connections, 12 allowed: the 19 oldest are closed, the 11 newest still wait for a request.
        assert until(lambda: all(dropped(sock, 0.0) for sock in idle[:19]), 60)  # generous: a busy machine
        assert not any(dropped(sock, 0.0) for sock in idle[19:])
    finally:
        for sock in idle:
            sock.close()


def test_a_request_is_answered_while_another_client_holds_its_answer(tmp_path):
    results = tmp_path / "results"
    synthetic_store(results, 5, ["a", "b"], voided=0)
    # slow is held for an hour once it stops reading: a server that waited on it would answer waiting
    # only then, long after waiting gave up (a minute); one that does not answers it at once
    server, report = make_server(results, "127.0.0.1", 0, interval=3600, timeout=3600.0)
    (report.root / "big.bin").write_bytes(b"\0" * (32 << 20))
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        with connect(server, rcvbuf=4096) as slow:
            slow.sendall(b"GET /big.bin HTTP/1.0\r\n\r\n")
            assert until(lambda: server.connections == 1)
            with connect(server) as waiting:  # while slow is still being answered
                waiting.sendall(b"GET /version.json HTTP/1.0\r\n\r\n")
                waiting.settimeout(60)
                answer = waiting.makefile("rb").read()
        assert answer.split(b" ", 2)[1] == b"200" and b'"matches": 5' in answer
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)
