"""Install and build steps (``Backend.run_step``): exit status, timeout, nothing left running, the walls."""

from __future__ import annotations

import io
import os
import sys
import time
from pathlib import Path

import pytest

from arena.sandbox import BwrapBackend, SandboxError, SandboxUnavailable, get_backend, pkgconfig
from arena.sandbox.steps import TIMED_OUT, Step

from .conftest import BACKENDS


def running(marker: str) -> list[int]:
    """Live processes whose command line holds ``marker`` (zombies aside)."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmdline = f.read().replace(b"\0", b" ").decode("utf-8", "replace")
            with open(f"/proc/{name}/stat") as f:
                state = f.read().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if marker in cmdline and state != "Z":
            found.append(int(name))
    return found


def backend_or_skip(name: str):
    backend = get_backend(name)
    ok, why = backend.available()
    if not ok:
        pytest.skip(f"{name} unavailable: {why}")
    return backend


def open_dir(tmp_path: Path) -> Path:
    """A folder the step's uid may write (a root arena's bwrap step is uid 65534)."""
    os.chmod(tmp_path, 0o755)
    folder = tmp_path / "out"
    folder.mkdir()
    if os.geteuid() == 0:
        os.chown(folder, 65534, 65534)
    return folder


@pytest.mark.parametrize("name", BACKENDS)
def test_a_step_reports_its_exit_status_and_output(tmp_path: Path, name: str) -> None:
    backend = backend_or_skip(name)
    folder = open_dir(tmp_path)
    with open(tmp_path / "log", "w+") as log:
        code = backend.run_step(Step(argv=("/bin/sh", "-c", "echo made > made.txt; echo said; exit 3"),
                                     cwd=str(folder), writable=(str(folder),)), log)
        log.seek(0)
        assert code == 3 and log.read() == "said\n"
    assert (folder / "made.txt").read_text() == "made\n"


@pytest.mark.parametrize("name", BACKENDS)
def test_a_step_past_its_timeout_is_stopped_with_everything_it_started(tmp_path: Path, name: str) -> None:
    backend = backend_or_skip(name)
    marker = f"step-timeout-{name}-{os.getpid()}"
    folder = open_dir(tmp_path)
    with open(tmp_path / "log", "w") as log:
        code = backend.run_step(Step(argv=("/bin/sh", "-c", f"/bin/sh -c 'sleep 3600' {marker} & sleep 3600"),
                                     cwd=str(folder), writable=(str(folder),), timeout=1), log)
    assert code == TIMED_OUT
    assert "took over" in (tmp_path / "log").read_text()
    assert running(marker) == []


@pytest.mark.parametrize("name", BACKENDS)
def test_what_a_step_leaves_running_is_killed_when_it_ends(tmp_path: Path, name: str) -> None:
    backend = backend_or_skip(name)
    marker = f"step-daemon-{name}-{os.getpid()}"
    folder = open_dir(tmp_path)
    with open(tmp_path / "log", "w") as log:
        code = backend.run_step(Step(argv=("/bin/sh", "-c", f"setsid /bin/sh -c 'sleep 3600' {marker} "
                                                            ">/dev/null 2>&1 & sleep 0.5; exit 0"),
                                     cwd=str(folder), writable=(str(folder),)), log)
    assert code == 0
    deadline = time.monotonic() + 60  # a bound only a broken sandbox reaches
    while running(marker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert running(marker) == []


def test_a_bwrap_step_writes_only_its_writable_folder_and_a_fetch_too_has_loopback_alone(tmp_path: Path) -> None:
    """Every step, a fetch included, is in a network namespace of its own: the fetch reaches out only
    through the gate's relay (tests/sandbox/gate, tests/bots_deps/test_fetch_gate.py)."""
    backend = backend_or_skip("bwrap")
    folder = open_dir(tmp_path)
    other = tmp_path / "other"
    other.mkdir()
    os.chmod(other, 0o777)
    probe = (f"touch {other}/x 2>/dev/null && echo other-written; touch {folder}/y && echo own-written; "
             "cat /proc/net/dev | grep -c : ; id -u")
    outputs = []
    for network in (False, True):
        with open(tmp_path / "log", "w+") as log:
            relay = ("python", sys.executable) if network else None
            assert backend.run_step(Step(argv=("/bin/sh", "-c", probe), cwd=str(folder), writable=(str(folder),),
                                         readable=(sys.prefix, sys.base_prefix), network=network, relay=relay),
                                    log) == 0
            log.seek(0)
            outputs.append(log.read().split())
    for words in outputs:
        assert "other-written" not in words and "own-written" in words
        if os.geteuid() == 0:
            assert words[-1] == "65534"
        assert int(words[-2]) == 1  # loopback alone
    assert not (other / "x").exists()


def test_a_fetch_step_needs_a_relay_to_reach_the_gate(tmp_path: Path) -> None:
    backend = backend_or_skip("bwrap")
    with pytest.raises(SandboxError, match="a step with the network needs a relay"):
        backend.run_step(Step(argv=("/bin/true",), cwd=str(tmp_path), network=True, label="fetch"), io.StringIO())


def test_a_bwrap_step_is_refused_where_bwrap_cannot_run(tmp_path: Path) -> None:
    backend = BwrapBackend(bwrap=str(tmp_path / "no-bwrap"))
    with pytest.raises(SandboxUnavailable), open(os.devnull, "w") as log:
        backend.run_step(Step(argv=("/bin/true",), cwd=str(tmp_path)), log)


# ---------------------------------------------------------------- package configuration
def test_the_package_configuration_names_its_files_local_indexes_and_variables(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "pip").mkdir(parents=True)
    wheels, index = tmp_path / "wheels", tmp_path / "pypi" / "simple"
    wheels.mkdir()
    index.mkdir(parents=True)
    (home / ".config" / "pip" / "pip.conf").write_text(
        f"[global]\nfind-links = {wheels}\nextra-index-url = file://{index}\ncache-dir = {home}\n")
    (home / ".npmrc").write_text(f'cafile="{tmp_path / "ca.pem"}"\n')
    (tmp_path / "ca.pem").write_text("")
    environ = {"HOME": str(home), "PIP_DEFAULT_TIMEOUT": "60", "npm_config_audit": "false", "OTHER": "x"}
    config = pkgconfig.for_install(environ)
    assert str(home / ".config" / "pip" / "pip.conf") in config.paths and str(home / ".npmrc") in config.paths
    assert str(wheels) in config.paths and str(tmp_path / "pypi") in config.paths  # the folder above simple/
    assert str(tmp_path / "ca.pem") in config.paths
    assert str(home) not in config.paths and "/root" not in config.paths  # never the home itself
    env = dict(config.env)
    assert env["PIP_CONFIG_FILE"] == str(home / ".config" / "pip" / "pip.conf")
    assert env["npm_config_userconfig"] == str(home / ".npmrc")
    assert env["PIP_DEFAULT_TIMEOUT"] == "60" and env["npm_config_audit"] == "false" and "OTHER" not in env


def test_the_package_configuration_never_binds_run_root_or_the_cache(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cache = home / ".cache" / "cabo-arena"
    cache.mkdir(parents=True)
    environ = {"HOME": str(home), "PIP_FIND_LINKS": f"/run /var/run {cache} {cache}/envs {home}/.cache /"}
    (cache / "envs").mkdir()
    config = pkgconfig.for_install(environ, never=[str(cache)])
    assert not [p for p in config.paths if p in ("/", "/run", "/var/run") or p.startswith(str(home))]
