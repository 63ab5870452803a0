"""Bots with dependencies, made offline: a hand-made wheel and npm tarball inside the bot directory.

A Python bot's ``requirements.txt`` says ``--no-index --find-links wheels`` and names the
wheel's package, so pip needs no network; a Node bot's package.json names
``file:cabodep-1.0.0.tgz`` and its lockfile is made with ``npm install
--package-lock-only --offline``. Every test gets its own cache (``ARENA_CACHE``) unless
it asks for the ``shared_cache`` of the session, where environments built once serve
every test that declares the same dependencies.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import shutil
import subprocess
import tarfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from arena.match.link import TimeControl
from arena.bots import cache
from arena.bots.spec import BotSpec
from arena.game import make_rules
from arena.match.runner import MatchJob, MatchOutcome, play_match
from arena.sandbox import get_backend

ROOT = Path(__file__).resolve().parents[2]
RANDOM_BOT = ROOT / "bots" / "random"
SLOW_TIME = TimeControl(move_ms=5000, startup_ms=20000)

PYTHON_BOT = '''\
import json
import random
import sys

import cabodep

rng = random.Random(0)
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        rng = random.Random(f"{msg.get('match')}/{msg.get('seat')}")
        print(json.dumps({"type": "ready", "name": "deps-" + cabodep.VERSION}), flush=True)
    elif msg.get("type") == "act":
        print(json.dumps({"type": "action", "id": msg["id"], "index": cabodep.pick(msg["legal"], rng)}), flush=True)
'''

NODE_BOT = '''\
'use strict';
const readline = require('readline');
const dep = require('cabodep');
const local = require('localdep');
const rl = readline.createInterface({ input: process.stdin });
rl.on('line', (line) => {
  const msg = JSON.parse(line);
  if (msg.type === 'hello') {
    process.stdout.write(JSON.stringify({ type: 'ready', name: 'node-deps-' + dep.VERSION + local }) + '\\n');
  } else if (msg.type === 'act') {
    process.stdout.write(JSON.stringify({ type: 'action', id: msg.id, index: dep.pick(msg.legal) }) + '\\n');
  }
});
'''


def make_wheel(folder: Path, version: str = "1.0", name: str = "cabodep") -> Path:
    """A pure-Python wheel of ``name`` (``pick(legal, rng)``, ``VERSION``): a zip with METADATA, WHEEL, RECORD."""
    code = f"VERSION = {version!r}\n\n\ndef pick(legal, rng):\n    return rng.randrange(len(legal))\n"
    info = f"{name}-{version}.dist-info"
    files = {f"{name}/__init__.py": code.encode(),
             f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n".encode(),
             f"{info}/WHEEL": b"Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"}
    record = [f"{path},sha256={base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b'=').decode()},"
              f"{len(data)}" for path, data in files.items()]
    files[f"{info}/RECORD"] = "\n".join([*record, f"{info}/RECORD,,", ""]).encode()
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for member, data in files.items():
            archive.writestr(member, data)
    return path


def python_bot(directory: Path, name: str = "pydeps", requirement: str = "cabodep==1.0",
               versions: tuple[str, ...] = ("1.0",), manifest: str = "") -> Path:
    """A bot directory whose bot imports ``cabodep`` from a wheel in its own ``wheels`` folder."""
    directory.mkdir(parents=True, exist_ok=True)
    for version in versions:
        make_wheel(directory / "wheels", version)
    (directory / "requirements.txt").write_text(f"--no-index\n--find-links wheels  # offline\n{requirement}\n")
    (directory / "bot.py").write_text(PYTHON_BOT)
    (directory / "bot.yaml").write_text(f'name: {name}\nlanguage: python\nrun: ["{{python}}", "bot.py"]\n{manifest}')
    return readable(directory)


def node_bot(directory: Path, name: str = "nodedeps") -> Path:
    """A Node bot requiring ``cabodep`` (a tarball) and ``localdep`` (a folder, installed as a link)."""
    directory.mkdir(parents=True, exist_ok=True)
    package = {"name": "cabodep", "version": "1.0.0", "main": "index.js"}
    index = b"module.exports = { VERSION: '1.0.0', pick: (legal) => Math.floor(Math.random() * legal.length) };\n"
    with tarfile.open(directory / "cabodep-1.0.0.tgz", "w:gz") as archive:
        for member, data in (("package/package.json", json.dumps(package).encode()), ("package/index.js", index)):
            entry = tarfile.TarInfo(member)
            entry.size, entry.mode = len(data), 0o644
            archive.addfile(entry, io.BytesIO(data))
    (directory / "localdep").mkdir(exist_ok=True)
    (directory / "localdep" / "package.json").write_text('{"name": "localdep", "version": "0.1.0"}\n')
    (directory / "localdep" / "index.js").write_text("module.exports = '-local';\n")
    (directory / "package.json").write_text(json.dumps({
        "name": name, "version": "1.0.0", "private": True,
        "dependencies": {"cabodep": "file:cabodep-1.0.0.tgz", "localdep": "file:./localdep"}}, indent=2))
    done = subprocess.run(["npm", "install", "--package-lock-only", "--offline", "--no-audit", "--no-fund"],
                          cwd=directory, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    (directory / "bot.js").write_text(NODE_BOT)
    (directory / "bot.yaml").write_text(f"name: {name}\nlanguage: javascript\nrun: [node, bot.js]\n")
    return readable(directory)


def readable(directory: Path) -> Path:
    """Readable by every user, as a bot directory must be for bwrap (pytest's tmp_path is 0700)."""
    for where, dirs, files in os.walk(directory):
        os.chmod(where, 0o755)
        for file in files:
            os.chmod(os.path.join(where, file), 0o644)
    return directory


def play(spec: BotSpec, sandbox: str, opponent: BotSpec | None = None, seed: int = 3) -> MatchOutcome:
    """One match of ``spec`` against the bundled random bot (or ``opponent``)."""
    from arena.bots import build_bot, load_bot

    other = opponent or load_bot(str(RANDOM_BOT))
    build_bot(other)
    return play_match(MatchJob(f"deps-{sandbox}", make_rules("standard"), seed, (spec, other), sandbox=sandbox,
                               time=SLOW_TIME))


def need_backend(name: str) -> None:
    """Skip, with the reason, where the sandbox cannot run."""
    ok, why = get_backend(name).available()
    if not ok:
        pytest.skip(f"sandbox {name} unavailable: {why}")


def need_node() -> None:
    if not (shutil.which("node") and shutil.which("npm")):
        pytest.skip("node and npm are needed for Node bots with packages")


@pytest.fixture
def own_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A fresh, empty cache for this test alone."""
    folder = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv(cache.ENV_VAR, str(folder))
    yield folder


@pytest.fixture(scope="session")
def _session_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("shared-cache")


@pytest.fixture
def shared_cache(_session_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The session's cache: an environment one test built serves the next with the same dependencies."""
    monkeypatch.setenv(cache.ENV_VAR, str(_session_cache))
    yield _session_cache


def entries(folder: Path) -> list[Path]:
    """Environment folders in a cache (published or not)."""
    envs = folder / "envs"
    return sorted(p for p in envs.iterdir() if p.is_dir() and not p.is_symlink()) if envs.is_dir() else []
