"""The authors' page (arena/server/assets/submit.*) in Chromium, against a stub of the server's API.

The stub below answers the HTTP interface of docs/server.md with canned answers and records what the
page sent, so this tests the page alone: its token, its upload, its polling, its list and its logs.
The same tests can be pointed at the real application by replacing :func:`stub_app`.
"""

from __future__ import annotations

import io
import re
import socket
import tarfile
import threading
import time
from pathlib import Path
from typing import Any, Iterator

import pytest
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from arena.site.data import safe_name

from ..site.browser import ACTION_MS, CHROMIUM, EXPECT_MS, browser  # noqa: F401  (fixture; skips without Chromium)
from playwright.sync_api import Browser, Page, expect  # after the skip above: without Playwright, skipped

ASSETS = Path(__file__).resolve().parents[2] / "arena" / "server" / "assets"
TOKEN = "ann-token-0123456789"
EVIL = "<img src=x onerror=alert(1)>"
CHECK_OUTPUT = ["ann-bot: 3 files, 1.2 KB", "check: 20 matches against the opponent: no fault"]
ENTERED = "entered ann-bot@v2: scheduled from the next round"


class Stub:
    """What the page sent, and the state of the one submission it follows."""

    def __init__(self) -> None:
        self.uploads: list[dict[str, Any]] = []
        self.polls = 0
        self.retired: list[str] = []
        self.seen_tokens: list[str] = []


def stub_app(stub: Stub) -> Starlette:
    """The server's API with canned answers: the author ``ann`` owns ``ann-bot`` and ``Ann's Bot``; the name
    ``taken`` is another author's; a submission is queued with one ahead, then checked, then entered."""

    def error(status: int, text: str, **headers: str) -> JSONResponse:
        return JSONResponse({"error": text}, status_code=status, headers=headers)

    def authorised(request: Request) -> bool:
        given = request.headers.get("authorization", "")
        stub.seen_tokens.append(given)
        return given == f"Bearer {TOKEN}"

    def asset(name: str, media: str) -> Any:
        async def serve(request: Request) -> Response:
            return FileResponse(ASSETS / name, media_type=media)
        return serve

    async def me(request: Request) -> Response:
        if not authorised(request):
            return error(401, "unknown token: ask the organiser for yours (arena author add)")
        return JSONResponse({"author": "ann", "organiser": False})

    async def upload(request: Request) -> Response:
        if not authorised(request):
            return error(401, "unknown token")
        name = request.query_params.get("name", "")
        body = await request.body()
        stub.uploads.append({"name": name, "type": request.headers.get("content-type"), "body": body})
        if name == "taken":
            return error(403, "the name taken belongs to another author; choose another with --name")
        if name == "busy":
            return error(429, "too many uploads: at most 10 an hour", **{"Retry-After": "60"})
        stub.polls = 0
        return JSONResponse({"id": "s7", "status": "queued", "ahead": 1}, status_code=202)

    async def submission(request: Request) -> Response:
        if not authorised(request):
            return error(401, "unknown token")
        stub.polls += 1
        base = {"id": "s7", "bot": "ann-bot", "author": "ann", "message": None, "exit": None}
        if stub.polls == 1:
            return JSONResponse({**base, "status": "queued", "ahead": 1, "output": []})
        if stub.polls == 2:
            return JSONResponse({**base, "status": "checking", "output": CHECK_OUTPUT[:1]})
        return JSONResponse({**base, "status": "done", "output": CHECK_OUTPUT, "message": ENTERED, "exit": 0})

    async def bots(request: Request) -> Response:
        if not authorised(request):
            return error(401, "unknown token")
        return JSONResponse({"bots": [
            {"name": "ann-bot", "author": "ann", "versions": [
                {"key": "ann-bot@v1", "status": "retired", "submitted_at": "2026-12-01 20:00"},
                {"key": "ann-bot@v2", "status": "active", "submitted_at": "2026-12-01 21:00"}]},
            {"name": "Ann's Bot", "author": "ann", "versions": [
                {"key": "Ann's Bot@v1", "status": "active", "submitted_at": "2026-12-01 21:30"}]}]})

    async def logs(request: Request) -> Response:
        if not authorised(request):
            return error(401, "unknown token")
        name = request.path_params["name"]
        if name != "ann-bot":
            return error(403, f"{name} is another author's bot: its logs are theirs")
        return JSONResponse({"bot": name, "logs": [
            {"index": 12, "match": "m-0012", "seat": 1, "place": 2, "text": f"thinking\n{EVIL}\n"},
            {"index": 15, "match": "m-0015", "seat": 0, "place": 1, "text": "<b>not bold</b>"},
            {"index": 16, "match": "m-0016", "seat": 2, "place": 3, "text": ""}]})

    async def retire(request: Request) -> Response:
        if not authorised(request):
            return error(401, "unknown token")
        stub.retired.append(request.path_params["name"])
        return JSONResponse({"message": f"retired {request.path_params['name']}@v2: no longer scheduled, history kept"})

    return Starlette(routes=[
        Route("/submit.html", asset("submit.html", "text/html")),
        Route("/submit.js", asset("submit.js", "text/javascript")),
        Route("/submit.css", asset("submit.css", "text/css")),
        Route("/report.css", asset("../../site/assets/report.css", "text/css")),
        Route("/api/me", me),
        Route("/api/bots", upload, methods=["POST"]),
        Route("/api/bots", bots, methods=["GET"]),
        Route("/api/submissions/{id}", submission),
        Route("/api/bots/{name}/logs", logs),
        Route("/api/bots/{name}/retire", retire, methods=["POST"]),
    ])


@pytest.fixture(scope="module")
def served() -> Iterator[tuple[str, Stub]]:
    """The stub on a free port of 127.0.0.1, in a thread; its base address and its record."""
    stub = Stub()
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(stub_app(stub), host="127.0.0.1", port=port, log_level="error",
                                           lifespan="off"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    for _ in range(200):
        if server.started:
            break
        time.sleep(0.05)
    assert server.started, "the stub server did not start"
    yield f"http://127.0.0.1:{port}", stub
    server.should_exit = True
    thread.join(10)


@pytest.fixture
def page(browser: Browser, tmp_path: Path) -> Iterator[Page]:  # noqa: F811
    """A page on which no script error, console error or alert may happen; a confirm is accepted (retire). The
    browser's own note of an error status (the tests ask for 401, 403, 429) is not the page's error."""
    context = browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(ACTION_MS)
    page = context.new_page()
    errors: list[str] = []
    expected = "Failed to load resource: the server responded with a status of 4"
    page.on("console", lambda message: errors.append(f"console: {message.text}")
            if message.type == "error" and not message.text.startswith(expected) else None)
    page.on("pageerror", lambda error: errors.append(f"page error: {error}"))

    def dialog(d: Any) -> None:
        if d.type == "confirm":
            d.accept()
        else:
            errors.append(f"dialog: {d.type} {d.message}")
            d.dismiss()
    page.on("dialog", dialog)
    yield page
    if errors:
        page.screenshot(path=str(tmp_path / "errors.png"), full_page=True)
    context.close()
    assert errors == [], errors


def sign_in(page: Page, base: str) -> None:
    page.goto(f"{base}/submit.html")
    page.fill("#token-input", TOKEN)
    page.click("#token-save")
    expect(page.locator("#who")).to_have_text("ann")


def tar_gz(tmp_path: Path) -> Path:
    """A bot directory packed as an author's machine packs it: its files under one top folder."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for name, text in (("ann-bot/bot.yaml", "name: ann-bot\ncommand: python3 bot.py\n"),
                           ("ann-bot/bot.py", "print('hello')\n")):
            data = text.encode()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    path = tmp_path / "ann-bot.tar.gz"
    path.write_bytes(buffer.getvalue())
    return path


def test_the_token_is_kept_until_it_is_forgotten(page: Page, served: tuple[str, Stub]) -> None:
    base, stub = served
    sign_in(page, base)
    assert page.evaluate("localStorage.getItem('arena-token')") == TOKEN
    page.reload()
    expect(page.locator("#who")).to_have_text("ann")
    assert page.is_visible("#signed-in") and not page.is_visible("#sign-in")
    assert stub.seen_tokens[-1] == f"Bearer {TOKEN}"
    page.click("#forget")
    assert page.evaluate("localStorage.getItem('arena-token')") is None
    assert page.is_visible("#sign-in") and not page.is_visible("#signed-in")
    page.reload()
    assert page.is_visible("#sign-in")


def test_an_unknown_token_is_refused_in_one_line_and_not_kept(page: Page, served: tuple[str, Stub]) -> None:
    base, _ = served
    page.goto(f"{base}/submit.html")
    page.fill("#token-input", "wrong")
    page.click("#token-save")
    page.wait_for_selector("#error:not([hidden])")
    assert page.text_content("#error") == "401: unknown token: ask the organiser for yours (arena author add)"
    assert page.evaluate("localStorage.getItem('arena-token')") is None
    assert page.is_visible("#sign-in")


def test_an_upload_is_followed_from_the_queue_to_its_final_message(page: Page, served: tuple[str, Stub],
                                                                   tmp_path: Path) -> None:
    base, stub = served
    archive = tar_gz(tmp_path)
    sign_in(page, base)
    page.set_input_files("#file", str(archive))
    page.fill("#name", "ann-bot")
    page.click("#upload")
    expect(page.locator("#sub-state")).to_have_text("queued, 1 ahead")
    expect(page.locator("#sub-state")).to_have_text("checking", timeout=EXPECT_MS)
    assert page.text_content("#sub-output") == CHECK_OUTPUT[0]
    expect(page.locator("#sub-state")).to_have_text("done", timeout=EXPECT_MS)
    assert page.text_content("#sub-output") == "\n".join(CHECK_OUTPUT)
    assert page.text_content("#sub-message") == ENTERED
    assert page.get_attribute("#sub-message", "class") == "message ok"
    assert page.evaluate("getComputedStyle(document.getElementById('sub-message')).color") == "rgb(23, 102, 58)"
    sent = stub.uploads[-1]
    assert sent["body"] == archive.read_bytes()  # the archive's raw bytes, as the file holds them
    assert sent["type"] == "application/gzip" and sent["name"] == "ann-bot"
    assert stub.polls == 3  # it stopped asking once the check was done


def test_a_refused_upload_is_one_line(page: Page, served: tuple[str, Stub], tmp_path: Path) -> None:
    base, _ = served
    sign_in(page, base)
    page.set_input_files("#file", str(tar_gz(tmp_path)))
    page.fill("#name", "taken")
    page.click("#upload")
    page.wait_for_selector("#error:not([hidden])")
    assert page.text_content("#error") == "403: the name taken belongs to another author; choose another with --name"
    assert page.evaluate("document.getElementById('error').getClientRects().length") == 1  # one line
    page.fill("#name", "busy")
    page.click("#upload")
    expect(page.locator("#error")).to_have_text(re.compile(r"^429"))
    assert page.text_content("#error") == "429: too many uploads: at most 10 an hour (try again in 60 s)"
    (tmp_path / "notes.txt").write_text("not an archive\n")
    page.set_input_files("#file", str(tmp_path / "notes.txt"))
    page.click("#upload")
    expect(page.locator("#error")).to_have_text(re.compile(r"^notes\.txt"))
    assert "not a zip or a gzip-compressed tar" in (page.text_content("#error") or "")


def test_the_bot_list_links_the_report_and_shows_logs_as_text(page: Page, served: tuple[str, Stub]) -> None:
    base, stub = served
    sign_in(page, base)
    page.wait_for_selector("#bots tbody tr")
    rows = page.locator("#bots tbody tr")
    assert [rows.nth(i).get_attribute("data-bot") for i in range(rows.count())] == ["ann-bot", "Ann's Bot"]
    assert rows.nth(0).locator("td").nth(2).text_content() == "active"
    assert rows.nth(1).locator("td").nth(1).locator("a").first.get_attribute("href") == \
        "bots/" + safe_name("Ann's Bot@v1") + ".html"
    versions = rows.nth(0).locator("td").nth(1).text_content() or ""
    assert "ann-bot@v1" in versions and "retired" in versions and "ann-bot@v2" in versions
    rows.nth(0).locator("button.logs").click()
    page.wait_for_selector("#logs:not([hidden])")
    text = page.text_content("#logs-text") or ""
    assert EVIL in text and "<b>not bold</b>" in text and "== match m-0012 (#12, seat 1, place 2)" in text
    assert "m-0016" not in text  # a match it wrote nothing in: no empty header
    assert page.text_content("#logs-title") == "Logs of ann-bot (2 of 3 matches with something written)"
    assert [a.get_attribute("href") for a in page.query_selector_all("header nav a")] == [
        "index.html", "headtohead.html", "faults.html", "matches.html", "submit.html"]
    assert page.query_selector_all("main img") == [] and page.query_selector_all("#logs b") == []
    rows.nth(1).locator("button.logs").click()
    expect(page.locator("#error")).to_have_text(re.compile(r"^403"))
    assert page.text_content("#error") == "403: Ann's Bot is another author's bot: its logs are theirs"
    rows.nth(0).locator("button.retire").click()
    page.wait_for_selector("#notice:not([hidden])")
    assert page.text_content("#notice") == "retired ann-bot@v2: no longer scheduled, history kept"
    assert stub.retired == ["ann-bot"]


@pytest.mark.parametrize("name", ["ann-bot@v1", "Ann's Bot@v3", ".hidden", "...", "ünïcode bot", "a" * 80,
                                  "x/../../etc", "emoji \U0001F600 bot", "tab\tand\nnewline"])
def test_the_page_names_a_bots_report_page_as_the_report_does(page: Page, served: tuple[str, Stub],
                                                              name: str) -> None:
    base, _ = served
    page.goto(f"{base}/submit.html")
    page.wait_for_selector("#sign-in:not([hidden])")
    assert page.evaluate("name => window.ArenaSubmit.safeName(name)", name) == safe_name(name)
