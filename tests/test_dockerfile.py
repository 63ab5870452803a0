"""The container image: fast static checks of Dockerfile and .dockerignore (no engine),
and the end-to-end image test (docker/ci-image-test.sh), run only when
ARENA_DOCKER_IMAGE_TEST=1 (CI sets it after starting dockerd; it needs root and takes
minutes: a debootstrapped base image, a build, a quick tournament in the container)."""

from __future__ import annotations

import json
import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCKERFILE = ROOT / "Dockerfile"
DOCKERIGNORE = ROOT / ".dockerignore"
SCRIPTS = [ROOT / "docker" / "make-base-image.sh", ROOT / "docker" / "ci-image-test.sh"]
IMAGE_TEST_TIMEOUT = 15 * 60


def instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) pairs, comments dropped and continuation lines joined."""
    out: list[tuple[str, str]] = []
    pending = ""
    for raw in DOCKERFILE.read_text().splitlines():
        line = raw.strip()
        if not pending and (not line or line.startswith("#")):
            continue
        if pending and line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        full = (pending + line).strip()
        pending = ""
        if full:
            word, _, rest = full.partition(" ")
            out.append((word.upper(), rest.strip()))
    assert not pending, "Dockerfile ends inside a continued line"
    return out


def sources(args: str) -> list[str]:
    """The source paths of a COPY/ADD (flags and the destination dropped)."""
    if args.startswith("["):
        words = json.loads(args)
    else:
        words = shlex.split(args)
    words = [w for w in words if not w.startswith("--")]
    return words[:-1]


def ignore_patterns() -> set[str]:
    patterns = set()
    for line in DOCKERIGNORE.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and not line.startswith("!"):
            patterns.add(line.strip("/").removeprefix("**/"))
    return patterns


def test_base_is_an_argument_with_the_official_image_as_default():
    steps = instructions()
    first_from = next(i for i, (word, _) in enumerate(steps) if word == "FROM")
    args = {rest.split("=", 1)[0]: rest.split("=", 1)[1] if "=" in rest else None
            for word, rest in steps[:first_from] if word == "ARG"}
    assert args.get("BASE"), "Dockerfile needs `ARG BASE=<default image>` before its first FROM"
    assert "python:3.11" in args["BASE"]
    froms = [rest.split() for word, rest in steps if word == "FROM"]
    assert froms and froms[0][0] in ("${BASE}", "$BASE")
    stages: set[str] = set()
    for words in froms:  # every stage starts from the base or from an earlier stage
        assert words[0] in ("${BASE}", "$BASE") or words[0] in stages, f"FROM {' '.join(words)}"
        if len(words) == 3 and words[1].upper() == "AS":
            stages.add(words[2])


def test_entrypoint_and_cmd():
    steps = dict(instructions())  # the last of each wins, as in docker
    assert json.loads(steps["ENTRYPOINT"]) == ["arena"]
    assert json.loads(steps["CMD"]) == ["--help"]


def test_runs_as_non_root_in_app():
    steps = instructions()
    users = [rest for word, rest in steps if word == "USER"]
    assert users, "the image must not run as root: add USER"
    user = users[-1]
    defaults = dict(re.findall(r"ARG\s+(\w+)=(\S+)", "\n".join(f"{w} {r}" for w, r in steps)))
    user = re.sub(r"\$\{?(\w+)\}?", lambda m: defaults.get(m.group(1), m.group(0)), user)
    assert user.split(":")[0] not in ("root", "0")
    workdirs = [rest for word, rest in steps if word == "WORKDIR"]
    assert workdirs[-1] == "/app"


def test_copies_bots_and_tournaments_but_not_the_venv():
    copied = [src.rstrip("/") for word, rest in instructions() if word in ("COPY", "ADD")
              for src in sources(rest)]
    assert "bots" in copied and "tournaments" in copied
    assert not any(src == ".venv" or src.startswith(".venv/") for src in copied)
    if "." in copied:  # copying the whole context is only safe if .dockerignore drops the venv
        assert ".venv" in ignore_patterns()


def test_no_features_that_need_a_registry_or_buildkit():
    text = DOCKERFILE.read_text()
    assert not re.search(r"^#\s*syntax\s*=", text, re.M | re.I), "`# syntax=` pulls a frontend image from a registry"
    for word, rest in instructions():
        assert not (word == "RUN" and rest.startswith("--mount")), "RUN --mount needs BuildKit"
        assert not (word in ("COPY", "ADD") and "--chmod" in rest), "COPY --chmod needs BuildKit"
        assert "<<" not in rest, "Dockerfile heredocs need BuildKit"


def test_dockerignore_keeps_the_context_small():
    patterns = ignore_patterns()
    for needed in (".venv", "results", ".git", "__pycache__", "replays"):
        assert needed in patterns, f".dockerignore should exclude {needed}"
    assert "bots/c-random/bot" in patterns
    # nothing the Dockerfile copies may be ignored
    for word, rest in instructions():
        if word == "COPY" and "--from" not in rest:
            for src in sources(rest):
                assert src.rstrip("/") not in patterns, f"{src} is copied but ignored"


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_scripts_are_executable_bash(script):
    assert script.is_file() and os.access(script, os.X_OK), f"{script} must exist and be executable"
    subprocess.run(["bash", "-n", str(script)], check=True)


@pytest.mark.skipif(os.environ.get("ARENA_DOCKER_IMAGE_TEST") != "1",
                    reason="image test (base image, build, quick tournament in a container) runs only with "
                           "ARENA_DOCKER_IMAGE_TEST=1 and a running Docker engine")
def test_image_builds_and_runs_the_quick_tournament():
    proc = subprocess.run(["bash", str(ROOT / "docker" / "ci-image-test.sh")], cwd=ROOT, capture_output=True,
                          text=True, timeout=IMAGE_TEST_TIMEOUT)
    print(proc.stdout)
    assert proc.returncode == 0, f"docker/ci-image-test.sh failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
