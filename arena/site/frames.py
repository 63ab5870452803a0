"""Replay frames for the viewer: a match, step by step, omniscient and as each seat saw it.

The frames are the game's (:meth:`arena.game.seam.Game.frames`): a replay's header names its game
(none: Cabo), and that game rebuilds the match and says what each step shows. Cabo's frames and
their format are described in :mod:`arena.game.cabo_frames`; a game without a drawing of its own
gives :mod:`arena.game.plain`'s, which the viewer shows as text. This module reads the file and
turns whatever stops a rebuild into one :class:`ReplayError` naming it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Iterable, Sequence

from ..game.cabo_frames import FORMAT, SLOWEST
from ..game.plain import PLAIN_FORMAT
from ..game.registry import DEFAULT_GAME, UnknownGame, game_named
from ..game.replay import ReplayError, load_replay
from ..luck.replayed import LuckReplayError, replayed_terms

__all__ = ["FORMAT", "FORMATS", "SLOWEST", "build_frames", "frames_for_file", "frames_of", "read_replay_file"]

FORMATS = (FORMAT, PLAIN_FORMAT)
"""The frame formats this arena writes (Cabo's, and any other game's as text): an earlier build's script in
another is made anew."""


def read_replay_file(path: Path) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Header and records of a replay file, gzip-compressed or not, read within the bounds of
    :func:`arena.game.replay.load_replay` (a :class:`ReplayError` naming the file otherwise)."""
    return load_replay(path)


def frames_for_file(path: Path, times: Sequence[float | None] | None = None) -> dict[str, Any]:
    """The frames of a replay file; a :class:`ReplayError` naming it if it cannot be read or its actions
    do not rebuild a match."""
    header, records = read_replay_file(path)
    return frames_of(path, header, records, times)


def frames_of(path: Path, header: dict[str, Any], records: list[dict[str, Any]],
              times: Sequence[float | None] | None = None) -> dict[str, Any]:
    """:func:`build_frames`, with whatever stops the rebuild (an illegal action, unknown rules or game, a
    file that ends before its match does) as one :class:`ReplayError` naming ``path``."""
    try:
        return build_frames(header, records, times)
    except UnknownGame as exc:
        raise ReplayError(f"{path}: {exc}; it cannot be shown by this arena") from None
    except LuckReplayError as exc:  # the meter's rebuild met it first, and says it the same way
        raise ReplayError(f"{path}: {exc}; it cannot be shown") from None
    except (ValueError, KeyError, TypeError, IndexError, AssertionError) as exc:
        text = str(exc) or type(exc).__name__
        raise ReplayError(f"{path}: its actions do not rebuild a match here ({text}); it cannot be shown") from None


def build_frames(header: dict[str, Any], records: Iterable[dict[str, Any]],
                 times: Sequence[float | None] | None = None) -> dict[str, Any]:
    """The viewer's frames of a replay, by the game its header names; ``times``: the milliseconds of each
    decision in order (None: not the bot's choice), as the results store keeps them, or None. The luck of
    each card is measured again on the way (the worker's frames have it from the match it metered)."""
    records = list(records)
    game = game_named(header.get("game", DEFAULT_GAME))
    return game.frames(header, records, times, replayed_terms(header, records))
