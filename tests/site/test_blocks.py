"""The viewer's blocks of frames (arena/site/blocks.py): what goes in comes out, a damaged block is one
line and is made anew, a match past the first block opens in the browser."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path

import pytest

from arena.game import Match, make_rules
from arena.game.replay import replay_bytes
from arena.selfplay import play_random
from arena.game import framepack
from arena.site import blocks
from arena.game.cabo_frames import NEAR
from arena.site.frames import FORMAT, SLOWEST, frames_for_file
from arena.site.viewer import build_single, build_viewer

from .synthetic import synthetic_store

ASSETS = Path(__file__).resolve().parents[2] / "arena" / "site" / "assets"


def _entry(idx: int, line: dict[str, object]) -> blocks.Entry:
    return blocks.Entry.of(idx, f"m{idx}", f"1/{idx}", FORMAT, blocks.frames_line(line))


def test_a_block_gives_back_each_match_as_it_was_written():
    written = {idx: {"idx": idx, "log": [["ev", f"caf\u00e9 </script><b>{idx}</b>\nline two"]]} for idx in (3, 1, 2)}
    text = blocks.encode(0, [_entry(idx, line) for idx, line in written.items()])
    assert text.startswith(blocks.PREFIX) and "</" not in text  # "</script>" cannot end an inlined script
    head = blocks.parse_head(text, "b0.js")
    assert [m[0] for m in head["matches"]] == [1, 2, 3] and head["block"] == 0
    assert {e.idx: json.loads(e.line) for e in blocks.entries_of(head, "b0.js")} == written


@pytest.mark.parametrize("text, why", [
    ("window.ARENA_REPLAY = {};\n", "not a block of replays (it does not start with window.ARENA_BLOCK ="),
    (blocks.PREFIX + "{nope;\n", "not a block of replays (Expecting property name"),
    (blocks.PREFIX + '{"format":"arena-viewer-block/0","matches":[]};\n', "not a block of replays in the format"),
    (blocks.PREFIX + '{"format":"%s","block":0,"packing":"%s","formats":["f"],"matches":[[0,"k",0,2]],"data":".."};\n'
     % (blocks.BLOCK_FORMAT, framepack.packing()), "its data does not decode"),
    (blocks.PREFIX + '{"format":"%s","block":0,"packing":"%s","formats":["f"],"matches":[[0,"k",0,8]],"data":"AAAA"};\n'
     % (blocks.BLOCK_FORMAT, framepack.packing()), "its data does not decode (match 0's 8 characters run past"),
    (blocks.PREFIX + '{"format":"%s","block":0,"packing":"%s","formats":["f"],"matches":[[0,"k",0,4]],"data":"AAAABBBB"};\n'
     % (blocks.BLOCK_FORMAT, framepack.packing()), "4 characters of data that no listed match holds"),
    (blocks.PREFIX + '{"format":"%s","block":0,"packing":"%s","formats":["f"],"matches":[[0,"k",3,4]],"data":"AAAA"};\n'
     % (blocks.BLOCK_FORMAT, framepack.packing()), "its data does not decode (its list of matches does not read"),
    (blocks.PREFIX + '{"format":"%s","block":0,"packing":"deflate-dictionary/0","formats":[],"matches":[],"data":""};\n'
     % blocks.BLOCK_FORMAT, "packed against another dictionary than this arena's; it is made anew"),
])
def test_a_damaged_block_is_one_line_naming_the_file(tmp_path, text, why):
    path = tmp_path / "b0.js"
    path.write_text(text)
    with pytest.raises(blocks.BlockError) as caught:
        blocks.read_block(path)
    assert str(caught.value).startswith(f"{path}: {why}") and "\n" not in str(caught.value)


def test_the_viewer_and_the_builder_agree_on_the_block_size():
    found = re.search(r"var BLOCK = (\d+);", (ASSETS / "viewer.js").read_text())
    assert found and int(found.group(1)) == blocks.BLOCK


def test_the_viewer_and_the_frames_agree_on_what_is_slow_against_the_limit():
    found = re.search(r"function nearLimit\(ms, move\) \{ return .* Number\(ms\) >= ([0-9.]+) \* move; \}",
                      (ASSETS / "viewer.js").read_text())
    assert found and float(found.group(1)) == NEAR


def test_the_viewer_and_the_frames_agree_on_how_many_slow_decisions_are_marked():
    """The viewer writes a slow decision's line out itself, naming how many the match marks."""
    found = re.search(r"var SLOWEST = (\d+);", (ASSETS / "viewer.js").read_text())
    assert found and int(found.group(1)) == SLOWEST


def _results(tmp_path: Path, matches: int) -> Path:
    results = tmp_path / "results"
    synthetic_store(results, matches, ["a", "b"], seats=(2,), voided=0)
    for idx in range(matches):
        match = Match(make_rules("standard"), 2, idx)
        play_random(match, random.Random(idx))
        (results / "replays" / f"{idx:06d}.jsonl").write_bytes(replay_bytes(match, {"match": f"m{idx}"}))
    import sqlite3

    db = sqlite3.connect(results / "results.sqlite")
    with db:
        db.execute("UPDATE matches SET replay = 'replays/' || printf('%06d', idx) || '.jsonl'")
    db.close()
    return results


def test_a_damaged_block_of_an_earlier_build_is_made_anew(tmp_path):
    results = _results(tmp_path, 4)
    first = tmp_path / "first"
    build_viewer(results, first)
    good = (first / "replays" / "b0.js").read_text()
    (first / "replays" / "b0.js").write_text(good[:len(good) // 2])  # cut short
    again = tmp_path / "again"
    assert build_viewer(results, again, reuse=first) == []
    assert (again / "replays" / "b0.js").read_text() == good
    assert sorted(blocks.all_frames(again / "replays")) == [0, 1, 2, 3]


def test_many_matches_are_made_in_workers_as_in_one_process(tmp_path, monkeypatch):
    from arena.site import viewer

    results = _results(tmp_path, 10)
    monkeypatch.setattr(blocks, "BLOCK", 4)  # three blocks
    monkeypatch.setattr(viewer, "POOL_FROM", 2)  # ... made in a pool
    making = viewer.start_viewer(results, tmp_path / "pooled")
    assert making.pool is not None
    making.finish()
    making.close()
    monkeypatch.setattr(viewer, "POOL_FROM", 1000)
    build_viewer(results, tmp_path / "alone")
    for name in ("b0.js", "b1.js", "b2.js"):
        assert (tmp_path / "pooled" / "replays" / name).read_bytes() == (tmp_path / "alone" / "replays" / name).read_bytes()
    frames = blocks.all_frames(tmp_path / "pooled" / "replays")
    assert sorted(frames) == list(range(10))
    assert frames[7] == frames_for_file(results / "replays" / "000007.jsonl")


def test_a_match_of_a_later_block_opens_in_the_viewer(tmp_path):
    from .browser import CHROMIUM, sync_playwright  # skips this test without Chromium

    match = Match(make_rules("standard"), 2, 5)
    play_random(match, random.Random(5))
    replay = tmp_path / "m.jsonl"
    replay.write_bytes(replay_bytes(match, {"match": "late"}))
    idx = 2 * blocks.BLOCK + 7
    page_path = build_single(replay, tmp_path / "site", idx=idx)
    assert [p.name for p in (tmp_path / "site" / "replays").glob("b*.js")] == ["b2.js"]
    steps = len(frames_for_file(replay)["steps"])
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(page_path.as_uri() + f"#match={idx}&step=3")
            page.wait_for_function("window.ArenaViewer.state().steps > 0")
            assert page.evaluate("window.ArenaViewer.state()") == {"match": str(idx), "seat": "all", "step": 3,
                                                                   "steps": steps}
            page.goto(page_path.as_uri() + f"#match={idx + 1}")
            page.wait_for_selector("#message:not([hidden])")
            assert page.text_content("#message") == f"no replay of match {idx + 1} here (replays/b2.js)"
            assert errors == []
        finally:
            browser.close()


def test_a_viewer_without_its_packing_or_with_another_says_so(tmp_path):
    """Every block continues the dictionary of ``replays/packing.js``: without that file, or with one of another
    arena version's packing, the viewer says what to do instead of showing a match it cannot inflate."""
    from .browser import CHROMIUM, sync_playwright  # skips this test without Chromium

    match = Match(make_rules("standard"), 2, 5)
    play_random(match, random.Random(5))
    replay = tmp_path / "m.jsonl"
    replay.write_bytes(replay_bytes(match, {"match": "m"}))
    page_path = build_single(replay, tmp_path / "site")
    packing = tmp_path / "site" / "replays" / blocks.PACKING_FILE
    assert packing.read_text() == blocks.packing_script()
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            for text, said in ((None, "replays/packing.js is missing: build the report again"),
                               (blocks.packing_script().replace(framepack.packing(), "deflate-dictionary/0"),
                                "packed by another version of the arena than replays/packing.js")):
                if text is None:
                    packing.unlink()
                else:
                    packing.write_text(text)
                page = browser.new_page()  # a page of its own: nothing of the last one's scripts kept
                page.goto(page_path.as_uri() + "#match=0")
                page.wait_for_selector("#message:not([hidden])")
                assert said in (page.text_content("#message") or "")
                assert page.evaluate("window.ArenaViewer.state().steps") == 0
        finally:
            browser.close()


def _alive(pid: int) -> bool:
    """True if ``pid`` runs (a zombie, dead but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def _workers_of(pid: int) -> list[int]:
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
            command = (stat.parent / "cmdline").read_bytes()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid and b"spawn_main" in command:
            out.append(int(stat.parent.name))
    return out


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc to find the workers")
def test_the_workers_of_a_build_that_is_killed_end_with_it(tmp_path):
    """A background build is killed when a run stops (arena/site/refresh.py): its workers must not go on."""
    import subprocess
    import sys
    import time

    results = _results(tmp_path, 300)
    code = ("import arena.site.viewer as v; v.POOL_FROM = 2; v.blocks.BLOCK = 16; "
            f"v.build_viewer({str(results)!r}, {str(tmp_path / 'out')!r})")
    # stderr: the killed build's resource tracker says it cleans up the semaphores the build left
    build = subprocess.Popen([sys.executable, "-c", code], stderr=subprocess.DEVNULL)
    workers: list[int] = []
    deadline = time.monotonic() + 60
    while not workers and build.poll() is None and time.monotonic() < deadline:
        workers = _workers_of(build.pid)
        time.sleep(0.02)
    assert workers, "the build made no workers"
    build.kill()
    build.wait()
    deadline = time.monotonic() + 120
    while any(map(_alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(map(_alive, workers)), "a worker outlived the build"


def test_a_block_cut_short_is_told_by_its_header_alone(tmp_path):
    path = tmp_path / "b0.js"
    noise = "%x" % random.Random(1).getrandbits(20000)  # does not compress: the data is most of the file
    text = blocks.encode(0, [_entry(0, {"idx": 0, "log": [noise]})])
    path.write_text(text)
    assert blocks.listed(blocks.read_head(path)) == [(0, blocks.deal_key("m0", "1/0"), FORMAT)]
    path.write_text(text[:-100])
    with pytest.raises(blocks.BlockError, match="cut short or grown: its size is not the one its header gives"):
        blocks.read_head(path)


def test_a_served_viewer_takes_a_block_again_when_it_gained_a_match(tmp_path):
    """Served live, a match stored after the viewer read its block is found in that block's new version."""
    import sqlite3
    import threading

    from arena.site.serve import make_server

    from .browser import CHROMIUM, sync_playwright  # skips this test without Chromium

    results = _results(tmp_path, 6)
    db = sqlite3.connect(results / "results.sqlite")
    last = db.execute("SELECT * FROM matches WHERE idx = 5").fetchone()
    with db:
        db.execute("DELETE FROM matches WHERE idx = 5")  # match 4's deal is not whole: withheld
    server, report = make_server(results, "127.0.0.1", 0, interval=0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM)
            try:
                page = browser.new_page()
                page.goto(f"http://{host}:{port}/viewer.html#match=0")
                page.wait_for_function("window.ArenaViewer.state().steps > 0")
                page.wait_for_function("document.querySelectorAll('#match option').length === 4")  # 0 to 3
                with db:
                    db.execute(f"INSERT INTO matches VALUES ({', '.join('?' * len(last))})", last)  # the deal is whole
                page.wait_for_function("document.querySelectorAll('#match option').length === 6", timeout=30_000)
                page.evaluate("location.hash = '#match=5'")
                page.wait_for_function("window.ArenaViewer.state().match === '5' && window.ArenaViewer.state().steps > 0")
                assert page.is_hidden("#message")
            finally:
                browser.close()
    finally:
        server.shutdown()
        server.server_close()
        db.close()


def test_blocks_from_the_frames_stored_with_the_matches_are_those_made_from_their_replays(tmp_path, monkeypatch):
    """A run with a report has each match's frames made as it is played; the report copies them. Its blocks are
    byte for byte those made from the replays, and frames packed otherwise (another arena's dictionary) are
    made anew from the replay."""
    import sqlite3

    from .played import play

    results = play(tmp_path / "played", "espanola")
    db = sqlite3.connect(results / "results.sqlite")
    stored = db.execute("SELECT COUNT(*) FROM frames").fetchone()[0]
    assert stored == db.execute("SELECT COUNT(*) FROM matches").fetchone()[0] > 0
    from arena.site import viewer

    def unread(*args: object, **kwargs: object) -> None:
        raise AssertionError("a replay was read: the stored frames were not used")

    with monkeypatch.context() as patched:
        patched.setattr(viewer, "frames_for_file", unread)
        assert build_viewer(results, tmp_path / "copied") == []
    with db:
        db.execute("UPDATE frames SET packing = 'deflate-dictionary/0' WHERE idx % 2 = 0")
    build_viewer(results, tmp_path / "half")
    with db:
        db.execute("DELETE FROM frames")
    db.close()
    build_viewer(results, tmp_path / "made")
    names = sorted(p.name for p in (tmp_path / "made" / "replays").glob("b*.js"))
    assert names
    for name in names:
        made = (tmp_path / "made" / "replays" / name).read_bytes()
        assert (tmp_path / "copied" / "replays" / name).read_bytes() == made
        assert (tmp_path / "half" / "replays" / name).read_bytes() == made
