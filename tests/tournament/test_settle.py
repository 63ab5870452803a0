"""``arena run --until settled``: a stop at a unit's end that the results alone decide."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

import pytest
import trueskill
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.evidence import PairEvidence
from arena.tournament.schedules.base import ScheduledMatch
from arena.tournament.settle import DEFAULT_P, SettleGate, UntilError, parse_until

ROOT = Path(__file__).resolve().parents[2]


# --------------------------------------------------------------------------- the option's value

@pytest.mark.parametrize("text, p", [("settled", DEFAULT_P), ("settled=0.9", 0.9), ("settled=0.999", 0.999)])
def test_until_values(text, p):
    assert parse_until(text) == p


@pytest.mark.parametrize("text, says", [("settle", "expected settled or settled=P"),
                                        ("settled=high", "expected a probability"),
                                        ("settled=0.5", "above 0.5"), ("settled=1", "below 1")])
def test_bad_until_values_say_what_is_right(text, says):
    with pytest.raises(UntilError, match=says):
        parse_until(text)


# --------------------------------------------------------------------------- the gate alone

class Runs:
    """A schedule known in advance whose batches each hold one table over several cycles, as a round
    robin's do: batches in order of their first match only."""

    def __init__(self, runs: list[list[ScheduledMatch]]) -> None:
        self.runs = list(runs)
        self.total = sum(len(r) for r in runs)

    def next_batch(self, room: int | None = None) -> list[ScheduledMatch] | None:
        return self.runs.pop(0) if self.runs else None

    def waiting(self) -> None:
        return None


def match(index: int, cycle: int, table: str) -> ScheduledMatch:
    return ScheduledMatch(index, f"c{cycle}/{table}/r0", f"seed-{cycle}-{table}", ("a", "b"), cycle, 0)


def gate_over(runs: list[list[ScheduledMatch]], sure: list[bool], in_play: list[int]) -> SettleGate:
    """A gate whose evidence settles the board at the n-th check when ``sure[n]`` (a deals ahead of b)."""
    checks = iter(sure)

    def ratings() -> dict[str, trueskill.Rating]:
        if next(checks):
            for deal in range(40):
                gate.evidence.add_places(f"far/{deal}/r0", ("a", "b"), (1, 2 + deal % 2))
        return {"a": trueskill.Rating(40, 1), "b": trueskill.Rating(10, 1)}

    gate = SettleGate(Runs(runs), 0.95, lambda s: s.cycle, lambda s: f"cycle {s.cycle}", ratings,
                      lambda: None, lambda: in_play[0], lambda: 0)
    return gate


# Two tables over three cycles, cut into runs that span cycles (indices in schedule order: cycle-major).
X = [match(0, 1, "x"), match(2, 2, "x"), match(4, 3, "x")]
Y = [match(1, 1, "y"), match(3, 2, "y"), match(5, 3, "y")]


def test_the_gate_hands_out_one_cycle_at_a_time_and_waits_at_its_end():
    in_play = [0]
    gate = gate_over([X[:2], [X[2], *Y]], [False, False, False], in_play)
    handed: list[list[int]] = []
    while (batch := gate.next_batch()) is not None:
        assert batch, "nothing is in play here: a unit's end never waits"
        handed.append([s.cycle for s in batch])
    assert all(len(set(b)) == 1 for b in handed), handed  # never two cycles in one batch
    assert [c for b in handed for c in b] == [1, 1, 2, 2, 3, 3]  # never back to an earlier cycle
    assert gate.verdict.settled is False and "not settled" in gate.verdict.line()


def test_the_gate_waits_while_the_units_last_matches_are_in_play():
    in_play = [1]
    gate = gate_over([X, Y], [True], in_play)
    assert [s.cycle for s in gate.next_batch() or []] == [1]
    assert [s.cycle for s in gate.next_batch() or []] == [1]
    assert gate.next_batch() == []  # cycle 1 is out; a match of it is still in play
    in_play[0] = 0
    assert gate.next_batch() is None  # back and rated: settled, nothing more
    assert gate.verdict.settled and gate.verdict.unit == "cycle 1"


def test_the_gate_stops_at_the_first_settled_unit_end():
    gate = gate_over([X, Y], [False, True], [0])
    cycles = []
    while (batch := gate.next_batch()) is not None:
        cycles += [s.cycle for s in batch]
    assert cycles == [1, 1, 2, 2]
    assert gate.verdict.line() == ("until settled=0.95 (margin 0.25 places per match): settled after 0 rated "
                                   "matches, at the end of cycle 2: 1 row ahead of the next, 0 in the next one's tier")


# --------------------------------------------------------------------------- whole runs

def write(tmp_path: Path, name: str, bots: list[str], cycles: int, workers: int) -> Path:
    lines = [f"name: {name}", "rules: standard", "seats: 2", f"cycles: {cycles}", "seed: 5",
             "time: {move_ms: 2000, startup_ms: 10000}", "sandbox: none", f"workers: {workers}",
             "matches_per_process: 3", f"output: {tmp_path / name}", "bots:"] + [f"  - {b}" for b in bots]
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def stored(output: Path, columns: str = "idx, match_id, places") -> list[tuple]:
    """The stored matches' ``columns``, in index order."""
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return db.execute(f"SELECT {columns} FROM matches ORDER BY idx").fetchall()
    finally:
        db.close()


FAR_APART = [str(ROOT / "bots" / "known-p0"), str(ROOT / "bots" / "known-p100")]


def test_a_clear_order_stops_after_whole_cycles_at_the_same_match_with_one_or_two_workers(tmp_path):
    ends = []
    for workers in (1, 2):
        config = load_config(write(tmp_path, f"w{workers}", FAR_APART, cycles=40, workers=workers))
        summary = run_tournament(config, out=open(os.devnull, "w"), until_settled=0.95)
        ends.append((stored(config.output), summary.settled))
    (rows_one, line_one), (rows_two, line_two) = ends
    assert rows_one == rows_two and line_one == line_two
    assert "settled after" in line_one and "at the end of cycle" in line_one
    assert len(rows_one) < 80 and len(rows_one) % 2 == 0  # before the 40 cycles, after whole ones (2 each)


def test_a_field_that_never_settles_plays_to_its_cycles_and_says_so(tmp_path):
    same = [str(ROOT / "bots" / "random"), f"{{name: twin, path: {ROOT / 'bots' / 'random'}}}"]
    config = load_config(write(tmp_path, "twins", same, cycles=3, workers=2))
    summary = run_tournament(config, out=open(os.devnull, "w"), until_settled=0.99)
    assert len(stored(config.output)) == 6
    assert summary.settled.startswith("until settled=0.99 (margin 0.25 places per match): not settled when the run "
                                      "stopped (6 rated matches); still open: ")


def test_the_cli_prints_the_verdict_last_and_refuses_a_bad_value(tmp_path):
    path = write(tmp_path, "cli", FAR_APART, cycles=40, workers=2)
    result = CliRunner().invoke(main, ["run", str(path), "--until", "settled=0.9", "--no-report"])
    assert result.exit_code == 0, result.output
    assert result.output.rstrip().splitlines()[-1].startswith("until settled=0.9 (margin 0.25 places per match): "
                                                               "settled after")
    bad = CliRunner().invoke(main, ["run", str(path), "--until", "forever"])
    assert bad.exit_code == 2 and "--until" in bad.output and "expected settled or settled=P" in bad.output


def test_a_ladder_stops_after_a_table_once_settled(tmp_path):
    path = tmp_path / "lad.yaml"
    path.write_text("\n".join(["name: lad", "schedule: ladder", "rules: standard", "seats: 2", "seed: 5",
                               "sandbox: none", "workers: 2", "placement_matches: 0", f"output: {tmp_path / 'lad'}",
                               "bots:"] + [f"  - {b}" for b in FAR_APART]) + "\n")
    config = load_config(path)
    summary = run_tournament(config, out=open(os.devnull, "w"), max_matches=400, until_settled=0.95)
    played = stored(config.output)
    assert "settled after" in summary.settled and "at the end of the table of match" in summary.settled
    assert 0 < len(played) < 400 and len(played) % 2 == 0  # whole tables of two rotations
