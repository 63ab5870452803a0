"""Cabo behind the game seam plays exactly as the engine does, and what the arena hands around names its game."""

from __future__ import annotations

import pickle
import random

import pytest

from arena.bots import BotSpec
from arena.game import Match, make_rules, observe
from arena.game.cabo import CABO
from arena.game.registry import game_named, games, register_game
from arena.game.replay import Notes, replay_bytes
from arena.game.seam import IllegalAction
from arena.match import protocol
from arena.match.fallback import fallback_index
from arena.match.runner import MatchJob
from arena.selfplay import play_random

from .toy_game import NIM


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_a_match_through_the_seam_is_the_engines_match(preset):
    rules = CABO.make_rules(preset)
    seamed, engine = CABO.new_match(rules, 3, 5), Match(make_rules(preset), 3, 5)
    rng = random.Random(preset)
    while not seamed.over:
        for seat in seamed.asked():
            assert CABO.observe(seamed, seat) == observe(engine, seat)
            index = rng.randrange(len(seamed.legal_keyed(seat)[1]))
            seamed.apply_legal(seat, index)
            engine.apply_legal(seat, index)
    assert engine.result is not None and CABO.result(seamed).totals == engine.result.totals
    assert CABO.replay_bytes(seamed, {}, Notes()) == replay_bytes(engine)


def test_an_illegal_action_raises_the_games_error_with_its_explanation():
    match = CABO.new_match(CABO.make_rules("standard"), 2, 1)
    with pytest.raises(IllegalAction, match="not legal"):
        match.apply(match.asked()[0], {"do": "cabo"})
    nim = NIM.new_match(NIM.make_rules("normal"), 2, 1)
    with pytest.raises(IllegalAction, match="is not one of"):
        nim.apply(nim.asked()[0], {"do": "take", "stones": 4})


def test_a_job_carries_its_games_name_and_pickles():
    job = MatchJob("m", NIM.make_rules("normal", {"heap": 3}), 1, (BotSpec("a", ("true",)), BotSpec("b", ("true",))),
                   game="nim")
    assert pickle.loads(pickle.dumps(job)) == job and job.game == "nim"
    assert MatchJob("m", CABO.make_rules("standard"), 1, job.bots).game == "cabo"


def test_hello_says_what_the_game_says():
    cabo = protocol.hello("m", 1, 3, CABO.make_rules("espanola"), 100, 1000)
    assert list(cabo) == ["type", "protocol", "match", "seat", "players", "rules", "values", "time"]
    assert cabo["values"] == make_rules("espanola").value_map()
    nim = protocol.hello("m", 0, 2, NIM.make_rules("normal"), 100, 1000, game="nim")
    assert nim["game"] == "nim" and nim["rules"] == {"preset": "normal", "options": {"heap": 21, "most": 3}}
    assert "values" not in nim


def test_the_fallback_policy_is_the_games():
    legal = [{"do": "cabo"}, {"do": "take"}, {"do": "draw"}]
    assert fallback_index(legal) == 2  # Cabo draws rather than takes
    assert fallback_index([{"do": "take", "stones": 1}, {"do": "take", "stones": 2}], "nim") == 0


def test_random_self_play_plays_any_game():
    match = NIM.new_match(NIM.make_rules("normal", {"heap": 30}), 3, "s")
    decisions = play_random(match, random.Random(1), game="nim")
    assert match.over and decisions == len(match.history) and match.heap == 0


def test_registering_a_name_again_replaces_the_game():
    register_game(NIM)
    assert games().count("nim") == 1 and game_named("nim") is NIM
