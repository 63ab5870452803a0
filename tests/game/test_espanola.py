"""Exact situations of the espanola preset: figure powers, pairs windows, penalties."""

from arena.game import events_for, observe
from arena.game.state import CLAIM, REY, TURN

from .stack import codes_of, pass_window, stacked

# Three seats, starter 0; everyone has looked at slots 0 and 1.
E0 = ["1O", "2O", "3O", "4O"]
E1 = ["5C", "6C", "7C", "1C"]
E2 = ["5E", "6E", "7E", "2E"]


def game(draws=(), top="4B", **options):
    return stacked("espanola", [E0, E1, E2], top, draws, first=0, options=options or None)


def kinds(match, seat):
    return {a["do"] for a in match.legal_actions(seat)}


def test_sota_spies_any_card_own_included():
    m = game(draws=["SO"])
    m.apply(0, {"do": "draw"})
    targets = {(a["seat"], a["slot"]) for a in m.legal_actions(0) if a["do"] == "spy"}
    assert targets == {(s, i) for s in range(3) for i in range(4)}
    m.apply(0, {"do": "spy", "seat": 0, "slot": 3})
    assert observe(m, 0)["hands"][0][3] == "4O" and observe(m, 1)["hands"][0][3] == "?"


def test_caballo_blind_swap():
    m = game(draws=["CO"])
    m.apply(0, {"do": "draw"})
    m.apply(0, {"do": "blind_swap", "slot": 0, "seat": 1, "their": 2})
    assert codes_of(m, 0)[0] == "7C" and codes_of(m, 1)[2] == "1O"
    assert observe(m, 0)["hands"][1][2] == "1O" and observe(m, 0)["hands"][0][0] == "?"


def test_rey_look_then_place_into_an_opponents_slot():
    m = game(draws=["RO"])
    m.apply(0, {"do": "draw"})
    assert "swap" in kinds(m, 0)  # a Rey may always be swapped in like any card
    m.apply(0, {"do": "look", "seat": 1, "slot": 3})
    assert m.phase == REY and kinds(m, 0) == {"place", "discard"}
    seen = observe(m, 0)
    assert seen["hands"][1][3] == "1C" and seen["looked"] == {"seat": 1, "slot": 3}
    assert events_for(m, 2)[-1] == {"type": "look", "seat": 0, "target": 1, "slot": 3, "rey": "RO"}
    m.apply(0, {"do": "place"})
    assert codes_of(m, 1)[3] == "RO"
    assert all(observe(m, s)["hands"][1][3] == "RO" for s in range(3))  # shown to use the power
    assert observe(m, 2)["discard"][-1] == "1C"
    assert m.phase == CLAIM  # the looked-at card landed: a window opens


def test_rey_look_then_discard_keeps_the_hand():
    m = game(draws=["RB"])
    m.apply(0, {"do": "draw"})
    m.apply(0, {"do": "look", "seat": 0, "slot": 2})
    m.apply(0, {"do": "discard"})
    assert codes_of(m, 0) == E0 and observe(m, 1)["discard"][-1] == "RB"
    assert observe(m, 0)["hands"][0][2] == "3O"


def test_figure_taken_from_discard_has_no_power():
    m = game(top="SB")
    m.apply(0, {"do": "take"})
    assert kinds(m, 0) == {"swap"}  # no multi-swap in espanola either


def test_wrong_claim_reveals_returns_and_adds_an_unseen_penalty_card():
    m = game(draws=["5B", "7B"])
    m.apply(0, {"do": "draw"})
    m.apply(0, {"do": "discard"})
    assert m.phase == CLAIM and set(m.asked()) == {0, 1, 2}
    m.apply(1, {"do": "claim", "slot": 1})  # 6C against a 5: wrong
    assert 1 not in m.asked() and m.legal_actions(1) == []  # one claim per window
    m.apply(0, {"do": "pass"})
    m.apply(2, {"do": "pass"})
    assert codes_of(m, 1) == ["5C", "6C", "7C", "1C", "7B"]
    assert all(observe(m, s)["hands"][1][1] == "6C" for s in range(3))
    assert all(observe(m, s)["hands"][1][4] == "?" for s in range(3))  # nobody saw the penalty
    penalty = events_for(m, 1)[-1]
    assert penalty == {"type": "penalty", "seat": 1, "slot": 4}
    assert m.phase == TURN and m.to_move == 1  # no right claim: no new window


def test_claims_resolve_in_seat_order_after_the_discarder_and_chain():
    m = game(draws=["5B"])
    m.apply(0, {"do": "draw"})
    m.apply(0, {"do": "discard"})
    m.apply(2, {"do": "claim", "slot": 0})  # 5E, answered first
    m.apply(0, {"do": "pass"})
    m.apply(1, {"do": "claim", "slot": 0})  # 5C
    claims = [e for e in events_for(m, 0) if e["type"] == "claim"]
    assert [(e["seat"], e["card"], e["ok"]) for e in claims] == [(1, "5C", True), (2, "5E", True)]
    assert codes_of(m, 1)[0] is None and codes_of(m, 2)[0] is None
    assert observe(m, 0)["discard"][-3:] == ["5B", "5C", "5E"]
    # A window with a right claim opens another one (chained), again for everybody with a card.
    assert m.phase == CLAIM and set(m.asked()) == {0, 1, 2}
    assert {a["slot"] for a in m.legal_actions(1) if a["do"] == "claim"} == {1, 2, 3}
    pass_window(m)
    assert m.phase == TURN and m.to_move == 1
    assert {a["slot"] for a in m.legal_actions(1) if a["do"] == "claim"} == set()


def test_initial_flip_opens_a_window_after_everyone_looked():
    m = stacked("espanola", [E0, E1, E2], "1B", first=0, look=False)
    m.apply(0, {"do": "look_initial", "slots": [0, 1]})
    m.apply(1, {"do": "look_initial", "slots": [2, 3]})
    assert m.phase != CLAIM
    m.apply(2, {"do": "look_initial", "slots": [0, 3]})
    assert m.phase == CLAIM
    m.apply(0, {"do": "claim", "slot": 0})
    m.apply(1, {"do": "claim", "slot": 3})
    m.apply(2, {"do": "pass"})
    claims = [e for e in events_for(m, 2) if e["type"] == "claim"]
    # Resolution starts with the starter (seat 0).
    assert [(e["seat"], e["ok"]) for e in claims] == [(0, True), (1, True)]
    pass_window(m)
    assert m.phase == TURN and m.to_move == 0


def test_pairs_off_means_no_windows():
    m = game(draws=["5B"], pairs=False)
    m.apply(0, {"do": "draw"})
    m.apply(0, {"do": "discard"})
    assert m.phase == TURN and m.to_move == 1


def test_starter_moves_clockwise_each_round():
    m = game(pairs=False)
    assert m.starter == 0
    m.apply(0, {"do": "cabo"})
    for seat in (1, 2):
        m.apply(seat, {"do": "draw"})
        m.apply(seat, {"do": "discard"})
    assert m.round_no == 2 and m.starter == 1 and m.to_move == 1
    # Seat 0 (sum 10) was strictly lowest: modifier bonus 10 - 10 = 0.
    assert m.rounds[0].scores == (0, 19, 20)


def test_match_ends_after_the_set_number_of_rounds():
    m = game(pairs=False, rounds=1)
    m.apply(0, {"do": "cabo"})
    for seat in (1, 2):
        m.apply(seat, {"do": "draw"})
        m.apply(seat, {"do": "discard"})
    assert m.over and m.result.reason == "rounds" and m.result.places == (1, 2, 3)
    assert events_for(m, 1)[-1]["type"] == "match_over" and m.asked() == ()
