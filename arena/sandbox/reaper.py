"""Kill a bot together with every process it started, then reap them.

Why this is not just ``killpg``: a bot's child can call ``setsid()`` (new session,
new process group) and double-fork, so its grandchild is neither in the bot's
process group nor, once the middle process exits, a descendant of the bot.

Method (works unprivileged, needs only Linux ``prctl`` and ``/proc``):

1. **The arena is a child subreaper.** ``ensure_subreaper()`` sets
   ``PR_SET_CHILD_SUBREAPER`` once per arena process (re-done after a fork, as the
   flag is not inherited). An orphaned bot process is then re-parented to the
   arena instead of to init, so it stays visible as our child.
2. **The bot's main process is a subreaper too** (``none`` backend; set between
   fork and exec, and the flag survives exec). While it lives, every process the
   bot ever started stays its descendant, whatever it does with sessions, forks
   or its environment. Under ``bwrap`` the PID namespace's init does the same job.
3. **Every bot carries a token.** Its environment holds ``ARENA_SANDBOX=<token>``
   (random per bot). ``/proc/<pid>/environ`` shows the environment a process was
   exec'd with, which in-process ``unsetenv`` does not change, so orphans that
   reached the arena after the bot's main process died are still recognised.
   Processes whose session id is the bot's main pid (the bot is a session
   leader) are also the bot's.
4. **Freeze, then kill.** ``kill_tree`` walks ``/proc`` and collects the bot's
   main process, its descendants, token/session matches and their descendants;
   it sends SIGSTOP to all of them and rescans until every member is stopped (a
   stopped process cannot fork, so the set stops growing: no fork race), then
   sends SIGKILL to all, rescanning and re-killing until nothing is left, and
   reaps the zombies that were re-parented to the arena with ``waitpid(pid)``
   (never ``waitpid(-1)``, which would steal other children's exit statuses).
   The main process itself is left for ``subprocess.Popen`` to reap; until then
   its pid cannot be reused, so descendant and session lookups stay sound.

Stray orphans: a daemon that both scrubbed its environment (exec with a new env)
and set up its own session, and whose every ancestor up to the bot's main process
has exited, carries no mark of its bot. It is still our child, though, and its
session id (its dead parent's) is neither ours nor its own, which no process the
arena starts itself can have; such strays are killed with whichever bot is
killed next. Under ``bwrap`` nothing escapes the PID namespace at all, and
``--die-with-parent`` takes the namespace down if the arena dies (``none`` bots
get ``PR_SET_PDEATHSIG`` for their main process only).

An arena killed outright (SIGKILL) runs none of the above; :mod:`.orphans` cleans up
after it on the next start.

Side effect: because the arena is a subreaper, *any* orphaned grandchild of the
arena process (not only bots) is re-parented to it; only bot processes are reaped
here.
"""

from __future__ import annotations

import ctypes
import os
import signal
import time
from collections.abc import Callable, Iterable
from typing import NamedTuple

TOKEN_VAR = "ARENA_SANDBOX"
"""Environment variable that tags every process of one bot with its random token."""

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36

_libc: ctypes.CDLL | None = None
_subreaper_pid: int | None = None  # the pid for which PR_SET_CHILD_SUBREAPER succeeded


def _prctl(option: int, arg: int) -> int:
    """Call prctl(2) via libc; returns 0 or -errno. Safe between fork and exec once loaded."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
    rc = _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(arg), ctypes.c_ulong(0),
                     ctypes.c_ulong(0), ctypes.c_ulong(0))
    return 0 if rc == 0 else -ctypes.get_errno()


def die_with_parent(sig: int) -> None:
    """Ask the kernel to send ``sig`` to this process when its parent dies."""
    _prctl(_PR_SET_PDEATHSIG, sig)


def ensure_subreaper() -> bool:
    """Make this process a child subreaper (once per pid); False if the kernel refused."""
    global _subreaper_pid
    pid = os.getpid()
    if _subreaper_pid == pid:
        return True
    if _prctl(_PR_SET_CHILD_SUBREAPER, 1) == 0:
        _subreaper_pid = pid
        return True
    return False


def subreaper_active() -> bool:
    """True if orphans of our bots come back to this process (so scans can stay narrow)."""
    return _subreaper_pid == os.getpid()


def prepare_child(parent_pid: int, *, subreaper: bool) -> None:
    """Run in the bot's process between fork and exec: die with the arena, keep descendants."""
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent_pid:  # the arena died before PDEATHSIG was armed
        os._exit(1)
    if subreaper:
        _prctl(_PR_SET_CHILD_SUBREAPER, 1)


class ProcInfo(NamedTuple):
    """The fields of /proc/<pid>/stat that attribution needs."""

    ppid: int
    """Parent pid (after re-parenting, a subreaper's or init's)."""
    pgid: int
    """Process group."""
    sid: int
    """Session id."""
    state: str
    """State letter: R, S, D, T (stopped), t, Z (zombie), X ..."""
    start: str = ""
    """Start time in clock ticks since boot: with the pid, names one process for good."""


def scan() -> dict[int, ProcInfo]:
    """Snapshot of every process, parsed from /proc/<pid>/stat."""
    procs: dict[int, ProcInfo] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fd = os.open(f"/proc/{name}/stat", os.O_RDONLY)
        except OSError:
            continue
        try:
            data = os.read(fd, 1024)
        except OSError:
            continue
        finally:
            os.close(fd)
        # "pid (comm) S ppid pgrp session ... starttime(22) ..." where comm may contain spaces or ')'
        rest = data[data.rfind(b")") + 2:].split(b" ", 20)
        if len(rest) < 20:
            continue
        procs[int(name)] = ProcInfo(int(rest[1]), int(rest[2]), int(rest[3]),
                                    rest[0].decode("ascii", "replace"), rest[19].decode("ascii", "replace"))
    return procs


def process_start(pid: int) -> str | None:
    """Start time of ``pid`` in clock ticks since boot (/proc stat field 22), or None if gone.

    A pid and its start time name one process for good: a reused pid starts later.
    """
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            data = f.read()
    except OSError:
        return None
    fields = data[data.rfind(b")") + 2:].split()
    return fields[19].decode() if len(fields) > 19 else None


def token_of(pid: int) -> str | None:
    """The ARENA_SANDBOX token a process was exec'd with, or None (no token, zombie, gone)."""
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            data = f.read()
    except OSError:
        return None
    prefix = TOKEN_VAR.encode() + b"="
    for entry in data.split(b"\0"):
        if entry.startswith(prefix):
            return entry[len(prefix):].decode("ascii", "replace")
    return None


def collect(procs: dict[int, ProcInfo], root: int | None, token: str,
            known: Iterable[int] = ()) -> set[int]:
    """Pids to kill for this bot (live or zombie): root, known pids, matches, and descendants.

    Matches are processes in the root's session, orphans carrying our token, and
    *stray orphans*: children of the arena with no token at all whose session is
    neither ours nor their own, i.e. daemons re-parented to us after their bot's
    main process exited and that scrubbed their environment. They cannot be
    attributed to one bot, so whichever bot is killed next takes them along.
    """
    me = os.getpid()
    my_sid = os.getsid(0)
    narrow = subreaper_active()  # orphans can only have come back to us
    seeds = {p for p in known if p in procs}
    if root is not None and root in procs:
        seeds.add(root)
    children: dict[int, list[int]] = {}
    for pid, info in procs.items():
        children.setdefault(info.ppid, []).append(pid)
        if pid in seeds or pid == me:
            continue
        if root is not None and info.sid == root:
            seeds.add(pid)
        elif info.ppid == me or not narrow:
            tag = token_of(pid)
            if tag == token or (tag is None and info.ppid == me and info.sid not in (my_sid, pid)):
                seeds.add(pid)
    members: set[int] = set()
    stack = list(seeds)
    while stack:
        pid = stack.pop()
        if pid in members or pid == me:
            continue
        members.add(pid)
        stack.extend(children.get(pid, ()))
    return members


def signal_pinned(pid: int, sig: int, still_it: Callable[[int], bool]) -> None:
    """Signal ``pid`` only if, once pinned by a pidfd, ``still_it(pid)`` holds.

    A pid from an earlier scan may have been reused by then; a pidfd names one process
    for good, so checking after opening it leaves no window. Gone processes are ignored.
    """
    try:
        fd = os.pidfd_open(pid)
    except (ProcessLookupError, PermissionError):
        return
    except (AttributeError, OSError):  # no pidfd (Linux < 5.3): the plain kill, its window left open
        if still_it(pid):
            try:
                os.kill(pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
        return
    try:
        if still_it(pid):
            signal.pidfd_send_signal(fd, sig)
    except (ProcessLookupError, PermissionError):
        pass
    finally:
        os.close(fd)


def _signal(pid: int, sig: int, start: str = "") -> None:
    """Signal ``pid`` if it is still the process that started at ``start`` (any, if empty)."""
    signal_pinned(pid, sig, lambda p: not start or process_start(p) == start)


def _signal_all(procs: dict[int, ProcInfo], pids: Iterable[int], sig: int, members: set[int]) -> None:
    """Signal each pid and, atomically, each of their process groups.

    A group signal reaches every member at once and the kernel makes a fork that
    races with it fail, so a fork-and-exit chain inside one group cannot outrun it.
    Bot groups live in bot sessions, never in the arena's, so this hits only the bot.
    """
    groups: set[int] = set()
    mine = os.getpgid(0)
    for pid in pids:
        _signal(pid, sig, procs[pid].start)
        groups.add(procs[pid].pgid)
    for pgid in groups - {mine, 0, 1}:
        if pgid not in members and os.path.exists(f"/proc/{pgid}"):
            continue  # led by a process that is not one of ``members``: the number was reused since the scan
        try:
            os.killpg(pgid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def kill_tree(root: int | None, token: str, timeout: float = 5.0, ns_inits: Iterable[int] = ()) -> bool:
    """SIGKILL the bot rooted at ``root`` and all its processes; reap orphans. True if none remain.

    ``root`` must be an unreaped child of ours (its zombie pins the pid); its own
    zombie is left for the caller's ``Popen.wait()``. ``ns_inits`` are verified
    init processes of the bot's PID namespaces (bwrap): killing one takes its whole
    namespace down at once, and it may have been re-parented to us, so we reap it.
    """
    end = time.monotonic() + timeout
    freeze_end = time.monotonic() + min(0.5, timeout / 4)
    me = os.getpid()
    known = set(ns_inits)
    for pid in known:
        _signal(pid, signal.SIGKILL)
    # Phase 1: stop everything so the set of members cannot grow behind our back.
    while True:
        procs = scan()
        members = collect(procs, root, token, known)
        known |= members
        running = [p for p in members if procs[p].state not in "TtZXx"]
        if not running or time.monotonic() > freeze_end:
            break
        _signal_all(procs, running, signal.SIGSTOP, members)
        os.sched_yield()
    # Phase 2: kill, rescan, reap, until only the root's zombie (if any) is left.
    delay = 0.0002
    while True:
        procs = scan()
        members = collect(procs, root, token, known)
        known |= members
        live = [p for p in members if procs[p].state not in "ZXx"]
        _signal_all(procs, live, signal.SIGKILL, members)
        remaining = bool(live)
        for pid in members:
            if pid == root or procs[pid].state not in "ZXx":
                continue
            remaining = True
            if procs[pid].ppid == me:
                try:
                    if os.waitpid(pid, os.WNOHANG)[0] == pid:
                        known.discard(pid)
                except ChildProcessError:
                    known.discard(pid)
        if not remaining:
            return True
        if time.monotonic() > end:
            return False
        time.sleep(delay)
        delay = min(delay * 2, 0.01)
