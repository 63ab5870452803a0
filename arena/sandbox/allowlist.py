"""What a bwrap bot may see: an allowlist of host paths, as bubblewrap mount arguments.

The sandbox's root is an empty tmpfs; only what is listed here is mounted into it, all
read-only: the system directories a runtime needs, a few files of ``/etc``, the install
prefix of the program the bot names when that lives elsewhere, the bot's own directory
(its build outputs included), the shared helper folder beside it and the bot's dependency
environments (``LaunchSpec.extra_paths``). ``/tmp``, ``/dev`` and
``/proc`` are the sandbox's own (``backends.BwrapBackend``). Anything not listed, such as
``/root``, ``/home``, ``/var``, ``/srv``, ``/opt``, ``/mnt``, the arena's working directory,
other bots and results, does not exist for the bot.
"""

from __future__ import annotations

import glob
import os
import shutil
from collections.abc import Iterable

from .limits import LaunchSpec

SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
"""Programs and libraries: bound read-only, or recreated as the same symlink (merged /usr)."""

ETC_FILES = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "alternatives", "localtime", "timezone",
             "nsswitch.conf", "java-*")
"""What runtimes read from ``/etc``: the dynamic linker's cache, alternatives symlinks, the
time zone, and a JVM's configuration (linked from ``/usr/lib/jvm``). No secrets, no accounts."""

NETWORK_ETC = ("resolv.conf", "hosts", "host.conf", "gai.conf", "ssl", "ca-certificates", "ca-certificates.conf")
"""What name resolution and TLS read from ``/etc``: added for a step that downloads packages."""

SANDBOX_DIRS = ("/tmp", "/dev", "/proc")
"""The sandbox's own folders, made before the binds: never recreated as a bound path's parent."""

SHARED_LIB = "lib"
"""A folder of this name next to a bot's directory is readable by the bot (shared helpers)."""

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
"""PATH inside every sandbox (the arena's own PATH is not passed on)."""


def mount_args(spec: LaunchSpec, hidden: Iterable[str] = ()) -> list[str]:
    """bwrap arguments that build the bot's read-only view of the host.

    ``hidden``: directories that must stay empty even where they lie inside an exposed
    path (a tournament's results or configuration inside a bot directory).
    """
    exposed = exposed_paths(spec)
    return system_args() + bind_args([("--ro-bind", path, path) for path in exposed]) + hidden_args(hidden, exposed)


def system_args(etc: Iterable[str] = ETC_FILES) -> list[str]:
    """bwrap arguments for the system directories and the ``etc`` files (glob patterns under ``/etc``)."""
    args: list[str] = []
    for path in SYSTEM_DIRS:
        if os.path.islink(path):
            args += ["--symlink", os.readlink(path), path]
        elif os.path.isdir(path):
            args += ["--ro-bind", path, path]
    args += ["--perms", "0755", "--dir", "/etc"]
    for pattern in etc:
        for path in sorted(glob.glob(os.path.join("/etc", pattern))):
            args += ["--ro-bind", path, path]
    return args


def bind_args(binds: Iterable[tuple[str, str, str]]) -> list[str]:
    """bwrap arguments for ``(flag, source, target)`` binds, outermost target first, each target's
    missing parents created 0755 so that the sandbox can walk down to it."""
    args: list[str] = []
    made: set[str] = set()
    for flag, source, target in sorted(binds, key=lambda b: b[2].count("/")):
        for parent in _ancestors(target):
            if parent not in made and not under(parent, SYSTEM_DIRS) and parent not in SANDBOX_DIRS:
                made.add(parent)
                args += ["--perms", "0755", "--dir", parent]
        made.add(target)
        args += (["--perms", "0444"] if flag == "--ro-bind-data" else []) + [flag, source, target]
    return args


def hidden_args(hidden: Iterable[str], exposed: list[str]) -> list[str]:
    """bwrap arguments that empty (read-only) the ``hidden`` directories lying inside an exposed path."""
    args: list[str] = []
    for path in _inside(hidden, exposed):
        args += ["--tmpfs", path, "--remount-ro", path]
    return args


def program_paths(program: str) -> list[str]:
    """The install prefix of ``program`` (a path or a name on the sandbox's PATH), as named and as its
    real path (a venv's ``python`` is a symlink to its base interpreter); none for a missing program."""
    if "/" not in program:
        program = shutil.which(program, path=SANDBOX_PATH) or program
    if not (os.path.isabs(program) and os.path.exists(program)):
        return []
    return [_prefix(path) for path in dict.fromkeys((os.path.abspath(program), os.path.realpath(program)))]


def outermost(paths: Iterable[str]) -> list[str]:
    """Real paths of ``paths``, without the system directories, duplicates and paths inside another one
    (binding one again would cover a hidden one)."""
    out: list[str] = []
    for path in (os.path.realpath(p) for p in paths):
        if path == "/" or under(path, SYSTEM_DIRS) or path in out:
            continue
        out.append(path)
    return [p for p in out if not any(under(p, (o,)) and p != o for o in out)]


def exposed_paths(spec: LaunchSpec) -> list[str]:
    """Host paths bound read-only at the same place, besides the system directories.

    The bot directory and a ``lib`` folder beside it; with no bot directory, the folder of
    each script named on the command line (it is the bot's directory). ``spec.extra_paths``
    (the bot's dependency environments, and nothing else of the cache). The program's install
    prefix when it lives outside the system directories, so that a Python under
    ``/root/.pyenv`` or a venv finds its standard library (both the path as named and its
    real path, which a venv's symlink leads to).
    """
    paths: list[str] = []
    if spec.bot_dir:
        paths.append(spec.bot_dir)
        shared = os.path.join(os.path.dirname(os.path.abspath(spec.bot_dir)), SHARED_LIB)
        if os.path.isdir(shared):
            paths.append(shared)
    else:
        paths += [os.path.dirname(arg) for arg in spec.command[1:] if os.path.isabs(arg) and os.path.isfile(arg)]
    paths += [path for path in spec.extra_paths if os.path.isdir(path)]
    paths += program_paths(spec.command[0])
    return outermost(paths)


def _prefix(program: str) -> str:
    """The install prefix of a program: the parent of its ``bin`` folder, else its folder."""
    parent = os.path.dirname(program)
    return os.path.dirname(parent) if os.path.basename(parent) == "bin" else parent


def _ancestors(path: str) -> list[str]:
    """``/a/b/c`` -> ``["/a", "/a/b"]``: the folders above ``path``, outermost first."""
    parts = path.strip("/").split("/")[:-1]
    return ["/" + "/".join(parts[:i + 1]) for i in range(len(parts))]


def under(path: str, roots: Iterable[str]) -> bool:
    """Whether ``path`` is one of ``roots`` or lies below one."""
    return any(path == r or path.startswith(r.rstrip("/") + "/") for r in roots)


def _inside(hidden: Iterable[str], exposed: list[str]) -> list[str]:
    """The hidden directories that lie strictly inside an exposed path (the rest are not there anyway)."""
    out: list[str] = []
    for path in (os.path.realpath(h) for h in hidden):
        if os.path.isdir(path) and path not in out and any(path != e and under(path, (e,)) for e in exposed):
            out.append(path)
    return out
