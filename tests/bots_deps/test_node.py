"""Node bots with package.json and package-lock.json: ``npm ci`` into a cached entry, found through NODE_PATH."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from arena.bots import BotConfigError, build_bot, files, load_bot
from arena.bots import env
from arena.bots.launch import launch_spec
from arena.sandbox import Limits, get_backend

from .conftest import entries, need_backend, need_node, node_bot, play, readable


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])  # bwrap first: it installs into the shared cache
def test_a_bot_requiring_its_packages_plays_without_a_fault(tmp_path: Path, sandbox: str, shared_cache: Path) -> None:
    need_node()
    need_backend(sandbox)
    spec = load_bot(str(node_bot(tmp_path / "bot")))
    before = files.stamps(spec.directory or "")
    build_bot(spec, get_backend(sandbox))
    outcome = play(spec, sandbox)
    assert outcome.faults == () and outcome.stats[0].decisions > 0, outcome.faults
    assert files.stamps(spec.directory or "") == before  # no node_modules in the bot directory
    assert not (tmp_path / "bot" / "node_modules").exists()


def test_the_bot_gets_node_path_and_only_its_own_entry(tmp_path: Path, shared_cache: Path) -> None:
    need_node()
    spec = load_bot(str(node_bot(tmp_path / "bot")))
    found = env.prepare(spec)
    (entry,) = found.paths
    launch = launch_spec(spec, Limits())
    assert dict(launch.env) == {"NODE_PATH": os.path.join(entry, "node_modules")}
    assert launch.extra_paths == (entry,)
    modules = Path(entry) / "node_modules"
    assert (modules / "cabodep" / "index.js").is_file()
    assert (modules / "localdep").is_symlink() and (modules / "localdep" / "index.js").is_file()
    assert os.path.realpath(modules / "localdep").startswith(entry + "/")  # a link inside the entry, visible in bwrap


def test_dependencies_without_a_lockfile_are_refused(tmp_path: Path) -> None:
    need_node()
    directory = node_bot(tmp_path / "bot")
    (directory / "package-lock.json").unlink()
    with pytest.raises(BotConfigError) as info:
        load_bot(str(directory))
    assert str(info.value).startswith(f"{directory / 'package.json'} declares dependencies but there is no "
                                      "package-lock.json beside it: run `npm install`")
    (directory / "node_modules").mkdir()  # a bot shipping its packages needs no install
    assert env.declared(load_bot(str(directory))) == ()


def test_a_package_json_that_is_not_json_is_refused_and_one_without_dependencies_is_ignored(tmp_path: Path) -> None:
    directory = tmp_path / "bot"
    directory.mkdir()
    (directory / "bot.yaml").write_text("name: n\nrun: [node, bot.js]\n")
    (directory / "bot.js").write_text("")
    (directory / "package.json").write_text('{"type": "commonjs",')
    readable(directory)
    with pytest.raises(BotConfigError, match=f"^{directory / 'package.json'}: not valid JSON"):
        load_bot(str(directory))
    (directory / "package.json").write_text(json.dumps({"type": "commonjs", "devDependencies": {"eslint": "^9"}}))
    assert env.declared(load_bot(str(directory))) == ()
