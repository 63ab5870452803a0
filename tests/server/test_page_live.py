"""Three authors and a real server beside a real ladder run: two submit through the command line, the third
through the authors' page in Chromium; each sees their own logs and is refused the others'; the public
report ranks all three and holds no line any of them wrote on stderr."""

from __future__ import annotations

import json
import re
from pathlib import Path

from arena.server.archive import pack
from arena.site.blocks import all_frames
from arena.site.build import is_public
from arena.site.withhold import held_back
from arena.tournament.store import ResultStore

from ..site.browser import CHROMIUM, browser, page  # noqa: F401  (the fixtures, and the skip without Chromium)
from playwright.sync_api import Page, expect  # after the skip above: without Playwright, skipped

from .live import ServerProcess, add_author, api, cli, copy_bot, wait_for, write_ladder


def test_a_third_author_submits_through_the_page_and_all_three_are_ranked(page: Page, tmp_path: Path) -> None:
    ladder = write_ladder(tmp_path)
    tokens = {name: add_author(ladder, name) for name in ("ann", "bob", "cid")}
    server = ServerProcess(ladder, tmp_path / "server.log")
    try:
        home = tmp_path / "authors"
        for name in ("ann", "bob"):
            bot = copy_bot(home / name, name, stderr=f"{name} writes this to stderr")
            code, out, err = cli("submit", "--server", server.url, "--token", tokens[name], str(bot))
            assert code == 0 and out.splitlines()[-1] == f"entered {name}@v1", out + err
        archive = tmp_path / "cid.tar.gz"
        archive.write_bytes(pack(copy_bot(home / "cid", "cid", stderr="cid writes this to stderr")))

        answer = page.goto(f"{server.url}/submit.html")
        assert answer is not None and "default-src 'self'" in answer.headers["content-security-policy"]
        page.fill("#token-input", tokens["cid"])
        page.click("#token-save")
        expect(page.locator("#who")).to_have_text("cid")
        page.set_input_files("#file", str(archive))
        page.click("#upload")
        expect(page.locator("#sub-state")).to_have_text("done", timeout=600_000)
        assert page.text_content("#sub-message") == "entered cid@v1"
        assert page.get_attribute("#sub-message", "class") == "message ok"

        code, out, err = cli("run", str(ladder), "--matches", "24", "--no-report")
        assert code == 0, out + err

        page.reload()
        page.wait_for_selector("#bots tbody tr[data-bot='cid']")
        page.locator("#bots tbody tr[data-bot='cid'] button.logs").click()
        page.wait_for_selector("#logs:not([hidden])")
        expect(page.locator("#logs-text")).to_contain_text("cid writes this to stderr")
        assert "ann writes" not in (page.text_content("#logs-text") or "")
        for other in ("ann", "bob"):
            assert api(server.url, tokens["cid"], "GET", f"/api/bots/{other}/logs")[0] == 403
            assert api(server.url, tokens[other], "GET", "/api/bots/cid/logs")[0] == 403

        store = ResultStore(tmp_path / "out", readonly=True)
        try:  # a table the run left to finish counts on the public board once its deal is played out
            whole = 24 - held_back(store)
        finally:
            store.close()

        def rebuilt() -> bool:  # the server rebuilds its report within seconds of the run's last match
            status, version, _ = api(server.url, None, "GET", "/version.json")
            return status == 200 and version["matches"] == whole
        wait_for(f"the public report of the {whole} matches whose deals are played out", rebuilt, 600)
        status, index, _ = api(server.url, None, "GET", "/")
        assert status == 200 and all(f"{n}@v1" in index for n in ("ann", "bob", "cid"))
        # each played its placement matches: ranked, not listed with a status after the ranked rows
        assert '<span class="status">' not in index and ">placement</td>" not in index
        assert all(re.search(rf'<tr><td data-v="\d">\d</td><td data-v="{n}@v1">', index) for n in ("ann", "bob", "cid"))
        for path in ("/faults.html", "/matches.html", "/bots/cid@v1.html"):
            status, text, _ = api(server.url, None, "GET", path)
            assert status == 200 and "writes this to stderr" not in text, path
        public = tmp_path / "out" / "public"
        assert is_public(public)
        frames = json.dumps(all_frames(public / "replays"))  # every match the public viewer can show
        assert frames != "{}" and "writes this to stderr" not in frames
        assert "writes this to stderr" not in "".join(p.read_text(errors="replace") for p in public.rglob("*")
                                                      if p.is_file())
    finally:
        server.stop()
