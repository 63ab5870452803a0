"""What each sandbox shows of a bot's environments: the bot's own entries, nothing else of the cache."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from docker.types import Mount

from arena.bots import build_bot, load_bot
from arena.bots import cache, env
from arena.bots.launch import launch_spec
from arena.cli import main
from arena.sandbox import DockerBackend, LaunchSpec, Limits, allowlist
from arena.sandbox.docker import home_covers
from arena.tournament.config import ConfigError, load_config
from arena.tournament.store.results import ResultStore

from .conftest import RANDOM_BOT, ROOT, need_node, node_bot, play, python_bot, readable
from .test_hostile_installs import loopback_probe

BASE_IMAGE = "cabo-arena-base:bookworm"
"""docker/make-base-image.sh: Debian bookworm's python3.11 at /usr/bin/python3, as the host's venvs expect."""
NODE_IMAGE = "cabo-arena-node-test:bookworm"
"""The base plus Debian's nodejs (/usr/bin/node): built once by the ``node_image`` fixture, then reused."""
NODE_DOCKERFILE = """\
ARG BASE
FROM ${BASE}
RUN apt-get update \\
    && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs \\
    && rm -rf /var/lib/apt/lists/* \\
    && test "$(command -v node)" = /usr/bin/node \\
    && node --version
"""
RECIPE_LABEL = "cabo-arena-node-test.recipe"
"""A hash of NODE_DOCKERFILE and the base image's id: a changed recipe or a remade base rebuilds the image."""
NODE_BUILD_TIMEOUT = 900
BUILD_TAIL = 15


def test_bwrap_shows_the_venv_by_its_python_and_the_environments_it_is_given(tmp_path: Path,
                                                                             own_cache: Path) -> None:
    spec = load_bot(str(python_bot(tmp_path / "bot")))
    (entry,) = env.prepare(spec).paths
    sibling = own_cache / "envs" / "python-someone-else"
    sibling.mkdir()
    bare = LaunchSpec((os.path.join(entry, "bin", "python"), str(tmp_path / "bot" / "bot.py")), str(tmp_path / "bot"))
    assert entry in allowlist.exposed_paths(bare)  # the program's prefix: exposed without being asked for
    launch = launch_spec(spec, Limits())
    exposed = allowlist.exposed_paths(launch)
    assert entry in exposed and launch.extra_paths == (entry,)
    assert not any(p == str(sibling) or p in (str(own_cache), str(own_cache / "envs")) for p in exposed)
    args = allowlist.mount_args(launch)
    assert ["--ro-bind", entry, entry] == args[args.index(entry) - 1:args.index(entry) + 2]


@pytest.fixture(scope="session")
def base_image() -> str:
    """The base image on a running engine, or skip saying what is missing."""
    ok, why = DockerBackend().available()
    if not ok:
        pytest.skip(f"no Docker engine: {why}")
    found = subprocess.run(["docker", "image", "inspect", BASE_IMAGE], capture_output=True, timeout=30)
    if found.returncode != 0:
        pytest.skip(f"image {BASE_IMAGE} is not on the engine: make it with docker/make-base-image.sh")
    return BASE_IMAGE


def _inspect(image: str, template: str) -> str | None:
    """``docker image inspect -f template image``; None when the image is not on the engine."""
    done = subprocess.run(["docker", "image", "inspect", "-f", template, image],
                          capture_output=True, text=True, timeout=30)
    return done.stdout.strip() if done.returncode == 0 else None


@pytest.fixture(scope="session")
def node_image(base_image: str, tmp_path_factory: pytest.TempPathFactory) -> str:
    """NODE_IMAGE: built from the base with ``docker build --network=host`` (apt-get needs the mirror) unless
    the engine has it already, from this recipe and this base; skip, with the build's last lines, if it fails.

    Its node is at /usr/bin/node, where the host's is (see test_docker_gives_a_node_bot_its_packages).
    """
    recipe = hashlib.sha256(f"{NODE_DOCKERFILE}\n{_inspect(base_image, '{{.Id}}')}".encode()).hexdigest()[:16]
    if _inspect(NODE_IMAGE, f'{{{{index .Config.Labels "{RECIPE_LABEL}"}}}}') == recipe:
        return NODE_IMAGE
    context = tmp_path_factory.mktemp("node-image")
    (context / "Dockerfile").write_text(NODE_DOCKERFILE)
    argv = ["docker", "build", "--network=host", "--force-rm", "--build-arg", f"BASE={base_image}",
            "--label", f"{RECIPE_LABEL}={recipe}", "-t", NODE_IMAGE, str(context)]
    start = time.monotonic()
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=NODE_BUILD_TIMEOUT)
        code, log = done.returncode, done.stdout + done.stderr
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout or b""
        code, log = None, (out.decode(errors="replace") if isinstance(out, bytes) else out)
    if code != 0:
        log = re.sub(r"\x1b\[[0-9;]*m", "", log)  # the legacy builder colours RUN's stderr...
        log = re.sub(r"DEPRECATED: The legacy builder.*?/buildx/", "", log, flags=re.S)  # ...and says this
        tail = "\n".join(line for line in log.splitlines() if line.strip())
        tail = "\n".join(tail.splitlines()[-BUILD_TAIL:])
        why = f"took over {NODE_BUILD_TIMEOUT} s" if code is None else f"failed (exit {code})"
        pytest.skip(f"cannot build {NODE_IMAGE} (Debian's nodejs on {base_image}; needs the apt mirror): "
                    f"docker build {why}; its last lines:\n{tail}")
    print(f"built {NODE_IMAGE} in {time.monotonic() - start:.1f} s")
    return NODE_IMAGE


def test_docker_mounts_the_venv_read_only_where_it_is(tmp_path: Path, shared_cache: Path, base_image: str) -> None:
    spec = load_bot(str(python_bot(tmp_path / "bot", manifest=f"image: {base_image}\n")))
    build_bot(spec)
    opponent = dataclasses.replace(load_bot(str(RANDOM_BOT)), image=base_image)
    outcome = play(spec, "docker", opponent)
    assert outcome.sandbox == "docker"
    assert outcome.faults == () and outcome.stats[0].decisions > 0, outcome.faults


def test_docker_gives_a_node_bot_its_packages(tmp_path: Path, shared_cache: Path, node_image: str) -> None:
    need_node()
    spec = load_bot(str(node_bot(tmp_path / "bot")))
    spec = dataclasses.replace(spec, image=node_image)
    build_bot(spec)
    launch = launch_spec(spec, Limits())
    # The docker backend runs the command as given: `node` as the runner leaves it, found on the image's PATH
    # at /usr/bin/node, where the host's is (the environment's version counts the host's node, by that path).
    program = launch.command[0]
    host_node = shutil.which("node", path=allowlist.SANDBOX_PATH)
    assert program in ("node", host_node), launch.command
    in_image = subprocess.run(["docker", "run", "--rm", "--network=none", "--entrypoint", "sh", node_image, "-c",
                               f"command -v {program}"], capture_output=True, text=True, timeout=60)
    assert in_image.stdout.strip() == host_node == "/usr/bin/node", (in_image.stdout, in_image.stderr, host_node)
    (modules,) = [v for k, v in launch.env if k == "NODE_PATH"]
    assert launch.extra_paths == (os.path.dirname(modules),)  # mounted read-only at the same path
    opponent = dataclasses.replace(load_bot(str(RANDOM_BOT)), image=node_image)
    outcome = play(spec, "docker", opponent)
    assert outcome.sandbox == "docker"
    assert outcome.faults == () and outcome.stats[0].decisions > 0, outcome.faults


def test_docker_installs_and_builds_a_bot_in_its_own_image(tmp_path: Path, own_cache: Path, base_image: str) -> None:
    """Under docker, pip and the build run in containers of the bot's image, writing what the bot then plays
    with: the venv (owned by the arena again afterwards) and the build's bytecode, copied back."""
    spec = load_bot(str(python_bot(tmp_path / "bot", manifest=f'image: {base_image}\n'
                                   'build: "{python} -m compileall -q ."\n')))
    build_bot(spec, DockerBackend())
    (entry,) = env.environment(spec).paths
    assert os.stat(entry).st_uid == os.getuid()
    assert sorted(p.name for p in (tmp_path / "bot" / "__pycache__").iterdir()) == ["bot.cpython-311.pyc"]
    outcome = play(spec, "docker", dataclasses.replace(load_bot(str(RANDOM_BOT)), image=base_image))
    assert outcome.faults == () and outcome.stats[0].decisions > 0, outcome.faults


def test_docker_builds_a_c_bot_in_an_image_with_a_compiler(tmp_path: Path, own_cache: Path) -> None:
    """``build`` runs in the bot's image: a C bot names one with gcc (tests/docker/build-gcc-image.sh)."""
    image = "cabo-arena-gcc:bookworm"
    if subprocess.run(["docker", "image", "inspect", image], capture_output=True, timeout=30).returncode != 0:
        pytest.skip(f"no {image} on the engine: make it with tests/docker/build-gcc-image.sh")
    shutil.copytree(ROOT / "bots" / "c-random", tmp_path / "c-bot", ignore=shutil.ignore_patterns("bot"))
    manifest = tmp_path / "c-bot" / "bot.yaml"
    manifest.write_text(manifest.read_text() + f"image: {image}\n")
    spec = load_bot(str(tmp_path / "c-bot"))
    build_bot(spec, DockerBackend())
    built = tmp_path / "c-bot" / "bot"
    assert built.is_file() and os.access(built, os.X_OK) and built.stat().st_uid == os.getuid()


@pytest.fixture
def hidden_home(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder in the arena user's own home, with the cache in it, as an arena run as root keeps them: in
    /root, which images keep to root (0700), so a container's uid 65534 cannot pass through by itself."""
    top = Path(tempfile.mkdtemp(prefix="cabo-arena-test-", dir=Path.home()))
    os.chmod(top, 0o755)
    monkeypatch.setenv(cache.ENV_VAR, str(top / "cache"))
    monkeypatch.chdir(top)
    try:
        yield top
    finally:
        shutil.rmtree(top, ignore_errors=True)


def test_a_docker_ladder_takes_a_python_and_a_node_bot_with_dependencies(hidden_home: Path, node_image: str) -> None:
    """From the ladder file's starting field and through ``arena submit``: each bot's image named in its
    bot.yaml, its packages installed in a container of it (the cache in the arena user's home), the check's
    opponent played in the submitted bot's image, then matches without a fault."""
    need_node()
    ladder = hidden_home / "ladder.yaml"
    python_bot(hidden_home / "py", manifest=f"image: {node_image}\n")
    js = node_bot(hidden_home / "js")
    with open(js / "bot.yaml", "a") as manifest:
        manifest.write(f"image: {node_image}\n")
    for folder in ("py", "js"):
        readable(hidden_home / folder)
    ladder.write_text("name: dock\nschedule: ladder\nseats: [2]\nsandbox: docker\nplacement_matches: 1\n"
                      "time: {move_ms: 5000, startup_ms: 20000}\nbots: [py]\n")
    runner = CliRunner()
    entered = runner.invoke(main, ["submit", str(ladder), "js"])  # a one-bot field waits for a second
    assert entered.exit_code == 0 and "entered nodedeps@v1" in entered.output, entered.output
    played = runner.invoke(main, ["run", str(ladder), "--matches", "4"])
    assert played.exit_code == 0, played.output
    store = ResultStore(str(hidden_home / "results" / "dock"))
    try:
        records = store.records()
    finally:
        store.close()
    assert all(r.faults == () for r in records), [r.faults for r in records]
    assert {bot for r in records for bot in r.bots} == {"pydeps@v1", "nodedeps@v1"}
    assert "sandbox: docker" in played.output and len(records) == 4


def test_a_ladder_takes_an_image_from_a_bots_own_manifest_and_refuses_one_from_its_file(tmp_path: Path) -> None:
    bot = python_bot(tmp_path / "py", manifest="image: some-image:1\n")
    ladder = tmp_path / "ladder.yaml"
    ladder.write_text(f"name: l\nschedule: ladder\nseats: [2]\nsandbox: docker\nbots: [{bot}]\n")
    assert load_config(str(ladder)).bots[0].image == "some-image:1"
    ladder.write_text(f"name: l\nschedule: ladder\nseats: [2]\nsandbox: docker\n"
                      f"bots: [{{path: {bot}, image: other:2}}]\n")
    with pytest.raises(ConfigError, match=r"bots\[0\]\.image: .*set image: in pydeps's bot\.yaml"):
        load_config(str(ladder))


def test_a_skeleton_lets_the_containers_user_reach_mounts_in_a_hidden_home(tmp_path: Path) -> None:
    folder, file = tmp_path / "entry", tmp_path / "npmrc"
    folder.mkdir()
    file.write_text("")
    mounts = [Mount(target="/root/.cache/x/entry", source=str(folder), type="bind"),
              Mount(target="/root/.npmrc", source=str(file), type="bind"),
              Mount(target="/srv/bot", source=str(folder), type="bind")]
    (cover,) = home_covers(mounts)
    assert cover["Target"] == "/root" and cover["ReadOnly"] is True
    skeleton = Path(cover["Source"])
    assert (skeleton / ".cache" / "x" / "entry").is_dir() and (skeleton / ".npmrc").is_file()
    assert all(os.stat(p).st_mode & 0o777 == 0o755 for p in (skeleton, skeleton / ".cache", skeleton / ".cache" / "x"))
    assert list(skeleton.iterdir()) != [] and not any(p.is_file() and p.stat().st_size for p in skeleton.rglob("*"))
    assert home_covers(mounts[2:]) == []


def test_no_install_step_reaches_a_loopback_listener_under_docker(tmp_path: Path, own_cache: Path,
                                                                  node_image: str) -> None:
    """The measurement under docker: the fetches share the host's network (an engine without a bridge), the
    steps that run packages' code have none."""
    need_node()

    def build(directory: Path) -> None:
        with open(directory / "bot.yaml", "a") as manifest:
            manifest.write(f"image: {node_image}\n")
        build_bot(load_bot(str(directory)), DockerBackend())

    tried = loopback_probe(tmp_path, build)
    assert set(tried) <= {"OSError", "ConnectionRefusedError"}, tried
