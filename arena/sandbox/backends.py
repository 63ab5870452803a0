"""Backends: how a bot process is started and what walls surround it.

* ``none``  - a plain subprocess in its own session with rlimits, a scrubbed
  environment and a private temporary ``HOME`` and ``TMPDIR``. Contains accidents and
  runaway resource use, not a determined attacker (the bot runs as the arena's user).
* ``bwrap`` - all of the above inside bubblewrap: new PID/network/IPC/UTS namespaces,
  no capabilities, an unprivileged host uid (also when the arena is root), no new user
  namespaces, and a file system that is an allowlist (``allowlist.py``): system
  directories, the bot's own directory and interpreter, a private /tmp; nothing else.
* ``docker`` - each bot in its own container on a Docker engine (see ``docker.py``);
  only when asked for by name, never chosen by ``auto``.

A bot with a directory runs in it under every backend, so that it opens its data files
by relative path as it does when its author runs it by hand: read-only under ``bwrap``
(and ``docker``), the real directory under ``none``, where nothing stops the bot from
writing there. A plain command line, which has no directory, runs in the private
temporary directory (``none``) or ``/tmp`` (``bwrap``). ``HOME`` and ``TMPDIR`` are the
private writable directory everywhere.

``resolve_backend("auto")`` prefers bwrap when a real test sandbox runs here.

A bot's installs and build run under its backend too (``run_step``, :mod:`.steps`): under
``none`` as the arena's user, capped and killed whole; under ``bwrap`` behind the bot's walls,
with its output folders writable and no network: an install's fetch reaches the package
indexes through the fetch gate (:mod:`.gate`) alone.
"""

from __future__ import annotations

import abc
import json
import os
import select
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import IO

from . import allowlist, cgroups, orphans, reaper, seccomp
from .allowlist import SANDBOX_PATH, SHARED_LIB
from .channel import Channel
from .errors import ChannelClosed, ChannelError, SandboxError, SandboxUnavailable
from .limits import LaunchSpec, Limits, apply_rlimits
from .process import BotProcess
from .steps import TIMED_OUT, Step

BACKEND_NAMES: tuple[str, ...] = ("auto", "none", "bwrap", "docker")
"""Names accepted by ``get_backend`` and ``resolve_backend`` (and so by the CLI)."""


class Backend(abc.ABC):
    """Starts bots behind a ``Channel``; one subclass per isolation technique."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Short name, as given on the command line."""

    @abc.abstractmethod
    def available(self) -> tuple[bool, str]:
        """Whether this backend can run here, with a human-readable reason."""

    @abc.abstractmethod
    def start(self, spec: LaunchSpec) -> Channel:
        """Start the bot described by ``spec``; raises SandboxError if it cannot be started."""

    @property
    def contains_steps(self) -> bool:
        """Whether :meth:`run_step` walls in what it runs (false for ``none``, which only caps resources)."""
        return True

    def run_step(self, step: Step, log: IO[str]) -> int:
        """Run an install or build step (:mod:`arena.sandbox.steps`) with its output in ``log``; its exit status.
        A step that fetches runs behind the fetch gate (:mod:`.gate`), its only way out."""
        if not isinstance(step, Step):
            raise TypeError(f"run_step() needs a Step, got {type(step).__name__}")
        if not step.network:
            return self._run_step(step, log)
        from .gate import gated

        with gated(step, log) as walled:
            return self._run_step(walled, log)

    def _run_step(self, step: Step, log: IO[str]) -> int:
        """Run ``step`` as it is (the gate, if any, is already around it)."""
        raise SandboxUnavailable(f"the {self.name} sandbox cannot run install or build steps")

    @property
    def step_uid(self) -> int | None:
        """The host uid a step runs as when that is not the arena's own (None): what must own its output
        folders while it runs."""
        return None

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


@dataclass
class _Walls:
    """The pieces set up around one sandboxed process: its orphan token, private tmp, info pipe, input
    pipes and cgroup. The child's ends of the pipes are closed once it has started; :meth:`discard`
    releases whatever is left, whether or not the process ever started."""

    token: str
    tmp: str | None
    info_r: int = -1
    info_w: int = -1
    inputs: dict[str, int] = field(default_factory=dict)
    cgroup: str | None = None

    def pass_fds(self) -> tuple[int, ...]:
        """The descriptors the child inherits."""
        return tuple(fd for fd in (self.info_w, *self.inputs.values()) if fd >= 0)

    def started(self) -> Callable[[], list[int]] | None:
        """Close the child's ends now that it holds them; the reader of the info pipe, if any."""
        for fd in self.pass_fds():
            os.close(fd)
        self.info_w, self.inputs = -1, {}
        related = _InfoReader(self.info_r) if self.info_r >= 0 else None
        self.info_r = -1
        return related

    def discard(self) -> None:
        """Remove the cgroup and the private tmp and close every descriptor still open."""
        if self.cgroup is not None:
            cgroups.remove(self.cgroup)
            self.cgroup = None
        if self.tmp is not None:
            shutil.rmtree(self.tmp, ignore_errors=True)
        for fd in (self.info_r, *self.pass_fds()):
            if fd >= 0:
                os.close(fd)
        self.info_r, self.info_w, self.inputs = -1, -1, {}


class NoneBackend(Backend):
    """No isolation beyond rlimits, own session, scrubbed env and a private ``HOME`` and ``TMPDIR``."""

    name = "none"
    _bot_is_subreaper = True  # keeps every descendant under the bot's main process
    _wants_info_fd = False

    @property
    def contains_steps(self) -> bool:
        """False: an install or build runs as the arena's user and sees everything it can."""
        return False

    def available(self) -> tuple[bool, str]:
        """Always available on Linux."""
        return True, "plain subprocess: rlimits, own session, scrubbed environment, private tmp; " + _process_cap()

    def start(self, spec: LaunchSpec) -> BotProcess:
        """Start the bot in its own directory (a plain command line: in a fresh private one), with a fresh
        private ``HOME`` and ``TMPDIR``; see the module docstring for the walls."""
        if not isinstance(spec, LaunchSpec):
            raise TypeError(f"start() needs a LaunchSpec, got {type(spec).__name__}")
        if spec.bot_dir is not None and not os.path.isdir(spec.bot_dir):
            raise SandboxError(f"bot directory {spec.bot_dir!r} does not exist")
        walls = self._prepare(self._inputs(spec), spec.limits.processes)
        try:
            argv = self._argv(spec, walls.tmp, walls.info_w, walls.inputs)
            env = self._env(spec, walls.tmp or "/tmp", walls.token)
            popen = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, cwd=self._start_dir(spec, walls.tmp), env=env, close_fds=True, start_new_session=True,
                pass_fds=walls.pass_fds(),
                preexec_fn=_child_setup(spec.limits, os.getpid(), self._bot_is_subreaper, walls.cgroup),
            )
        except BaseException as exc:
            walls.discard()
            if isinstance(exc, (OSError, subprocess.SubprocessError)):
                raise SandboxError(f"cannot start {spec.command[0]!r} with backend {self.name}: {exc}") from exc
            raise
        orphans.register(walls.token, popen.pid)
        related = walls.started()
        return BotProcess(popen, limits=spec.limits, token=walls.token, workdir=walls.tmp, backend=self.name,
                          related=related, cgroup=walls.cgroup)

    def _run_step(self, step: Step, log: IO[str]) -> int:
        """Run ``step`` in its own session and cgroup with ``step.limits``, a scrubbed environment and
        a private ``HOME``; kill everything it started when it ends or runs out of time."""
        self._check_step(step)
        walls = self._prepare(self._step_inputs(step), step.limits.processes)
        popen = None
        try:
            argv = self._step_argv(step, walls.info_w, walls.inputs)
            env = self._step_env(step, walls.tmp or "/tmp", walls.token)
            log.flush()
            try:
                popen = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                    cwd=step.cwd if walls.tmp is not None else "/", env=env, close_fds=True, start_new_session=True,
                    pass_fds=walls.pass_fds(),
                    preexec_fn=_child_setup(step.limits, os.getpid(), self._bot_is_subreaper, walls.cgroup, umask=0o022))
            except (OSError, subprocess.SubprocessError) as exc:
                log.write(f"\ncannot run {step.argv[0]}: {exc}\n")
                return 127
            orphans.register(walls.token, popen.pid)
            related = walls.started()
            code = _wait_pinned(popen.pid, step.timeout)
            inits = list(related()) if related else []
            if not reaper.kill_tree(popen.pid, walls.token, ns_inits=inits):
                log.write(f"\n(processes of {step.label or step.argv[0]} survived SIGKILL)\n")
            status = popen.wait()
            if code is None:
                log.write(f"\n(stopped: {step.label or step.argv[0]} took over {step.timeout:.0f} s)\n")
                return TIMED_OUT
            return status
        finally:
            try:
                log.seek(0, os.SEEK_END)  # past what the step wrote through the shared file description
            except (OSError, ValueError):
                pass
            if popen is not None:
                orphans.unregister(walls.token)
            walls.discard()

    def _prepare(self, inputs: dict[str, bytes], processes: int) -> _Walls:
        """What a bot's start and a step both set up before their process exists: one place, so that
        their clean-up cannot drift apart. Cleans up after itself if any part fails."""
        reaper.ensure_subreaper()
        orphans.sweep()  # once per arena process: what the bots of a killed arena left running
        walls = _Walls(orphans.new_token(), self._host_tmp())
        try:
            if self._wants_info_fd:
                walls.info_r, walls.info_w = os.pipe()
            walls.inputs = {name: _feed(data) for name, data in inputs.items()}
            walls.cgroup = cgroups.create(walls.token, processes)
        except BaseException:
            walls.discard()
            raise
        return walls

    def _check_step(self, step: Step) -> None:
        """Refuse a step that cannot run here (``bwrap``: when bwrap is unavailable)."""
        if not os.path.isdir(step.cwd):
            raise SandboxError(f"{step.label or step.argv[0]}: working directory {step.cwd} does not exist")

    def _step_inputs(self, step: Step) -> dict[str, bytes]:
        """Data the launcher reads from pipes at start, for a step."""
        return {}

    def _step_argv(self, step: Step, info_fd: int, inputs: dict[str, int]) -> list[str]:
        """The command line of a step: its own, run directly."""
        return list(step.argv)

    @staticmethod
    def _step_env(step: Step, tmp: str, token: str) -> dict[str, str]:
        """Scrubbed environment of a step: ``PATH``, a private ``HOME`` and ``TMPDIR``, then ``step.env``."""
        env = {"PATH": SANDBOX_PATH, "HOME": tmp, "TMPDIR": tmp, "LANG": "C.UTF-8"}
        env.update(step.env)
        env[reaper.TOKEN_VAR] = token
        return env

    def _host_tmp(self) -> str | None:
        """A fresh private host directory: the bot's ``HOME`` and ``TMPDIR`` (and the cwd of a plain command
        line), named after this arena process so that the next arena removes it if this one is killed
        (:func:`orphans.sweep`). It is the channel's ``workdir``, removed when the bot ends: never the bot's
        own directory, which the bot's cwd may be."""
        return tempfile.mkdtemp(prefix=orphans.workdir_prefix())

    def _start_dir(self, spec: LaunchSpec, workdir: str | None) -> str:
        """The host directory the process starts in: the bot's own, else the private one."""
        return spec.bot_dir or workdir or "/"

    def _inputs(self, spec: LaunchSpec) -> dict[str, bytes]:
        """Data the launcher reads from pipes at start (by name); ``_argv`` gets their fds."""
        return {}

    def _argv(self, spec: LaunchSpec, workdir: str | None, info_fd: int = -1,
              inputs: dict[str, int] | None = None) -> list[str]:
        """The command line to execute."""
        return list(spec.command)

    @staticmethod
    def _env(spec: LaunchSpec, tmp: str, token: str) -> dict[str, str]:
        """Scrubbed environment: nothing from the arena's own environment leaks in.

        ``PYTHONDONTWRITEBYTECODE``: a bot must not change its own directory, and a Python bot
        writing ``__pycache__`` there (with the bot's private umask) would leave bytecode that
        bots under ``bwrap``, running as another user, cannot read. The build step compiles it.
        """
        env = {"PATH": SANDBOX_PATH, "HOME": tmp, "TMPDIR": tmp, "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
        env.update(spec.env)
        env[reaper.TOKEN_VAR] = token  # last, so spec.env cannot forge or drop it
        return env


class _InfoReader:
    """One-shot reader of bwrap's --info-fd JSON: the host pid of the namespace's init.

    Killing that init takes the whole PID namespace down at once (nothing inside can
    outrun it), and as bwrap exits as soon as the bot's main process has, the init may
    have been re-parented to the arena and must be reaped there. The pid is only
    returned while it still is that init (its pid namespace inode matches).
    """

    def __init__(self, fd: int) -> None:
        self._fd = fd

    def __call__(self) -> list[int]:
        if self._fd < 0:
            return []
        fd, self._fd = self._fd, -1
        data = b""
        try:
            os.set_blocking(fd, False)
            while chunk := os.read(fd, 4096):
                data += chunk
        except OSError:
            pass
        finally:
            os.close(fd)
        try:
            info = json.loads(data)
            pid, ns = int(info["child-pid"]), int(info["pid-namespace"])
            if os.stat(f"/proc/{pid}/ns/pid").st_ino == ns:
                return [pid]
        except (OSError, ValueError, KeyError, TypeError):
            pass
        return []

    def __del__(self) -> None:
        if self._fd >= 0:
            os.close(self._fd)


def _feed(data: bytes) -> int:
    """A pipe already holding ``data`` (and closed for writing): its read end."""
    if len(data) > select.PIPE_BUF * 8:  # far below any pipe's capacity: the write cannot block
        raise ValueError(f"{len(data)} bytes are too many to feed through a pipe at start")
    read, write = os.pipe()
    try:
        os.write(write, data)
    finally:
        os.close(write)
    return read


def check_readable(bot_dir: str, uid: int, sandbox: str) -> None:
    """Raise SandboxError, naming the ``chmod`` that fixes it, when a bot running as ``uid`` (not the directory's
    owner) could neither list nor enter ``bot_dir``, its working directory."""
    st = os.stat(bot_dir)
    if st.st_uid != uid and st.st_mode & 0o005 != 0o005:
        raise SandboxError(
            f"bot directory {bot_dir} has mode {stat.S_IMODE(st.st_mode):04o}: under {sandbox} the bot runs as "
            f"uid {uid} and cannot read it; make it readable by others (chmod -R o+rX {bot_dir})")


def _process_cap() -> str:
    """How ``Limits.processes`` is enforced here, in words for ``available()``."""
    parent, why = cgroups.available()
    return f"processes capped by {why}" if parent else f"process count not capped: {why}"


def _child_setup(limits: Limits, parent_pid: int, subreaper: bool, cgroup: str | None,
                 umask: int = 0o077) -> Callable[[], None]:
    """Build the preexec hook that runs in the child between fork and exec."""

    def setup() -> None:
        if cgroup is not None:  # first: whatever the bot starts is inside, capped
            cgroups.join(cgroup)
        apply_rlimits(limits)
        reaper.prepare_child(parent_pid, subreaper=subreaper)
        os.umask(umask)

    return setup


def _wait_pinned(pid: int, timeout: float) -> int | None:
    """Wait up to ``timeout`` seconds for the child ``pid`` to exit, without reaping it (its zombie keeps
    the pid for :func:`reaper.kill_tree`); None when it is still running."""
    try:
        pidfd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        pidfd = -1
    end = time.monotonic() + max(timeout, 0.0)
    try:
        while True:
            try:
                info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return 0
            if info is not None:
                return 0
            left = end - time.monotonic()
            if left <= 0:
                return None
            if pidfd >= 0:
                poll = select.poll()
                poll.register(pidfd, select.POLLIN)
                poll.poll(min(left, 60.0) * 1000.0)
            else:
                time.sleep(min(left, 0.05))
    finally:
        if pidfd >= 0:
            os.close(pidfd)


_BWRAP_PROBES: dict[tuple[str, bool, int], tuple[bool, str]] = {}  # (bwrap, as root, uid) -> available()

BOT_UID = 65534
"""Host uid and gid of a bwrap bot started by a root arena (``nobody``/``nogroup`` on Debian)."""


class BwrapBackend(NoneBackend):
    """The ``none`` walls plus bubblewrap: an allowlisted read-only view, new namespaces, an unprivileged uid.

    Run by root, bwrap itself creates no user namespace (one created by root maps the
    bot's uid to host root, which owns most of the file system): it builds the mounts as
    root, drops every capability but those ``setpriv`` needs, and ``setpriv`` turns the bot
    into ``bot_uid`` before it runs, with no capabilities and ``no_new_privs``; a seccomp
    filter stops it from making user namespaces. Run by anyone else, bwrap maps the
    arena's own uid into a user namespace and disables nested ones, as it always has.
    """

    name = "bwrap"
    _bot_is_subreaper = False  # the PID namespace's init already keeps orphans inside
    _wants_info_fd = True  # tells us the namespace init's pid

    def __init__(self, bwrap: str | None = None, bot_uid: int = BOT_UID) -> None:
        """Use ``bwrap`` (a path) or the first ``bwrap`` on PATH; a root arena runs bots as ``bot_uid``."""
        self._bwrap = bwrap or shutil.which("bwrap") or shutil.which("bwrap", path=SANDBOX_PATH)
        self._setpriv = shutil.which("setpriv", path=SANDBOX_PATH)
        self.bot_uid = bot_uid

    @property
    def as_root(self) -> bool:
        """Whether bots drop from root to ``bot_uid`` (the arena runs as root)."""
        return os.geteuid() == 0

    def identity(self) -> str:
        """Who a bot runs as, seen from the host, in words."""
        if self.as_root:
            return f"uid/gid {self.bot_uid} (no capabilities, no new privileges)"
        return f"the arena's own uid {os.geteuid()} inside a user namespace (shown to the bot as 65534)"

    def available(self) -> tuple[bool, str]:
        """Run ``/bin/true`` in a real sandbox once per bwrap binary and identity, and cache the verdict."""
        if not self._bwrap:
            return False, "bwrap not found on PATH (Debian: apt-get install bubblewrap)"
        if self.as_root and not self._setpriv:
            return False, ("setpriv not found (Debian: util-linux): a root arena needs it to run bots "
                           "as an unprivileged user")
        key = (self._bwrap, self.as_root, self.bot_uid)
        if key not in _BWRAP_PROBES:
            _BWRAP_PROBES[key] = self._probe()
        return _BWRAP_PROBES[key]

    def _probe(self) -> tuple[bool, str]:
        """Try the exact flags ``start`` uses; a kernel or container may refuse namespaces.

        The probe runs as a bot does (``BotProcess``), so its namespace init, which is
        handed to the arena once bwrap exits, is reaped like any bot's.
        """
        try:
            proc = NoneBackend.start(self, LaunchSpec(("/bin/true",)))
        except (OSError, SandboxError) as exc:
            return False, f"{self._bwrap} failed to run: {exc}"
        try:
            try:
                proc.readline(time.monotonic() + 10.0)
            except ChannelClosed:
                pass
            except ChannelError as exc:
                return False, f"{self._bwrap} did not finish a test sandbox: {exc}"
            code, err = proc.returncode, proc.stderr_tail().strip()
        finally:
            proc.kill()
        if code != 0:
            return False, f"{self._bwrap} cannot create a sandbox here: {err or f'exit status {code}'}"
        userns = "" if not self.as_root or seccomp.supported() else "; new user namespaces NOT blocked on this CPU"
        return True, (f"{self._bwrap} ran a test sandbox (pid, net namespaces, allowlisted read-only files, "
                      f"bots run as {self.identity()}{userns}); {_process_cap()}")

    def start(self, spec: LaunchSpec) -> BotProcess:
        """Start the bot under bwrap; raises SandboxUnavailable if bwrap cannot run here."""
        ok, why = self.available()
        if not ok:
            raise SandboxUnavailable(why)
        if self.as_root and spec.bot_dir:
            self._check_readable(spec.bot_dir)
        return super().start(spec)

    def _check_readable(self, bot_dir: str) -> None:
        """A bot directory the unprivileged bot cannot read is one clear error, not a puzzling crash."""
        check_readable(bot_dir, self.bot_uid, self.name)

    def _host_tmp(self) -> str | None:
        """None: the bot's private ``/tmp`` is a tmpfs of ``Limits.tmp_mb`` inside the sandbox."""
        return None

    def _inputs(self, spec: LaunchSpec) -> dict[str, bytes]:
        """An account for the bot (``/etc/passwd``, ``/etc/group``) and, as root, the seccomp filter."""
        uid = self.bot_uid if self.as_root else _NS_UID
        out = {"passwd": f"root:x:0:0:root:/:/usr/sbin/nologin\nbot:x:{uid}:{uid}:bot:/tmp:/usr/sbin/nologin\n".encode(),
               "group": f"root:x:0:\nbot:x:{uid}:\n".encode()}
        if self.as_root and seccomp.supported():
            out["seccomp"] = seccomp.no_user_namespaces()
        return out

    def _argv(self, spec: LaunchSpec, workdir: str | None, info_fd: int = -1,
              inputs: dict[str, int] | None = None) -> list[str]:
        """bwrap flags: namespaces and identity, then the allowlisted file system, then the command."""
        fds = inputs or {}
        argv = self._walls(fds, info_fd, spec.limits.tmp_mb)
        argv += allowlist.mount_args(spec, [*spec.hidden, *_cwd()])
        return argv + self._enter(fds, self._bot_cwd(spec)) + list(spec.command)

    def _start_dir(self, spec: LaunchSpec, workdir: str | None) -> str:
        """``/``: only bwrap starts here; the bot's working directory is bwrap's ``--chdir``."""
        return "/"

    @staticmethod
    def _bot_cwd(spec: LaunchSpec) -> str:
        """The bot's working directory inside the sandbox: its own directory, bound read-only at its real
        path (:func:`allowlist.exposed_paths`), else the private ``/tmp``."""
        return os.path.realpath(spec.bot_dir) if spec.bot_dir else "/tmp"

    def _walls(self, fds: dict[str, int], info_fd: int, tmp_mb: int) -> list[str]:
        """bwrap flags shared by bots and steps: namespaces (a network of its own: loopback only) and
        identity, ``/dev``, ``/proc`` and a private ``/tmp``."""
        assert self._bwrap
        argv = [self._bwrap]
        if info_fd >= 0:
            argv += ["--info-fd", str(info_fd)]
        if self.as_root:
            argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts",
                     "--unshare-cgroup-try",
                     # setpriv needs these three to become the bot's uid; it drops them with root
                     "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                     "--cap-add", "CAP_SETPCAP"]
            if "seccomp" in fds:
                argv += ["--seccomp", str(fds["seccomp"])]
        else:
            argv += ["--unshare-all", "--unshare-user", "--disable-userns",
                     "--uid", str(_NS_UID), "--gid", str(_NS_UID), "--cap-drop", "ALL"]
        argv += ["--die-with-parent", "--new-session", "--dev", "/dev", "--proc", "/proc"]
        # A size-capped tmpfs, not a host directory: a bot filling its /tmp cannot fill the host's disk.
        # As root the tmpfs belongs to root, so it is world-writable (sticky); nobody else is in the sandbox.
        # It comes before the allowlist, so that a bot directory under the host's /tmp is bound over it.
        argv += ["--size", str(tmp_mb * 1024 * 1024), "--perms", "1777" if self.as_root else "0700",
                 "--tmpfs", "/tmp"]
        return argv

    def _enter(self, fds: dict[str, int], cwd: str) -> list[str]:
        """bwrap flags after the file system: the account files, a read-only root, the working directory,
        then (as root) ``setpriv`` turning the process into the bot's uid before it runs the command."""
        argv: list[str] = []
        for name in ("passwd", "group"):
            if name in fds:
                argv += ["--ro-bind-data", str(fds[name]), f"/etc/{name}"]
        argv += ["--remount-ro", "/", "--chdir", cwd, "--"]
        if self.as_root:
            assert self._setpriv
            argv += [self._setpriv, f"--reuid={self.bot_uid}", f"--regid={self.bot_uid}", "--clear-groups",
                     "--no-new-privs", "--inh-caps=-all", "--bounding-set=-all", "--"]
        return argv

    # ------------------------------------------------------------------ steps
    @property
    def contains_steps(self) -> bool:
        """True: steps run behind the same walls as the bot's matches."""
        return True

    @property
    def step_uid(self) -> int | None:
        """``bot_uid`` when the arena is root; else None (the user namespace maps the arena's own uid)."""
        return self.bot_uid if self.as_root else None

    def _check_step(self, step: Step) -> None:
        """Refuse a step when bwrap cannot run here, or when its folders do not exist."""
        ok, why = self.available()
        if not ok:
            raise SandboxUnavailable(why)
        for path in (*step.writable, *(copy for copy, _ in step.copies)):
            if not os.path.isdir(path):
                raise SandboxError(f"{step.label or step.argv[0]}: folder {path} does not exist")

    def _step_inputs(self, step: Step) -> dict[str, bytes]:
        """The account and filter of a bot, and each small readable file the step's uid could not read
        itself (``~/.npmrc`` is often private to the arena's user), fed by content."""
        out = self._inputs(LaunchSpec(command=("/bin/true",)))
        for index, path in enumerate(self._fed_files(step)):
            with open(path, "rb") as f:
                out[f"file{index}"] = f.read()
        return out

    def _fed_files(self, step: Step) -> list[str]:
        """Readable regular files the step's uid cannot read on the host, small enough to feed by pipe."""
        if not self.as_root:
            return []
        out = []
        for path in step.readable:
            try:
                info = os.stat(path)
            except OSError:
                continue
            if stat.S_ISREG(info.st_mode) and info.st_mode & 0o004 == 0 and info.st_size <= _FED_BYTES:
                out.append(path)
        return out

    def _step_argv(self, step: Step, info_fd: int, inputs: dict[str, int]) -> list[str]:
        """bwrap flags of a step: the bot's walls, play's system allowlist (plus name resolution and
        certificates for a fetch, which reaches the indexes through the gate), ``step.readable`` read-only,
        ``step.writable`` and ``step.copies`` read-write, the arena's working directory hidden."""
        argv = self._walls(inputs, info_fd, step.limits.tmp_mb)
        argv += allowlist.system_args((*allowlist.ETC_FILES, *(allowlist.NETWORK_ETC if step.network else ())))
        fed = {path: inputs[f"file{i}"] for i, path in enumerate(self._fed_files(step)) if f"file{i}" in inputs}
        written = [os.path.realpath(p) for p in (*step.writable, *(original for _, original in step.copies))]
        read = [p for p in allowlist.outermost(p for p in step.readable if os.path.exists(p) and p not in fed)
                if not any(allowlist.under(p, (w,)) for w in written)]
        binds = [("--ro-bind", p, p) for p in read]
        binds += [("--bind", os.path.realpath(p), os.path.realpath(p)) for p in step.writable]
        binds += [("--bind", os.path.realpath(copy), os.path.realpath(original)) for copy, original in step.copies]
        binds += [("--ro-bind-data", str(fd), path) for path, fd in fed.items()]
        argv += allowlist.bind_args(binds)
        argv += allowlist.hidden_args(_cwd(), [*read, *written])
        return argv + self._enter(inputs, step.cwd) + list(step.argv)


_FED_BYTES = select.PIPE_BUF * 8
"""Largest readable file fed by content rather than bound (as :func:`_feed` takes it)."""


_NS_UID = 65534
"""The bot's uid inside its user namespace when the arena is not root (mapped to the arena's uid)."""


def _cwd() -> list[str]:
    """The arena's working directory (configurations, results), hidden if it lies in an exposed path."""
    try:
        return [os.getcwd()]
    except OSError:  # the working directory was removed
        return []


def _docker() -> Backend:
    """``docker.DockerBackend()``, imported when asked for: that module builds on ``Backend`` above."""
    from .docker import DockerBackend

    return DockerBackend()


_FACTORIES: dict[str, Callable[[], Backend]] = {
    "none": NoneBackend,
    "bwrap": BwrapBackend,
    "docker": _docker,
}


def _normalise(name: str) -> str:
    """Lower-case a backend name and reject unknown ones, listing the allowed names."""
    key = str(name).strip().lower()
    if key != "auto" and key not in _FACTORIES:
        raise SandboxError(f"unknown sandbox backend {name!r}; allowed: {', '.join(BACKEND_NAMES)}")
    return key


def get_backend(name: str) -> Backend:
    """The backend called ``name`` ("auto" picks one); unknown names raise SandboxError."""
    key = _normalise(name)
    if key == "auto":
        return resolve_backend("auto")[0]
    return _FACTORIES[key]()


def resolve_backend(name: str) -> tuple[Backend, str]:
    """Pick a usable backend and say which and why (for the CLI to print).

    "auto" chooses bwrap if a test sandbox runs here, else none. An explicitly named
    backend that cannot run raises SandboxUnavailable rather than silently degrading.
    """
    key = _normalise(name)
    if key == "auto":
        bwrap = BwrapBackend()
        ok, why = bwrap.available()
        if ok:
            return bwrap, f"auto chose bwrap: {why}"
        return NoneBackend(), f"auto chose none (no isolation beyond rlimits) because bwrap is unavailable: {why}"
    backend = _FACTORIES[key]()
    ok, why = backend.available()
    if not ok:
        raise SandboxUnavailable(f"sandbox backend {key!r} is unavailable: {why}")
    return backend, f"{key} (requested): {why}"
