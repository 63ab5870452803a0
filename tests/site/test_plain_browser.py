"""The replay viewer shows a game it has no drawing for (Nim, ``tests/game/toy_game.py``) as text, in a real
browser: each seat's view is the JSON its bot was sent, the omniscient view the step's events, and the last
step the stored result. Skipped without Chromium or Playwright, as the other browser tests."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.site.blocks import all_frames
from arena.site.build import build_report
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from tests.game.toy_game import NIM

from .browser import Page, browser, page  # noqa: F401  (fixtures)

BOT = Path(__file__).resolve().parents[1] / "game" / "any_game_bot"


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    base = tmp_path_factory.mktemp("nim")
    for name in ("ann", "bob"):
        shutil.copytree(BOT, base / name, ignore=shutil.ignore_patterns("__pycache__"))
        (base / name / "bot.yaml").write_text((BOT / "bot.yaml").read_text().replace("anygame", name))
    path = base / "nim.yaml"
    path.write_text(f"name: nim\ngame: {NIM.name}\nrules: {{preset: normal, options: {{heap: 6}}}}\nseats: 2\n"
                    f"seed: 4\nsandbox: none\nworkers: 1\noutput: {base / 'out'}\nbots:\n  - {base / 'ann'}\n"
                    f"  - {base / 'bob'}\n")
    assert run_tournament(load_config(path), out=open(os.devnull, "w")).failed == 0
    return build_report(base / "out")


def frames(out: Path, match: int) -> dict[str, Any]:
    return dict(all_frames(out / "replays")[match])


def shown(page: Page, url: str, step: int) -> dict[str, Any]:
    page.goto(url)
    page.wait_for_function(f"window.ArenaViewer && window.ArenaViewer.state().step === {step}")
    return {"text": page.inner_text("#table pre.plain-view"), "status": page.inner_text("#status"),
            "scores": page.inner_text("#scores"), "log": page.eval_on_selector_all("#log .entry", "els => els.length")}


def test_a_seat_view_is_the_json_its_bot_was_sent(report, page):
    expected = frames(report, 0)
    for seat in (0, 1):
        seen = shown(page, f"{(report / 'viewer.html').as_uri()}#match=0&seat={seat}&step=1", 1)
        assert json.loads(seen["text"]) == expected["steps"][1]["views"][seat]
        assert "nim" in seen["status"] and json.dumps(expected["steps"][1]["action"][1], separators=(",", ":")) in seen["status"]
        assert seen["log"] == len(expected["steps"])


def test_the_omniscient_view_shows_the_events_and_the_last_step_the_result(report, page):
    expected = frames(report, 1)
    last = len(expected["steps"]) - 1
    seen = shown(page, f"{(report / 'viewer.html').as_uri()}#match=1&seat=all&step={last}", last)
    assert json.loads(seen["text"])["events"] == expected["steps"][last]["events"]
    result = expected["result"]
    assert seen["scores"].startswith(f"Final ({result['reason']})")
    assert f"{expected['bots'][0]}@0 {result['totals'][0]} (place {result['places'][0]})" in seen["scores"]
