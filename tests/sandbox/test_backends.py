"""Backend selection: names, auto choice, availability reasons."""

from __future__ import annotations

import pickle
import sys
from pathlib import Path

import pytest

from arena.sandbox import (
    Backend,
    BwrapBackend,
    LaunchSpec,
    Limits,
    NoneBackend,
    SandboxError,
    SandboxUnavailable,
    get_backend,
    resolve_backend,
)

from .conftest import BOTS, leftovers, soon


def test_auto_picks_bwrap_when_available() -> None:
    ok, why = BwrapBackend().available()
    backend, reason = resolve_backend("auto")
    if ok:
        assert isinstance(backend, BwrapBackend)
        assert "bwrap" in reason
    else:
        assert isinstance(backend, NoneBackend)
        assert why in reason
    assert type(get_backend("auto")) is type(backend)


def test_bwrap_probe_is_cached() -> None:
    first = BwrapBackend().available()
    assert BwrapBackend().available() is first


def test_unknown_backend_lists_allowed_names() -> None:
    with pytest.raises(SandboxError, match="auto, none, bwrap, docker"):
        get_backend("chroot")
    with pytest.raises(SandboxError, match="auto, none, bwrap, docker"):
        resolve_backend("firejail")


def test_none_is_always_available() -> None:
    backend, reason = resolve_backend("NONE")
    assert isinstance(backend, NoneBackend) and reason


def test_missing_bwrap_binary_is_reported() -> None:
    ok, why = BwrapBackend("/nonexistent/bwrap").available()
    assert not ok and "/nonexistent/bwrap" in why


def test_launch_spec_is_frozen_and_picklable() -> None:
    spec = LaunchSpec(["/usr/bin/python3", "bot.py"], "rel/dir", Limits(cpu_seconds=5), {"A": "1"})  # type: ignore[arg-type]
    assert spec.command == ("/usr/bin/python3", "bot.py")
    assert spec.env == (("A", "1"),)
    assert spec.bot_dir is not None and spec.bot_dir.startswith("/")
    assert pickle.loads(pickle.dumps(spec)) == spec
    with pytest.raises(AttributeError):
        spec.command = ()  # type: ignore[misc]
    with pytest.raises(ValueError):
        Limits(memory_mb=0)
    with pytest.raises(ValueError):
        LaunchSpec(())


def test_missing_program_or_dir_raises_sandbox_error() -> None:
    with pytest.raises(SandboxError):
        NoneBackend().start(LaunchSpec(("/nonexistent/program",)))
    with pytest.raises(SandboxError, match="does not exist"):
        NoneBackend().start(LaunchSpec(("/bin/true",), "/nonexistent/bot/dir"))


def test_venv_interpreter_runs_under_every_backend(backend: Backend) -> None:
    # sys.executable may live under a hidden dir (e.g. /root/.pyenv); bwrap must expose it
    spec = LaunchSpec((sys.executable, str(BOTS / "echo.py")), str(BOTS))
    bot = backend.start(spec)
    try:
        bot.send(b"ok\n", soon(10))
        assert bot.readline(soon(10)) == b"ok", bot.stderr_tail()
    finally:
        bot.kill()
    assert leftovers(bot.token) == []


def test_auto_falls_back_to_none_with_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(BwrapBackend, "available", lambda self: (False, "no user namespaces here"))
    backend, reason = resolve_backend("auto")
    assert isinstance(backend, NoneBackend)
    assert "none" in reason and "no user namespaces here" in reason
    with pytest.raises(SandboxUnavailable, match="no user namespaces here"):
        resolve_backend("bwrap")


def test_bwrap_bot_under_a_hidden_dir_reads_its_shared_lib(tmp_path):
    """A project checked out under /home (hidden by bwrap) still runs bots that import ../lib."""
    import os
    import shutil
    import tempfile
    import time

    from arena.sandbox import BwrapBackend, LaunchSpec

    backend = BwrapBackend()
    ok, why = backend.available()
    if not ok:
        pytest.skip(why)
    root = tempfile.mkdtemp(dir="/var/tmp")  # /var/tmp is one of the hidden dirs
    try:
        os.makedirs(f"{root}/bots/mine")
        os.makedirs(f"{root}/bots/lib")
        with open(f"{root}/bots/lib/helper.py", "w") as f:
            f.write("WORD = 'shared'\n")
        with open(f"{root}/bots/mine/bot.py", "w") as f:
            f.write("import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'lib'))\n"
                    "import helper\nprint(helper.WORD, flush=True)\n")
        spec = LaunchSpec(("/usr/bin/python3", f"{root}/bots/mine/bot.py"), f"{root}/bots/mine")
        with backend.start(spec) as bot:
            assert bot.readline(time.monotonic() + 10) == b"shared", bot.stderr_tail()
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_bwrap_hides_the_arena_cwd_and_the_paths_a_spec_names(monkeypatch: pytest.MonkeyPatch) -> None:
    """Results (replays of deals still to be replayed) and configs (the master seed) stay unreadable."""
    import shutil
    import tempfile

    from arena.sandbox import BwrapBackend

    backend = BwrapBackend()
    ok, why = backend.available()
    if not ok:
        pytest.skip(why)
    root = Path(__file__).resolve().parents[2]
    cwd, results = tempfile.mkdtemp(dir=root), tempfile.mkdtemp(dir=root)  # outside every default-hidden dir
    try:
        (Path(cwd) / "league.yaml").write_text("seed: s3cret\n")
        (Path(results) / "replay.txt").write_text("the deal\n")
        monkeypatch.chdir(cwd)
        spec = LaunchSpec(("/usr/bin/python3", str(BOTS / "echo.py")), str(BOTS), hidden=(results,))
        for b, hides in ((backend, True), (NoneBackend(), False)):
            with b.start(spec) as bot:
                for path, secret in ((f"{cwd}/league.yaml", "seed: s3cret"), (f"{results}/replay.txt", "the deal")):
                    bot.send(f"read {path}\n".encode(), soon(10))
                    answer = bot.readline(soon(10)).decode()
                    assert answer == ("error: FileNotFoundError" if hides else f"read: {secret}"), (b.name, answer)
                bot.send(b"ping\n", soon(10))  # its own directory is still there
                assert bot.readline(soon(10)) == b"ping"
        scratch = tempfile.mkdtemp()
        monkeypatch.chdir(scratch)  # under /tmp, which the private /tmp replaces: nothing to mount
        spec = LaunchSpec(("/usr/bin/python3", str(BOTS / "echo.py")), str(BOTS), hidden=(scratch,))
        with backend.start(spec) as bot:
            bot.send(f"read {scratch}/none\n".encode(), soon(10))
            assert bot.readline(soon(10)) == b"error: FileNotFoundError", bot.stderr_tail()
        shutil.rmtree(scratch, ignore_errors=True)
    finally:
        shutil.rmtree(cwd, ignore_errors=True)
        shutil.rmtree(results, ignore_errors=True)
