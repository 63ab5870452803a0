"""The one place where the library's refusals that any command may meet become one-line CLI errors.

A damaged results store (:class:`~arena.tournament.store.StoreDamaged`, raised wherever the
damage shows: opening it, or reading a row halfway through a command) and an unreadable
replay (:class:`~arena.game.replay.ReplayError`) are refused the same way by every command,
so each command need not catch them at every call.
"""

from __future__ import annotations

from typing import Any

import click


class ArenaGroup(click.Group):
    """A click group whose commands report a damaged store or an unreadable replay in one line."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except click.ClickException:
            raise
        except Exception as exc:
            from .game.replay import ReplayError
            from .tournament.store import StoreMismatch  # here: the store pulls in the tournament machinery

            if isinstance(exc, (StoreMismatch, ReplayError)):
                raise click.ClickException(str(exc)) from None
            raise
