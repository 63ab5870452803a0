"""The report that ``arena run`` writes: at the end of a run, and in the background while a ladder plays."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.site import build, refresh
from arena.site.refresh import final_report
from arena.site.viewer import ViewerBuild

ROOT = Path(__file__).resolve().parents[2]


def league(tmp_path: Path) -> Path:
    lines = ["name: mini", "seats: 2", "seed: 3", "sandbox: none", "workers: 1", f"output: {tmp_path / 'out'}",
             "bots:", f"  - {ROOT / 'bots' / 'random'}", f"  - {ROOT / 'bots' / 'heuristic'}"]
    path = tmp_path / "mini.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_arena_run_writes_the_report_and_says_where(tmp_path):
    result = CliRunner().invoke(main, ["run", str(league(tmp_path))])
    assert result.exit_code == 0, result.output
    index = tmp_path / "out" / "report" / "index.html"
    assert index.is_file() and (tmp_path / "out" / "report" / "viewer.html").is_file()
    assert f"report: {index}" in result.stderr and "replays/, report/)" in result.stdout
    assert "heuristic" in index.read_text()


def test_no_report_writes_none(tmp_path):
    result = CliRunner().invoke(main, ["run", str(league(tmp_path)), "--no-report"])
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "out" / "report").exists()


def test_a_report_that_cannot_be_written_is_one_line_not_a_failed_run(tmp_path):
    path = league(tmp_path)
    (tmp_path / "out" / "report").mkdir(parents=True)
    (tmp_path / "out" / "report" / "mine.txt").write_text("not a report: never replaced\n")
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 0, result.output
    assert "report: not written (" in result.stderr
    assert (tmp_path / "out" / "report" / "mine.txt").is_file()


def test_the_background_build_runs_apart_and_is_waited_for(tmp_path, monkeypatch):
    assert CliRunner().invoke(main, ["run", str(league(tmp_path)), "--no-report"]).exit_code == 0
    background = refresh.Background(tmp_path / "out", every=0)
    waited: list[subprocess.Popen[bytes]] = []
    wait = subprocess.Popen.wait

    def spy(self: subprocess.Popen[bytes], timeout: float | None = None) -> int:
        waited.append(self)
        return wait(self, timeout)

    monkeypatch.setattr(subprocess.Popen, "wait", spy)
    background.maybe()
    assert background.child is not None and background.building and waited == []  # the run goes on meanwhile
    background.maybe()  # one at a time: the first is still building
    first = background.child
    background.close()
    assert first.returncode == 0 and background.child is None
    assert (tmp_path / "out" / "report" / "index.html").is_file()


def _built(background: refresh.Background) -> None:
    """Until the build asked for has finished (a poll, not a measured duration)."""
    deadline = time.monotonic() + 600
    while not background._done():
        assert time.monotonic() < deadline, "the background build did not finish"
        time.sleep(0.05)


def test_the_background_builder_lives_as_long_as_the_run_and_builds_again_when_told(tmp_path):
    """One process builds every time, keeping what it made of the matches before (as arena serve does), so
    a ladder's later builds cost what its new matches cost."""
    path = league(tmp_path)
    assert CliRunner().invoke(main, ["run", str(path), "--no-report", "--matches", "1"]).exit_code == 0
    background = refresh.Background(tmp_path / "out", every=0)
    try:
        background.maybe()
        assert background.child is not None
        first = background.child.pid
        _built(background)
        version = tmp_path / "out" / "report" / "version.json"
        assert json.loads(version.read_text())["matches"] == 1
        assert CliRunner().invoke(main, ["run", str(path), "--no-report"]).exit_code == 0  # the second match
        background.maybe()
        assert background.child is not None and background.child.pid == first and background.building
        _built(background)
        assert json.loads(version.read_text())["matches"] == 2
        child = background.child
    finally:
        background.close()
    assert child.returncode == 0  # the end of its input ended it


def test_a_background_builder_that_died_is_started_again_at_the_next_build(tmp_path):
    assert CliRunner().invoke(main, ["run", str(league(tmp_path)), "--no-report"]).exit_code == 0
    background = refresh.Background(tmp_path / "out", every=0)
    try:
        background.maybe()
        assert background.child is not None
        dead = background.child
        dead.kill()
        dead.wait()
        background.maybe()  # a new one, and the build asked of it
        assert background.child is not None and background.child is not dead and background.building
        _built(background)
        assert (tmp_path / "out" / "report" / "index.html").is_file()
    finally:
        background.close()


def test_a_second_ctrl_c_skips_the_rebuild_and_leaves_the_report_before_it_whole(tmp_path, monkeypatch):
    assert CliRunner().invoke(main, ["run", str(league(tmp_path))]).exit_code == 0
    report = tmp_path / "out" / "report"
    before = {p.relative_to(report): p.read_bytes() for p in report.rglob("*") if p.is_file()}

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt  # the user presses Ctrl-C again while the viewer's frames are built

    monkeypatch.setattr(ViewerBuild, "finish", interrupted)
    lines: list[str] = []
    final_report(tmp_path / "out", True, lines.append)
    assert lines == ["report: rebuilding it from the matches stored (Ctrl-C again skips it)",
                     f"report: not rebuilt, interrupted (the one before is kept); `arena report {tmp_path / 'out'}` "
                     "builds it"]
    assert {p.relative_to(report): p.read_bytes() for p in report.rglob("*") if p.is_file()} == before
    assert [p.name for p in (tmp_path / "out").iterdir() if p.name.startswith(".report.")] == []


def test_a_ctrl_c_before_any_report_says_there_is_none(tmp_path, monkeypatch):
    assert CliRunner().invoke(main, ["run", str(league(tmp_path)), "--no-report"]).exit_code == 0

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(build, "write_site", interrupted)
    lines: list[str] = []
    final_report(tmp_path / "out", True, lines.append)
    assert "there is none yet" in lines[-1]
    assert not (tmp_path / "out" / "report").exists()


def test_a_ladder_stopped_by_ctrl_c_in_its_first_minutes_has_a_report_of_what_it_stored(tmp_path):
    """Its background builds start only after five minutes; the report came from none of them."""
    from tests.tournament.test_ladder import copy_bot, played, write_ladder

    path = write_ladder(tmp_path, [copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")])
    out = tmp_path / "out"
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "run", str(path)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        for _ in range(6000):  # until a match is stored (a poll, not a measured duration)
            if (out / "results.sqlite").exists() and played(out):
                break
            assert proc.poll() is None, proc.communicate()[0]
            time.sleep(0.1)
    finally:
        proc.send_signal(signal.SIGINT)
        output, _ = proc.communicate(timeout=120)
    assert proc.returncode == 130, output
    version = json.loads((out / "report" / "version.json").read_text())
    assert version["matches"] == len(played(out)) > 0, output
    assert "report: rebuilding it from the matches stored" in output and "report/)" in output
