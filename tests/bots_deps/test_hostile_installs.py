"""Installs and builds of a hostile bot run behind the walls of its sandbox.

Each bot here runs the same probe from the code the arena runs before it plays (a local
package's ``setup.py``, npm ``postinstall`` scripts of the root package and of a ``file:``
dependency, a ``build`` command): it tries to write a marker into a host folder outside the
bot, to read ``/etc/shadow``, to see the Docker socket and (builds) to reach a server the
test listens on at the host's loopback; it records what happened, and its uid, into its
own output, where the test reads it. Under ``none`` a ladder refuses such a submission.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from arena.bots import BotConfigError, build_bot, load_bot
from arena.bots import env
from arena.sandbox import BwrapBackend, NoneBackend
from arena.tournament.config import load_config
from arena.tournament.ladder.submit import Refused, submit

from .conftest import RANDOM_BOT, need_node, readable

PROBE = """\
import json, os, socket, sys
out, marker, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
found = {"uid": os.getuid()}
try:
    with open(marker, "w") as f:
        f.write("written by the bot")
    found["marker"] = "written"
except OSError as exc:
    found["marker"] = type(exc).__name__
try:
    with open("/etc/shadow") as f:
        found["shadow"] = f.read(20)
except OSError as exc:
    found["shadow"] = type(exc).__name__
found["docker_socket"] = os.path.exists("/var/run/docker.sock") or os.path.exists("/run/docker.sock")
if port:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
        found["network"] = "connected"
    except OSError as exc:
        found["network"] = type(exc).__name__
with open(out, "w") as f:
    json.dump(found, f)
"""
"""The probe: ``python3 probe.py OUTPUT MARKER PORT`` (PORT 0: no network attempt)."""

AS_ROOT = os.geteuid() == 0


def bwrap_or_skip() -> BwrapBackend:
    backend = BwrapBackend()
    ok, why = backend.available()
    if not ok:
        pytest.skip(f"bwrap unavailable: {why}")
    return backend


@pytest.fixture
def host(tmp_path: Path) -> Path:
    """A host folder outside the bot that anyone could write (so only the sandbox can stop the marker)."""
    folder = tmp_path / "host"
    folder.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(folder, 0o777)
    return folder


@pytest.fixture
def server() -> Iterator[int]:
    """A TCP server on the host's loopback; its port."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        yield listener.getsockname()[1]


def python_bot(directory: Path, marker: Path) -> Path:
    """A bot whose requirements name a local package whose setup.py runs the probe into its own folder."""
    package = directory / "evilpkg"
    package.mkdir(parents=True)
    (package / "probe.py").write_text(PROBE)
    (package / "setup.py").write_text(textwrap.dedent(f"""\
        import os, subprocess, sys
        from setuptools import setup
        here = os.path.dirname(os.path.abspath(__file__))
        subprocess.run([sys.executable, os.path.join(here, "probe.py"), os.path.join(here, "probe.json"),
                        {str(marker)!r}, "0"])
        setup(name="evilpkg", version="1.0", py_modules=[])
        """))
    (directory / "requirements.txt").write_text("./evilpkg\n")
    (directory / "bot.py").write_text("")
    (directory / "bot.yaml").write_text('name: evilpy\nrun: ["{python}", "bot.py"]\n')
    return readable(directory)


def node_bot(directory: Path, marker: Path) -> Path:
    """A bot whose package.json and its ``file:`` dependency both run the probe at ``postinstall``."""
    dep = directory / "evildep"
    dep.mkdir(parents=True)
    (dep / "probe.py").write_text(PROBE)
    (dep / "probe.js").write_text(
        "require('child_process').spawnSync('python3', "
        f"[__dirname + '/probe.py', __dirname + '/probe.json', {json.dumps(str(marker))}, '0'], "
        "{stdio: 'inherit'});\n")
    root_probe = f"python3 evildep/probe.py probe.json {marker}.root 0"  # the install copies only what npm reads
    (dep / "package.json").write_text(json.dumps(
        {"name": "evildep", "version": "1.0.0", "scripts": {"postinstall": "node probe.js"}}))
    (directory / "package.json").write_text(json.dumps(
        {"name": "evilnode", "version": "1.0.0", "private": True, "dependencies": {"evildep": "file:./evildep"},
         "scripts": {"postinstall": root_probe}}))
    (directory / "package-lock.json").write_text(json.dumps({
        "name": "evilnode", "version": "1.0.0", "lockfileVersion": 3, "requires": True,
        "packages": {
            "": {"name": "evilnode", "version": "1.0.0", "hasInstallScript": True,
                 "dependencies": {"evildep": "file:./evildep"}},
            "evildep": {"version": "1.0.0", "hasInstallScript": True},
            "node_modules/evildep": {"resolved": "evildep", "link": True}}}))
    (directory / "bot.js").write_text("")
    (directory / "bot.yaml").write_text("name: evilnode\nrun: [node, bot.js]\n")
    return readable(directory)


def build_bot_dir(directory: Path, marker: Path, port: int) -> Path:
    """A bot whose build command runs the probe into the bot directory (its output: copied back)."""
    directory.mkdir(parents=True)
    (directory / "probe.py").write_text(PROBE)
    (directory / "bot.py").write_text("")
    (directory / "bot.yaml").write_text(
        f'name: evilbuild\nrun: ["{{python}}", "bot.py"]\nbuild: "python3 probe.py probe.json {marker} {port}"\n')
    return readable(directory)


def assert_walled_in(found: dict[str, object], marker: Path) -> None:
    assert not marker.exists(), "the step wrote into a host folder"
    assert found["marker"] in ("FileNotFoundError", "PermissionError", "OSError")
    assert found["shadow"] in ("FileNotFoundError", "PermissionError"), found["shadow"]
    assert found["docker_socket"] is False
    if AS_ROOT:
        assert found["uid"] == 65534


def test_a_setup_py_runs_as_the_bot_and_sees_nothing_of_the_host(tmp_path: Path, host: Path, own_cache: Path) -> None:
    backend = bwrap_or_skip()
    marker = host / "marker"
    spec = load_bot(str(python_bot(tmp_path / "bot", marker)))
    build_bot(spec, backend)
    (entry,) = env.environment(spec).paths
    found = json.loads((Path(entry) / env.SOURCE / "evilpkg" / "probe.json").read_text())
    assert_walled_in(found, marker)
    assert os.stat(entry).st_uid == os.getuid()  # the entry is the arena's again, and readable
    assert all(os.lstat(os.path.join(where, name)).st_uid == os.getuid()
               for where, dirs, files in os.walk(entry) for name in (*dirs, *files))


def test_npm_postinstall_scripts_of_the_package_and_a_file_dependency_are_walled_in(
        tmp_path: Path, host: Path, own_cache: Path) -> None:
    backend = bwrap_or_skip()
    need_node()
    marker = host / "marker"
    spec = load_bot(str(node_bot(tmp_path / "bot", marker)))
    build_bot(spec, backend)
    (entry,) = env.environment(spec).paths
    for report, mark in ((Path(entry) / "probe.json", marker.with_name("marker.root")),
                         (Path(entry) / "evildep" / "probe.json", marker)):
        assert_walled_in(json.loads(report.read_text()), mark)


def test_a_build_command_is_walled_in_without_network_and_only_its_output_comes_back(
        tmp_path: Path, host: Path, server: int) -> None:
    backend = bwrap_or_skip()
    marker = host / "marker"
    directory = build_bot_dir(tmp_path / "bot", marker, server)
    build_bot(load_bot(str(directory)), backend)
    found = json.loads((directory / "probe.json").read_text())
    assert_walled_in(found, marker)
    assert found["network"] != "connected"
    assert (directory / "probe.json").stat().st_uid == os.getuid()


def test_a_build_leaves_no_symlink_or_special_file_in_the_bot_directory(tmp_path: Path) -> None:
    backend = bwrap_or_skip()
    directory = tmp_path / "bot"
    directory.mkdir()
    (directory / "bot.py").write_text("")
    (directory / "bot.yaml").write_text(
        'name: links\nrun: ["{python}", "bot.py"]\n'
        'build: "ln -s /etc/shadow stolen && mkfifo pipe && mkdir -p out && echo made > out/made.txt"\n')
    readable(directory)
    build_bot(load_bot(str(directory)), backend)
    assert sorted(os.listdir(directory)) == ["bot.py", "bot.yaml", "out"]
    assert (directory / "out" / "made.txt").read_text() == "made\n"


def test_a_build_does_not_write_through_a_symlink_of_the_bot_directory(tmp_path: Path, host: Path) -> None:
    backend = bwrap_or_skip()
    directory = tmp_path / "bot"
    directory.mkdir()
    (directory / "bot.py").write_text("")
    os.symlink(host, directory / "out")  # shipped by the author: out -> a host folder
    (directory / "bot.yaml").write_text(
        'name: through\nrun: ["{python}", "bot.py"]\nbuild: "rm out && mkdir out && echo x > out/planted"\n')
    readable(directory)
    build_bot(load_bot(str(directory)), backend)
    assert os.listdir(host) == []


def test_the_none_backend_runs_a_build_as_the_arena_and_says_nothing_walls_it_in(
        tmp_path: Path, host: Path) -> None:
    assert NoneBackend().contains_steps is False
    marker = host / "marker"
    directory = build_bot_dir(tmp_path / "bot", marker, 0)
    build_bot(load_bot(str(directory)), NoneBackend())
    assert json.loads((directory / "probe.json").read_text())["uid"] == os.getuid()


@pytest.mark.parametrize("kind", ["requirements", "build"])
def test_a_ladder_under_none_refuses_a_submission_that_installs_or_builds_in_one_line(
        tmp_path: Path, host: Path, own_cache: Path, kind: str) -> None:
    marker = host / "marker"
    bot = python_bot(tmp_path / "bot", marker) if kind == "requirements" else build_bot_dir(tmp_path / "bot", marker, 0)
    config = ladder(tmp_path, {})
    with pytest.raises(Refused) as refused:
        submit(config, str(bot))
    message = str(refused.value)
    assert "\n" not in message and "refused:" in message and "unsandboxed_builds: true" in message
    assert ("installing its Python requirements" if kind == "requirements" else "its build command") in message
    assert not marker.exists() and not (config.output / "results.sqlite").exists()


def test_a_ladder_that_opts_in_builds_submissions_under_none(tmp_path: Path, host: Path, own_cache: Path) -> None:
    directory = tmp_path / "bot"
    directory.mkdir()
    (directory / "bot.py").write_text((RANDOM_BOT / "bot.py").read_text())
    shutil.copytree(RANDOM_BOT.parent / "lib", tmp_path / "lib")
    readable(tmp_path / "lib")
    (directory / "bot.yaml").write_text('name: builds\nrun: ["{python}", "bot.py"]\nbuild: "echo built > out.txt"\n')
    config = ladder(tmp_path, {"unsandboxed_builds": True})
    assert config.unsandboxed_builds is True
    submission = submit(config, str(readable(directory)))
    assert submission.checked and (directory / "out.txt").read_text() == "built\n"


def test_build_bot_refuses_unsandboxed_when_told_and_lets_a_walled_in_backend_through(tmp_path: Path) -> None:
    directory = build_bot_dir(tmp_path / "bot", tmp_path / "marker", 0)
    with pytest.raises(BotConfigError, match=r"refused: its build command .* would run unsandboxed"):
        build_bot(load_bot(str(directory)), NoneBackend(), allow_unsandboxed=False)
    assert not (directory / "probe.json").exists()


def ladder(tmp_path: Path, extra: dict[str, object]):
    """A ladder file under the ``none`` sandbox, with no bots of its own."""
    path = tmp_path / "ladder.yaml"
    path.write_text(yaml.safe_dump({"name": "hostile", "schedule": "ladder", "sandbox": "none", "bots": [],
                                    "output": str(tmp_path / "out"), **extra}))
    return load_config(path)


def test_unsandboxed_builds_must_be_a_boolean_and_is_for_ladders_only(tmp_path: Path) -> None:
    from arena.tournament.config import ConfigError

    with pytest.raises(ConfigError, match="unsandboxed_builds"):
        ladder(tmp_path, {"unsandboxed_builds": "yes"})
    path = tmp_path / "league.yaml"
    path.write_text(yaml.safe_dump({"name": "league", "bots": [str(RANDOM_BOT), str(RANDOM_BOT) + "=b"],
                                    "unsandboxed_builds": True}))
    with pytest.raises(ConfigError, match="only used with schedule: ladder"):
        load_config(path)




@pytest.mark.parametrize("fails", [True, False])
def test_files_an_install_plants_in_its_entry_are_never_followed_by_the_arena(
        tmp_path: Path, host: Path, own_cache: Path, fails: bool) -> None:
    """A step may leave ``build.log`` or ``arena-env.json`` as symlinks to host files: the arena neither
    quotes what they lead to nor writes through them."""
    backend = bwrap_or_skip()
    secret, target = tmp_path / "secret", host / "target"
    secret.write_text("TOPSECRET\n")
    os.chmod(secret, 0o600)
    target.write_text("original\n")
    package = tmp_path / "bot" / "plantpkg"
    package.mkdir(parents=True)
    (package / "setup.py").write_text(textwrap.dedent(f"""\
        import os, sys
        from setuptools import setup
        entry = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        for name, to in (("build.log", {str(secret)!r}), ("arena-env.json", {str(target)!r})):
            if os.path.lexists(os.path.join(entry, name)):
                os.remove(os.path.join(entry, name))
            os.symlink(to, os.path.join(entry, name))
        if {fails!r}:
            sys.exit(1)
        setup(name="plantpkg", version="1.0", py_modules=[])
        """))
    (tmp_path / "bot" / "requirements.txt").write_text("./plantpkg\n")
    (tmp_path / "bot" / "bot.py").write_text("")
    (tmp_path / "bot" / "bot.yaml").write_text('name: planter\nrun: ["{python}", "bot.py"]\n')
    spec = load_bot(str(readable(tmp_path / "bot")))
    if fails:
        with pytest.raises(BotConfigError) as failed:
            build_bot(spec, backend)
        assert "TOPSECRET" not in str(failed.value) and "pip install -r requirements.txt failed" in str(failed.value)
    else:
        build_bot(spec, backend)
        (entry,) = env.environment(spec).paths
        assert not os.path.islink(os.path.join(entry, "build.log"))
        assert "TOPSECRET" not in Path(entry, "build.log").read_text()
    assert target.read_text() == "original\n"


def test_an_install_input_that_is_a_symlink_out_of_the_bot_directory_is_refused(tmp_path: Path, own_cache: Path) -> None:
    secret = tmp_path / "secret"
    secret.write_text("TOPSECRET==1.0\n")
    os.chmod(secret, 0o600)
    directory = tmp_path / "bot"
    directory.mkdir()
    os.symlink(secret, directory / "requirements.txt")
    (directory / "bot.py").write_text("")
    (directory / "bot.yaml").write_text('name: linked\nrun: ["{python}", "bot.py"]\n')
    with pytest.raises(BotConfigError, match=r"requirements.txt: .*a symlink leading out of the bot directory") as refused:
        build_bot(load_bot(str(directory)), NoneBackend())
    assert "TOPSECRET" not in str(refused.value) and "\n" not in str(refused.value)
