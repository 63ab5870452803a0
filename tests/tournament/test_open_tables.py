"""Tables chosen for what is still open under ``--until settled``: the choice, and whole runs that stay
reproducible with any number of workers and across a resume."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.evidence import PairEvidence, board_rules
from arena.tournament.open_tables import OpenTables, table_key
from arena.tournament.schedules.balance import adjacent
from arena.tournament.schedules.round_robin import round_robin
from tests.tournament.test_settle import stored as settle_stored

ROOT = Path(__file__).resolve().parents[2]


def unit(cycle: int) -> list:
    return [m for m in round_robin(list("abcdef"), [4], cycle, 7) if m.cycle == cycle]


def test_table_keys_drop_the_cycle_and_the_rotation():
    assert table_key("c3/a+b+c+d/r1") == "a+b+c+d" and table_key("c12/t2/a+b+c+d/r0") == "t2/a+b+c+d"


def test_with_no_deals_every_pair_is_open_and_the_fewest_tables_seat_them_all():
    tables = OpenTables(PairEvidence(), board_rules())
    play, skipped = tables.choose(unit(2))
    chosen = {table_key(m.match_id) for m in play}
    seated = {frozenset((a, b)) for key in chosen for a in key.split("+") for b in key.split("+") if a != b}
    assert len(seated) == 15  # every pair of the six at some chosen table
    assert len(chosen) < 15 and len(play) == 4 * len(chosen) and len(play) + len(skipped) == len(unit(2))
    assert {m.index for m in play}.isdisjoint({m.index for m in skipped})


def test_a_decided_field_plays_its_unit_whole_and_a_decided_pair_is_left_out():
    evidence = PairEvidence()
    strength = {name: i for i, name in enumerate("abcdef")}
    for deal in range(40):
        bots = tuple("abcdef")
        evidence.add_places(f"c{deal}/x/r0", bots, tuple(strength[b] + 1 for b in bots))
    tables = OpenTables(evidence, board_rules())
    assert tables.undecided(list("abcdef")) == set()
    play, skipped = tables.choose(unit(3))
    assert skipped == [] and len(play) == len(unit(3))
    # c and d level at every deal (a tier needs no more than these deals); a and b never met: only they are open
    level = PairEvidence()
    for deal in range(40):
        level.add_places(f"c{deal}/y/r0", ("c", "d", "e", "f"), (1, 1, 3, 4))
        level.add_places(f"c{deal}/z/r0", ("a", "c", "d", "e", "f"), (1, 2, 2, 4, 5))
        level.add_places(f"c{deal}/w/r0", ("b", "c", "d", "e", "f"), (1, 2, 2, 4, 5))
    open_now = OpenTables(level, board_rules()).undecided(list("abcdef"))
    assert open_now == {("a", "b")}


def test_chosen_tables_are_seated_to_even_out_who_sat_after_whom():
    tables = OpenTables(PairEvidence(), board_rules())
    for cycle in range(2, 12):
        play, _ = tables.choose(unit(cycle))
        for m in play:
            tables.adjacency.update(adjacent(m.bots))
    counts = tables.adjacency
    assert all(abs(counts[a, b] - counts[b, a]) <= 8 for a, b in list(counts))


def write(tmp_path: Path, name: str, workers: int) -> Path:
    bots = ["known-p0", "known-p20", "known-p50", "known-p100", "random"]
    lines = [f"name: {name}", "rules: standard", "seats: 3", "cycles: 30", "seed: 11",
             "time: {move_ms: 2000, startup_ms: 10000}", "sandbox: none", f"workers: {workers}",
             "matches_per_process: 4", f"output: {tmp_path / name}", "bots:"] + \
        [f"  - {ROOT / 'bots' / b}" for b in bots]
    path = tmp_path / f"{name}.yaml"
    path.write_text("\n".join(lines) + "\n")
    return path


def stored(output: Path) -> list[tuple]:
    return settle_stored(output, "idx, match_id, bots, places")


def test_open_tables_are_the_same_with_one_or_two_workers_and_after_a_resume(tmp_path: Path):
    quiet = open(os.devnull, "w")
    one = load_config(write(tmp_path, "one", 1))
    ended = run_tournament(one, out=quiet, until_settled=0.95)
    two = load_config(write(tmp_path, "two", 2))
    assert run_tournament(two, out=quiet, until_settled=0.95).settled == ended.settled
    rows = stored(one.output)
    assert rows == stored(two.output)
    assert "settled after" in ended.settled
    per_cycle = Counter(match_id.split("/")[0] for _, match_id, _, _ in rows)
    assert per_cycle["c1"] == 30 and min(per_cycle.values()) < 30  # a whole first pass, then fewer tables
    cut = load_config(write(tmp_path, "cut", 2))
    run_tournament(cut, out=quiet, max_matches=len(rows) // 2 + 1, until_settled=0.95)
    resumed = run_tournament(cut, out=quiet, until_settled=0.95)
    assert stored(cut.output) == rows and resumed.settled.split(":", 1)[1] == ended.settled.split(":", 1)[1]
