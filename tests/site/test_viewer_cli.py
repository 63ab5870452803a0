"""``arena replay FILE --html DIR``: one match of ``arena play`` in the viewer, for a bot author."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arena.cli import main

ROOT = Path(__file__).resolve().parents[2]


def test_a_played_match_opens_in_the_viewer_from_the_seat_asked_for(tmp_path):
    replay = tmp_path / "m.jsonl"
    played = CliRunner().invoke(main, ["play", str(ROOT / "bots" / "random"), str(ROOT / "bots" / "heuristic"),
                                       "--seed", "5", "--sandbox", "none", "--replay", str(replay)])
    assert played.exit_code == 0, played.output
    result = CliRunner().invoke(main, ["replay", str(replay), "--seat", "1", "--html", str(tmp_path / "view")])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"{(tmp_path / 'view' / 'viewer.html').as_uri()}#match=0&seat=1"
    script = (tmp_path / "view" / "replays" / "0.js").read_text()
    assert script.startswith("window.ARENA_REPLAY = ") and '"heuristic"' in script


def test_a_file_that_is_no_replay_is_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "nothing"}\n')
    result = CliRunner().invoke(main, ["replay", str(bad), "--html", str(tmp_path / "view")])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and str(bad) in result.output
