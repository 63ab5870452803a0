"""Python bots with a requirements.txt: installed once per version into a cached venv, usable in every sandbox."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.bots import BotConfigError, build_bot, files, load_bot, resolve_command
from arena.bots import cache, deps, env
from arena.match.faults import FaultKind
from arena.sandbox import NoneBackend, get_backend

from .conftest import ROOT, entries, make_wheel, need_backend, play, python_bot, readable


@pytest.fixture(params=["tmp", "home"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Path]:
    """Where the bot directory lives: pytest's tmp dir, or a folder in the home directory (/root/...)."""
    if request.param == "tmp":
        yield tmp_path
        return
    try:
        folder = Path(tempfile.mkdtemp(prefix="arena-deps-test-", dir=Path.home()))
    except OSError as exc:
        pytest.skip(f"cannot make a folder in the home directory: {exc}")
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("sandbox", ["bwrap", "none"])  # bwrap first: it installs into the shared cache
def test_a_bot_importing_its_requirement_plays_without_a_fault(location: Path, sandbox: str,
                                                              shared_cache: Path) -> None:
    need_backend(sandbox)
    spec = load_bot(str(python_bot(location / "bot")))
    before = files.stamps(spec.directory or "")
    build_bot(spec, get_backend(sandbox))
    outcome = play(spec, sandbox)
    assert outcome.faults == () and outcome.stats[0].decisions > 0, outcome.faults
    python = resolve_command(spec)[0]
    assert python.startswith(str(shared_cache / "envs")) and python.endswith("/bin/python")
    assert files.stamps(spec.directory or "") == before  # nothing written into the bot directory


def test_the_environment_is_readable_by_every_user(tmp_path: Path, own_cache: Path) -> None:
    """Under bwrap a root arena's bot runs as uid 65534: it reads only what others may read, whatever
    the arena's umask."""
    spec = load_bot(str(python_bot(tmp_path / "bot")))
    umask = os.umask(0o077)
    try:
        found = env.prepare(spec)
    finally:
        os.umask(umask)
    (entry,) = found.paths
    assert stat.S_IMODE(os.stat(entry).st_mode) == 0o755
    for where, dirs, names in os.walk(entry):
        for name in (*dirs, *names):
            info = os.lstat(os.path.join(where, name))
            if not stat.S_ISLNK(info.st_mode):
                assert info.st_mode & 0o004, f"{where}/{name} is not readable by others"
    assert list(Path(entry).glob("lib/python3*/site-packages/cabodep/__pycache__/*.pyc"))  # compiled, readable


def test_a_second_build_installs_nothing(tmp_path: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_bot(str(python_bot(tmp_path / "bot")))
    build_bot(spec)
    (entry,) = entries(own_cache)
    marker = entry / cache.MARKER
    stamp = (marker.stat().st_ino, marker.stat().st_mtime_ns)
    runs: list[list[str]] = []
    monkeypatch.setattr(NoneBackend, "run_step", lambda self, step, log: runs.append(list(step.argv)) or 1)
    build_bot(load_bot(str(tmp_path / "bot")))  # as a later arena process would
    assert runs == [] and entries(own_cache) == [entry]
    assert (marker.stat().st_ino, marker.stat().st_mtime_ns) == stamp


def test_a_changed_requirement_is_a_new_version_an_edited_bot_is_not(tmp_path: Path, own_cache: Path) -> None:
    directory = python_bot(tmp_path / "bot", versions=("1.0", "2.0"))
    spec = load_bot(str(directory))
    build_bot(spec)
    first = resolve_command(spec)[0]
    (directory / "bot.py").write_text((directory / "bot.py").read_text() + "\n# tuned\n")
    build_bot(spec)
    assert resolve_command(spec)[0] == first and len(entries(own_cache)) == 1
    (directory / "requirements.txt").write_text("--no-index\n--find-links wheels\ncabodep==2.0\n")
    with pytest.raises(BotConfigError, match="not installed"):
        resolve_command(spec)  # the new version is not built yet: never the old one instead
    build_bot(spec)
    second = resolve_command(spec)[0]
    assert second != first and len(entries(own_cache)) == 2
    version = subprocess.run([second, "-c", "import cabodep; print(cabodep.VERSION)"], capture_output=True,
                             text=True, timeout=30)
    assert version.stdout.strip() == "2.0"
    make_wheel(directory / "wheels", "3.0")  # the --find-links folder the requirements name changed
    build_bot(spec)
    assert len(entries(own_cache)) == 3


def test_a_failed_install_is_one_error_naming_the_bot_the_step_and_the_log(tmp_path: Path, own_cache: Path) -> None:
    directory = python_bot(tmp_path / "bot", requirement="no-such-package-for-cabo==9.9")
    with pytest.raises(BotConfigError) as info:
        build_bot(load_bot(str(directory)))
    message = str(info.value)
    first = message.splitlines()[0]
    assert first.startswith("bot 'pydeps': installing its Python requirements (requirements.txt): "
                            "pip download -r requirements.txt (wheels only) failed (exit 1) (no wheel of it was "
                            "found"), first
    assert "no-such-package-for-cabo" in message and "Traceback" not in message
    assert entries(own_cache) == []  # nothing half-built is left to be used
    logs = list((own_cache / "envs").glob("*.failed.log"))
    assert len(logs) == 1 and str(logs[0]) in first
    check = subprocess.run([str(ROOT / ".venv" / "bin" / "arena"), "bot", "check", str(directory), "--sandbox", "none"],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path,
                           env={**os.environ, cache.ENV_VAR: str(own_cache)})
    assert check.returncode != 0
    said = check.stdout + check.stderr
    assert "pip download -r requirements.txt (wheels only) failed" in said and "Traceback" not in said, said


BUILD = """
import sys
sys.path.insert(0, {root!r})
from arena.bots import build_bot, load_bot, resolve_command
build_bot(load_bot({directory!r}))
print(resolve_command(load_bot({directory!r}))[0])
"""


def test_two_arenas_building_one_version_take_turns(tmp_path: Path, own_cache: Path) -> None:
    directory = python_bot(tmp_path / "bot")
    code = BUILD.format(root=str(ROOT), directory=str(directory))
    other = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    results: list[str] = []
    mine = threading.Thread(target=lambda: (build_bot(load_bot(str(directory))),
                                            results.append(resolve_command(load_bot(str(directory)))[0])))
    mine.start()
    out, err = other.communicate(timeout=120)
    mine.join(120)
    assert other.returncode == 0, err
    assert results == [out.strip()]  # both use the one environment
    assert len(entries(own_cache)) == 1  # built once: the second found it built after waiting
    assert len(list((own_cache / "envs").glob("*.lock"))) == 1


HOLD = """
import sys, time
sys.path.insert(0, {root!r})
from arena.bots.buildlock import entry_lock
with entry_lock({entry!r}, 10):
    print("held", flush=True)
    sys.stdin.readline()  # held until the test says go
    time.sleep(1.0)
    open({released!r}, "w").close()
"""


def test_a_build_waits_for_another_arena_building_the_same_version(tmp_path: Path, own_cache: Path) -> None:
    """The other arena holds the entry until told, so the first build gives up on a machine of any speed; the
    second one waited if it ends after the file the other makes just before it lets go."""
    spec = load_bot(str(python_bot(tmp_path / "bot")))
    (d,) = env.declared(spec)
    (own_cache / "envs").mkdir(parents=True)
    released = tmp_path / "released"
    code = HOLD.format(root=str(ROOT), entry=str(own_cache / "envs" / deps.key(d)), released=str(released))
    holder = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "held\n"
        with pytest.raises(BotConfigError, match="bot 'pydeps': .*another arena has been building this environment"):
            env.prepare(spec, timeout=0.3)
        assert holder.stdin is not None
        holder.stdin.write("go\n")
        holder.stdin.flush()
        build_bot(spec)
        assert released.exists()
    finally:
        if holder.stdin is not None:
            holder.stdin.close()
        holder.wait()
    assert len(entries(own_cache)) == 1


def test_a_killed_install_is_never_used_and_is_cleared_by_the_next_build(
        tmp_path: Path, own_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An arena killed while pip waits on an index that never answers leaves a folder no lookup returns."""
    directory = python_bot(tmp_path / "bot")
    (directory / "requirements.txt").write_text("--find-links wheels\ncabodep==1.0\n")  # asks the index too
    spec = load_bot(str(directory))
    (d,) = env.declared(spec)
    key = deps.key(d)
    with socket.socket() as silent:  # accepts connections, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(16)
        index = f"http://127.0.0.1:{silent.getsockname()[1]}/simple"
        code = BUILD.format(root=str(ROOT), directory=str(directory))
        builder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                   env={**os.environ, "PIP_INDEX_URL": index, "PIP_DEFAULT_TIMEOUT": "60"},
                                   start_new_session=True)
        try:
            silent.settimeout(60)
            waiting, _ = silent.accept()  # pip asks the index: the build is in pip now, waiting for an answer
            time.sleep(0.5)
            assert builder.poll() is None
            waiting.close()
        finally:
            os.killpg(builder.pid, signal.SIGKILL)
            builder.wait()
    (left,) = entries(own_cache)
    (left / cache.MARKER).write_text("{}")  # even a marker does not publish it
    assert cache.lookup(key) is None
    with pytest.raises(BotConfigError, match="not installed"):
        resolve_command(spec)
    outcome = play(spec, "none")
    assert [f.kind for f in outcome.faults] == [FaultKind.STARTUP] and "not installed" in outcome.faults[0].detail
    monkeypatch.setenv("PIP_NO_INDEX", "1")
    build_bot(spec)
    assert not left.exists() and len(entries(own_cache)) == 1 and cache.lookup(key) is not None


@pytest.mark.parametrize("manifest,expected", [
    ("requirements: ../outside.txt\n",
     "field 'requirements' names '../outside.txt', which is not a file in the bot directory"),
    ("requirements: missing.txt\n", "field 'requirements' names 'missing.txt'"),
    ("requirements: [a.txt]\n", "field 'requirements' must be a string"),
    ("python: no-such-python3\n", "field 'python' names 'no-such-python3', which is not an executable Python"),
])
def test_bad_declarations_are_refused_naming_the_file(tmp_path: Path, manifest: str, expected: str) -> None:
    directory = python_bot(tmp_path / "bot", manifest=manifest)
    (tmp_path / "outside.txt").write_text("numpy\n")
    with pytest.raises(BotConfigError) as info:
        load_bot(str(directory))
    assert str(info.value).startswith(str(directory / "bot.yaml")) and expected in str(info.value)


def test_a_requirements_file_named_by_the_manifest(tmp_path: Path, own_cache: Path) -> None:
    directory = python_bot(tmp_path / "bot", manifest="requirements: deps/play.txt\n")
    (directory / "deps").mkdir()
    (directory / "requirements.txt").rename(directory / "deps" / "base.txt")
    (directory / "deps" / "play.txt").write_text("-r base.txt\n")
    (directory / "deps" / "base.txt").write_text("--no-index\n--find-links ../wheels\ncabodep==1.0\n")
    readable(directory)
    spec = load_bot(str(directory))
    (d,) = env.declared(spec)
    assert d.inputs == ("deps/play.txt", "deps/base.txt", "wheels")
    build_bot(spec)
    assert play(spec, "none").faults == ()


def test_the_named_interpreter_makes_the_environment_and_bwrap_shows_its_prefix(tmp_path: Path,
                                                                               own_cache: Path) -> None:
    """A Python outside the system directories (pyenv's, here the arena's own base) works under bwrap."""
    base = os.path.realpath(sys.executable)
    if base.startswith(("/usr/", "/bin/")):
        pytest.skip("the arena's Python is a system one: no interpreter outside the system directories to name")
    need_backend("bwrap")
    directory = python_bot(tmp_path / "bot", manifest=f"python: {base}\n")
    spec = load_bot(str(directory))
    assert spec.python == base
    build_bot(spec, get_backend("bwrap"))
    python = resolve_command(spec)[0]
    assert os.path.realpath(python) == base
    outcome = play(spec, "bwrap")
    assert outcome.faults == (), outcome.faults


def test_a_read_only_bot_directory_works(tmp_path: Path, own_cache: Path) -> None:
    """The source is bind-mounted read-only (in a private mount namespace) and played through the CLI."""
    if os.geteuid() != 0 or not shutil.which("unshare"):
        pytest.skip("needs root and unshare for a private read-only bind mount")
    source = python_bot(tmp_path / "source")
    mount = tmp_path / "ro-bot"
    mount.mkdir(mode=0o755)
    os.chmod(tmp_path, 0o755)
    script = (f"mount --bind {source} {mount} && mount -o remount,bind,ro {mount} && "
              f"! touch {mount}/probe 2>/dev/null && "
              f"exec {ROOT / '.venv' / 'bin' / 'arena'} play {mount} {ROOT / 'bots' / 'random'} --seed 5 "
              f"--sandbox bwrap --startup-ms 20000 --move-ms 5000 --json")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path,
                          env={**os.environ, cache.ENV_VAR: str(own_cache)})
    if done.returncode != 0 and "unshare failed" in done.stderr:
        pytest.skip(f"no private mount namespace here: {done.stderr.strip()}")
    assert done.returncode == 0, done.stdout + done.stderr
    assert json.loads(done.stdout)["faults"] == [], done.stdout
    assert len(entries(own_cache)) == 1


def test_the_cache_is_arena_cache_else_xdg_else_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.delenv(cache.ENV_VAR, raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert cache.envs() == tmp_path / "home" / ".cache" / "cabo-arena" / "envs"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.envs() == tmp_path / "xdg" / "cabo-arena" / "envs"
    monkeypatch.setenv(cache.ENV_VAR, str(tmp_path / "mine"))
    assert cache.envs() == tmp_path / "mine" / "envs"


def test_a_requirements_file_of_comments_alone_needs_no_environment(tmp_path: Path, own_cache: Path) -> None:
    directory = python_bot(tmp_path / "bot")
    (directory / "requirements.txt").write_text("# numpy==2.1.3\n\n   # one day\n")
    spec = load_bot(str(directory))
    assert env.declared(spec) == ()
    build_bot(spec)
    assert resolve_command(spec)[0] == deps.bot_python() and entries(own_cache) == []
