"""The heuristic's decisions in hand-made situations (states as the arena sends them)."""

from __future__ import annotations

from typing import Any

from arena.game import make_rules

from .measure import heuristic_class

HeuristicPolicy = heuristic_class()


def hello(preset: str = "standard", players: int = 2, **options: Any) -> dict[str, Any]:
    rules = make_rules(preset, options)
    return {"type": "hello", "protocol": 1, "match": "m-t", "seat": 0, "players": players,
            "rules": rules.to_json(), "values": rules.value_map(), "time": {"move_ms": 1000, "startup_ms": 10000}}


def state(hands: list[list[Any]], phase: str = "turn", held: str | None = None, held_from: str | None = None,
          discard: list[str] | None = None, **extra: Any) -> dict[str, Any]:
    n = len(hands)
    return {"phase": phase, "round": 1, "turn": 4, "seat": 0, "to_move": None if phase == "claim" else 0,
            "starter": 0, "dealer": n - 1, "hands": hands, "held": held, "held_from": held_from,
            "discard": discard or ["5D"], "deck": 30, "cabo": None, "totals": [0] * n,
            "reset_used": [False] * n, **extra}


def drawn_legal(hand: list[Any], opponent: list[Any], power: str | None, standard: bool = True,
                from_deck: bool = True) -> list[dict[str, Any]]:
    """The legal list the engine builds for a held card (2 players, seat 0)."""
    from itertools import combinations

    mine = [i for i, c in enumerate(hand) if c is not None]
    theirs = [i for i, c in enumerate(opponent) if c is not None]
    out: list[dict[str, Any]] = [{"do": "swap", "slot": i} for i in mine]
    if standard:
        for size in range(2, min(4, len(mine)) + 1):
            for group in combinations(mine, size):
                out += [{"do": "multi", "slots": list(group), "into": i} for i in group]
    if not from_deck:
        return out
    out.append({"do": "discard"})
    if power == "peek":
        out += [{"do": "peek", "slot": i} for i in mine]
    elif power == "spy":
        out += [{"do": "spy", "seat": 1, "slot": i} for i in theirs]
        if not standard:
            out += [{"do": "spy", "seat": 0, "slot": i} for i in mine]
    elif power == "blind_swap":
        out += [{"do": "blind_swap", "slot": m, "seat": 1, "their": i} for m in mine for i in theirs]
    elif power == "look":
        out += [{"do": "look", "seat": s, "slot": i} for s, h in ((0, mine), (1, theirs)) for i in h]
    return out


TURN = [{"do": "draw"}, {"do": "take"}, {"do": "cabo"}]


def choose(policy: Any, st: dict[str, Any], legal: list[dict[str, Any]]) -> dict[str, Any]:
    index = policy.act(st, legal, [])
    assert isinstance(index, int) and 0 <= index < len(legal)
    return legal[index]


def test_claims_only_known_matching_cards() -> None:
    policy = HeuristicPolicy(hello("espanola"))
    legal = [{"do": "pass"}] + [{"do": "claim", "slot": i} for i in range(4)]
    st = state([["2O", "?", "5C", "?"], ["?"] * 4], phase="claim", discard=["3B", "5B"])
    assert choose(policy, st, legal) == {"do": "claim", "slot": 2}
    st = state([["2O", "?", "?", "?"], ["?"] * 4], phase="claim", discard=["3B", "5B"])
    assert choose(policy, st, legal) == {"do": "pass"}  # never a blind claim


def test_discards_to_claim_its_own_pair() -> None:
    """espanola: a drawn 6 with a known 6 in hand: discard it, then claim the pair."""
    policy = HeuristicPolicy(hello("espanola"))
    hand = ["1O", "6C", "2E", "3B"]
    legal = drawn_legal(hand, ["?"] * 4, None, standard=False)
    assert choose(policy, state([hand, ["?"] * 4], "drawn", "6O", "deck"), legal) == {"do": "discard"}


def test_keeps_and_calls_with_its_moon() -> None:
    policy = HeuristicPolicy(hello())
    moon = ["QH", "KS", "QD", "KC"]
    assert choose(policy, state([moon, ["?"] * 4]), TURN) == {"do": "cabo"}
    legal = drawn_legal(moon, ["?"] * 4, None)
    assert choose(policy, state([moon, ["?"] * 4], "drawn", "AS", "deck"), legal) == {"do": "discard"}


def test_breaks_an_opponents_known_moon() -> None:
    policy = HeuristicPolicy(hello())
    hand, theirs = ["AS", "2C", "3D", "4H"], ["QH", "KS", "QD", "KC"]
    legal = drawn_legal(hand, theirs, "blind_swap")
    action = choose(policy, state([hand, theirs], "drawn", "JH", "deck"), legal)
    assert action["do"] == "blind_swap" and action["seat"] == 1


def test_multi_swaps_known_equal_cards() -> None:
    policy = HeuristicPolicy(hello())
    hand = ["8H", "?", "8S", "2C"]
    legal = drawn_legal(hand, ["?"] * 4, None)
    action = choose(policy, state([hand, ["?"] * 4], "drawn", "3D", "deck"), legal)
    assert action["do"] == "multi" and action["slots"] == [0, 2]


def test_uses_powers_on_unknown_cards() -> None:
    policy = HeuristicPolicy(hello())
    hand, theirs = ["2C", "3D", "?", "AH"], ["?", "4S", "?", "?"]
    peek = choose(policy, state([hand, theirs], "drawn", "7H", "deck"), drawn_legal(hand, theirs, "peek"))
    assert peek == {"do": "peek", "slot": 2}
    spy = choose(policy, state([hand, theirs], "drawn", "TH", "deck"), drawn_legal(hand, theirs, "spy"))
    assert spy["do"] == "spy" and theirs[spy["slot"]] == "?"
    # blind swap: my known high card for their known low card
    hand, theirs = ["2C", "QD", "AH", "3S"], ["?", "AS", "?", "?"]
    swap = choose(policy, state([hand, theirs], "drawn", "JH", "deck"), drawn_legal(hand, theirs, "blind_swap"))
    assert swap == {"do": "blind_swap", "slot": 1, "seat": 1, "their": 1}


def test_keeps_low_cards_and_dumps_high_ones() -> None:
    policy = HeuristicPolicy(hello())
    hand = ["KS", "2C", "?", "AH"]
    legal = drawn_legal(hand, ["?"] * 4, None)
    assert choose(policy, state([hand, ["?"] * 4], "drawn", "4D", "deck"), legal) == {"do": "swap", "slot": 0}
    assert choose(policy, state([hand, ["?"] * 4], "drawn", "KC", "deck"), legal) == {"do": "discard"}
    # a zero on the discard pile is worth taking
    assert choose(policy, state([hand, ["?"] * 4], discard=["3C", "KD"]), TURN) == {"do": "take"}


def test_rey_look_and_place() -> None:
    policy = HeuristicPolicy(hello("espanola"))
    hand, theirs = ["CO", "2O", "?", "1E"], ["?", "?", "?", "?"]
    legal = drawn_legal(hand, theirs, "look", standard=False)
    # a zero Rey replaces the known Caballo
    assert choose(policy, state([hand, theirs], "drawn", "RB", "deck"), legal) == {"do": "swap", "slot": 0}
    rey = [{"do": "place"}, {"do": "discard"}]
    # a ten-valued Rey goes onto an opponent's card it has just seen to be low...
    st = state([hand, ["?", "1B", "?", "?"]], "rey", "RO", "deck", looked={"seat": 1, "slot": 1})
    assert choose(policy, st, rey) == {"do": "place"}
    # ...but not over its own card of the same value
    st = state([["SO", "2O", "?", "1E"], theirs], "rey", "RO", "deck", looked={"seat": 0, "slot": 0})
    assert choose(policy, st, rey) == {"do": "discard"}


def test_cabo_decisions() -> None:
    policy = HeuristicPolicy(hello())
    low, high = ["AS", "KD", "2C", "AH"], ["9C", "QS", "?", "?"]
    assert choose(policy, state([low, ["?"] * 4]), TURN) == {"do": "cabo"}
    assert choose(policy, state([high, ["?"] * 4]), TURN) == {"do": "draw"}
    literal = HeuristicPolicy(hello("espanola", cabo_bonus="literal"))
    assert choose(literal, state([high, ["?"] * 4]), TURN) == {"do": "cabo"}


def test_estimates_unknown_cards_from_unseen_ones() -> None:
    """With every low card visible in the discard pile, unknown cards are estimated high,
    so a drawn 9 is worth keeping in place of an unknown card."""
    policy = HeuristicPolicy(hello())
    low = [r + s for r in "A23456" for s in "SHDC"] + ["KH", "KD"]
    hand = ["2C", "?", None, None]
    discard = [c for c in low if c != "2C"]
    legal = drawn_legal(hand, ["?"] * 4, "spy")
    action = choose(policy, state([hand, ["?"] * 4], "drawn", "9S", "deck", discard=discard), legal)
    assert action == {"do": "swap", "slot": 1}
    # with the usual unseen cards, it uses the spy instead
    action = choose(policy, state([hand, ["?"] * 4], "drawn", "9S", "deck"), legal)
    assert action["do"] == "spy"
