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


def _notes_replay(match, notes):
    from arena.game.replay import replay_bytes

    return read_replay(replay_bytes(match, {"match": "m-1"}, notes).decode().splitlines())


def test_notes_stand_before_their_decision_and_rebuild_ignores_them():
    from arena.game.replay import FORMAT, NOTE_TYPES, Notes

    match = _played("espanola", 3, 11)
    last = len(match.history)
    notes = Notes(before=[{"type": "fault", "seat": 1, "decision": 5}, {"type": "forfeit", "seat": 1, "decision": 5},
                          {"type": "fault", "seat": 0, "decision": 0}, {"type": "fault", "seat": 2, "decision": last}],
                  by={5: "fallback", 9: "fallback"},
                  final=[{"type": "result", "places": [1, 2, 3]}])
    header, records = _notes_replay(match, notes)
    assert header["format"] == FORMAT
    actions = [i for i, r in enumerate(records) if r["type"] == "action"]
    assert len(actions) == last
    # each note right before the action of its number (in the order given), or after everything else
    assert records[actions[0] - 1] == {"type": "fault", "seat": 0, "decision": 0}
    assert [r["type"] for r in records[actions[5] - 2:actions[5]]] == ["fault", "forfeit"]
    assert records[-2] == {"type": "fault", "seat": 2, "decision": last} and records[-3]["type"] == "match_over"
    assert records[-1] == {"type": "result", "places": [1, 2, 3]}
    # only the chosen actions are marked, and marking changes nothing else
    marked = [n for n, i in enumerate(actions) if records[i].get("by") == "fallback"]
    assert marked == [5, 9]
    _, unannotated = _notes_replay(match, None)
    assert [{k: v for k, v in r.items() if k != "by"} for r in records if r["type"] not in NOTE_TYPES] == unannotated
    assert rebuild(header, records).result == match.result


def test_format_1_files_are_still_read_and_unknown_formats_refused():
    import pytest

    from arena.game.replay import FORMAT

    match = _played("standard", 2, 4)
    out = io.StringIO()
    write_replay(match, out)
    lines = out.getvalue().splitlines()
    for older in ("cabo-arena-replay/1", "cabo-arena-replay/2"):
        old = [lines[0].replace(FORMAT, older)] + lines[1:]
        header, records = read_replay(old)
        assert header["format"] == older and rebuild(header, records).result == match.result
    with pytest.raises(ValueError, match="replay format 'cabo-arena-replay/9' is not one this arena reads"):
        read_replay([lines[0].replace(FORMAT, "cabo-arena-replay/9")] + lines[1:])
