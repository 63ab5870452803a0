"""Bot manifests: the build step's ``{python}``, the bytecode the bundled Python bots ship, the reading bounds."""

from __future__ import annotations

import os
import stat
import sys
import tracemalloc
from pathlib import Path

import pytest

from arena.bots import build_bot, load_bot
from arena.bots.errors import BotConfigError
from arena.bots.spec import bot_python, missing_run_file

ROOT = Path(__file__).resolve().parents[1]


def test_python_placeholder_in_build_is_the_bots_interpreter(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text(
        "name: p\nbuild: \"{python} -c 'import sys; open(\\\"built\\\", \\\"w\\\").write(sys.executable)'\"\n"
        "run: [\"{python}\", \"bot.py\"]\n")
    (tmp_path / "bot.py").write_text("")
    build_bot(load_bot(str(tmp_path)))
    assert (tmp_path / "built").read_text() == bot_python()


def test_bundled_python_bots_build_bytecode_a_sandboxed_bot_can_read() -> None:
    """Under bwrap a bot runs as another user: unreadable or missing bytecode means compiling at every start."""
    for name in ("random", "heuristic", "known-p10"):
        build_bot(load_bot(str(ROOT / "bots" / name)))
    tag = sys.implementation.cache_tag if bot_python() == sys.executable else None
    for module in (ROOT / "bots" / "lib" / "cabo_bot.py", ROOT / "bots" / "lib" / "heuristic_strategy.py"):
        cache = module.parent / "__pycache__"
        compiled = [p for p in cache.glob(f"{module.stem}.*.pyc") if tag is None or tag in p.name]
        assert compiled, f"no bytecode for {module}"
        for path in (cache, *compiled):
            mode = os.stat(path).st_mode
            assert mode & stat.S_IROTH, f"{path} is not readable by other users ({oct(mode)})"
        assert all(p.stat().st_mtime >= module.stat().st_mtime for p in compiled)


LAUGHS = "".join(f"{a}: &{a} [{', '.join([f'*{b}'] * 9)}]\n" for b, a in zip("abcdefgh", "bcdefghi"))
"""Lines b..i of the classic alias bomb, each nine aliases of the one before: 9**9 strings."""


def test_an_alias_bomb_in_bot_yaml_is_refused_in_one_line(tmp_path: Path) -> None:
    manifest = tmp_path / "bot.yaml"
    manifest.write_text('name: p\nrun: ["{python}", "bot.py"]\na: &a [lol, lol, lol, lol, lol, lol, lol, lol, lol]\n'
                        + LAUGHS)
    tracemalloc.start()
    try:
        with pytest.raises(BotConfigError) as info:
            load_bot(str(tmp_path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(info.value) == (f"{manifest}:8: YAML aliases expand to over 100,000 values; write the values "
                               "out or use fewer aliases")
    assert peak < 4 * 1024 * 1024


def test_bot_yaml_over_the_size_bound_is_refused(tmp_path: Path) -> None:
    manifest = tmp_path / "bot.yaml"
    manifest.write_text('name: p\nrun: ["{python}", "bot.py"]\ndescription: "' + "x" * (1024 * 1024) + '"\n')
    with pytest.raises(BotConfigError, match=r"bot\.yaml: larger than 1024 KiB"):
        load_bot(str(tmp_path))


def test_bad_yaml_in_bot_yaml_is_one_line(tmp_path: Path) -> None:
    manifest = tmp_path / "bot.yaml"
    manifest.write_text('name: p\nrun: ["{python}", "bot.py"\n')
    with pytest.raises(BotConfigError) as info:
        load_bot(str(tmp_path))
    assert str(info.value).startswith(f"{manifest}:3: not valid YAML: ") and "\n" not in str(info.value)


def test_run_names_a_missing_file_as_the_manifest_wrote_it(tmp_path: Path) -> None:
    """Checked before the start: once running, the program names the path it resolved, not the author's."""
    (tmp_path / "bot.yaml").write_text('name: p\nrun: ["{python}", "-u", "src/bots.py", "--depth", "3"]\n')
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "bot.py").write_text("")
    assert missing_run_file(load_bot(str(tmp_path))) == (
        f"{tmp_path}/bot.yaml: 'run' names 'src/bots.py', which is not a file in the bot directory "
        "(did you mean 'src/bot.py'?)")
    (tmp_path / "bot.yaml").write_text('name: p\nbuild: make\nrun: ["./target/bot"]\n')
    assert missing_run_file(load_bot(str(tmp_path))) == (
        f"{tmp_path}/bot.yaml: 'run' names './target/bot', which is not a file in the bot directory; "
        "if 'build' makes it, the build did not")
    for fine in ('["{python}", "src/bot.py"]', '["{python}", "-m", "src.bot"]', '["{python}", "-c", "import x.py"]',
                 '["node", "/opt/bot/main.js"]', '["java", "-cp", "build", "Main"]'):
        (tmp_path / "bot.yaml").write_text(f"name: p\nrun: {fine}\n")
        assert missing_run_file(load_bot(str(tmp_path))) is None, fine


def check(bot: str) -> tuple[int, str]:
    """``arena bot check BOT``: its exit status and everything it printed."""
    from click.testing import CliRunner

    from arena.cli import main

    result = CliRunner().invoke(main, ["bot", "check", bot])
    return result.exit_code, result.output


def test_a_yaml_syntax_error_is_one_line_with_its_line_number_at_the_command_line(tmp_path: Path) -> None:
    (tmp_path / "bot.yaml").write_text('name: p\nrun: ["{python}", "bot.py"\nbuild: x\n')
    code, output = check(str(tmp_path))
    assert code == 1
    assert output.startswith(f"Error: {tmp_path / 'bot.yaml'}:3: not valid YAML: ") and output.count("\n") == 1


def test_an_unknown_field_names_its_line_and_the_field_meant(tmp_path: Path) -> None:
    manifest = tmp_path / "bot.yaml"
    manifest.write_text('name: p\n# a comment\nrnu: ["{python}", "bot.py"]\n')
    with pytest.raises(BotConfigError) as info:
        load_bot(str(tmp_path))
    assert str(info.value) == (f"{manifest}:3: unknown field 'rnu' (did you mean 'run'?); allowed: build, "
                               "description, image, language, name, python, requirements, run, supports")
    manifest.write_text('name: p\nrun: ["{python}", "bot.py"]\nzzz: 1\n')  # nothing close: no guess
    with pytest.raises(BotConfigError, match=r"bot\.yaml:3: unknown field 'zzz'; allowed: build,"):
        load_bot(str(tmp_path))
    manifest.write_text('name: p\nrun: ["{python}", "bot.py"]\n7: 1\n')  # a key that is no string
    with pytest.raises(BotConfigError, match=r"bot\.yaml:3: unknown field '7'; allowed: build,"):
        load_bot(str(tmp_path))
    code, output = check(str(tmp_path))
    assert code == 1 and output.count("\n") == 1 and "unknown field '7'" in output


def test_a_directory_that_does_not_exist_is_reported_as_such(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    with pytest.raises(BotConfigError) as info:
        load_bot("bots/mybot")
    assert str(info.value) == (f"bot 'bots/mybot': no such directory ({tmp_path / 'bots' / 'mybot'}); give a bot "
                               "directory (arena bot new bots/mybot --lang python|javascript|c makes one) or a "
                               "command line")
    code, output = check("mybot")
    assert code == 1 and output == (f"Error: bot 'mybot': no such directory ({tmp_path / 'mybot'}), nor a program "
                                    "of that name; give a bot directory (arena bot new mybot --lang "
                                    "python|javascript|c makes one) or a command line\n")
    with pytest.raises(BotConfigError, match="'nosuch' is not an executable program"):
        load_bot("nosuch --fast")  # a command line of a missing program stays one


def test_a_missing_manifest_points_to_arena_bot_new_and_that_advice_works(tmp_path: Path) -> None:
    from click.testing import CliRunner

    from arena.cli import main

    empty = tmp_path / "empty"
    empty.mkdir()
    code, output = check(str(empty))
    assert code == 1 and output == (f"Error: {empty}: no bot.yaml manifest in this bot directory; arena bot new "
                                    f"{empty} --lang python|javascript|c writes a starter bot into it (docs/bots.md "
                                    "lists its fields)\n")
    assert CliRunner().invoke(main, ["bot", "new", str(empty), "--lang", "python"]).exit_code == 0
    assert load_bot(str(empty)).name == "empty"
    (tmp_path / "code").mkdir()
    (tmp_path / "code" / "bot.py").write_text("")
    with pytest.raises(BotConfigError) as info:  # bot new refuses a directory with files: a new one to copy from
        load_bot(str(tmp_path / "code"))
    assert "arena bot new NEW_DIR --lang python|javascript|c writes a starter bot with one to copy from" \
        in str(info.value)
