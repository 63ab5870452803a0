"""The ``docker`` backend: every bot in its own container on a Docker engine.

A bot is one container created through the Docker SDK from the image named by
``LaunchSpec.image`` (a bot's ``image:`` in ``bot.yaml``), running ``spec.command``
as given, i.e. with paths inside the image. The container gets:

* no network at all (``network_mode=none``, network disabled): only a loopback
  interface;
* a cgroup memory limit of ``Limits.memory_mb`` for the whole container with no
  swap on top (memory = memory + swap), so a hog is OOM-killed (status 137);
* one CPU (``nano_cpus``) and at most ``Limits.processes`` (64) processes and threads
  (``pids_limit``, unless the backend names its own), so a fork bomb stalls inside the
  container;
* the other ``Limits`` as rlimits (``cpu_seconds`` as RLIMIT_CPU, ``file_size_mb``,
  ``open_files``, no core dumps), as under ``none``/``bwrap``;
* a read-only root file system, a tmpfs of ``Limits.tmp_mb`` at ``/tmp`` (``HOME`` and
  ``TMPDIR``), the bot's own directory (and a ``lib`` folder beside it, as under
  bwrap) and its dependency environments (``LaunchSpec.extra_paths``) bind-mounted
  read-only at the same path when the spec names them;
* the bot's own directory as the working directory when it is mounted (a bot opens its
  data files by relative path, as under ``none`` and ``bwrap``), else ``/tmp``;
* ``cap_drop=ALL``, ``no-new-privileges``, uid/gid 65534, private IPC, no logging
  driver (the engine keeps no copy of what the bot writes);
* an environment of ``HOME``, ``TMPDIR``, ``LANG``, ``PYTHONDONTWRITEBYTECODE=1`` (as under ``none`` and
  ``bwrap``: Python does not try to write ``__pycache__`` into the read-only bot directory),
  ``ARENA_SANDBOX=<token>`` and ``LaunchSpec.env`` on top of the image's own ``ENV``;
* labels ``cabo-arena=1`` and ``cabo-arena.owner=<hostname>/<pid namespace>:<pid>`` (plus the owner's
  start time), so containers left behind by an arena that died are found and removed.

The JSON-lines channel is the container's stdin/stdout, reached through one socket
from the engine's attach endpoint. :class:`ContainerProcess` is the
:class:`~arena.sandbox.channel.Channel` over that socket: it demultiplexes Docker's
stream framing (8-byte headers: stream 1 stdout, 2 stderr, big-endian length) into the
channel's line buffer and stderr tail, without threads. Closing stdin shuts the
socket's write side; the container was created with ``StdinOnce`` so the engine then
closes the bot's stdin. The end of the attach stream means the container's main
process exited; its status then comes from the engine.

Containers are removed (``force=True``) by ``kill()``, by ``close()`` after its grace
period, at interpreter exit, and, for arenas that were killed outright, by
:func:`cleanup_stale`, which the first start in each arena process runs. The engine's
removal waits until the container's output has been copied into the attach stream, so
the socket is read to its end while a short-lived thread makes the removal call: unread,
a bot flooding stderr would hold each removal up for the whole ``API_TIMEOUT``.

The ``docker`` SDK is imported only when an engine is first contacted, so importing
the arena stays cheap where Docker is not used.
"""

from __future__ import annotations

import hashlib
import os
import secrets
import select
import signal
import socket
import threading
import time
import warnings
from typing import IO, Any

from .backends import Backend, check_readable
from .channel import CHUNK, Channel
from .errors import ChannelClosed, SandboxError, SandboxUnavailable
from .limits import LaunchSpec, Limits
from .orphans import pid_namespace, registry
from .reaper import TOKEN_VAR, process_start
from .steps import Step

LABEL = "cabo-arena"
"""Every container the arena creates carries ``cabo-arena=1``."""
OWNER_LABEL = "cabo-arena.owner"
"""``<hostname>/<pid namespace>:<pid>`` of the arena process that created the container."""
OWNER_START_LABEL = "cabo-arena.owner-start"
"""Start time of that process (clock ticks since boot), so a recycled pid is not taken for it."""

DEFAULT_CPUS = 1.0
DEFAULT_USER = "65534:65534"
PING_TIMEOUT = 3.0
"""Seconds an engine has to answer ``available()``."""
API_TIMEOUT = 60.0
"""Seconds any other engine call may take (creating, starting, removing a container)."""
STALE_AFTER = 3600.0
"""Stopped containers of an arena on another host are removed when older than this."""

REMOVER_NAME = "docker-remove"
EXIT_WAIT = 5.0
"""Longest wait for the engine to record the exit of a container whose stream has ended: an API call
and the engine's own bookkeeping, which a loaded machine delays past the second a pipe's exit takes
(then an OOM kill was reported as a bot that merely closed its output)."""
"""Name (prefix) of the short-lived thread that removes a container while its stream is read."""

_MB = 1024 * 1024
_FRAME_HEADER = 8
_STDOUT, _STDERR = 1, 2
_POLLIN = select.POLLIN
_POLLOUT = select.POLLOUT
_KILLED = 128 + signal.SIGKILL  # the engine's status for a container killed by SIGKILL
_DEFAULT_HOST = "unix:///var/run/docker.sock"


# --------------------------------------------------------------------- the engine
_CLIENTS: dict[tuple[Any, ...], Any] = {}  # (pid, DOCKER_* env) -> docker.DockerClient
_CLEANED: set[tuple[int, str]] = set()  # (pid, engine url) where cleanup_stale already ran


def engine_address() -> str:
    """Where the SDK looks for the engine: ``DOCKER_HOST`` or the default socket."""
    return os.environ.get("DOCKER_HOST") or _DEFAULT_HOST


def _api_errors() -> tuple[type[BaseException], ...]:
    """Exceptions an engine call may raise: the SDK's, the HTTP library's, the socket's."""
    from docker.errors import DockerException
    from requests.exceptions import RequestException

    return (DockerException, RequestException, OSError)


def _short(exc: BaseException, limit: int = 300) -> str:
    """One line of an exception's message (the SDK's can be long and nested)."""
    text = " ".join(str(getattr(exc, "explanation", None) or exc).split()) or type(exc).__name__
    return text if len(text) <= limit else text[:limit - 3] + "..."


def _why(exc: BaseException) -> str:
    """The root cause of a failed engine call, e.g. "No such file or directory" for a missing socket."""
    seen: set[int] = set()
    stack: list[object] = [exc]
    while stack:
        item = stack.pop()
        if id(item) in seen or not isinstance(item, BaseException):
            continue
        seen.add(id(item))
        if isinstance(item, OSError) and item.strerror:
            return item.strerror
        stack.extend([item.__context__, item.__cause__, *item.args])
    return _short(exc)


def connect() -> Any:
    """A ``docker.DockerClient`` for the engine the environment names (cached per process).

    Raises SandboxUnavailable, with the reason, when the SDK is missing or the engine
    does not answer within ``PING_TIMEOUT``. A cached client is pinged again.
    """
    key = (os.getpid(), *(os.environ.get(v) for v in ("DOCKER_HOST", "DOCKER_TLS_VERIFY", "DOCKER_CERT_PATH")))
    client = _CLIENTS.get(key)
    try:
        from docker.client import from_env  # a submodule, so a top-level docker/ folder cannot shadow it
    except ImportError:
        raise SandboxUnavailable("the docker Python SDK is not installed (pip install docker)") from None
    try:
        if client is None:
            client = from_env(timeout=PING_TIMEOUT)
        client.api.timeout = PING_TIMEOUT
        client.ping()
    except Exception as exc:  # the SDK, requests and urllib3 each have their own errors
        _CLIENTS.pop(key, None)
        raise SandboxUnavailable(f"no Docker engine answers at {engine_address()}: {_why(exc)} "
                                 "(start one, e.g. tests/docker/start-dockerd.sh, or use bwrap)") from None
    client.api.timeout = API_TIMEOUT
    _CLIENTS[key] = client
    return client


def this_host() -> str:
    """Where this process's pids mean something: ``<hostname>/<pid namespace>``. The namespace tells an
    arena in a container (which may share the host's name, ``--network host``) from one on the host."""
    return f"{socket.gethostname()}/{pid_namespace()}"


def owner() -> str:
    """The ``cabo-arena.owner`` label value of this process: ``<hostname>/<pid namespace>:<pid>``."""
    return f"{this_host()}:{os.getpid()}"


def _owner_alive(labels: dict[str, str], host: str) -> bool | None:
    """Whether the arena that created a container still runs; None if it is on another host."""
    owner_host, _, pid_text = (labels.get(OWNER_LABEL) or "").rpartition(":")
    if owner_host != host:
        return None
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    started = process_start(pid) if pid > 0 else None
    if started is None:
        return False
    expected = labels.get(OWNER_START_LABEL)
    return not expected or expected == started


def cleanup_stale(client: Any, *, stale_after: float = STALE_AFTER) -> list[str]:
    """Remove ``cabo-arena`` containers whose arena is gone; return their ids.

    Gone means: the owner is on this host (and PID namespace) and its pid no longer runs (or now belongs to
    a process started at another time). Containers of an arena on another host sharing
    the engine are only removed once stopped and older than ``stale_after`` seconds;
    containers of a live arena are never touched.
    """
    api = client.api
    host = this_host()
    now = time.time()
    removed: list[str] = []
    for info in api.containers(all=True, filters={"label": LABEL}):
        labels = info.get("Labels") or {}
        alive = _owner_alive(labels, host)
        if alive is None:
            stale = info.get("State") != "running" and now - float(info.get("Created") or now) > stale_after
        else:
            stale = not alive
        if stale and _remove(api, info["Id"]):
            removed.append(info["Id"])
    return removed


def _cleanup_once(client: Any) -> None:
    """Run ``cleanup_stale`` on the first use of an engine in this process."""
    key = (os.getpid(), str(client.api.base_url))
    if key in _CLEANED:
        return
    _CLEANED.add(key)
    try:
        cleanup_stale(client)
    except _api_errors() as exc:
        warnings.warn(f"docker sandbox: could not clean up stale containers: {_short(exc)}", RuntimeWarning)


def _remove(api: Any, container_id: str, timeout: float = 10.0) -> bool:
    """Kill and remove a container; True once it is gone (also if it already was)."""
    from docker.errors import NotFound

    end = time.monotonic() + timeout
    while True:
        try:
            api.remove_container(container_id, force=True)
            return True
        except NotFound:
            return True
        except _api_errors():
            # e.g. 409 "removal already in progress", or an engine hiccup: check and retry
            pass
        if time.monotonic() > end:
            return False
        time.sleep(0.05)


def _raw_socket(attach: Any) -> socket.socket:
    """The plain socket under the SDK's attach stream (unix or TCP; TLS and ssh are not supported)."""
    import ssl  # loaded by the SDK anyway; not at arena start-up

    sock = attach if isinstance(attach, socket.socket) else getattr(attach, "_sock", None)
    if not isinstance(sock, socket.socket) or isinstance(sock, ssl.SSLSocket):
        raise SandboxUnavailable(f"the docker sandbox needs the engine on a unix socket or plain TCP, not "
                                 f"{engine_address()} (its attach stream is a {type(attach).__name__})")
    return sock


def _close_attach(attach: Any) -> None:
    """Close the SDK's attach stream, its socket and the HTTP response behind it."""
    for obj in (attach, getattr(attach, "_sock", None), getattr(attach, "_response", None)):
        close = getattr(obj, "close", None)
        if close is not None:
            try:
                close()
            except Exception:
                pass


# -------------------------------------------------------------------- the backend
class DockerBackend(Backend):
    """Each bot in its own container on a Docker engine.

    Never chosen by ``auto``: only when asked for by name. The image comes from
    ``LaunchSpec.image`` (a bot's ``image:`` in bot.yaml), else from ``image`` here.
    """

    name = "docker"

    def __init__(self, image: str | None = None, *, pids_limit: int | None = None,
                 cpus: float = DEFAULT_CPUS, tmp_mb: int | None = None, user: str = DEFAULT_USER,
                 mount_bot_dir: bool = True) -> None:
        """``image`` is used for specs that name none; the rest shape every container.

        ``mount_bot_dir`` binds the spec's bot directory (and a ``lib`` folder beside it)
        read-only at the same path, so a manifest's relative ``run`` paths, which the
        runner makes absolute, resolve inside the container too; likewise the spec's
        ``extra_paths`` (the bot's dependency environments).
        """
        if image is not None and (not isinstance(image, str) or not image or any(c.isspace() for c in image)):
            raise ValueError(f"DockerBackend image must be an image reference like 'name:tag', got {image!r}")
        if pids_limit is not None and (not isinstance(pids_limit, int) or isinstance(pids_limit, bool)
                                       or pids_limit <= 0):
            raise ValueError(f"pids_limit must be a positive int (or None: Limits.processes), got {pids_limit!r}")
        if not isinstance(cpus, (int, float)) or cpus <= 0:
            raise ValueError(f"cpus must be positive, got {cpus!r}")
        if tmp_mb is not None and (not isinstance(tmp_mb, int) or isinstance(tmp_mb, bool) or tmp_mb <= 0):
            raise ValueError(f"tmp_mb must be a positive int (or None: Limits.tmp_mb), got {tmp_mb!r}")
        self.image = image
        """Image used for specs that name none."""
        self.pids_limit = pids_limit
        self.cpus = float(cpus)
        self.tmp_mb = tmp_mb
        self.user = user
        self.mount_bot_dir = mount_bot_dir

    def available(self) -> tuple[bool, str]:
        """Whether a Docker engine answers (``docker.from_env()`` and a ping), with the reason."""
        try:
            client = connect()
        except SandboxUnavailable as exc:
            return False, str(exc)
        try:
            version = client.api.version(api_version=False).get("Version", "?")
        except _api_errors():
            version = "?"
        return True, (f"Docker engine {version} at {engine_address()}: a container per bot, no network, "
                      f"memory cgroup, {self.cpus:g} CPU, {self.pids_limit or 'Limits.processes'} processes, "
                      "read-only root")

    def start(self, spec: LaunchSpec) -> ContainerProcess:
        """Create, attach to and start the bot's container; SandboxUnavailable/SandboxError if it cannot."""
        if not isinstance(spec, LaunchSpec):
            raise TypeError(f"start() needs a LaunchSpec, got {type(spec).__name__}")
        image = spec.image or self.image
        if not image:
            raise SandboxUnavailable(
                "the docker sandbox needs an image: set 'image' in the bot's bot.yaml (an image on the engine "
                f"that holds the program {spec.command[0]!r}; see docs/sandbox.md#docker)")
        from docker.errors import ImageNotFound

        uid = self.user.partition(":")[0]
        if self.mount_bot_dir and spec.bot_dir and os.path.isdir(spec.bot_dir) and uid.isdigit():
            check_readable(spec.bot_dir, int(uid), self.name)  # its working directory: else a puzzling crash
        client = connect()
        _cleanup_once(client)
        api = client.api
        token = secrets.token_hex(12)
        config = self._config(api, spec, image, token)
        try:
            container_id = api.create_container_from_config(config)["Id"]
        except ImageNotFound:
            raise SandboxError(f"docker image {image!r} is not on the engine; build or load it first "
                               "(docker build / docker load / docker import)") from None
        except _api_errors() as exc:
            raise SandboxError(f"cannot create a container for {spec.command[0]!r} from image {image!r}: "
                               f"{_short(exc)}") from None
        attach: Any = None
        try:
            attach = api.attach_socket(container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1})
            sock = _raw_socket(attach)
            api.start(container_id)  # after attaching, so no output is lost
            return ContainerProcess(api, container_id, attach, sock, limits=spec.limits, token=token)
        except BaseException as exc:
            if attach is not None:
                _close_attach(attach)
            _remove(api, container_id)
            if isinstance(exc, _api_errors()):
                raise SandboxError(f"cannot start {spec.command[0]!r} in image {image!r}: {_short(exc)}") from None
            raise

    @property
    def step_uid(self) -> int | None:
        """The container's uid for a root arena, which hands the step its output folders (a step of any other
        arena runs as the arena's own uid and gid: :func:`step_user`)."""
        uid = self.user.partition(":")[0]
        return int(uid) if os.geteuid() == 0 and uid.isdigit() else None

    def step_user(self) -> str:
        """Who a step's container runs as: the bots' user for a root arena, else the arena's own uid and gid,
        which owns the folders the step writes (it cannot give them away); unprivileged either way."""
        return self.user if os.geteuid() == 0 else f"{os.getuid()}:{os.getgid()}"

    def _run_step(self, step: Step, log: IO[str]) -> int:
        """Run an install or build step in a fresh container of ``step.image`` (see ``docker_steps.py``)."""
        from .docker_steps import run_step

        return run_step(self, step, log)

    def _config(self, api: Any, spec: LaunchSpec, image: str, token: str) -> Any:
        """The container's configuration (see the module docstring for what each part is for)."""
        from docker.types import Mount

        limits = spec.limits
        mounts = []
        cwd = "/tmp"
        if self.mount_bot_dir and spec.bot_dir and os.path.isdir(spec.bot_dir):
            cwd = spec.bot_dir
            paths = [spec.bot_dir]
            shared = os.path.join(os.path.dirname(spec.bot_dir), "lib")
            if os.path.isdir(shared) and shared != spec.bot_dir:
                paths.append(shared)
            paths += [p for p in spec.extra_paths if os.path.isdir(p) and p not in paths]
            mounts = [Mount(target=p, source=p, type="bind", read_only=True) for p in paths]
        host_config = walls(api, limits, mounts, network="none", cpus=self.cpus,
                            processes=self.pids_limit or limits.processes, tmp_mb=self.tmp_mb or limits.tmp_mb)
        env = {"HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
        env.update(spec.env)
        env[TOKEN_VAR] = token  # last, so spec.env cannot forge or drop it
        labels = {LABEL: "1", OWNER_LABEL: owner()}
        started = process_start(os.getpid())
        if started:
            labels[OWNER_START_LABEL] = started
        config = api.create_container_config(
            image=image, command=list(spec.command), entrypoint=[""], user=self.user, working_dir=cwd,
            environment=[f"{k}={v}" for k, v in env.items()], labels=labels, stdin_open=True, tty=False,
            network_disabled=True, host_config=host_config,
        )
        config["StdinOnce"] = True  # our shutdown(SHUT_WR) on the attach socket closes the bot's stdin
        return config


HIDDEN_HOMES = ("/root",)
"""Folders an image keeps to their owner (``0700``) under which the arena's own paths may lie: an arena
run as root keeps its cache in ``/root/.cache`` (and often its ladders in ``/root``), each bound at its own
path, which the container's uid 65534 could not pass through."""


def home_covers(mounts: list[Any]) -> list[Any]:
    """A read-only bind over each hidden home that a mount lies under: a host folder of empty ``0755``
    folders down to each such mount point. It hides the image's folder (nothing of it is a bot's) and lets
    the container's user reach the mounts. A tmpfs would not do: the runtime gives a tmpfs the mode of the
    folder it covers. The skeleton is made once per set of mount points and left (empty folders and files)."""
    from docker.types import Mount

    covers: list[Any] = []
    for home in HIDDEN_HOMES:
        inner = sorted({(str(m["Target"])[len(home):], os.path.isdir(str(m.get("Source", "")))) for m in mounts
                        if str(m.get("Target", "")).startswith(home + "/")})
        private = registry() if inner else None  # this user's own 0700 folder: nobody else plants anything there
        if private is None:
            continue
        name = hashlib.sha256(repr((home, inner)).encode()).hexdigest()[:24]
        skeleton = os.path.join(private, "homes", name)
        old = os.umask(0o022)
        try:
            for path, folder in inner:  # a file is bound over an empty file, a folder over a folder
                os.makedirs(skeleton + (path if folder else os.path.dirname(path)), mode=0o755, exist_ok=True)
                if not folder:
                    open(skeleton + path, "a").close()
        finally:
            os.umask(old)
        covers.append(Mount(target=home, source=skeleton, type="bind", read_only=True))
    return covers


def walls(api: Any, limits: Limits, mounts: list[Any], network: str, cpus: float, processes: int,
          tmp_mb: int) -> Any:
    """The host side of every container the arena makes, a bot's or an install or build step's: memory without
    swap, CPUs, a pids limit, a read-only root with a private tmpfs ``/tmp`` and ``/dev/shm``, no capabilities,
    no new privileges, ``limits`` as rlimits, no logging driver, and ``mounts`` (the caller's choice)."""
    from docker.types import LogConfig, Ulimit

    memory = limits.memory_mb * _MB
    return api.create_host_config(
        network_mode=network,
        mem_limit=memory,
        memswap_limit=memory,  # equal: no swap on top of the memory limit
        nano_cpus=int(cpus * 1e9),
        pids_limit=processes,
        read_only=True,
        tmpfs={"/tmp": f"rw,exec,nosuid,nodev,size={tmp_mb}m,mode=1777"},
        shm_size=tmp_mb * _MB,
        ipc_mode="private",
        cap_drop=["ALL"],
        security_opt=["no-new-privileges"],
        ulimits=[
            Ulimit(name="cpu", soft=limits.cpu_seconds, hard=limits.cpu_seconds + 1),
            Ulimit(name="fsize", soft=limits.file_size_mb * _MB, hard=limits.file_size_mb * _MB),
            Ulimit(name="nofile", soft=limits.open_files, hard=limits.open_files),
            Ulimit(name="core", soft=0, hard=0),
        ],
        log_config=LogConfig(type="none"),  # a flood of output cannot fill the engine's disk
        mounts=[*home_covers(mounts), *mounts],
        auto_remove=False,  # removed by the arena, after it read the exit status
    )


# ------------------------------------------------------------------ the channel
class ContainerProcess(Channel):
    """The channel to a bot in a container: one socket carrying stdin, stdout and stderr.

    The channel's semantics are :class:`~arena.sandbox.channel.Channel`'s; exit statuses
    are the engine's (128 + N for signal N, 137 for an OOM kill or our kill). The socket
    is read into ``_raw`` (bounded) and demultiplexed from there, stdout into the line
    buffer up to its cap and stderr into the tail, so stdout that does not fit yet waits
    in ``_raw`` rather than in a pipe.
    """

    def __init__(self, api: Any, container_id: str, attach: Any, sock: socket.socket, *,
                 limits: Limits, token: str, backend: str = "docker") -> None:
        """Wrap a started container and its attach stream (``sock`` is the plain socket under it)."""
        self._api = api
        self._id = container_id
        self._attach = attach
        self._sock = sock
        sock.setblocking(False)
        self._fd = sock.fileno()
        self._poll = select.poll()
        self._events = _POLLIN
        self._poll.register(self._fd, self._events)
        self._raw = bytearray()  # socket bytes not yet demultiplexed (< 2 * CHUNK)
        self._frame_stream = 0  # stream of the frame being read
        self._frame_left = 0  # payload bytes of that frame still to come
        self._discard_stdout = False  # set by close() and kill(): nobody will read lines any more
        self._skip_line = False  # after LineTooLong: drop stdout up to the next newline
        self._exit: int | None = None
        self._oom = False
        self._pid: int | None = None
        super().__init__(self._fd, limits=limits, token=token, backend=backend, label=container_id[:12])

    # ----------------------------------------------------------------- facts
    @property
    def pid(self) -> int:
        """Host pid of the container's main process (0 when it is not running)."""
        if self._pid is None and not self._dead:
            try:
                self._pid = int(self._api.inspect_container(self._id)["State"].get("Pid") or 0)
            except _api_errors():
                return 0
        return self._pid or 0

    @property
    def container_id(self) -> str:
        """The container's full id."""
        return self._id

    @property
    def oom_killed(self) -> bool:
        """True if the engine reported that the kernel's OOM killer ended the container."""
        return self._oom

    @property
    def returncode(self) -> int | None:
        """The container's exit status once it has exited (128 + N for signal N), else None."""
        return self._status(0.05)

    def wait_fds(self) -> tuple[int, ...]:
        """The attach socket while it is open: its readiness means ``readline`` may have news."""
        return () if self._exited or self._dead else (self._fd,)

    # ------------------------------------------------------------- the socket
    def _wait_send(self, timeout_ms: float) -> None:
        """Poll the socket for room, and for input while the buffers can take it."""
        self._watch(_POLLOUT | (_POLLIN if self._can_read() else 0))
        for _fd, events in self._poll.poll(timeout_ms):
            if events & _POLLIN:
                self._pump()

    def _pull(self, timeout_ms: float) -> int:
        """Demultiplex bytes already read if lines made room for them, else poll and read.

        Counts every socket byte (stderr too): stdout may come right behind a stderr frame.
        """
        if self._raw:
            before = len(self._buf)
            self._demux()
            if len(self._buf) != before:
                return len(self._buf) - before
        self._watch(_POLLIN)
        if self._can_read() and self._poll.poll(timeout_ms):
            return self._pump()
        return 0

    def _pull_stderr(self) -> int:
        """Read what the socket holds now: stderr comes framed together with stdout."""
        return self._pump()

    def _too_long(self) -> None:
        """Also drop the rest of the overlong line as it arrives.

        Dropping it (rather than taking it for a new line) keeps the socket flowing,
        so stderr queued behind the flood still reaches the tail.
        """
        self._skip_line = True
        super()._too_long()

    def _watch(self, events: int) -> None:
        """Poll the socket for ``events`` from now on."""
        if events != self._events:
            self._events = events
            self._poll.modify(self._fd, events)

    def _can_read(self) -> bool:
        """Whether reading the socket now can make progress (stream open, ``_raw`` not full)."""
        return not self._exited and len(self._raw) < CHUNK

    def _pump(self) -> int:
        """Read what the socket holds (non-blocking) and demultiplex it; returns bytes read.

        The end of the attach stream means the container's main process exited. What an earlier
        read left undemultiplexed goes first: the line buffer may have been full then (the overlong
        line now being skipped), and with ``_raw`` full nothing would be read, so stderr framed
        behind the flood would never reach the tail.
        """
        if self._raw:
            self._demux()
        got = 0
        while self._can_read():
            try:
                data = os.read(self._fd, CHUNK)
            except BlockingIOError:
                break
            except OSError:
                data = b""
            if not data:
                self._out_eof = self._exited = True
                break
            got += len(data)
            self._raw += data
            self._demux()
            if len(data) < CHUNK:
                break
        return got

    def _demux(self) -> None:
        """Split ``_raw`` into frames: stdout into the line buffer (up to its cap), stderr into the tail."""
        raw = self._raw
        size = len(raw)
        pos = 0
        while pos < size:
            if self._frame_left == 0:
                if size - pos < _FRAME_HEADER:
                    break
                self._frame_stream = raw[pos]
                self._frame_left = int.from_bytes(raw[pos + 4:pos + 8], "big")
                pos += _FRAME_HEADER
                continue
            n = min(self._frame_left, size - pos)
            if self._frame_stream == _STDOUT and self._skip_line and not self._discard_stdout:
                newline = raw.find(b"\n", pos, pos + n)
                if newline >= 0:
                    n = newline + 1 - pos
                    self._skip_line = False
            elif self._frame_stream == _STDOUT and not self._discard_stdout:
                n = min(n, self._cap - len(self._buf))
                if n <= 0:
                    break  # the caller must take lines (or hit LineTooLong) first
                self._buf += raw[pos:pos + n]
            elif self._frame_stream == _STDERR:
                self._keep_stderr(raw[pos:pos + n])
            pos += n
            self._frame_left -= n
        if pos:
            del raw[:pos]

    # ------------------------------------------------------------ exit status
    def _collect_exit(self, timeout: float) -> None:
        """Ask the engine for the exit status, waiting up to ``timeout`` for the container to stop."""
        if self._exit is not None:
            return
        try:
            code = int(self._api.wait(self._id, timeout=max(timeout, 0.01))["StatusCode"])
            if code == _KILLED:  # SIGKILL: maybe the kernel's OOM killer
                self._oom = bool(self._api.inspect_container(self._id)["State"].get("OOMKilled"))
        except (KeyError, TypeError, ValueError):
            return  # an answer we do not understand
        except _api_errors():
            return  # still running (it only closed its output), or gone
        self._exit = code

    def _status(self, wait: float) -> int | None:
        """Exit status, if the attach stream has ended, waiting up to ``wait`` for the engine to record it."""
        if self._exit is None and not self._dead:
            if not self._exited:
                self._pump()
            if self._exited:
                self._collect_exit(wait)
        return self._exit

    def _ended(self, what: str, deadline: float) -> ChannelClosed:
        """As ``Channel._ended``, but waiting up to :data:`EXIT_WAIT` for the engine (it returns as soon as the
        engine has the status; only a bot that closed its output and runs on costs the whole wait)."""
        return self._closed(what, min(EXIT_WAIT, max(0.05, deadline - time.monotonic())))

    def _closed(self, what: str, wait: float) -> ChannelClosed:
        """ChannelClosed for an ended stream, with the exit status and the reason when known."""
        code = self._status(wait)
        if self._oom:
            what += f" (out of memory: the container's {self._limits.memory_mb} MiB limit)"
        elif code is None and self._exited:
            what = "bot closed its stdout and stderr"
        return ChannelClosed(what, code)

    # -------------------------------------------------------------- shutdown
    def _shut_stdin(self) -> None:
        """Shut the socket's write side; the container runs with ``StdinOnce``, so the engine
        then closes the bot's stdin."""
        try:
            self._sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self, grace: float = 1.0) -> None:
        """As ``Channel.close``, dropping unread stdout from now on: the socket must be read to
        see the exit, and a bot that writes as it exits must not wait for a reader."""
        if not self._dead:
            self._discard_stdout = True
            self._buf.clear()
            self._scanned = 0
        super().close(grace)

    def _wait_exit(self, timeout_ms: float) -> bool:
        """Read the socket until the attach stream ends."""
        self._watch(_POLLIN)
        if self._poll.poll(timeout_ms) and not self._pump() and not self._exited:
            return False  # readable but nothing to read: should not happen, do not spin
        return True

    def _end(self) -> None:
        """Remove the container (``force``: the engine kills it first), keeping its stderr tail."""
        try:
            self._discard_stdout = True  # lines are of no use now; stderr behind them is
            self._drain_stderr()  # the last of stderr, and news of an exit
            if self._exited:
                self._collect_exit(0.5)  # it exited on its own: keep its status
        finally:
            removed = self._remove_reading()
            try:
                self._poll.unregister(self._fd)
            except (KeyError, ValueError, OSError):
                pass
            if self._exit is None:
                self._exit = _KILLED
            _close_attach(self._attach)
            self._out_eof = self._exited = True
            if not removed:
                warnings.warn(f"sandbox: container {self._id[:12]} could not be removed", RuntimeWarning)

    def _remove_reading(self) -> bool:
        """Remove the container while reading its attach stream to the end; True once it is gone.

        The engine copies the container's output into the attach stream until the stream ends,
        and removing a container waits for that copy. With nobody reading, a bot that floods
        stderr fills the socket, the copy blocks, and the removal would wait until the API call
        timed out (``API_TIMEOUT``, a minute a match). So the removal runs in a thread of its own
        while this one goes on reading (stdout dropped, stderr into the tail) until the stream
        ends, which it does as soon as the engine has killed the container.
        """
        done: list[bool] = []
        remover = threading.Thread(target=lambda: done.append(_remove(self._api, self._id)),
                                   name=f"{REMOVER_NAME} {self._id[:12]}", daemon=True)
        try:
            remover.start()
        except RuntimeError:  # no new threads at interpreter shutdown (Python 3.12+): remove unread
            return _remove(self._api, self._id)
        try:
            self._discard_stdout = True
            self._watch(_POLLIN)
            while remover.is_alive() and not self._exited:
                if self._poll.poll(50):
                    self._pump()
        except OSError:
            pass  # the socket is only read to keep the engine's copy moving; the removal decides
        finally:
            remover.join()
        return bool(done and done[0])
