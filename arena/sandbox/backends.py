"""Backends: how a bot process is started and what walls surround it.

* ``none``  - a plain subprocess in its own session with rlimits, a scrubbed
  environment and a private temporary working directory. Contains accidents and
  runaway resource use, not a determined attacker (the bot runs as the arena's user).
* ``bwrap`` - all of the above inside bubblewrap: new user/PID/network/IPC/UTS
  namespaces, no capabilities, an unprivileged uid, read-only host file system,
  private /tmp, and /root, /home, /run, /var/tmp hidden.
* ``docker`` - each bot in its own container on a Docker engine (see ``docker.py``);
  only when asked for by name, never chosen by ``auto``.

``resolve_backend("auto")`` prefers bwrap when a real test sandbox runs here.
"""

from __future__ import annotations

import abc
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any

from . import cgroups, orphans, reaper
from .docker import DockerSandbox
from .errors import ChannelClosed, ChannelError, SandboxError, SandboxUnavailable
from .limits import LaunchSpec, Limits, apply_rlimits
from .process import BotProcess

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
"""PATH inside every sandbox (the arena's own PATH is not passed on)."""

BACKEND_NAMES: tuple[str, ...] = ("auto", "none", "bwrap", "docker")
"""Names accepted by ``get_backend`` and ``resolve_backend`` (and so by the CLI)."""


class Backend(abc.ABC):
    """Starts bots as ``BotProcess`` objects; one subclass per isolation technique."""

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Short name, as given on the command line."""

    @abc.abstractmethod
    def available(self) -> tuple[bool, str]:
        """Whether this backend can run here, with a human-readable reason."""

    @abc.abstractmethod
    def start(self, spec: LaunchSpec) -> BotProcess:
        """Start the bot described by ``spec``; raises SandboxError if it cannot be started."""

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name!r}>"


class NoneBackend(Backend):
    """No isolation beyond rlimits, own session, scrubbed env and a private cwd."""

    name = "none"
    _bot_is_subreaper = True  # keeps every descendant under the bot's main process
    _wants_info_fd = False

    def available(self) -> tuple[bool, str]:
        """Always available on Linux."""
        return True, "plain subprocess: rlimits, own session, scrubbed environment, private cwd; " + _process_cap()

    def start(self, spec: LaunchSpec) -> BotProcess:
        """Start the bot in a fresh private directory; see the module docstring for the walls."""
        if not isinstance(spec, LaunchSpec):
            raise TypeError(f"start() needs a LaunchSpec, got {type(spec).__name__}")
        if spec.bot_dir is not None and not os.path.isdir(spec.bot_dir):
            raise SandboxError(f"bot directory {spec.bot_dir!r} does not exist")
        reaper.ensure_subreaper()
        orphans.sweep()  # once per arena process: what the bots of a killed arena left running
        token = orphans.new_token()
        workdir = self._host_tmp()
        info_r, info_w = os.pipe() if self._wants_info_fd else (-1, -1)
        cgroup = None
        try:
            cgroup = cgroups.create(token, spec.limits.processes)
            argv = self._argv(spec, workdir, info_w)
            env = self._env(spec, workdir or "/tmp", token)
            popen = subprocess.Popen(
                argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                bufsize=0, cwd=workdir or "/", env=env, close_fds=True, start_new_session=True,
                pass_fds=(info_w,) if info_w >= 0 else (),
                preexec_fn=_child_setup(spec.limits, os.getpid(), self._bot_is_subreaper, cgroup),
            )
        except BaseException as exc:
            if cgroup is not None:
                cgroups.remove(cgroup)
            if workdir is not None:
                shutil.rmtree(workdir, ignore_errors=True)
            for fd in (info_r, info_w):
                if fd >= 0:
                    os.close(fd)
            if isinstance(exc, (OSError, subprocess.SubprocessError)):
                raise SandboxError(f"cannot start {spec.command[0]!r} with backend {self.name}: {exc}") from exc
            raise
        orphans.register(token, popen.pid)
        related = None
        if info_w >= 0:
            os.close(info_w)
            related = _InfoReader(info_r)
        return BotProcess(popen, limits=spec.limits, token=token, workdir=workdir, backend=self.name,
                          related=related, cgroup=cgroup)

    def _host_tmp(self) -> str | None:
        """A fresh private host directory: the bot's cwd, ``HOME`` and ``TMPDIR``."""
        return tempfile.mkdtemp(prefix="arena-bot-")

    def _argv(self, spec: LaunchSpec, workdir: str | None, info_fd: int = -1) -> list[str]:
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


def _process_cap() -> str:
    """How ``Limits.processes`` is enforced here, in words for ``available()``."""
    parent, why = cgroups.available()
    return f"processes capped by {why}" if parent else f"process count not capped: {why}"


def _child_setup(limits: Limits, parent_pid: int, subreaper: bool, cgroup: str | None) -> Callable[[], None]:
    """Build the preexec hook that runs in the child between fork and exec."""

    def setup() -> None:
        if cgroup is not None:  # first: whatever the bot starts is inside, capped
            cgroups.join(cgroup)
        apply_rlimits(limits)
        reaper.prepare_child(parent_pid, subreaper=subreaper)
        os.umask(0o077)

    return setup


_HIDDEN_DIRS = ("/root", "/home", "/run", "/var/tmp")
_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/dev",
                "/tmp", "/nix", "/gnu")
"""Directories bots need (programs, libraries, settings); never hidden, whatever the cwd."""
_BWRAP_PROBES: dict[str, tuple[bool, str]] = {}  # bwrap path -> cached available() answer


class BwrapBackend(NoneBackend):
    """The ``none`` walls plus bubblewrap namespaces; nothing the bot does reaches the host."""

    name = "bwrap"
    _bot_is_subreaper = False  # the PID namespace's init already keeps orphans inside
    _wants_info_fd = True  # tells us the namespace init's pid
    hidden_dirs: tuple[str, ...] = _HIDDEN_DIRS
    """Host directories replaced by an empty read-only tmpfs (secrets, sockets)."""

    def __init__(self, bwrap: str | None = None) -> None:
        """Use ``bwrap`` (a path) or the first ``bwrap`` on PATH."""
        self._bwrap = bwrap or shutil.which("bwrap") or shutil.which("bwrap", path=SANDBOX_PATH)

    def available(self) -> tuple[bool, str]:
        """Run ``/bin/true`` in a real sandbox once per bwrap binary and cache the verdict."""
        if not self._bwrap:
            return False, "bwrap not found on PATH (Debian: apt-get install bubblewrap)"
        if self._bwrap not in _BWRAP_PROBES:
            _BWRAP_PROBES[self._bwrap] = self._probe()
        return _BWRAP_PROBES[self._bwrap]

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
        return True, f"{self._bwrap} ran a test sandbox (user, pid, net namespaces); {_process_cap()}"

    def start(self, spec: LaunchSpec) -> BotProcess:
        """Start the bot under bwrap; raises SandboxUnavailable if bwrap cannot run here."""
        ok, why = self.available()
        if not ok:
            raise SandboxUnavailable(why)
        return super().start(spec)

    def _host_tmp(self) -> str | None:
        """None: the bot's private ``/tmp`` is a tmpfs of ``Limits.tmp_mb`` inside the sandbox."""
        return None

    def _argv(self, spec: LaunchSpec, workdir: str | None, info_fd: int = -1) -> list[str]:
        """bwrap flags; mount order matters: hide dirs first, then re-expose the bot's paths."""
        assert self._bwrap
        argv = [self._bwrap]
        if info_fd >= 0:
            argv += ["--info-fd", str(info_fd)]
        argv += [
            "--unshare-all",  # user, pid, net, ipc, uts, cgroup: no network at all
            "--unshare-user", "--disable-userns", "--uid", "65534", "--gid", "65534",
            "--cap-drop", "ALL",  # as root, bwrap would otherwise keep every capability
            "--die-with-parent", "--new-session",
            "--ro-bind", "/", "/",
            "--dev", "/dev",
            "--proc", "/proc",
        ]
        hidden = self._hidden(spec)
        for d in hidden:
            argv += ["--tmpfs", d]
        # A size-capped tmpfs, not a host directory: a bot filling its /tmp cannot fill the host's disk.
        argv += ["--size", str(spec.limits.tmp_mb * 1024 * 1024), "--perms", "0700", "--tmpfs", "/tmp"]
        for path in self._exposed(spec, [*hidden, "/tmp"]):  # /tmp is replaced by the private tmp
            argv += ["--ro-bind", path, path]
        for d in hidden:
            argv += ["--remount-ro", d]
        argv += ["--chdir", "/tmp", "--", *spec.command]
        return argv

    def _hidden(self, spec: LaunchSpec) -> list[str]:
        """Directories to cover with an empty tmpfs: secrets, the arena's working directory
        (its configurations and results live there), and what the spec names.

        A path that is ``/`` or holds a system directory is never hidden: the bot needs those.
        Paths under ``/tmp`` need no tmpfs: the bot's private directory replaces all of ``/tmp``.
        """
        try:
            cwd = [os.getcwd()]
        except OSError:  # the working directory was removed
            cwd = []
        wanted = [*self.hidden_dirs, *cwd, *spec.hidden]
        out: list[str] = []
        for d in wanted:
            d = os.path.realpath(d)
            if (d in out or not os.path.isdir(d) or d == "/" or d.startswith("/tmp/")  # the private /tmp covers it
                    or any(s == d or s.startswith(d + "/") for s in _SYSTEM_DIRS)):
                continue
            out.append(d)
        # An ancestor already hides its descendants; mounting both would re-cover re-exposed paths.
        return [d for d in out if not any(d.startswith(o + "/") for o in out)]

    @staticmethod
    def _exposed(spec: LaunchSpec, hidden: list[str]) -> list[str]:
        """Paths to bind read-only after hiding: the bot dir, plus command paths inside hidden dirs.

        The program's install prefix is exposed too, so e.g. a venv python that links to
        /root/.pyenv/versions/X/bin/python still finds its standard library.
        """
        def under_hidden(path: str) -> bool:
            return any(path == d or path.startswith(d + "/") for d in hidden)

        paths: list[str] = []
        if spec.bot_dir:
            paths.append(spec.bot_dir)
            shared = os.path.join(os.path.dirname(os.path.abspath(spec.bot_dir)), SHARED_LIB)
            if os.path.isdir(shared):  # a `lib` folder beside the bot dir is its shared code
                paths.append(shared)
        program = spec.command[0]
        if "/" not in program:
            program = shutil.which(program, path=SANDBOX_PATH) or program
        candidates = [program, *spec.command[1:]]
        if os.path.isabs(program):
            real = os.path.realpath(program)
            parent = os.path.dirname(real)
            candidates.append(os.path.dirname(parent) if os.path.basename(parent) == "bin" else parent)
        for arg in candidates[1:]:  # a script's own folder holds what it imports
            if os.path.isabs(arg) and os.path.isfile(arg):
                candidates.append(os.path.dirname(arg))
        for arg in candidates:
            if not os.path.isabs(arg) or not os.path.exists(arg):
                continue
            for path in (os.path.abspath(arg), os.path.realpath(arg)):
                if under_hidden(path) and path not in paths:
                    paths.append(path)
        return paths


SHARED_LIB = "lib"
"""A folder of this name next to a bot's directory is readable by the bot (shared helpers)."""


class DockerBackend(Backend):
    """Each bot in its own container on a Docker engine; a thin wrapper of ``docker.DockerSandbox``.

    Never chosen by ``auto``: only when asked for by name. The image comes from
    ``LaunchSpec.image`` (a bot's ``image:`` in bot.yaml), else from ``image`` here.
    """

    name = "docker"

    def __init__(self, image: str | None = None, **options: Any) -> None:
        """``options``: ``pids_limit``, ``cpus``, ``tmp_mb``, ``user``, ``mount_bot_dir`` (see DockerSandbox)."""
        self._sandbox = DockerSandbox(image, **options)

    @property
    def image(self) -> str | None:
        """Image used for specs that name none."""
        return self._sandbox.image

    def available(self) -> tuple[bool, str]:
        """Whether a Docker engine answers (SDK ``from_env`` and a ping), with the reason."""
        return self._sandbox.available()

    def start(self, spec: LaunchSpec) -> BotProcess:
        """Start the bot in a new container; raises SandboxUnavailable/SandboxError if it cannot."""
        return self._sandbox.start(spec)


_FACTORIES: dict[str, Callable[[], Backend]] = {
    "none": NoneBackend,
    "bwrap": BwrapBackend,
    "docker": DockerBackend,
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
