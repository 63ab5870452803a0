"""Cabo as a PettingZoo AEC environment: every seat not given an opponent is an agent.

Agent ``player_s`` plays seat s. Its observation is ``{"message", "observation", "action_mask"}``: the
``act`` message the arena would send a bot in that seat now (:mod:`.table`), its vector and the mask of
its legal indices (:mod:`.encode`); its action is an index into the message's ``legal``. Where the
rules ask several seats at once (the initial look, a claim window) each is selected in turn and shown
the moment before any of them chose, as bots are. ``infos[agent]["sent"]`` holds the seat's other
messages since it last acted (``hello`` first, then ``update`` and ``over``), ``infos[agent]["cut"]``
the legal actions beyond the mask (0 unless a hand grew past ``max_slots``). The reward comes at the
end, from the seat's place: 1 for first, -1 for last, evenly between (``infos[agent]["result"]``
holds the totals and places).
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from typing import Any

import gymnasium
import numpy as np
from pettingzoo import AECEnv

from ..bounds import MAX_BANK_MS, MAX_MOVE_MS
from ..game.registry import DEFAULT_GAME
from ..match.faults import FAULT_POLICIES
from ..match.link import TimeControl
from ..sandbox import BACKEND_NAMES, Limits
from .checks import game_of, integer, legal_index, one_of, optional, reset_seed
from .encode import MAX_PLAYERS, action_count, encode, mask, slots_of
from .opponents import opponent_of
from .spaces import observation_space
from .table import Table, draw_seed

__all__ = ["RENDER_MODES", "CaboEnv", "place_reward"]

RENDER_MODES = ("ansi",)
"""The ``render_mode`` values the environments draw (or None: no drawing)."""


def place_reward(place: int, players: int) -> float:
    """1 for first place, -1 for last, evenly between (a shared place shares its reward)."""
    players = integer("players", players, 2)
    place = integer("place", place, 1, players)
    return 1.0 - 2.0 * (place - 1) / (players - 1)


class CaboEnv(AECEnv):  # type: ignore[misc]
    """See the module's docstring; made by :func:`arena.env.cabo_env`."""

    metadata = {"name": "cabo_v0", "render_modes": list(RENDER_MODES), "is_parallelizable": False}

    def __init__(self, preset: str = "standard", players: int = 4, options: Mapping[str, Any] | None = None,
                 opponents: Mapping[int, Any] | None = None, max_slots: int = 8, sandbox: str = "auto",
                 time: TimeControl | None = None, limits: Limits | None = None, fault_policy: str = "forfeit",
                 render_mode: str | None = None, game: str = DEFAULT_GAME) -> None:
        super().__init__()
        found = game_of(game)
        players = integer("players", players, found.min_players, min(found.max_players, MAX_PLAYERS))
        one_of("preset", preset, found.preset_names())
        optional("options", options, Mapping, "a mapping of rule option to value")
        given = seats_given(opponents, players)
        max_slots = slots_of(max_slots)
        check_settings(sandbox, time, limits, fault_policy)
        one_of("render_mode", render_mode, (None, *RENDER_MODES))
        self.rules = found.make_rules(preset, dict(options or {}))
        self.players, self.max_slots, self.render_mode = players, max_slots, render_mode
        self.table = Table(self.rules, players, {seat: opponent_of(o, sandbox, time, limits) for seat, o in given.items()},
                           time, fault_policy, game=game)
        self.possible_agents = [f"player_{seat}" for seat in self.table.learners]
        self.values = found.hello_fields(self.rules, 0, players).get("values", {})
        space = observation_space(self.rules, players, max_slots, game)
        self.observation_spaces = {agent: space for agent in self.possible_agents}
        self.actions = action_count(players, max_slots)
        self.action_spaces = {agent: gymnasium.spaces.Discrete(self.actions) for agent in self.possible_agents}
        self.seeds = random.Random()
        self._shown: dict[str, dict[str, Any]] = {}

    def observation_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        one_of("observation_space(agent)", agent, self.possible_agents)
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space[Any]:
        one_of("action_space(agent)", agent, self.possible_agents)
        return self.action_spaces[agent]

    @staticmethod
    def seat_of(agent: str) -> int:
        return int(agent.rsplit("_", 1)[1])

    # ------------------------------------------------------------------ the AEC loop

    def reset(self, seed: int | None = None, options: Mapping[str, Any] | None = None) -> None:
        """A new deal: from ``seed``, or the next seed of the environment's own stream (seeded by the last
        ``seed`` given, so a run is reproducible from its first reset)."""
        seed = reset_seed(seed, options)
        if seed is not None:
            self.seeds.seed(seed)
        self.table.reset(draw_seed(self.seeds))
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {"sent": [], "cut": 0} for agent in self.agents}
        self._shown = {}
        self._select()

    def observe(self, agent: str) -> dict[str, Any]:
        self._started("observe(agent)")
        one_of("observe(agent)", agent, self.possible_agents)
        seat = self.seat_of(agent)
        asked = not self.table.over and seat in self.table.waiting()
        message = self.table.message(seat) if asked else self._shown.get(agent)
        if message is None:  # never asked yet: the space's own example, masked out
            message = self.observation_spaces[agent]["message"].sample()
        self._shown[agent] = message
        legal, _ = mask(message, self.actions)
        return {"message": message, "observation": encode(message, self.values, self.players, self.max_slots),
                "action_mask": legal if agent == self.agent_selection and asked else np.zeros_like(legal)}

    def last(self, observe: bool = True) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        self._playing("last()")
        return super().last(observe)  # type: ignore[no-any-return]

    def step(self, action: Any) -> None:
        """Play ``action``, an index into the selected agent's ``legal`` (None once its match is over)."""
        self._playing("step(action)")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise ValueError(f"step(action) must be None for {agent}: its match is over, got {action!r}")
            self._was_dead_step(action)
            return
        seat = self.seat_of(agent)
        message = self.table.message(seat)
        index = legal_index("step(action)", action, seat, len(message["legal"]))
        self._cumulative_rewards[agent] = 0.0
        self._shown[agent] = message
        self.table.choose(seat, index)
        self._select()

    def _started(self, call: str) -> None:
        """A :class:`ValueError` for ``call`` before the first reset: there is no match to show or play yet."""
        if self.table.match is None:
            raise ValueError(f"{call} was called before reset(): there is no match yet; call reset() first")

    def _playing(self, call: str) -> None:
        """As :meth:`_started`, and after every agent has stepped out of an ended match."""
        self._started(call)
        if not self.agents:
            raise ValueError(f"{call} was called after every agent left the ended match; call reset() for a new one")

    def _select(self) -> None:
        """The next agent asked, with its messages since it last looked; at the end, every agent's reward."""
        table = self.table
        if table.over:
            assert table.result is not None
            for agent in self.agents:
                seat = self.seat_of(agent)
                self.rewards[agent] = place_reward(table.result["places"][seat], self.players)
                self.terminations[agent] = True
                earlier: list[dict[str, Any]] = self.infos[agent].get("sent", [])
                self.infos[agent] = {"sent": earlier + table.sent(seat), "cut": 0,
                                     "result": table.result, "faults": list(table.faults)}
            self._accumulate_rewards()
            self.agent_selection = self.agents[0]
            return
        for agent in self.agents:
            self.rewards[agent] = 0.0
        seat = table.waiting()[0]
        self.agent_selection = f"player_{seat}"
        _, cut = mask(table.message(seat), self.actions)
        self.infos[self.agent_selection] = {"sent": table.sent(seat), "cut": cut}

    def render(self) -> str | None:
        """The selected agent's view as text (``render_mode="ansi"``)."""
        if self.render_mode != "ansi" or self.table.match is None:
            return None
        seat = self.seat_of(self.agent_selection)
        state = self._shown.get(self.agent_selection, {}).get("state")
        return f"seat {seat}: {state}" if state else f"seat {seat}: not asked yet"

    def close(self) -> None:
        self.table.close()


def seats_given(opponents: Any, players: int) -> dict[int, Any]:
    """``opponents`` checked: by seat (0 to ``players`` - 1, as plain ints), leaving the agents a seat at least."""
    optional("opponents", opponents, Mapping, "a mapping of seat to opponent ({1: 'bots/random'})")
    given = {integer("opponents' seat", seat, 0, players - 1): opponent
             for seat, opponent in (opponents or {}).items()}
    if len(given) >= players:
        raise ValueError(f"opponents must leave at least one of the {players} seats to the agents, got one for each")
    return given


def check_settings(sandbox: Any, time: Any, limits: Any, fault_policy: Any) -> None:
    """How bot opponents run, checked when the environment is made (before any bot is built), whether or not
    it has any: ``sandbox`` as ``arena run --sandbox`` takes it, ``time`` within a tournament file's bounds."""
    one_of("sandbox", sandbox.strip().lower() if isinstance(sandbox, str) else sandbox, BACKEND_NAMES)
    optional("time", time, TimeControl, "a TimeControl")
    if time is not None:
        integer("time.move_ms", time.move_ms, 1, MAX_MOVE_MS)
        integer("time.startup_ms", time.startup_ms, 1, MAX_MOVE_MS)
        if time.bank_ms is not None:
            integer("time.bank_ms", time.bank_ms, 0, MAX_BANK_MS, extra=" or None")
    optional("limits", limits, Limits, "a Limits")
    one_of("fault_policy", fault_policy, FAULT_POLICIES)
