"""What a bot may use (``Limits``) and how to launch it (``LaunchSpec``).

Both are frozen, picklable value objects so a tournament can ship them to worker
processes and log them verbatim. ``apply_rlimits`` is the only code here that
touches the kernel; backends call it in the child between fork and exec, so the
limits bind the bot (and everything it starts) but never the arena.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

_MB = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """Per-bot resource caps: kernel rlimits in the child, byte caps in the arena."""

    cpu_seconds: int = 60
    """RLIMIT_CPU: CPU seconds the bot may burn per match (SIGXCPU, then SIGKILL 1 s later); a process
    serving a batch of N matches gets N times this."""

    memory_mb: int = 1024
    """RLIMIT_AS: address space per process in MiB; allocations beyond it fail."""

    file_size_mb: int = 16
    """RLIMIT_FSIZE: largest file a bot process may write, in MiB."""

    open_files: int = 64
    """RLIMIT_NOFILE: file descriptors per bot process."""

    processes: int = 64
    """Tasks (processes and threads) of the bot and everything it starts, at once: a pids cgroup
    where the arena can create one (see :mod:`arena.sandbox.cgroups`), the container's pids
    limit under docker."""

    tmp_mb: int = 64
    """Size of the bot's private ``/tmp`` (its ``HOME`` and ``TMPDIR``, and the cwd of a plain command
    line) under ``bwrap`` and ``docker``, a tmpfs there; under ``none`` it is a host directory and only
    ``file_size_mb`` bounds each file."""

    stderr_tail_bytes: int = 8192
    """How many trailing bytes of the bot's stderr the arena keeps (for error reports)."""

    log_bytes: int = 65536
    """How many trailing bytes of the bot's stderr the arena keeps per match, as the bot's log
    (0: none); the channel holds the last ``max(log_bytes, stderr_tail_bytes)`` bytes."""

    max_line_bytes: int = 1 << 20
    """Longest stdout line accepted; more bytes without a newline raise LineTooLong."""

    def __post_init__(self) -> None:
        for name in ("cpu_seconds", "memory_mb", "file_size_mb", "open_files", "processes", "tmp_mb", "max_line_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive int, got {value!r}")
        for name in ("stderr_tail_bytes", "log_bytes"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise ValueError(f"Limits.{name} must be an int >= 0, got {value!r}")


@dataclass(frozen=True)
class LaunchSpec:
    """Everything a backend needs to start one bot; plain data so it pickles."""

    command: tuple[str, ...]
    """Program and arguments, e.g. ``("/usr/bin/python3", "/abs/bots/foo/bot.py")``."""

    bot_dir: str | None = None
    """The bot's own directory (made readable, absolute path); None for a plain command line."""

    limits: Limits = field(default_factory=Limits)
    """Resource caps for this bot."""

    env: tuple[tuple[str, str], ...] = ()
    """Extra environment variables, on top of the scrubbed base environment."""

    image: str | None = None
    """Container image holding the program (the ``docker`` backend; other backends ignore it)."""

    hidden: tuple[str, ...] = ()
    """Host directories the bot must not see, e.g. the tournament's results and configuration
    (``bwrap`` hides them; ``none`` cannot; containers never see the host anyway)."""

    extra_paths: tuple[str, ...] = ()
    """Host directories the bot may read besides its own: its dependency environments. ``bwrap``
    and ``docker`` bind them read-only at the same path; ``none`` shows the bot everything anyway."""

    def __post_init__(self) -> None:
        command = tuple(self.command)
        if not command or not all(isinstance(a, str) and a and "\0" not in a for a in command[:1]):
            raise ValueError(f"LaunchSpec.command needs a non-empty program name, got {self.command!r}")
        if not all(isinstance(a, str) and "\0" not in a for a in command):
            raise ValueError(f"LaunchSpec.command must be strings without NUL, got {self.command!r}")
        object.__setattr__(self, "command", command)
        if self.bot_dir is not None:
            object.__setattr__(self, "bot_dir", os.path.abspath(self.bot_dir))
        object.__setattr__(self, "hidden", tuple(os.path.abspath(p) for p in self.hidden))
        object.__setattr__(self, "extra_paths", tuple(os.path.abspath(p) for p in self.extra_paths))
        env = self.env.items() if isinstance(self.env, Mapping) else self.env
        object.__setattr__(self, "env", _check_env(env))
        if not isinstance(self.limits, Limits):
            raise TypeError(f"LaunchSpec.limits must be a Limits, got {type(self.limits).__name__}")
        if self.image is not None and (not isinstance(self.image, str) or not self.image
                                       or any(c.isspace() or c == "\0" for c in self.image)):
            raise ValueError(f"LaunchSpec.image must be an image reference like 'name:tag', got {self.image!r}")


def _check_env(pairs: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """Normalise env pairs to a tuple and reject names the kernel would mangle."""
    out: list[tuple[str, str]] = []
    for key, value in pairs:
        if not key or "=" in key or "\0" in key or "\0" in value:
            raise ValueError(f"invalid environment variable {key!r}={value!r}")
        out.append((str(key), str(value)))
    return tuple(out)


def _set(which: int, value: int) -> None:
    """Set soft and hard limit, never above the current hard limit (non-root cannot raise it)."""
    _soft, hard = resource.getrlimit(which)
    if hard != resource.RLIM_INFINITY:
        value = min(value, hard)
    resource.setrlimit(which, (value, value))


def apply_rlimits(limits: Limits) -> None:
    """Apply ``limits`` to the calling process; meant for the child between fork and exec."""
    # CPU: soft limit sends SIGXCPU; the hard limit one second later is SIGKILL, so a bot
    # that catches SIGXCPU still dies.
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    cpu_hard = limits.cpu_seconds + 1
    if hard != resource.RLIM_INFINITY:
        cpu_hard = min(cpu_hard, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (min(limits.cpu_seconds, cpu_hard), cpu_hard))
    _set(resource.RLIMIT_AS, limits.memory_mb * _MB)
    _set(resource.RLIMIT_FSIZE, limits.file_size_mb * _MB)
    _set(resource.RLIMIT_NOFILE, limits.open_files)
    _set(resource.RLIMIT_CORE, 0)  # a crashing bot must not litter the disk with cores
