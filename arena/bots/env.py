"""A bot's dependency environments: installed by the arena once per version, outside the bot directory.

Python requirements go into a virtual environment made with the bot's interpreter
(``{python}`` then means that environment's ``python``); Node packages are installed
with ``npm ci --omit=dev`` into an entry holding copies of package.json, its lockfile and
the local packages they name, and the bot gets ``NODE_PATH=<entry>/node_modules``. Both
use the package index and registry the machine is configured for (pip.conf,
``PIP_INDEX_URL``, .npmrc), with the network; the bot itself never has network when it
plays. Entries live in the cache (:mod:`arena.bots.cache`), are built with umask 022 and
made readable by every user, because a sandboxed bot runs as another user, and are
bound read-only into its sandbox (:func:`arena.bots.launch.launch_spec`).

The install runs as the arena's user with the arena's environment, like a bot's
``build`` command: it is not sandboxed (pip and npm run packages' build and install
scripts).
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import shutil
import stat
import subprocess
import sys
import time
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from . import cache, deps
from .buildlock import BotBusy
from .deps import Deps
from .errors import BotConfigError

if TYPE_CHECKING:
    from .spec import BotSpec

INSTALL_TIMEOUT = 1800.0
"""Seconds one environment may take to install (large wheels download slowly), and that another
arena waits for a build of the same version."""
TAIL_LINES = 15
"""Lines of a failed install's log quoted in the error."""
SOURCE = "src"
"""Folder of a Python entry holding the copies of the requirements file and what it names."""
_PIP_PYTHON_OPTION = (22, 3)
"""The first pip with ``--python``: the arena's pip installs into a venv that has none."""


@dataclass(frozen=True)
class Environment:
    """What a bot's installed dependencies give it."""

    python: str | None = None
    """The venv's ``python``: what ``{python}`` stands for."""
    node_modules: str | None = None
    """The folder ``NODE_PATH`` names."""
    paths: tuple[str, ...] = ()
    """Entries the bot must be able to read (bound read-only at the same path in its sandbox)."""


def declared(spec: BotSpec) -> tuple[Deps, ...]:
    """The dependencies ``spec`` declares (none for a plain command line)."""
    if not spec.directory:
        return ()
    return deps.declared(spec.directory, spec.requirements, spec.python, f"bot {spec.name!r}")


def environment(spec: BotSpec) -> Environment:
    """The installed environments of ``spec``; :class:`BotConfigError` if one is not built yet.

    Cheap (a few ``stat`` calls once the inputs are hashed): the runner calls it at every start.
    """
    found = [(d, cache.lookup(deps.key(d))) for d in declared(spec)]
    for d, path in found:
        if path is None:
            raise BotConfigError(f"bot {spec.name!r}: its {d.what} are not installed (version {deps.key(d)}): "
                                 "build the bot first (arena run, arena play and arena bot check do)")
    return _environment([(d, p) for d, p in found if p is not None])


def prepare(spec: BotSpec, timeout: float = INSTALL_TIMEOUT) -> Environment:
    """Install what ``spec`` declares unless this version is in the cache already; its environment.

    A failed install raises one :class:`BotConfigError` naming the bot, the step and the
    last lines of its log.
    """
    built: list[tuple[Deps, str]] = []
    for d in declared(spec):
        key = deps.key(d)
        about: dict[str, object] = {"kind": d.kind, "interpreter": d.interpreter, "inputs": list(d.inputs),
                                    "bot": spec.name, "directory": d.directory}
        try:
            install = functools.partial(_install, spec.name, d, key, timeout=timeout)
            path = cache.publish(key, install, timeout, about)
        except BotBusy as exc:
            raise BotConfigError(f"bot {spec.name!r}: {exc}") from None
        except OSError as exc:
            raise BotConfigError(f"bot {spec.name!r}: cannot make the environment for its {d.what} in "
                                 f"{cache.envs()}: {exc} (set {cache.ENV_VAR} to a writable folder)") from None
        built.append((d, path))
    return _environment(built)


def python_for(spec: BotSpec) -> str:
    """What ``{python}`` stands for: the venv of the bot's requirements, else its named interpreter or
    :func:`arena.bots.deps.bot_python`."""
    python = environment(spec).python
    return python or spec.python or deps.bot_python()


def _environment(built: list[tuple[Deps, str]]) -> Environment:
    python = node = None
    for d, path in built:
        if d.kind == deps.PYTHON:
            python = os.path.join(path, "bin", "python")
        else:
            node = os.path.join(path, "node_modules")
    return Environment(python, node, tuple(path for _, path in built))


# ----------------------------------------------------------------- installing
def _install(name: str, d: Deps, key: str, folder: str, timeout: float) -> None:
    """Build the entry in ``folder``: copy the inputs, run the steps, make everything readable."""
    end = time.monotonic() + timeout
    failed_log = os.path.join(os.path.dirname(folder), f"{key}.failed.log")
    with open(os.path.join(folder, cache.LOG), "w") as log:
        os.fchmod(log.fileno(), 0o644)
        if d.kind == deps.PYTHON:
            _copy_inputs(d, os.path.join(folder, SOURCE))
            steps = _python_steps(d, folder)
        else:
            _copy_inputs(d, folder)
            steps = _node_steps(d)
        for label, argv, cwd in steps:
            log.write(f"$ {' '.join(argv)}\n")
            log.flush()
            code = _run(argv, cwd or folder, log, end - time.monotonic())
            if code != 0:
                log.close()
                shutil.copyfile(os.path.join(folder, cache.LOG), failed_log)
                raise BotConfigError(_failure(name, d, label, code, failed_log, timeout))
    _make_readable(folder)
    if os.path.exists(failed_log):
        os.remove(failed_log)


def _python_steps(d: Deps, folder: str) -> list[tuple[str, list[str], str | None]]:
    """A venv made by the bot's interpreter, then pip: the arena's own (``--python``) when it can, which
    spares the venv a pip of its own and saves seconds, else the pip ``venv`` puts there."""
    python = os.path.join(folder, "bin", "python")
    requirement = ["install", "--no-input", "--disable-pip-version-check", "--no-warn-script-location",
                   "-r", d.manifest]
    source = os.path.join(folder, SOURCE)
    venv = f"{d.interpreter} -m venv"
    if _arena_pip():
        return [(venv, [d.interpreter, "-m", "venv", "--without-pip", folder], None),
                (d.step, [sys.executable, "-m", "pip", "--python", python, *requirement], source)]
    return [(venv, [d.interpreter, "-m", "venv", folder], None),
            (d.step, [python, "-m", "pip", *requirement], source)]


def _node_steps(d: Deps) -> list[tuple[str, list[str], str | None]]:
    npm = shutil.which("npm")
    if npm is None:
        raise BotConfigError(f"{os.path.join(d.directory, d.manifest)}: the bot needs Node packages but there is no "
                             "npm on this machine's PATH to install them (Debian: apt-get install npm)")
    return [(d.step, [npm, "ci", "--omit=dev", "--no-audit", "--no-fund", "--no-update-notifier"], None)]


_PIP: list[bool] = []


def _arena_pip() -> bool:
    """Whether the arena's Python has a pip that can install into another interpreter's venv."""
    if not _PIP:
        try:
            found = importlib.util.find_spec("pip") is not None
            version = tuple(int(p) for p in importlib.metadata.version("pip").split(".")[:2] if p.isdigit())
        except (ImportError, ValueError, importlib.metadata.PackageNotFoundError):
            found, version = False, ()
        _PIP.append(found and version >= _PIP_PYTHON_OPTION)
    return _PIP[0]


def _run(argv: list[str], cwd: str, log: IO[str], timeout: float) -> int:
    """Run one step with its output in ``log``; its exit status (124 when it ran out of time)."""
    try:
        return subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                              timeout=max(timeout, 1.0), umask=0o022).returncode
    except subprocess.TimeoutExpired:
        log.write(f"\n(stopped: the install took over {timeout:.0f} s)\n")
        return 124
    except OSError as exc:
        log.write(f"\ncannot run {argv[0]}: {exc}\n")
        return 127


def _failure(name: str, d: Deps, label: str, code: int, log: str, timeout: float) -> str:
    """One error: the bot, the step, why, and the end of the log."""
    with open(log, errors="replace") as f:
        lines = [line.rstrip() for line in f.read().splitlines() if line.strip()]
    tail = "\n".join("    " + line for line in lines[-TAIL_LINES:])
    why = f"took over {timeout:.0f} s" if code == 124 else f"failed (exit {code})"
    return (f"bot {name!r}: installing its {d.what}: {label} {why}; the last lines of its log "
            f"(all of it in {log}):\n{tail}")


def _copy_inputs(d: Deps, target: str) -> None:
    """Copy the files the install reads to the same relative places under ``target``."""
    for name in d.inputs:
        for file in deps.files_of(d.directory, name):
            destination = os.path.join(target, file)
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            shutil.copyfile(os.path.join(d.directory, file), destination)


def _make_readable(folder: str) -> None:
    """Every folder and file readable (and folders and programs enterable) by every user.

    A sandboxed bot runs as another user; pip and npm honour the umask, but a package may
    ship files readable by their owner alone.
    """
    for where, dirs, files in os.walk(folder):
        for name in (*dirs, *files):
            path = os.path.join(where, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                continue
            mode = stat.S_IMODE(info.st_mode)
            wanted = mode | 0o444 | (0o111 if stat.S_ISDIR(info.st_mode) or mode & 0o100 else 0)
            if wanted != mode:
                os.chmod(path, wanted)
