"""A resumed tournament notices edited bots: two versions must never share a name in one leaderboard."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots import spec as bot_spec
from arena.cli import main
from arena.tournament.botfiles import META_KEY, BotsChanged
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
QUIET = open(os.devnull, "w")


def league(tmp_path: Path, build: str | None = None) -> Path:
    """A two-bot tournament on copies of the random bot and the shared lib (2 matches)."""
    bots = tmp_path / "bots"
    shutil.copytree(ROOT / "bots" / "lib", bots / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("alpha", "beta"):
        shutil.copytree(ROOT / "bots" / "random", bots / name, ignore=shutil.ignore_patterns("__pycache__"))
        manifest = (bots / name / "bot.yaml").read_text().replace("name: random", f"name: {name}")
        if build is not None:
            manifest = "\n".join(line for line in manifest.splitlines() if not line.startswith("build:"))
            manifest += f"\nbuild: {build!r}\n"
        (bots / name / "bot.yaml").write_text(manifest)
    path = tmp_path / "t.yaml"
    path.write_text("name: t\nrules: standard\nseats: 2\ncycles: 1\nseed: 5\nsandbox: none\nworkers: 1\n"
                    f"output: {tmp_path / 'out'}\nbots:\n  - bots/alpha\n  - bots/beta\n")
    return path


def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget this process's builds, as a later `arena run` would not have them."""
    monkeypatch.setattr(bot_spec, "_built", {})


def test_an_edited_bot_is_refused_with_the_file_named_and_nothing_played(tmp_path, monkeypatch):
    path = league(tmp_path)
    first = run_tournament(load_config(path), out=QUIET)
    assert first.played == 2
    with open(tmp_path / "bots" / "alpha" / "bot.py", "a") as f:
        f.write("# tuned\n")
    new_process(monkeypatch)
    with pytest.raises(BotsChanged) as refused:
        run_tournament(load_config(path), out=QUIET)
    message = str(refused.value)
    assert "alpha" in message and "bot.py changed" in message and "beta" not in message
    assert "--accept-bot-changes" in message and "new name" in message

    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 1 and "bot.py changed" in result.output and "Traceback" not in result.output


def test_accepting_a_change_resumes_and_remembers_the_new_files(tmp_path, monkeypatch):
    path = league(tmp_path)
    run_tournament(load_config(path), out=QUIET)
    (tmp_path / "bots" / "beta" / "notes.txt").write_text("new file\n")
    new_process(monkeypatch)
    said: list[str] = []
    summary = run_tournament(load_config(path), out=QUIET, say=said.append, accept_bot_changes=True)
    assert summary.skipped == 2 and any("beta" in line and "notes.txt added" in line for line in said)
    new_process(monkeypatch)
    assert run_tournament(load_config(path), out=QUIET).skipped == 2  # the accepted files are the reference now


def test_the_shared_lib_is_part_of_every_bot_that_can_read_it(tmp_path, monkeypatch):
    path = league(tmp_path)
    run_tournament(load_config(path), out=QUIET)
    with open(tmp_path / "bots" / "lib" / "cabo_bot.py", "a") as f:
        f.write("\n")
    new_process(monkeypatch)
    with pytest.raises(BotsChanged, match=r"\.\./lib/cabo_bot\.py changed"):
        run_tournament(load_config(path), out=QUIET)


@pytest.mark.parametrize("build", [
    "date +%s%N > stamp",  # a build whose output differs every time
    "test -f out || date +%s%N > out",  # make-like: writes only when the output is missing
])
def test_what_the_build_writes_is_not_compared(tmp_path, monkeypatch, build):
    path = league(tmp_path, build)
    run_tournament(load_config(path), out=QUIET)
    for run in range(2):
        new_process(monkeypatch)
        assert run_tournament(load_config(path), out=QUIET).skipped == 2
    store = ResultStore(tmp_path / "out", readonly=True)
    try:
        stored = store.meta(META_KEY)
    finally:
        store.close()
    assert set(stored["alpha"]["built"]) & {"stamp", "out"}
    assert "bot.py" in stored["alpha"]["files"] and "../lib/cabo_bot.py" in stored["alpha"]["files"]


def test_touching_or_bytecode_is_not_a_change_and_nothing_is_checked_before_any_match(tmp_path, monkeypatch):
    path = league(tmp_path)
    config = load_config(path)
    store = ResultStore(config.output)
    try:
        store.claim(config.fingerprint(), config.describe(), 2)
        from arena.tournament.botfiles import check_bot_files
        check_bot_files(store, config.bots)  # recorded, no match played yet
    finally:
        store.close()
    (tmp_path / "bots" / "alpha" / "bot.py").write_text("# rewritten before any match\n" +
                                                        (ROOT / "bots" / "random" / "bot.py").read_text())
    assert run_tournament(load_config(path), out=QUIET).played == 2  # nothing was played with the old version
    os.utime(tmp_path / "bots" / "alpha" / "bot.py")
    (tmp_path / "bots" / "alpha" / "__pycache__").mkdir(exist_ok=True)
    (tmp_path / "bots" / "alpha" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    new_process(monkeypatch)
    assert run_tournament(load_config(path), out=QUIET).skipped == 2
