"""Invariants over many seeded random matches of both presets, 2-5 players, several options."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest

from arena.game import IllegalAction, Match, events_for, make_rules, observe, replay_actions
from arena.game.scoring import score_round

from .conftest import CABO_RATES, CONFIGS, all_cards, config_id, drive, rules_of

ACTION_BOUND = 30_000
"""No random match may need more actions than this to end."""

STATE_KEYS = {
    "phase", "round", "turn", "seat", "to_move", "starter", "dealer", "hands", "held", "held_from",
    "discard", "deck", "cabo", "totals", "reset_used",
}
PHASES = {"look_initial", "turn", "drawn", "rey", "claim", "over"}
TURN_STARTS = {"draw", "take", "cabo", "skip"}
"""Event types that open a seat's turn."""


def cases(per_config: int) -> list[Any]:
    """``per_config`` seeded matches per option set and player count; the seed picks the Cabo rate."""
    return [
        pytest.param(config, players, seed, CABO_RATES[seed % len(CABO_RATES)],
                     id=f"{config_id(config)}-{players}p-seed{seed}")
        for number, config in enumerate(CONFIGS)
        for players in range(2, 6)
        for seed in (1000 * number + 10 * players + k for k in range(per_config))
    ]


def play_out(config: tuple[str, dict[str, Any]], players: int, seed: int, rate: float, each=None) -> Match:
    """Play a random match to its end, calling ``each(match)`` first and after every action."""
    match = Match(rules_of(config), players, seed)
    if each:
        each(match)
    for _ in drive(match, random.Random(f"{seed}/driver"), ACTION_BOUND, rate):
        if each:
            each(match)
    assert match.over, f"no end after {ACTION_BOUND} actions"
    return match


# ----------------------------------------------------------------- per-action checks


def check_cards_conserved(m: Match) -> None:
    cards = all_cards(m)
    assert sorted(cards) == list(range(len(m.rules.deck))), "a card was lost or duplicated"
    assert len(cards) == (52 if m.rules.preset == "standard" else 40)


def check_asked(m: Match) -> None:
    asked = m.asked()
    legal = {seat: m.legal_actions(seat) for seat in range(m.players)}
    if m.over:
        assert asked == () and m.phase == "over"
        assert all(not acts for acts in legal.values())
        return
    assert asked, f"nobody asked in phase {m.phase}"
    if m.phase not in ("look_initial", "claim"):
        assert len(asked) == 1
    for seat, acts in legal.items():
        assert bool(acts) == (seat in asked), f"seat {seat}: asked={seat in asked}, legal={acts}"
    if m.cabo is not None:
        assert {"do": "cabo"} not in legal[m.to_move], "Cabo offered a second time in one round"


def check_observations(m: Match) -> None:
    codes = set(m.codes)
    shape = [[card is None for card in hand] for hand in m.hands]
    for seat in range(m.players):
        state = observe(m, seat)
        assert json.loads(json.dumps(state)) == state
        assert STATE_KEYS <= set(state), f"missing keys {STATE_KEYS - set(state)}"
        assert ("looked" in state) == (m.phase == "rey")
        assert state["phase"] == m.phase and state["phase"] in PHASES and state["seat"] == seat
        assert [[c is None for c in hand] for hand in state["hands"]] == shape
        for hand, true in zip(state["hands"], m.hands):
            for shown, card in zip(hand, true):
                assert shown is None or shown == "?" or shown == m.codes[card], "observe shows a wrong card"
                assert shown is None or shown == "?" or shown in codes
        assert state["discard"] == [m.codes[c] for c in m.discard] and state["deck"] == len(m.deck)
        holder = m.phase in ("drawn", "rey") and seat == m.to_move
        assert state["held"] == (m.codes[m.held] if holder else None)
        assert state["totals"] == list(m.totals)
        assert state["to_move"] == (m.to_move if m.phase in ("turn", "drawn", "rey") else None)


def check_events_json(m: Match, seat: int, start: int) -> None:
    for event in events_for(m, seat, start):
        assert json.loads(json.dumps(event)) == event
        assert "type" in event and "seat" in event


# ----------------------------------------------------------------- end-of-match checks


def check_places(totals: tuple[int, ...], places: tuple[int, ...]) -> None:
    """Lowest total is 1st, equal totals share a place, places skip after ties (1, 2, 2, 4)."""
    assert min(places) == 1
    for i, (ti, pi) in enumerate(zip(totals, places)):
        assert pi == 1 + sum(1 for t in totals if t < ti)
        for tj, pj in zip(totals[i + 1:], places[i + 1:]):
            assert (ti < tj) == (pi < pj) and (ti == tj) == (pi == pj)


def ends_after(m: Match, totals: tuple[int, ...], rounds_played: int) -> bool:
    """Whether the documented end condition holds after a round with these totals."""
    opts = m.rules.options
    if rounds_played >= opts["max_rounds"]:
        return True
    if m.rules.preset == "standard":
        return any(t > 100 for t in totals)
    target = opts["target_score"]
    return rounds_played >= opts["rounds"] or (target is not None and any(t <= target for t in totals))


def check_result(m: Match) -> None:
    result, opts = m.result, m.rules.options
    assert result is not None
    check_places(result.totals, result.places)
    assert result.totals == tuple(m.totals) == result.rounds[-1].totals
    assert [r.round for r in result.rounds] == list(range(1, len(result.rounds) + 1))
    for r in result.rounds[:-1]:
        assert not ends_after(m, r.totals, r.round), f"match went on after round {r.round} ended it"
    assert ends_after(m, result.totals, len(result.rounds))
    if m.rules.preset == "standard":
        if any(t > 100 for t in result.totals):
            assert result.reason == "score"
        else:
            assert result.reason == "max_rounds" and len(result.rounds) == opts["max_rounds"]
    else:
        target = opts["target_score"]
        if target is not None and any(t <= target for t in result.totals):
            assert result.reason == "target"
        elif len(result.rounds) >= opts["rounds"]:
            assert result.reason == "rounds"
        else:
            assert result.reason == "max_rounds" and len(result.rounds) == opts["max_rounds"]
    previous = (0,) * m.players
    for r in result.rounds:
        assert r.ended in ("cabo", "turn_limit")
        assert r.turns <= opts["max_turns_per_round"]
        if r.ended == "turn_limit":
            assert r.turns == opts["max_turns_per_round"]
        if r.ended == "cabo":
            assert r.caller is not None
        for seat, (before, score, after) in enumerate(zip(previous, r.scores, r.totals)):
            if seat in r.resets:
                assert before + score == 100 and after == 50 and m.rules.preset == "standard"
            else:
                assert after == before + score
        previous = r.totals
    last = m.events[-1]
    assert last.type == "match_over" and last.public["places"] == list(result.places)


def turn_starts_by_round(m: Match) -> list[tuple[dict[str, Any], list[dict[str, Any]], dict[str, Any]]]:
    """Per finished round: its round_start, the events that open a turn, its round_over."""
    out, start, turns = [], None, []
    for event in m.events:
        if event.type == "round_start":
            start, turns = event.public, []
        elif event.type in TURN_STARTS:
            turns.append(event.public)
        elif event.type == "round_over":
            out.append((start, turns, event.public))
    return out


# ----------------------------------------------------------------- tests


@pytest.mark.parametrize("config, players, seed, rate", cases(3))
def test_random_matches_keep_every_invariant(config, players, seed, rate):
    """Cards are never lost, someone is always asked and can act, views stay well formed, and
    every match ends with a result that follows the documented end conditions and places."""
    seen = {"events": 0}

    def each(m: Match) -> None:
        check_cards_conserved(m)
        check_asked(m)
        check_observations(m)
        for s in range(m.players):
            check_events_json(m, s, seen["events"])
        seen["events"] = len(m.events)

    m = play_out(config, players, seed, rate, each)
    check_result(m)


@pytest.mark.parametrize("config, players, seed, rate", cases(2))
def test_turns_go_clockwise_and_cabo_gives_each_other_seat_one_last_turn(config, players, seed, rate):
    """Turns follow the seats clockwise from the starter; after a call nobody calls again and
    every other seat plays exactly one more turn before the reveal (unless the turn limit cuts)."""
    m = play_out(config, players, seed, rate)
    limit = m.rules.options["max_turns_per_round"]
    for (start, turns, over), result in zip(turn_starts_by_round(m), m.result.rounds):
        seats = [t["seat"] for t in turns]
        assert seats == [(start["starter"] + i) % players for i in range(len(seats))]
        assert len(turns) == result.turns
        calls = [i for i, t in enumerate(turns) if t["type"] == "cabo"]
        assert len(calls) <= 1
        if over["ended"] == "cabo":
            assert calls and len(turns) - calls[0] - 1 == players - 1
            assert over["seat"] == turns[calls[0]]["seat"] == result.caller
        else:
            assert len(turns) == limit


@pytest.mark.parametrize("config, players, seed, rate", cases(2))
def test_same_seed_and_actions_replay_to_the_same_log(config, players, seed, rate):
    """A match is reproducible from its seed and actions: same events (with who saw what),
    same per-seat views, same result."""
    m = play_out(config, players, seed, rate)
    again = replay_actions(m.rules, players, seed, [(s, a) for s, a, _ in m.history])
    assert [(e.public, e.private) for e in again.events] == [(e.public, e.private) for e in m.events]
    assert again.result == m.result
    for seat in range(players):
        assert observe(again, seat) == observe(m, seat)
    assert [(s, a) for s, a, _ in again.history] == [(s, a) for s, a, _ in m.history]


def snapshot(m: Match) -> Any:
    return copy.deepcopy((
        len(m.events), len(m.history), m.version, m.phase, m.hands, m.deck, m.discard, m.held,
        m.known, m.asked(), [m.legal_actions(s) for s in range(m.players)], m.totals,
    ))


INT_FIELDS = ("slot", "seat", "their", "into")
ALL_KINDS = ("look_initial", "draw", "take", "cabo", "swap", "multi", "discard", "peek", "spy",
             "blind_swap", "look", "place", "claim", "pass")


def mutations(m: Match, seat: int, action: dict[str, Any], rng: random.Random) -> list[tuple[str, int, Any]]:
    """Near misses of a legal ``action``: each must be refused."""
    out: list[tuple[str, int, Any]] = []

    def variant(label: str, **changes: Any) -> None:
        bad = copy.deepcopy(action)
        bad.update(changes)
        out.append((label, seat, bad))

    ints = [k for k in INT_FIELDS if k in action]
    for key in ints:
        big = m.players if key == "seat" else 4 + len(max(m.hands, key=len))
        variant(f"{key} out of range", **{key: rng.choice([-1, big, big + 7])})
        variant(f"{key} as bool", **{key: action[key] == 1 or rng.random() < 0.5})
        variant(f"{key} as string", **{key: str(action[key])})
        variant(f"{key} as float", **{key: float(action[key])})
        bad = {k: v for k, v in action.items() if k != key}
        out.append((f"{key} missing", seat, bad))
    if "slots" in action:
        slots = action["slots"]
        i = rng.randrange(len(slots))
        variant("slots with bool", slots=[bool(s) if j == i else s for j, s in enumerate(slots)])
        variant("slots out of range", slots=[99 if j == i else s for j, s in enumerate(slots)])
        variant("slots as tuple", slots=tuple(slots))
        variant("slots repeated", slots=[slots[0]] * len(slots))
    variant("unknown do", do=rng.choice(["fly", "", "DRAW", "swap "]))
    other = [k for k in ALL_KINDS if k not in {a["do"] for a in m.legal_actions(seat)}]
    if other:
        variant("do not legal now", do=rng.choice(other))
    variant("do not a string", do=[action["do"]])
    variant("extra field", extra=1)
    out += [
        ("None", seat, None),
        ("bare string", seat, action["do"]),
        ("list of items", seat, list(action.items())),
        ("number", seat, 1),
    ]
    for other_seat in range(m.players):
        if other_seat not in m.asked():
            out.append(("seat not asked", other_seat, copy.deepcopy(action)))
    out.append(("seat out of range", m.players, copy.deepcopy(action)))
    return out


@pytest.mark.parametrize("config, players, seed, rate", cases(2))
def test_illegal_actions_are_refused_and_change_nothing(config, players, seed, rate):
    """A bot's malformed or out-of-turn action raises IllegalAction with a reason and leaves
    the match exactly as it was, so the arena can apply its fault policy."""
    m = Match(rules_of(config), players, seed)
    rng = random.Random(f"{seed}/mutations")
    tried = probe_refusals(m, rng)
    for _ in drive(m, random.Random(f"{seed}/driver"), 400, rate):
        if not m.over and rng.random() < 0.15:
            tried += probe_refusals(m, rng)
    assert tried


def probe_refusals(m: Match, rng: random.Random) -> int:
    """Try every mutation of one random legal action; return how many were checked."""
    seat = rng.choice(m.asked())
    action = rng.choice(m.legal_actions(seat))
    tried = 0
    for label, who, bad in mutations(m, seat, action, rng):
        if who < m.players and repr(bad) in {repr(a) for a in m.legal_actions(who)}:
            continue  # the mutation happens to be legal, e.g. another slot of this seat
        before = snapshot(m)
        try:
            m.apply(who, bad)
        except IllegalAction as exc:
            assert str(exc).strip(), f"{label}: empty message"
        else:
            raise AssertionError(f"{label}: seat {who} {bad!r} was accepted")
        assert snapshot(m) == before, f"{label}: refused action changed the match"
        tried += 1
    return tried


def test_refused_action_leaves_next_legal_action_working():
    """After any number of refused actions the asked seat can still play normally."""
    rules = make_rules("espanola")
    m = Match(rules, 3, 7)
    for bad in (None, {"do": "look_initial", "slots": [0, True]}, {"do": "look_initial", "slots": [0, 0]}):
        for seat in m.asked():
            try:
                m.apply(seat, bad)
            except IllegalAction:
                pass
    for seat in m.asked():
        m.apply(seat, {"do": "look_initial", "slots": [0, 1]})
    assert m.phase == "claim" and len(m.history) == 3


def test_applied_action_is_copied_not_shared():
    """Mutating an action object after it was applied (a bot link reusing its buffers) must not
    rewrite the match's history or the event log that replays are written from."""
    m = Match(make_rules("standard"), 2, 1)
    seat = m.asked()[0]
    action = {"do": "look_initial", "slots": [0, 1]}
    m.apply(seat, action)
    action["slots"].append(3)
    action["slots"][0] = 2
    assert m.history[-1][1] == {"do": "look_initial", "slots": [0, 1]}
    assert m.events[-1].public["slots"] == [0, 1]


@pytest.mark.parametrize("preset, options", [
    ("standard", {"max_turns_per_round": 1}),
    ("espanola", {"max_turns_per_round": 1, "cabo_bonus": "literal"}),
])
def test_round_cut_by_turn_limit_is_scored_as_if_nobody_called(preset, options):
    """docs/rules.md and RULINGS 7: a round that reaches max_turns_per_round "ends and is scored
    as if revealed with no caller", even when Cabo was called just before the limit."""
    rules = make_rules(preset, options)
    m = Match(rules, 2, 3)
    for seat in m.asked():
        m.apply(seat, {"do": "look_initial", "slots": [0, 1]})
    while m.phase == "claim":
        for seat in m.asked():
            m.apply(seat, {"do": "pass"})
    caller = m.to_move
    m.apply(caller, {"do": "cabo"})  # turn 1 of 1: the limit ends the round at once
    (last,) = m.rounds
    assert last.ended == "turn_limit" and last.caller == caller
    expected = score_round(rules, last.hands, None).scores
    assert last.scores == expected, f"sums {last.sums}, caller {caller}: scores {last.scores}, expected {expected}"


def test_random_cases_reach_the_rare_paths():
    """Guard against vacuous randomised tests: the seeded cases above do reach reshuffles,
    penalties, every power, failed and successful multi-swaps and claims, the turn limit and
    every way a match can end."""
    types, reasons, ended, outcomes = set(), set(), set(), set()
    for param in cases(2):
        m = play_out(*param.values)
        types |= {e.type for e in m.events}
        outcomes |= {(e.type, e.public["ok"]) for e in m.events if e.type in ("multi", "claim")}
        reasons.add(m.result.reason)
        ended |= {r.ended for r in m.result.rounds}
    assert {"reshuffle", "penalty", "peek", "spy", "blind_swap", "look", "place", "take"} <= types
    assert outcomes == {("multi", True), ("multi", False), ("claim", True), ("claim", False)}
    assert reasons == {"score", "rounds", "target", "max_rounds"}
    assert ended == {"cabo", "turn_limit"}
