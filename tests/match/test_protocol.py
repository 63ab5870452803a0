"""The JSON-lines codec: what the arena writes is exactly compact JSON, however it is assembled."""

from __future__ import annotations

import json
import random

import pytest

from arena.match import protocol
from arena.game import Match, events_for, make_rules, observe


def compact(message: object) -> bytes:
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode()


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_act_line_is_the_encoded_act_message_byte_for_byte(preset):
    """The arena sends act lines built around a cached legal list; bots must get the same bytes."""
    rng = random.Random(preset)
    compared = 0
    for number in range(8):
        match, cursor = Match(make_rules(preset), 4, number), [0] * 4
        while not match.over:
            seat = rng.choice(match.asked())
            legal = match.legal_actions(seat)
            state, events = observe(match, seat), events_for(match, seat, cursor[seat])
            cursor[seat] = len(match.events)
            request_id = rng.choice([1, 7, 10**12])
            line = protocol.act_line(request_id, state, events, protocol.encode_value(legal))
            message = protocol.act(request_id, state, events, legal)
            assert line == protocol.encode(message) == compact(message)
            compared += 1
            match.apply_legal(seat, rng.randrange(len(legal)))
    assert compared > 200


def test_encode_writes_compact_utf8_json_lines():
    message = {"type": "update", "events": [{"type": "x", "name": "Rey ♔", "n": -3, "none": None, "ok": True}]}
    assert protocol.encode(message) == compact(message)
    assert protocol.encode_value([1, {"a": "é"}]) == compact([1, {"a": "é"}])[:-1]
