"""The docker sandbox backend, against a real Docker engine when one answers.

Without an engine every test that needs one is skipped with the reason (never failed);
the rest (selection, the unavailable answer, the image requirement) always run. The
test image ``cabo-arena-test:latest`` is built once per module by
``tests/docker/build-test-image.sh`` (static C programs, ``docker import``: no registry);
start an engine with ``tests/docker/start-dockerd.sh``.

Every test that starts containers checks afterwards that none of them is left:
no container labelled ``cabo-arena`` may belong to this process or to a dead one.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pickle
import select
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import textwrap
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.match.link import TimeControl
from arena.bots.spec import BotSpec, build_bot, load_bot, resolve_command
from arena.match.faults import FaultKind
from arena.game import make_rules
from arena.match.runner import MatchJob, play_batch, play_match
from arena.sandbox import (
    BotProcess,
    BwrapBackend,
    Channel,
    ChannelClosed,
    ChannelTimeout,
    ContainerProcess,
    DockerBackend,
    LaunchSpec,
    Limits,
    LineTooLong,
    NoneBackend,
    SandboxError,
    SandboxUnavailable,
    cleanup_stale,
    get_backend,
    resolve_backend,
)
from arena.sandbox import docker as docker_sandbox
from arena.sandbox.orphans import pid_namespace

from .conftest import Waits
from .docker_support import engine, has_image, host_addresses, leftovers  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[2]
HELPERS = ROOT / "tests" / "docker"
IMAGE = "cabo-arena-test:latest"
BASE = "cabo-arena-base:bookworm"
"""Debian 12 with /usr/bin/python3 (docker/make-base-image.sh), for a Python bot; tests needing it skip without it."""
HELLO = b'{"type":"hello","match":"t","seat":0}\n'
READY = b'{"type":"ready","name":"x"}'


def soon(seconds: float) -> float:
    return time.monotonic() + seconds


def until(condition: Any, seconds: float = 60.0) -> Any:
    """Poll ``condition`` until it holds (its value) or ``seconds`` pass (its last value): a bound that only
    a broken arena reaches, never a duration the test needs."""
    end = time.monotonic() + seconds
    while not (value := condition()) and time.monotonic() < end:
        time.sleep(0.01)
    return value


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def image(engine: Any) -> str:
    """The test image, built (or found up to date) once; skip with the reason if that fails."""
    try:
        proc = subprocess.run(["bash", str(HELPERS / "build-test-image.sh"), IMAGE],
                              capture_output=True, text=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        pytest.skip(f"could not build {IMAGE}: {exc}")
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-5:]
        pytest.skip(f"could not build {IMAGE}: {' | '.join(tail)}")
    return IMAGE


@pytest.fixture
def docker(engine: Any, image: str) -> Iterator[DockerBackend]:
    """The backend with the test image as default; after the test no container may be left."""
    backend = DockerBackend(image)
    yield backend
    assert leftovers(engine) == []


def started(backend: DockerBackend, program: str, *args: str, limits: Limits | None = None) -> ContainerProcess:
    """Start ``/bot/<program>`` and complete the hello/ready handshake."""
    proc = backend.start(LaunchSpec((f"/bot/{program}", *args), limits=limits or Limits()))
    assert isinstance(proc, ContainerProcess)
    try:
        proc.send(HELLO, soon(10))
        assert proc.readline(soon(10)) == READY
    except BaseException:
        proc.kill()
        raise
    return proc


def gone(client: Any, container_id: str) -> bool:
    from docker.errors import NotFound

    try:
        client.api.inspect_container(container_id)
    except NotFound:
        return True
    return False


# ------------------------------------------------------------------ without an engine

def test_auto_never_picks_docker(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: Any) -> tuple[bool, str]:
        raise AssertionError("auto must not even ask the docker backend")

    monkeypatch.setattr(docker_sandbox.DockerBackend, "available", refuse)
    backend, why = resolve_backend("auto")
    assert isinstance(backend, (BwrapBackend, NoneBackend)) and "docker" not in why
    assert not isinstance(get_backend("auto"), DockerBackend)


def test_unavailable_when_the_engine_socket_does_not_exist(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")
    backend = get_backend("docker")
    assert isinstance(backend, DockerBackend)
    ok, why = backend.available()
    assert not ok
    assert "unix:///nonexistent/docker.sock" in why and "\n" not in why
    with pytest.raises(SandboxUnavailable, match="nonexistent"):
        resolve_backend("docker")
    with pytest.raises(SandboxUnavailable, match="nonexistent"):
        backend.start(LaunchSpec(("/bot/bot",), image=IMAGE))


def test_an_image_is_required() -> None:
    with pytest.raises(SandboxUnavailable, match="needs an image: set 'image' in the bot's bot.yaml"):
        DockerBackend().start(LaunchSpec(("/bot/bot",)))


def test_the_backend_is_the_docker_module_class_and_starts_channels() -> None:
    backend = get_backend("docker")
    assert type(backend) is DockerBackend is docker_sandbox.DockerBackend and backend.name == "docker"
    assert backend.image is None and DockerBackend(image=IMAGE, pids_limit=8).image == IMAGE
    assert issubclass(ContainerProcess, Channel) and issubclass(BotProcess, Channel)
    with pytest.raises(ValueError, match="image reference"):
        DockerBackend(image="has space")
    with pytest.raises(ValueError, match="pids_limit"):
        DockerBackend(pids_limit=0)


def test_a_bot_directory_the_containers_uid_cannot_read_is_refused_before_the_engine_is_asked(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It is the bot's working directory: one line with the chmod, not a bot that cannot open its own files."""
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent/docker.sock")  # never reached
    closed = tmp_path / "bot"
    closed.mkdir(mode=0o700)
    with pytest.raises(SandboxError, match=rf"bot directory {closed} has mode 0700: under docker the bot runs as "
                                           rf"uid 65534 and cannot read it; .*\(chmod -R o\+rX {closed}\)"):
        DockerBackend(IMAGE).start(LaunchSpec(("/bot/bot",), str(closed)))


def test_launch_spec_image_field() -> None:
    spec = LaunchSpec(("/bot/bot",), image="cabo-arena-test:latest")
    assert spec.image == "cabo-arena-test:latest" and LaunchSpec(("x",)).image is None
    assert pickle.loads(pickle.dumps(spec)) == spec
    with pytest.raises(dataclasses.FrozenInstanceError):
        spec.image = "other"  # type: ignore[misc]
    for bad in ("", "has space", "tab\there"):
        with pytest.raises(ValueError, match="image"):
            LaunchSpec(("/bot/bot",), image=bad)


# ------------------------------------------------------------------ matches

def test_a_batch_keeps_one_container_per_seat_and_removes_them_at_the_end(docker: DockerBackend,
                                                                          engine: Any) -> None:
    """Tournaments reuse a bot's process for several matches: a container per seat, not per match."""
    bots = tuple(BotSpec(name=f"c{i}", command=("/bot/bot",), image=IMAGE) for i in range(2))
    jobs = [MatchJob(f"docker-batch-{n}", make_rules("standard"), n, bots, sandbox="docker",
                     time=TimeControl(move_ms=3000, startup_ms=15000)) for n in range(3)]
    seen: set[str] = set()
    outcomes = []
    for outcome in play_batch(jobs):
        outcomes.append(outcome)
        seen.update(info["Id"] for info in engine.api.containers(filters={"label": "cabo-arena"}))
    assert [o.faults for o in outcomes] == [(), (), ()]
    assert len(seen) == 2  # the same two containers served all three matches
    alone = play_match(jobs[1])
    assert (alone.totals, alone.rounds) == (outcomes[1].totals, outcomes[1].rounds)


@pytest.mark.parametrize("preset,players", [("standard", 4), ("espanola", 2)])
def test_c_random_plays_a_full_match(docker: DockerBackend, preset: str, players: int) -> None:
    bots = tuple(BotSpec(name=f"c{i}", command=("/bot/bot",), image=IMAGE) for i in range(players))
    outcome = play_match(MatchJob(f"docker-{preset}", make_rules(preset), 11, bots, sandbox="docker",
                                  time=TimeControl(move_ms=3000, startup_ms=15000)))
    assert outcome.sandbox == "docker"
    assert outcome.faults == () and not any(outcome.forfeited)
    assert outcome.decisions > 0 and all(s.decisions > 0 for s in outcome.stats)


def test_a_bot_directory_is_mounted_read_only(docker: DockerBackend) -> None:
    """A manifest bot with `image:` runs its own (host-built, static) program from its directory."""
    spec = load_bot(str(ROOT / "bots" / "c-random"))
    if not (ROOT / "bots" / "c-random" / "bot").exists():
        build_bot(spec)
    spec = dataclasses.replace(spec, image=IMAGE)
    command = tuple(resolve_command(spec))
    assert command[0].startswith(str(ROOT))  # a host path, made visible by the mount
    with docker.start(LaunchSpec(command, spec.directory, image=spec.image)) as proc:
        proc.send(HELLO, soon(10))
        assert json.loads(proc.readline(soon(10)))["name"] == "c-random"
    outcome = play_match(MatchJob("docker-dir", make_rules("espanola"), 5, (spec, dataclasses.replace(spec, name="c2")),
                                  sandbox="docker", time=TimeControl(move_ms=3000, startup_ms=15000)))
    assert outcome.faults == ()


def test_a_bot_runs_in_its_read_only_directory_with_a_writable_tmpdir(docker: DockerBackend, engine: Any,
                                                                     tmp_path: Path) -> None:
    """As under none and bwrap (test_workdir.py): the bot opens its data file by relative path, cannot
    write beside it, and writes its TMPDIR. Needs the Debian base image for its Python."""
    if not has_image(engine, BASE):
        pytest.skip(f"no {BASE} on the engine: make it with docker/make-base-image.sh")
    directory = tmp_path / "bot"
    directory.mkdir()
    shutil.copyfile(ROOT / "tests" / "bots" / "cwd_probe.py", directory / "bot.py")
    (directory / "weights.json").write_text('{"index": 0}\n')
    for path in (tmp_path, directory, *directory.iterdir()):
        path.chmod(0o755 if path.is_dir() else 0o644)

    def ask(proc: Channel, command: str) -> str:
        proc.send(f"{command}\n".encode(), soon(10))
        return proc.readline(soon(10)).decode()

    with docker.start(LaunchSpec(("/usr/bin/python3", str(directory / "bot.py")), str(directory),
                                 image=BASE)) as proc:
        assert ask(proc, "cwd") == str(directory)
        assert ask(proc, "read weights.json") == 'read: {"index": 0}'
        assert ask(proc, "write cache.json") == "error: OSError: Read-only file system"
        assert json.loads(ask(proc, "env"))["TMPDIR"] == "/tmp"
        assert ask(proc, "write /tmp/scratch") == "wrote /tmp/scratch"
        assert ask(proc, "read /tmp/scratch") == "read: written"
    assert sorted(p.name for p in directory.iterdir()) == ["bot.py", "weights.json"]


def test_memory_hog_is_oom_killed_and_the_match_goes_on(docker: DockerBackend) -> None:
    bots = (BotSpec(name="random", command=("/bot/bot",), image=IMAGE),
            BotSpec(name="hog", command=("/bot/memhog",), image=IMAGE))
    outcome = play_match(MatchJob("docker-hog", make_rules("standard"), 3, bots, sandbox="docker",
                                  limits=Limits(memory_mb=64), time=TimeControl(move_ms=5000, startup_ms=15000)))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(1, FaultKind.EXIT)]
    detail = outcome.faults[0].detail
    assert "out of memory" in detail and "137" in detail, detail
    assert "hog:" in outcome.faults[0].stderr
    assert outcome.forfeited == (False, True) and outcome.places[0] == 1


def test_a_stderr_flooder_costs_a_match_no_more_than_its_time_limits(docker: DockerBackend, engine: Any) -> None:
    """Kept in the match by the fallback policy until its third fault, its flood filled the attach stream,
    and its container took the SDK call's whole API_TIMEOUT (60 s) to remove, every match."""
    bots = (BotSpec(name="random", command=("/bot/bot",), image=IMAGE),
            BotSpec(name="flood", command=("/bot/stderr_flood",), image=IMAGE))
    time_control = TimeControl(move_ms=10000, startup_ms=30000)  # the flooder's faults are its replies, not its time
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        outcome = play_match(MatchJob("docker-flood", make_rules("standard"), 3, bots, sandbox="docker",
                                      fault_policy="fallback", time=time_control))
    assert outcome.forfeited == (False, True) and [f.seat for f in outcome.faults] == [1, 1, 1]  # max_faults
    # The mechanism, not a duration: no removal waited out the API call (it warned "could not be removed").
    assert not [w for w in caught if "could not be removed" in str(w.message)]
    assert not [t.name for t in threading.enumerate() if t.name.startswith(docker_sandbox.REMOVER_NAME)]


# ------------------------------------------------------------------ the channel

def test_lines_stderr_and_exit_status(docker: DockerBackend, engine: Any) -> None:
    proc = started(docker, "echo")
    try:
        assert proc.backend == "docker" and proc.workdir is None and proc.pid > 0 and proc.alive()
        proc.send(b"err something on stderr\nlines 3\n", soon(5))
        assert [json.loads(proc.readline(soon(5)))["i"] for _ in range(3)] == [0, 1, 2]
        proc.send(b"x" * 1500 + b"\n", soon(5))
        assert json.loads(proc.readline(soon(5))) == {"type": "echo", "len": 1501}
        # The engine copies stderr apart from stdout: written first, it may still come after the replies.
        assert "something on stderr" in until(proc.stderr_tail)
        with pytest.raises(ChannelTimeout):
            proc.readline(soon(0.2))
        proc.send(b"exit 7\n", soon(5))
        with pytest.raises(ChannelClosed) as info:
            proc.readline(soon(10))
        assert info.value.returncode == 7 and proc.returncode == 7 and not proc.alive()
    finally:
        proc.kill()
    assert gone(engine, proc.container_id) and proc.returncode == 7
    proc.kill()  # idempotent
    with pytest.raises(ChannelClosed):
        proc.send(b"x\n", soon(1))
    with pytest.raises(ChannelClosed):
        proc.readline(soon(1))


def test_a_reply_already_there_is_taken_past_the_deadline(docker: DockerBackend) -> None:
    with started(docker, "echo") as proc:
        proc.send(b"ping\n", soon(5))
        # the reply arrives while "the arena serves another bot": the socket has news, nobody reads it
        assert select.select(proc.wait_fds(), [], [], 60)[0]
        assert json.loads(proc.readline(time.monotonic() - 1.0))["type"] == "echo"


def test_line_too_long_and_bounded_stderr(docker: DockerBackend) -> None:
    limits = Limits(max_line_bytes=4096, stderr_tail_bytes=64)
    with started(docker, "echo", limits=limits) as proc:
        proc.send(b"err " + b"e" * 200 + b"TAIL-END\n", soon(5))
        proc.send(b"long 100000\n", soon(5))
        with pytest.raises(LineTooLong):
            proc.readline(soon(10))
        # stderr travels beside the flood on the same socket: it may come a little later
        until(lambda: proc.stderr_tail().endswith("TAIL-END\n"))
        tail = proc.stderr_tail()
        assert len(tail) <= 64 and tail.endswith("TAIL-END\n"), tail
        assert len(proc._buf) <= limits.max_line_bytes + 1  # never more than the cap
        # The rest of the long line is dropped: the first reply ends it, the second is whole.
        proc.send(b"ping\nping\n", soon(5))
        assert json.loads(proc.readline(soon(10))) == {"type": "echo", "len": 5}


def test_a_bot_that_ignores_stdin_eof_is_killed_and_removed(docker: DockerBackend, engine: Any) -> None:
    proc = started(docker, "ignore_eof")
    waits = Waits(proc)
    proc.close(grace=0.5)
    assert time.monotonic() - waits.since >= 0.5  # it was given its grace...
    assert waits.all_end_by(waits.since + 0.5)  # ...and no more: then killed
    assert proc.returncode == 137 and not proc.alive()
    assert gone(engine, proc.container_id)


def test_a_bot_that_exits_on_eof_keeps_its_status(docker: DockerBackend, engine: Any) -> None:
    proc = started(docker, "echo")
    proc.close(grace=5)
    assert proc.returncode == 0 and gone(engine, proc.container_id)


@pytest.mark.parametrize("end", ["kill", "close"])
def test_a_stderr_flood_does_not_hold_up_the_removal(docker: DockerBackend, engine: Any, end: str) -> None:
    # Removing a container waits for the engine's copy of its output into the attach stream. Unread, a
    # flood blocked that copy until the API call timed out (API_TIMEOUT: a minute a match); now the
    # stream is read to its end while a thread removes the container, and that thread is done on return.
    limits = Limits(stderr_tail_bytes=4096)
    proc = started(docker, "stderr_flood", limits=limits)
    proc.send(b"ping\n", soon(5))
    assert json.loads(proc.readline(soon(10)))["type"] == "echo"
    time.sleep(0.5)  # the flood fills the socket meanwhile: nobody reads it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        proc.kill() if end == "kill" else proc.close(grace=0.5)  # the flooding child ignores stdin EOF
    assert gone(engine, proc.container_id) and proc.returncode == 137
    assert not [t.name for t in threading.enumerate() if t.name.startswith(docker_sandbox.REMOVER_NAME)]
    tail = proc.stderr_tail()
    assert proc.stderr_total > 65536 and 0 < len(tail) <= 4096 and set(tail) <= {"E", "\n"}
    assert not [w for w in caught if "could not be removed" in str(w.message)]  # no removal timed out


def test_start_failures_are_sandbox_errors(docker: DockerBackend) -> None:
    with pytest.raises(SandboxError, match="no-such-image"):
        docker.start(LaunchSpec(("/bot/bot",), image="cabo-arena-no-such-image:latest"))
    with pytest.raises(SandboxError, match="/bot/missing"):
        docker.start(LaunchSpec(("/bot/missing",)))


# ------------------------------------------------------------------ containment

def test_fork_bomb_is_held_by_the_pid_limit(docker: DockerBackend, engine: Any) -> None:
    proc = started(docker, "forkbomb")
    try:
        proc.send(b"go\n", soon(5))
        report = json.loads(proc.readline(soon(15)))
        assert report["forks_failed"] > 0 and report["forks_ok"] < 64, report
        pids = Path(f"/sys/fs/cgroup/pids/docker/{proc.container_id}/pids.current")
        if pids.exists():
            assert int(pids.read_text()) <= 64
        proc.send(b"still there?\n", soon(5))
        assert json.loads(proc.readline(soon(10))) == {"type": "alive"}
        assert subprocess.run(["/bin/true"], timeout=10).returncode == 0  # the host can still fork
    finally:
        proc.kill()
    assert gone(engine, proc.container_id)


def test_no_network(docker: DockerBackend) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("0.0.0.0", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        targets = [f"127.0.0.1:{port}"] + [f"{ip}:{port}" for ip in host_addresses()]
        with started(docker, "network", *targets) as proc:
            proc.send(b"go\n", soon(5))
            report = json.loads(proc.readline(soon(20)))
    assert report.pop("type") == "report"
    assert report.pop("interfaces") == ""  # loopback only
    assert "tcp 1.1.1.1:53" in report and "udp 1.1.1.1:53" in report and len(report) == 2 + len(targets)
    assert all(result.startswith("error") for result in report.values()), report


def test_container_settings(docker: DockerBackend, engine: Any) -> None:
    with started(docker, "echo", limits=Limits(memory_mb=96)) as proc:
        info = engine.api.inspect_container(proc.container_id)
    host, config = info["HostConfig"], info["Config"]
    assert host["NetworkMode"] == "none" and config["NetworkDisabled"] is True
    assert host["Memory"] == host["MemorySwap"] == 96 * 1024 * 1024
    assert host["PidsLimit"] == 64 and host["NanoCpus"] == 1_000_000_000
    assert host["ReadonlyRootfs"] is True and "/tmp" in host["Tmpfs"]
    assert host["CapDrop"] == ["ALL"] and "no-new-privileges" in host["SecurityOpt"]
    assert host["LogConfig"]["Type"] == "none" and host["AutoRemove"] is False
    assert config["User"] == "65534:65534" and config["WorkingDir"] == "/tmp"
    assert config["OpenStdin"] and config["StdinOnce"] and not config["Tty"]
    assert config["Labels"]["cabo-arena"] == "1"
    assert config["Labels"]["cabo-arena.owner"] == f"{socket.gethostname()}/{pid_namespace()}:{os.getpid()}"
    env = dict(e.split("=", 1) for e in config["Env"])
    assert env["HOME"] == "/tmp" and env["ARENA_SANDBOX"] == proc.token and env["PYTHONDONTWRITEBYTECODE"] == "1"


# ------------------------------------------------------------------ cleanup

def test_stale_containers_of_dead_arenas_are_removed(docker: DockerBackend, engine: Any, image: str) -> None:
    dead = subprocess.Popen(["/bin/true"])
    dead.wait()
    api = engine.api
    host = docker_sandbox.this_host()

    def leave_behind(labels: dict[str, str]) -> str:
        container_id: str = api.create_container(image, command=["/bot/ignore_eof"], stdin_open=True,
                                                 labels={"cabo-arena": "1", **labels},
                                                 host_config=api.create_host_config(network_mode="none"))["Id"]
        api.start(container_id)
        return container_id

    with started(docker, "echo") as live:  # a live arena's container (ours) is left alone
        stale = leave_behind({"cabo-arena.owner": f"{host}:{dead.pid}"})
        # Our pid, but a start time that is not ours: the pid was recycled, its arena is gone.
        recycled = leave_behind({"cabo-arena.owner": f"{host}:{os.getpid()}", "cabo-arena.owner-start": "1"})
        # Same host name, another PID namespace (an arena in a `--network host` container): its pid is not
        # one of ours, so it is never judged dead by it.
        foreign = leave_behind({"cabo-arena.owner": f"{socket.gethostname()}/1:{dead.pid}"})
        try:
            removed = cleanup_stale(engine)
            assert stale in removed and recycled in removed and live.container_id not in removed
            assert gone(engine, stale) and gone(engine, recycled) and not gone(engine, live.container_id)
            assert foreign not in removed and not gone(engine, foreign)
        finally:
            api.remove_container(foreign, force=True)


def _arena_subprocess(image: str, mode: str) -> subprocess.Popen[str]:
    code = textwrap.dedent("""
        import sys, time
        from arena.sandbox import LaunchSpec, get_backend
        proc = get_backend("docker").start(LaunchSpec(("/bot/ignore_eof",), image=sys.argv[1]))
        print(proc.container_id, flush=True)
        if sys.argv[2] == "hang":
            time.sleep(120)
    """)
    return subprocess.Popen([sys.executable, "-c", code, image, mode], cwd=ROOT, stdout=subprocess.PIPE, text=True)


def test_containers_are_removed_at_interpreter_exit(docker: DockerBackend, engine: Any, image: str) -> None:
    child = _arena_subprocess(image, "exit")
    out, _ = child.communicate(timeout=60)
    assert child.returncode == 0 and gone(engine, out.strip())


def test_a_later_run_cleans_up_after_an_arena_killed_with_sigkill(docker: DockerBackend, engine: Any,
                                                                    image: str) -> None:
    child = _arena_subprocess(image, "hang")
    try:
        assert child.stdout is not None
        container_id = child.stdout.readline().strip()
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()
    assert container_id and not gone(engine, container_id)  # left behind, still running
    assert container_id in cleanup_stale(engine)
    assert gone(engine, container_id)


# ------------------------------------------------------------------ costs

def test_measure_start_and_round_trip_against_bwrap(docker: DockerBackend, capsys: pytest.CaptureFixture[str]) -> None:
    """Start cost (create + start + hello/ready, then close) and a ~1 KB round trip, per backend.

    Both run the same C random bot: /bot/bot in the image, bots/c-random/bot on the host.
    The numbers are printed (``pytest -s`` not needed); asserted is only that every backend answers.
    """
    host_bot = ROOT / "bots" / "c-random" / "bot"
    if not host_bot.exists():
        build_bot(load_bot(str(ROOT / "bots" / "c-random")))
    act = (b'{"type":"act","id":1,"legal":[{"type":"draw"},{"type":"call"}],"pad":"' + b"x" * 960 + b'"}\n')
    contenders: list[tuple[str, Any, LaunchSpec]] = [("docker", docker, LaunchSpec(("/bot/bot",), image=IMAGE))]
    for other in (BwrapBackend(), NoneBackend()):
        if other.available()[0]:
            contenders.append((other.name, other, LaunchSpec((str(host_bot),), str(host_bot.parent))))
    rows = []
    for name, backend, spec in contenders:
        starts, closes = [], []
        for _ in range(3):
            t0 = time.perf_counter()
            proc = backend.start(spec)
            proc.send(HELLO, soon(15))
            assert b"ready" in proc.readline(soon(15))
            t1 = time.perf_counter()
            if len(starts) < 2:
                proc.close()
                closes.append(time.perf_counter() - t1)
            starts.append(t1 - t0)
        trips = []
        try:
            for i in range(400):
                t0 = time.perf_counter()
                proc.send(act, soon(5))
                reply = proc.readline(soon(5))
                trips.append(time.perf_counter() - t0)
            assert json.loads(reply)["type"] == "action"
        finally:
            t0 = time.perf_counter()
            proc.close()
            closes.append(time.perf_counter() - t0)
        rows.append((name, statistics.median(starts), statistics.median(closes),
                     statistics.median(trips), statistics.mean(trips)))
    with capsys.disabled():
        print(f"\n{'backend':8} {'start+ready ms':>15} {'close ms':>9} {'round trip us (median/mean)':>28}  "
              f"[{len(act)} B act line; load {os.getloadavg()[0]:.1f}]")
        for name, start, close, median, mean in rows:
            print(f"{name:8} {start * 1e3:15.1f} {close * 1e3:9.1f} {median * 1e6:14.0f} / {mean * 1e6:.0f}")
    # Printed, not asserted: a duration says as much about the machine's load as about the arena
    # (bench/protocol.py measures the round trip against a raw pipe).
