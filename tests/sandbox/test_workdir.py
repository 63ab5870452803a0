"""A bot with a directory runs in it: it opens its data files by relative path under every backend.

Under bwrap the directory is read-only; under none it is the real directory, and nothing stops a
write there. ``HOME`` and ``TMPDIR`` are private and writable everywhere, and the private host
directory of ``none`` is removed when the bot ends, never the bot's own. (Docker: test_docker.py.)
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from arena.sandbox import Backend, Channel, LaunchSpec

from .conftest import BOTS, PYTHON, leftovers, soon

Starter = Callable[..., Channel]


@pytest.fixture
def bot_dir(tmp_path: Path) -> Path:
    """A bot directory holding the program and a data file, readable by the bwrap bot's uid."""
    directory = tmp_path / "bot"
    directory.mkdir()
    shutil.copyfile(BOTS / "cwd_probe.py", directory / "bot.py")
    (directory / "weights.json").write_text('{"index": 0}\n')
    for path in (tmp_path, directory):
        path.chmod(0o755)
    for path in directory.iterdir():
        path.chmod(0o644)
    return directory


@pytest.fixture
def start(backend: Backend) -> Iterator[Starter]:
    """Start ``bot.py`` of a directory (``with_dir``: as a bot directory, else as a plain command line)."""
    started: list[Channel] = []

    def _start(directory: Path, with_dir: bool = True) -> Channel:
        spec = LaunchSpec((PYTHON, str(directory / "bot.py")), str(directory) if with_dir else None)
        started.append(backend.start(spec))
        return started[-1]

    yield _start
    for proc in started:
        proc.kill()
    for proc in started:
        assert leftovers(proc.token) == []


def ask(bot: Channel, command: str) -> str:
    bot.send(f"{command}\n".encode(), soon(10))
    return bot.readline(soon(10)).decode()


def test_a_bot_opens_its_data_file_by_relative_path(start: Starter, bot_dir: Path) -> None:
    bot = start(bot_dir)
    assert ask(bot, "cwd") == os.path.realpath(bot_dir)
    assert ask(bot, "read weights.json") == 'read: {"index": 0}'


def test_tmpdir_and_home_are_writable_and_not_the_bot_directory(start: Starter, bot_dir: Path,
                                                               backend: Backend) -> None:
    bot = start(bot_dir)
    env = json.loads(ask(bot, "env"))
    assert env["HOME"] == env["TMPDIR"] != os.path.realpath(bot_dir)
    assert ask(bot, f"write {env['TMPDIR']}/scratch") == f"wrote {env['TMPDIR']}/scratch"
    assert ask(bot, f"read {env['TMPDIR']}/scratch") == "read: written"
    if backend.name == "bwrap":
        assert env["TMPDIR"] == "/tmp" and env["PWD"] == os.path.realpath(bot_dir)


@pytest.mark.parametrize("backend", ["bwrap"], indirect=True)
def test_under_bwrap_the_bot_cannot_write_into_its_directory(start: Starter, bot_dir: Path) -> None:
    bot = start(bot_dir)
    assert ask(bot, "write cache.json") == "error: OSError: Read-only file system"
    assert ask(bot, "write weights.json") == "error: OSError: Read-only file system"
    assert sorted(p.name for p in bot_dir.iterdir()) == ["bot.py", "weights.json"]
    assert (bot_dir / "weights.json").read_text() == '{"index": 0}\n'


@pytest.mark.parametrize("backend", ["none"], indirect=True)
def test_under_none_a_write_lands_in_the_real_directory_and_the_end_removes_only_the_private_one(
        start: Starter, bot_dir: Path) -> None:
    """The documented gap of ``none``; what the arena removes at the end is its own directory, so the bot
    directory (with what the bot wrote) is there for the next match, which starts as the first did."""
    bot = start(bot_dir)
    assert ask(bot, "write cache.json") == f"wrote {os.path.realpath(bot_dir)}/cache.json"
    private = bot.workdir
    assert private and os.path.isdir(private) and not private.startswith(str(bot_dir))
    bot.close()
    assert not os.path.exists(private)
    assert sorted(p.name for p in bot_dir.iterdir()) == ["bot.py", "cache.json", "weights.json"]
    again = start(bot_dir)
    assert ask(again, "read cache.json") == "read: written"
    assert ask(again, "read weights.json") == 'read: {"index": 0}'


def test_a_plain_command_line_runs_in_the_private_directory(start: Starter, bot_dir: Path,
                                                           backend: Backend) -> None:
    bot = start(bot_dir, with_dir=False)
    cwd = ask(bot, "cwd")
    assert cwd == ("/tmp" if backend.name == "bwrap" else bot.workdir)
    assert ask(bot, "read weights.json") == "error: FileNotFoundError: No such file or directory"
    assert ask(bot, "write scratch") == f"wrote {cwd}/scratch"
