"""Seeded chance: deals depend on the seed and the round only."""

import random

from arena.game import Chance, Match, make_rules
from arena.selfplay import play_random


def test_same_seed_same_deal_per_seat_whatever_happens_before():
    rules = make_rules("standard")
    a, b = Match(rules, 4, 99), Match(rules, 4, 99)
    assert a.hands == b.hands and a.discard == b.discard
    play_random(a, random.Random(1))
    play_random(b, random.Random(2))
    assert Chance(99).deal(3, list(range(52))) == Chance(99).deal(3, list(range(52)))
    assert Chance(99).deal(3, list(range(52))) != Chance(99).deal(4, list(range(52)))


def test_different_seeds_differ():
    rules = make_rules("espanola")
    assert Match(rules, 3, 1).hands != Match(rules, 3, 2).hands


def test_first_seat_is_seeded_and_spread():
    firsts = {Chance(seed).first_seat(4) for seed in range(40)}
    assert firsts == {0, 1, 2, 3}
    assert Chance("x").first_seat(5) == Chance("x").first_seat(5)


def test_own_shuffle_draws_what_random_shuffle_draws():
    """Deals (and so every stored replay and result) stay what they were with random.shuffle."""
    from arena.game.chance import _shuffle

    for seed in range(300):
        for size in (0, 1, 2, 3, 39, 40, 52, 64, 65):
            expected, ours = list(range(size)), list(range(size))
            random.Random(f"{seed}/{size}").shuffle(expected)
            _shuffle(random.Random(f"{seed}/{size}"), ours)
            assert ours == expected
