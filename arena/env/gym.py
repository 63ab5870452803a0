"""One seat against a field, as a Gymnasium environment.

The learner plays ``seat``; every other seat is an opponent (an arena bot directory, run under the
sandbox as in a tournament, or a Python callable). An observation is the AEC environment's
(:mod:`.aec`): ``{"message", "observation", "action_mask"}``, an action an index into the message's
``legal``. ``info`` holds the seat's other messages since it last acted (``sent``), the legal actions
beyond the mask (``cut``), and at the end the match's ``result`` and the opponents' ``faults``. The
reward is 0 until the match ends, then the place's (1 first, -1 last).
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import gymnasium

from ..game.registry import DEFAULT_GAME
from ..match.link import TimeControl
from ..sandbox import Limits
from .aec import CaboEnv

__all__ = ["CaboGym"]


class CaboGym(gymnasium.Env):
    """See the module's docstring; made by :func:`arena.env.cabo_gym`."""

    metadata = {"render_modes": ["ansi"]}

    def __init__(self, opponents: Sequence[Any], seat: int = 0, preset: str = "standard",
                 options: Mapping[str, Any] | None = None, max_slots: int = 8, sandbox: str = "auto",
                 time: TimeControl | None = None, limits: Limits | None = None, fault_policy: str = "forfeit",
                 render_mode: str | None = None, game: str = DEFAULT_GAME) -> None:
        players = len(opponents) + 1
        if not 0 <= seat < players:
            raise ValueError(f"seat {seat} is not one of the {players} seats")
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
        super().reset(seed=seed)
        self.aec.reset(seed=seed)
        return self.aec.observe(self.agent), dict(self.aec.infos[self.agent])

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self.aec.step(action)
        done = self.aec.terminations[self.agent]
        return (self.aec.observe(self.agent), float(self.aec.rewards[self.agent]) if done else 0.0, done, False,
                dict(self.aec.infos[self.agent]))

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()
