"""``arena bot new``: each starter kit is a bot that passes ``arena bot check`` as written, from anywhere."""

from __future__ import annotations

import json
import shutil
import subprocess
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
    assert code == 0, output  # it declares no supports: every table size of every preset is played
    assert output.splitlines()[-1] == "result: clean: no fault in 10 matches"  # 2-5 seats of each preset, and a reuse


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


BUGS = {  # per kit: a slip in the policy, as authors make them, and what the finding must name
    "python": ("bot.py", 'self.values[state["held"]]', 'self.values[state["hel"]]', "act: KeyError: 'hel'"),
    "javascript": ("bot.js", "this.values[state.held]", "this.values[state.helds.trim()]",
                   "act: TypeError: Cannot read properties of undefined (reading 'trim')"),
    "c": ("bot.c", "    if (cabo >= 0 && (turns", "    return (long)act->legal_count; /* one past the end */\n"
          "    if (cabo >= 0 && (turns", "on_act returned "),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_bug_the_helper_catches_is_a_finding_not_clean(tmp_path: Path, language: str,
                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper keeps the bot in the match with legal index 0, and says so: the check reports it."""
    if NEEDS[language] and not shutil.which(NEEDS[language]):
        pytest.skip(f"{NEEDS[language]} is not installed")
    monkeypatch.setenv("ARENA_CACHE", str(tmp_path / "cache"))
    directory = tmp_path / "buggy"
    assert arena("bot", "new", str(directory), "--lang", language)[0] == 0
    name, right, wrong, error = BUGS[language]
    source = (directory / name).read_text()
    assert source.count(right) == 1
    (directory / name).write_text(source.replace(right, wrong))
    code, output = arena("bot", "check", str(directory), "--sandbox", "none", "--matches", "1")
    lines = output.splitlines()
    assert code == 1, output
    assert lines[-1] == "result: 1 finding: fix it before submitting"
    finding = next(i for i, line in enumerate(lines) if line.startswith("finding 1: "))
    assert lines[finding].startswith("finding 1: the bot's code failed and its helper played for it (")
    assert lines[finding + 1].startswith("  cause: the helper sent legal index 0 instead of the bot's answer, ")
    assert f": {error}" in lines[finding + 1]
    assert lines[finding + 2].startswith("  remedy: ")
    assert lines[-2].startswith("  stderr| cabo-bot: fallback: " + error)
    if language != "c":  # the traceback's own error line is shown too
        assert "  stderr| " + error.removeprefix("act: ") in lines[finding + 3:-2]
    assert "reuse: one process, two matches" in output and "not tested" not in output


def test_the_javascript_helper_sends_console_output_to_stderr(tmp_path: Path) -> None:
    if not shutil.which("node"):
        pytest.skip("node is not installed")
    directory = tmp_path / "talker"
    assert arena("bot", "new", str(directory), "--lang", "javascript")[0] == 0
    source = (directory / "bot.js").read_text()
    head = "  act(state, legal, events) {\n"
    assert source.count(head) == 1
    (directory / "bot.js").write_text(source.replace(head, head + "    console.log('thinking about', legal.length);\n"
                                                      "    console.info('info'); console.dir({ deep: 1 });\n"))
    hello = json.dumps({"type": "hello", "protocol": 1, "match": "m", "seat": 0, "players": 2,
                        "rules": {"preset": "standard", "options": {}}, "values": {"AS": 1},
                        "time": {"move_ms": 1000, "startup_ms": 10000}})
    act = json.dumps({"type": "act", "id": 1, "state": {"phase": "turn", "hands": [], "turn": 0},
                      "legal": [{"do": "draw"}], "events": []})
    proc = subprocess.run(["node", "bot.js"], cwd=directory, input=f"{hello}\n{act}\n", capture_output=True,
                          text=True, timeout=30)
    assert [json.loads(line)["type"] for line in proc.stdout.splitlines()] == ["ready", "action"]
    assert "thinking about 1\ninfo\n{ deep: 1 }\n" in proc.stderr


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_readme_says_a_new_version_keeps_the_name(tmp_path: Path, language: str) -> None:
    directory = tmp_path / "keeper"
    assert arena("bot", "new", str(directory), "--lang", language)[0] == 0
    readme = " ".join((directory / "README.md").read_text().split())  # lines joined, as a reader reads them
    assert "A new version keeps the bot's name." in readme and "(`keeper@v2`)" in readme
    assert "new `name`" not in readme
