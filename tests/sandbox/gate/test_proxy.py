"""The gate as a proxy: it carries what the policy allows, refuses the rest with the reason, and keeps account."""

from __future__ import annotations

import http.server
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.sandbox.gate import Gate, Policy


class _Answer(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 - the library's name
        body = f"you asked for {self.path} as {self.headers.get('Host')}".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def upstream() -> Iterator[int]:
    """An HTTP server on the loopback: the port."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Answer)
    threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True).start()
    yield server.server_address[1]
    server.shutdown()
    server.server_close()


@pytest.fixture
def gate(tmp_path: Path, upstream: int) -> Iterator[Gate]:
    """A gate that allows the upstream by name (as the organiser may) and nothing else local."""
    opened = Gate(Policy(frozenset({("127.0.0.1", upstream)})), str(tmp_path / "gate.sock"))
    opened.start()
    yield opened
    opened.close()


def ask(gate: Gate, request: bytes) -> bytes:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(30)
        sock.connect(gate.path)
        sock.sendall(request)
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    return out


def test_a_plain_http_request_to_an_allowed_host_is_carried_in_origin_form(gate: Gate, upstream: int) -> None:
    answer = ask(gate, f"GET http://127.0.0.1:{upstream}/simple/x/?q=1 HTTP/1.1\r\nHost: 127.0.0.1:{upstream}\r\n"
                       "Proxy-Connection: keep-alive\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.") and b" 200 " in answer.split(b"\r\n")[0]
    assert answer.endswith(f"you asked for /simple/x/?q=1 as 127.0.0.1:{upstream}".encode())
    assert gate.ledger.opened == [f"127.0.0.1:{upstream} -> 127.0.0.1"] and gate.ledger.refused == []


def test_a_tunnel_to_an_allowed_host_carries_bytes_both_ways(gate: Gate, upstream: int) -> None:
    with socket.socket(socket.AF_UNIX) as sock:
        sock.settimeout(30)
        sock.connect(gate.path)
        sock.sendall(f"CONNECT 127.0.0.1:{upstream} HTTP/1.1\r\n\r\n".encode())
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        sock.sendall(b"GET /through HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        out = b""
        while chunk := sock.recv(65536):
            out += chunk
    assert out.endswith(b"you asked for /through as x")


@pytest.mark.parametrize("request_line, said", [
    ("CONNECT 127.0.0.1:{other} HTTP/1.1", "127.0.0.1 is a loopback address"),
    ("CONNECT [::1]:{other} HTTP/1.1", "::1 is a loopback address"),
    ("CONNECT localhost:{port} HTTP/1.1", "localhost resolves to"),
    ("GET http://127.0.0.2:{port}/ HTTP/1.1", "127.0.0.2 is a loopback address"),
    ("GET http://[::ffff:127.0.0.1]:{port}/ HTTP/1.1", "loopback"),
    ("GET http://169.254.169.254/latest/meta-data/ HTTP/1.1", "link-local"),
    ("CONNECT 10.0.0.1:443 HTTP/1.1", "private"),
])
def test_a_local_destination_gets_403_with_the_reason_and_is_kept_in_the_ledger(
        gate: Gate, upstream: int, request_line: str, said: str) -> None:
    line = request_line.format(port=upstream, other=upstream + 1 if upstream < 65535 else 1)
    answer = ask(gate, f"{line}\r\nHost: x\r\n\r\n".encode()).decode()
    assert answer.startswith("HTTP/1.1 403 the arena refused") and said in answer.splitlines()[0], answer
    assert len(gate.ledger.refused) == 1 and said in gate.ledger.refused[0] and gate.ledger.opened == []


@pytest.mark.parametrize("sent", [b"GET /simple/ HTTP/1.1\r\n\r\n", b"hello\r\n\r\n",
                                     b"GET https://pypi.org/ HTTP/1.1\r\n\r\n", b"CONNECT pypi.org HTTP/1.1\r\n\r\n"])
def test_what_is_no_proxy_request_gets_400(gate: Gate, sent: bytes) -> None:
    assert ask(gate, sent).startswith(b"HTTP/1.1 400 ")
    assert gate.ledger.opened == []


def test_a_hostile_host_name_reaches_the_log_as_printable_ascii(gate: Gate) -> None:
    answer = ask(gate, "CONNECT \x1b[31mevil\u202e.invalid:443 HTTP/1.1\r\n\r\n".encode())
    assert answer.startswith(b"HTTP/1.1 403")
    (line,) = gate.ledger.refused
    assert line.isascii() and "\x1b" not in line and line.isprintable()
