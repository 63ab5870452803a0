"""What a bot declares it needs: Python requirements and Node packages, read from its directory.

A bot author ships a directory as for any project: a ``requirements.txt`` (or the file the
manifest's ``requirements`` names), or a ``package.json`` with its ``package-lock.json``.
The arena installs them into an environment outside the bot directory
(:mod:`arena.bots.env`). This module only reads the declaration: which file declares what,
which files of the bot directory the install reads (copied into the environment, and
hashed into its :func:`key`, so that editing any of them makes a new version while
editing the bot's own code reuses the environment), and it refuses bad declarations
with a message naming the file and what would be right.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..sandbox.allowlist import SANDBOX_PATH
from .errors import BotConfigError
from .files import file_digest

PYTHON = "python"
NODE = "node"
REQUIREMENTS = "requirements.txt"
"""Found in a bot directory without a ``requirements`` key, it is installed."""
PACKAGE = "package.json"
LOCKFILES = ("package-lock.json", "npm-shrinkwrap.json")
"""What ``npm ci`` installs from: one of these must sit beside a package.json that has dependencies."""
NPMRC = ".npmrc"
FORMAT = 1
"""Part of every key: bump it when the layout of an environment or its install steps change."""

_NODE_DEPENDENCIES = ("dependencies", "optionalDependencies")
"""The dependency maps ``npm ci --omit=dev`` installs (devDependencies are for the author's tools)."""
_SKIPPED = frozenset({"node_modules", "__pycache__", ".git", ".hg", ".svn"})
"""Never part of an install's input folder."""
_REQUIREMENT_FILE_OPTIONS = ("-r", "--requirement", "-c", "--constraint")


def bot_python() -> str:
    """The interpreter ``{python}`` stands for: Debian's, which starts fastest, else ours."""
    return "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable


@dataclass(frozen=True)
class Deps:
    """One set of dependencies a bot declares, and everything its installed version depends on."""

    kind: str
    """``python`` (a requirements file: pip into a venv) or ``node`` (package.json + lockfile: ``npm ci``)."""
    directory: str
    """The bot directory (absolute)."""
    manifest: str
    """The declaring file, relative to the bot directory."""
    inputs: tuple[str, ...]
    """Files and folders of the bot directory the install reads, relative, the manifest first:
    copied into the environment and hashed into its key."""
    interpreter: str
    """The program the environment is made for: the venv's base Python, or ``node``."""

    @property
    def step(self) -> str:
        """The install command in words, for errors: ``pip install -r requirements.txt``."""
        if self.kind == PYTHON:
            return f"pip install -r {self.manifest}"
        return "npm ci --omit=dev"

    @property
    def what(self) -> str:
        """``Python requirements (requirements.txt)`` or ``Node packages (package.json)``."""
        return f"{'Python requirements' if self.kind == PYTHON else 'Node packages'} ({self.manifest})"


def python_of(named: str | None, where: str) -> str | None:
    """The absolute path of the manifest's ``python`` (a path or a name on PATH); None when unset."""
    if named is None:
        return None
    found = shutil.which(named) if os.sep not in named else (named if os.access(named, os.X_OK) else None)
    if not found or not os.path.isfile(found):
        raise BotConfigError(f"{where}: field 'python' names {named!r}, which is not an executable Python here; "
                             "give an interpreter's path or a name on PATH, e.g. /usr/bin/python3.11 or python3.11")
    return os.path.abspath(found)


def declared(directory: str, requirements: str | None, python: str | None, where: str) -> tuple[Deps, ...]:
    """The dependencies the bot in ``directory`` declares; ``where`` (its manifest) names the bot in errors.

    ``requirements`` is the manifest's key (else ``requirements.txt`` if there is one),
    ``python`` its interpreter (else :func:`bot_python`).
    """
    out: list[Deps] = []
    manifest = _requirements_file(directory, requirements, where)
    if manifest is not None and _active(_read(os.path.join(directory, manifest))):
        inputs = [manifest, *_requirement_refs(directory, manifest, {manifest})]
        out.append(Deps(PYTHON, directory, manifest, tuple(dict.fromkeys(inputs)), python or bot_python()))
    node = _node(directory)
    if node is not None:
        out.append(node)
    return tuple(out)


def key(deps: Deps) -> str:
    """The environment's version: ``python-<hash>`` of the inputs' contents, the interpreter and the format.

    The interpreter counts by path, size and modification time: an upgraded Python or Node
    gets new environments (compiled extensions are built for one version).
    """
    try:
        info = os.stat(deps.interpreter)
        program: list[Any] = [deps.interpreter, info.st_size, info.st_mtime_ns]
    except OSError:
        program = [deps.interpreter]
    contents = {name: _digest(os.path.join(deps.directory, name)) for name in deps.inputs}
    text = json.dumps({"format": FORMAT, "kind": deps.kind, "interpreter": program, "manifest": deps.manifest,
                       "inputs": contents}, sort_keys=True)
    return f"{deps.kind}-{hashlib.sha256(text.encode()).hexdigest()[:24]}"


def files_of(directory: str, name: str) -> Iterator[str]:
    """The files an input stands for, relative to the bot directory: itself, or a folder's files."""
    path = os.path.join(directory, name)
    if not os.path.isdir(path):
        yield name
        return
    for folder, dirs, files in os.walk(path):
        dirs[:] = sorted(d for d in dirs if d not in _SKIPPED)
        for file in sorted(files):
            yield os.path.relpath(os.path.join(folder, file), directory)


# ------------------------------------------------------------------ Python
def _requirements_file(directory: str, named: str | None, where: str) -> str | None:
    """The requirements file, relative to the bot directory, checked to be a file inside it."""
    if named is None:
        return REQUIREMENTS if os.path.isfile(os.path.join(directory, REQUIREMENTS)) else None
    inside = _inside(directory, named)
    if os.path.isabs(named) or inside is None or not os.path.isfile(os.path.join(directory, named)):
        raise BotConfigError(f"{where}: field 'requirements' names {named!r}, which is not a file in the bot "
                             f"directory {directory}; give a path relative to it, e.g. requirements.txt")
    return inside


def _requirement_refs(directory: str, manifest: str, seen: set[str]) -> list[str]:
    """Files and folders of the bot directory a requirements file names: ``-r``/``-c`` files (read
    in turn), ``--find-links`` folders, local wheels and projects. Anything that names an existing
    path inside the bot directory counts, relative to the file or to the bot directory."""
    out: list[str] = []
    previous = ""
    for line in _lines(_read(os.path.join(directory, manifest))):
        words = line.split()
        for index, word in enumerate(words):
            if word.startswith("#"):
                break  # a comment: at the start of a line or after whitespace
            option, _, value = word.partition("=") if word.startswith("--") else ("", "", word)
            value = value.removeprefix("file:")
            is_requirements = previous in _REQUIREMENT_FILE_OPTIONS or option in _REQUIREMENT_FILE_OPTIONS
            previous = word if index + 1 < len(words) else ""
            if not value or value.startswith("-") or value.startswith("/"):
                continue
            for base in dict.fromkeys((os.path.dirname(manifest), "")):
                found = _inside(directory, os.path.join(base, value))
                if found is None or found in seen or not os.path.exists(os.path.join(directory, found)):
                    continue
                seen.add(found)
                out.append(found)
                if is_requirements and os.path.isfile(os.path.join(directory, found)):
                    out += _requirement_refs(directory, found, seen)
                break
    return out


def _read(path: str) -> str:
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise BotConfigError(f"{path}: cannot read this requirements file ({exc}); it must be UTF-8 text") from None


def _lines(text: str) -> list[str]:
    """The lines of a requirements file, continuation lines joined."""
    return text.replace("\\\n", " ").splitlines()


def _active(text: str) -> bool:
    """Whether a requirements file has a line that is not blank or a comment: a template's
    commented-out examples need no environment."""
    return any(line.split("#", 1)[0].strip() for line in _lines(text))


# -------------------------------------------------------------------- Node
def _node(directory: str) -> Deps | None:
    """Node packages, when a package.json declares dependencies; refused without a lockfile, unless
    the bot ships its own ``node_modules`` (nothing to install then)."""
    package = os.path.join(directory, PACKAGE)
    if not os.path.isfile(package):
        return None
    data = _json(package)
    if not isinstance(data, dict):
        raise BotConfigError(f"{package}: must be a JSON object, as npm writes it")
    if not any(isinstance(data.get(k), dict) and data[k] for k in _NODE_DEPENDENCIES):
        return None  # nothing to install: a package.json for the author's tools, or "type": "module"
    lock = next((name for name in LOCKFILES if os.path.isfile(os.path.join(directory, name))), None)
    if lock is None and os.path.isdir(os.path.join(directory, "node_modules")):
        return None
    if lock is None:
        raise BotConfigError(f"{package} declares dependencies but there is no package-lock.json beside it: run "
                             "`npm install` in the bot directory and submit the lockfile with the bot (the arena "
                             "installs exactly what it lists, with npm ci)")
    locked = _json(os.path.join(directory, lock))
    inputs = [PACKAGE, lock] + ([NPMRC] if os.path.isfile(os.path.join(directory, NPMRC)) else [])
    inputs += [p for p in _local_packages(directory, data, locked) if p not in inputs]
    node = shutil.which("node", path=SANDBOX_PATH) or "node"
    return Deps(NODE, directory, PACKAGE, tuple(inputs), node)


def _json(path: str) -> Any:
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise BotConfigError(f"{path}: not valid JSON ({exc})") from None


def _local_packages(directory: str, package: dict[str, Any], lock: Any) -> list[str]:
    """Paths inside the bot directory that ``file:``/``link:`` dependencies and the lockfile's links name."""
    names = list(_local_specs(package)) + list(_local_specs(lock))
    packages = lock.get("packages") if isinstance(lock, dict) else None
    if isinstance(packages, dict):  # lockfile v2/v3: a key outside node_modules is the target of a link
        names += [where for where in packages if where and not where.startswith("node_modules/")
                  and "/node_modules/" not in where]
    out: list[str] = []
    for name in names:
        found = _inside(directory, name)
        if found is not None and found not in out and os.path.exists(os.path.join(directory, found)):
            out.append(found)
    return out


def _local_specs(value: Any) -> Iterator[str]:
    """Every ``file:``/``link:`` value in a JSON document, without its prefix."""
    if isinstance(value, str):
        if value.startswith(("file:", "link:")):
            yield value.partition(":")[2]
    elif isinstance(value, dict):
        for item in value.values():
            yield from _local_specs(item)
    elif isinstance(value, list):
        for item in value:
            yield from _local_specs(item)


# ----------------------------------------------------------------- helpers
def _inside(directory: str, name: str) -> str | None:
    """``name`` normalised relative to the bot directory, or None if it leads outside it (or is it)."""
    if os.path.isabs(name):
        return None
    norm = os.path.normpath(name)
    if norm == "." or norm == ".." or norm.startswith(".." + os.sep):
        return None
    real = os.path.realpath(os.path.join(directory, norm))
    root = os.path.realpath(directory)
    return norm if real.startswith(root + os.sep) else None


_DIGESTS: dict[str, tuple[tuple[int, int, int, int], str]] = {}
"""sha256 of files by path, with the stamp it was taken at: a bot started for every match is hashed once."""


def _digest(path: str) -> str:
    """sha256 of a file, or of a folder's files and their names."""
    if os.path.isdir(path):
        directory = os.path.dirname(path)
        whole = hashlib.sha256()
        for name in files_of(directory, os.path.basename(path)):
            whole.update(f"{name}\0{_digest(os.path.join(directory, name))}\0".encode())
        return whole.hexdigest()
    try:
        info = os.stat(path)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    stamp = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    cached = _DIGESTS.get(path)
    if cached is not None and cached[0] == stamp:
        return cached[1]
    found = file_digest(path)
    if not found.startswith("unreadable"):
        _DIGESTS[path] = (stamp, found)
    return found
