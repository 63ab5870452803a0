"""One seat against a field, as a Gymnasium environment.

The learner plays ``seat``; every other seat is an opponent (an arena bot directory, run under the
sandbox as in a tournament, or a Python callable). An observation is the AEC environment's
(:mod:`.aec`): ``{"message", "observation", "action_mask"}``, an action an index into the message's
``legal``. ``info`` holds the seat's other messages since it last acted (``sent``), the legal actions
beyond the mask (``cut``), and at the end the match's ``result`` and the opponents' ``faults``. The
reward is 0 until the match ends, then the place's (1 first, -1 last).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import gymnasium

from ..game.registry import DEFAULT_GAME
from ..match.link import TimeControl
from ..sandbox import Limits
from .aec import RENDER_MODES, CaboEnv
from .checks import game_of, integer, reset_seed, shown
from .encode import MAX_PLAYERS

__all__ = ["CaboGym"]


class CaboGym(gymnasium.Env):
    """See the module's docstring; made by :func:`arena.env.cabo_gym`."""

    metadata = {"render_modes": list(RENDER_MODES)}

    def __init__(self, opponents: Sequence[Any], seat: int = 0, preset: str = "standard",
                 options: Mapping[str, Any] | None = None, max_slots: int = 8, sandbox: str = "auto",
                 time: TimeControl | None = None, limits: Limits | None = None, fault_policy: str = "forfeit",
                 render_mode: str | None = None, game: str = DEFAULT_GAME) -> None:
        players = seats_of_field(opponents, game)
        seat = integer("seat", seat, 0, players - 1)
        others = [s for s in range(players) if s != seat]
        self.aec = CaboEnv(preset, players, options, dict(zip(others, opponents)), max_slots, sandbox, time, limits,
                           fault_policy, render_mode, game)
        self.agent, self.seat = f"player_{seat}", seat
        self.values: Mapping[str, int] = self.aec.values
        """Every card's value under the rules, as ``hello`` says: what a policy adds up."""
        self.observation_space = self.aec.observation_space(self.agent)
        self.action_space = self.aec.action_space(self.agent)
        self.render_mode = render_mode

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        seed = reset_seed(seed, options)
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        return self.aec.observe(self.agent), dict(self.aec.infos[self.agent])

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Play ``action``, an index into the message's ``legal``; a :class:`ValueError` once the match is over."""
        if self.aec.table.over:
            raise ValueError("step(action) was called after the match ended; call reset() for a new one")
        self.aec.step(action)
        done = self.aec.terminations[self.agent]
        return (self.aec.observe(self.agent), float(self.aec.rewards[self.agent]) if done else 0.0, done, False,
                dict(self.aec.infos[self.agent]))

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def seats_of_field(opponents: Any, game: Any) -> int:
    """The seats of a match against ``opponents``: a list (never a str, which is one bot directory, or a mapping)
    of one opponent for each other seat."""
    found = game_of(game)
    most = min(found.max_players, MAX_PLAYERS) - 1
    allowed = (f"a list of {found.min_players - 1} to {most} opponents, one for each other seat in order "
               "(a bot directory or a callable each)")
    if isinstance(opponents, (str, bytes, Mapping)) or not isinstance(opponents, Sequence):
        raise TypeError(f"opponents must be {allowed}, got {shown(opponents)}")
    if not found.min_players - 1 <= len(opponents) <= most:
        raise ValueError(f"opponents must be {allowed}, got {len(opponents)}")
    return len(opponents) + 1
