"""The gate: an HTTP proxy on a Unix socket, the only way out of a dependency fetch's sandbox.

The fetch (pip, npm) runs in a network namespace of its own with nothing but loopback; a
relay inside it (``relay.py``, ``relay.js``) carries each connection to this socket. Here
each request names where it goes (``CONNECT host:port`` for https, an absolute URL for
http); the gate asks its :class:`~.policy.Policy` for the addresses it may use, connects to
one of those, and then only copies bytes. A refused destination gets ``403`` with the reason,
and is remembered for the step's log. A redirect is a new request, and so checked again.
"""

from __future__ import annotations

import os
import selectors
import socket
import socketserver
import threading
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from .policy import Policy, Refused

HEAD_LIMIT = 64 * 1024
"""Bytes a request's head may take (request line and headers)."""
CONNECT_TIMEOUT = 30.0
"""Seconds to open a connection to an index."""
IDLE_TIMEOUT = 300.0
"""Seconds a connection may carry nothing before the gate closes it."""
MAX_CONNECTIONS = 64
"""Connections open at once; npm opens at most 15 by default."""
_HOP_HEADERS = (b"proxy-connection", b"proxy-authorization", b"connection", b"keep-alive")


@dataclass
class Ledger:
    """What the gate did, for the step's log and for tests."""

    opened: list[str] = field(default_factory=list)
    """``host:port -> address`` of each connection made."""
    refused: list[str] = field(default_factory=list)
    """``host:port: why`` of each connection refused."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note(self, kind: str, line: str) -> None:
        with self.lock:
            getattr(self, kind).append(line)


class Gate:
    """The proxy of one fetch step, serving threads on ``path`` until :meth:`close`."""

    def __init__(self, policy: Policy, path: str) -> None:
        self.policy = policy
        self.path = path
        self.ledger = Ledger()
        self._open: set[socket.socket] = set()
        self._lock = threading.Lock()
        gate = self

        class Handler(socketserver.BaseRequestHandler):
            def handle(self) -> None:
                gate._serve(self.request)

        self._server = socketserver.ThreadingUnixStreamServer(path, Handler)
        self._server.daemon_threads = True
        os.chmod(path, 0o666)  # the step runs as another uid
        self._thread = threading.Thread(target=self._server.serve_forever, args=(0.1,), name="fetch-gate",
                                        daemon=True)

    def start(self) -> None:
        """Serve in a thread of its own."""
        self._thread.start()

    def close(self) -> None:
        """Stop serving and cut every connection still open."""
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            for sock in list(self._open):
                _close(sock)
        self._thread.join(timeout=5)

    # ----------------------------------------------------------------- one connection
    def _serve(self, client: socket.socket) -> None:
        upstream = None
        if not self._track(client):
            _reply(client, 503, "the fetch has too many connections open")
            return
        try:
            client.settimeout(CONNECT_TIMEOUT)
            head, rest = _read_head(client)
            method, target, lines = _parse(head)
            host, port, first = _destination(method, target, lines)
            try:
                upstream = self._connect(host, port)
            except Refused as exc:
                line = _shown(f"{host}:{port}: {exc}", 300)
                self.ledger.note("refused", line)
                _reply(client, 403, f"the arena refused {line}")
                return
            self._track(upstream, always=True)
            if first is None:
                client.sendall(b"HTTP/1.1 200 Connection established\r\n\r\n")
            else:
                upstream.sendall(first)
            if rest:
                upstream.sendall(rest)
            _pump(client, upstream)
        except _BadRequest as exc:
            _reply(client, 400, str(exc))
        except OSError:
            pass
        finally:
            for sock in (client, upstream):
                if sock is not None:
                    self._untrack(sock)
                    _close(sock)

    def _connect(self, host: str, port: int) -> socket.socket:
        """A connection to the first allowed address of ``host`` that answers; Refused when none may or does."""
        errors = []
        for address in self.policy.destinations(host, port):
            try:
                sock = socket.create_connection((str(address), port), timeout=CONNECT_TIMEOUT)
            except OSError as exc:
                errors.append(f"{address}: {exc.strerror or exc}")
                continue
            self.ledger.note("opened", f"{_shown(host)}:{port} -> {address}")
            return sock
        raise Refused("cannot connect (" + "; ".join(errors) + ")")

    def _track(self, sock: socket.socket, always: bool = False) -> bool:
        with self._lock:
            if not always and len(self._open) >= MAX_CONNECTIONS * 2:
                return False
            self._open.add(sock)
            return True

    def _untrack(self, sock: socket.socket) -> None:
        with self._lock:
            self._open.discard(sock)


class _BadRequest(Exception):
    """A request the gate cannot read as a proxy request."""


def _read_head(sock: socket.socket) -> tuple[bytes, bytes]:
    """The request's head (through the blank line) and whatever came after it."""
    data = b""
    while b"\r\n\r\n" not in data:
        if len(data) > HEAD_LIMIT:
            raise _BadRequest("the request's head is too long")
        chunk = sock.recv(65536)
        if not chunk:
            raise _BadRequest("the request ended before its head did")
        data += chunk
    head, _, rest = data.partition(b"\r\n\r\n")
    return head, rest


def _parse(head: bytes) -> tuple[str, str, list[bytes]]:
    """Method, target and header lines of a request head."""
    lines = head.split(b"\r\n")
    words = lines[0].decode("latin-1").split()
    if len(words) != 3 or not words[2].startswith("HTTP/"):
        raise _BadRequest("not an HTTP request line")
    return words[0].upper(), words[1], lines[1:]


def _destination(method: str, target: str, headers: list[bytes]) -> tuple[str, int, bytes | None]:
    """Host and port a request asks for; for plain http also the head to send there (origin form,
    without hop-by-hop headers, the connection closed after one answer). None for a tunnel."""
    if method == "CONNECT":
        host, _, port = target.rpartition(":")
        if not host or not port.isdigit():
            raise _BadRequest(f"CONNECT needs host:port, got {_shown(target)}")
        return host, int(port), None
    parts = urlsplit(target)
    if parts.scheme.lower() != "http" or not parts.hostname:
        raise _BadRequest("a proxy request names an absolute http URL")
    try:
        number = parts.port or 80
    except ValueError:
        raise _BadRequest(f"bad port in {_shown(target)}") from None
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    kept = [line for line in headers if line.split(b":", 1)[0].strip().lower() not in _HOP_HEADERS]
    head = b"\r\n".join([f"{method} {path} HTTP/1.1".encode("latin-1"), *kept, b"Connection: close"])
    return parts.hostname, number, head + b"\r\n\r\n"


def _pump(a: socket.socket, b: socket.socket) -> None:
    """Copy bytes both ways until both sides have finished or nothing moves for :data:`IDLE_TIMEOUT`."""
    selector = selectors.DefaultSelector()
    peers = {a: b, b: a}
    for end in peers:
        end.setblocking(False)
        selector.register(end, selectors.EVENT_READ, end)
    try:
        while selector.get_map():
            events = selector.select(IDLE_TIMEOUT)
            if not events:
                return
            for key, _ in events:
                sock: socket.socket = key.data
                try:
                    data = sock.recv(65536)
                except BlockingIOError:
                    continue
                if not data:
                    selector.unregister(sock)
                    try:
                        peers[sock].shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    continue
                peers[sock].setblocking(True)
                peers[sock].settimeout(IDLE_TIMEOUT)
                peers[sock].sendall(data)
                peers[sock].setblocking(False)
    finally:
        selector.close()


def _reply(sock: socket.socket, status: int, text: str) -> None:
    """A short answer that says why, in the reason phrase (which pip and npm print) and the body."""
    reason = " ".join(text.encode("ascii", "replace").decode("ascii").split())[:300]
    body = (reason + "\n").encode("ascii")
    head = f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/plain\r\nContent-Length: {len(body)}\r\n" \
           "Connection: close\r\n\r\n"
    try:
        sock.sendall(head.encode("ascii") + body)
    except OSError:
        pass


def _shown(text: str, limit: int = 100) -> str:
    """Untrusted text (a host) as it may appear in a log line: printable ASCII, at most ``limit`` characters."""
    return "".join(c if " " <= c < "\x7f" else "?" for c in text)[:limit]


def _close(sock: socket.socket) -> None:
    try:
        sock.close()
    except OSError:
        pass
