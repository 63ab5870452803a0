"""The observation space of a seat: the ``act`` message, its vector and its action mask."""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np

from ..game.registry import DEFAULT_GAME, game_named
from ..game.seam import GameRules
from ..match import protocol
from .checks import game_of
from .encode import action_count, layout

__all__ = ["MessageSpace", "observation_space"]


class MessageSpace(gymnasium.spaces.Space[dict[str, Any]]):
    """``act`` messages of the protocol (docs/protocol.md): JSON objects, not arrays. :meth:`sample` gives the
    message of a seat asked at a random moment of a match played at random under the space's rules."""

    def __init__(self, rules: GameRules, players: int, game: str = DEFAULT_GAME, seed: int | None = None) -> None:
        super().__init__(None, None, seed)
        self.rules, self.players, self.game = rules, players, game

    @property
    def is_np_flattenable(self) -> bool:
        return False

    def contains(self, x: Any) -> bool:
        return isinstance(x, dict) and x.get("type") == "act" and isinstance(x.get("state"), dict) \
            and isinstance(x.get("legal"), list) and len(x["legal"]) > 0

    def sample(self, mask: Any = None, probability: Any = None) -> dict[str, Any]:
        game = game_named(self.game)
        match = game.new_match(self.rules, self.players, int(self.np_random.integers(2**53)))
        for _ in range(int(self.np_random.integers(0, 60))):
            if match.over:
                break
            seat = match.asked()[0]
            match.apply_legal(seat, int(self.np_random.integers(len(match.legal_keyed(seat)[1]))))
        if match.over:  # played out: the first decision of another deal
            match = game.new_match(self.rules, self.players, int(self.np_random.integers(2**53)))
        seat = match.asked()[0]
        return protocol.act(1, game.observe(match, seat), game.events_for(match, seat, 0), match.legal_keyed(seat)[1])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MessageSpace) and (other.rules, other.players, other.game) == \
            (self.rules, self.players, self.game)

    def __hash__(self) -> int:
        return hash((self.players, self.game))


def observation_space(rules: GameRules, players: int, max_slots: int, game: str = DEFAULT_GAME) -> gymnasium.spaces.Dict:
    """``{"message", "observation", "action_mask"}`` for a seat of ``players`` under ``rules``."""
    game_of(game)  # now, not when a message is first sampled
    size = len(layout(max_slots))
    return gymnasium.spaces.Dict({
        "message": MessageSpace(rules, players, game),
        "observation": gymnasium.spaces.Box(-1.0, 1.0, (size,), dtype=np.float32),
        "action_mask": gymnasium.spaces.Box(0, 1, (action_count(players, max_slots),), dtype=np.int8),
    })
