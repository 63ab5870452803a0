"""The submission server of a ladder (``arena serve LADDER.yaml``): a Starlette app on uvicorn.

The interface is in docs/server.md. Every ``/api`` answer is JSON and every error one line,
``{"error": ...}``. An upload is refused as early as it can be, before any work: an unknown
token (401), an author over the rate limit (429), a full queue (503), a declared length past
the ladder's ``submission.max_mb`` (413); then the body is read in pieces and refused the moment
it passes that size, so no upload is ever held whole in memory past the cap. The archive is
unpacked (:mod:`.archive`) and its manifest read in a worker thread, never on the event loop,
so 50 uploads at once slow no one's answers; the checks themselves run one at a time
(:mod:`.queue`).

A bot name belongs to the author who first uploaded it (:class:`.store.ServerDB`); a name
entered into the ladder without the server (the file's own bots, a local ``arena submit``)
belongs to the organiser. Only the owner (and the organiser's token) may upload a version of
a bot, read its logs and check output, or retire it.

Everything outside ``/api`` and the authors' page is the ladder's public report (no bot's stderr in
it), built into and served from ``OUTPUT/public`` by the same function as ``arena serve RESULTS_DIR``'s
(:func:`arena.site.serve.report_file`: confined, 404 for any path naming no file there), and rebuilt in a
background thread when the store changed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import sys
import tempfile
import threading
import time
from collections import deque
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from ..bots import BotConfigError, load_bot
from ..bots.spec import NAME_RE
from ..site.serve import CHECK_SECONDS, HEADERS, TYPES, LiveReport, not_found, report_file
from ..site.templating import render
from ..site.withhold import withheld_in
from ..tournament.config import ConfigError, TournamentConfig, load_config
from ..tournament.ladder.entries import Entry, entries, retire, retired_line
from ..tournament.ladder.limits import SubmissionLimits
from ..tournament.ladder.lock import started
from ..tournament.ladder.kind import own_field, settings_of
from ..tournament.store import DB_NAME, ResultStore
from .archive import ArchiveRefused, ArchiveTooLarge, unpack
from .store import Author, ServerDB
from ..tournament.ladder.submit import field_refusal, submit
from .queue import INCOMING, MAX_WAITING, Check, CheckQueue, Job, QueueFull, new_id, recover

UPLOADS_PER_MINUTE = 6
"""Uploads an author may make in any 60 seconds; past it: 429 with Retry-After."""
MAX_RECEIVING = 4
"""Uploads read and unpacked at once (each may hold ``submission.max_mb`` in memory); the others wait."""
RECEIVE_WAIT = 30.0
"""Seconds an upload waits for its turn to be read; then 503."""
BODY_SECONDS = 120.0
"""Seconds an upload's body has to arrive once its turn came (a trickle would hold a turn): then 408."""
LOG_MATCHES = 50
"""The latest matches whose logs ``GET /api/bots/NAME/logs`` returns."""
ASSETS = Path(__file__).parent / "assets"
"""The authors' page: submit.html, submit.js, submit.css."""
PAGE_FILES = ("submit.html", "submit.js", "submit.css", "report.css")
SITE_ASSETS = Path(__file__).parent.parent / "site" / "assets"
"""The report's stylesheet, which the authors' page shares (``/report.css``)."""
MIB = 1024 * 1024


class ApiError(Exception):
    """An /api answer other than 2xx: its status and one line."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status = status
        self.headers = headers or {}


class RateLimit:
    """At most ``per_minute`` events per key in any 60 seconds."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self._times: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def take(self, key: str) -> int | None:
        """Count one event for ``key``; None if allowed, else the seconds until one would be."""
        now = time.monotonic()
        with self._lock:
            times = self._times.setdefault(key, deque())
            while times and now - times[0] >= 60:
                times.popleft()
            if len(times) >= self.per_minute:
                return max(1, int(60 - (now - times[0])) + 1)
            times.append(now)
            return None


PUBLIC_DIR = "public"
"""The output directory's folder holding the public report the server publishes."""


class ReportThread:
    """Rebuilds the ladder's report when its store changed, at most every ``CHECK_SECONDS``, off the event loop
    (keeping the ratings and rows between builds, as :class:`arena.site.serve.LiveReport` does)."""

    def __init__(self, output: Path) -> None:
        # a public build of its own (no bot's stderr anywhere in it, arena/site/public.py), never the run's own
        # OUTPUT/report, which shows the logs to whoever reads it
        self.report = LiveReport(output, output / PUBLIC_DIR, public=True, say=self._say)
        self._said = ""
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="report", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def _say(self, line: str) -> None:
        """The organiser's terminal hears why the report is not rebuilt, once (not every 2 s)."""
        if line.startswith("report not rebuilt") and line != self._said:
            print(line, file=sys.stderr, flush=True)
        self._said = line

    def stop(self) -> None:
        self._stop.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if (self.report.results_dir / DB_NAME).is_file():
                self.report.refresh()
            self._stop.wait(CHECK_SECONDS)


class Server:
    """What the routes share: the ladder, its server state, the check queue and the rate limit."""

    def __init__(self, config: TournamentConfig, queue_size: int = MAX_WAITING,
                 per_minute: int = UPLOADS_PER_MINUTE, check: Check = submit) -> None:
        self.config = config
        self._field: tuple[tuple[int, int] | None, TournamentConfig] = (None, config)
        """The ladder file as :meth:`field_now` last read it, with the stamp (time, size) it had then."""
        self.limits: SubmissionLimits = settings_of(config).submission
        self.db = ServerDB(config.output)
        recover(config, self.db)
        self.queue = CheckQueue(config, self.db, queue_size, check)
        self.rate = RateLimit(per_minute)
        self._receiving = asyncio.Semaphore(MAX_RECEIVING)
        """Held by the uploads being read or unpacked now."""

    # helpers

    def author(self, request: Request) -> Author:
        header = request.headers.get("authorization", "")
        scheme, _, token = header.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            raise ApiError(401, "no token: send the header Authorization: Bearer TOKEN (the organiser gives you "
                                "the token)", {"WWW-Authenticate": "Bearer"})
        author = self.db.author_of_token(token.strip())
        if author is None:
            raise ApiError(401, "unknown token: check it, or ask the organiser for a new one",
                           {"WWW-Authenticate": "Bearer"})
        return author

    def entries(self) -> list[Entry]:
        """The ladder's entries (none before anything was entered)."""
        if not (self.config.output / DB_NAME).is_file():
            return []
        store = ResultStore(self.config.output, readonly=True)
        try:
            return entries(store.ladder)
        finally:
            store.close()

    def field_now(self) -> TournamentConfig:
        """The ladder file as it says now, for the names of its own field (the organiser may list another bot
        while the server runs): read again only when the file changed; the file as last read when it cannot be
        read now."""
        try:
            stamp = os.stat(self.config.path)
            key = (stamp.st_mtime_ns, stamp.st_size)
        except OSError:
            return self._field[1]
        if key != self._field[0]:
            try:
                self._field = (key, load_config(self.config.path))
            except ConfigError:
                pass
        return self._field[1]

    def may_see(self, author: Author, bot: str, versions: list[Entry]) -> bool:
        """The organiser, or the bot's owner, unless its ``versions`` are the file's own bot: an author who claimed
        a name before the file listed it (or before uploads under the file's names were refused), and whose
        upload was never entered, has no hold on the organiser's bot of that name."""
        if author.organiser:
            return True
        if self.db.owner(bot) != author.name:
            return False
        own = own_field(self.field_now()).get(bot)
        return own is None or not versions or versions[-1].source != own

    def known(self, bot: str) -> list[Entry]:
        """The versions of ``bot``; 404 when the ladder has no such bot and nobody owns the name."""
        versions = [e for e in self.entries() if e.name == bot] if NAME_RE.match(bot) else []
        if not versions and (not NAME_RE.match(bot) or self.db.owner(bot) is None):
            raise ApiError(404, f"no bot named {bot} in ladder {self.config.name}")
        return versions

    # routes

    async def me(self, request: Request) -> Response:
        author = self.author(request)
        return JSONResponse({"author": author.name, "organiser": author.organiser})

    async def upload(self, request: Request) -> Response:
        author = self.author(request)
        name = request.query_params.get("name") or None
        if name is not None and not NAME_RE.match(name):
            raise ApiError(400, f"{name!r} is not a bot name: use 1 to 64 lowercase letters, digits, '_', '.' or "
                                "'-', starting with a letter or digit")
        wait = self.rate.take(author.name)
        if wait is not None:
            raise ApiError(429, f"too many uploads: at most {self.rate.per_minute} a minute; try again in {wait} s",
                           {"Retry-After": str(wait)})
        if self.queue.full():
            raise QueueFull(self.queue.waiting())
        try:  # each upload holds up to max_mb in memory while it is read and unpacked: a flood must not add up
            await asyncio.wait_for(self._receiving.acquire(), RECEIVE_WAIT)
        except asyncio.TimeoutError:
            raise ApiError(503, f"the server is busy receiving {MAX_RECEIVING} other uploads; try again in a minute",
                           {"Retry-After": "60"}) from None
        work: Path | None = None
        try:
            try:
                async with asyncio.timeout(BODY_SECONDS):
                    data = await self._body(request)
            except TimeoutError:
                raise ApiError(408, f"the upload did not arrive within {BODY_SECONDS:.0f} s; try again on a faster "
                                    "connection") from None
            incoming = self.config.output / INCOMING
            incoming.mkdir(parents=True, exist_ok=True)
            work = Path(tempfile.mkdtemp(prefix="upload-", dir=incoming))
            bot = await run_in_threadpool(self._unpacked_name, data, work, name)
            del data
            await run_in_threadpool(self._own, author, bot)
            job = Job(new_id(), bot, author.name, work, name)
            ahead = await run_in_threadpool(self.queue.put, job)
        except BaseException:
            if work is not None:
                shutil.rmtree(work, ignore_errors=True)
            raise
        finally:
            self._receiving.release()
        return JSONResponse({"id": job.id, "status": "queued", "ahead": ahead}, status_code=202)

    async def _body(self, request: Request) -> bytes:
        """The body, refused with 413 as soon as it passes the ladder's ``submission.max_mb``."""
        cap = self.limits.max_mb * MIB
        too_big = ApiError(413, f"the upload is larger than {self.limits.max_mb:,} MB (submission.max_mb of "
                                f"{self.config.path.name}); leave build outputs and data out of the archive")
        declared = request.headers.get("content-length", "")
        if declared.isdigit() and int(declared) > cap:
            raise too_big
        body = bytearray()
        try:
            async for chunk in request.stream():
                body += chunk
                if len(body) > cap:
                    raise too_big
        except ClientDisconnect:  # the client left mid-upload: nothing to enter, nobody to tell, no traceback
            raise ApiError(400, "the upload was cut off before its end: send the whole archive") from None
        if not body:
            raise ApiError(400, "the upload is empty: send the bot's files as a zip or tar.gz archive")
        return bytes(body)

    def _unpacked_name(self, data: bytes, work: Path, name: str | None) -> str:
        """Unpack into ``work/bot`` (and ``work/lib``, a library the bot shares as ``../lib``); the bot's name."""
        try:
            unpack(data, work / "files", self.limits)
        except ArchiveTooLarge as exc:  # past submission.max_mb or max_files once unpacked
            raise ApiError(413, str(exc)) from None
        except ArchiveRefused as exc:
            raise ApiError(400, str(exc)) from None
        files = work / "files"
        if (files / "bot" / "bot.yaml").is_file() and not (files / "bot.yaml").is_file():
            for part in ("bot", "lib"):  # a snapshot's layout: the bot in bot/, the library it shares in lib/
                if (files / part).is_dir():
                    (files / part).rename(work / part)
            shutil.rmtree(files)
        else:
            files.rename(work / "bot")
        try:
            spec = load_bot(str(work / "bot"), None, name)
        except BotConfigError as exc:  # the server's directories are nobody's business
            said = str(exc).replace(str((work / "bot").resolve()), "the archive").replace(str(work / "bot"), "the archive")
            raise ApiError(400, said) from None
        if spec.directory is None:
            raise ApiError(400, "the archive holds no bot.yaml; pack the bot's directory")
        return spec.name

    def _own(self, author: Author, bot: str) -> None:
        """403 unless ``bot`` is the author's or nobody's (then it becomes theirs), and never a name of the file's
        own field, even before a run entered it."""
        taken = field_refusal(self.field_now(), bot)
        if taken is not None:
            raise ApiError(403, taken)
        owner = self.db.owner(bot)
        if owner is None and any(e.name == bot for e in self.entries()):
            if not author.organiser:
                raise ApiError(403, f"the name {bot} belongs to a bot the organiser entered; choose another "
                                    "name with --name")
            return
        owner = owner or self.db.claim(bot, author.name)
        if owner != author.name:
            raise ApiError(403, f"the name {bot} belongs to another author; choose another name with --name")

    async def submission(self, request: Request) -> Response:
        author = self.author(request)
        sub_id = request.path_params["sub_id"]
        job = self.queue.job(sub_id)
        record: dict[str, Any] | None
        if job is not None:
            record = {"id": job.id, "bot": job.bot, "author": job.author, "status": job.status,
                      "output": list(job.output), "message": job.message, "exit": job.exit}
            if job.status == "queued":
                record["ahead"] = self.queue.ahead(job)
        else:
            record = self.db.submission(sub_id)
        if record is None:
            raise ApiError(404, f"no submission {sub_id}")
        if record["author"] != author.name and not author.organiser:
            raise ApiError(403, f"submission {sub_id} is another author's")
        return JSONResponse(record)

    async def bots(self, request: Request) -> Response:
        author = self.author(request)
        found = await run_in_threadpool(self.entries)
        owners = self.db.owners()
        names = sorted(set(e.name for e in found) | set(owners)) if author.organiser \
            else self.db.owned(author.name)
        return JSONResponse({"bots": [{
            "name": name, "author": owners.get(name),
            "versions": [{"key": e.key, "status": e.status, "submitted_at": e.submitted_at}
                         for e in found if e.name == name]} for name in names]})

    async def _owned(self, request: Request, refusal: str) -> tuple[str, list[Entry]]:
        """The bot the address names and its versions, for its author or the organiser (``refusal``, with
        ``{bot}`` in it: the 403 for anyone else; 404 for a bot nobody knows)."""
        author = self.author(request)
        bot = request.path_params["name"]
        versions = await run_in_threadpool(self.known, bot)
        if not await run_in_threadpool(self.may_see, author, bot, versions):
            raise ApiError(403, refusal.format(bot=bot))
        return bot, versions

    async def logs(self, request: Request) -> Response:
        bot, versions = await self._owned(request, "the logs of {bot} are its author's")
        rows = await run_in_threadpool(self._logs, [e.key for e in versions])
        return JSONResponse({"bot": bot, "logs": rows})

    def _logs(self, keys: list[str]) -> list[dict[str, Any]]:
        if not keys:
            return []
        store = ResultStore(self.config.output, readonly=True)
        try:
            seats = sorted((r for key in keys for r in store.bot_logs(key, every_row=False)),
                           key=lambda r: (r.index, r.seat))
            deals = store.deals_of({r.index for r in seats})
            hidden = withheld_in(store, deals)  # a log of a deal still to be played tells of its other rotations
        finally:
            store.close()
        seats = [r for r in seats if r.index not in hidden]
        latest = sorted({r.index for r in seats})[-LOG_MATCHES:]
        return [{"index": r.index, "match": r.match_id, "seat": r.seat, "place": r.place, "text": r.text}
                for r in seats if r.index >= (latest[0] if latest else 0)]

    async def retire(self, request: Request) -> Response:
        bot, versions = await self._owned(request, "{bot} is another author's bot")
        if not versions:
            raise ApiError(404, f"no bot named {bot} in ladder {self.config.name}")
        retired = await run_in_threadpool(self._retire, bot)
        return JSONResponse({"message": retired_line(bot, retired)})

    def _retire(self, bot: str) -> list[int]:
        store = ResultStore(self.config.output)
        try:
            return retire(store.ladder, bot)
        finally:
            store.close()


def _error(request: Request, exc: Exception) -> Response:
    if isinstance(exc, QueueFull):
        return JSONResponse({"error": str(exc)}, status_code=503, headers={"Retry-After": "60"})
    if isinstance(exc, ApiError):
        return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=exc.headers)
    if isinstance(exc, HTTPException):
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": str(exc.detail)}, status_code=exc.status_code, headers=exc.headers)
        return Response(str(exc.detail), status_code=exc.status_code, headers=exc.headers)
    return JSONResponse({"error": "the server failed on this request; the organiser's log says why"},
                        status_code=500)


def create_app(config: TournamentConfig, queue_size: int = MAX_WAITING, per_minute: int = UPLOADS_PER_MINUTE,
               check: Check = submit, report: bool = True) -> Starlette:
    """The app serving ``config``'s ladder (``report=False``: no background report builds, for tests)."""
    server = Server(config, queue_size, per_minute, check)
    builder = ReportThread(config.output)

    async def page(request: Request) -> Response:
        name = request.url.path.lstrip("/")
        path = SITE_ASSETS / name if name == "report.css" else ASSETS / name
        if not path.is_file():
            return Response("the authors' page is not installed", status_code=404)
        return FileResponse(path, media_type=TYPES.get(path.suffix), headers={**_static_headers(), **PAGE_HEADERS})

    async def static(request: Request) -> Response:
        if request.url.path.startswith("/api/"):
            raise ApiError(404, f"no such API: {request.method} {request.url.path}")
        if request.method not in ("GET", "HEAD"):
            return Response("this server changes nothing there", status_code=405, headers={"Allow": "GET, HEAD"})
        answer = await report_file(builder.report.root, request)
        if answer is None and request.url.path in ("/", "/index.html") and not (builder.report.root / "index.html").exists():
            return HTMLResponse(_waiting_page(config), headers={**_static_headers(), **PAGE_HEADERS})
        return answer or not_found()

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        if report:
            builder.start()
        try:
            yield
        finally:
            builder.stop()
            server.queue.close()

    routes = [
        Route("/api/me", server.me, methods=["GET"]),
        Route("/api/bots", server.upload, methods=["POST"]),
        Route("/api/bots", server.bots, methods=["GET"]),
        Route("/api/submissions/{sub_id}", server.submission, methods=["GET"]),
        Route("/api/bots/{name}/logs", server.logs, methods=["GET"]),
        Route("/api/bots/{name}/retire", server.retire, methods=["POST"]),
        *[Route(f"/{name}", page, methods=["GET", "HEAD"]) for name in PAGE_FILES],
        Route("/{path:path}", static, methods=["GET", "HEAD", "POST", "PUT", "DELETE", "PATCH"]),
    ]
    app = Starlette(routes=routes, lifespan=lifespan,
                    exception_handlers={ApiError: _error, QueueFull: _error, HTTPException: _error, Exception: _error})
    app.state.server = server
    return app


PAGE_HEADERS = {"Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                                           "object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
                "Referrer-Policy": "no-referrer"}
"""The authors' page holds a token: only its own scripts run, it is framed by nobody, and its address goes nowhere."""


def _waiting_page(config: TournamentConfig) -> str:
    """What ``/`` answers before the first match is stored (and so before the first report): whether a run is
    going (it holds the ladder's run lock) or play waits for the organiser's ``arena run``, and that bots are
    submitted on the authors' page. A server alone plays nothing, so it must not say the ladder is running."""
    running = started(config.output) is not None
    return render("waiting.html", title=f"Ladder {config.name}", running=running, file=config.path.name)


def _static_headers() -> dict[str, str]:
    return dict(HEADERS)  # what every file of a report is sent with
