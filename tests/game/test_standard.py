"""Exact situations of the standard preset: powers, multi-swaps, Cabo, reshuffle, next round."""

import pytest

from arena.game import IllegalAction, events_for, observe
from arena.game.state import TURN

from .stack import codes_of, stacked

# Three seats, dealer 0, starter 1. Every seat has looked at its slots 0 and 1.
H0 = ["9S", "9H", "9D", "9C"]
H1 = ["5S", "5H", "TC", "5D"]
H2 = ["3S", "3H", "3D", "3C"]


def game(draws=(), top="AS", **options):
    return stacked("standard", [H0, H1, H2], top, draws, first=0, options=options or None)


def kinds(match, seat):
    return {a["do"] for a in match.legal_actions(seat)}


def test_starter_is_left_of_random_dealer():
    m = game()
    assert (m.dealer, m.starter, m.to_move, m.phase) == (0, 1, 1, TURN)
    assert kinds(m, 1) == {"draw", "take", "cabo"} and m.legal_actions(0) == []


def test_initial_look_is_private_and_its_slots_public():
    m = stacked("standard", [H0, H1, H2], "AS", first=0, look=False)
    m.apply(1, {"do": "look_initial", "slots": [0, 3]})
    assert observe(m, 1)["hands"][1] == ["5S", "?", "?", "5D"]
    assert observe(m, 0)["hands"][1] == ["?", "?", "?", "?"]
    seen_by_0 = events_for(m, 0)[-1]
    assert seen_by_0 == {"type": "look_initial", "seat": 1, "slots": [0, 3]}
    assert events_for(m, 1)[-1]["cards"] == ["5S", "5D"]


def test_peek_7_looks_at_own_card():
    m = game(draws=["7H"])
    m.apply(1, {"do": "draw"})
    assert observe(m, 1)["held"] == "7H" and observe(m, 0)["held"] is None
    assert {a["slot"] for a in m.legal_actions(1) if a["do"] == "peek"} == {0, 1, 2, 3}
    m.apply(1, {"do": "peek", "slot": 2})
    assert observe(m, 1)["hands"][1][2] == "TC"
    assert observe(m, 2)["hands"][1][2] == "?"
    assert observe(m, 0)["discard"][-1] == "7H"
    assert "card" not in events_for(m, 0)[-1] and events_for(m, 1)[-1]["card"] == "TC"
    assert m.to_move == 2


def test_spy_9_looks_at_an_opponents_card_only():
    m = game(draws=["TH"])
    m.apply(1, {"do": "draw"})
    targets = {(a["seat"], a["slot"]) for a in m.legal_actions(1) if a["do"] == "spy"}
    assert targets == {(s, i) for s in (0, 2) for i in range(4)}
    m.apply(1, {"do": "spy", "seat": 2, "slot": 3})
    assert observe(m, 1)["hands"][2][3] == "3C"
    assert observe(m, 2)["hands"][2][3] == "?"  # the owner did not see it


def test_blind_swap_knowledge_follows_the_card():
    m = game(draws=["JH"])
    m.apply(1, {"do": "draw"})
    m.apply(1, {"do": "blind_swap", "slot": 0, "seat": 2, "their": 3})
    assert codes_of(m, 1)[0] == "3C" and codes_of(m, 2)[3] == "5S"
    assert observe(m, 1)["hands"][2][3] == "5S"  # seat 1 knew 5S and still does
    assert observe(m, 1)["hands"][1][0] == "?"  # it never saw 3C
    assert observe(m, 2)["hands"][2][3] == "?"
    assert observe(m, 2)["hands"][1][0] == "?"  # seat 2 never looked at its slot 3


@pytest.mark.parametrize("card", ["KS", "KH", "AH", "6D"])
def test_cards_without_power(card):
    m = game(draws=[card])
    m.apply(1, {"do": "draw"})
    assert kinds(m, 1) == {"swap", "multi", "discard"}


def test_power_card_from_discard_has_no_power_and_must_be_placed():
    m = game(top="7C")
    m.apply(1, {"do": "take"})
    assert kinds(m, 1) == {"swap", "multi"}
    m.apply(1, {"do": "swap", "slot": 2})
    assert observe(m, 0)["hands"][1][2] == "7C"  # placed from the discard: known to all
    assert observe(m, 0)["discard"][-1] == "TC"


def test_swap_drawn_card_private_old_card_public():
    m = game(draws=["2C"])
    m.apply(1, {"do": "draw"})
    m.apply(1, {"do": "swap", "slot": 3})
    assert observe(m, 1)["hands"][1][3] == "2C" and observe(m, 0)["hands"][1][3] == "?"
    assert events_for(m, 0)[-1] == {"type": "swap", "seat": 1, "slot": 3, "from": "deck", "discarded": "5D"}


def test_multi_swap_success_leaves_empty_slots():
    m = game(draws=["2C"])
    m.apply(1, {"do": "draw"})
    m.apply(1, {"do": "multi", "slots": [0, 1, 3], "into": 1})
    assert codes_of(m, 1) == [None, "2C", "TC", None]
    assert observe(m, 0)["discard"][-3:] == ["5S", "5H", "5D"]
    assert observe(m, 0)["hands"][1] == [None, "?", "?", None]
    assert observe(m, 1)["hands"][1] == [None, "2C", "?", None]
    # Empty slots are never targets: seat 2 blind-swapping with seat 1 may only reach 1 and 2.
    m2 = game(draws=["2C", "QH"])
    m2.apply(1, {"do": "draw"})
    m2.apply(1, {"do": "multi", "slots": [0, 1, 3], "into": 1})
    m2.apply(2, {"do": "draw"})
    assert {a["their"] for a in m2.legal_actions(2) if a["do"] == "blind_swap" and a["seat"] == 1} == {1, 2}


def test_multi_swap_failure_reveals_returns_and_ends_turn_without_power():
    m = game(draws=["7C"])
    m.apply(1, {"do": "draw"})
    m.apply(1, {"do": "multi", "slots": [0, 2], "into": 0})
    assert codes_of(m, 1) == ["5S", "5H", "TC", "5D"]
    assert observe(m, 2)["hands"][1] == ["5S", "?", "TC", "?"]  # revealed cards are known to all
    assert observe(m, 2)["discard"][-1] == "7C"
    assert m.to_move == 2 and m.phase == TURN and len(m.hands[1]) == 4  # no penalty card
    event = events_for(m, 2)[-1]
    assert event["ok"] is False and event["revealed"] == ["5S", "TC"]


def test_multi_swap_compares_values_red_and_black_kings_differ():
    m = stacked("standard", [H0, ["KH", "KS", "KD", "2S"], H2], "AS", ["4C"], first=0)
    m.apply(1, {"do": "draw"})
    m.apply(1, {"do": "multi", "slots": [0, 1], "into": 0})
    assert codes_of(m, 1) == ["KH", "KS", "KD", "2S"]  # 0 and 13: failure
    m = stacked("standard", [H0, ["KH", "KS", "KD", "2S"], H2], "AS", ["4C"], first=0)
    m.apply(1, {"do": "draw"})
    m.apply(1, {"do": "multi", "slots": [0, 2], "into": 2})
    assert codes_of(m, 1) == [None, "KS", "4C", "2S"]  # both red kings are worth 0: success


def test_multi_swap_from_discard_follows_option():
    m = game(top="2C")
    m.apply(1, {"do": "take"})
    m.apply(1, {"do": "multi", "slots": [0, 1], "into": 0})
    assert codes_of(m, 1) == ["2C", None, "TC", "5D"]
    assert observe(m, 2)["hands"][1][0] == "2C"
    off = game(top="2C", multi_swap_from_discard=False)
    off.apply(1, {"do": "take"})
    assert kinds(off, 1) == {"swap"}


def test_cabo_gives_every_other_player_one_last_turn():
    m = game()
    m.apply(1, {"do": "cabo"})
    assert "cabo" not in kinds(m, 2)
    m.apply(2, {"do": "draw"})
    m.apply(2, {"do": "discard"})
    m.apply(0, {"do": "draw"})
    m.apply(0, {"do": "discard"})
    over = [e for e in events_for(m, 0) if e["type"] == "round_over"]
    assert len(over) == 1 and over[0]["seat"] == 1 and over[0]["ended"] == "cabo"
    # Seat 1 (sum 25) is not lowest: seat 2 (12) scores 0, caller 25 + 5, seat 0 its 36.
    assert over[0]["scores"] == [36, 30, 0]
    assert over[0]["hands"][2] == H2


def test_next_round_lowest_starts_highest_deals():
    m = game()
    m.apply(1, {"do": "cabo"})
    for seat in (2, 0):
        m.apply(seat, {"do": "draw"})
        m.apply(seat, {"do": "discard"})
    assert m.round_no == 2 and (m.starter, m.dealer) == (2, 0)
    start = [e for e in events_for(m, 1) if e["type"] == "round_start"][-1]
    assert (start["starter"], start["dealer"], start["round"]) == (2, 0, 2)


def test_turn_limit_ends_round_without_caller():
    m = game(max_turns_per_round=3)
    for seat in (1, 2, 0):
        m.apply(seat, {"do": "draw"})
        m.apply(seat, {"do": "discard"})
    last = m.rounds[-1]
    assert last.ended == "turn_limit" and last.caller is None and last.turns == 3
    assert last.scores == (36, 25, 0)


def test_reshuffle_keeps_the_top_and_forgets_knowledge():
    m = game()
    drawn = 0
    while m.deck:
        m.apply(m.to_move, {"do": "draw"})
        m.apply(m.to_move, {"do": "discard"})
        drawn += 1
    assert drawn == 39 and len(m.discard) == 40
    top = m.discard[-1]
    m.apply(m.to_move, {"do": "draw"})
    assert m.discard == [top] and len(m.deck) == 38
    assert events_for(m, 0)[-2] == {"type": "reshuffle", "seat": m.to_move, "deck": 39}
    assert all(m.known[c] == 0 for c in m.deck)


def test_illegal_actions_explain_themselves():
    m = game()
    with pytest.raises(IllegalAction, match="'swap' is not legal in phase turn; legal: cabo, draw, take"):
        m.apply(1, {"do": "swap", "slot": 0})
    with pytest.raises(IllegalAction, match="seat 0 is not asked"):
        m.apply(0, {"do": "draw"})
    m.apply(1, {"do": "draw"})
    with pytest.raises(IllegalAction, match="slot=7 is not legal; allowed slot: 0, 1, 2, 3"):
        m.apply(1, {"do": "swap", "slot": 7})
    with pytest.raises(IllegalAction, match="must be integers"):
        m.apply(1, {"do": "swap", "slot": True})
    with pytest.raises(IllegalAction, match="object with a string 'do'"):
        m.apply(1, ["swap"])  # type: ignore[arg-type]
