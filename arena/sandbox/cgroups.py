"""A cap on the number of processes of a bot: one pids cgroup per bot, where the arena may make one.

rlimits cannot do it for the arena as it usually runs: root ignores ``RLIMIT_NPROC``, and
under bubblewrap a root arena's bot is root outside its namespace. Unchecked, a fork bomb
fills the machine's pid table within a second, and then every fork fails: the arena's
next bots, the other workers' bots, the shell. A pids cgroup caps the bot's whole tree
(processes and threads, whatever namespace or session they move to): forks past the cap
fail with EAGAIN inside the bot alone.

Each bot gets ``<hierarchy>/<arena's own cgroup>/cabo-arena/<token>`` with ``pids.max``
set; the child joins it between fork and exec, so nothing it starts is ever outside.
Works with a cgroup v1 ``pids`` hierarchy, or cgroup v2 where the ``pids`` controller
can be enabled for our subtree; both need write access (root). Where neither works the
cap is not enforced and :func:`available` says why.
"""

from __future__ import annotations

import errno
import os
import signal
import time
from collections.abc import Callable

PARENT = "cabo-arena"
"""Folder holding one cgroup per running bot, named by the bot's token."""

_PROBED: list[tuple[str | None, str]] = []  # the one cached answer of available()


def available() -> tuple[str | None, str]:
    """The folder bot cgroups go in and how it was found, or None and why not (probed once)."""
    if not _PROBED:
        _PROBED.append(_probe())
    return _PROBED[0]


def create(token: str, processes: int) -> str | None:
    """Make the cgroup of a bot about to start, capped at ``processes`` tasks; None where unavailable."""
    parent, _why = available()
    if parent is None:
        return None
    path = os.path.join(parent, token)
    try:
        os.mkdir(path, 0o755)
        _write(os.path.join(path, "pids.max"), str(processes))
    except OSError:
        remove(path)
        return None
    return path


def join(path: str) -> None:
    """Move the calling process into the cgroup at ``path``: for the child between fork and exec."""
    fd = os.open(os.path.join(path, "cgroup.procs"), os.O_WRONLY)
    try:
        os.write(fd, b"0")  # 0: the writer itself, in v1 and v2 alike
    finally:
        os.close(fd)


def peak(path: str) -> int | None:
    """Most tasks the cgroup held at once (``pids.peak``, Linux 6.1+), or None."""
    try:
        with open(os.path.join(path, "pids.peak")) as f:
            return int(f.read())
    except (OSError, ValueError):
        return None


def remove(path: str, timeout: float = 1.0) -> bool:
    """Remove a bot's cgroup once its tasks are gone, killing any still in it; True if it is gone.

    A pid listed in the cgroup is in it now, so SIGKILL there can never hit a stranger
    whose pid was reused.
    """
    deadline = time.monotonic() + timeout
    while True:
        try:
            os.rmdir(path)
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if exc.errno != errno.EBUSY:
                return False
        for pid in _members(path):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.002)


def sweep(owner_gone: Callable[[str], bool], timeout: float = 5.0) -> list[str]:
    """Kill the tasks of, and remove, the cgroups whose arena is gone; return their names."""
    parent, _why = available()
    if parent is None:
        return []
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    swept = []
    for name in names:
        path = os.path.join(parent, name)
        if os.path.isdir(path) and owner_gone(name) and remove(path, timeout):
            swept.append(name)
    return swept


def _members(path: str) -> list[int]:
    try:
        with open(os.path.join(path, "cgroup.procs")) as f:
            return [int(line) for line in f if line.strip()]
    except (OSError, ValueError):
        return []


def _write(path: str, text: str) -> None:
    with open(path, "w") as f:
        f.write(text)


def _hierarchies() -> list[tuple[str, str]]:
    """(kind, directory of our own cgroup) for each mounted hierarchy that could cap pids."""
    own: dict[str, str] = {}
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _num, controllers, path = line.rstrip("\n").split(":", 2)
                own["v2" if controllers == "" else controllers] = path
            # v1 lines list controllers comma-separated, e.g. "5:pids:/user.slice"
        with open("/proc/self/mountinfo") as f:
            mounts = [line.split() for line in f]
    except (OSError, ValueError):
        return []
    found = []
    for fields in mounts:
        if "-" not in fields:
            continue
        sep = fields.index("-")
        root, point, fstype, options = fields[3], fields[4], fields[sep + 1], fields[sep + 3].split(",")
        if fstype == "cgroup" and "pids" in options:
            mine = next((p for c, p in own.items() if "pids" in c.split(",")), None)
            kind = "v1"
        elif fstype == "cgroup2":
            mine, kind = own.get("v2"), "v2"
        else:
            continue
        if mine is None:
            continue
        rel = os.path.relpath(mine, root) if mine.startswith(root) else None
        if rel is None or rel.startswith(".."):
            continue  # our cgroup lies outside what this mount shows
        found.append((kind, os.path.normpath(os.path.join(point, rel))))
    found.sort(key=lambda item: item[0])  # v1 pids first: v2 often cannot enable pids below a busy cgroup
    return found


def _probe() -> tuple[str | None, str]:
    """Find a hierarchy where a test cgroup gets a writable ``pids.max``; clean up after."""
    reasons = []
    for kind, base in _hierarchies():
        parent = os.path.join(base, PARENT)
        try:
            os.makedirs(parent, 0o755, exist_ok=True)
            if kind == "v2":  # the controller must be on for our folder's children
                for folder in (base, parent):
                    if "pids" not in _read(os.path.join(folder, "cgroup.subtree_control")).split():
                        _write(os.path.join(folder, "cgroup.subtree_control"), "+pids")
            test = os.path.join(parent, f"probe-{os.getpid()}")
            os.mkdir(test)
            try:
                _write(os.path.join(test, "pids.max"), "8")
            finally:
                os.rmdir(test)
        except OSError as exc:
            reasons.append(f"cgroup {kind} at {base}: {exc.strerror or exc}")
            continue
        return parent, f"a pids cgroup per bot ({kind}, {parent})"
    if not reasons:
        return None, "no pids cgroup hierarchy is mounted"
    return None, "cannot create pids cgroups (" + "; ".join(reasons) + ")"


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()
