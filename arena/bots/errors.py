"""The one error of bot handling, in a module of its own so that every part of ``arena.bots`` can raise it."""

from __future__ import annotations


class BotConfigError(ValueError):
    """A bot reference, manifest or build that cannot be used; the message says which and why."""
