"""docs/ladder.md's example ladder file works outside the repository, with the starter bots it says to make."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import load_config
from arena.tournament.schedules import LADDER

DOC = Path(__file__).resolve().parents[2] / "docs" / "ladder.md"


def test_the_example_ladder_file_loads_in_any_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = DOC.read_text()
    example = re.search(r"```yaml\n(.*?)```", text, re.S)
    assert example is not None
    commands = re.search(r"```sh\n(.*?)```", text, re.S)
    assert commands is not None and "arena bot new alice" in commands.group(1)
    monkeypatch.chdir(tmp_path)  # far from the repository and its bots/
    for name in ("alice", "bob"):
        result = CliRunner().invoke(main, ["bot", "new", name])
        assert result.exit_code == 0, result.output
    (tmp_path / "ladder.yaml").write_text(example.group(1))
    config = load_config("ladder.yaml")
    assert config.schedule == LADDER and sorted(b.name for b in config.bots) == ["alice", "bob"]
    assert {b.directory for b in config.bots} == {str(tmp_path / "alice"), str(tmp_path / "bob")}
    assert config.output == tmp_path / "results" / "open-ladder"
