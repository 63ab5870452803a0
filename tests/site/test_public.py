"""A public report (what ``arena serve`` shows strangers) holds no line any bot wrote on stderr."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from arena.site import blocks
from arena.site.build import build_report, is_public
from arena.site.public import strip_frames

from .played import play


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A played tournament whose ``writer`` logs every move and whose ``illegal`` faults after a log line."""
    return play(tmp_path_factory.mktemp("public"), "standard")


def log_lines(results: Path) -> set[str]:
    """Every line the bots wrote on stderr, as the store keeps them (their logs, and the stderr kept with a fault)."""
    db = sqlite3.connect(results / "results.sqlite")
    try:
        texts = [text for (text,) in db.execute("SELECT text FROM logs")]
        for (faults,) in db.execute("SELECT faults FROM matches"):
            texts += [str(f.get("stderr") or "") for f in json.loads(faults or "[]")]
    finally:
        db.close()
    return {line.strip() for text in texts for line in text.splitlines() if len(line.strip()) >= 8}


def site_text(report: Path) -> str:
    """Every file of a report as text, each block of replays as the JSON of the frames the viewer gets from it."""
    pieces = []
    for path in sorted(p for p in report.rglob("*") if p.is_file()):
        if path.parent.name == "replays" and path.name.startswith("b") and path.suffix == ".js":
            pieces.append(json.dumps(blocks.frames_in(path), ensure_ascii=False))
        else:
            pieces.append(path.read_text(encoding="utf-8", errors="replace"))
    return "\n".join(pieces)


def shown(lines: set[str], text: str) -> set[str]:
    return {line for line in lines if line in text or json.dumps(line, ensure_ascii=False)[1:-1] in text}


def test_a_public_report_shows_no_log_line_and_a_normal_one_does(results: Path, tmp_path: Path) -> None:
    lines = log_lines(results)
    assert any(" act " in line for line in lines) and any("FAULT-MARKER" in line for line in lines)
    normal, public = tmp_path / "normal", tmp_path / "public"
    build_report(results, normal)
    build_report(results, public, public=True)
    in_normal = shown(lines, site_text(normal))
    assert any(" act " in line for line in in_normal)  # the viewer's log lines
    assert any("FAULT-MARKER" in line for line in in_normal)  # the faults' log tails
    assert shown(lines, site_text(public)) == set()
    assert "a public report shows no log" in (public / "faults.html").read_text(encoding="utf-8")
    assert is_public(public) and not is_public(normal)  # what a server for strangers checks before serving one
    # the same matches, faults and steps: only the log lines are gone
    normal_frames = blocks.all_frames(normal / "replays")
    public_frames = blocks.all_frames(public / "replays")
    assert sorted(normal_frames) == sorted(public_frames) and normal_frames
    for idx, frames in normal_frames.items():
        assert public_frames[idx]["faults"] == frames["faults"]
        assert len(public_frames[idx]["steps"]) == len(frames["steps"])
        assert public_frames[idx] == strip_frames(frames)


def test_a_public_build_over_a_normal_report_keeps_none_of_its_logs_nor_the_reverse(results: Path,
                                                                                   tmp_path: Path) -> None:
    """A report rebuilt in place links its earlier blocks and bot pages: never those of the other kind."""
    lines, out = log_lines(results), tmp_path / "report"
    build_report(results, out)
    build_report(results, out, public=True)
    assert shown(lines, site_text(out)) == set()
    assert all(blocks.is_public(blocks.read_head(p)) for p in (out / "replays").glob("b*.js"))
    build_report(results, out)
    assert not is_public(out)
    text = site_text(out)
    assert any(" act " in line for line in shown(lines, text)) and any("FAULT-MARKER" in line
                                                                       for line in shown(lines, text))


def test_strip_frames_takes_out_bot_logs_and_stderr_lines_only() -> None:
    frames = {"steps": [{"log": [["act", "ann draws"], ["botlog", "ann log| secret", ["log| secret", None]],
                                 ["fault", "FAULT ann: illegal: index 3\n  stderr| secret",
                                  ["FAULT ann: illegal: index 3\n  stderr| secret", "FAULT ann: illegal"]]]},
                         {"k": "end"}]}
    assert strip_frames(frames)["steps"] == [
        {"log": [["act", "ann draws"], ["fault", "FAULT ann: illegal: index 3",
                                        ["FAULT ann: illegal: index 3", "FAULT ann: illegal"]]]}, {"k": "end"}]


def test_arena_report_public_writes_a_public_report_and_serve_keeps_it_public(results: Path, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main
    from arena.site.serve import LiveReport

    lines = log_lines(results)
    outcome = CliRunner().invoke(main, ["report", str(results), "-o", str(tmp_path / "cli"), "--public"])
    assert outcome.exit_code == 0, outcome.output
    assert shown(lines, site_text(tmp_path / "cli")) == set()
    live = LiveReport(results, tmp_path / "live", public=True)
    live.build()
    assert shown(lines, site_text(tmp_path / "live")) == set()
