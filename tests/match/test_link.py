"""The bot link over a real process: handshake, a decision, and reuse for another match."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.match import protocol
from arena.match.link import BotLink, TimeControl
from arena.bots import load_bot, resolve_command
from arena.match.faults import BotFault, FaultKind
from arena.game import Match, events_for, make_rules, observe
from arena.match.runner import MatchJob, play_match
from arena.sandbox import LaunchSpec, get_backend

ROOT = Path(__file__).resolve().parents[2]
BUNDLED = ["random", "heuristic", "js-greedy", "c-random"]


def link_to(name: str) -> BotLink:
    spec = load_bot(str(ROOT / "bots" / name))
    process = get_backend("none").start(LaunchSpec(tuple(resolve_command(spec)), spec.directory))
    return BotLink(spec.name, process, TimeControl(move_ms=2000, startup_ms=10000))


def test_one_process_serves_two_matches():
    link = link_to("random")
    try:
        for number, preset in enumerate(("standard", "espanola"), 1):
            rules = make_rules(preset)
            match = Match(rules, 2, number)
            link.start_match(protocol.hello(f"m-{number}", 0, 2, rules, 2000, 10000))
            assert link.reported_name == "random"
            legal = match.legal_actions(0)
            link.request(number, protocol.encode(protocol.act(number, observe(match, 0), events_for(match, 0), legal)))
            index = link.reply(legal)
            assert index is not None and 0 <= index < len(legal)
            link.notify(protocol.over({"totals": [0, 0], "places": [1, 1], "reason": "test", "seat": 0}))
    finally:
        link.close()
    assert not link.process.alive()


def test_reply_before_request_id_is_wrong_id():
    link = link_to("random")
    try:
        rules = make_rules("standard")
        match = Match(rules, 2, 1)
        link.start_match(protocol.hello("m", 0, 2, rules, 2000, 10000))
        legal = match.legal_actions(0)
        link.request(5, protocol.encode(protocol.act(5, observe(match, 0), [], legal)))
        link.request_id = 6  # the arena now expects an answer to a request the bot never saw
        with pytest.raises(BotFault) as caught:
            link.reply(legal)
        assert caught.value.kind is FaultKind.WRONG_ID
    finally:
        link.kill()


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_bundled_bots_of_every_language_play_clean_matches_in_the_arena(preset):
    for name in BUNDLED:
        from arena.bots import build_bot

        build_bot(load_bot(str(ROOT / "bots" / name)))
    bots = tuple(load_bot(str(ROOT / "bots" / name)) for name in BUNDLED)
    outcome = play_match(MatchJob(f"clean-{preset}", make_rules(preset), 3, bots, sandbox="auto",
                                  time=TimeControl(move_ms=3000)))
    assert outcome.faults == () and not any(outcome.forfeited)
    assert sorted(outcome.places)[0] == 1 and outcome.decisions > 20
