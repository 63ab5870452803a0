"""The luck meter: every term has mean zero, whatever ``V``, so the corrected results stay unbiased; the terms
replay identically; nothing of them reaches a seat."""

from __future__ import annotations

import json
import math
import random
from collections import defaultdict

import pytest

from arena.game import Match, events_for, make_rules, observe
from arena.game.chance import DEAL, DRAW, FLIP, PENALTY
from arena.luck.meter import Meter
from arena.game.rules import HAND_SIZE
from arena.luck.value import DEFAULT_FILE, FEATURES, ValueFileError, ValueModel, dot, features, load
from arena.selfplay import play_random

MODEL = load()
BAD = ValueModel("bad", {(p, n): (-3.0, 9.0, 2.5, -7.0, 30.0) for p in ("standard", "espanola") for n in range(2, 6)},
                 "bad")
"""A deliberately poor ``V`` (weights of the wrong sign and size): it removes no luck, and must bias nothing."""


def metered(preset: str, players: int, seed: str, model: ValueModel = MODEL) -> tuple[Match, Meter]:
    """A random-play match with a meter watching it from the first deal."""
    meter = Meter(model, preset, players)
    match = Match(make_rules(preset, {}), players, seed, watcher=meter)
    play_random(match, random.Random(seed), observe_each=False)
    return match, meter


def within(values: list[float], sigmas: float = 4.0) -> tuple[float, float]:
    """The mean and its standard error; asserts the mean is within ``sigmas`` standard errors of zero."""
    n = len(values)
    mean = sum(values) / n
    se = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1) / n)
    assert abs(mean) <= sigmas * se + 1e-9, f"mean {mean:.4f} is {abs(mean) / se:.1f} standard errors from zero"
    return mean, se


@pytest.mark.parametrize("preset", ["standard", "espanola"])
@pytest.mark.parametrize("model", [MODEL, BAD], ids=["fitted", "bad"])
def test_every_kind_of_term_has_mean_zero(preset: str, model: ValueModel) -> None:
    """Over many real chance events of the engine (its own shuffles), each kind's terms average to zero within
    their standard error, for every seat: the meter's expectation is over exactly the cards that could come."""
    terms: dict[str, list[float]] = defaultdict(list)
    for index in range(150):
        players = 2 + index % 4
        _, meter = metered(preset, players, f"zero/{preset}/{index}", model)
        for event in meter.events:
            terms[event.kind].extend(event.terms)
    kinds = {DEAL, DRAW, FLIP} | ({PENALTY} if preset == "espanola" else set())
    assert kinds <= set(terms)
    for kind in kinds - {FLIP}:
        _, se = within(terms[kind])
        assert se > 0  # the terms are not all zero: they measure something
    assert set(terms[FLIP]) == {0.0}  # V reads no discard pile


def test_the_test_sees_a_biased_expectation() -> None:
    """The zero-mean check is not vacuous: an expectation taken over the wrong cards (the best of the deck)
    fails it."""
    class Optimist(Meter):
        def drawn(self, match, kind, seat, card):  # type: ignore[no-untyped-def]
            super().drawn(match, kind, seat, card)
            if kind == DRAW:  # compare with the best card the deck held instead of the average one
                best = min([card, *match.deck], key=lambda c: match.values[c])
                gain = match.values[card] - match.values[best]
                self.biased.append(gain * self.weights[0])

    values: list[float] = []
    for index in range(40):
        meter = Optimist(MODEL, "standard", 4)
        meter.biased = values  # type: ignore[attr-defined]
        match = Match(make_rules("standard", {}), 4, f"bias/{index}", watcher=meter)
        play_random(match, random.Random(index), observe_each=False)
    with pytest.raises(AssertionError, match="standard errors from zero"):
        within(values)


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_a_bad_value_function_leaves_the_corrected_totals_unbiased(preset: str) -> None:
    """Per match, the seats' luck under a poor ``V`` averages to zero: ``total - luck`` has the totals' mean."""
    luck = []
    for index in range(200):
        match, meter = metered(preset, 4, f"unbiased/{preset}/{index}", BAD)
        luck.extend(meter.luck)
    within(luck)


def test_the_terms_replay_identically() -> None:
    """A match rebuilt from its replay with a new meter gives the same events and the same luck."""
    match, meter = metered("espanola", 3, "replayed")
    again = Meter(MODEL, "espanola", 3)
    rebuilt = Match(make_rules("espanola", {}), 3, "replayed", watcher=again)
    for seat, action, _ in match.history:
        rebuilt.apply(seat, action)
    assert again.events == meter.events and again.luck == meter.luck
    assert rebuilt.result == match.result


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_no_seat_sees_anything_of_the_meter(preset: str) -> None:
    """The same match with and without a meter: every seat's view and events are the same, byte for byte, and
    no view names the luck."""
    watched, _ = metered(preset, 4, f"leak/{preset}")
    plain = Match(make_rules(preset, {}), 4, f"leak/{preset}")
    for seat, action, _ in watched.history:
        plain.apply(seat, action)
    for seat in range(4):
        seen = json.dumps([observe(watched, seat), events_for(watched, seat)], sort_keys=True)
        assert seen == json.dumps([observe(plain, seat), events_for(plain, seat)], sort_keys=True)
        assert "luck" not in seen and "terms" not in seen


def test_the_shipped_value_file_is_read_and_known_by_its_hash(tmp_path) -> None:
    model = load()
    assert model.version == "cabo-v2" and len(model.digest) == 64
    assert {(p, n) for p in ("standard", "espanola") for n in range(2, 6)} <= set(model.weights)
    assert all(len(w) == len(FEATURES) for w in model.weights.values())
    copy = tmp_path / "v.json"
    copy.write_bytes(DEFAULT_FILE.read_bytes())
    assert load(copy).digest == model.digest
    copy.write_bytes(DEFAULT_FILE.read_bytes().replace(b"cabo-v2", b"cabo-v3"))
    assert load(copy).digest != model.digest  # another file, another V: a store tells them apart
    for bad, said in (("{", "cannot read"), ('{"features": ["effective"], "weights": {}}', "needs"),
                      ('{"features": %s, "weights": {"standard": [1]}}' % json.dumps(list(FEATURES)), "PRESET/SIZE")):
        copy.write_text(bad)
        with pytest.raises(ValueFileError, match=said) as raised:
            load(copy)
        assert str(copy) in str(raised.value)


class Straightforward(Meter):
    """The meter's definition written plainly (each candidate card's whole state, every seat's ``V`` from
    :func:`features`), against which the fast meter's terms are checked."""

    def __init__(self, model: ValueModel, preset: str, players: int) -> None:
        super().__init__(model, preset, players)
        self.plain: list[list[float]] = []

    def drawn(self, match, kind, seat, card):  # type: ignore[no-untyped-def]
        super().drawn(match, kind, seat, card)
        n, values = match.players, match.values
        self.reshuffled = getattr(self, "reshuffled", False) or getattr(match, "reshuffles", 0) > 0
        if kind == FLIP:
            self.plain.append([0.0] * n)
            return
        own = kind != DRAW
        hands = [[values[c] for c in hand if c is not None] for hand in match.hands]
        if own:
            hands[seat].pop()
        left, deck_sum = len(match.deck), sum(values[c] for c in match.deck) + values[card]

        def v_of(value: int, power: bool) -> list[float]:
            effective = []
            for s, hand in enumerate(hands):
                e = float(sum(hand))
                if kind == DEAL:
                    e += (HAND_SIZE - len(hand) - (s == seat)) * ((deck_sum - value) / left if left else 0.0)
                if s == seat:
                    e += value if own else -max(0, max(hand) - value) if hand else 0
                effective.append(e)
            if own:  # a card dealt or a penalty: V is the effective sums' part alone
                return [self.weights[0] * e for e in effective]
            return [dot(self.weights, features(effective[s], len(hands[s]), min(effective[:s] + effective[s + 1:]),
                                               power and s == seat)) for s in range(n)]

        def key(c: int) -> tuple[int, bool]:
            return values[c], not own and match.ranks[c] in match.powers

        pool = [key(c) for c in [card, *match.deck]]
        expected = [sum(v_of(*k)[s] for k in pool) / len(pool) for s in range(n)]
        self.plain.append([a - e for a, e in zip(v_of(*key(card)), expected)])


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_the_meter_measures_what_its_definition_says(preset: str) -> None:
    """Every term of the meter equals ``V(actual) - mean of V over the deck's cards`` computed plainly, card
    by card (the meter groups equal cards, reuses what a candidate does not change, and takes a dealt or
    penalty card's linear ``V`` in closed form)."""
    reshuffled = 0
    for index in range(12):
        players = 2 + index % 4
        meter = Straightforward(MODEL, preset, players)
        match = Match(make_rules(preset, {}), players, f"plain/{preset}/{index}", watcher=meter)
        play_random(match, random.Random(index), observe_each=False)
        assert len(meter.plain) == len(meter.events)
        for event, plain in zip(meter.events, meter.plain):
            assert event.terms == pytest.approx(plain, abs=1e-9), event
        reshuffled += meter.reshuffled  # type: ignore[attr-defined]
    if preset == "espanola":  # the meter's counts, kept card by card, are counted afresh after a reshuffle
        assert reshuffled > 0
