"""``arena serve``: the report of a results directory over HTTP, rebuilt as matches arrive.

Read-only and confined: only GET and HEAD (anything else gets 405), and only files inside
the report directory, after decoding the path and resolving symlinks (``..``, ``%2e%2e``,
absolute paths and links pointing out are refused with 404). The report is rebuilt when
the store changed, looked at on a request at most every ``interval`` seconds; the build
swaps the whole site in at once, so a request never sees half of one.
"""

from __future__ import annotations

import mimetypes
import os
import socket
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, BinaryIO, Callable
from urllib.parse import unquote, urlsplit

from .build import build_report, default_out
from .data import RatingHistory
from ..tournament.store import DB_NAME

CHECK_SECONDS = 2.0
"""How often (at most) a request looks whether the results changed."""
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
    real = base.joinpath(*parts).resolve()
    if real != base and base not in real.parents:
        return None  # a symlink pointing out
    if real.is_dir():
        real = real / "index.html"
    return real if real.is_file() else None


class LiveReport:
    """A results directory's report, rebuilt when its store changed."""

    def __init__(self, results_dir: Path, out_dir: Path | None = None, interval: float = CHECK_SECONDS,
                 say: Callable[[str], None] = lambda line: None) -> None:
        self.results_dir = Path(results_dir)
        self.root = Path(out_dir) if out_dir is not None else default_out(self.results_dir)
        self.interval = interval
        self.say = say
        self._building = threading.Lock()
        self._checked = float("-inf")
        self._signature: tuple[Any, ...] | None = None
        self.builds = 0
        self.ratings = RatingHistory()  # kept: a rebuild rates only the matches that arrived

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
        build_report(self.results_dir, self.root, self.ratings, say=self.say)
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
                    while chunk := handle.read(1 << 16):
                        self.wfile.write(chunk)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # quiet: a page polls every few seconds

    return Handler


def listen(report: LiveReport, host: str = "127.0.0.1", port: int = 8000) -> ThreadingHTTPServer:
    """A server for ``report`` bound to ``host:port`` (not started: call ``serve_forever``)."""
    class Server(ThreadingHTTPServer):
        address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        daemon_threads = True

    return Server((host, port), handler(report))


def make_server(results_dir: Path, host: str = "127.0.0.1", port: int = 8000, out_dir: Path | None = None,
                interval: float = CHECK_SECONDS, say: Callable[[str], None] = lambda line: None
                ) -> tuple[ThreadingHTTPServer, LiveReport]:
    """Build the report, then a server for it (not started: call ``serve_forever``)."""
    report = LiveReport(results_dir, out_dir, interval, say)
    report.build()
    return listen(report, host, port), report
