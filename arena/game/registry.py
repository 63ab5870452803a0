"""Games by name: the one place the arena looks a game up.

A tournament file's ``game:``, a match job and a replay header carry a game's name, never the
game itself, so jobs stay small and picklable and a replay names what rebuilds it. Cabo is
registered as ``cabo`` on import; another game is one :func:`register_game` call (in the
module that defines it, or a test's fixture), and nothing else in the arena changes.
"""

from __future__ import annotations

from ..suggest import did_you_mean
from .cabo import CABO
from .seam import Game

DEFAULT_GAME = "cabo"
"""The game of a tournament file without ``game:``, a job or a replay that names none."""

_GAMES: dict[str, Game] = {}


class UnknownGame(LookupError):
    """A game name no game is registered under; the message lists those that are."""


def register_game(game: Game) -> None:
    """Make ``game`` known by its name; registering a name again replaces the game (tests re-register)."""
    _GAMES[game.name] = game


def game_named(name: str) -> Game:
    """The game registered as ``name``; :class:`UnknownGame` with a "did you mean" otherwise."""
    try:
        return _GAMES[name]
    except (KeyError, TypeError):
        raise UnknownGame(f"unknown game {name!r}{did_you_mean(name, tuple(_GAMES))}; "
                          f"expected one of {' | '.join(_GAMES)}") from None


def games() -> tuple[str, ...]:
    """Names of the registered games, in registration order."""
    return tuple(_GAMES)


register_game(CABO)
