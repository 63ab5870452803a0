"""Install and build steps under the docker sandbox (``DockerBackend.run_step``), against a real engine.

Without an engine, or without the base image ``cabo-arena-base:bookworm`` (Debian 12,
``/usr/bin/python3``; made by ``docker/make-base-image.sh``), the tests that need them are
skipped with the reason; the C build needs ``cabo-arena-gcc:bookworm``
(``tests/docker/build-gcc-image.sh``) and is skipped without it. After every test that
runs steps no container of this process (or of a dead one) may be left.
"""

from __future__ import annotations

import io
import json
import os
import socket
import textwrap
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from arena.sandbox import DockerBackend, SandboxError, SandboxUnavailable
from arena.sandbox import docker as docker_sandbox
from arena.sandbox import docker_steps
from arena.sandbox.docker_steps import OUTPUT_LIMIT
from arena.sandbox.steps import TIMED_OUT, Step

from .docker_support import engine, has_image, host_addresses, leftovers  # noqa: F401 (a fixture)

ROOT = Path(__file__).resolve().parents[2]
BASE = "cabo-arena-base:bookworm"
GCC = "cabo-arena-gcc:bookworm"
PYTHON = "/usr/bin/python3"  # the base image's interpreter
NOBODY = 65534


# --------------------------------------------------------------------------- fixtures

@pytest.fixture(scope="module")
def base(engine: Any) -> str:
    """The Debian base image, or skip: it takes minutes to make, so the tests do not make it."""
    if not has_image(engine, BASE):
        pytest.skip(f"no {BASE} on the engine: make it with docker/make-base-image.sh")
    return BASE


def step_containers(client: Any) -> list[str]:
    """Containers of steps this process started, whatever their state."""
    labels = ["cabo-arena.step", f"cabo-arena.owner={docker_sandbox.owner()}"]
    return [info["Id"][:12] for info in client.api.containers(all=True, filters={"label": labels})]


@pytest.fixture
def docker(engine: Any, base: str) -> Iterator[DockerBackend]:
    """The backend; after the test no container may be left."""
    yield DockerBackend()
    assert leftovers(engine) == []


@pytest.fixture
def out(tmp_path: Path) -> Path:
    """A step's output folder, handed to uid 65534 beforehand as the wiring does."""
    folder = tmp_path / "out"
    folder.mkdir()
    os.chown(folder, NOBODY, NOBODY)
    return folder


@pytest.fixture
def inputs(tmp_path: Path) -> Path:
    """A folder a step may only read, holding one file."""
    folder = tmp_path / "in"
    folder.mkdir()
    (folder / "source.txt").write_text("input\n")
    folder.chmod(0o755)
    (folder / "source.txt").chmod(0o644)
    return folder


def run(backend: DockerBackend, argv: list[str], out: Path, *, readable: tuple[str, ...] = (),
        image: str = BASE, **kw: Any) -> tuple[int, str]:
    """Run a step whose cwd and only writable folder is ``out``; its status and log."""
    log = io.StringIO()
    code = backend.run_step(Step(tuple(argv), cwd=str(out), writable=(str(out),), readable=readable,
                                 image=image, label=argv[0], **kw), log)
    return code, log.getvalue()


def probe(code: str) -> list[str]:
    """``python3 -c`` of a dedented script."""
    return [PYTHON, "-c", textwrap.dedent(code)]


# ------------------------------------------------------------------ without an engine

def test_a_step_without_an_image_is_refused_with_what_to_set() -> None:
    step = Step(("/bin/true",), cwd="/tmp", label="pip install -r requirements.txt")
    with pytest.raises(SandboxUnavailable, match=r"needs an image to run pip install -r requirements.txt: "
                                                 r"set 'image' in the bot's bot.yaml"):
        DockerBackend().run_step(step, io.StringIO())


def test_a_fetch_steps_container_has_no_network_but_its_own_loopback() -> None:
    """A fetch (``Step.network``) keeps ``none``'s loopback for its relay; any other step has no network."""
    class Api:
        def create_host_config(self, **kw: Any) -> dict[str, Any]:
            return kw

        def create_container_config(self, **kw: Any) -> dict[str, Any]:
            return kw

    for network in (False, True):
        step = Step(("/bin/true",), cwd="/tmp", network=network, relay=("python", PYTHON) if network else None)
        config = docker_steps._config(Api(), DockerBackend(), step, BASE)
        assert config["host_config"]["network_mode"] == "none" and config["network_disabled"] is (not network)


def test_output_frames_and_characters_split_anywhere_come_out_whole() -> None:
    text = "héllo wörld\n" * 3
    stream = b""
    for i, part in enumerate((text[:7].encode(), text[7:].encode())):
        stream += bytes([1 + i % 2, 0, 0, 0]) + len(part).to_bytes(4, "big") + part
    for cut in range(1, len(stream)):  # every split of the stream into two reads
        log = io.StringIO()
        output = docker_steps._Output(log, OUTPUT_LIMIT)
        output.feed(stream[:cut])
        output.feed(stream[cut:])
        assert log.getvalue() == text


def test_output_past_the_limit_is_dropped_with_one_line() -> None:
    log = io.StringIO()
    output = docker_steps._Output(log, 10)
    for _ in range(3):
        output.feed(bytes([1, 0, 0, 0, 0, 0, 0, 8]) + b"abcdefg\n")
    assert log.getvalue() == ("abcdefg\nab\n(output cut: the step wrote more than 10 bytes; "
                              "the rest is not kept)\n")
    assert output.dropped == 14


# ------------------------------------------------------------------ walls

def test_a_step_runs_as_65534_and_its_files_are_owned_by_it_on_the_host(docker: DockerBackend, out: Path) -> None:
    code, log = run(docker, ["sh", "-c", "id -u; id -g; echo made > made.txt; mkdir sub"], out)
    assert (code, log) == (0, f"{NOBODY}\n{NOBODY}\n")
    assert (out / "made.txt").read_text() == "made\n"
    for path in (out / "made.txt", out / "sub"):
        assert (path.stat().st_uid, path.stat().st_gid) == (NOBODY, NOBODY)


def test_a_copy_stands_in_for_its_original_at_the_originals_path(docker: DockerBackend, out: Path,
                                                                tmp_path: Path) -> None:
    """A build runs in a private copy of the bot directory, seen at the bot directory's own path."""
    original = tmp_path / "bot"
    original.mkdir()
    (original / "bot.c").write_text("original\n")
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "bot.c").write_text("copied\n")
    os.chown(copy, NOBODY, NOBODY)
    log = io.StringIO()
    code = docker.run_step(Step(("sh", "-c", "cat bot.c; echo built > bot"), cwd=str(original),
                                copies=((str(copy), str(original)),), image=BASE, label="build"), log)
    assert (code, log.getvalue()) == (0, "copied\n")
    assert (copy / "bot").read_text() == "built\n"
    assert sorted(p.name for p in original.iterdir()) == ["bot.c"]  # the original is not touched


def test_a_step_cannot_write_what_it_reads_nor_anything_of_the_host(docker: DockerBackend, out: Path,
                                                                   inputs: Path, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"  # on the host, writable by anyone, but not the step's
    elsewhere.mkdir(mode=0o777)
    elsewhere.chmod(0o777)
    targets = [inputs / "new.txt", inputs / "source.txt", elsewhere / "x", "/etc/x", "/usr/x", "/x"]
    code, log = run(docker, probe(f"""
        import json, os
        results = {{}}
        for path in {[str(t) for t in targets]!r}:
            try:
                with open(path, "a") as f:
                    f.write("x")
                results[path] = "written"
            except OSError as exc:
                results[path] = exc.strerror
        results["elsewhere"] = os.path.exists({str(elsewhere)!r})
        results["checkout"] = os.path.exists({str(ROOT / "pyproject.toml")!r})
        results["read"] = open({str(inputs / "source.txt")!r}).read()
        print(json.dumps(results))
        """), out, readable=(str(inputs),))
    assert code == 0, log
    results = json.loads(log)
    assert results.pop("read") == "input\n"
    assert results.pop("elsewhere") is False and results.pop("checkout") is False
    assert "written" not in results.values(), results
    assert sorted(os.listdir(inputs)) == ["source.txt"] and (inputs / "source.txt").read_text() == "input\n"
    assert os.listdir(elsewhere) == []


def test_the_engine_socket_and_the_hosts_secrets_are_not_there(docker: DockerBackend, out: Path) -> None:
    code, log = run(docker, probe("""
        import json, os
        mounts = [line.split()[4] for line in open("/proc/self/mountinfo")]
        try:
            shadow = open("/etc/shadow").read()
        except OSError as exc:
            shadow = exc.strerror
        print(json.dumps({"sockets": [p for p in ("/var/run/docker.sock", "/run/docker.sock") if os.path.exists(p)],
                          "mounts": mounts, "shadow": shadow}))
        """), out)
    assert code == 0, log
    seen = json.loads(log)
    assert seen["sockets"] == []
    assert not {"/etc/shadow", "/var/run/docker.sock", "/run/docker.sock", "/"} & set(seen["mounts"][1:])
    assert seen["shadow"] == "Permission denied"  # the image's own, and 65534 cannot read even that
    with open("/etc/shadow") as f:
        host_shadow = f.read()
    assert host_shadow not in log


@pytest.mark.parametrize("path", ["/var/run", "/run", "/"])
def test_mounts_that_hold_the_engine_or_the_whole_host_are_refused(docker: DockerBackend, out: Path,
                                                                   path: str) -> None:
    with pytest.raises(SandboxError, match=f"will not mount '{path}' in its container"):
        run(docker, ["/bin/true"], out, readable=(path,))


def test_without_network_nothing_can_be_reached(docker: DockerBackend, out: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("0.0.0.0", 0))
        listener.listen(8)
        port = listener.getsockname()[1]
        targets = [("1.1.1.1", 53), ("127.0.0.1", port)] + [(ip, port) for ip in host_addresses()]
        code, log = run(docker, probe(f"""
            import json, os, socket
            results = {{}}
            for host, port in {targets!r}:
                try:
                    socket.create_connection((host, port), timeout=1.5).close()
                    results[f"{{host}}:{{port}}"] = "connected"
                except OSError as exc:
                    results[f"{{host}}:{{port}}"] = str(exc)
            results["interfaces"] = sorted(os.listdir("/sys/class/net"))
            print(json.dumps(results))
            """), out)
    assert code == 0, log
    results = json.loads(log)
    assert results.pop("interfaces") == ["lo"]
    assert len(results) == len(targets) and "connected" not in results.values(), results


def test_a_fetch_step_reaches_no_address_of_the_host_directly_or_through_the_gate(
        docker: DockerBackend, engine: Any, out: Path) -> None:
    """The step connects straight to a listener on a host address (no route: ``none``), then asks the gate
    for it through the proxy its relay set (403): the listener is never reached."""
    addresses = host_addresses()
    if not addresses:
        pytest.skip("this host has no non-loopback IPv4 address to listen on")
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind((addresses[0], 0))
        listener.listen(8)
        listener.setblocking(False)
        port = listener.getsockname()[1]
        code, log = run(docker, probe(f"""
            import os, socket, urllib.request
            try:
                socket.create_connection(({addresses[0]!r}, {port}), timeout=5).close()
                print("direct: connected")
            except OSError as exc:
                print("direct:", type(exc).__name__)
            try:
                urllib.request.urlopen("http://{addresses[0]}:{port}/", timeout=10)
                print("proxied: connected")
            except OSError as exc:
                print("proxied:", exc)
            """), out, network=True, relay=("python", PYTHON))
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert code == 0, log
    assert "direct: OSError" in log or "direct: ConnectionRefusedError" in log or "direct: TimeoutError" in log, log
    assert "proxied: HTTP Error 403: the arena refused" in log and "connected" not in log, log


def test_the_container_has_the_walls_and_labels_of_a_bots(docker: DockerBackend, engine: Any, out: Path,
                                                          inputs: Path) -> None:
    step = Step(("make",), cwd=str(out), writable=(str(out),), readable=(str(inputs), "/nonexistent"),
                env=(("CC", "gcc"),), image=BASE, label="build: make")
    config = docker_steps._config(engine.api, docker, step, BASE)
    host = config["HostConfig"]
    assert host["NetworkMode"] == "none" and config["NetworkDisabled"] is True
    assert host["Memory"] == host["MemorySwap"] == step.limits.memory_mb * 1024 * 1024
    assert host["PidsLimit"] == step.limits.processes
    assert host["Tmpfs"]["/tmp"].endswith(f"size={step.limits.tmp_mb}m,mode=1777")
    assert host["ReadonlyRootfs"] is True and host["CapDrop"] == ["ALL"]
    assert host["SecurityOpt"] == ["no-new-privileges"] and host["LogConfig"]["Type"] == "none"
    assert [(m["Source"], m["Target"], m["ReadOnly"]) for m in host["Mounts"]] == [
        (str(out), str(out), False), (str(inputs), str(inputs), True)]  # what does not exist is left out
    assert config["User"] == "65534:65534" and config["WorkingDir"] == str(out)
    assert config["Env"] == ["HOME=/tmp", "TMPDIR=/tmp", "LANG=C.UTF-8", "CC=gcc"]
    labels = config["Labels"]  # what cleanup_stale goes by
    assert labels["cabo-arena"] == "1" and labels["cabo-arena.owner"] == docker_sandbox.owner()
    assert labels["cabo-arena.step"] == "build: make"


# ------------------------------------------------------------------ ends

def test_a_step_that_runs_too_long_is_stopped_with_124(docker: DockerBackend, engine: Any, out: Path) -> None:
    code, log = run(docker, ["sh", "-c", "echo started; exec sleep 60"], out, timeout=3.0)
    assert code == TIMED_OUT
    assert log.endswith("\n(stopped: sh took over 3 s)\n")  # "started" before it unless the engine was slow
    assert step_containers(engine) == []


def test_ctrl_c_during_a_step_removes_its_container(docker: DockerBackend, engine: Any, out: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def interrupt(self: Any, data: bytes) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(docker_steps._Output, "feed", interrupt)
    with pytest.raises(KeyboardInterrupt):
        run(docker, ["sh", "-c", "echo started; exec sleep 60"], out)
    assert step_containers(engine) == []


def test_ctrl_c_while_the_engine_creates_the_container_removes_it(docker: DockerBackend, engine: Any, out: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    create = engine.api.create_container_from_config

    def created_then_interrupted(*args: Any, **kwargs: Any) -> Any:
        create(*args, **kwargs)
        raise KeyboardInterrupt  # the answer, with the id, never arrives

    monkeypatch.setattr(engine.api, "create_container_from_config", created_then_interrupted)
    with pytest.raises(KeyboardInterrupt):
        run(docker, ["/bin/true"], out)
    assert step_containers(engine) == []


def test_a_flood_of_output_is_cut_and_the_step_goes_on(docker: DockerBackend, out: Path) -> None:
    # All of it on stdout: the engine copies stdout and stderr apart, so a line on stderr may
    # reach the log after megabytes of stdout written later (stderr's own test is below).
    code, log = run(docker, ["sh", "-c", "echo first; head -c 16777216 /dev/zero | tr '\\0' x; echo; "
                                         "echo done > done.txt"], out)
    assert code == 0
    assert log.startswith("first\nxxx")
    assert log.endswith("x\n(output cut: the step wrote more than 4 MiB; the rest is not kept)\n")
    assert len(log) <= OUTPUT_LIMIT + 100
    assert (out / "done.txt").read_text() == "done\n"


def test_exit_status_and_a_missing_program(docker: DockerBackend, out: Path) -> None:
    assert run(docker, ["sh", "-c", "echo failing >&2; exit 3"], out) == (3, "failing\n")
    code, log = run(docker, ["/no/such/program"], out)
    assert code == 127 and log.startswith(f"\ncannot run /no/such/program in image {BASE}: ")


def test_a_step_out_of_memory_says_so(docker: DockerBackend, out: Path) -> None:
    from arena.sandbox import Limits

    code, log = run(docker, probe("b = b'x' * (256 << 20)"), out, limits=Limits(memory_mb=64, processes=16))
    assert code == 137
    assert log.endswith("(killed: out of memory, the step's limit is 64 MiB)\n")


def test_a_missing_image_is_a_sandbox_error(docker: DockerBackend, out: Path) -> None:
    with pytest.raises(SandboxError, match="docker image 'cabo-arena-no-such:image' is not on the engine"):
        run(docker, ["/bin/true"], out, image="cabo-arena-no-such:image")


# ------------------------------------------------------------------ installs and builds

def _wheel(folder: Path) -> Path:
    """A pure-Python wheel of a package ``stepprobe`` (no build backend needed to install it)."""
    path = folder / "stepprobe-1.0-py3-none-any.whl"
    files = {
        "stepprobe/__init__.py": "VALUE = 'installed in a container'\n",
        "stepprobe-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: stepprobe\nVersion: 1.0\n",
        "stepprobe-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = "".join(f"{name},,\n" for name in files) + "stepprobe-1.0.dist-info/RECORD,,\n"
    with zipfile.ZipFile(path, "w") as z:
        for name, text in {**files, "stepprobe-1.0.dist-info/RECORD": record}.items():
            z.writestr(name, text)
    path.chmod(0o644)
    return path


def test_pip_from_the_arena_installs_into_a_venv_made_in_the_container(docker: DockerBackend, out: Path,
                                                                      inputs: Path) -> None:
    import pip

    pip_home = str(Path(pip.__file__).resolve().parents[1])  # the folder holding the arena's pip package
    wheel = _wheel(inputs)
    env_dir = out / "env"
    code, log = run(docker, [PYTHON, "-m", "venv", "--without-pip", str(env_dir)], out)
    assert code == 0, log
    python = str(env_dir / "bin" / "python")
    code, log = run(docker, [python, "-m", "pip", "install", "--no-index", "--disable-pip-version-check",
                             str(wheel)], out, readable=(str(inputs), pip_home), env=(("PYTHONPATH", pip_home),))
    assert code == 0, log
    assert "Successfully installed stepprobe-1.0" in log
    installed = next(env_dir.glob("lib/python3*/site-packages/stepprobe/__init__.py"))
    assert installed.stat().st_uid == NOBODY
    code, log = run(docker, [python, "-c", "import stepprobe, sys; print(stepprobe.VALUE, sys.prefix)"], out)
    assert (code, log) == (0, f"installed in a container {env_dir}\n")


def test_a_c_build_with_gcc(docker: DockerBackend, engine: Any, out: Path) -> None:
    if not has_image(engine, GCC):
        pytest.skip(f"no {GCC} on the engine (an image with gcc): build it with tests/docker/build-gcc-image.sh")
    (out / "bot.c").write_text('#include <stdio.h>\nint main(void) { puts("built"); return 0; }\n')
    code, log = run(docker, ["gcc", "-O2", "-o", "bot", "bot.c"], out, image=GCC)
    assert (code, log) == (0, "")
    assert (out / "bot").stat().st_uid == NOBODY
    assert run(docker, [str(out / "bot")], out, image=GCC) == (0, "built\n")
