"""The bots of known strength: the heuristic diluted with random legal actions at a known rate."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from arena.bots import load_bot
from arena.game import Match, make_rules, observe, events_for

from .measure import BOTS, load_module

STRATEGY = load_module("example_heuristic_strategy_known", BOTS / "lib" / "heuristic_strategy.py")
FAMILY = (0, 10, 20, 35, 50, 100)


def _decisions(policy_class: type, seed: int) -> list[int]:
    """Every index a policy in seat 0 picks in a 2-player standard match against a seeded random seat 1."""
    rules = make_rules("standard")
    match = Match(rules, 2, seed)
    policy = policy_class({"type": "hello", "protocol": 1, "match": f"m-{seed}", "seat": 0, "players": 2,
                           "rules": rules.to_json(), "values": rules.value_map()})
    other = random.Random(seed)
    picks, seen = [], 0
    while not match.over:
        seat = match.asked()[0]
        legal = match.legal_actions(seat)
        if seat == 0:
            events = events_for(match, 0, seen)
            seen += len(events)
            index = policy.act(observe(match, 0), legal, events)
            picks.append(index)
        else:
            index = other.randrange(len(legal))
        match.apply_legal(seat, index)
    return picks


def test_p0_plays_exactly_as_the_heuristic():
    for seed in range(3):
        assert _decisions(STRATEGY.known_strength(0.0), seed) == _decisions(STRATEGY.HeuristicPolicy, seed)


def test_p1_departs_from_the_heuristic_and_a_replay_repeats_it():
    assert _decisions(STRATEGY.known_strength(1.0), 5) != _decisions(STRATEGY.HeuristicPolicy, 5)
    assert _decisions(STRATEGY.known_strength(1.0), 5) == _decisions(STRATEGY.known_strength(1.0), 5)


def test_p_outside_zero_to_one_is_refused():
    with pytest.raises(ValueError, match="from 0 to 1"):
        STRATEGY.known_strength(1.5)


@pytest.mark.parametrize("pct", FAMILY)
def test_family_bots_load_and_name_their_rate(pct: int):
    spec = load_bot(str(BOTS / f"known-p{pct}"))
    assert spec.name == f"known-p{pct}"
    text = (BOTS / f"known-p{pct}" / "bot.py").read_text()
    assert f"known_strength({pct / 100:g})" in text


def test_the_family_tournament_names_every_member():
    text = (Path(__file__).resolve().parents[2] / "tournaments" / "known-strength.yaml").read_text()
    assert [f"../bots/known-p{pct}" for pct in FAMILY] == [line.strip()[2:] for line in text.splitlines()
                                                            if line.strip().startswith("- ../bots/")]
