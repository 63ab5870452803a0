"""What a bot declares it needs: Python requirements and Node packages, read from its directory.

A bot author ships a directory as for any project: a ``requirements.txt`` (or the file the
manifest's ``requirements`` names), or a ``package.json`` with its ``package-lock.json``.
The arena installs them into an environment outside the bot directory
(:mod:`arena.bots.env`). This module only reads the declaration: which file declares what,
which files of the bot directory the install reads (copied into the environment, and
hashed into its :func:`key`, so that editing any of them makes a new version while
editing the bot's own code reuses the environment), and it refuses bad declarations
with a message naming the file and what would be right. Every path a declaration names
must stay inside the bot directory (:mod:`.inside`): pip and npm read what it names with
the arena's rights and quote it in their errors.
"""

from __future__ import annotations

import hashlib
import json
import ipaddress
import os
import re
import shlex
import shutil
import socket
import sys
import unicodedata
import urllib.parse
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from ..sandbox.allowlist import SANDBOX_PATH
from . import inside
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
    text = None if manifest is None else inside.open_text(directory, manifest, "this requirements file")
    if manifest is not None and text is not None and _active(text):
        inputs = [manifest, *_requirement_refs(directory, manifest, {manifest})]
        out.append(Deps(PYTHON, directory, manifest, tuple(dict.fromkeys(inputs)), python or bot_python()))
    node = _node(directory)
    if node is not None:
        out.append(node)
    for d in out:
        _contained(d)
        if d.kind == PYTHON:
            _check_wheels(d)
    return tuple(out)


def _check_wheels(d: Deps) -> None:
    """A wheel of the bot's own may require another by URL (``Requires-Dist: x @ http://...``), which the
    fetch would download: refuse one to a non-global address, as in a requirements file. Reads each
    wheel's METADATA as a zip member (bounded): no package code runs."""
    for name in d.inputs:
        for file in files_of(d.directory, name):
            if not file.lower().endswith(".whl"):
                continue
            path = os.path.join(d.directory, file)
            try:
                with zipfile.ZipFile(path) as wheel:
                    members = [m for m in wheel.infolist() if m.filename.count("/") == 1
                               and m.filename.endswith(".dist-info/METADATA") and m.file_size <= _METADATA_MAX]
                    texts = [wheel.read(m).decode("utf-8", "replace") for m in members]
            except (OSError, zipfile.BadZipFile, ValueError):
                continue  # not a wheel pip can read either: pip says so
            for text in texts:
                for line in text.splitlines():
                    if line.lower().startswith("requires-dist:") and "@" in line:
                        url = line.partition("@")[2].split(";")[0].strip()
                        if _network(url):
                            _refuse_local_host(f"{path}: METADATA", url)


_METADATA_MAX = 1 << 20
"""A wheel's METADATA read at most this big (a larger one is left to pip)."""


def _contained(d: Deps) -> None:
    """Refuse an input file that is a symlink out of the bot (in a ``--find-links`` folder, say): the
    install copies what it points to, and pip or npm would read and quote it."""
    for name in d.inputs:
        for file in files_of(d.directory, name):
            why = inside.escape(d.directory, file)
            if why is not None:
                raise BotConfigError(f"{os.path.join(d.directory, file)}: {d.what} reads this file, which is {why}; "
                                     "a bot's files must be inside its directory")


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
        if not os.path.lexists(os.path.join(directory, REQUIREMENTS)):
            return None
        inside.check_file(directory, REQUIREMENTS, "this requirements file")
        return REQUIREMENTS if os.path.isfile(os.path.join(directory, REQUIREMENTS)) else None
    found = _inside(directory, named)  # None for a path (or symlink) leading out
    if os.path.isabs(named) or found is None or not os.path.isfile(os.path.join(directory, named)):
        raise BotConfigError(f"{where}: field 'requirements' names {named!r}, which is not a file in the bot "
                             f"directory {directory}; give a path relative to it, e.g. requirements.txt")
    return found


_PATH_OPTIONS = {"requirement": "r", "constraint": "c", "editable": "e", "find-links": "f", "index-url": "i",
                 "extra-index-url": ""}
"""pip's requirements-file options whose value is a file, folder or URL, and their short forms."""
_VALUE_OPTIONS = ("trusted-host", "hash", "use-feature", "config-settings", "global-option")
"""pip's requirements-file options whose value is no path nor requirement (``--trusted-host host:port``)."""
_READ_IN_TURN = ("requirement", "constraint")
"""Options naming another requirements file, relative to the file that names it."""
_ARCHIVES = (".whl", ".zip", ".tar.gz", ".tgz", ".tar.bz2", ".tbz", ".tar.xz", ".txz", ".tar")
"""Endings that make pip take a requirement for a file even without a ``/``."""
_HINT = "e.g. -r base.txt, --find-links wheels, ./wheels/pkg-1.0-py3-none-any.whl"
_ENV = re.compile(r"\$\{[^}]*\}")


def _requirement_refs(directory: str, manifest: str, seen: set[str]) -> list[str]:
    """Files and folders of the bot directory a requirements file names: ``-r``/``-c`` files (read
    in turn), ``--find-links`` folders, local wheels and projects.

    Every path it names (as an option's value, a ``file:`` URL or a requirement that is a
    path) is refused unless it stays inside the bot directory (:mod:`.inside`), and so is
    any ``${VARIABLE}``, which pip would fill in from the arena's environment. Options are
    read as pip reads them: ``-r x``, ``-rx``, ``--requirement=x``, ``--req x`` (a long
    option may be shortened).
    """
    out: list[str] = []
    folder = os.path.dirname(manifest)
    text = inside.open_text(directory, manifest, "this requirements file")
    for number, line in _numbered(text):
        where = f"{os.path.join(directory, manifest)}:{number}"
        variable = next((word for word in line.split() if _ENV.search(word)), None)
        if variable is not None:  # pip expands them anywhere on a line, before it reads options
            raise inside.refuse(where, variable, "a ${VARIABLE}, which pip would fill in from the arena's "
                                "environment", _HINT)
        for word in line.split():
            name = word[2:].partition("=")[0] if word.startswith("--") else ""
            if name and ("only-binary".startswith(name) or (len(name) >= 4 and "no-binary".startswith(name))):
                raise _source_error(where, word, "an option choosing between wheels and source, which would let "
                                    "pip build a package from source")
        for option, value in _values(line):
            path = inside.url_path(value)
            if option in (None, "editable"):
                _refuse_source(where, value, option)
            if path is None and _network(value):
                if option in _READ_IN_TURN:
                    raise BotConfigError(f"{where}: names {value!r}, a requirements file on the network, whose "
                                         "lines the arena cannot check before pip reads them; put the file in the "
                                         "bot directory")
                _refuse_local_host(where, value)
                continue  # a network URL (an index, a VCS repository): no file of this machine
            names = [value if path is None else path]
            if path is None and option is None and "@" in value:
                names.append(value.partition("@")[2].strip())  # name @ /path
            for name in names:
                pathlike = path is not None or option is not None or _looks_like_path(name)
                bases = _bases(directory, folder, option, name)
                if pathlike:
                    for base in bases:
                        inside.check(directory, value, where, _HINT, name, base)
                elif inside.escape(directory, name) is not None:
                    continue  # a plain requirement (a project name): pip reads no file by it
                for base in bases:
                    found = _inside(directory, os.path.join(base, name))
                    if found is None or not os.path.exists(os.path.join(directory, found)):
                        continue
                    if option in (None, "editable") and (os.path.isdir(os.path.join(directory, found))
                                                         or not found.lower().endswith(".whl")):
                        raise _source_error(where, value, "a project or archive to build from source")
                    if found not in seen:
                        seen.add(found)
                        out.append(found)
                        if option in _READ_IN_TURN and os.path.isfile(os.path.join(directory, found)):
                            out += _requirement_refs(directory, found, seen)
                    break
    return out


def _refuse_source(where: str, value: str, option: str | None) -> None:
    """Refuse a requirement pip would build from source found at a URL (a VCS repository, a source
    archive): building runs the package's code, and the fetch has the network. (Local projects and
    archives are refused where their paths are checked.)"""
    target = value if inside.SCHEME.match(value) else value.partition("@")[2].strip()
    if not _network(target):
        return  # a path: checked with the others
    _refuse_local_host(where, target)
    scheme, _, rest = target.partition(":")
    if "+" in scheme:
        raise _source_error(where, value, "a version-control repository, which pip builds from source")
    if not rest.split("#")[0].split("?")[0].lower().endswith(".whl"):
        raise _source_error(where, value, "a source archive, which pip builds")


def _network(value: str) -> bool:
    """Whether ``value`` is a URL fetched over the network (``https:``, ``git+ssh:``), not a path (``file:``,
    ``git+file:``)."""
    return inside.SCHEME.match(value) is not None and "file" not in value.partition(":")[0].lower()


def _refuse_local_host(where: str, url: str) -> None:
    """Refuse a URL to this machine or its private network (``127.0.0.1``, ``localhost``, ``[::1]``,
    ``10.x``, ``169.254.x``, ...): pip or npm would fetch it from the arena's own network, where services listen
    that a bot's files must not reach. The host is read as pip and npm read it (percent-encoded,
    full-width, a backslash for a slash). This is an early, clear error only: what keeps a fetch off
    the machine is the fetch gate (:mod:`arena.sandbox.gate`), which also catches names."""
    host = _host_of(url)
    if host == "localhost" or host.endswith(".localhost"):
        local = True
    else:
        try:
            address = ipaddress.ip_address(socket.inet_ntoa(socket.inet_aton(host)) if ":" not in host
                                           else host.partition("%")[0])  # an IPv6 zone: fe80::1%eth0
        except (OSError, ValueError):
            return  # a host name
        local = not address.is_global
    if local:
        raise BotConfigError(f"{where}: names {url!r}, a URL on this machine or its private network; a bot's "
                             "dependency files may name only public indexes and registries, and files inside "
                             "its own directory")


def _host_of(url: str) -> str:
    """The host a URL names, spelled as a fetch would connect to it."""
    text = unicodedata.normalize("NFKC", url).replace("\\", "/")
    for dot in _DOTS:
        text = text.replace(dot, ".")
    try:
        host = urllib.parse.urlsplit(text).hostname or ""
    except ValueError:
        return ""
    return urllib.parse.unquote(host).rstrip(".").lower()


_DOTS = ("\u3002", "\uff61")
"""Full stops that IDNA maps to ``.`` and NFKC leaves alone."""


def _source_error(where: str, value: str, what: str) -> BotConfigError:
    return BotConfigError(f"{where}: names {value!r}, {what}; the arena installs wheels only, so that no "
                          "package's code runs while it can reach the network: build the wheel (pip wheel "
                          "PROJECT -w wheels) and name it, e.g. ./wheels/pkg-1.0-py3-none-any.whl or --find-links wheels")


def _bases(directory: str, folder: str, option: str | None, name: str) -> tuple[str, ...]:
    """The folders (of the bot directory) pip may read ``name`` relative to: the requirements file's
    for ``-r``/``-c``; for ``--find-links`` that one if the path is there, else where pip runs (the
    top of the bot directory); for anything else both, as pip and the tools it runs differ."""
    if option in _READ_IN_TURN:
        return (folder,)
    if option == "find-links":
        there = inside.escape(directory, name, folder) is None and os.path.exists(os.path.join(directory, folder, name))
        return (folder,) if there else ("",)
    return tuple(dict.fromkeys((folder, "")))


def _values(line: str) -> list[tuple[str | None, str]]:
    """``(option, value)`` for every value a requirements line gives: the long name of a path option
    (:data:`_PATH_OPTIONS`) or None for a requirement. Words are split as the shell does and on
    white space both, so that a quoted path is seen as pip sees it, and an unquoted one too."""
    try:
        shell = shlex.split(line)
    except ValueError:
        shell = []
    out: list[tuple[str | None, str]] = []
    for words in (shell, line.split()):
        pending: str | None = None
        skip = False  # the next word is the value of an option that names no file
        for word in words:
            if pending is not None:
                out.append((pending, word))
                pending = None
            elif skip:
                skip = False
            elif word.startswith("--"):
                name, equals, value = word[2:].partition("=")
                option = _long_option(name)
                if option is not None and equals:
                    out.append((option, value))
                elif option is not None:
                    pending = option
                else:
                    skip = not equals and any(o.startswith(name) for o in _VALUE_OPTIONS)
            elif word.startswith("-") and len(word) > 1:
                option = next((o for o, short in _PATH_OPTIONS.items() if short and short == word[1]), None)
                if option is not None and len(word) > 2:
                    out.append((option, word[2:].lstrip("=")))
                elif option is not None:
                    pending = option
            elif word:
                out.append((None, word))
    return out


def _long_option(name: str) -> str | None:
    """The path option ``--name`` stands for: pip takes any unambiguous start of a long option."""
    if not name:
        return None
    return next((option for option in _PATH_OPTIONS if option.startswith(name)), None)


def _looks_like_path(word: str) -> bool:
    """Whether pip would take this requirement for a file or folder rather than a project name."""
    return (os.sep in word or "\\" in word or word.startswith((".", "~", "$"))
            or word.lower().endswith(_ARCHIVES))


def _numbered(text: str) -> list[tuple[int, str]]:
    """``(first line number, line)`` of a requirements file, continuation lines joined and comments
    (``#`` at the start or after white space) removed, as pip reads it."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 1
    for number, line in enumerate(text.splitlines(), 1):
        if not pending:
            start = number
        if line.endswith("\\"):
            pending.append(line[:-1])
            continue
        joined = " ".join(pending + [line])
        pending = []
        out.append((start, re.sub(r"(^|\s)#.*$", "", joined)))
    if pending:
        out.append((start, re.sub(r"(^|\s)#.*$", "", " ".join(pending))))
    return out


def _lines(text: str) -> list[str]:
    """The lines of a requirements file, continuation lines joined."""
    return text.replace("\\\n", " ").splitlines()


def _active(text: str) -> bool:
    """Whether a requirements file has a line that is not blank or a comment: a template's
    commented-out examples need no environment."""
    return any(line.split("#", 1)[0].strip() for line in _lines(text))


# -------------------------------------------------------------------- Node
_DEPENDENCY_MAPS = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies", "overrides")
"""Maps of package.json whose values npm may read from a path (``file:../x``, ``../x``, ``~/x``)."""
_NPMRC_PATHS = frozenset({"cafile", "userconfig", "globalconfig", "prefix", "cache", "key", "cert", "certfile",
                          "keyfile", "init-module", "globalignorefile", "logs-dir", "tmp", "script-shell", "shell",
                          "node-gyp", "editor", "local-prefix", "store-dir", "npm-global"})
"""``.npmrc`` keys whose value is a file or folder of the machine npm reads, writes or runs."""
_NODE_HINT = "e.g. file:./vendor/pkg"


def _node(directory: str) -> Deps | None:
    """Node packages, when a package.json declares dependencies; refused without a lockfile, unless
    the bot ships its own ``node_modules`` (nothing to install then)."""
    package = os.path.join(directory, PACKAGE)
    if not os.path.lexists(package):
        return None
    data = _json(directory, PACKAGE)
    if not isinstance(data, dict):
        raise BotConfigError(f"{package}: must be a JSON object, as npm writes it")
    _check_package(directory, data)
    if os.path.lexists(os.path.join(directory, NPMRC)):
        _check_npmrc(directory)
    if not any(isinstance(data.get(k), dict) and data[k] for k in _NODE_DEPENDENCIES):
        return None  # nothing to install: a package.json for the author's tools, or "type": "module"
    lock = next((name for name in LOCKFILES if os.path.lexists(os.path.join(directory, name))), None)
    if lock is None and os.path.isdir(os.path.join(directory, "node_modules")):
        return None
    if lock is None:
        raise BotConfigError(f"{package} declares dependencies but there is no package-lock.json beside it: run "
                             "`npm install` in the bot directory and submit the lockfile with the bot (the arena "
                             "installs exactly what it lists, with npm ci)")
    locked = _json(directory, lock)
    _check_lock(directory, lock, locked)
    inputs = [PACKAGE, lock] + ([NPMRC] if os.path.isfile(os.path.join(directory, NPMRC)) else [])
    inputs += [p for p in _local_packages(directory, data, locked) if p not in inputs]
    node = shutil.which("node", path=SANDBOX_PATH) or "node"
    return Deps(NODE, directory, PACKAGE, tuple(inputs), node)


def _json(directory: str, name: str) -> Any:
    """A JSON file of the bot (never one outside it); its errors quote only the bot's own file."""
    text = inside.open_text(directory, name, "this JSON file")
    try:
        return json.loads(text)
    except ValueError as exc:
        raise BotConfigError(f"{os.path.join(directory, name)}: not valid JSON ({exc})") from None


def _node_path(value: str) -> str | None:
    """The path a dependency spec names, or None for a version range, tag or network URL:
    ``file:``/``link:`` specs, and bare paths (``./x``, ``../x``, ``/x``, ``~/x``) as npm reads them."""
    path = inside.url_path(value)
    if path is not None:
        return path
    if inside.SCHEME.match(value) and not re.match(r"^[A-Za-z]:[\\/]", value):
        return None
    if value.startswith((".", "/", "~", "\\")) or re.match(r"^[A-Za-z]:[\\/]", value) or "$" in value:
        return value
    return None


def _check_spec(directory: str, value: Any, where: str) -> None:
    """Refuse a dependency value (a spec, or a map of them: ``overrides``) naming a path outside the bot."""
    if isinstance(value, dict):
        for item in value.values():
            _check_spec(directory, item, where)
    elif isinstance(value, str):
        path = _node_path(value)
        if path is not None:
            inside.check(directory, value, where, _NODE_HINT, path)


def _check_package(directory: str, data: dict[str, Any]) -> None:
    """Every path package.json's dependency maps name stays inside the bot."""
    for field in _DEPENDENCY_MAPS:
        deps_map = data.get(field)
        if isinstance(deps_map, dict):
            for name, value in deps_map.items():
                where = f"{os.path.join(directory, PACKAGE)}: {field}.{name}"
                if isinstance(value, str) and (_GIT.match(value) or _GITHUB_SHORT.fullmatch(value)):
                    raise _git_error(where, value)
                if isinstance(value, str) and _network(value):
                    _refuse_local_host(where, value)
                _check_spec(directory, value, where)
    workspaces = data.get("workspaces")
    if isinstance(workspaces, dict):
        workspaces = workspaces.get("packages")
    for folder in workspaces if isinstance(workspaces, list) else ():
        if isinstance(folder, str):
            inside.check(directory, folder, f"{os.path.join(directory, PACKAGE)}: workspaces", _NODE_HINT)


_GIT = re.compile(r"(git(\+[a-z]+)?|github|gitlab|bitbucket|gist):", re.I)
"""A git dependency (``git+https:``, ``github:``): npm prepares one by running its scripts as it fetches."""
_GITHUB_SHORT = re.compile(r"[\w.-]+/[\w.-]+(#.*)?")
"""``owner/repo``: npm's shorthand for a GitHub repository."""


def _git_error(where: str, spec: str) -> BotConfigError:
    return BotConfigError(f"{where}: names {spec!r}, a git dependency, which npm prepares by running its scripts "
                          "while it fetches with the network; depend on a published version, or vendor the package "
                          f"in the bot directory ({_NODE_HINT})")


def _check_lock(directory: str, lock: str, data: Any) -> None:
    """Every path the lockfile names stays inside the bot: ``file:``/``link:`` values anywhere, the keys of
    linked packages (``packages["../x"]``) and ``resolved`` paths."""
    where = os.path.join(directory, lock)
    for at, spec in _located_specs(data, ""):
        inside.check(directory, spec, f"{where}: {at}", _NODE_HINT, spec.partition(":")[2])
    packages = data.get("packages") if isinstance(data, dict) else None
    if isinstance(packages, dict):
        for key, item in packages.items():
            if key:
                inside.check(directory, key, f"{where}: packages", _NODE_HINT)
            resolved = item.get("resolved") if isinstance(item, dict) else None
            if isinstance(resolved, str) and _GIT.match(resolved):
                raise _git_error(f"{where}: packages[{key!r}].resolved", resolved)
            if isinstance(resolved, str) and _network(resolved):
                _refuse_local_host(f"{where}: packages[{key!r}].resolved", resolved)
            if isinstance(resolved, str) and _node_path(resolved) is not None:
                inside.check(directory, resolved, f"{where}: packages[{key!r}].resolved", _NODE_HINT,
                             _node_path(resolved))


def _located_specs(value: Any, at: str) -> Iterator[tuple[str, str]]:
    """``(where, spec)`` of every ``file:``/``link:`` value in a JSON document, ``where`` as
    ``packages[""].dependencies.a``."""
    if isinstance(value, str) and value.startswith(("file:", "link:")):
        yield at, value
    elif isinstance(value, dict):
        for key, item in value.items():
            plain = re.fullmatch(r"[\w@-]+", key) is not None
            yield from _located_specs(item, (f"{at}.{key}" if at else key) if plain else f"{at}[{json.dumps(key)}]")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _located_specs(item, f"{at}[{index}]")


def _check_npmrc(directory: str) -> None:
    """Refuse an ``.npmrc`` key naming a path of the machine (``cafile=/etc/...``) or a ``${VARIABLE}``
    (npm fills it in from the arena's environment); a relative path inside the bot is fine."""
    text = inside.open_text(directory, NPMRC, "this .npmrc")
    for number, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or line.startswith((";", "#")):
            continue
        key, _, value = line.partition("=")
        key, value = key.strip(), value.strip().strip("\"'")
        where = f"{os.path.join(directory, NPMRC)}:{number}"
        if "$" in line and inside.ENV_VARIABLE.search(line):
            raise inside.refuse(where, line, "a $ variable, which npm would fill in from the arena's environment",
                                "remove it")
        name = key.removesuffix("[]").rpartition(":")[2].strip().lower()
        if name == "git":
            raise BotConfigError(f"{where}: sets git, the program npm runs to fetch git dependencies, which would "
                                 "run while the network is there; leave the key out")
        if _network(value):
            _refuse_local_host(where, value)
        if name in _NPMRC_PATHS and value:
            inside.check(directory, value, where, "or leave the key out")
        elif inside.url_path(value) is not None:  # registry=file:///srv/mirror
            inside.check(directory, value, where, "or leave the key out", inside.url_path(value))


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
