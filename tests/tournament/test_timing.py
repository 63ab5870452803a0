"""Time limits the bundled bots cannot keep: warned of before a run plays, and a run lost to the clock fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.match.link import TimeControl
from arena.tournament.timing import MOVE_MS_NEEDED, STARTUP_MS_NEEDED, warnings

ROOT = Path(__file__).resolve().parents[2]
FILE = Path("league.yaml")


@pytest.mark.parametrize("time, keys", [
    (TimeControl(), []),
    (TimeControl(move_ms=MOVE_MS_NEEDED, startup_ms=STARTUP_MS_NEEDED), []),
    (TimeControl(move_ms=5), ["move_ms"]),
    (TimeControl(move_ms=5, bank_ms=MOVE_MS_NEEDED), []),  # the bank covers the rare slow move
    (TimeControl(move_ms=5, bank_ms=MOVE_MS_NEEDED - 1), ["move_ms"]),
    (TimeControl(startup_ms=STARTUP_MS_NEEDED - 1), ["startup_ms"]),
    (TimeControl(move_ms=1, startup_ms=1), ["move_ms", "startup_ms"]),
])
def test_a_limit_below_what_the_bundled_bots_need_gets_a_line(time, keys):
    lines = warnings(time, FILE)
    assert [line.split("time.")[1].split()[0] for line in lines] == keys
    assert all(line.startswith("warning: league.yaml: time.") and "\n" not in line for line in lines)


def test_move_ms_5_is_warned_of_in_one_line():
    assert warnings(TimeControl(move_ms=5), FILE) == [
        "warning: league.yaml: time.move_ms 5 is below the 100 ms the bundled bots need on a busy machine: expect "
        "seats forfeited on time; raise it to at least 100 (or time.bank_ms to that)"]


def test_a_run_whose_every_match_is_lost_on_time_warns_first_and_fails_last(tmp_path):
    path = tmp_path / "late.yaml"
    path.write_text(f"name: late\nseats: 2\nseed: 1\nsandbox: none\nworkers: 1\ntime: {{move_ms: 5, startup_ms: 1}}\n"
                    f"output: {tmp_path / 'out'}\nbots: [{ROOT / 'bots' / 'random'}, {ROOT / 'bots' / 'heuristic'}]\n")
    result = CliRunner().invoke(main, ["run", str(path), "--no-report"])
    lines = result.output.splitlines()
    assert result.exit_code == 1, result.output
    assert [line.split(" is below")[0] for line in lines[:2]] == ["warning: late.yaml: time.move_ms 5",
                                                                  "warning: late.yaml: time.startup_ms 1"]
    assert lines[2].startswith("tournament late (results in ")  # said before anything is played
    assert lines[-1] == (f"Error: every match this run played (2) had a seat forfeited on time, so the board rates "
                         f"the clock, not the bots; raise time.move_ms (or time.startup_ms) in {path} and run it "
                         "into a new output directory")
