"""The sandbox's one error family, so callers can catch transport trouble in one place.

Everything the transport raises derives from :class:`SandboxError`; a game runner
usually maps :class:`ChannelError` subclasses to "this bot forfeits" and lets the
rest (a backend that cannot run at all) stop the tournament.
"""

from __future__ import annotations


class SandboxError(Exception):
    """Base class of every error raised by ``arena.sandbox``."""


class SandboxUnavailable(SandboxError):
    """The requested backend cannot run on this machine; the message says why."""


class ChannelError(SandboxError):
    """Talking to a running bot failed; the bot, not the arena, is at fault."""


class ChannelTimeout(ChannelError):
    """The bot did not answer (or did not drain its stdin) before the deadline."""


class ChannelClosed(ChannelError):
    """The bot exited or closed its end of a pipe; ``returncode`` is set when known."""

    def __init__(self, message: str, returncode: int | None = None) -> None:
        super().__init__(message)
        self.returncode: int | None = returncode
        """Exit status of the bot's process (negative: killed by that signal), or None."""


class LineTooLong(ChannelError):
    """The bot wrote more than ``Limits.max_line_bytes`` bytes without a newline."""
