"""Hidden information never leaks to a seat, through its state or its events.

The proof is by relabelling: play a match A, then a match B from the same seed and actions
whose deals differ only by a permutation of the cards seat s never saw. If anything s sees
depended on a hidden card, some observation or event of s would differ between A and B.
A code that leaks outright would count as "seen" and escape that proof, so a second test
checks every code a seat sees against what the rules show it, modelled independently.
"""

from __future__ import annotations

import json
import random
from collections import defaultdict
from typing import Any

import pytest

from arena.game import Chance, Match, Rules, events_for, make_rules, observe
from arena.game.events import omniscient, project

from .conftest import codes_in, config_id, drive
from .stack import stacked

LEAK_CONFIGS = [
    ("standard", {}),
    ("standard", {"multi_swap_from_discard": False, "max_turns_per_round": 12}),
    ("espanola", {}),
    ("espanola", {"pairs": False, "kings_zero": "all"}),
]
SEEDS = 5
"""Random matches per option set and player count; each is checked from every seat."""
CABO_RATES = (0.03, 0.1, 0.3)
"""Rates of calling Cabo: rounds long enough to reshuffle, yet with cards left unseen."""

Actions = list[tuple[int, dict[str, Any]]]


class RelabelChance(Chance):
    """The seed's own chance, except that each round's deal is relabelled by ``sigmas[round]``.

    Reshuffles are left alone: they only ever shuffle cards that lay face up on the discard.
    """

    def __init__(self, seed: int | str, sigmas: dict[int, dict[int, int]]) -> None:
        super().__init__(seed)
        self.sigmas = sigmas

    def deal(self, round_no: int, cards: list[int]) -> list[int]:
        sigma = self.sigmas.get(round_no, {})
        return [sigma.get(card, card) for card in super().deal(round_no, cards)]


def leak_seeds(config: tuple[str, dict[str, Any]], players: int) -> list[int]:
    return [7919 * number + 101 * players + len(config_id(config)) for number in range(SEEDS)]


def random_match(rules: Rules, players: int, seed: int) -> Actions:
    """The actions of one whole random match."""
    m = Match(rules, players, seed)
    rng = random.Random(f"leak/{seed}/driver")
    return list(drive(m, rng, 30_000, rng.choice(CABO_RATES)))


def seen_per_round(rules: Rules, players: int, seed: int, actions: Actions):
    """Replay ``actions`` on match A. Return the rounds reached, per seat and round the card codes
    the seat saw (anywhere in its events or states), and every moment a seat had seen a code
    the rules had not shown it by then: ``(actions applied, seat, round, codes)``."""
    m = Match(rules, players, seed)
    codes = frozenset(m.codes)
    seen: list[dict[int, set[str]]] = [defaultdict(set) for _ in range(players)]
    entitled: list[dict[int, set[str]]] = [defaultdict(set) for _ in range(players)]
    round_of_events = 0
    done = 0

    def take_note() -> None:
        nonlocal round_of_events, done
        for event in m.events[done:]:
            if event.type == "round_start":
                round_of_events = event.public["round"]
            for seat in range(players):
                seen[seat][round_of_events] |= codes_in(project(event, seat), codes)
        done = len(m.events)
        for seat in range(players):
            seen[seat][m.round_no] |= codes_in(observe(m, seat), codes)
            entitled[seat][m.round_no] |= {m.codes[c] for c in m.discard}

    leaks: list[tuple[int, int, int, list[str]]] = []

    def check(step: int, rounds: set[int]) -> None:
        for who in range(players):
            for round_no in rounds:
                extra = seen[who][round_no] - entitled[who][round_no]
                if extra:
                    leaks.append((step, who, round_no, sorted(extra)))

    take_note()
    check(0, {1})
    for step, (seat, action) in enumerate(actions, 1):
        round_no, finished = m.round_no, len(m.rounds)
        public, private = shown_by_rules(m, seat, action)
        m.apply(seat, action)
        if action["do"] == "draw":
            private.add(m.held)
        for who in range(players):
            entitled[who][round_no] |= {m.codes[c] for c in public}
            if len(m.rounds) > finished:
                entitled[who][round_no] |= set().union(*map(set, m.rounds[-1].hands))
        entitled[seat][round_no] |= {m.codes[c] for c in private}
        take_note()
        check(step, {round_no, m.round_no})
    return m.round_no, seen, leaks


def shown_by_rules(m: Match, seat: int, action: dict[str, Any]) -> tuple[set[int], set[int]]:
    """The cards ``action`` shows, per docs/rules.md, to everyone and to ``seat`` alone
    (besides the discard pile and the reveal, which the caller adds). Independent of the
    engine's visibility masks, so a card code that reaches a seat by mistake is caught."""
    do, hand, held = action["do"], m.hands[seat], m.held
    public: set[int] = set()
    private: set[int] = set()
    if do == "look_initial":
        private |= {hand[i] for i in action["slots"]}
    elif do == "peek":
        private.add(hand[action["slot"]])
    elif do in ("spy", "look"):
        private.add(m.hands[action["seat"]][action["slot"]])
    elif do == "swap":
        public.add(hand[action["slot"]])
    elif do == "place":
        public.add(m.hands[m.looked[0]][m.looked[1]])
    elif do == "multi":
        named = [hand[i] for i in action["slots"]]
        public |= set(named)
        if len({m.values[c] for c in named}) > 1:
            public.add(held)
    elif do == "claim":
        public.add(hand[action["slot"]])  # revealed when the window resolves
    if do in ("discard", "peek", "spy", "blind_swap", "look", "place"):
        public.add(held)  # discarded face up, or a Rey shown to use its power
    return public, private


def relabelling(codes: tuple[str, ...], seen: dict[int, set[str]], rounds: int, rng: random.Random):
    """Per round, a random cyclic permutation of the card ids whose codes were not seen."""
    sigmas: dict[int, dict[int, int]] = {}
    for round_no in range(1, rounds + 1):
        unseen = [card for card, code in enumerate(codes) if code not in seen[round_no]]
        rng.shuffle(unseen)
        if len(unseen) > 1:
            sigmas[round_no] = {card: unseen[(i + 1) % len(unseen)] for i, card in enumerate(unseen)}
    return sigmas


def compare_views(rules: Rules, players: int, seed: int, actions: Actions, seat: int, sigmas, where: str):
    """Replay the actions on A and on relabelled B in lockstep and check that ``seat`` sees the
    same in both after every action. Return (hidden state differed, another seat's view differed)."""
    a = Match(rules, players, seed)
    b = Match(rules, players, seed, chance=RelabelChance(seed, sigmas))
    hidden_differs = others_differ = False
    done = 0

    def check(step: int) -> None:
        nonlocal hidden_differs, others_differ, done
        at = f"{where}, after {step} actions (last: {actions[step - 1] if step else None})"
        assert observe(b, seat) == observe(a, seat), f"state differs for seat {seat}: {at}"
        assert len(b.events) == len(a.events), f"event count differs: {at}"
        assert events_for(b, seat, done) == events_for(a, seat, done), f"events differ for seat {seat}: {at}"
        assert b.asked() == a.asked() and b.legal_actions(seat) == a.legal_actions(seat), f"legal differs: {at}"
        hidden_differs = hidden_differs or a.hands != b.hands or a.deck != b.deck or a.held != b.held
        if not others_differ:
            others_differ = any(
                events_for(b, t, done) != events_for(a, t, done) or observe(b, t) != observe(a, t)
                for t in range(players) if t != seat
            )
        done = len(a.events)

    check(0)
    for step, (who, action) in enumerate(actions, 1):
        assert action in b.legal_actions(who), f"seat {who} {action} is legal in A, not in B: {where}, step {step}"
        a.apply(who, action)
        b.apply(who, action)
        check(step)
    assert [e.public for e in b.events if e.type == "round_over"] == [
        e.public for e in a.events if e.type == "round_over"], f"round results differ: {where}"
    return hidden_differs, others_differ


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("config", LEAK_CONFIGS, ids=config_id)
def test_relabelling_unseen_cards_changes_nothing_a_seat_sees(config, players):
    """For random cut points (up to several rounds in), every seat's state, events and legal
    actions are identical after re-dealing the cards it never saw: no hidden card leaks."""
    rules = make_rules(*config)
    cases = moved = others = 0
    for seed in leak_seeds(config, players):
        rng = random.Random(f"leak/{seed}")
        whole = random_match(rules, players, seed)
        actions = whole[: rng.randint(0, len(whole))]
        rounds, seen, _ = seen_per_round(rules, players, seed, actions)
        for seat in range(players):
            sigmas = relabelling(rules.deck.codes, seen[seat], rounds, rng)
            where = f"{config_id(config)}, {players} players, seed {seed}, seat {seat}, cut {len(actions)}"
            hidden_differs, others_differ = compare_views(rules, players, seed, actions, seat, sigmas, where)
            cases += 1
            moved += bool(sigmas)
            assert hidden_differs == bool(sigmas), f"relabelling had no effect on the hidden state: {where}"
            others += others_differ
    assert moved >= 0.6 * cases, f"only {moved} of {cases} cases moved a card"
    assert others >= 0.25 * cases, f"another seat saw a difference in only {others} of {cases} cases"


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("config", LEAK_CONFIGS, ids=config_id)
def test_every_card_code_a_seat_sees_is_one_the_rules_show_it(config, players):
    """A card code reaches a seat only when the rules show it that card (its own looks, draws,
    peeks and spies, the discard pile, revealed and claimed cards, the final reveal). The
    relabelling test cannot catch a code that leaks outright, since the seat then counts it
    as seen; this test can."""
    rules = make_rules(*config)
    for seed in leak_seeds(config, players):
        actions = random_match(rules, players, seed)
        _, _, leaks = seen_per_round(rules, players, seed, actions)
        assert not leaks, f"seed {seed}: (actions applied, seat, round, codes not shown yet): {leaks[:3]}"


# ----------------------------------------------------------------- direct cases


def visible(m: Match, seat: int) -> str:
    """Everything ``seat`` can see, as one JSON text (state and all its events)."""
    return json.dumps([observe(m, seat), events_for(m, seat)])


@pytest.mark.parametrize("preset", ["standard", "espanola"])
@pytest.mark.parametrize("seed", range(5))
def test_initial_look_shows_the_two_cards_to_their_owner_only(preset, seed):
    """Before looking a seat sees only "?"; after look_initial it sees exactly its two chosen
    cards, and the other seats learn the slots but not the cards."""
    m = Match(make_rules(preset), 3, seed)
    assert all(card == "?" for hand in observe(m, 0)["hands"] for card in hand)
    m.apply(0, {"do": "look_initial", "slots": [1, 3]})
    mine = [m.codes[c] for c in m.hands[0]]
    assert observe(m, 0)["hands"][0] == ["?", mine[1], "?", mine[3]]
    assert events_for(m, 0)[-1]["cards"] == [mine[1], mine[3]]
    for other in (1, 2):
        assert observe(m, other)["hands"][0] == ["?"] * 4
        assert events_for(m, other)[-1] == {"type": "look_initial", "seat": 0, "slots": [1, 3]}
        assert f'"{mine[1]}"' not in visible(m, other) and f'"{mine[3]}"' not in visible(m, other)
    assert all(card == "?" for seat in (1, 2) for card in observe(m, 0)["hands"][seat])


def look_all(m: Match) -> None:
    for seat in m.asked():
        m.apply(seat, {"do": "look_initial", "slots": [0, 1]})
    while m.phase == "claim":
        for seat in m.asked():
            m.apply(seat, {"do": "pass"})


@pytest.mark.parametrize("preset", ["standard", "espanola"])
@pytest.mark.parametrize("seed", range(5))
def test_drawn_card_is_seen_only_by_the_drawer_even_after_swapping_it_in(preset, seed):
    """A card drawn from the pile shows in the drawer's ``held`` and draw event only; once
    swapped in it shows in the drawer's view of that slot and stays "?" for everyone else."""
    m = Match(make_rules(preset), 4, seed)
    look_all(m)
    drawer = m.to_move
    m.apply(drawer, {"do": "draw"})
    code = m.codes[m.held]
    state = observe(m, drawer)
    assert (state["held"], state["held_from"], events_for(m, drawer)[-1]["card"]) == (code, "deck", code)
    for other in set(range(4)) - {drawer}:
        assert observe(m, other)["held"] is None and "card" not in events_for(m, other)[-1]
        assert f'"{code}"' not in visible(m, other)
    m.apply(drawer, {"do": "swap", "slot": 3})
    assert observe(m, drawer)["hands"][drawer][3] == code
    for other in set(range(4)) - {drawer}:
        assert observe(m, other)["hands"][drawer][3] == "?"
        assert f'"{code}"' not in visible(m, other)


@pytest.mark.parametrize("seed", range(5))
def test_penalty_card_of_a_wrong_claim_is_seen_by_nobody(seed):
    """espanola: a wrong pair claim costs a face-down card that no seat, not even its owner,
    sees in its state or events; the wrongly claimed card is known to all."""
    m = Match(make_rules("espanola"), 3, seed)
    for seat in m.asked():
        m.apply(seat, {"do": "look_initial", "slots": [0, 1]})
    assert m.phase == "claim"
    top_rank = m.codes[m.discard[-1]][0]
    claimer, slot = next((s, i) for s in range(3) for i, c in enumerate(m.hands[s])
                         if m.codes[c][0] != top_rank)
    wrong = m.codes[m.hands[claimer][slot]]
    for seat in m.asked():
        m.apply(seat, {"do": "claim", "slot": slot} if seat == claimer else {"do": "pass"})
    penalty = next(e for e in m.events if e.type == "penalty")
    assert penalty.public == {"type": "penalty", "seat": claimer, "slot": 4}
    code = m.codes[m.hands[claimer][4]]
    assert omniscient(penalty, 3)["card"] == code and omniscient(penalty, 3)["seen"] == {"card": []}
    for seat in range(3):
        assert observe(m, seat)["hands"][claimer][4] == "?"
        assert observe(m, seat)["hands"][claimer][slot] == wrong
        assert "card" not in events_for(m, seat)[m.events.index(penalty)]
        assert f'"{code}"' not in visible(m, seat)


def test_blind_swap_keeps_what_each_seat_knew_of_both_cards():
    """standard J: after a blind swap each seat still knows the card it had looked at, now in
    the other hand, and learns nothing about the card it received."""
    m = stacked("standard", [["2S", "3S", "4S", "5S"], ["6H", "7H", "8H", "9H"]], "AC", draws=["JD"], first=0)
    assert m.to_move == 1  # both seats have looked at their slots 0 and 1
    m.apply(1, {"do": "draw"})
    m.apply(1, {"do": "blind_swap", "slot": 0, "seat": 0, "their": 1})
    assert observe(m, 1)["hands"] == [["?", "6H", "?", "?"], ["?", "7H", "?", "?"]]
    assert observe(m, 0)["hands"] == [["2S", "?", "?", "?"], ["3S", "?", "?", "?"]]
    swap = events_for(m, 0)[-1]
    assert swap == events_for(m, 1)[-1] == {"type": "blind_swap", "seat": 1, "slot": 0, "target": 0,
                                              "their": 1, "discarded": "JD"}
