"""The referee measures each seat's luck as the match is played: in the outcome, the same on a replay, and
invisible to the bots (a metered match sends them the same bytes as an unmetered one)."""

from __future__ import annotations

import dataclasses
import pickle

from arena.game import Match, make_rules
from arena.game.replay import read_replay
from arena.luck import LUCK_DIGITS, model_label, shipped_model
from arena.luck.meter import Meter
from arena.match.runner import play_match

from arena.bots.spec import load_bot

from .test_runner import RANDOM, fault_bot, job, table


def replayed_luck(outcome) -> list[float]:  # type: ignore[no-untyped-def]
    """A fresh meter over the match rebuilt from the omniscient replay."""
    header, records = read_replay(outcome.replay_text().splitlines())
    preset = header["rules"]["preset"]
    meter = Meter(shipped_model(), preset, header["players"])
    match = Match(make_rules(preset, header["rules"]["options"]), header["players"], header["seed"], watcher=meter)
    for record in records:
        if record["type"] == "action":
            match.apply(record["seat"], record["action"])
    return [round(v, LUCK_DIGITS) for v in meter.luck]


def test_a_played_match_carries_each_seats_luck_as_a_replay_measures_it() -> None:
    outcome = play_match(job(table(3, 0, load_bot(RANDOM, name="me")), preset="espanola", seed=11))
    assert len(outcome.luck) == 3 and any(v != 0 for v in outcome.luck)
    assert outcome.luck_model == model_label(shipped_model()) and outcome.luck_model.startswith("cabo-v2@")
    assert list(outcome.luck) == replayed_luck(outcome)
    assert outcome.to_json()["luck"] == list(outcome.luck)
    assert pickle.loads(pickle.dumps(outcome)).luck == outcome.luck  # a job's outcome crosses processes


def test_the_meter_changes_nothing_the_bots_see_or_do() -> None:
    """The same job with the meter off: the same replay, byte for byte (every message a bot got follows from
    it), the same result, and no luck."""
    metered = play_match(job(table(4, 2, load_bot(RANDOM, name="me")), seed="same"))
    plain = play_match(dataclasses.replace(job(table(4, 2, load_bot(RANDOM, name="me")), seed="same"), luck=False))
    assert plain.luck == () and plain.luck_model == "" and "luck" not in plain.to_json()
    assert plain.replay == metered.replay and plain.totals == metered.totals
    assert metered.luck and "luck" not in metered.replay_text()


def test_a_forfeited_seat_is_measured_to_the_end() -> None:
    """The fallback policy plays a forfeited seat out, and the cards it gets are luck like any other's."""
    outcome = play_match(job(table(3, 1, fault_bot("fault_exit", name="x")), seed=5))
    assert outcome.forfeited[1]
    assert len(outcome.luck) == 3 and list(outcome.luck) == replayed_luck(outcome)
