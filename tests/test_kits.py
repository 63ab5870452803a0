"""``arena bot new``: each starter kit is a bot that passes ``arena bot check`` as written, from anywhere."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.kits import LANGUAGES, kit_files
from arena.sandbox import get_backend

REPO = Path(__file__).resolve().parents[1]
NEEDS = {"python": None, "javascript": "node", "c": "gcc"}


def arena(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(main, list(args))
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output


def sandboxes() -> list[object]:
    ok, why = get_backend("bwrap").available()
    return ["none", pytest.param("bwrap", marks=pytest.mark.skipif(not ok, reason=f"bwrap unavailable: {why}"))]


@pytest.mark.parametrize("sandbox", sandboxes())
@pytest.mark.parametrize("language", LANGUAGES)
def test_a_new_bot_passes_the_check_as_written(tmp_path: Path, language: str, sandbox: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    if NEEDS[language] and not shutil.which(NEEDS[language]):
        pytest.skip(f"{NEEDS[language]} is not installed")
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache"))  # the Python kit's (empty) requirements get a venv
    directory = tmp_path / "x" / "My Bot"  # far from the repository, and a name that needs cleaning
    code, output = arena("bot", "new", str(directory), "--lang", language)
    assert code == 0, output
    assert output.startswith(f"created bot my-bot ({language}) in {directory}: ")
    manifest = (directory / "bot.yaml").read_text()
    assert "name: my-bot" in manifest and "# supports: {rules: [standard], seats: [2, 3]}" in manifest
    readme = (directory / "README.md").read_text()
    assert all(command in readme for command in ("arena bot check 'My Bot'", "arena play 'My Bot'", "arena run"))
    assert "__BOT_" not in "".join(p.read_text() for p in directory.iterdir() if p.is_file())
    code, output = arena("bot", "check", str(directory), "--sandbox", sandbox, "--matches", "1")
    assert code == 0, output
    assert output.splitlines()[-1] == "result: clean: no fault in 4 matches"


def test_the_python_kit_carries_the_helper_and_declares_no_requirement(tmp_path: Path) -> None:
    files = kit_files("python")
    assert files["cabo_bot.py"] == (REPO / "bots" / "lib" / "cabo_bot.py").read_text()  # the kit ships the repository's helper (its template is a symlink to it)
    lines = [line.strip() for line in files["requirements.txt"].splitlines()]
    assert lines and all(not line or line.startswith("#") for line in lines)
    assert any("==" in line for line in lines)  # an example to copy


def test_an_existing_non_empty_directory_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    code, output = arena("bot", "new", str(tmp_path), "--lang", "c")
    assert code == 1
    assert output == f"Error: {tmp_path}: exists and is not empty; choose a new directory (nothing was written)\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]
    empty = tmp_path / "empty"
    empty.mkdir()
    assert arena("bot", "new", str(empty), "--lang", "javascript", "--name", "js.one")[0] == 0
    assert "name: js.one" in (empty / "bot.yaml").read_text()


def test_bad_names_and_languages_are_one_line_errors(tmp_path: Path) -> None:
    code, output = arena("bot", "new", str(tmp_path / "a"), "--name", "Bad Name")
    assert code == 1 and output.startswith("Error: bot name 'Bad Name' must be 1-64 of a-z 0-9 - _ .")
    code, output = arena("bot", "new", str(tmp_path / "___"))
    assert code == 1 and "cannot make a bot name from '___'; give one with --name" in output
    code, output = arena("bot", "new", str(tmp_path / "b"), "--lang", "rust")
    assert code == 2 and "'rust' is not one of 'python', 'javascript', 'c'" in output
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_readme_says_a_new_version_keeps_the_name(tmp_path: Path, language: str) -> None:
    directory = tmp_path / "keeper"
    assert arena("bot", "new", str(directory), "--lang", language)[0] == 0
    readme = " ".join((directory / "README.md").read_text().split())  # lines joined, as a reader reads them
    assert "A new version keeps the bot's name." in readme and "(`keeper@v2`)" in readme
    assert "new `name`" not in readme
