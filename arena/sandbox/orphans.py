"""Clean up after an arena that was killed before it could kill its bots.

SIGKILL (or a crash of the interpreter) gives an arena no chance to run
:func:`.reaper.kill_tree`. Under ``bwrap`` the PID namespace dies with the arena
(``--die-with-parent``), and a container is removed by the docker backend's own
stale-container cleanup; under ``none`` only the bot's main process dies
(``PR_SET_PDEATHSIG``), and anything it started runs on as an orphan of init. A
fork-and-exit chain would then burn a core forever, and it changes pid faster than
any scan of /proc can list it.

So every bot is *registered* while it runs: a file named after its token, in a
private per-user directory, holds the bot's main pid (its session and process group,
as bots start in a new session) and that pid's start time. Tokens name their arena
(``<pid>.<start time>.<pid namespace>.<random>``). :func:`sweep` (run once per arena process before
its first bot starts) finds registrations whose arena no longer runs and SIGKILLs the
bot's process group, which the kernel does atomically, so no fork can outrun it; it
also kills any process still carrying such a token (a daemon that left the group),
unless that token is still registered, i.e. another sweep (or the next one) owns it.
"""

from __future__ import annotations

import os
import secrets
import shutil
import signal
import stat
import tempfile
import time
from typing import Callable

from . import cgroups
from .reaper import process_start, scan, signal_pinned, token_of

_SWEPT: set[int] = set()  # arena pids that already swept


def pid_namespace() -> int:
    """This process's PID namespace (its inode number; 0 if /proc cannot say)."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def _owner() -> str:
    """This arena process as tokens name it: ``<pid>.<start time>.<pid namespace>``.

    The namespace matters: an arena in a container (a Dask worker image, say) numbers its
    processes apart from the host's, and a host arena that read its pid as one of its own
    would find that process "gone" and kill the container's live bots."""
    return f"{os.getpid()}.{process_start(os.getpid()) or 0}.{pid_namespace()}"


def new_token() -> str:
    """A fresh bot token naming this arena process: ``<pid>.<start time>.<pid namespace>.<random>``."""
    return f"{_owner()}.{secrets.token_hex(8)}"


def owner_gone(token: str) -> bool:
    """True if ``token`` names an arena process of this PID namespace that no longer runs (another
    namespace's, or another shape: False, never ours to judge)."""
    parts = token.split(".")
    if len(parts) != 4 or not all(part.isdigit() for part in parts[:3]):
        return False
    if int(parts[2]) != pid_namespace():
        return False
    return process_start(int(parts[0])) != parts[1]


WORKDIR = "arena-bot-"
"""Prefix of a bot's private host directory: ``arena-bot-<pid>.<start time>.<pid namespace>-<random>``."""


def workdir_prefix() -> str:
    """The prefix of this process's bots' host directories: it names the arena process that owns them."""
    return f"{WORKDIR}{_owner()}-"


def _remove_workdirs() -> list[str]:
    """Remove the bots' host directories of arena processes that no longer run (a killed arena cannot
    clean up after itself); only this user's, only real directories, never another arena's."""
    root = tempfile.gettempdir()
    gone = []
    try:
        names = os.listdir(root)
    except OSError:
        return []
    for name in names:
        owner, dash, _ = name[len(WORKDIR):].partition("-")
        if not name.startswith(WORKDIR) or not dash or not owner_gone(f"{owner}.0"):  # .0: a token's shape
            continue
        path = os.path.join(root, name)
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid():
            shutil.rmtree(path, ignore_errors=True)
            gone.append(path)
    return gone


def registry() -> str | None:
    """This user's registration directory, created private; None if it is not safe to use."""
    path = os.path.join(tempfile.gettempdir(), f"cabo-arena-{os.getuid()}")
    try:
        os.mkdir(path, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    try:
        info = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid() or info.st_mode & 0o077:
        return None  # someone else's, or a symlink: never write there
    return path


def register(token: str, pid: int) -> None:
    """Record a running bot: its main pid (= its process group) and that pid's start time."""
    folder = registry()
    if folder is None:
        return
    try:
        with open(os.path.join(folder, token), "w") as f:
            f.write(f"{pid} {process_start(pid) or 0}\n")
    except OSError:
        pass  # cleanup after a killed arena is best effort; the bot itself runs fine


def unregister(token: str) -> None:
    """Forget a bot that was killed and reaped normally."""
    folder = registry()
    if folder is not None:
        try:
            os.unlink(os.path.join(folder, token))
        except OSError:
            pass


def _group_alive(pgid: int) -> bool:
    """Whether any non-zombie process is still in process group ``pgid``."""
    return any(info.pgid == pgid and info.state not in "ZXx" for info in scan().values())


def _kill_group(pgid: int, started: str, deadline: float) -> bool:
    """SIGKILL group ``pgid`` until no live member is left; True if it had members.

    The leader is checked before every signal, not once: when the group empties its
    number is free again, and under heavy pid churn a new process (another arena's bot,
    say) can lead a group of that number a moment later.
    """
    hit = False
    while time.monotonic() < deadline:
        now = process_start(pgid)
        if now is not None and now != started:
            break  # the number now names a newer process's group: nothing of ours is left in it
        try:
            os.killpg(pgid, signal.SIGKILL)
            hit = True
        except (ProcessLookupError, PermissionError):
            break
        if not _group_alive(pgid):
            break
        time.sleep(0.01)
    return hit


def _kill_registered(deadline: float, folder: str) -> list[int]:
    """Kill the process group of every registered bot whose arena is gone; drop its registration."""
    hit: list[int] = []
    for name in os.listdir(folder):
        if not owner_gone(name):
            continue
        path = os.path.join(folder, name)
        try:
            with open(path) as f:
                pid_text, started = f.read().split()
            if _kill_group(int(pid_text), started, deadline):
                hit.append(int(pid_text))
        except (OSError, ValueError):
            pass
        try:
            os.unlink(path)
        except OSError:
            pass
    return hit


def _kill_tokens(deadline: float, folder: str | None) -> list[int]:
    """Stop, then kill, every live process whose token names an arena that is gone.

    Except tokens still registered: those belong to a sweep that has not reached them yet
    (an arena that died after this sweep read the registry). Whoever removes a
    registration does its cleanup, so two arenas sweeping at once never race for a bot.
    """
    def ours(tag: str | None) -> bool:
        return (tag is not None and owner_gone(tag)
                and (folder is None or not os.path.exists(os.path.join(folder, tag))))

    me = os.getpid()
    found: set[int] = set()
    for sig in (signal.SIGSTOP, signal.SIGKILL):
        while time.monotonic() < deadline:
            stale = {pid: tag for pid, info in scan().items() if pid != me and info.state not in "ZXx"
                     and (sig == signal.SIGKILL or info.state not in "Tt") and ours(tag := token_of(pid))}
            if not stale:
                break
            found.update(stale)
            for pid, tag in stale.items():
                signal_pinned(pid, sig, _carries(tag))
    return sorted(found)


def sweep(timeout: float = 5.0, force: bool = False) -> list[int]:
    """Kill what bots of killed arenas left running; return the groups and pids hit.

    Runs once per arena process unless ``force``. Never touches the bots of an arena
    that still runs.
    """
    me = os.getpid()
    if me in _SWEPT and not force:
        return []
    _SWEPT.add(me)
    deadline = time.monotonic() + timeout
    folder = registry()
    hit = _kill_registered(deadline, folder) if folder is not None else []
    hit += _kill_tokens(deadline, folder)
    cgroups.sweep(owner_gone, max(0.5, deadline - time.monotonic()))
    _remove_workdirs()
    for pid in hit:  # corpses that came back to us (we may be their subreaper) are ours to reap
        try:
            os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:
            pass
    return hit


def _carries(tag: str | None) -> Callable[[int], bool]:
    """A check that a pid still carries ``tag`` (for :func:`signal_pinned`)."""
    return lambda pid: token_of(pid) == tag
