"""A bot's dependency environments: installed by the arena once per version, outside the bot directory.

Python requirements go into a virtual environment made with the bot's interpreter
(``{python}`` then means that environment's ``python``); Node packages are installed
with ``npm ci --omit=dev`` (then ``npm rebuild``) into an entry holding copies of package.json, its lockfile and
the local packages they name, and the bot gets ``NODE_PATH=<entry>/node_modules``. Both
use the package index and registry the machine is configured for (pip.conf,
``PIP_INDEX_URL``, .npmrc), reached through the fetch gate (:mod:`arena.sandbox.gate`), which
connects only to the package indexes and public addresses; the bot itself never has network
when it plays. Entries live in the cache (:mod:`arena.bots.cache`), are built with umask 022 and
made readable by every user, because a sandboxed bot runs as another user, and are
bound read-only into its sandbox (:func:`arena.bots.launch.launch_spec`).

Each install is a fetch through the gate that runs no package's code (pip: wheels only;
npm: scripts off), then an install with no network that runs whatever code the packages
bring (npm's install scripts; a wheel runs none), every step under the backend the bot will
play under (:meth:`arena.sandbox.Backend.run_step`): under ``bwrap`` as the bot's uid,
writing only the entry being built (owned by that uid for the install, by the arena's again
afterwards), reading play's system allowlist, the copied inputs, the interpreters, and (the
fetch) the machine's package configuration (:mod:`arena.sandbox.pkgconfig`). Under ``none``
nothing walls it in: it runs as the arena's user, which a ladder refuses for submitted
bots unless its file says ``unsandboxed_builds: true``.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import os
import shutil
import stat
import sys
import tempfile
import time
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING

from ..sandbox import allowlist, gate, pkgconfig
from ..sandbox.backends import Backend, NoneBackend
from ..sandbox.errors import SandboxError
from ..sandbox.steps import Step
from . import cache, deps
from .buildcopy import chown_tree
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


def prepare(spec: BotSpec, backend: Backend | None = None, timeout: float = INSTALL_TIMEOUT,
            allow_unsandboxed: bool = True) -> Environment:
    """Install what ``spec`` declares unless this version is in the cache already, under ``backend`` (the
    sandbox the bot plays under; None: ``none``); its environment.

    A failed install raises one :class:`BotConfigError` naming the bot, the step and the
    last lines of its log. Without ``allow_unsandboxed``, an install that would run under a backend
    that does not wall it in (``none``) is refused with one :class:`BotConfigError`.
    """
    backend = backend or NoneBackend()
    built: list[tuple[Deps, str]] = []
    for d in declared(spec):
        key = deps.key(d)
        if not allow_unsandboxed and not backend.contains_steps and cache.lookup(key) is None:
            raise BotConfigError(unsandboxed_refusal(spec.name, f"installing its {d.what}", backend))
        about: dict[str, object] = {"kind": d.kind, "interpreter": d.interpreter, "inputs": list(d.inputs),
                                    "bot": spec.name, "directory": d.directory, "sandbox": backend.name}
        try:
            install = functools.partial(_install, spec.name, d, key, timeout=timeout, backend=backend,
                                        image=spec.image)
            path = cache.publish(key, install, timeout, about)
        except BotBusy as exc:
            raise BotConfigError(f"bot {spec.name!r}: {exc}") from None
        except SandboxError as exc:
            raise BotConfigError(f"bot {spec.name!r}: installing its {d.what} under sandbox {backend.name}: "
                                 f"{exc}") from None
        except OSError as exc:
            raise BotConfigError(f"bot {spec.name!r}: cannot make the environment for its {d.what} in "
                                 f"{cache.envs()}: {exc} (set {cache.ENV_VAR} to a writable folder)") from None
        built.append((d, path))
    return _environment(built)


def unsandboxed_refusal(name: str, what: str, backend: Backend) -> str:
    """The one line refusing an install or build that would run unsandboxed (for a ladder's submissions)."""
    return (f"bot {name!r}: refused: {what} would run unsandboxed as the arena's user (sandbox {backend.name}); "
            "run the ladder under bwrap or docker, or set unsandboxed_builds: true in the ladder file to allow it")


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
def _install(name: str, d: Deps, key: str, folder: str, timeout: float, backend: Backend,
             image: str | None = None) -> None:
    """Build the entry in ``folder``: copy the inputs, run the steps under ``backend`` (the folder owned by
    its step uid meanwhile), make everything the arena's and readable."""
    end = time.monotonic() + timeout
    failed_log = os.path.join(os.path.dirname(folder), f"{key}.failed.log")
    uid = backend.step_uid
    if d.kind == deps.PYTHON:
        _copy_inputs(d, os.path.join(folder, SOURCE))
        steps = _python_steps(d, folder, backend)
    else:
        _copy_inputs(d, folder)
        steps = _node_steps(d, folder)
    config = pkgconfig.for_install(never=[str(cache.root())])
    # The log is kept where the steps cannot reach it by name: a step could replace a log in the entry
    # with a symlink to a secret, which the arena would then quote in its error.
    with tempfile.TemporaryFile("w+", dir=os.path.dirname(folder), errors="replace") as log:
        if uid is not None:
            chown_tree(folder, uid, uid)
        try:
            code, label = _run_steps(steps, folder, log, backend, config, end, image)
        finally:
            if uid is not None:
                chown_tree(folder, os.getuid(), os.getgid())
            for planted in (cache.LOG, cache.MARKER):  # the arena writes these: never through what a step left
                _remove(os.path.join(folder, planted))
        log.seek(0)
        text = log.read()
    if code != 0:
        _write(failed_log, text)
        raise BotConfigError(_failure(name, d, label, code, failed_log, timeout))
    _write(os.path.join(folder, cache.LOG), text)
    _remove(os.path.join(folder, WHEELS))  # installed: the downloads are not the environment
    _make_readable(folder)
    if os.path.exists(failed_log):
        os.remove(failed_log)


def _run_steps(steps: list[_Plan], folder: str, log: IO[str], backend: Backend, config: pkgconfig.PackageConfig,
               end: float, image: str | None) -> tuple[int, str]:
    """Run the steps in turn until one fails: the exit status of the last and its label."""
    code, label = 0, ""
    for plan in steps:
        log.write(f"$ {' '.join(plan.argv)}\n")
        log.flush()
        networked = plan.network
        step = Step(argv=tuple(plan.argv), cwd=plan.cwd or folder, writable=(folder,),
                    readable=tuple(dict.fromkeys((*plan.readable, *(config.paths if networked else ())))),
                    network=networked, relay=plan.relay, env=(*(config.env if networked else ()), *plan.env),
                    timeout=max(end - time.monotonic(), 1.0), image=image, label=plan.label)
        code, label = backend.run_step(step, log), plan.label
        if code != 0:
            break
    return code, label


def _remove(path: str) -> None:
    """Remove whatever is at ``path`` (a file, a symlink, a folder), without following a symlink."""
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def _write(path: str, text: str) -> None:
    """A new file of ``text`` at ``path``, readable by every user; never written through a symlink."""
    _remove(path)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o644)
    with os.fdopen(fd, "w") as f:
        f.write(text)
    os.chmod(path, 0o644)


@dataclass(frozen=True)
class _Plan:
    """One install step before it becomes a :class:`Step` of the entry being built."""

    label: str
    argv: list[str]
    cwd: str | None = None
    """None: the entry's folder."""
    network: bool = False
    readable: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    relay: tuple[str, str] | None = None
    """A fetch's interpreter for the gate's relay (``Step.relay``): the one that runs the fetch."""


WHEELS = ".wheels"
"""Folder of a Python entry the fetch downloads wheels into; the offline install reads them, then it goes."""
FETCH = ("download", "--no-input", "--disable-pip-version-check", "--only-binary=:all:", "--dest")
"""pip's fetch: wheels only, so no package's code runs while the network is there (a source
package would be built to learn its dependencies); hashes in the requirements are checked."""


def _python_steps(d: Deps, folder: str, backend: Backend) -> list[_Plan]:
    """A venv made by the bot's interpreter; pip fetching wheels with the network; pip installing them with
    none. pip is the arena's own (``--python``) when it can, which spares the venv a pip of its own and
    saves seconds, else the pip ``venv`` puts there. Both pip steps target the venv's interpreter, so the
    wheels fetched are those it can install.

    Under ``docker`` the arena's interpreter is not in the image: the venv's python runs the
    arena's pip package, found through ``PYTHONPATH``.
    """
    python = os.path.join(folder, "bin", "python")
    wheels = os.path.join(folder, WHEELS)
    fetch = [*FETCH, wheels, "-r", d.manifest]
    install = ["install", "--no-input", "--disable-pip-version-check", "--no-warn-script-location", "--no-index",
               "--find-links", wheels, "-r", d.manifest]
    source = os.path.join(folder, SOURCE)
    venv = f"{d.interpreter} -m venv"
    fetching, installing = f"pip download -r {d.manifest} (wheels only)", f"{d.step} (offline)"
    base = tuple(allowlist.program_paths(d.interpreter))
    if not _arena_pip():
        pip = [python, "-m", "pip"]
        return [_Plan(venv, [d.interpreter, "-m", "venv", folder], readable=base),
                _Plan(fetching, [*pip, *fetch], source, True, base, relay=("python", python)),
                _Plan(installing, [*pip, *install], source, False, base)]
    make = _Plan(venv, [d.interpreter, "-m", "venv", "--without-pip", folder], readable=base)
    packages = _pip_home()
    extra: tuple[tuple[str, str], ...] = ()
    if backend.name == "docker":
        pip, readable, extra = [python, "-m", "pip"], (*base, packages), (("PYTHONPATH", packages),)
    else:
        pip = [sys.executable, "-m", "pip", "--python", python]
        readable = (*base, *allowlist.program_paths(sys.executable), sys.prefix, sys.base_prefix, packages)
    return [make, _Plan(fetching, [*pip, *fetch], source, True, readable, extra, relay=("python", pip[0])),
            _Plan(installing, [*pip, *install], source, False, readable, extra)]


def _node_steps(d: Deps, folder: str) -> list[_Plan]:
    """``npm ci`` with the network but no package's scripts, then ``npm rebuild`` with no network, which
    runs the install scripts (the packages' and the bot's own) and builds native modules offline."""
    npm = shutil.which("npm")
    if npm is None:
        raise BotConfigError(f"{os.path.join(d.directory, d.manifest)}: the bot needs Node packages but there is no "
                             "npm on this machine's PATH to install them (Debian: apt-get install npm)")
    readable = (*allowlist.program_paths(npm), *allowlist.program_paths(d.interpreter))
    quiet = ("--no-audit", "--no-fund", "--no-update-notifier")
    return [_Plan(f"{d.step} --ignore-scripts", [npm, "ci", "--omit=dev", "--ignore-scripts", *quiet], folder, True,
                  readable, relay=("node", d.interpreter)),
            _Plan("npm rebuild (offline: the install scripts)", [npm, "rebuild", "--foreground-scripts", "--offline",
                                                                 *quiet], folder, False, readable)]


def _pip_home() -> str:
    """The folder holding the arena's ``pip`` package (its site-packages), which ``--python`` runs."""
    found = importlib.util.find_spec("pip")
    assert found is not None and found.origin
    return os.path.dirname(os.path.dirname(found.origin))


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


REFUSED_FETCH = "the arena refused connections the fetch asked for"
"""How an install's error says that the fetch gate refused some (``bot check`` tells its remedy by it)."""


def _failure(name: str, d: Deps, label: str, code: int, log: str, timeout: float) -> str:
    """One error: the bot, the step, why, and the end of the log."""
    with open(log, errors="replace") as f:
        lines = [line.rstrip() for line in f.read().splitlines() if line.strip()]
    tail = "\n".join("    " + line for line in lines[-TAIL_LINES:])
    why = f"took over {timeout:.0f} s" if code == 124 else f"failed (exit {code})"
    if any(line.startswith(gate.REFUSED) for line in lines):
        why += f" ({REFUSED_FETCH}, listed last: a fetch reaches only the package indexes and public addresses)"
    elif label.startswith("pip download") and "No matching distribution found" in "\n".join(lines):
        why += (" (no wheel of it was found: it or that version does not exist, or it is published only as "
                "source, which the arena refuses, since building runs a package's code while the network is "
                "there; build its wheel with pip wheel and ship it in the bot directory, named with --find-links)")
    return (f"bot {name!r}: installing its {d.what}: {label} {why}; the last lines of its log "
            f"(all of it in {log}):\n{tail}")


def _copy_inputs(d: Deps, target: str) -> None:
    """Copy the files the install reads to the same relative places under ``target``.

    The arena copies them as its own user, before any sandbox: a symlink leading out of the
    bot directory (``requirements.txt -> /etc/shadow``) would copy a host file into the
    entry, where pip would quote it, so it is refused.
    """
    root = os.path.realpath(d.directory)
    for name in d.inputs:
        for file in deps.files_of(d.directory, name):
            source = os.path.join(d.directory, file)
            if not os.path.realpath(source).startswith(root + os.sep):
                raise BotConfigError(f"{source}: the install would read this file, a symlink leading out of the "
                                     f"bot directory (to {os.path.realpath(source)}); put the file itself there")
            destination = os.path.join(target, file)
            os.makedirs(os.path.dirname(destination), exist_ok=True)
            shutil.copyfile(source, destination)


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
