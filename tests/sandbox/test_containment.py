"""Hostile bots: each must be contained and leave no process behind after kill/close."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

import pytest

from arena.sandbox import Backend, ChannelClosed, LaunchSpec, Limits, cgroups, orphans

from .conftest import BOTS, Launcher, Waits, leftovers, soon


def test_kill_is_idempotent_and_leaves_nothing(launch: Launcher) -> None:
    bot = launch("echo.py")
    bot.send(b"hi\n", soon(5))
    assert bot.readline(soon(5)) == b"hi"
    bot.kill()
    bot.kill()
    bot.close()
    assert not bot.alive()
    assert leftovers(bot.token) == []
    with pytest.raises(ChannelClosed):
        bot.send(b"hi\n", soon(1))
    with pytest.raises(ChannelClosed):
        bot.readline(soon(1))


def test_context_manager_closes(backend: Backend) -> None:
    spec = LaunchSpec(("/usr/bin/python3", str(BOTS / "echo.py")), str(BOTS))
    with backend.start(spec) as bot:
        bot.send(b"x\n", soon(5))
        assert bot.readline(soon(5)) == b"x"
    assert bot.returncode == 0  # stdin EOF let it exit cleanly
    assert leftovers(bot.token) == []


def test_ignores_sigterm_closed_within_grace(launch: Launcher) -> None:
    bot = launch("ignore_sigterm.py")
    assert bot.readline(soon(5)) == b"ready"
    waits = Waits(bot)
    bot.close(grace=0.3)
    assert time.monotonic() - waits.since >= 0.3  # it was given its grace...
    assert waits.all_end_by(waits.since + 0.3)  # ...and no more: then killed
    assert not bot.alive()
    assert leftovers(bot.token) == []


def test_grandchild_is_killed(launch: Launcher) -> None:
    marker = secrets.token_hex(6)
    bot = launch("fork_grandchild.py", marker)
    assert bot.readline(soon(5)).startswith(b"ready ")
    assert len(leftovers(bot.token, marker)) >= 3
    bot.kill()
    assert leftovers(bot.token, marker) == []


@pytest.mark.parametrize("flags", [("--scrub-env",), ("--main-exits",), ("--scrub-env", "--main-exits")],
                         ids=["scrub-env", "main-exits", "scrub-env-main-exits"])
def test_setsid_double_fork_is_killed(launch: Launcher, backend: Backend, flags: tuple[str, ...]) -> None:
    marker = str(secrets.randbelow(10**9)).zfill(9)
    bot = launch("setsid_double_fork.py", marker, *flags)
    assert bot.readline(soon(5)).startswith(b"ready ")
    if "--main-exits" in flags:
        with pytest.raises(ChannelClosed):
            bot.readline(soon(5))
    if "--main-exits" in flags and backend.name == "bwrap":
        pass  # the PID namespace dies with the bot's main process, taking the daemon along
    else:
        assert leftovers(bot.token, marker), "the daemonised grandchild should be running"
    bot.kill()
    assert leftovers(bot.token, marker) == []


def test_memory_hog_hits_rlimit_and_dies(launch: Launcher) -> None:
    bot = launch("memory_hog.py", limits=Limits(memory_mb=256))
    with pytest.raises(ChannelClosed) as info:
        bot.readline(soon(60))
    assert info.value.returncode not in (None, 0)
    assert "MemoryError" in bot.stderr_tail()


def test_cpu_limit_kills_spinning_bot(launch: Launcher) -> None:
    bot = launch("cpu_spin.py", limits=Limits(cpu_seconds=1))
    assert bot.readline(soon(5)) == b"ready"
    with pytest.raises(ChannelClosed) as info:
        bot.readline(soon(120))  # one CPU second: at a tenth of a core still ten seconds, far within
    # killed by SIGXCPU (none: -24; bwrap reports 128 + 24)
    assert info.value.returncode in (-24, 152)


def test_rlimits_are_applied(launch: Launcher) -> None:
    limits = Limits(cpu_seconds=7, memory_mb=300, file_size_mb=2, open_files=32)
    bot = launch("echo.py", limits=limits)
    bot.send(b"limits\n", soon(5))
    got = json.loads(bot.readline(soon(5)))
    assert got["RLIMIT_CPU"] == [7, 8]
    assert got["RLIMIT_AS"] == [300 << 20, 300 << 20]
    assert got["RLIMIT_FSIZE"] == [2 << 20, 2 << 20]
    assert got["RLIMIT_NOFILE"] == [32, 32]


def test_network_is_unreachable_under_bwrap(launch: Launcher, backend: Backend) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        bot = launch("network.py", str(port))
        result = json.loads(bot.readline(soon(5)))
    if backend.name == "bwrap":
        assert result["tcp_host"].startswith("error"), result
        assert result["udp_route"].startswith("error"), result
    else:
        assert result["tcp_host"] == "ok", result  # proves the probe itself works


def test_writes_outside_tmp(launch: Launcher, backend: Backend) -> None:
    tag = secrets.token_hex(4)
    targets = [str(BOTS / f"PWNED-{tag}"), f"/etc/arena_pwned_{tag}"]
    try:
        bot = launch("write_outside.py", *targets)
        result = json.loads(bot.readline(soon(5)))
        if backend.name == "bwrap":
            for path in targets:
                assert result[path].startswith("error"), result
                assert not os.path.exists(path)
    finally:
        for path in targets:
            Path(path).unlink(missing_ok=True)


def test_environment_is_scrubbed(launch: Launcher, backend: Backend, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SECRET", "hunter2")
    bot = launch("echo.py", env=(("BOT_SEED", "42"),))
    bot.send(b"env\n", soon(5))
    env = json.loads(bot.readline(soon(5)))
    assert "SECRET" not in env
    assert "hunter2" not in json.dumps(env)
    tmp = "/tmp" if backend.name == "bwrap" else bot.workdir
    assert env.pop("ARENA_SANDBOX") == bot.token
    expected = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": tmp, "TMPDIR": tmp,
                "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1", "BOT_SEED": "42"}
    if backend.name == "bwrap":
        expected["PWD"] = str(BOTS)  # bwrap --chdir sets it: the bot's own directory
    # the interpreter itself may add LC_CTYPE; nothing from the arena may appear
    assert {k: v for k, v in env.items() if k != "LC_CTYPE"} == expected


def test_tmpdir_is_private_and_removed_after_close(launch: Launcher, backend: Backend) -> None:
    """none: a private host directory, removed on close. bwrap: a tmpfs of its own, gone with it.
    (The working directory is the bot's own: tests/sandbox/test_workdir.py.)"""
    bot = launch("echo.py")
    bot.send(b"env\n", soon(5))
    tmp = json.loads(bot.readline(soon(5)))["TMPDIR"]
    bot.send(f"touch {tmp}/scratch.txt\n".encode(), soon(5))
    assert bot.readline(soon(5)).decode() == f"{tmp}/scratch.txt"
    bot.send(f"read {tmp}/scratch.txt\n".encode(), soon(5))
    assert bot.readline(soon(5)) == b"read: hello"
    if backend.name == "bwrap":
        assert tmp == "/tmp" and bot.workdir is None
        assert not os.path.exists("/tmp/scratch.txt")  # not the host's /tmp
        bot.close()
        return
    workdir = bot.workdir
    assert workdir and tmp == workdir
    assert oct(os.stat(workdir).st_mode & 0o777) == "0o700"
    assert (Path(workdir) / "scratch.txt").read_text() == "hello\n"
    bot.close()
    assert not os.path.exists(workdir)


@pytest.mark.parametrize("backend", ["bwrap"], indirect=True)  # under none: only file_size_mb per file
def test_tmp_is_capped_under_bwrap(launch: Launcher) -> None:
    """A bot filling its /tmp fills a tmpfs of ``tmp_mb``, never the host's disk."""
    bot = launch("tmp_filler.py", limits=Limits(tmp_mb=4, file_size_mb=1))
    report = bot.readline(soon(20)).decode()
    written = int(report.split()[1])
    assert 3 << 20 <= written <= 4 << 20, report
    assert "No space left on device" in report


def test_fork_and_exit_chain_is_killed(launch: Launcher) -> None:
    marker = secrets.token_hex(6)
    bot = launch("fork_chain.py", marker)
    assert bot.readline(soon(5)) == b"ready"
    time.sleep(0.2)
    assert leftovers(bot.token, marker)  # the chain is too quick to see whole
    bot.kill()
    assert leftovers(bot.token, marker) == []  # all gone when kill() returns


def _session(sid: int) -> dict[int, str]:
    """Pids (zombies included) whose session is ``sid``, with their state letters."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                data = f.read()
        except OSError:
            continue
        fields = data[data.rfind(b")") + 2:].split()
        if int(fields[3]) == sid:
            out[int(name)] = fields[0].decode()
    return out


def _chain_runs(sid: int, seconds: float) -> bool:
    """A fork chain is too quick to catch alive; its new corpses (our zombies) show it runs.

    So does a live member: on a machine short of pids (other chains, our own unreaped
    corpses) its forks fail and it retries without making corpses.
    """
    before = _session(sid)
    time.sleep(seconds)
    after = _session(sid)
    return bool(set(after) - set(before)) or any(state not in "ZXx" for state in after.values())


def _skip_if_swept_elsewhere(token: str) -> None:
    """Every arena process sweeps once, so another arena of this user running at the same time
    (a parallel test run, a tournament) may clean up first; it removes the registration then."""
    from arena.sandbox import orphans

    folder = orphans.registry()
    if folder is not None and not os.path.exists(os.path.join(folder, token)):
        pytest.skip("another arena process of this user swept the orphans first; run without concurrent arenas")


@pytest.mark.parametrize("script, args", [("fork_chain.py", ()), ("setsid_double_fork.py", ()),
                                          ("setsid_double_fork.py", ("--scrub-env",))],
                         ids=["fork-chain", "setsid-daemon", "scrubbed-setsid-daemon"])
def test_bots_left_by_a_killed_arena_are_swept_by_the_next(script: str, args: tuple[str, ...]) -> None:
    """SIGKILL gives an arena no chance to clean up; under none, what its bots started would run forever.

    A daemon that left the bot's group and dropped its token can only be found through
    the bot's cgroup (the process cap's), where there is one.
    """
    import sys

    from arena.sandbox import reaper

    scrubbed = "--scrub-env" in args
    if scrubbed and cgroups.available()[0] is None:
        pytest.skip(f"only the process cap's cgroup finds such a daemon: {cgroups.available()[1]}")
    reaper.ensure_subreaper()  # the orphans come back to us: their corpses stay visible until reaped
    marker = str(secrets.randbelow(10**9)).zfill(9)
    root = Path(__file__).resolve().parents[2]
    program = ("import sys, time; sys.path.insert(0, %r)\n"
               "from arena.sandbox import LaunchSpec, NoneBackend\n"
               "bot = NoneBackend().start(LaunchSpec(('/usr/bin/python3', %r, %r, *%r), %r))\n"
               "bot.readline(time.monotonic() + 60)\n"
               "print(bot.token, bot.pid, flush=True)\n"
               "time.sleep(60)\n") % (str(root), str(BOTS / script), marker, args, str(BOTS))
    arena = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        assert arena.stdout is not None
        token, pid = arena.stdout.readline().split()
        assert token.startswith(f"{arena.pid}.")  # the token names its arena
        assert not orphans.owner_gone(token)
        # The chain bot says "ready" before it forks: kill its arena before the fork and there is no chain.
        end = time.monotonic() + 60
        while not [line for line in leftovers(token, marker) if not line.startswith(f"pid {pid} ")]:
            assert time.monotonic() < end, "the bot never started its processes"
            time.sleep(0.01)
    finally:
        arena.kill()
        arena.wait()
    assert orphans.owner_gone(token)
    sid = int(pid)
    time.sleep(0.3)
    outlived = _chain_runs(sid, 0.3) if script == "fork_chain.py" else bool(leftovers(token, marker))
    _skip_if_swept_elsewhere(token)
    assert outlived, "what the bot started should have outlived its arena"
    hit = orphans.sweep(force=True)
    assert hit or scrubbed  # the scrubbed daemon is neither in the group nor carries the token
    for p in _session(sid):
        try:
            os.waitpid(p, os.WNOHANG)
        except ChildProcessError:
            pass
    assert not _chain_runs(sid, 0.3)
    assert not [line for line in leftovers(token, marker) if "state Z" not in line]
    registry = orphans.registry()
    assert registry is None or token not in os.listdir(registry)


def test_sweep_never_touches_bots_of_a_live_arena(launch: Launcher) -> None:
    from arena.sandbox import orphans

    bot = launch("echo.py")
    assert bot.pid not in orphans.sweep(force=True)
    bot.send(b"still here\n", soon(5))
    assert bot.readline(soon(5)) == b"still here"
    registry = orphans.registry()
    if bot.backend != "docker" and registry is not None:
        assert bot.token in os.listdir(registry)
        bot.kill()
        assert bot.token not in os.listdir(registry)  # a bot killed normally is forgotten


def test_a_sweep_judges_only_arenas_of_its_own_pid_namespace() -> None:
    """An arena in a container numbers its processes apart: a host arena that took its pid for one of its
    own would find it "gone" and kill the container's live bots. Tokens name their PID namespace."""
    dead = subprocess.Popen(["/bin/true"])
    dead.wait()
    here = orphans.pid_namespace()
    assert here and orphans.new_token().split(".")[2] == str(here)
    ours, foreign = (f"{dead.pid}.1.{ns}.{secrets.token_hex(8)}" for ns in (here, here + 1))
    assert orphans.owner_gone(ours) and not orphans.owner_gone(foreign)
    carriers = {token: subprocess.Popen(["sleep", "30"], env={**os.environ, "ARENA_SANDBOX": token},
                                        start_new_session=True) for token in (ours, foreign)}
    try:
        orphans.sweep(force=True)
        carriers[ours].wait(timeout=10)  # a dead arena of this namespace: swept (sleep 30 ends no sooner)
        assert carriers[foreign].poll() is None  # another namespace's: never ours to judge
    finally:
        for process in carriers.values():
            process.kill()
            process.wait()


def test_a_group_number_reused_by_another_process_is_never_signalled() -> None:
    """Group numbers are pids: once a bot's group is gone, a new process (another arena's bot,
    under pid churn) may lead a group of that number. Neither the orphan sweep nor the tree
    kill may signal it."""
    import signal
    import subprocess

    from arena.sandbox import orphans, reaper

    foreign = subprocess.Popen(["sleep", "30"], start_new_session=True)  # leads group foreign.pid
    member = subprocess.Popen(["sleep", "30"], start_new_session=True)
    try:
        # A registration naming that group with another start time: the number was reused.
        assert not orphans._kill_group(foreign.pid, "1", time.monotonic() + 2)
        # A bot member that the scan placed in that group (it left since): the group is not the bot's.
        stale = {member.pid: reaper.ProcInfo(os.getpid(), foreign.pid, foreign.pid, "S")}
        reaper._signal_all(stale, [member.pid], signal.SIGKILL, {member.pid})
        assert member.wait(timeout=5) == -signal.SIGKILL
        time.sleep(0.1)
        assert foreign.poll() is None
    finally:
        for proc in (foreign, member):
            proc.kill()
            proc.wait()


def test_a_pid_from_an_earlier_scan_is_signalled_only_if_it_is_still_that_process() -> None:
    import signal
    import subprocess

    from arena.sandbox import reaper

    proc = subprocess.Popen(["sleep", "30"])
    try:
        reaper._signal(proc.pid, signal.SIGKILL, "1")  # started at another time: a reused pid
        reaper.signal_pinned(proc.pid, signal.SIGKILL, lambda pid: False)
        time.sleep(0.1)
        assert proc.poll() is None
        reaper._signal(proc.pid, signal.SIGKILL, reaper.scan()[proc.pid].start)
        assert proc.wait(timeout=5) == -signal.SIGKILL
    finally:
        proc.kill()
        proc.wait()


def test_fork_bomb_is_capped_by_the_process_limit(launch: Launcher, backend: Backend) -> None:
    """A bot cannot make more than ``Limits.processes`` tasks; the arena and the host go on."""
    parent, why = cgroups.available()
    if parent is None:
        pytest.skip(f"the process cap needs a pids cgroup: {why}")
    bot = launch("fork_bomb.py", limits=Limits(processes=24))
    line = bot.readline(soon(20)).decode()
    made = int(line.split()[1])
    # bwrap's two processes count too; Python may make a helper thread or not
    assert 10 <= made < 24, line
    assert "Resource temporarily unavailable" in line
    assert bot.cgroup is not None and os.path.isdir(bot.cgroup)
    assert cgroups.peak(bot.cgroup) in (None, 24)
    # the arena can still start processes: the cap bound the bot, not the machine
    assert subprocess.run(["/bin/true"], check=False).returncode == 0
    bot.kill()
    assert not os.path.exists(bot.cgroup)
    assert leftovers(bot.token) == []


def test_a_dead_arenas_cgroups_are_swept(tmp_path: Path) -> None:
    """The cgroup of a bot whose arena is gone loses its processes and is removed by the next sweep."""
    parent, why = cgroups.available()
    if parent is None:
        pytest.skip(f"needs a pids cgroup: {why}")
    dead_arena = subprocess.Popen(["/bin/true"])
    dead_arena.wait()
    token = f"{dead_arena.pid}.1.{orphans.pid_namespace()}.{os.urandom(4).hex()}"  # an arena that no longer runs
    path = cgroups.create(token, 8)
    assert path is not None
    sleeper = subprocess.Popen(["/bin/sleep", "60"], preexec_fn=lambda: cgroups.join(path))
    try:
        live = cgroups.create(orphans.new_token(), 8)  # ours: left alone
        assert live is not None
        swept = cgroups.sweep(orphans.owner_gone)
        assert token in swept or not os.path.exists(path)  # or another arena's sweep got there first
        assert sleeper.wait(timeout=10) == -signal.SIGKILL
        assert not os.path.exists(path) and os.path.isdir(live)
        assert cgroups.remove(live) and not os.path.exists(live)
    finally:
        sleeper.kill()
        sleeper.wait()


def test_the_host_directories_of_a_killed_arena_are_removed_by_the_next_and_a_live_ones_kept() -> None:
    """A SIGKILLed arena cannot remove its bots' private directories; a ladder killed and resumed for
    weeks would fill /tmp with them."""
    import sys

    from arena.sandbox import orphans

    root = Path(__file__).resolve().parents[2]
    program = ("import sys, time; sys.path.insert(0, %r)\n"
               "from arena.sandbox import LaunchSpec, NoneBackend\n"
               "bot = NoneBackend().start(LaunchSpec(('/usr/bin/python3', %r), %r))\n"
               "print(bot.workdir, flush=True)\n"
               "time.sleep(60)\n") % (str(root), str(BOTS / "echo.py"), str(BOTS))
    arena = subprocess.Popen([sys.executable, "-c", program], stdout=subprocess.PIPE, text=True)
    try:
        assert arena.stdout is not None
        left = Path(arena.stdout.readline().strip())
        assert left.name.startswith(f"arena-bot-{arena.pid}.") and left.is_dir()
        mine = Path(tempfile.mkdtemp(prefix=orphans.workdir_prefix()))  # this (live) arena's
    finally:
        arena.kill()
        arena.wait()
    try:
        orphans.sweep(force=True)
        assert not left.exists()
        assert mine.is_dir()
    finally:
        shutil.rmtree(mine, ignore_errors=True)
