"""The command ``arena bot new`` prints to run next is one the user can paste: ``arena`` only when that is this arena."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from arena.invoked import arena_command


def script(folder: Path) -> Path:
    folder.mkdir(parents=True)
    path = folder / "arena"
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return path


def test_arena_when_the_arena_on_path_is_the_one_running(tmp_path: Path) -> None:
    mine = script(tmp_path / "venv" / "bin")
    assert arena_command(str(mine), on_path=str(mine)) == "arena"


def test_the_path_it_was_started_by_when_path_has_another_arena_or_none(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    mine = script(tmp_path / "my checkout" / ".venv" / "bin")
    other = script(tmp_path / "elsewhere")
    assert arena_command(str(mine), on_path=str(other)) == f"'{mine}'"  # quoted: the path has a space
    monkeypatch.setenv("PATH", str(tmp_path / "nothing-here"))
    monkeypatch.chdir(tmp_path / "my checkout")
    assert arena_command(".venv/bin/arena") == ".venv/bin/arena"  # as typed, from where it was typed


def test_the_interpreter_and_module_when_not_started_by_the_console_script(tmp_path: Path) -> None:
    mine = script(tmp_path / "bin")
    assert arena_command("/src/arena/cli.py", on_path=str(mine)) == f"{sys.executable} -m arena.cli"


def test_bot_new_prints_the_arena_it_was_started_as_unless_path_has_it(tmp_path: Path) -> None:
    console = Path(sys.executable).parent / "arena"
    if not console.is_file():
        pytest.skip("no console script beside the interpreter (not an installed arena)")
    env = {**os.environ, "PATH": "/usr/bin:/bin"}  # no arena on PATH
    done = subprocess.run([str(console), "bot", "new", "My Bot"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == (f"next: {console} bot check 'My Bot'   (README.md there says how to "
                                            "play and submit it)")
    env["PATH"] = f"{console.parent}:/usr/bin:/bin"
    done = subprocess.run([str(console), "bot", "new", "Other"], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=60)
    assert done.stdout.splitlines()[-1].startswith("next: arena bot check Other   ")
