"""``arena replay``'s account of faults, forfeits, fallback moves and the stored result, in both views."""

from __future__ import annotations

import random

from arena.game import Match, make_rules
from arena.game.replay import Notes, read_replay, replay_bytes
from arena.match.account import replay_text
from arena.selfplay import play_random

SECRET_DETAIL = "action {\"do\":\"swap\",\"why\":\"I hold KS\"} is not one of the 3 legal actions"
SECRET_LOG = "my hand: KS QH 7D"


def _annotated() -> tuple[dict, list[dict]]:
    """A random espanola match for 3 with seat 1 faulting at decision 6 and forfeited from there."""
    match = Match(make_rules("espanola"), 3, 21)
    play_random(match, random.Random(21))
    moves = [n for n, (seat, _, _) in enumerate(match.history) if seat == 1 and n >= 6]
    fault = {"type": "fault", "seat": 1, "bot": "bob", "kind": "illegal", "detail": SECRET_DETAIL,
             "stderr": f"starting\n{SECRET_LOG}\n", "round": 1, "decision": 6}
    forfeit = {"type": "forfeit", "seat": 1, "bot": "bob", "decision": 6, "round": 1}
    result = {"type": "result", "totals": [40, 10, 30], "places": [2, 3, 1], "forfeited": [False, True, False],
              "reason": "rounds"}
    notes = Notes([fault, forfeit], dict.fromkeys(moves, "fallback"), [result])
    meta = {"match": "c1/al+bob+cy/r0", "wire_id": "m-00112233aabbccdd", "bots": ["al", "bob", "cy"]}
    return read_replay(replay_bytes(match, meta, notes).decode().splitlines())


def test_omniscient_view_shows_faults_forfeits_fallback_moves_and_the_stored_places():
    text = "\n".join(replay_text(*_annotated(), None))
    assert "bots were told match id m-00112233aabbccdd" in text
    assert f"!! fault: bob@1, round 1, decision 6: illegal: {SECRET_DETAIL}" in text
    assert f"stderr| {SECRET_LOG}" in text
    assert "!! forfeit: bob@1 from decision 6 on" in text
    assert "> seat 1 chose" in text and "[by the fallback policy]" in text
    assert "== result (rounds): places [2, 3, 1] totals [40, 10, 30] (forfeited seats rank last)" in text
    assert text.splitlines()[-1] == "  3. bob@1  total 10  (forfeited)"


def test_seat_view_shows_the_facts_but_not_another_bots_reply_or_log():
    lines = replay_text(*_annotated(), 0)
    text = "\n".join(lines)
    assert "!! fault: bob@1, round 1, decision 6: illegal" in lines
    assert SECRET_DETAIL not in text and SECRET_LOG not in text
    assert "!! forfeit: bob@1 from decision 6 on" in text
    assert "    > bob@1 moved by the fallback policy" in lines
    assert "== result (rounds)" in text


def test_seat_view_of_the_faulting_seat_shows_its_own_fault_and_the_moves_made_for_it():
    text = "\n".join(replay_text(*_annotated(), 1))
    assert SECRET_DETAIL in text and SECRET_LOG in text
    assert "    > the fallback policy chose do=" in text and "for you" in text
