"""Sandboxed bot processes: the arena's transport layer.

It starts a bot under a backend (``none``, ``bwrap``, ``docker``), moves
bytes and lines to and from it with deadlines through a :class:`Channel` (the pipes of
a ``BotProcess``, the socket of a ``ContainerProcess``), and kills it together with
every process it started. It knows nothing of JSON or the game. See docs/sandbox.md.

Typical use::

    backend, why = resolve_backend("auto")
    with backend.start(LaunchSpec(("/usr/bin/python3", "/abs/bot.py"), "/abs")) as bot:
        bot.send(b'{"hello": 1}\\n', time.monotonic() + 1.0)
        reply = bot.readline(time.monotonic() + 1.0)
"""

from .backends import (
    BACKEND_NAMES,
    Backend,
    BwrapBackend,
    NoneBackend,
    get_backend,
    resolve_backend,
)
from .channel import Channel
from .docker import ContainerProcess, DockerBackend, cleanup_stale
from .errors import (
    ChannelClosed,
    ChannelError,
    ChannelTimeout,
    LineTooLong,
    SandboxError,
    SandboxUnavailable,
)
from .limits import LaunchSpec, Limits
from .process import BotProcess

__all__ = [
    "BACKEND_NAMES",
    "Backend",
    "BotProcess",
    "BwrapBackend",
    "Channel",
    "ChannelClosed",
    "ChannelError",
    "ChannelTimeout",
    "ContainerProcess",
    "DockerBackend",
    "LaunchSpec",
    "Limits",
    "LineTooLong",
    "NoneBackend",
    "SandboxError",
    "SandboxUnavailable",
    "cleanup_stale",
    "get_backend",
    "resolve_backend",
]
