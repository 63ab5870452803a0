"""Scoring tables of both presets, pinned to the source texts and the rulings."""

import pytest

from arena.game import make_rules
from arena.game.scoring import add_scores, is_moon, match_end, next_starter_dealer, places, score_round

STANDARD = make_rules("standard")
ESPANOLA = make_rules("espanola")


def test_worked_example_caller_tied_for_lowest_scores_zero():
    # A calls with 6, B has 6, C has 9 -> 0, 6, 9.
    hands = [["AS", "5H"], ["2S", "4H"], ["9S"]]
    assert score_round(STANDARD, hands, caller=0).scores == (0, 6, 9)


def test_worked_example_caller_not_lowest_pays_five():
    # B has 4 instead -> A 6 + 5 = 11, B 0, C 9.
    hands = [["AS", "5H"], ["4H"], ["9S"]]
    assert score_round(STANDARD, hands, caller=0).scores == (11, 0, 9)


def test_worked_example_89_plus_11_becomes_50_once():
    totals, used, resets = add_scores(STANDARD, [89, 10, 0], [False] * 3, [11, 0, 9])
    assert totals == [50, 10, 9] and used == [True, False, False] and resets == [0]
    # Hitting exactly 100 again does not reset, and 100 alone does not end the match.
    totals, used, resets = add_scores(STANDARD, [90, 10, 9], used, [10, 0, 0])
    assert totals == [100, 10, 9] and resets == []
    assert match_end(STANDARD, totals, 3) is None
    assert match_end(STANDARD, [101, 10, 9], 3) == "score"


def test_reset_is_per_player():
    totals, used, resets = add_scores(STANDARD, [90, 95], [True, False], [10, 5])
    assert totals == [100, 50] and used == [True, True] and resets == [1]


def test_shooting_the_moon_beats_everything_whoever_called():
    hands = [["QH", "QD", "KS", "KC"], ["AH"], ["KH", "KD"]]
    score = score_round(STANDARD, hands, caller=2)
    assert score.scores == (0, 50, 50) and score.moon == 0


@pytest.mark.parametrize("hand", [["QH", "QD", "KS", "KH"], ["QH", "QD", "KS", "KC", "AH"], ["QH", "KS", "KC"]])
def test_almost_moon_is_not_moon(hand):
    assert not is_moon(hand)
    assert score_round(STANDARD, [hand, ["5S"]], caller=None).moon is None


def test_no_caller_every_lowest_scores_zero():
    assert score_round(STANDARD, [["5S"], ["5H"], ["9S"]], caller=None).scores == (0, 0, 9)


def test_caller_lowest_tied_non_caller_scores_its_sum():
    assert score_round(STANDARD, [["3S"], ["3H"], ["3D"]], caller=1).scores == (3, 0, 3)


def test_caller_not_lowest_all_lowest_score_zero():
    assert score_round(STANDARD, [["2S"], ["9H"], ["2D"]], caller=1).scores == (0, 14, 0)


def test_empty_hand_sums_to_zero():
    assert score_round(STANDARD, [[], ["AS"]], caller=None).scores == (0, 1)


def test_red_kings_zero_black_kings_thirteen():
    assert score_round(STANDARD, [["KH", "KD"], ["KS"], ["KC"]], caller=None).sums == (0, 13, 13)


def test_espanola_modifier_bonus_strictly_lowest():
    assert score_round(ESPANOLA, [["3O"], ["5C"]], caller=0).scores == (-7, 5)
    # Equalled: no bonus, plain sum for everyone.
    assert score_round(ESPANOLA, [["3O"], ["3C"]], caller=0).scores == (3, 3)
    # Beaten: plain sums.
    assert score_round(ESPANOLA, [["6O"], ["3C"]], caller=0).scores == (6, 3)


def test_espanola_literal_bonus():
    literal = make_rules("espanola", {"cabo_bonus": "literal"})
    assert score_round(literal, [["3O"], ["5C"]], caller=0).scores == (-10, 5)
    assert score_round(literal, [["3O"], ["3C"]], caller=0).scores == (0, 3)
    assert score_round(literal, [["6O"], ["3C"]], caller=0).scores == (0, 3)


def test_espanola_has_no_reset_and_no_moon():
    totals, used, resets = add_scores(ESPANOLA, [90], [False], [10])
    assert totals == [100] and resets == []


@pytest.mark.parametrize("zero,values", [("two", (10, 10, 0, 0)), ("all", (0, 0, 0, 0)), ("none", (10, 10, 10, 10))])
def test_espanola_kings_zero(zero, values):
    rules = make_rules("espanola", {"kings_zero": zero})
    assert tuple(rules.value_map()[c] for c in ("RO", "RC", "RE", "RB")) == values
    assert rules.value_map()["SO"] == 10 and rules.value_map()["1B"] == 1


def test_espanola_end_by_rounds_and_target():
    assert match_end(ESPANOLA, [40, 50], 4) is None
    assert match_end(ESPANOLA, [40, 50], 5) == "rounds"
    three = make_rules("espanola", {"rounds": 3})
    assert match_end(three, [1, 2], 3) == "rounds"
    target = make_rules("espanola", {"target_score": 0})
    assert match_end(target, [1, 2], 1) is None
    assert match_end(target, [0, 9], 1) == "target"
    assert match_end(target, [-3, 9], 1) == "target"


def test_max_rounds_safety():
    capped = make_rules("standard", {"max_rounds": 2})
    assert match_end(capped, [5, 6], 2) == "max_rounds"


def test_places_share_ties():
    assert places([10, 20, 10, 30]) == [1, 3, 1, 4]
    assert places([7, 7]) == [1, 1]


def test_next_starter_lowest_dealer_highest():
    assert next_starter_dealer(STANDARD, [5, 0, 9, 3], starter=0, dealer=3) == (1, 2)


def test_next_starter_dealer_ties_clockwise_from_previous():
    # Seats 0 and 2 tie lowest; previous starter 1 -> seat 2 is first clockwise from 1.
    assert next_starter_dealer(STANDARD, [0, 9, 0, 9], starter=1, dealer=0)[0] == 2
    # Previous starter itself counts when tied.
    assert next_starter_dealer(STANDARD, [0, 9, 0, 9], starter=2, dealer=0)[0] == 2
    # Highest tie 1 and 3, previous dealer 2 -> 3; previous dealer 1 -> 1.
    assert next_starter_dealer(STANDARD, [0, 9, 0, 9], starter=0, dealer=2)[1] == 3
    assert next_starter_dealer(STANDARD, [0, 9, 0, 9], starter=0, dealer=1)[1] == 1


def test_espanola_starter_moves_clockwise():
    assert next_starter_dealer(ESPANOLA, [0, 9, 3], starter=2, dealer=1) == (0, 2)
