"""Nim behind the game seam: the worked example of adding a game, and the proof that one is a module.

One heap; players take 1 to ``most`` stones in turn; who takes the last stone wins (total 0, the
others 1: low totals win, as in Cabo). Importing this module registers it as ``nim``; nothing else
in the arena knows it. Nothing in Nim is hidden, so every seat sees every event.
"""

from __future__ import annotations

import random
from typing import Any, Hashable, Mapping

from arena.game.plain import PlainGame, PlainRules
from arena.game.registry import register_game
from arena.game.seam import GameResult, GameRules, GameState, IllegalAction, Option


class NimState:
    """One heap being emptied; ``history`` and ``events`` as the seam asks."""

    def __init__(self, rules: PlainRules, players: int, seed: int | str) -> None:
        if not Nim.min_players <= players <= Nim.max_players:
            raise ValueError(f"players must be {Nim.min_players} to {Nim.max_players}, not {players}")
        self.rules, self.players, self.seed, self.round_no = rules, players, seed, 1
        self.heap, self.to_move = int(rules.options["heap"]), random.Random(str(seed)).randrange(players)
        self.history: list[tuple[int, Any, int]] = []
        self.events: list[dict[str, Any]] = []
        self.winner: int | None = None

    @property
    def over(self) -> bool:
        return self.winner is not None

    def asked(self) -> tuple[int, ...]:
        return () if self.over else (self.to_move,)

    def legal_keyed(self, seat: int) -> tuple[Hashable, list[dict[str, Any]]]:
        most = min(self.heap, self.rules.options["most"]) if seat in self.asked() else 0
        return most, [{"do": "take", "stones": n} for n in range(1, most + 1)]

    def explain(self, seat: int, action: Any) -> str:
        legal = self.legal_keyed(seat)[1]
        return f"{action!r} is not one of {legal}" if legal else f"seat {seat} is not asked to act now"

    def apply(self, seat: int, action: Mapping[str, Any]) -> None:
        legal = self.legal_keyed(seat)[1]
        if dict(action) not in legal:
            raise IllegalAction(self.explain(seat, action))
        self.apply_legal(seat, legal.index(dict(action)))

    def apply_legal(self, seat: int, index: int) -> None:
        action = self.legal_keyed(seat)[1][index]
        self.history.append((seat, action, len(self.events)))
        self.heap -= action["stones"]
        self.events.append({"type": "took", "seat": seat, "stones": action["stones"], "heap": self.heap})
        if self.heap == 0:
            self.winner = seat
            self.events.append({"type": "match_over", "winner": seat})
        self.to_move = (seat + 1) % self.players


class Nim(PlainGame):
    name, min_players, max_players, default_preset = "nim", 2, 4, "normal"
    presets = {"normal": (Option("heap", "int", 21, "stones in the heap at the start", minimum=1, maximum=1000),
                          Option("most", "int", 3, "the most stones one turn takes", minimum=1, maximum=10))}

    def new_match(self, rules: GameRules, players: int, seed: int | str) -> NimState:
        assert isinstance(rules, PlainRules)
        return NimState(rules, players, seed)

    def observe(self, state: GameState, seat: int) -> dict[str, Any]:
        assert isinstance(state, NimState)
        return {"seat": seat, "heap": state.heap, "to_move": None if state.over else state.to_move}

    def result(self, state: GameState) -> GameResult:
        assert isinstance(state, NimState) and state.winner is not None
        return GameResult(tuple(0 if seat == state.winner else 1 for seat in range(state.players)), "last_stone")


NIM = Nim()
register_game(NIM)
