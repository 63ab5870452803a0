"""Omniscient replay files: complete, say who saw what, and rebuild the match."""

import io
import json
import random

from arena.game import Match, make_rules
from arena.game.replay import read_replay, rebuild, write_replay
from arena.selfplay import play_random


def _played(preset, players, seed):
    match = Match(make_rules(preset), players, seed)
    play_random(match, random.Random(seed))
    return match


def test_replay_rebuilds_the_same_match():
    for preset in ("standard", "espanola"):
        match = _played(preset, 3, 5)
        out = io.StringIO()
        write_replay(match, out, {"match": "m-1"})
        header, records = read_replay(out.getvalue().splitlines())
        assert header["match"] == "m-1" and header["players"] == 3
        again = rebuild(header, records)
        assert again.result == match.result
        assert [e.public for e in again.events] == [e.public for e in match.events]
        actions = [r for r in records if r["type"] == "action"]
        assert len(actions) == len(match.history)


def test_replay_says_who_saw_each_hidden_card():
    match = _played("espanola", 4, 8)
    out = io.StringIO()
    write_replay(match, out)
    _, records = read_replay(out.getvalue().splitlines())
    looks = [r for r in records if r["type"] == "look_initial"]
    assert looks and all(r["seen"] == {"cards": [r["seat"]]} for r in looks)
    draws = [r for r in records if r["type"] == "draw"]
    assert draws and all(r["seen"]["card"] == [r["seat"]] for r in draws)
    penalties = [r for r in records if r["type"] == "penalty"]
    assert all(r["seen"]["card"] == [] and "card" in r for r in penalties)
    json.dumps(records)  # plain JSON all the way down


def test_actions_precede_the_events_they_caused():
    match = _played("standard", 2, 3)
    out = io.StringIO()
    write_replay(match, out)
    _, records = read_replay(out.getvalue().splitlines())
    assert records[0]["type"] == "round_start"
    first_draw = next(i for i, r in enumerate(records) if r["type"] == "draw")
    assert records[first_draw - 1] == {"type": "action", "seat": records[first_draw]["seat"], "action": {"do": "draw"}}


def test_stored_replay_bytes_are_the_replay_file_in_utf8():
    """Tournaments store ``replay_bytes``; ``arena replay`` and ``write_replay`` must read and write the same thing."""
    from arena.game.replay import replay_bytes

    match = _played("espanola", 4, 9)
    meta = {"match": "c1/t0/r0", "bots": ["añejo", "b", "c", "d"]}
    out = io.StringIO()
    write_replay(match, out, meta)
    data = replay_bytes(match, meta)
    assert data.decode("utf-8") == out.getvalue() and "añejo".encode() in data
    header, records = read_replay(data.decode().splitlines())
    assert header["bots"][0] == "añejo" and rebuild(header, records).result == match.result
