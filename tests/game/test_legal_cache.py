"""Legal action lists are cached per situation and shared between matches: the cache must
never hand out a list that differs from what the rules generate for the state at hand."""

from __future__ import annotations

import random

import pytest

from arena.game import Match, state
from arena.game.events import omniscient

from .conftest import CONFIGS, config_id, drive, rules_of


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
@pytest.mark.parametrize("players", [2, 4, 5])
def test_cached_lists_equal_fresh_generation_for_every_seat(config, players):
    """Every seat at every step of random matches, with the process-wide cache warm from other matches."""
    rules = rules_of(config)
    rng = random.Random(f"{config_id(config)}/{players}")
    checked = 0
    for number in range(6):
        match = Match(rules, players, f"cache/{number}")
        steps = iter(drive(match, rng, 2000))
        while True:
            for seat in range(players):
                occupied = tuple(i for i, card in enumerate(match.hands[seat]) if card is not None)
                assert match._occ[seat] == occupied, "occupancy kept beside the hands went stale"
                key, cached = match.legal_keyed(seat)
                assert cached == match._generate(seat), (match.phase, seat, key)
                assert (key is None) == (not cached)
                checked += 1
            if next(steps, None) is None:
                break
    assert checked > 1000


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_equal_keys_mean_the_same_list_in_any_match(preset):
    # Start from an empty process-wide cache: one filled by earlier tests could reach its bound and be
    # cleared part-way through, handing out an equal list that is a new object.
    state._LEGAL_LISTS.clear()
    rules = rules_of((preset, {}))
    seen: dict[object, list] = {}
    rng = random.Random(preset)
    for number in range(10):
        match = Match(rules, 4, number)
        for _ in drive(match, rng, 400):
            for seat in match.asked():
                key, actions = match.legal_keyed(seat)
                assert seen.setdefault(key, actions) is actions


@pytest.mark.parametrize("config", CONFIGS, ids=config_id)
def test_apply_legal_is_apply_of_that_action(config):
    """The arena's index path and the validating path make the same match, event for event."""
    rules = rules_of(config)
    rng = random.Random(config_id(config))
    for number in range(5):
        by_index, by_action = Match(rules, 4, number), Match(rules, 4, number)
        while not by_index.over:
            seat = rng.choice(by_index.asked())
            index = rng.randrange(len(by_index.legal_actions(seat)))
            by_action.apply(seat, dict(by_index.legal_actions(seat)[index]))
            by_index.apply_legal(seat, index)
        assert [omniscient(e, 4) for e in by_index.events] == [omniscient(e, 4) for e in by_action.events]
        assert by_index.history == by_action.history and by_index.result == by_action.result


def test_the_shared_cache_stays_bounded_and_correct_when_it_overflows(monkeypatch):
    """A long-running worker must not grow without bound (espanola has tens of thousands of situations)."""
    import arena.game.state as state

    monkeypatch.setattr(state, "_LEGAL_LISTS", {})
    monkeypatch.setattr(state, "_LEGAL_LISTS_MAX", 16)
    rng = random.Random(3)
    largest = 0
    for number in range(20):
        match = Match(rules_of(("espanola", {})), 4, number)
        while not match.over:
            seat = rng.choice(match.asked())
            assert match.legal_actions(seat) == match._generate(seat)
            largest = max(largest, len(state._LEGAL_LISTS))
            match.apply_legal(seat, rng.randrange(len(match.legal_actions(seat))))
    assert largest == 16
