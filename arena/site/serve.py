"""``arena serve RESULTS_DIR``: the report of a results directory over HTTP, rebuilt as matches arrive.

A Starlette app (:func:`create_app`) on uvicorn, as the submission server is (:mod:`.listen`: the server both
run on, and what a slow or silent client may cost it).

Read-only and confined: only GET and HEAD (anything else gets 405), and only files inside the report directory,
after decoding the path and resolving symlinks (``..``, ``%2e%2e``, absolute paths and links pointing out are
refused with 404). A path that names no regular file there (a name too long for the file system, a NUL, a
directory without index.html, a FIFO, a socket, a file it cannot open) is a 404 too, never a 500.
:func:`report_file` is that, for the submission server's report as well.

The report is rebuilt when the store changed, looked at on a request at most every ``interval`` seconds, in a
worker thread: the request that found the change waits for the new report, the others are answered from the
current one meanwhile. A failed rebuild keeps the last report served. The build swaps the whole site in at
once, and a file is opened before its answer begins, so an answer never holds half of two reports.
"""

from __future__ import annotations

import email.utils
import hashlib
import mimetypes
import os
import stat
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, BinaryIO, Callable
from urllib.parse import quote, unquote, urlsplit

import anyio
from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from .build import build_report, default_out
from .data import RatingHistory, RowCache
from .listen import MAX_CONNECTIONS, MIN_RATE, TIMEOUT, Limits, Listening
from ..tournament.store import DB_NAME

CHECK_SECONDS = 2.0
"""How often (at most) a request looks whether the results changed."""
CHUNK = 1 << 16
"""Bytes of a file read and sent at once."""
TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
         ".css": "text/css; charset=utf-8", ".json": "application/json", ".svg": "image/svg+xml"}
HEADERS = {"Cache-Control": "no-cache", "X-Content-Type-Options": "nosniff"}
"""Sent with every file of a report: look again each time (it is rebuilt), and take its type as given."""


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
        if real.is_dir():
            real = (real / "index.html").resolve()
        if base not in real.parents:
            return None  # a symlink pointing out (a directory's index.html too)
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


async def report_file(root: Path, request: Request) -> Response | None:
    """The answer of the report at ``root`` to ``request``: the file it names (:func:`resolve`), opened now, or
    None when it names no regular file there that can be opened (the caller answers 404: :func:`not_found`)."""
    scope = request.scope
    raw = scope.get("raw_path")  # as sent: resolve() decodes it once (the server's decoded path would be twice)
    target = raw.decode("latin-1") if isinstance(raw, bytes) else quote(str(scope.get("path", "/")))
    opened = await run_in_threadpool(_open, root, target)
    if opened is None:
        return None
    path, handle, found = opened
    return OpenFile(handle, found.st_size, found.st_mtime, _kind(path))


def _open(root: Path, target: str) -> tuple[Path, BinaryIO, os.stat_result] | None:
    path = resolve(root, target)
    if path is None:
        return None
    try:  # opened before anything is answered: a rebuild swapping the site in meanwhile changes nothing of it
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO does not wait for a writer
    except OSError:
        return None
    found = os.fstat(fd)
    if not stat.S_ISREG(found.st_mode):  # replaced by something else since resolve() looked
        os.close(fd)
        return None
    return path, open(fd, "rb", closefd=True), found  # noqa: SIM115: closed by the answer


def _kind(path: Path) -> str:
    return TYPES.get(path.suffix) or mimetypes.guess_type(path.name)[0] or "application/octet-stream"


def not_found() -> Response:
    return PlainTextResponse("not in this report\n", status_code=404, headers=HEADERS)


class OpenFile(Response):
    """An open file's first ``size`` bytes (its size when it was opened), read ``CHUNK`` at a time in a worker
    thread; closed however the answer ends (reading stops when the client goes away)."""

    def __init__(self, handle: BinaryIO, size: int, mtime: float, media_type: str,
                 headers: Mapping[str, str] = HEADERS) -> None:
        self.handle = handle
        self.size = size
        tag = hashlib.md5(f"{mtime}-{size}".encode(), usedforsecurity=False).hexdigest()
        super().__init__(None, 200, {**headers, "Content-Length": str(size), "ETag": f'"{tag}"',
                                     "Last-Modified": email.utils.formatdate(mtime, usegmt=True)}, media_type)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        try:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            if scope.get("method") == "HEAD" or self.size == 0:
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                return
            async with anyio.create_task_group() as group:
                async def gone() -> None:  # uvicorn's send() says nothing once the client left: receive() does
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(gone)
                left = self.size
                while left > 0:
                    chunk = await anyio.to_thread.run_sync(self.handle.read, min(CHUNK, left))
                    if not chunk:
                        break  # cut short in place since it was opened (the build never does): the connection ends
                    left -= len(chunk)
                    await send({"type": "http.response.body", "body": chunk, "more_body": left > 0})
                group.cancel_scope.cancel()
        finally:
            self.handle.close()


def create_app(report: LiveReport) -> Starlette:
    """The app serving ``report``, looking whether to rebuild it on each request."""

    async def answer(request: Request) -> Response:
        await run_in_threadpool(report.refresh)
        return await report_file(report.root, request) or not_found()

    async def refused(request: Request, exc: Exception) -> Response:
        if isinstance(exc, HTTPException) and exc.status_code == 405:  # and a body it may have is not waited for
            return Response(status_code=405, headers={"Allow": "GET, HEAD", "Connection": "close"})
        return not_found()  # an address no route takes (one not starting with /)

    return Starlette(routes=[Route("/{path:path}", answer, methods=["GET", "HEAD"])],
                     exception_handlers={404: refused, 405: refused})


def listen(report: LiveReport, host: str = "127.0.0.1", port: int = 8000, *,
           limits: Limits | None = None) -> Listening:
    """A server for ``report`` bound to ``host:port`` (not started: call ``serve_forever``)."""
    return Listening(create_app(report), host, port, limits=limits)


def make_server(results_dir: Path, host: str = "127.0.0.1", port: int = 8000, out_dir: Path | None = None,
                interval: float = CHECK_SECONDS, say: Callable[[str], None] = lambda line: None, *,
                timeout: float = TIMEOUT, max_connections: int = MAX_CONNECTIONS, min_rate: float = MIN_RATE
                ) -> tuple[Listening, LiveReport]:
    """Build the report, then a server for it (not started: call ``serve_forever``)."""
    report = LiveReport(results_dir, out_dir, interval, say)
    report.build()
    return listen(report, host, port, limits=Limits(timeout, min_rate, max_connections)), report
