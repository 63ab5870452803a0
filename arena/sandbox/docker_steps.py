"""Install and build steps (:mod:`arena.sandbox.steps`) in a container: ``DockerBackend.run_step``.

A step runs what a bot's author wrote (``setup.py``, npm scripts, a manifest's ``build``),
so under ``docker`` it gets a fresh container of ``Step.image`` walled in as a bot's
(``docker.py``): uid/gid 65534, ``cap_drop=ALL``, ``no-new-privileges``, a read-only root,
a tmpfs ``/tmp`` of ``Limits.tmp_mb`` (``HOME``, ``TMPDIR``), a memory cgroup without swap,
a pids limit, the ``Limits`` as rlimits, no logging driver, and the arena's labels, so
:func:`~arena.sandbox.docker.cleanup_stale` removes the container of a killed arena.
Only the caps are the step's own (:data:`~arena.sandbox.steps.STEP_LIMITS`: compilers
need more than a bot).

What it may touch is the step's: ``Step.writable`` bound read-write and ``Step.readable``
read-only, each at its host path (those that exist), and each of ``Step.copies`` (a build's
private copy of the bot directory) read-write at its original's path, so paths in its command and
environment mean the same inside and out, and what it writes is owned by uid 65534 on the
host. Never the engine's socket nor ``/``: a step that can reach the engine owns the host.

Network: none (``network_mode=none``), for a fetch too: a fetch (``Step.network``) keeps
the container's own loopback, where its relay listens, and reaches the package indexes
through the fetch gate's socket (:mod:`arena.sandbox.gate`), bound in read-only with its
paths; nothing else on the engine's bridge, the host or its networks.

Output: stdout and stderr, read from the attach socket (attached before the start, as for
bots, so nothing is lost) and demultiplexed, go into the log as they come, up to
:data:`OUTPUT_LIMIT` bytes; the rest is read and dropped, so a flood fills neither memory
nor disk and the step is not blocked on a full pipe. Every outcome ends with the
container removed: exit, timeout (status :data:`~arena.sandbox.steps.TIMED_OUT`), an
engine error, Ctrl-C.
"""

from __future__ import annotations

import codecs
import os
import secrets
import select
import socket
import time
from typing import IO, Any

from .docker import (
    LABEL,
    OWNER_LABEL,
    OWNER_START_LABEL,
    DockerBackend,
    _api_errors,
    _cleanup_once,
    _close_attach,
    _raw_socket,
    _remove,
    _short,
    connect,
    engine_address,
    owner,
    walls,
)
from .errors import SandboxError, SandboxUnavailable
from .reaper import process_start
from .steps import TIMED_OUT, Step

STEP_LABEL = "cabo-arena.step"
"""Label naming the step a container runs (``docker ps -a --filter label=cabo-arena.step``)."""
OUTPUT_LIMIT = 4 * 1024 * 1024
"""Bytes of a step's output kept in its log; the rest is dropped."""
STATUS_WAIT = 10.0
"""Seconds the engine has to report the exit status once the output has ended."""

_MB = 1024 * 1024
_FRAME_HEADER = 8
_READ = 65536
_CANNOT_RUN = 127  # as a shell (and ``docker run``) for a program that is not there
_NOT_EXECUTABLE = 126
_ENGINE_ERROR = 125  # as ``docker run`` when the engine fails


def run_step(backend: DockerBackend, step: Step, log: IO[str], *, output_limit: int = OUTPUT_LIMIT) -> int:
    """Run ``step`` in a fresh container with its output in ``log``; its exit status (124: timed out).

    Raises SandboxUnavailable without an image or engine, SandboxError for a step or image the engine
    cannot take; the container is gone when this returns or raises.
    """
    end = time.monotonic() + step.timeout
    image = step.image or backend.image
    what = step.label or " ".join(step.argv[:1]) or "the step"
    if not image:
        raise SandboxUnavailable(
            f"the docker sandbox needs an image to run {what}: set 'image' in the bot's bot.yaml (an image on "
            "the engine with the tools the step runs; see docs/sandbox.md#docker)")
    _check(step, what)
    from docker.errors import APIError, ImageNotFound

    client = connect()
    _cleanup_once(client)
    api = client.api
    name = f"cabo-arena-step-{secrets.token_hex(8)}"  # to remove it when the create call is interrupted
    try:
        container_id = api.create_container_from_config(_config(api, backend, step, image), name=name)["Id"]
    except ImageNotFound:
        raise SandboxError(f"docker image {image!r} is not on the engine; build or load it first "
                           "(docker build / docker load / docker import)") from None
    except _api_errors() as exc:
        _remove(api, name)
        raise SandboxError(f"cannot create a container for {what} from image {image!r}: {_short(exc)}") from None
    except BaseException:  # Ctrl-C while the engine may already have made it
        _remove(api, name)
        raise
    attach: Any = None
    out = _Output(log, output_limit)
    try:
        attach = api.attach_socket(container_id, params={"stdout": 1, "stderr": 1, "stream": 1})
        sock = _raw_socket(attach)
        try:
            api.start(container_id)
        except APIError as exc:  # the program is missing or not executable: the step's fault, as in a shell
            text = _short(exc)
            if "not found" not in text and "no such file" not in text.lower() and "permission denied" not in text:
                raise
            out.note(f"cannot run {step.argv[0]} in image {image}: {text}")
            return _NOT_EXECUTABLE if "permission denied" in text else _CANNOT_RUN
        if not _copy(sock, end, out):
            out.note(f"(stopped: {what} took over {step.timeout:g} s)")
            return TIMED_OUT
        return _status(api, container_id, step, out)
    except _api_errors() as exc:
        raise SandboxError(f"the engine failed running {what} in image {image!r}: {_short(exc)}") from None
    finally:
        if attach is not None:
            _close_attach(attach)
        if not _remove(api, container_id):
            out.note(f"(container {container_id[:12]} could not be removed: docker rm -f {container_id[:12]})")


def _check(step: Step, what: str) -> None:
    """One clear SandboxError for a step the container cannot express or must not get."""
    if not step.argv:
        raise SandboxError(f"{what}: the step has no command")
    if not os.path.isabs(step.cwd):
        raise SandboxError(f"{what}: the working directory must be an absolute path, got {step.cwd!r}")
    engine = engine_address()
    sock = os.path.realpath(engine[len("unix://"):]) if engine.startswith("unix://") else None
    for path in (*step.writable, *step.readable, *(p for pair in step.copies for p in pair)):
        if not os.path.isabs(path):
            raise SandboxError(f"{what}: the mount {path!r} must be an absolute path")
        real = os.path.realpath(path)
        if real == "/" or (sock and (sock == real or sock.startswith(real.rstrip("/") + "/"))):
            raise SandboxError(f"{what}: will not mount {path!r} in its container: it holds the Docker "
                               f"engine's socket ({sock}) or the whole host; name narrower paths")


def _config(api: Any, backend: DockerBackend, step: Step, image: str) -> Any:
    """The step's container: the walls of a bot's (``docker.py``) with the step's caps, mounts and network."""
    from docker.types import Mount

    limits = step.limits
    mounts, seen = [], set()
    pairs = [(copy, original, False) for copy, original in step.copies]  # first: a copy stands in for its original
    pairs += [(path, path, read_only) for paths, read_only in ((step.writable, False), (step.readable, True))
              for path in paths]
    for source, target, read_only in pairs:
        source, target = os.path.normpath(source), os.path.normpath(target)
        if target not in seen and os.path.exists(source):
            seen.add(target)
            mounts.append(Mount(target=target, source=source, type="bind", read_only=read_only))
    # No step has a network: a fetch's relay listens on the container's own loopback (which "none"
    # brings up) and reaches the indexes through the gate's socket, bound in with the step's paths.
    host_config = walls(api, limits, mounts, network="none", cpus=backend.cpus, processes=limits.processes,
                        tmp_mb=limits.tmp_mb)
    env = {"HOME": "/tmp", "TMPDIR": "/tmp", "LANG": "C.UTF-8"}
    env.update(step.env)
    labels = {LABEL: "1", OWNER_LABEL: owner(), STEP_LABEL: (step.label or step.argv[0])[:200]}
    started = process_start(os.getpid())
    if started:
        labels[OWNER_START_LABEL] = started
    return api.create_container_config(
        image=image, command=list(step.argv), entrypoint=[""], user=backend.step_user(), working_dir=step.cwd,
        environment=[f"{k}={v}" for k, v in env.items()], labels=labels, stdin_open=False, tty=False,
        network_disabled=not step.network, host_config=host_config,
    )


class _Output:
    """The log side: demultiplexed bytes in, text out, at most ``limit`` bytes of it, then one line."""

    def __init__(self, log: IO[str], limit: int) -> None:
        self._log = log
        self._left = limit
        self._limit = limit
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        self._frame_left = 0
        self._header = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        """Take bytes of the attach stream (8-byte frame headers, then payload) and log the payload."""
        pos, size = 0, len(data)
        kept = bytearray()
        while pos < size:
            if self._frame_left == 0:
                need = _FRAME_HEADER - len(self._header)
                self._header += data[pos:pos + need]
                pos += min(need, size - pos)
                if len(self._header) == _FRAME_HEADER:
                    self._frame_left = int.from_bytes(self._header[4:8], "big")
                    self._header.clear()
                continue
            n = min(self._frame_left, size - pos)
            kept += data[pos:pos + n]
            pos += n
            self._frame_left -= n
        self._write(bytes(kept))

    def _write(self, payload: bytes) -> None:
        if not payload:
            return
        if self._left <= 0:
            self.dropped += len(payload)
            return
        take = payload[:self._left]
        self._left -= len(take)
        text = self._decoder.decode(take, final=self._left <= 0)
        if self._left <= 0:
            self.dropped += len(payload) - len(take)
            text += (f"\n(output cut: the step wrote more than {self._limit // _MB or self._limit} "
                     f"{'MiB' if self._limit >= _MB else 'bytes'}; the rest is not kept)\n")
        self._log.write(text)
        self._log.flush()

    def note(self, line: str) -> None:
        """A line of the arena's own (why the step stopped), on a line of its own."""
        text = self._decoder.decode(b"", final=True)
        self._log.write(f"{text}\n{line}\n")
        self._log.flush()


def _copy(sock: socket.socket, end: float, out: _Output) -> bool:
    """Move the attach stream into ``out`` until it ends (True) or ``end`` passes (False)."""
    sock.setblocking(False)
    poller = select.poll()
    poller.register(sock.fileno(), select.POLLIN)
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return False
        if not poller.poll(min(left, 1.0) * 1000):
            continue
        try:
            data = sock.recv(_READ)
        except (BlockingIOError, InterruptedError):
            continue
        except OSError:
            data = b""
        if not data:
            return True
        out.feed(data)


def _status(api: Any, container_id: str, step: Step, out: _Output) -> int:
    """The exit status the engine reports once the output ended, with a line for an OOM kill."""
    try:
        code = int(api.wait(container_id, timeout=STATUS_WAIT)["StatusCode"])
    except (KeyError, TypeError, ValueError) + _api_errors() as exc:
        out.note(f"(the engine did not report the exit status: {_short(exc)})")
        return _ENGINE_ERROR
    if code == 137:
        try:
            oom = bool(api.inspect_container(container_id)["State"].get("OOMKilled"))
        except (KeyError, TypeError) + _api_errors():
            oom = False
        if oom:
            out.note(f"(killed: out of memory, the step's limit is {step.limits.memory_mb} MiB)")
    return code
