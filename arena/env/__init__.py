"""Train and experiment against the arena in Python: Cabo as a PettingZoo AEC environment (every seat
without an opponent an agent) and as a Gymnasium environment (one seat against a field).

Observations are the protocol's own ``act`` messages, made as the arena makes them for a bot in the
seat, with a fixed-size vector and a legal-action mask (:mod:`.encode`); opponents are arena bot
directories, run as subprocesses under the sandbox exactly as in a tournament, or Python callables.
Needs ``pip install 'cabo-arena[env]'`` (PettingZoo, Gymnasium, NumPy). See docs/training.md.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from .opponents import random_policy

__all__ = ["cabo_env", "cabo_gym", "random_policy"]


def cabo_env(preset: str = "standard", players: int = 4, options: Mapping[str, Any] | None = None,
             opponents: Mapping[int, Any] | None = None, **settings: Any) -> Any:
    """A PettingZoo AEC environment of Cabo under ``preset`` (``standard`` or ``espanola``) and its rule
    ``options``, ``players`` seats (2-5); ``opponents`` by seat (a bot directory or a callable), the other seats
    agents ``player_<seat>``. ``settings``: ``max_slots`` (8), ``sandbox`` (``auto``), ``time``
    (:class:`arena.match.link.TimeControl`), ``limits``, ``fault_policy``, ``render_mode``."""
    from .aec import CaboEnv

    return CaboEnv(preset, players, options, opponents, **settings)


def cabo_gym(opponents: Sequence[Any], seat: int = 0, preset: str = "standard",
             options: Mapping[str, Any] | None = None, **settings: Any) -> Any:
    """A Gymnasium environment: the learner in ``seat`` against ``opponents`` (bot directories or callables) in
    the other seats, in order; ``settings`` as :func:`cabo_env`'s."""
    from .gym import CaboGym

    return CaboGym(opponents, seat, preset, options, **settings)
