"""The replay viewer in a real browser, used as a person would: Playwright driving the system Chromium.

Two small tournaments (standard with four seats, one bot forfeiting after an illegal move;
espanola with two seats) are played, the viewer is built from their results and opened
from ``file://``. The checks read what the page shows and compare it with the results
database and with observe(), called here on the match rebuilt from its replay.

Without Chromium (Debian package ``chromium``) or Playwright these tests are skipped,
except in CI (``CI`` set), where they fail. A failing test saves a screenshot of the
page and prints its path. ``ARENA_SCREENSHOTS=1`` also writes docs/images/viewer.png and report.png.
"""

from __future__ import annotations

import json
import os
import shutil
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.game import Match, make_rules
from arena.game.observe import events_for, observe
from arena.luck.replayed import measured
from arena.site.frames import build_frames, read_replay_file
from arena.site.viewer import build_viewer
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.store import ResultStore

from .browser import Page, browser, page  # noqa: F401  (fixtures)
from .test_frames import codes_in, expand

ROOT = Path(__file__).resolve().parents[2]


# ---------------------------------------------------------------- fixtures

def _tournament(directory: Path, preset: str) -> Path:
    if preset == "standard":
        rules, seats = "standard", 4
        bots = (f"  - {ROOT / 'bots' / 'random'}\n  - {ROOT / 'bots' / 'heuristic'}\n"
                f"  - {{name: random-2, path: {ROOT / 'bots' / 'random'}}}\n"
                f"  - {{name: illegal, command: /usr/bin/python3 {ROOT / 'tests' / 'bots' / 'fault_illegal.py'} 8}}\n")
    else:
        rules, seats = "{preset: espanola, options: {rounds: 3}}", 2
        bots = f"  - {ROOT / 'bots' / 'random'}\n  - {ROOT / 'bots' / 'heuristic'}\n"
    path = directory / f"{preset}.yaml"
    path.write_text(f"name: viewer-{preset}\nrules: {rules}\nseats: {seats}\ncycles: 1\nseed: 11\nsandbox: none\n"
                    f"workers: 2\nfault_policy: forfeit\noutput: {directory / preset}\nbots:\n{bots}")
    summary = run_tournament(load_config(path), out=open(os.devnull, "w"))
    assert summary.failed == 0
    return directory / preset


class Site:
    """A built viewer: its directory and the stored matches of its tournament."""

    def __init__(self, results: Path, out: Path) -> None:
        self.results, self.out = results, out
        store = ResultStore(results, readonly=True)
        try:
            self.rows = list(store.rows())
        finally:
            store.close()

    def url(self, match: int, seat: str | int = "all", step: int = 0) -> str:
        return f"{(self.out / 'viewer.html').as_uri()}#match={match}&seat={seat}&step={step}"

    def replay(self, match: int) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        row = next(r for r in self.rows if r["idx"] == match)
        return read_replay_file(self.results / row["replay"])


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Site]:
    base = tmp_path_factory.mktemp("viewer")
    out = {}
    for preset in ("standard", "espanola"):
        results = _tournament(base, preset)
        build_viewer(results, base / f"{preset}-site")
        out[preset] = Site(results, base / f"{preset}-site")
    return out


@contextmanager
def shot_on_failure(page: Page, tmp_path: Path, name: str) -> Iterator[None]:
    """Save a screenshot of the page when the block fails, and say where."""
    try:
        yield
    except BaseException:
        path = tmp_path / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)
        print(f"screenshot of the failing page: {path}")
        raise


def state(page: Page) -> dict[str, Any]:
    return dict(page.evaluate("window.ArenaViewer.state()"))


def open_at(page: Page, url: str, step: int) -> None:
    page.goto(url)
    page.wait_for_function(f"window.ArenaViewer && window.ArenaViewer.state().steps > 0 "
                           f"&& window.ArenaViewer.state().step === {step}")


def cards(page: Page) -> list[dict[str, Any]]:
    """Every card of the table as drawn: zone, seat, slot, face (up, down, empty) and code."""
    return list(page.eval_on_selector_all("#table .card", """els => els.map(e => ({
        zone: e.dataset.zone, seat: e.dataset.seat === undefined ? null : Number(e.dataset.seat),
        slot: e.dataset.slot === undefined ? null : Number(e.dataset.slot),
        holder: e.closest('.seat') ? Number(e.closest('.seat').dataset.seat) : null,
        face: e.dataset.face, card: e.dataset.card || null}))"""))


# ---------------------------------------------------------------- tests

def test_stepping_to_the_end_shows_the_stored_totals_and_places(sites, page, tmp_path):
    for preset, site in sites.items():
        for row in site.rows[:2]:
            with shot_on_failure(page, tmp_path, f"end-{preset}-{row['idx']}"):
                open_at(page, site.url(row["idx"]), 0)
                page.keyboard.press("ArrowRight")
                page.keyboard.press("ArrowRight")
                page.keyboard.press("ArrowLeft")
                assert state(page)["step"] == 1 and page.evaluate("location.hash").endswith("&step=1")
                page.click("#last")
                last = state(page)["steps"] - 1
                assert state(page)["step"] == last
                totals = [int(page.text_content(f'[data-total-seat="{s}"]') or "") for s in range(len(row["bots"]))]
                places = [int(page.text_content(f'[data-place-seat="{s}"]') or "") for s in range(len(row["bots"]))]
                assert totals == row["totals"] and places == row["places"]
                assert "Result" in (page.text_content("#log .entry.current.res") or "")
                forfeited = page.eval_on_selector_all("td.forfeited", "els => els.map(e => e.dataset.placeSeat)")
                assert [int(s) for s in forfeited] == [s for s, f in enumerate(row["forfeited"]) if f]
    assert any(any(r["forfeited"]) for r in sites["standard"].rows), "the fault bot should have forfeited"


def _sent_codes(match: Match, seat: int) -> set[str]:
    """Every card code seat was ever sent in the match so far (its states now and every event)."""
    codes = frozenset(match.codes)
    return codes_in(events_for(match, seat, 0), codes) | codes_in(observe(match, seat), codes)


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_a_seat_view_shows_face_up_exactly_the_cards_that_seat_was_sent(sites, page, tmp_path, preset):
    site = sites[preset]
    idx = site.rows[0]["idx"]
    header, records = site.replay(idx)
    steps = expand(build_frames(header, records))
    actions = [(r["seat"], r["action"]) for r in records if r["type"] == "action"]
    players = header["players"]
    chosen = [i for i, s in enumerate(steps) if s["k"] in ("deal", "play")]
    chosen = chosen[:: max(1, len(chosen) // 5)][:6] + [len(steps) - 1]
    for seat in range(players):
        for index in chosen:
            step = steps[index]
            match = Match(make_rules(header["rules"]["preset"], header["rules"]["options"]), players, header["seed"])
            for seat_action in actions[: step["n"]]:
                match.apply(*seat_action)
            with shot_on_failure(page, tmp_path, f"seat-{preset}-{seat}-step-{index}"):
                open_at(page, site.url(idx, seat, index), index)
                drawn = cards(page)
                hands = [c for c in drawn if c["zone"] == "hand"]
                if step["k"] == "reveal":  # the round_over event the seat was sent shows every card
                    over = [e for e in events_for(match, seat, 0) if e["type"] == "round_over"][-1]
                    for s in range(players):
                        up = [c["card"] for c in hands if c["seat"] == s and c["face"] == "up"]
                        assert up == over["hands"][s]
                    continue
                seen = observe(match, seat)
                assert len(hands) == sum(len(h) for h in seen["hands"])
                for c in hands:
                    known = seen["hands"][c["seat"]][c["slot"]]
                    if known is None:
                        assert c["face"] == "empty"
                    elif known == "?":
                        assert c["face"] == "down" and c["card"] is None
                    else:
                        assert c["face"] == "up" and c["card"] == known
                for c in drawn:
                    if c["zone"] == "held":
                        assert (c["face"] == "up") == (seen["held"] is not None and c["holder"] == seat)
                        assert c["card"] == (seen["held"] if c["face"] == "up" else None)
                    if c["zone"] == "discard":
                        assert c["card"] == (seen["discard"][-1] if seen["discard"] else None)
                    if c["zone"] == "deck":
                        assert c["face"] in ("down", "empty")
                logged = set(page.eval_on_selector_all("#log .entry:not(.future) .mini",
                                                       "els => els.map(e => e.dataset.card)"))
                assert logged <= _sent_codes(match, seat)


def test_the_link_opens_the_same_match_seat_and_step(sites, browser, page, tmp_path):
    site = sites["standard"]
    idx = site.rows[1]["idx"]
    with shot_on_failure(page, tmp_path, "link"):
        open_at(page, site.url(site.rows[0]["idx"]), 0)
        page.select_option("#match", str(idx))
        page.wait_for_function(f"window.ArenaViewer.state().match === '{idx}'")
        page.select_option("#seat", "2")
        for _ in range(7):
            page.click("#fwd")
        page.select_option("#round", "2")
        first_of_round_2 = state(page)["step"]
        page.click("#fwd")
        page.click("#fwd")
        href = page.get_attribute("#link", "href") or ""
        assert href == f"#match={idx}&seat=2&step={first_of_round_2 + 2}"
        assert page.evaluate("location.hash") == href
        here = cards(page)
        other = browser.new_page()
        try:
            open_at(other, page.url, first_of_round_2 + 2)
            assert state(other) == state(page) and cards(other) == here
            assert other.input_value("#seat") == "2"
        finally:
            other.close()
        # typing another link into the address bar (a hash change) opens that moment
        page.evaluate(f"location.hash = '#match={idx}&seat=all&step=3'")
        page.wait_for_function("window.ArenaViewer.state().step === 3 && window.ArenaViewer.state().seat === 'all'")
        assert all(c["face"] != "down" for c in cards(page) if c["zone"] == "hand")


def test_play_pause_and_the_slider(sites, page, tmp_path):
    site = sites["espanola"]
    with shot_on_failure(page, tmp_path, "play"):
        open_at(page, site.url(site.rows[0]["idx"], 1), 0)
        page.select_option("#speed", "80")
        page.click("#play")
        page.wait_for_function("window.ArenaViewer.state().step >= 3")
        page.click("#play")
        stopped = state(page)["step"]
        page.wait_for_timeout(250)
        assert state(page)["step"] == stopped
        page.fill("#slider", "5")
        assert state(page)["step"] == 5
        page.keyboard.press("End")
        assert state(page)["step"] == state(page)["steps"] - 1


def test_a_missing_replay_says_so(sites, browser, tmp_path):
    page = browser.new_page()
    try:
        page.goto(sites["espanola"].url(999))
        page.wait_for_selector("#message:not([hidden])")
        assert "no replay of match 999" in (page.text_content("#message") or "")
    finally:
        page.close()


def test_rebuilding_writes_only_the_blocks_that_changed(sites, tmp_path):
    from arena.game import framepack
    from arena.site import blocks
    from arena.site.frames import FORMAT

    site = sites["espanola"]
    first, second = site.rows[0]["idx"], site.rows[1]["idx"]
    assert blocks.block_of(first) == blocks.block_of(second)
    block = site.out / "replays" / blocks.block_name(blocks.block_of(first))
    stamp = block.stat().st_mtime_ns
    build_viewer(site.results, site.out)
    assert block.stat().st_mtime_ns == stamp  # nothing changed: not written again
    # a new build beside the old one (as the report builds) links the old block of the same matches
    fresh = tmp_path / "fresh"
    (fresh / "replays").mkdir(parents=True)
    build_viewer(site.results, fresh, reuse=site.out)
    assert (fresh / "replays" / block.name).stat().st_ino == block.stat().st_ino
    entries = blocks.read_block(block)
    made = {e.idx: e for e in entries}

    def old_build(name: str, kept: list[blocks.Entry]) -> Path:
        directory = tmp_path / name
        (directory / "replays").mkdir(parents=True)
        (directory / "replays" / block.name).write_text(blocks.encode(blocks.block_of(first), kept))
        return directory

    # a block that lacks a match keeps the lines it has (marked here, to tell them apart) and makes the other
    def changed(entry: blocks.Entry, match: str | None = None, **fields: str) -> blocks.Entry:
        values = {"deal": entry.deal if match is None else blocks.deal_key(match, "1"), "format": entry.format,
                  "line": entry.line, **fields}
        return blocks.Entry(entry.idx, values["deal"], values["format"], framepack.pack(values["line"]))

    marked = changed(made[first], line=made[first].line.replace('"format":', '"kept":1,"format":', 1))
    partial = old_build("partial", [marked])
    again = tmp_path / "again"
    build_viewer(site.results, again, reuse=partial)
    rebuilt = blocks.frames_in(again / "replays" / block.name)
    assert rebuilt[first]["kept"] == 1 and rebuilt[second] == json.loads(made[second].line)
    # ... but not another tournament's match with the same index, nor an older arena's frames of the same match
    other = changed(made[first], match="other", line='{"format":"x","match":"other"}')
    older = changed(marked, format="arena-viewer-frames/1", line=marked.line.replace(FORMAT, "arena-viewer-frames/1"))
    for name, kept in (("other", other), ("older", older)):
        newest = tmp_path / f"newest-{name}"
        build_viewer(site.results, newest, reuse=old_build(name, [kept, made[second]]))
        assert blocks.read_block(newest / "replays" / block.name) == entries


@pytest.mark.skipif(os.environ.get("ARENA_SCREENSHOTS") != "1",
                    reason="ARENA_SCREENSHOTS=1 writes docs/images/viewer.png and docs/images/report.png")
def test_readme_screenshots(sites, page, tmp_path):
    from arena.site.build import build_report

    site = sites["standard"]
    report = build_report(site.results, tmp_path / "report")
    page.set_viewport_size({"width": 1200, "height": 700})
    page.goto((report / "index.html").as_uri())
    page.wait_for_selector("table.board tbody tr")
    (ROOT / "docs" / "images").mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ROOT / "docs" / "images" / "report.png"))
    page.set_viewport_size({"width": 1400, "height": 900})
    idx = site.rows[0]["idx"]
    steps = expand(build_frames(*site.replay(idx)))
    mid = next(i for i, s in enumerate(steps) if s["r"] == 2 and s["k"] == "play" and s["held"] is not None
               and s["hs"] == 0) if any(s["r"] == 2 for s in steps) else len(steps) // 2
    open_at(page, site.url(idx, 0, mid), mid)
    target = ROOT / "docs" / "images" / "viewer.png"
    target.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(target))


def test_every_report_page_opens_without_errors_and_links_into_the_viewer(sites, page, tmp_path):
    """The whole generated report: every page loads without a console error, and a match link of the
    report opens that match in the viewer."""
    from arena.site.build import build_report

    site = sites["standard"]
    out = build_report(site.results, tmp_path / "report")
    pages = sorted(out.rglob("*.html"))
    assert out / "viewer.html" in pages and len(pages) > 2
    for path in pages:
        with shot_on_failure(page, tmp_path, f"page-{path.stem}"):
            page.goto(path.as_uri())
            page.wait_for_load_state("load")
    matches = out / "matches.html"
    with shot_on_failure(page, tmp_path, "report-link"):
        page.goto(matches.as_uri())
        link = page.locator('a[href*="viewer.html#match="]').first
        href = link.get_attribute("href") or ""
        wanted = href.split("#match=")[1].split("&")[0]
        link.click()
        page.wait_for_function(f"window.ArenaViewer && window.ArenaViewer.state().match === '{wanted}' "
                               "&& window.ArenaViewer.state().steps > 0")
        assert page.locator("#table .card").count() > 0


# ---------------------------------------------------------------- layout, addresses, fault links, serving

@pytest.fixture(scope="module")
def crowded(tmp_path_factory: pytest.TempPathFactory) -> Site:
    """Espanola with four random bots: their wrong claims give hands of a dozen slots and more."""
    base = tmp_path_factory.mktemp("crowded")
    random_bot = ROOT / "bots" / "random"
    path = base / "crowded.yaml"
    path.write_text("name: crowded\nrules: {preset: espanola, options: {rounds: 4}}\nseats: 4\ncycles: 1\nseed: 5\n"
                    f"sandbox: none\nworkers: 2\noutput: {base / 'results'}\nbots:\n"
                    + "".join(f"  - {{name: r{i}, path: {random_bot}}}\n" for i in range(4)))
    summary = run_tournament(load_config(path), out=open(os.devnull, "w"))
    assert summary.failed == 0
    build_viewer(base / "results", base / "site")
    return Site(base / "results", base / "site")


OUTSIDE = """() => {
  const box = document.getElementById('table').getBoundingClientRect();
  const out = Array.from(document.querySelectorAll('#table .card')).filter(c => {
    const r = c.getBoundingClientRect();
    return r.left < box.left || r.right > box.right || r.top < box.top || r.bottom > box.bottom; });
  const seats = Array.from(document.querySelectorAll('#table .seat')).map(s => s.getBoundingClientRect());
  let overlaps = 0;
  seats.forEach((a, i) => seats.slice(i + 1).forEach(b => {
    if (a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom) overlaps++; }));
  return {outside: out.length, overlaps: overlaps, cards: document.querySelectorAll('#table .card').length};
}"""


@pytest.mark.parametrize("width", [1400, 1920])
def test_long_hands_stay_on_the_table(crowded, page, tmp_path, width):
    """Penalty cards open new slots: a hand of a dozen cards and more wraps inside its seat, and no card
    lies outside the table or on another seat, in the omniscient view and in a seat's."""
    page.set_viewport_size({"width": width, "height": 900})
    row = crowded.rows[0]
    steps = expand(build_frames(*crowded.replay(row["idx"])))
    slots = [max(len(hand) for hand in step["h"]) for step in steps]
    assert max(slots) >= 10, "the test needs a crowded hand"
    crowded_steps = sorted(range(len(steps)), key=lambda i: -slots[i])[:8] + [len(steps) - 1]
    for index in crowded_steps:
        for seat in ("all", 1):
            with shot_on_failure(page, tmp_path, f"crowded-{width}-{index}-{seat}"):
                open_at(page, crowded.url(row["idx"], seat, index), index)
                drawn = page.evaluate(OUTSIDE)
                assert drawn["cards"] >= slots[index] and drawn["outside"] == 0 and drawn["overlaps"] == 0, drawn


@pytest.mark.parametrize("address,shown", [
    ("#seat=1.5", ("first", "all", 0)),
    ("#match={idx}&seat=1.5&step=2", ("idx", "all", 2)),
    ("#match={idx}&seat=-1&step=-3", ("idx", "all", 0)),
    ("#match={idx}&seat=9&step=2.5", ("idx", "all", 0)),
    ("#match=x&seat=1&step=1", ("first", "1", 1)),
    ("#match=__proto__&seat=constructor", ("first", "all", 0)),
    ("#match=%E0%A4%A&seat=%&step=%zz", ("first", "all", 0)),
    ("#match={idx}&seat=01&step=99999", ("idx", "1", "last")),
])
def test_a_bad_address_falls_back_to_the_defaults_quietly(sites, page, tmp_path, address, shown):
    """Whatever the address holds, the page shows a match: a value that is not what it should be is its
    default (the first match, the omniscient view, step 0), with no error and no message."""
    site = sites["standard"]
    idx = str(site.rows[1]["idx"])
    match = idx if shown[0] == "idx" else str(site.rows[0]["idx"])
    with shot_on_failure(page, tmp_path, "bad-address"):
        page.goto("about:blank")
        page.goto((site.out / "viewer.html").as_uri() + address.replace("{idx}", idx))
        page.wait_for_function("window.ArenaViewer && window.ArenaViewer.state().steps > 0")
        now = state(page)
        assert (now["match"], now["seat"]) == (match, shown[1])
        assert now["step"] == (now["steps"] - 1 if shown[2] == "last" else shown[2])
        assert page.locator("#table .card").count() > 0 and page.is_hidden("#message")


def test_a_fault_link_opens_the_step_of_that_fault(sites, page, tmp_path):
    """Faults are numbered by decision: the link of the faults page opens the step whose log holds that
    fault's line, with FAULT on its seat, as that seat saw it."""
    from arena.site.build import build_report

    site = sites["standard"]
    out = build_report(site.results, tmp_path / "report")
    with shot_on_failure(page, tmp_path, "fault-link"):
        page.goto((out / "faults.html").as_uri())
        link = page.locator("details.fault summary a[href*='viewer.html']").first
        href = link.get_attribute("href") or ""
        fields = dict(part.split("=") for part in href.split("#", 1)[1].split("&"))
        idx, seat, decision = int(fields["match"]), int(fields["seat"]), int(fields["decision"])
        frames = build_frames(*site.replay(idx))
        wanted = next(step for s, d, step in frames["faults"] if (s, d) == (seat, decision))
        assert wanted > 0
        link.click()
        page.wait_for_function(f"window.ArenaViewer && window.ArenaViewer.state().steps > 0 "
                               f"&& window.ArenaViewer.state().step === {wanted}")
        assert state(page)["seat"] == str(seat)
        assert page.locator(f'#table .seat[data-seat="{seat}"] .badge.fault').count() == 1
        current = page.eval_on_selector_all("#log .entry.current.fault", "els => els.map(e => e.textContent)")
        assert any(f"decision {decision}:" in text for text in current)
        assert page.evaluate("location.hash") == f"#match={idx}&seat={seat}&step={wanted}"


def test_one_replay_files_viewer_has_no_report_link(sites, page, tmp_path):
    """``arena replay FILE --html DIR`` has no report beside it: no link to one; a report's viewer has it."""
    from arena.site.viewer import build_single

    site = sites["espanola"]
    row = site.rows[0]
    single = build_single(site.results / row["replay"], tmp_path / "single")
    with shot_on_failure(page, tmp_path, "single"):
        open_at(page, single.as_uri() + "#match=0", 0)
        assert page.is_hidden("#home")
        open_at(page, site.url(row["idx"]), 0)
        assert page.is_visible("#home")


def test_the_served_viewer_takes_new_matches_and_keeps_its_place(sites, page, tmp_path):
    """Under ``arena serve`` the viewer lists the matches of a newer report without reloading: the match
    being studied, its view and step stay, and so does the page (a reload would stop a play)."""
    import threading

    from arena.site.serve import make_server

    from .synthetic import add_match

    results = tmp_path / "results"
    shutil.copytree(sites["espanola"].results, results, ignore=shutil.ignore_patterns("report"))
    rows = sites["espanola"].rows
    server, _ = make_server(results, "127.0.0.1", 0, interval=0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        idx = rows[0]["idx"]
        open_at(page, f"http://{host}:{port}/viewer.html#match={idx}&seat=1&step=4", 4)
        listed = page.locator("#match option").count()
        page.evaluate("window.notReloaded = true")
        after = max(r["idx"] for r in rows) + 1
        add_match(results, after, ["random", "heuristic"], [1, 2], deal="d-new", rotation=0)
        add_match(results, after + 1, ["heuristic", "random"], [2, 1], deal="d-new", rotation=1)
        page.wait_for_function(f"document.querySelectorAll('#match option').length === {listed + 2}", timeout=15_000)
        assert page.evaluate("window.notReloaded") is True
        assert state(page) == {"match": str(idx), "seat": "1", "step": 4, "steps": state(page)["steps"]}
        assert page.input_value("#match") == str(idx)
    finally:
        server.shutdown()
        server.server_close()


# ---------------------------------------------------------------- debugging: values, jumps, the finder

def test_hand_values_and_card_values_come_from_the_frames(sites, page, tmp_path):
    """The omniscient view shows every hand's value and the round's hands so far as the frames hold them
    (the engine's scoring); a seat's view shows no other hand's value. Face-up cards carry their value."""
    site = sites["espanola"]
    idx = site.rows[0]["idx"]
    frames = build_frames(*site.replay(idx))
    steps = expand(frames)
    index = next(i for i, s in enumerate(steps) if s["r"] == 2 and s["k"] == "play")
    with shot_on_failure(page, tmp_path, "values"):
        open_at(page, site.url(idx, "all", index), index)
        shown = [int((page.text_content(f'[data-hand-value="{s}"]') or "").split()[-1]) for s in range(2)]
        assert shown == steps[index]["hv"]
        assert [int(page.text_content(f'[data-now-seat="{s}"]') or "") for s in range(2)] == steps[index]["hv"]
        faces = page.eval_on_selector_all("#table .card.face", "els => els.map(e => [e.dataset.card, "
                                          "e.querySelector('.value').textContent])")
        assert faces and all(int(value) == frames["values"][code] for code, value in faces)
        open_at(page, site.url(idx, 0, index), index)
        assert page.locator("[data-hand-value]").count() == 0 and page.locator("[data-now-seat]").count() == 0


def test_jumping_to_the_next_and_previous_fault(sites, page, tmp_path):
    site = sites["standard"]
    row = next(r for r in site.rows if r["faults"])
    frames = build_frames(*site.replay(row["idx"]))
    at = sorted({step for _, _, step in frames["faults"]})
    assert at
    with shot_on_failure(page, tmp_path, "jump"):
        open_at(page, site.url(row["idx"]), 0)
        page.select_option("#kind", "fault")
        for wanted in at:
            page.click("#next-kind")
            assert state(page)["step"] == wanted
        page.click("#next-kind")  # none after the last: it says so and stays
        assert state(page)["step"] == at[-1] and "no fault after this step" in (page.text_content("#message") or "")
        page.click("#last")
        page.click("#prev-kind")
        assert state(page)["step"] == at[-1] and page.is_hidden("#message")
        page.select_option("#kind", "rd")  # round starts and ends: after the first deal, round 1 scored
        page.click("#first")
        page.click("#next-kind")
        assert state(page)["step"] == next(i for i, s in enumerate(frames["steps"]) if s["k"] == "reveal")


def test_the_finder_narrows_the_match_list_and_opens_a_match(sites, page, tmp_path):
    site = sites["standard"]
    rows = site.rows
    with shot_on_failure(page, tmp_path, "finder"):
        open_at(page, site.url(rows[0]["idx"]), 0)
        assert page.locator("#match option").count() == len(rows)
        page.fill("#find", "ILLEGAL heur")
        both = [r for r in rows if "illegal" in r["bots"] and "heuristic" in r["bots"]]
        values = page.eval_on_selector_all("#match option", "os => os.map(o => o.value)")
        assert set(values) - {str(rows[0]["idx"])} == {str(r["idx"]) for r in both if r["idx"] != rows[0]["idx"]}
        assert page.text_content("#found") == f"{len(both)} of {len(rows)} matches"
        target = rows[-1]["idx"]
        page.fill("#find", str(target))
        page.press("#find", "Enter")
        page.wait_for_function(f"window.ArenaViewer.state().match === '{target}'")
        page.fill("#find", "")
        assert page.locator("#match option").count() == len(rows) and page.input_value("#match") == str(target)


def test_the_omniscient_view_says_which_seat_knows_which_card(sites, page, tmp_path):
    """Under each card of the omniscient view, the seats that know it: exactly those to which observe(),
    called here on the match rebuilt from its replay, shows that card."""
    site = sites["standard"]
    idx = site.rows[0]["idx"]
    header, records = site.replay(idx)
    steps = expand(build_frames(header, records))
    actions = [(r["seat"], r["action"]) for r in records if r["type"] == "action"]
    players = header["players"]
    chosen = [i for i, s in enumerate(steps) if s["k"] == "play"][3::12][:5]
    assert chosen
    for index in chosen:
        match = Match(make_rules(header["rules"]["preset"], header["rules"]["options"]), players, header["seed"])
        for seat_action in actions[: steps[index]["n"]]:
            match.apply(*seat_action)
        seen = [observe(match, seat)["hands"] for seat in range(players)]
        with shot_on_failure(page, tmp_path, f"known-{index}"):
            open_at(page, site.url(idx, "all", index), index)
            drawn = page.eval_on_selector_all("#table .card[data-zone=hand]:not(.empty)", """els => els.map(e =>
                [Number(e.dataset.seat), Number(e.dataset.slot), e.querySelector('.known').dataset.known])""")
            assert drawn
            for s, slot, known in drawn:
                wanted = [t for t in range(players) if seen[t][s][slot] not in (None, "?")]
                assert known == ",".join(map(str, wanted)), (index, s, slot)


def test_each_seats_decision_times_of_the_match_are_shown(sites, page, tmp_path):
    """Under the scores, each seat's mean and slowest milliseconds a decision in this match, as stored with
    its results (a replay holds no times: it is the same bytes whenever the match is played again)."""
    site = sites["standard"]
    row = site.rows[0]
    with shot_on_failure(page, tmp_path, "timing"):
        open_at(page, site.url(row["idx"]), 0)
        for seat, stats in enumerate(row["stats"]):
            wanted = (f"{round(stats['think_ms'] / stats['decisions'], 1):g} ({round(stats['max_ms'], 1):g})"
                      if stats["decisions"] else "-")
            assert page.text_content(f'[data-ms-seat="{seat}"]') == wanted


def test_each_decisions_time_is_shown_at_its_step_and_the_slowest_are_found_by_a_jump(sites, page, tmp_path):
    """A step made by one action shows the time its bot took, as the results store kept it (not in the
    replay); a move the fallback policy chose shows none; the jump to the slowest decisions goes to the
    step of the slowest; a viewer of a bare replay file shows no times."""
    from arena.site.frames import SLOWEST
    from arena.site.viewer import build_single

    site = sites["standard"]
    row = next(r for r in site.rows if r["forfeited"] and any(r["forfeited"]))
    store = ResultStore(site.results, readonly=True)
    try:
        times = store.decision_times(row["idx"])
    finally:
        store.close()
    assert times is not None and len(times) == row["decisions"] and None in times
    header, records = site.replay(row["idx"])
    seats = [r["seat"] for r in records if r["type"] == "action"]
    steps = expand(build_frames(header, records))  # built without times: the steps themselves, not their ``t``
    single = [(i, steps[i - 1]["n"]) for i in range(1, len(steps))
              if steps[i]["k"] == "play" and steps[i]["n"] == steps[i - 1]["n"] + 1]
    timed = [(i, d) for i, d in single if times[d] is not None][::15][:4]
    untimed = [(i, d) for i, d in single if times[d] is None][:1]
    assert timed and untimed
    names = header["bots"]
    with shot_on_failure(page, tmp_path, "decision-times"):
        for index, decision in timed:
            open_at(page, site.url(row["idx"], "all", index), index)
            shown = page.eval_on_selector_all("#times .time", "els => els.map(e => [Number(e.dataset.seat), "
                                              "Number(e.dataset.ms), e.textContent])")
            seat = seats[decision]
            assert [s[:2] for s in shown] == [[seat, times[decision]]], (index, decision)
            assert f"{names[seat]}@{seat} thought {times[decision]:.1f} ms" in shown[0][2]
        index, decision = timed[0]  # a seat's view: its own times only, as its bot was told nothing of the others'
        open_at(page, site.url(row["idx"], seats[decision], index), index)
        own = page.eval_on_selector_all("#times .time", "els => els.map(e => Number(e.dataset.ms))")
        assert own == [times[decision]]
        open_at(page, site.url(row["idx"], (seats[decision] + 1) % len(names), index), index)
        assert page.locator("#times").count() == 0
        index, decision = untimed[0]
        open_at(page, site.url(row["idx"], "all", index), index)
        assert page.locator("#times").count() == 0
        slowest = {d for _, d in sorted((-ms, d) for d, ms in enumerate(times) if ms is not None)[:SLOWEST]}
        first = min(slowest)  # the earliest of the slowest is the first the jump finds
        open_at(page, site.url(row["idx"]), 0)
        page.select_option("#kind", "slow")
        page.click("#next-kind")
        at = state(page)["step"]
        assert steps[at - 1]["n"] <= first < steps[at]["n"]  # the step that shows its action
        marked = page.eval_on_selector_all("#times .time.slow", "els => els.map(e => Number(e.dataset.ms))")
        assert marked == [times[d] for d in range(steps[at - 1]["n"], steps[at]["n"]) if d in slowest]
        bare = build_single(site.results / row["replay"], tmp_path / "bare")
        open_at(page, bare.as_uri() + f"#match=0&seat=all&step={timed[0][0]}", timed[0][0])
        assert page.locator("#times").count() == 0


def test_every_step_of_every_view_draws_what_the_frames_say(sites, page, tmp_path):
    """The viewer writes out the frames' compact form itself (seat views against the true hands, numbers
    carried forward, names for seat marks): every step of a 4-seat match with a fault, in the omniscient
    view and in every seat's, draws exactly the hands, held card, hand values and log lines of the
    frames as the tests' own reading of their format gives them."""
    site = sites["standard"]
    row = next(r for r in site.rows if r["faults"])
    store = ResultStore(site.results, readonly=True)
    try:
        times = store.decision_times(row["idx"])
    finally:
        store.close()
    steps = expand(build_frames(*site.replay(row["idx"]), times))
    players = len(steps[0]["v"])
    shown_entries = """els => els.map(e => { const c = e.cloneNode(true);
        c.querySelectorAll('.mini').forEach(m => m.replaceWith('[' + m.dataset.card + ']')); return c.textContent; })"""
    for seat in ["all", *range(players)]:
        with shot_on_failure(page, tmp_path, f"every-step-{seat}"):
            open_at(page, site.url(row["idx"], seat), 0)
            for index, step in enumerate(steps):
                if index:
                    page.keyboard.press("ArrowRight")
                    page.wait_for_function(f"window.ArenaViewer.state().step === {index}")
                hands, held = (step["h"], step["held"]) if seat == "all" else step["v"][seat]
                drawn = cards(page)
                for c in drawn:
                    if c["zone"] == "hand":
                        known = hands[c["seat"]][c["slot"]]
                        face = "empty" if known is None else "down" if known == "?" else "up"
                        assert (c["face"], c["card"]) == (face, known if face == "up" else None), (seat, index, c)
                    if c["zone"] == "held" and step["held"] is not None:
                        mine = seat == "all" or c["holder"] == seat
                        assert c["card"] == (held if mine else None), (seat, index)
                assert sum(c["zone"] == "hand" for c in drawn) == sum(len(h) for h in hands)
                if seat == "all" and step["k"] != "reveal":
                    values = [int((page.text_content(f'[data-hand-value="{s}"]') or "").split()[-1])
                              for s in range(players)]
                    assert values == step["hv"], index
                texts = [e[1] if seat == "all" or len(e) == 2 or e[2][seat] == 1 else e[2][seat] for e in step["log"]]
                assert page.eval_on_selector_all("#log .entry.current", shown_entries) == \
                    [t for t in texts if t is not None], (seat, index)


def test_the_omniscient_view_shows_what_each_card_gave_and_no_seat_view_does(sites, page, tmp_path):
    """At a card drawn from the pile, the omniscient log says what it gave the drawer over the expected card, as
    the referee's meter measured it; at the end, each seat's luck over the match, as stored. The drawer's own
    view of the same step shows no luck at all: the terms read every hand and the deck."""
    site = sites["standard"]
    row = site.rows[0]
    header, records = site.replay(row["idx"])
    meter = measured(header, records)
    steps = expand(build_frames(header, records))
    store = ResultStore(site.results, readonly=True)
    try:
        stored = store.luck()[row["idx"]]  # what the worker's meter measured as the match was played
    finally:
        store.close()
    at = next(i for i, s in enumerate(steps) if s["hf"] == "deck" and s["held"] and "lu" in s and s["k"] == "play")
    drawer = steps[at]["hs"]
    event = next(e for e in meter.events if e.kind == "draw")
    term = event.terms[event.seat]
    with shot_on_failure(page, tmp_path, "luck"):
        open_at(page, site.url(row["idx"], "all", at), at)
        line = page.eval_on_selector_all("#log .entry.current.luck", "els => els.map(e => e.textContent)")
        said = "as expected" if round(term * 10) == 0 else \
            f"{abs(round(term * 10)) / 10:.1f} points {'worse' if term > 0 else 'better'} than the expected card"
        assert len(line) == 1 and f"{header['bots'][drawer]}@{drawer} drew" in line[0] and said in line[0], line
        page.keyboard.press("End")
        page.wait_for_function(f"window.ArenaViewer.state().step === {len(steps) - 1}")
        total = page.eval_on_selector_all("#log .entry.current.luck", "els => els.map(e => e.textContent)")
        assert total and total[-1].startswith("luck over the match") and all(
            f"{name}@{s} {round(stored[s] * 10) / 10:+.1f}" in total[-1] for s, name in enumerate(header["bots"]))
        open_at(page, site.url(row["idx"], drawer, at), at)
        assert page.locator("#log .entry.luck").count() == 0
