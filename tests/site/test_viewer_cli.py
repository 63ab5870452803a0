"""``arena replay FILE --html DIR``: one match of ``arena play`` in the viewer, for a bot author."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.site.blocks import frames_in

from .synthetic import synthetic_store

ROOT = Path(__file__).resolve().parents[2]


def test_a_played_match_opens_in_the_viewer_from_the_seat_asked_for(tmp_path):
    replay = tmp_path / "m.jsonl"
    played = CliRunner().invoke(main, ["play", str(ROOT / "bots" / "random"), str(ROOT / "bots" / "heuristic"),
                                       "--seed", "5", "--sandbox", "none", "--replay", str(replay)])
    assert played.exit_code == 0, played.output
    result = CliRunner().invoke(main, ["replay", str(replay), "--seat", "1", "--html", str(tmp_path / "view")])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"{(tmp_path / 'view' / 'viewer.html').as_uri()}#match=0&seat=1"
    frames = frames_in(tmp_path / "view" / "replays" / "b0.js")[0]
    assert frames["bots"] == ["random", "heuristic"]


def test_a_file_that_is_no_replay_is_one_line(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"type": "nothing"}\n')
    result = CliRunner().invoke(main, ["replay", str(bad), "--html", str(tmp_path / "view")])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and str(bad) in result.output


def _played(tmp_path: Path) -> Path:
    replay = tmp_path / "m.jsonl"
    played = CliRunner().invoke(main, ["play", str(ROOT / "bots" / "random"), str(ROOT / "bots" / "random"),
                                       "--seed", "3", "--sandbox", "none", "--replay", str(replay)])
    assert played.exit_code == 0, played.output
    return replay


def test_it_refuses_a_directory_it_did_not_write_and_writes_its_own_again(tmp_path):
    from arena.site.build import build_report
    from arena.site.viewer import SINGLE_MARKER

    replay = _played(tmp_path)
    results = tmp_path / "results"
    synthetic_store(results, 4, ["a", "b"], voided=0)
    report = build_report(results)
    before = sorted(p.relative_to(report) for p in report.rglob("*"))
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("mine\n")
    for target, what in ((report, "a tournament's report"), (mine, "files that arena replay --html did not write")):
        result = CliRunner().invoke(main, ["replay", str(replay), "--html", str(target)])
        assert result.exit_code == 1 and result.output.count("\n") == 1, result.output
        assert f"{target} holds {what}" in result.output
    assert sorted(p.relative_to(report) for p in report.rglob("*")) == before  # nothing written
    assert sorted(p.name for p in mine.iterdir()) == ["todo.txt"]
    view = tmp_path / "view"
    for _ in range(2):  # a new directory, then the one it wrote
        result = CliRunner().invoke(main, ["replay", str(replay), "--html", str(view)])
        assert result.exit_code == 0, result.output
    assert (view / SINGLE_MARKER).is_file()
    # no report beside it: the page's match list says so, and the page shows no link to one (test_browser)
    assert (view / "replays" / "index.js").read_text().endswith("window.ARENA_REPORT = false;\n")
