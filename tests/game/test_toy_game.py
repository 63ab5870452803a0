"""A second game through the same code as Cabo: Nim (``toy_game.py``) plays a round robin, a ladder and a
report, its bots knowing nothing but the protocol. Nothing outside the toy module and its registry entry
knows Nim; if one of these fails, something in the arena still assumes Cabo."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game.registry import DEFAULT_GAME, UnknownGame, game_named, games
from arena.site.blocks import all_frames
from arena.site.build import build_report
from arena.tournament.config import ConfigError, load_config
from arena.tournament.driver import run_tournament

from .toy_game import NIM

BOT = Path(__file__).resolve().parent / "any_game_bot"


def bots(tmp_path: Path, *names: str) -> list[Path]:
    """Copies of the any-game bot, one per name."""
    made = []
    for name in names:
        target = tmp_path / "bots" / name
        shutil.copytree(BOT, target, ignore=shutil.ignore_patterns("__pycache__"))
        manifest = target / "bot.yaml"
        manifest.write_text(manifest.read_text().replace("name: anygame", f"name: {name}"))
        made.append(target)
    return made


def write(tmp_path: Path, name: str, lines: list[str], field: list[Path]) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join([f"name: {name}", "game: nim", "seed: 7", "sandbox: none", "workers: 2",
                               "time: {move_ms: 2000, startup_ms: 10000}", f"output: {tmp_path / name}", *lines,
                               "bots:", *[f"  - {bot}" for bot in field]]) + "\n")
    return path


def stored(output: Path) -> list[tuple[list[str], list[int], list[int]]]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return [(json.loads(b), json.loads(t), json.loads(p))
                for b, t, p in db.execute("SELECT bots, totals, places FROM matches ORDER BY idx")]
    finally:
        db.close()


def test_nim_is_registered_beside_cabo():
    assert games()[0] == DEFAULT_GAME == "cabo" and "nim" in games() and game_named("nim") is NIM


def test_an_unknown_game_name_says_which_are_known():
    with pytest.raises(UnknownGame, match=r"unknown game 'nimm' \(did you mean 'nim'\?\); expected one of cabo"):
        game_named("nimm")


def test_a_round_robin_of_nim(tmp_path):
    config = load_config(write(tmp_path, "rr", ["seats: [2, 3]", "rules: {preset: normal, options: {heap: 9}}"],
                               bots(tmp_path, "ann", "bob", "cat")))
    assert config.game == "nim" and config.describe()["game"] == "nim"
    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert summary.failed == 0 and summary.played > 0
    rows = stored(tmp_path / "rr")
    assert len(rows) == summary.played
    for names, totals, places in rows:
        assert sorted(totals) == [0] + [1] * (len(names) - 1)  # one winner took the last stone
        assert places == [1 if total == 0 else 2 for total in totals]
    board = json.loads((tmp_path / "rr" / "leaderboard.json").read_text())
    assert {row["bot"] for row in board["standings"]} == {"ann", "bob", "cat"}
    replay = next((tmp_path / "rr" / "replays").iterdir())
    header, *records = [json.loads(line) for line in gzip.decompress(replay.read_bytes()).splitlines()]
    assert header["game"] == "nim" and header["rules"] == {"preset": "normal", "options": {"heap": 9, "most": 3}}
    taken = sum(r["action"]["stones"] for r in records if r["type"] == "action")
    assert taken == 9 and records[-1]["type"] == "result"


def test_a_ladder_of_nim(tmp_path):
    ann, bob, cat = bots(tmp_path, "ann", "bob", "cat")
    path = write(tmp_path, "lad", ["schedule: ladder", "seats: [2, 3]", "placement_matches: 2",
                                   "unsandboxed_builds: true"], [ann, bob])
    submitted = CliRunner().invoke(main, ["submit", str(path), str(cat)])  # checked at Nim's tables first
    assert submitted.exit_code == 0 and "normal: " in submitted.output, submitted.output
    result = CliRunner().invoke(main, ["run", str(path), "--matches", "9"])
    assert result.exit_code == 0, result.output
    rows = stored(tmp_path / "lad")
    assert len(rows) == 9 and {name for names, _, _ in rows for name in names} == {"ann@v1", "bob@v1", "cat@v1"}
    assert all(sorted(totals) == [0] + [1] * (len(totals) - 1) for _, totals, _ in rows)
    ladder = json.loads((tmp_path / "lad" / "ladder.json").read_text())
    assert ladder  # the ladder's board is written for Nim as for Cabo


def test_the_report_of_nim_shows_its_matches_as_text_frames(tmp_path):
    config = load_config(write(tmp_path, "rep", ["seats: 2", "rules: {preset: normal, options: {heap: 5}}"],
                               bots(tmp_path, "ann", "bob")))
    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert summary.failed == 0
    out = build_report(tmp_path / "rep")
    shown = all_frames(out / "replays")
    assert len(shown) == summary.played and "unreadable" not in (out / "replays" / "index.js").read_text()
    frames = shown[min(shown)]
    assert frames["format"] == "arena-viewer-plain/1" and frames["game"] == "nim"
    assert frames["steps"][0]["views"][0]["state"]["heap"] == 5
    final = frames["steps"][-1]
    assert final["views"][1]["state"]["heap"] == 0 and final["asked"] == []
    assert frames["result"]["places"] in ([1, 2], [2, 1])
    assert (out / "index.html").is_file() and "rep" in (out / "index.html").read_text()
    inode = (out / "replays" / "b0.js").stat().st_ino
    assert (build_report(tmp_path / "rep") / "replays" / "b0.js").stat().st_ino == inode  # a rebuild reuses it


def test_an_unknown_game_in_a_tournament_file_names_the_line_and_the_closest(tmp_path):
    path = write(tmp_path, "bad", [], bots(tmp_path, "ann", "bob"))
    path.write_text(path.read_text().replace("game: nim", "game: nimm"))
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert str(caught.value) == (f"{path}:2: game: unknown game 'nimm' (did you mean 'nim'?); "
                                 f"expected one of {' | '.join(games())}")


def test_rules_of_another_game_are_checked_against_its_presets(tmp_path):
    path = write(tmp_path, "bad", ["rules: standard", "seats: 2"], bots(tmp_path, "ann", "bob"))
    with pytest.raises(ConfigError, match=r":\d+: rules: unknown rule preset 'standard'; expected one of normal$"):
        load_config(path)
    path.write_text(path.read_text().replace("rules: standard", "rules: {preset: normal, options: {most: 0}}"))
    with pytest.raises(ConfigError, match=r"rules\.options\.most: .*from 1 to 10"):
        load_config(path)
    path.write_text(path.read_text().replace("seats: 2", "seats: 5").replace("most: 0", "most: 2"))
    with pytest.raises(ConfigError, match=r"seats: expected an integer from 2 to 4"):
        load_config(path)


def test_the_text_account_of_a_nim_replay_shows_its_events_and_a_seat_none(tmp_path):
    config = load_config(write(tmp_path, "acc", ["seats: 2", "rules: {preset: normal, options: {heap: 4}}"],
                               bots(tmp_path, "ann", "bob")))
    assert run_tournament(config, out=open(os.devnull, "w")).failed == 0
    replay = sorted((tmp_path / "acc" / "replays").iterdir())[0]
    everything = CliRunner().invoke(main, ["replay", str(replay)])
    assert everything.exit_code == 0, everything.output
    assert everything.output.splitlines()[0].startswith("replay of c1/ann+bob/r0: nim normal, 2 players")
    assert "took" in everything.output and "heap=0" in everything.output and "== result (last_stone)" in everything.output
    seat = CliRunner().invoke(main, ["replay", str(replay), "--seat", "0"])
    assert seat.exit_code == 0 and "took" not in seat.output and "== result (last_stone)" in seat.output
