"""What a bwrap bot sees of the host, and as whom: an allowlist, an unprivileged uid.

The attacker is ``tests/bots/snoop.py``, which tries each way out and reports every
outcome; the tests assert each one from that report, through the sandbox alone and
through a whole ``arena play``.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.sandbox import BwrapBackend, LaunchSpec, SandboxError, get_backend
from arena.sandbox.allowlist import exposed_paths, mount_args

from .conftest import BOTS, PYTHON, leftovers, soon

REPO = Path(__file__).resolve().parents[2]
FIXED_ATTEMPTS = ("shadow", "root", "home", "proc1_environ", "write_outside_tmp", "connect_loopback",
                  "connect_public", "user_namespace")


@pytest.fixture
def bwrap() -> BwrapBackend:
    backend = get_backend("bwrap")
    ok, why = backend.available()
    if not ok:
        pytest.skip(f"bwrap unavailable: {why}")
    assert isinstance(backend, BwrapBackend)
    return backend


def snoop_bot(where: Path) -> Path:
    """A copy of the snoop bot in its own directory, as a bot author would ship it."""
    where.mkdir(mode=0o755)
    shutil.copy(BOTS / "snoop.py", where / "snoop.py")
    return where


def outcomes(stderr: str) -> dict[str, str]:
    """``{attempt: "ok ..." | "denied ..."}`` from the snoop bot's report."""
    out = {}
    for line in stderr.splitlines():
        if line.startswith("SNOOP "):
            _, name, outcome = line.split(" ", 2)
            out[name] = outcome
    return out


@pytest.fixture
def arena_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The arena's working directory, with a configuration and a results directory in it."""
    work = tmp_path / "arena"
    (work / "results" / "replays").mkdir(parents=True)
    (work / "league.yaml").write_text("seed: 12345  # the master seed\n")
    (work / "results" / "results.sqlite").write_text("stored results\n")
    monkeypatch.chdir(work)
    return work


def test_every_attempt_fails_under_bwrap(bwrap: BwrapBackend, tmp_path: Path, arena_dir: Path) -> None:
    bot = snoop_bot(tmp_path / "snoop")
    targets = [str(arena_dir / "league.yaml"), str(REPO / "bots" / "heuristic"), str(arena_dir / "results"),
               str(REPO / "README.md")]
    spec = LaunchSpec((PYTHON, str(bot / "snoop.py"), *targets), str(bot), hidden=(str(arena_dir / "results"),))
    proc = bwrap.start(spec)
    try:
        with pytest.raises(Exception):
            proc.readline(soon(10))  # it exits 3 without a line
        got = outcomes(proc.stderr_tail())
    finally:
        proc.kill()
    assert set(got) == {*FIXED_ATTEMPTS, "arg0", "arg1", "arg2", "arg3"}, got
    allowed = {name: outcome for name, outcome in got.items() if not outcome.startswith("denied")}
    if os.geteuid() != 0:
        # Run by another user, the namespace's init runs as the bot's own uid: its /proc/1 is the
        # sandbox's init, whose environment is the bot's own scrubbed one, never the host's.
        own = allowed.pop("proc1_environ", "denied")
        assert own.startswith("denied") or own.replace("\0", " ").startswith(
            "ok PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp"), own
    assert allowed == {}, allowed
    assert "No such file" in got["root"] and "No such file" in got["home"]  # not there at all
    assert "No such file" in got["arg1"]  # another bot's directory
    assert "No such file" in got["arg2"]  # the results directory
    assert "Permission denied" in got["shadow"] or "No such file" in got["shadow"]
    # root arena: the seccomp filter (EPERM); otherwise bwrap's --disable-userns (a limit of 0: ENOSPC)
    refusal = "Operation not permitted" if os.geteuid() == 0 else "No space left on device"
    assert refusal in got["user_namespace"], got["user_namespace"]
    assert leftovers(proc.token) == []


def test_the_bot_runs_as_an_unprivileged_uid_seen_from_the_host(bwrap: BwrapBackend) -> None:
    if os.geteuid() != 0:
        pytest.skip("an arena that is not root cannot run bots as another uid; its bots run as its own")
    proc = bwrap.start(LaunchSpec((PYTHON, str(BOTS / "echo.py")), str(BOTS)))
    try:
        proc.send(b"env\n", soon(5))
        assert json.loads(proc.readline(soon(5)))  # it runs and answers
        # the bot itself, not bwrap (root, outside the sandbox) whose command line names it too
        bot_pids = [pid for pid in _pids_with_token(proc.token)
                    if _read(f"/proc/{pid}/cmdline").split(b"\0")[0] == PYTHON.encode()]
        assert bot_pids, "the bot's process was not found"
        for pid in bot_pids:
            status = _read(f"/proc/{pid}/status").decode()
            fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
            assert fields["Uid"].split() == [str(bwrap.bot_uid)] * 4, fields["Uid"]
            assert fields["Gid"].split() == [str(bwrap.bot_uid)] * 4, fields["Gid"]
            assert fields["Groups"].strip() in ("", str(bwrap.bot_uid))
            assert int(fields["CapEff"], 16) == 0 and int(fields["CapPrm"], 16) == 0
            assert int(fields["CapBnd"], 16) == 0
            assert fields["NoNewPrivs"].strip() == "1"
            assert fields["Seccomp"].strip() == "2"  # the user-namespace filter
    finally:
        proc.kill()


def test_an_unreadable_bot_directory_is_one_clear_error(bwrap: BwrapBackend, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("only a root arena runs bots as another uid")
    bot = snoop_bot(tmp_path / "private")
    bot.chmod(0o700)
    with pytest.raises(SandboxError, match=r"private has mode 0700: .* uid 65534 and cannot read it; .*chmod -R o\+rX"):
        bwrap.start(LaunchSpec((PYTHON, str(bot / "snoop.py")), str(bot)))


def test_arena_play_reproduction_shows_no_secret(bwrap: BwrapBackend, tmp_path: Path, arena_dir: Path) -> None:
    """The issue's reproduction: the fault's stderr tail of `arena play ./snoop bots/random`."""
    bot = snoop_bot(arena_dir / "snoop")
    (bot / "bot.yaml").write_text('name: snoop\nrun: ["{python}", "snoop.py", "%s", "%s"]\n'
                                  % (REPO / "bots" / "heuristic" / "bot.yaml", arena_dir / "results"))
    arena = Path(sys.executable).with_name("arena")
    done = subprocess.run([str(arena), "play", "./snoop", str(REPO / "bots" / "random"), "--sandbox", "bwrap",
                           "--seed", "3", "--json", "--replay", str(tmp_path / "replay.jsonl")],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    [fault] = [f for f in result["faults"] if f["bot"] == "snoop"]
    assert fault["kind"] == "startup"
    got = outcomes(fault["stderr"])
    assert set(FIXED_ATTEMPTS) <= set(got), fault["stderr"]
    assert all(o.startswith("denied") for o in got.values()), got
    assert "root:" not in fault["stderr"]


def test_mounts_are_an_allowlist(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "mine"
    (bot / "results").mkdir(parents=True)
    (tmp_path / "bots" / "lib").mkdir()
    args = mount_args(LaunchSpec(("/usr/bin/python3", str(bot / "bot.py")), str(bot)),
                      hidden=[str(bot / "results"), str(tmp_path / "elsewhere")])
    binds = [args[i + 1] for i, a in enumerate(args) if a == "--ro-bind"]
    assert binds[:1] == ["/usr"]
    assert str(bot) in binds and str(tmp_path / "bots" / "lib") in binds
    assert all(b == "/usr" or b.startswith(("/etc/", "/lib", "/bin", "/sbin")) or b.startswith(str(tmp_path))
               for b in binds), binds
    assert not any(b in ("/", "/etc", "/root", "/home", "/var", "/opt", "/work") for b in binds)
    # results inside the bot directory are covered; a hidden path outside every bound one needs nothing
    assert args[args.index(str(bot / "results")) - 1] == "--tmpfs"
    assert str(tmp_path / "elsewhere") not in args


def test_an_interpreter_outside_the_system_directories_exposes_its_prefix_only(tmp_path: Path) -> None:
    prefix = tmp_path / "opt" / "python3.11"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    (prefix / "bin" / "python3").write_text("#!/bin/sh\n")
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True)
    os.symlink(prefix / "bin" / "python3", venv / "bin" / "python")
    spec = LaunchSpec((str(venv / "bin" / "python"), "bot.py"), None)
    assert exposed_paths(spec) == [str(venv), str(prefix)]
    spec = LaunchSpec(("/usr/bin/python3", str(tmp_path / "loose" / "bot.py")), None)
    (tmp_path / "loose").mkdir()
    (tmp_path / "loose" / "bot.py").write_text("")
    assert exposed_paths(spec) == [str(tmp_path / "loose")]  # with no bot directory, the script's folder is it


def _pids_with_token(token: str) -> list[int]:
    needle = f"ARENA_SANDBOX={token}".encode()
    return [int(p) for p in os.listdir("/proc") if p.isdigit() and needle in _read(f"/proc/{p}/environ").split(b"\0")]


def _read(path: str) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""
