"""A kit bot whose own code fails is kept in its matches by its helper: the results count it as a
``helper_fallback`` fault (leaderboard, faults page) without forfeiting it."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.site.build import build_report
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament

ROOT = Path(__file__).resolve().parents[2]


def test_helper_fallbacks_are_counted_on_the_leaderboard_and_the_faults_page(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache"))
    bot = tmp_path / "buggy"
    made = CliRunner().invoke(main, ["bot", "new", str(bot), "--lang", "python"])
    assert made.exit_code == 0, made.output
    source = (bot / "bot.py").read_text()
    (bot / "bot.py").write_text(source.replace('self.values[state["held"]]', 'self.values[state["hel"]]'))
    config = tmp_path / "league.yaml"
    config.write_text(f"name: league\nseats: 2\ncycles: 1\nseed: 5\nsandbox: none\nworkers: 1\n"
                      f"output: {tmp_path / 'out'}\nbots:\n  - {bot}\n  - {ROOT / 'bots' / 'random'}\n")
    summary = run_tournament(load_config(config), out=open(os.devnull, "w"))
    assert summary.played == 2 and summary.failed == 0

    board = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    standing = {s["bot"]: s for s in board["standings"]}
    assert standing["buggy"]["faults"] == {"helper_fallback": 2}  # one per match, however many decisions
    assert standing["buggy"]["forfeits"] == 0  # the helper's moves were legal: the matches went on
    assert standing["random"]["faults"] == {}

    report = build_report(tmp_path / "out")
    faults = (report / "faults.html").read_text()
    assert '<th data-type="num">helper_fallback</th>' in faults
    assert faults.count('<details class="fault">') == 2
    assert "<b>helper_fallback</b>" in faults and "its helper played legal index 0 instead" in faults
    assert "cabo-bot: fallback: act: KeyError: &#x27;hel&#x27;; sent legal index 0" in faults
