"""Installs and builds of a hostile bot run behind the walls of its sandbox.

Each bot here runs the same probe from the code the arena runs before it plays (npm
``postinstall`` scripts of the root package and of a ``file:`` dependency, a ``build``
command; a Python package's ``setup.py`` never runs: a requirement to build from source is
refused, and wheels run no code as they install): it tries to write a marker into a host folder outside the
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
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import yaml

from arena.bots import BotConfigError, build_bot, load_bot
from arena.bots import env
from arena.sandbox import BwrapBackend, NoneBackend
from arena.tournament.config import load_config
from arena.tournament.ladder.submit import Refused, submit

from .conftest import RANDOM_BOT, need_node, readable
from .conftest import python_bot as wheel_bot

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


@pytest.mark.parametrize("requirement", ["./evilpkg", "-e ./evilpkg", "evilpkg @ file:./evilpkg",
                                         "git+https://example.org/evil.git", "evil @ https://example.org/evil-1.0.tar.gz",
                                         "pyyaml==6.0.2 --no-binary pyyaml", "--no-binary=:all:", "--no-bin :all:",
                                         "--only-binary :none:", "--only=:none:",
                                         "-r https://example.org/more.txt", "--constraint=https://example.org/c.txt"])
def test_a_requirement_to_build_from_source_is_refused_in_one_line_before_anything_runs(
        tmp_path: Path, host: Path, own_cache: Path, requirement: str) -> None:
    """Building a package runs its code (setup.py) while the fetch has the network: wheels only."""
    marker = host / "marker"
    directory = python_bot(tmp_path / "bot", marker)
    (directory / "requirements.txt").write_text(requirement + "\n")
    with pytest.raises(BotConfigError) as refused:
        build_bot(load_bot(str(directory)), bwrap_or_skip())
    message = str(refused.value)
    assert "\n" not in message and "requirements.txt:1" in message, message
    assert "wheels only" in message or "on the network" in message, message
    assert not marker.exists() and not (directory / "evilpkg" / "probe.json").exists()
    assert not list(own_cache.rglob("probe.json"))


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
    bot = wheel_bot(tmp_path / "bot") if kind == "requirements" else build_bot_dir(tmp_path / "bot", marker, 0)
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
    need_node()
    secret, target = tmp_path / "secret", host / "target"
    secret.write_text("TOPSECRET\n")
    os.chmod(secret, 0o600)
    target.write_text("original\n")
    directory = node_bot(tmp_path / "bot", host / "marker")
    (directory / "evildep" / "plant.js").write_text(textwrap.dedent(f"""\
        const fs = require('fs'), path = require('path');
        const entry = process.env.INIT_CWD;
        for (const [name, to] of [['build.log', {json.dumps(str(secret))}], ['arena-env.json', {json.dumps(str(target))}]]) {{
          try {{ fs.rmSync(path.join(entry, name), {{force: true}}); }} catch (e) {{}}
          fs.symlinkSync(to, path.join(entry, name));
        }}
        process.exit({1 if fails else 0});
        """))
    package = json.loads((directory / "package.json").read_text())
    package["scripts"]["postinstall"] = "node evildep/plant.js"  # the root's script, run by npm rebuild
    (directory / "package.json").write_text(json.dumps(package))
    spec = load_bot(str(readable(directory)))
    if fails:
        with pytest.raises(BotConfigError) as failed:
            build_bot(spec, backend)
        assert "TOPSECRET" not in str(failed.value) and "npm rebuild" in str(failed.value)
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


@pytest.mark.parametrize("line", ["--index-url http://127.0.0.1:9/simple cabodep", "--extra-index-url=http://localhost/x",
                                  "-f http://[::1]:8/", "cabodep @ http://127.1/cabodep-1.0-py3-none-any.whl",
                                  "-i http://10.0.0.7/simple", "--find-links http://169.254.169.254/latest/",
                                  "-i http://0x7f000001/simple", "-f http://[fe80::1%25eth0]/",
                                  "-i http://[::ffff:127.0.0.1]/", "-i http://0.0.0.0:80/"])
def test_a_requirements_url_to_this_machine_or_its_private_network_is_refused(tmp_path: Path, line: str) -> None:
    directory = wheel_bot(tmp_path / "bot")
    (directory / "requirements.txt").write_text(line + "\n")
    with pytest.raises(BotConfigError, match=r"requirements.txt:1: .*a URL on this machine or its private network"):
        build_bot(load_bot(str(directory)), NoneBackend())


def loopback_probe(tmp_path: Path, build: Callable[[Path], None]) -> list[str]:
    """Build a wheel bot and a Node bot whose root and dependency postinstall scripts try a listener on
    the host's loopback; assert no connection reached it; what the scripts saw."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        python = wheel_bot(tmp_path / "py")
        node = node_bot(tmp_path / "js", tmp_path / "marker")
        probe = node / "evildep" / "probe.js"
        probe.write_text(probe.read_text().replace("'0']", f"'{port}']"))
        package = json.loads((node / "package.json").read_text())
        package["scripts"]["postinstall"] = package["scripts"]["postinstall"].replace(" 0", f" {port}")
        (node / "package.json").write_text(json.dumps(package))
        for directory in (readable(python), readable(node)):
            build(directory)
        (entry,) = env.environment(load_bot(str(node))).paths
        tried = [json.loads((Path(entry) / where).read_text())["network"] for where in ("probe.json", "evildep/probe.json")]
        with pytest.raises(BlockingIOError):
            listener.accept()  # nothing ever connected
    return tried


def test_no_install_step_reaches_a_loopback_listener(tmp_path: Path, own_cache: Path) -> None:
    """The measurement under bwrap: pip fetching and installing wheels, npm ci and then its scripts offline."""
    backend = bwrap_or_skip()
    need_node()
    tried = loopback_probe(tmp_path, lambda directory: build_bot(load_bot(str(directory)), backend))
    assert set(tried) <= {"OSError", "ConnectionRefusedError"}, tried


@pytest.mark.parametrize("change, said", [
    ({"package": {"evildep": "github:evil/repo"}}, "a git dependency"),
    ({"package": {"evildep": "git+https://example.org/evil.git"}}, "a git dependency"),
    ({"package": {"evildep": "evil/repo"}}, "a git dependency"),
    ({"package": {"evildep": "http://127.0.0.1:9/evildep-1.0.0.tgz"}}, "this machine or its private network"),
    ({"resolved": "git+ssh://git@example.org/evil.git#abc"}, "a git dependency"),
    ({"resolved": "http://10.1.2.3/evildep-1.0.0.tgz"}, "this machine or its private network"),
    ({"npmrc": "git=./evildep/fetch.sh\n"}, "sets git"),
    ({"npmrc": "registry=http://localhost:4873/\n"}, "this machine or its private network"),
])
def test_npm_declarations_that_would_run_code_or_reach_the_machine_while_fetching_are_refused(
        tmp_path: Path, change: dict[str, object], said: str) -> None:
    need_node()
    directory = node_bot(tmp_path / "bot", tmp_path / "marker")
    if "package" in change:
        package = json.loads((directory / "package.json").read_text())
        package["dependencies"] = change["package"]
        (directory / "package.json").write_text(json.dumps(package))
    if "resolved" in change:
        lock = json.loads((directory / "package-lock.json").read_text())
        lock["packages"]["node_modules/evildep"] = {"version": "1.0.0", "resolved": change["resolved"]}
        (directory / "package-lock.json").write_text(json.dumps(lock))
    if "npmrc" in change:
        (directory / ".npmrc").write_text(str(change["npmrc"]))
    with pytest.raises(BotConfigError) as refused:
        build_bot(load_bot(str(directory)), NoneBackend())
    assert said in str(refused.value) and "\n" not in str(refused.value), str(refused.value)
    assert not (tmp_path / "marker").exists()


def test_a_wheel_of_the_bots_own_requiring_a_url_on_this_machine_is_refused(tmp_path: Path) -> None:
    import zipfile

    directory = wheel_bot(tmp_path / "bot")
    (wheel,) = (directory / "wheels").glob("*.whl")
    with zipfile.ZipFile(wheel) as old:
        files = {info.filename: old.read(info) for info in old.infolist()}
    (meta,) = [name for name in files if name.endswith(".dist-info/METADATA")]
    files[meta] += b"Requires-Dist: evil @ http://127.0.0.1:9/evil-1.0-py3-none-any.whl\n"
    with zipfile.ZipFile(wheel, "w") as new:
        for name, data in files.items():
            new.writestr(name, data)
    with pytest.raises(BotConfigError, match=r"METADATA: names 'http://127\.0\.0\.1:9/.*this machine"):
        build_bot(load_bot(str(directory)), NoneBackend())
