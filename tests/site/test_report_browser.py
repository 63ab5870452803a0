"""The report's pages in a real browser (Playwright driving the system Chromium), from ``file://`` and
from ``arena serve``: sorting, the match list's filter and order, hostile names shown as text, live
reload, and a 10,000-match report usable at once.

Skipped without Chromium or Playwright, except in CI (``CI`` set), where they fail.
"""

from __future__ import annotations

import os
import shutil
import threading
import time
from pathlib import Path
from typing import Iterator

import pytest

from arena.site import chunks, data
from arena.site.build import build_report
from arena.site.serve import make_server

from .browser import Page, browser, page  # noqa: F401  (fixtures)
from .synthetic import add_match, synthetic_store


HOSTILE = '<img src=x onerror=alert(1)>"'
NAMES = ["alpha", HOSTILE, "o'neil", "foo@v2"]


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> tuple[Path, Path]:
    results = tmp_path_factory.mktemp("browser") / "results"
    synthetic_store(results, 260, NAMES, faulty=[HOSTILE], voided=0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(chunks, "CHUNK", 64)  # the match list in 5 chunks, the last one partly filled
        return results, build_report(results)


def column(page: Page, table: str, index: int) -> list[str]:
    return list(page.eval_on_selector_all(f"{table} tbody tr", f"rows => rows.map(r => r.cells[{index}].textContent)"))


def test_leaderboard_sorts_by_clicking_a_heading(page, site):
    results, out = site
    page.goto((out / "index.html").as_uri())
    rows = data.leaderboard_rows(data.compute(data.read_snapshot(results)).board)
    assert column(page, "table.board", 1) == [r["bot"] for r in rows]  # names as written, never as HTML
    page.click("table.board th:has-text('wins')")
    wins = [int(v) for v in column(page, "table.board", 7)]
    assert wins == sorted(wins)
    page.click("table.board th:has-text('wins')")
    assert [int(v) for v in column(page, "table.board", 7)] == sorted(wins, reverse=True)
    page.click("table.board th:has-text('95% rank')")  # by the best rank, then the worst, as numbers
    intervals = [tuple(int(end) for end in v.split("-")) for v in column(page, "table.board", 4)]
    assert intervals == sorted(intervals)
    page.click("table.board th:has-text('bot')")
    assert column(page, "table.board", 1) == page.evaluate(
        "names => names.slice().sort((a, b) => a.localeCompare(b))", [r["bot"] for r in rows])
    assert "sort0=1" in page.url


def test_match_list_filters_sorts_pages_and_links_to_the_viewer(page, site):
    results, out = site
    snapshot = data.read_snapshot(results)
    assert len(list((out / "data").glob("matches-*.js"))) == 5
    page.goto((out / "matches.html").as_uri())
    assert page.text_content("#match-count") == "260 matches"
    assert column(page, "#matches", 0) == [str(i) for i in range(259, 159, -1)]  # newest first, 100 a page
    page.select_option("#bot-filter", HOSTILE)
    mine = [r for r in snapshot.rows if HOSTILE in r["bots"]]
    assert page.text_content("#match-count") == f"{len(mine)} matches of {HOSTILE}"
    shown = column(page, "#matches", 0)
    assert shown == [str(r["idx"]) for r in reversed(mine)][:100]
    first = mine[-1]
    seat = first["bots"].index(HOSTILE)
    links = page.eval_on_selector_all("#matches tbody tr:first-child a", "as => as.map(a => a.getAttribute('href'))")
    assert links[0] == f"viewer.html#match={first['idx']}"
    assert f"viewer.html#match={first['idx']}&seat={seat}" in links
    assert "bot=%3Cimg" in page.url  # the filter is in the address, encoded
    page.click("#matches th[data-key=seconds]")
    seconds = [float(v) for v in column(page, "#matches", 5)]
    assert seconds == sorted(seconds, reverse=True)
    page.select_option("#bot-filter", "")
    page.click("#matches th[data-key=index]")
    page.click("#matches th[data-key=index]")  # ascending
    page.click("#pager button:has-text('next')")
    assert column(page, "#matches", 0)[0] == "100" and "page=1" in page.url
    page.reload()  # the address keeps filter, order and page
    assert column(page, "#matches", 0)[0] == "100"


def test_a_bot_page_link_opens_the_match_list_filtered(page, site):
    results, out = site
    page.goto((out / "bots" / f"{data.safe_name(HOSTILE)}.html").as_uri())
    assert page.text_content("h1") == HOSTILE
    assert "· 260 of 260 matches · 4 bots" in page.text_content("p.facts")  # from data/summary.js
    assert page.locator("svg.chart polyline.mu").count() == 1
    page.click("text=all")  # a link to matches.html: wait for that page to fill its count
    page.wait_for_function("(n) => (document.getElementById('match-count') || {}).textContent"
                           "?.endsWith('matches of ' + n)", arg=HOSTILE, timeout=120_000)


def _serving(results: Path) -> Iterator[tuple[str, Path]]:
    """``arena serve`` of ``results`` in a thread: its address and the results directory."""
    server, _ = make_server(results, "127.0.0.1", 0, interval=0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield f"http://{host}:{port}/", results
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def served(tmp_path) -> Iterator[tuple[str, Path]]:
    results = tmp_path / "results"
    synthetic_store(results, 20, ["alpha", "beta"], voided=0)
    yield from _serving(results)


def test_a_served_page_reloads_when_matches_arrive(page, served):
    base, results = served
    page.goto(base + "matches.html#sort=index&desc=1")
    assert page.text_content("#match-count") == "20 matches"
    add_match(results, 20, ["beta", "alpha"], [1, 2], deal="d-new", rotation=0)  # listed once its deal is whole
    add_match(results, 21, ["alpha", "beta"], [2, 1], deal="d-new", rotation=1)
    page.wait_for_function("document.getElementById('match-count').textContent === '22 matches'", timeout=120_000)
    assert column(page, "#matches", 0)[0] == "21" and "sort=index" in page.url


def test_a_served_bot_page_reloads_and_shows_the_new_count_when_matches_arrive(page, served):
    base, results = served  # its header's count is in data/summary.js, and so is the version it polls for
    page.goto(base + "bots/alpha.html")
    assert "· 20 of 20 matches · 2 bots" in page.text_content("p.facts")
    add_match(results, 20, ["beta", "alpha"], [1, 2], deal="d-new", rotation=0)
    page.wait_for_function("document.querySelector('p.facts').textContent.includes('21 of 20 matches, 1 withheld')",
                           timeout=120_000)


def test_ten_thousand_matches_are_usable_at_once(page, tmp_path):
    results = tmp_path / "big"
    synthetic_store(results, 10_000, [f"bot{i}" for i in range(8)], faulty=["bot7"])
    out = build_report(results)
    loaded = out / "index.html"
    assert loaded.stat().st_size + (out / "assets" / "report.js").stat().st_size < 2_000_000
    page.goto(loaded.as_uri())  # how fast: bench/report.py measures it (a test asserts no time)
    page.wait_for_selector("table.board tbody tr")
    assert page.locator("table.board tbody tr").count() == 8
    page.goto((out / "matches.html").as_uri())
    page.wait_for_function("document.getElementById('match-count').textContent === '10000 matches'")
    assert len(column(page, "#matches", 0)) == 100


TRACEBACK = ("player: thinking {n}\n" * 12 + "Traceback (most recent call last):\n"
             + '  File "bot.py", line {n}, in act\n    return choose(state["hel"])\n' * 5 + "KeyError: 'hel'\n")


def test_a_fault_shows_its_exception_line_first_and_its_whole_tail(page, tmp_path, monkeypatch):
    from . import synthetic

    monkeypatch.setattr(synthetic, "FAULT_TEXT", TRACEBACK)
    results = tmp_path / "results"
    synthetic_store(results, 40, ["alpha", "beta"], faulty=["alpha"], voided=0)
    out = build_report(results)
    page.goto((out / "faults.html").as_uri())
    fault = page.locator("details.fault:has(pre:has-text('Traceback'))").first  # the others: the log's end
    raised = fault.locator("code.raised")
    assert raised.is_visible() and raised.text_content() == "KeyError: 'hel'"  # before the entry is opened
    fault.locator("summary").click()
    pre = fault.locator("pre")
    assert (pre.text_content() or "").endswith("KeyError: 'hel'")
    # nothing of the tail is hidden in the box: its last line is on the screen once scrolled to
    assert pre.evaluate("e => e.scrollHeight <= e.clientHeight && e.scrollWidth <= e.clientWidth")


@pytest.fixture
def served_faults(tmp_path) -> Iterator[tuple[str, Path]]:
    results = tmp_path / "results"
    synthetic_store(results, 300, ["alpha", "beta", "gamma"], faulty=["alpha", "beta"], voided=0)
    yield from _serving(results)


def test_a_served_page_keeps_its_scroll_and_opened_entries_when_it_reloads(page, served_faults):
    base, results = served_faults
    page.goto(base + "faults.html")
    keys = page.eval_on_selector_all("details.fault > summary", "ss => ss.map(s => s.dataset.key)")
    assert len(keys) > 30 and len(set(keys)) == len(keys)
    for key in (keys[3], keys[20]):
        page.click(f'details.fault > summary[data-key="{key}"]', position={"x": 2, "y": 2})
    page.evaluate("window.scrollTo(0, 700); window.notReloaded = true")
    add_match(results, 300, ["beta", "alpha"], [1, 2], deal="d-new", rotation=0)
    add_match(results, 301, ["alpha", "beta"], [2, 1], deal="d-new", rotation=1)
    page.wait_for_function("window.notReloaded === undefined && document.readyState === 'complete'", timeout=120_000)
    page.wait_for_function("window.scrollY === 700", timeout=60_000)
    opened = page.eval_on_selector_all("details.fault[open] > summary", "ss => ss.map(s => s.dataset.key)")
    assert sorted(opened) == sorted([keys[3], keys[20]])


def test_a_bot_page_draws_its_latest_matches_as_the_match_list_does(page, tmp_path):
    """A bot page's latest matches come as a data block that report.js draws: newest first, the match opening the
    viewer, each seat's bot opening that seat's view, this bot's name in bold, a forfeit said, a hostile name
    shown as text."""
    hostile = '<img src=x onerror=alert(1)>'
    results = tmp_path / "results"
    synthetic_store(results, 70, ["alpha", hostile], voided=0)
    out = build_report(results)
    listed = {entry["index"]: entry for entry in data.match_list(data.read_snapshot(results))}
    page.goto((out / "bots" / "alpha.html").as_uri())
    rows = page.locator("#latest tbody tr")
    mine = sorted((i for i, e in listed.items() if "alpha" in e["bots"]), reverse=True)[:50]
    assert rows.count() == len(mine) == 50
    assert column(page, "#latest", 0) == [str(i) for i in mine]
    first = listed[mine[0]]
    assert rows.nth(0).locator("td").nth(1).locator("a").get_attribute("href") == f"../viewer.html#match={mine[0]}"
    seats = rows.nth(0).locator("td").nth(2).locator("a")
    assert [seats.nth(s).get_attribute("href") for s in range(len(first["bots"]))] == \
        [f"../viewer.html#match={mine[0]}&seat={s}" for s in range(len(first["bots"]))]
    assert [seats.nth(s).text_content() for s in range(len(first["bots"]))] == first["bots"]
    assert seats.nth(first["bots"].index("alpha")).get_attribute("class") == "self"
    places = ", ".join(f"({p}, {t}{', forfeited' if (first['forfeited'] or [False] * 9)[s] else ''})"
                       for s, (p, t) in enumerate(zip(first["places"], first["totals"])))
    assert all(part in (rows.nth(0).locator("td").nth(2).text_content() or "") for part in places.split(", ("))
    assert column(page, "#latest", 3)[0] == first["reason"] and column(page, "#latest", 4)[0] == str(first["faults"])
