"""``arena replay --luck``: what each card gave each seat, rebuilt from the replay, equal to what the worker
measured; only in the omniscient account."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots.spec import load_bot
from arena.cli import main
from arena.game.replay import read_replay
from arena.luck import LUCK_DIGITS
from arena.match.account import replay_text
from arena.match.luck_account import LuckReplayError, measured
from arena.match.runner import play_match

from .test_runner import RANDOM, job, table


@pytest.fixture(scope="module")
def played():  # type: ignore[no-untyped-def]
    """An espanola match of random bots (draws, penalties for wrong claims, reshuffles)."""
    return play_match(job(table(3, 0, load_bot(RANDOM, name="me")), preset="espanola", seed=21))


def test_every_card_gets_its_line_and_the_sums_are_the_workers(played) -> None:  # type: ignore[no-untyped-def]
    header, records = read_replay(played.replay_text().splitlines())
    meter = measured(header, records)
    assert [round(v, LUCK_DIGITS) for v in meter.luck] == list(played.luck)
    lines = replay_text(header, records, None, luck=True)
    kinds = [r["type"] for r in records]
    said = [line for line in lines if line.startswith("    luck: ")]
    assert len(said) == kinds.count("draw") + kinds.count("penalty") and kinds.count("penalty") > 0
    assert sum(line.startswith("    luck of the deal") for line in lines) == kinds.count("round_start")
    assert any(" was given as a penalty " in line for line in said) and any(" drew " in line for line in said)
    last = lines[-1]
    assert last.startswith("luck over the match") and all(f"{v:+.1f}" in last for v in meter.luck)
    plain = replay_text(header, records, None)
    assert [line for line in lines if "luck" not in line] == plain  # the account itself is unchanged


def test_a_seats_view_never_shows_the_luck(played, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    header, records = read_replay(played.replay_text().splitlines())
    with pytest.raises(ValueError, match="omniscient account only"):
        replay_text(header, records, 1, luck=True)
    assert not any("luck" in line for line in replay_text(header, records, 1))
    path = tmp_path / "m.jsonl.gz"
    path.write_bytes(played.replay)
    for extra in (["--seat", "1"], ["--transcript", str(tmp_path / "t"), "--seat", "1"]):
        result = CliRunner().invoke(main, ["replay", str(path), "--luck", *extra])
        assert result.exit_code == 2 and "--luck shows the omniscient account" in result.output
        assert "Traceback" not in result.output
    shown = CliRunner().invoke(main, ["replay", str(path), "--luck"])
    assert shown.exit_code == 0 and "luck over the match" in shown.output


def test_a_replay_the_meter_cannot_measure_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(LuckReplayError, match="only Cabo"):
        measured({"game": "nim", "players": 2, "seed": 1, "rules": {"preset": "normal"}}, [])
    with pytest.raises(LuckReplayError, match="do not rebuild"):
        measured({"players": 2, "seed": 1, "rules": {"preset": "standard", "options": {}}},
                 [{"type": "action", "seat": 1, "action": {"do": "nonsense"}}])


def test_a_played_match_says_each_seats_luck(played) -> None:  # type: ignore[no-untyped-def]
    from arena.match.account import outcome_text

    lines = outcome_text(played, "espanola")
    said = [line for line in lines if line.startswith("luck (points the cards gave")]
    assert len(said) == 1 and all(f"{name}@{seat} {value:+.1f}" in said[0]
                                  for seat, (name, value) in enumerate(zip(played.bots, played.luck)))
