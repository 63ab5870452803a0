"""``arena serve``: the report of a results directory over HTTP, rebuilt as matches arrive.

Read-only and confined: only GET and HEAD (anything else gets 405), and only files inside
the report directory, after decoding the path and resolving symlinks (``..``, ``%2e%2e``,
absolute paths and links pointing out are refused with 404). The report is rebuilt when
the store changed, looked at on a request at most every ``interval`` seconds; the build
swaps the whole site in at once, so a request never sees half of one.

Hostile or broken clients cost little and never stop it serving others
(:class:`ReportServer`): a connection waits for its request without a thread, in one
selector, and only a connection whose request has begun to arrive is handed to one of
``WORKERS`` threads. A client has ``TIMEOUT`` seconds from connecting to send its whole
request (however steadily it trickles it); then ``TIMEOUT`` seconds to take each piece
of the answer, and ``TIMEOUT`` plus a second per ``MIN_RATE`` bytes for all of it. At
most ``MAX_CONNECTIONS`` connections are open at once, the oldest one still waiting for
its request making room for a new one. A client that goes away or times out is simply
dropped (one that sends nonsense gets its 400): no traceback, no log line.
"""

from __future__ import annotations

import errno
import io
import mimetypes
import os
import queue
import selectors
import socket
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any, BinaryIO, Callable
from urllib.parse import unquote, urlsplit

from .build import build_report, default_out
from .data import RatingHistory, RowCache
from ..tournament.store import DB_NAME

CHECK_SECONDS = 2.0
"""How often (at most) a request looks whether the results changed."""
TIMEOUT = 5.0
"""Seconds a client has from connecting to send its whole request, and to take each piece of the answer."""
WORKERS = 16
"""Threads answering requests: what a report's few pages and polls need, and the most a flood can take."""
MAX_CONNECTIONS = 256
"""Open connections (waiting for their request or being answered) at most; far below the usual 1024 files."""
MIN_RATE = 128 * 1024
"""Bytes a second a client must take an answer at, at least: it has ``TIMEOUT`` plus a second per
128 KiB (1 Mbit/s) for the whole answer, so a reader that trickles cannot hold a thread for long."""
CHUNK = 1 << 16
"""Bytes of a file sent at once; the client must take each within ``TIMEOUT``."""
_NO_ROOM = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}  # accept() failing for want of room
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml"}


def resolve(root: Path, url: str) -> Path | None:
    """The file under ``root`` that ``url`` names (a directory means its index.html), or None when it
    names nothing there: missing, hidden, or outside ``root`` by any route."""
    path = unquote(urlsplit(url).path)
    if "\x00" in path or "\\" in path:
        return None
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if any(part == ".." or part.startswith(".") for part in parts):
        return None
    base = root.resolve()
    try:  # a name longer than the file system takes, a loop of links: no such page, never a traceback
        real = base.joinpath(*parts).resolve()
        if real != base and base not in real.parents:
            return None  # a symlink pointing out
        if real.is_dir():
            real = real / "index.html"
        return real if real.is_file() else None
    except (OSError, RuntimeError):
        return None


class LiveReport:
    """A results directory's report, rebuilt when its store changed (``public``: with no bot's log, for
    strangers: :mod:`.public`)."""

    def __init__(self, results_dir: Path, out_dir: Path | None = None, interval: float = CHECK_SECONDS,
                 say: Callable[[str], None] = lambda line: None, public: bool = False) -> None:
        self.results_dir = Path(results_dir)
        self.public = public
        self.root = Path(out_dir) if out_dir is not None else default_out(self.results_dir)
        self.interval = interval
        self.say = say
        self._building = threading.Lock()
        self._checked = float("-inf")
        self._signature: tuple[Any, ...] | None = None
        self.builds = 0
        self.ratings = RatingHistory()  # kept: a rebuild rates only the matches that arrived
        self.rows = RowCache()  # ... and decodes only their rows

    def signature(self) -> tuple[Any, ...]:
        """What changes when a match is stored: the database and its write-ahead log, size and time."""
        out: list[Any] = []
        for name in (DB_NAME, DB_NAME + "-wal"):
            try:
                stat = os.stat(self.results_dir / name)
            except FileNotFoundError:
                out.append(None)
                continue
            out.append((stat.st_mtime_ns, stat.st_size) if stat.st_size else None)  # reading makes an empty log
        return tuple(out)

    def build(self) -> None:
        """Build now (the first time, and whenever the store changed)."""
        signature = self.signature()
        start = time.perf_counter()
        build_report(self.results_dir, self.root, self.ratings, say=self.say, rows=self.rows, public=self.public)
        self._signature = signature
        self.builds += 1
        self.say(f"report built in {time.perf_counter() - start:.1f} s ({self.root})")

    def refresh(self) -> None:
        """Rebuild if the store changed, looking at most every ``interval`` seconds; while one request
        rebuilds, the others are served the current report."""
        now = time.monotonic()
        if now - self._checked < self.interval or not self._building.acquire(blocking=False):
            return
        try:
            self._checked = now
            if self.signature() != self._signature:
                self.build()
        except Exception as exc:  # a failed rebuild keeps the last report served
            self.say(f"report not rebuilt: {exc}")
        finally:
            self._building.release()


def handler(report: LiveReport) -> type[BaseHTTPRequestHandler]:
    """The request handler class serving ``report``."""

    class Handler(BaseHTTPRequestHandler):
        server_version = "arena-report"
        sys_version = ""
        server: "ReportServer"

        def setup(self) -> None:
            """Read the request against its deadline; answer with ``TIMEOUT`` for each write."""
            super().setup()
            self.rfile.close()  # the plain reader: it would wait as long as the client liked
            self.rfile = io.BufferedReader(_DeadlineReader(self.connection, self.server.deadline()))

        def parse_request(self) -> bool:
            ok = super().parse_request()
            self.connection.settimeout(self.server.client_timeout)  # the request is in: now the answer
            return ok

        def do_GET(self) -> None:
            self._serve(body=True)

        def do_HEAD(self) -> None:
            self._serve(body=False)

        def __getattr__(self, name: str) -> Any:
            if name.startswith("do_"):  # any other method: this server changes nothing
                return self._refuse
            raise AttributeError(name)

        def _refuse(self) -> None:
            self.send_response(HTTPStatus.METHOD_NOT_ALLOWED)
            self.send_header("Allow", "GET, HEAD")
            self.send_header("Content-Length", "0")
            self.end_headers()

        def _serve(self, body: bool) -> None:
            report.refresh()
            path = resolve(report.root, self.path)
            handle: BinaryIO | None = None
            if path is not None:
                try:
                    handle = open(path, "rb")  # noqa: SIM115: kept open however the site is swapped meanwhile
                except OSError:
                    handle = None
            if handle is None:
                self.send_error(HTTPStatus.NOT_FOUND, "not in this report")
                return
            with handle:
                size = os.fstat(handle.fileno()).st_size
                kind = TYPES.get(path.suffix if path else "") or mimetypes.guess_type(str(path))[0]
                self.send_response(HTTPStatus.OK)
                self.send_header("Content-Type", kind or "application/octet-stream")
                self.send_header("Content-Length", str(size))
                self.send_header("Cache-Control", "no-cache")
                self.send_header("X-Content-Type-Options", "nosniff")
                self.end_headers()
                if body:
                    self._send_file(handle, time.monotonic() + self.server.client_timeout + size / MIN_RATE)

        def _send_file(self, handle: BinaryIO, due: float) -> None:
            """Send the file's bytes, all taken by ``due`` and each ``CHUNK`` within ``TIMEOUT``."""
            timeout = self.server.client_timeout
            while chunk := handle.read(CHUNK):
                left = due - time.monotonic()
                if left <= 0:
                    raise TimeoutError("answer not taken in time")
                self.connection.settimeout(min(timeout, left))
                self.wfile.write(chunk)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: a page polls every few seconds, and what a bad client did is its own business

    return Handler


class _DeadlineReader(io.RawIOBase):
    """A connection's incoming bytes, all due by ``deadline`` (a ``time.monotonic()``): a client that
    trickles its request (slow loris) is cut off then, however steadily it trickles. Past the deadline
    what has already arrived is still read: a request that waited for a busy thread is not late."""

    def __init__(self, sock: socket.socket, deadline: float) -> None:
        self._sock = sock
        self._deadline = deadline

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        self._sock.settimeout(max(0.0, self._deadline - time.monotonic()))
        try:
            return self._sock.recv_into(buffer)
        except BlockingIOError:  # past the deadline, with nothing more there
            raise TimeoutError("request not complete in time") from None


class ReportServer(HTTPServer):
    """An HTTP server with a bounded cost per client (see the module docstring).

    ``serve_forever`` runs the selector: it accepts connections, keeps those whose request has
    not begun, drops them at their deadline, and queues the others for the worker threads.
    HTTP/1.0, one request per connection, so a connection never waits in a thread for a second one.
    """

    request_queue_size = 128
    """Connections the kernel holds for ``accept`` (a burst of them waits there, not refused)."""

    def __init__(self, address: tuple[str, int], handler_class: type[BaseHTTPRequestHandler], *,
                 timeout: float = TIMEOUT, workers: int = WORKERS, max_connections: int = MAX_CONNECTIONS,
                 say: Callable[[str], None] = lambda line: None) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.client_timeout = timeout
        self.workers = workers
        self.max_connections = max_connections
        self.say = say
        self._jobs: "queue.SimpleQueue[tuple[socket.socket, Any, float] | None]" = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._busy = 0  # connections queued for or in a worker
        self._lock = threading.Lock()
        self._local = threading.local()  # the deadline of the request a worker is reading
        self._stop = threading.Event()
        self._stopped = threading.Event()
        self._stopped.set()
        super().__init__(address, handler_class)

    @property
    def busy(self) -> int:
        """Connections handed to the worker threads and not yet done with."""
        return self._busy

    def deadline(self) -> float:
        """When the request this worker thread is reading must be complete."""
        return getattr(self._local, "deadline", time.monotonic() + self.client_timeout)

    def serve_forever(self, poll_interval: float = 0.5) -> None:
        """Serve until ``shutdown`` (even one called before this started, as socketserver does);
        ``poll_interval`` is how often it looks for that."""
        self._stopped.clear()
        self._start_workers()
        waiting: dict[socket.socket, tuple[Any, float]] = {}  # in order of arrival, so of deadline
        try:
            with selectors.DefaultSelector() as selector:
                self.socket.setblocking(False)
                selector.register(self.socket, selectors.EVENT_READ)
                while not self._stop.is_set():
                    wait = poll_interval
                    if waiting:
                        wait = min(wait, max(0.0, next(iter(waiting.values()))[1] - time.monotonic()))
                    for key, _ in selector.select(wait):
                        if key.fileobj is self.socket:
                            self._accept(selector, waiting)
                        else:
                            conn: Any = key.fileobj
                            selector.unregister(conn)
                            address, deadline = waiting.pop(conn)
                            with self._lock:
                                self._busy += 1
                            self._jobs.put((conn, address, deadline))
                    now = time.monotonic()
                    while waiting and next(iter(waiting.values()))[1] <= now:
                        self._drop_oldest(selector, waiting)
        finally:
            for conn in waiting:
                _close(conn)
            self._stop.clear()
            self._stopped.set()

    def shutdown(self) -> None:
        """Stop ``serve_forever`` (from another thread) and wait until it has."""
        self._stop.set()
        self._stopped.wait()

    def server_close(self) -> None:
        """Close the listening socket and let the worker threads end after their current request."""
        super().server_close()
        for _ in self._threads:
            self._jobs.put(None)
        self._threads.clear()

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that went away or was too slow is dropped quietly; anything else is one line."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        host = client_address[0] if isinstance(client_address, tuple) and client_address else client_address
        self.say(f"request from {host} failed: {type(exc).__name__}: {exc}")

    def _start_workers(self) -> None:
        while len(self._threads) < self.workers:
            thread = threading.Thread(target=self._work, name=f"serve-{len(self._threads)}", daemon=True)
            thread.start()
            self._threads.append(thread)

    def _work(self) -> None:
        """A worker thread: answer queued connections, one request each, until told to stop."""
        while (job := self._jobs.get()) is not None:
            conn, address, deadline = job
            try:
                self._local.deadline = deadline
                self.finish_request(conn, address)
            except Exception:
                self.handle_error(conn, address)
            finally:
                self.shutdown_request(conn)
                with self._lock:
                    self._busy -= 1

    def _accept(self, selector: selectors.BaseSelector, waiting: dict[socket.socket, tuple[Any, float]]) -> None:
        """Take every connection the kernel holds, making room by dropping the oldest waiting ones."""
        while True:
            try:
                conn, address = self.socket.accept()
            except BlockingIOError:
                return
            except OSError as exc:
                if exc.errno not in _NO_ROOM:
                    continue  # e.g. the client gave up meanwhile
                if waiting:
                    self._drop_oldest(selector, waiting)
                else:
                    self._stop.wait(0.05)  # every connection is being answered: let one finish
                return
            if len(waiting) + self._busy >= self.max_connections:
                if not waiting:
                    _close(conn)  # all of them are being answered: refuse this one
                    continue
                self._drop_oldest(selector, waiting)
            waiting[conn] = (address, time.monotonic() + self.client_timeout)
            selector.register(conn, selectors.EVENT_READ)

    @staticmethod
    def _drop_oldest(selector: selectors.BaseSelector, waiting: dict[socket.socket, tuple[Any, float]]) -> None:
        conn = next(iter(waiting))
        del waiting[conn]
        selector.unregister(conn)
        _close(conn)


def _close(conn: socket.socket) -> None:
    """Close a connection whose client sent nothing (yet), quietly."""
    try:
        conn.close()
    except OSError:
        pass


def listen(report: LiveReport, host: str = "127.0.0.1", port: int = 8000, *, timeout: float = TIMEOUT,
           workers: int = WORKERS, max_connections: int = MAX_CONNECTIONS) -> ReportServer:
    """A server for ``report`` bound to ``host:port`` (not started: call ``serve_forever``)."""
    return ReportServer((host, port), handler(report), timeout=timeout, workers=workers,
                        max_connections=max_connections, say=lambda line: report.say(line))


def make_server(results_dir: Path, host: str = "127.0.0.1", port: int = 8000, out_dir: Path | None = None,
                interval: float = CHECK_SECONDS, say: Callable[[str], None] = lambda line: None, *,
                timeout: float = TIMEOUT, workers: int = WORKERS, max_connections: int = MAX_CONNECTIONS
                ) -> tuple[ReportServer, LiveReport]:
    """Build the report, then a server for it (not started: call ``serve_forever``)."""
    report = LiveReport(results_dir, out_dir, interval, say)
    report.build()
    return listen(report, host, port, timeout=timeout, workers=workers, max_connections=max_connections), report
