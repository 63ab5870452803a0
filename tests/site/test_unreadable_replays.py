"""A report is built even when some replays cannot be read: those matches are listed as unreadable."""

from __future__ import annotations

import gzip
import json
import random
import sqlite3
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.game import Match, make_rules
from arena.game.replay import replay_bytes
from arena.selfplay import play_random
from arena.site.blocks import all_frames
from arena.site.build import build_report
from arena.site.viewer import match_list

from .synthetic import synthetic_store


def _replay(seed: int) -> bytes:
    match = Match(make_rules("standard"), 2, seed)
    play_random(match, random.Random(seed))
    return gzip.compress(replay_bytes(match, {"match": f"m{seed}"}))


def _results(tmp_path: Path) -> Path:
    """Six stored matches (three whole deals, so none is withheld): 0, 2, 4 and 5 with good replays, 1 cut
    short, 3 not a replay at all."""
    results = tmp_path / "results"
    synthetic_store(results, 6, ["a", "b"], seats=(2,), voided=0)
    replays = results / "replays"
    for idx in (0, 2, 4, 5):
        (replays / f"{idx:06d}.jsonl.gz").write_bytes(_replay(idx))
    whole = _replay(1)
    (replays / "000001.jsonl.gz").write_bytes(whole[:len(whole) // 2])
    (replays / "000003.jsonl.gz").write_bytes(gzip.compress(b"[1, 2, 3]\n"))
    return results


def _listing(out: Path) -> dict[int, dict]:
    text = (out / "replays" / "index.js").read_text()
    return {m["idx"]: m for m in match_list(text)}


def test_a_report_lists_unreadable_replays_and_builds_the_rest(tmp_path):
    results = _results(tmp_path)
    notes: list[str] = []
    out = build_report(results, say=notes.append)
    listing = _listing(out)
    assert sorted(listing) == [0, 1, 2, 3, 4, 5]
    assert sorted(all_frames(out / "replays")) == [0, 2, 4, 5]
    assert listing[1]["unreadable"] == ("replays/000001.jsonl.gz: the gzip data ends early (the file was cut "
                                        "short); it cannot be read")
    assert listing[3]["unreadable"].startswith("replays/000003.jsonl.gz: line 1 is a JSON array, not an object")
    assert all("unreadable" not in listing[i] for i in (0, 2, 4, 5))
    assert str(tmp_path) not in (out / "replays" / "index.js").read_text()  # no server path in a public report
    assert len(notes) == 2 and notes[0].startswith("match 1 (m1/") and "replay unreadable: replays/000001" in notes[0]
    assert (out / "index.html").is_file() and (out / "matches.html").is_file()


def test_arena_report_prints_a_note_per_unreadable_replay_and_succeeds(tmp_path):
    results = _results(tmp_path)
    result = CliRunner().invoke(main, ["report", str(results)])
    assert result.exit_code == 0 and result.exception is None, result.output
    notes = [line for line in result.output.splitlines() if line.startswith("note: ")]
    assert len(notes) == 2, result.output
    assert notes[0].startswith("note: match 1 (m1/") and "replays/000001.jsonl.gz: the gzip data ends early" in notes[0]
    assert notes[1].startswith("note: match 3 (m3/") and "replays/000003.jsonl.gz: line 1 is a JSON array" in notes[1]
    assert all("the report shows the rest" in n for n in notes)
    assert "Traceback" not in result.output and "report: " in result.output
    (results / "replays" / "000001.jsonl.gz").write_bytes(_replay(1))  # restored: shown at the next build
    CliRunner().invoke(main, ["report", str(results)])
    assert "unreadable" not in _listing(results / "report")[1]
    assert 1 in all_frames(results / "report" / "replays")


def test_the_viewer_says_why_a_listed_replay_is_unreadable(tmp_path):
    from .browser import CHROMIUM, sync_playwright  # skips this module's browser part without Chromium

    out = build_report(_results(tmp_path))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM)
        try:
            page = browser.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto((out / "viewer.html").resolve().as_uri() + "#match=1")
            page.wait_for_selector("#message:not([hidden])")
            assert (page.text_content("#message") or "").startswith(
                "replay unreadable: replays/000001.jsonl.gz: the gzip data ends early")
            labels = page.eval_on_selector_all("#match option", "options => options.map(o => o.textContent)")
            assert [label.endswith("(replay unreadable)") for label in labels] == [False, True, False, True, False, False]
            page.goto((out / "viewer.html").resolve().as_uri() + "#match=2")
            page.wait_for_selector("#message", state="hidden")
            assert errors == []
        finally:
            browser.close()


def test_a_replay_path_outside_the_replays_directory_is_not_read(tmp_path):
    results = _results(tmp_path)
    secret = tmp_path / "secret.jsonl"
    secret.write_bytes(gzip.decompress(_replay(9)))  # a readable replay, but not the store's
    db = sqlite3.connect(results / "results.sqlite")
    with db:
        db.execute("UPDATE matches SET replay = '../secret.jsonl' WHERE idx = 0")
    db.close()
    listing = _listing(build_report(results))
    assert listing[0]["unreadable"] == "../secret.jsonl: not a file of the results directory's replays/"
    assert 0 not in all_frames(results / "report" / "replays")
