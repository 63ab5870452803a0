"""``schedule: sampled``: balance, determinism, ids, the configuration, and a run that resumes."""

from __future__ import annotations

import itertools
import os
import random
import sqlite3
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import ConfigError, load_config
from arena.tournament.driver import run_tournament, schedule_of
from arena.tournament.schedules.balance import BALANCED, CYCLIC
from arena.tournament.schedules.sampled import minimum_tables, sampled, split

ROOT = Path(__file__).resolve().parents[2]
FIFTY = [f"bot{i:02d}" for i in range(50)]


def tables_of(bots: Sequence[str], seats: Sequence[int], tables: int, seed: int | str = 1,
              sizes_of: dict[str, tuple[int, ...]] | None = None) -> list[tuple[str, ...]]:
    """The drawn tables: rotation 0 of each (its bots in name order)."""
    return [m.bots for m in sampled(bots, seats, tables, 1, seed, sizes_of) if m.rotation == 0]


def spreads(tables: Sequence[Sequence[str]], bots: Sequence[str]) -> tuple[int, int]:
    """(most - fewest tables of a bot, most - fewest meetings of a pair), over ``bots``."""
    seated = Counter(b for t in tables for b in t)
    met = Counter(p for t in tables for p in itertools.combinations(sorted(t), 2))
    pairs = [met[p] for p in itertools.combinations(sorted(bots), 2)]
    return max(seated[b] for b in bots) - min(seated[b] for b in bots), max(pairs) - min(pairs)


# ---------------------------------------------------------------- balance

@pytest.mark.parametrize("seed", [1, 2, "spring"])
def test_fifty_bots_at_500_tables_of_four_sit_equally_and_meet_evenly(seed):
    """Every bot at exactly 40 tables; every pair meets 2 or 3 times (120 meetings per bot over 49 others)."""
    drawn = tables_of(FIFTY, [4], 500, seed)
    assert len(drawn) == 500 and all(len(set(t)) == 4 for t in drawn)
    assert set(Counter(b for t in drawn for b in t).values()) == {40}
    assert spreads(drawn, FIFTY) == (0, 1)


def test_random_tables_are_far_less_even():
    """The baseline the draw replaces: 500 uniformly random tables of the same field."""
    rng = random.Random(1)
    uniform = [rng.sample(FIFTY, 4) for _ in range(500)]
    tables, pairs = spreads(uniform, FIFTY)
    assert tables >= 20 and pairs >= 7  # (31, 9) for this seed; the draw gets (0, 1)


@pytest.mark.parametrize("bots,seats,tables,pairs", [
    (10, 4, 30, 0),  # a design exists (every pair meets 4 times) and is found
    (12, 3, 50, 1),
    (30, 2, 300, 1),
    (200, 4, 2000, 1),
])
def test_other_fields_are_balanced_too(bots, seats, tables, pairs):
    names = [f"b{i:03d}" for i in range(bots)]
    drawn = tables_of(names, [seats], tables)
    assert spreads(drawn, names) == (0 if tables * seats % bots == 0 else 1, pairs)


def test_several_sizes_split_evenly_and_balance_each_size_and_the_total():
    drawn = tables_of(FIFTY[:20], [2, 3, 5], 100)
    by_size = Counter(len(t) for t in drawn)
    assert by_size == {2: 34, 3: 33, 5: 33}  # the smaller sizes take the remainder
    assert [len(t) for t in drawn] == sorted(len(t) for t in drawn)  # numbered smaller sizes first
    for n in (2, 3, 5):
        assert spreads([t for t in drawn if len(t) == n], FIFTY[:20])[0] <= 1
    assert spreads(drawn, FIFTY[:20])[0] <= 1  # every bot plays every size: within one overall as well


def test_bots_that_play_some_sizes_are_balanced_among_those_that_play_each():
    limits = {"bot00": (2,), "bot01": (2,), "bot02": (4,), "bot03": (4,), "bot04": (4,)}
    field = FIFTY[:16]
    drawn = tables_of(field, [2, 4], 60, 3, limits)
    assert all(len(t) in limits.get(b, (2, 4)) for t in drawn for b in t)
    for n in (2, 4):
        players = [b for b in field if n in limits.get(b, (2, 4))]
        at_n = [t for t in drawn if len(t) == n]
        assert len(at_n) == 30 and spreads(at_n, players)[0] <= 1


def test_splits_and_the_fewest_tables():
    assert split(5, [4, 2]) == {2: 3, 4: 2}
    assert split(7, [2, 3, 5]) == {2: 3, 3: 2, 5: 2}
    assert minimum_tables({4: 50}) == 13  # 13 * 4 = 52 seats for 50 bots
    assert minimum_tables({2: 50, 4: 50}) == 49  # 25 pairs and 24 tables of four
    with pytest.raises(ValueError, match="12 tables leave bots out; at least 13 are needed"):  # in code
        tables_of(FIFTY, [4], 12)


def test_a_thousand_bots_at_ten_thousand_tables():
    names = [f"b{i:04d}" for i in range(1000)]
    drawn = tables_of(names, [4], 10_000)
    assert set(Counter(b for t in drawn for b in t).values()) == {40}
    met = Counter(p for t in drawn for p in itertools.combinations(t, 2))
    assert max(met.values()) == 1  # no pair meets twice (the mean is 0.12)


# ---------------------------------------------------------------- determinism, ids, deals

def test_the_draw_depends_on_the_seed_and_the_names_only():
    one = list(sampled(FIFTY, [2, 4], 60, 2, "s"))
    assert one == list(sampled(list(reversed(FIFTY)), [2, 4], 60, 2, "s"))
    assert tables_of(FIFTY, [4], 100, 7) == tables_of(FIFTY, [4], 100, "7")  # as 7 and "7" deal the same
    assert tables_of(FIFTY, [4], 100, 7) != tables_of(FIFTY, [4], 100, 8)


def test_the_draw_is_pinned_so_stored_tournaments_resume_with_the_same_tables():
    """The tables are drawn again on every run: a change to the draw would make a resumed tournament play
    other tables under the same fingerprint. Changing this digest needs a new fingerprint format."""
    import hashlib

    def digest(seating: str) -> str:
        matches = sampled(FIFTY[:12], [2, 3], 20, 2, "spring", seating=seating)
        return hashlib.sha256(repr([(m.index, m.match_id, m.seed, m.bots, m.cycle, m.rotation)
                                    for m in matches]).encode()).hexdigest()

    assert digest(CYCLIC) == "db35048f1b3b0b13b7a87caf84bd80722001303ddeb0f5973c130d50b119d966"  # format 3: HMAC seeds
    assert digest(BALANCED) == "4d435bee4ba349b1fec20e39afd37746c05cce595c380fe09d954d2c9af037c6"  # balanced seatings


def test_ids_seeds_and_rotations():
    from arena.match.seeds import deal_seed

    matches = list(sampled(FIFTY[:6], [3], 12, 2, "secret"))
    assert [m.index for m in matches] == list(range(2 * 12 * 3))
    assert len({m.match_id for m in matches}) == len(matches)
    for m in matches:
        table = "+".join(sorted(m.bots))
        number = int(m.match_id.split("/")[1][1:])
        assert m.match_id == f"c{m.cycle}/t{number}/{table}/r{m.rotation}"
        assert m.seed == deal_seed("secret", f"c{m.cycle}/t{number}/{table}") and "secret" not in m.match_id
    by_deal: dict[str, list] = {}
    for m in matches:
        by_deal.setdefault(m.seed, []).append(m)
    assert len(by_deal) == 24 and all(sorted(m.rotation for m in g) == [0, 1, 2] for g in by_deal.values())
    first, second = ([tuple(sorted(m.bots)) for m in matches if m.cycle == c] for c in (1, 2))
    assert first == second  # a cycle plays the same tables again, with new deals (and the next seatings)


def test_a_table_drawn_twice_gets_two_ids_and_two_deals():
    matches = list(sampled(["a", "b", "c"], [2], 6, 1, 1))
    tables = [m.bots for m in matches if m.rotation == 0]
    assert Counter(tables) == {("a", "b"): 2, ("a", "c"): 2, ("b", "c"): 2}
    assert len({m.match_id for m in matches}) == len({m.seed for m in matches}) * 2 == 12


# ---------------------------------------------------------------- the configuration

BOTS = "bots:\n" + "".join(f"  - {{name: {n}, command: \"{{python}} {ROOT / 'bots' / 'random' / 'bot.py'}\"}}\n"
                           for n in ("a", "b", "c", "d", "e"))


def write(tmp_path: Path, extra: str, bots: str = BOTS) -> Path:
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / "league.yaml"
    path.write_text(f"name: league\nseats: 4\n{extra}\n{bots}")
    return path


def refused(tmp_path: Path, extra: str) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, extra))
    return info.value


@pytest.mark.parametrize("extra,line,key,message", [
    ("schedule: swiss", 3, "schedule", "expected one of round_robin | sampled | ladder, got 'swiss'"),
    ("schedule: sampeld\ntables: 5", 3, "schedule", "expected one of round_robin | sampled | ladder, got 'sampeld' "
                                                   "(did you mean 'sampled'?)"),
    ("schedule: 3", 3, "schedule", "expected one of round_robin | sampled | ladder, got 3"),
    ("placement_matches: 3", 3, "placement_matches", "only used with schedule: ladder; remove it, or add "
                                                     "schedule: ladder"),
    ("tables: 5", 3, "tables", "only used with schedule: sampled (a round robin plays every table); remove it, "
                               "or add schedule: sampled"),
    ("schedule: round_robin\ntables: 5", 4, "tables", "only used with schedule: sampled (a round robin plays every "
                                                      "table); remove it, or add schedule: sampled"),
    ("schedule: sampled", 3, "tables", "required key missing with schedule: sampled; give the number of tables "
                                       "to play per cycle, an integer >= 1 (e.g. tables: 500)"),
    ("schedule: sampled\ntables: 0", 4, "tables", "expected an integer from 1 to 2000000, got 0"),
    ("schedule: sampled\ntables: many", 4, "tables", "expected an integer from 1 to 2000000, got 'many'"),
    ("schedule: sampled\ntables: 2.5", 4, "tables", "expected an integer from 1 to 2000000, got 2.5"),
    ("schedule: sampled\ntables: 1", 4, "tables", "too few for every bot to play (1 table of 4 seats: room for 4 of "
                                                  "5 bots); give at least 2"),
])
def test_schedule_and_tables_errors_name_file_line_and_key(tmp_path, extra, line, key, message):
    error = refused(tmp_path, extra)
    assert str(error) == f"{tmp_path / 'league.yaml'}:{line}: {key}: {message}"
    assert (error.line, error.key) == (line, key) and "\n" not in str(error)


def test_too_few_tables_over_several_sizes(tmp_path):
    path = tmp_path / "league.yaml"
    path.write_text(f"name: league\nseats: [2, 4]\nschedule: sampled\ntables: 3\n{BOTS}")
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == (f"{path}:4: tables: too few for every bot to play at each size it plays (split "
                               "evenly over seats [2, 4], 3 tables make 2 tables of 2 seats: room for 4 of the 5 bots "
                               "that play 2 seats); give at least 5")


def test_the_fingerprint_has_schedule_and_tables_for_sampled_only(tmp_path):
    robin = load_config(write(tmp_path / "a", ""))
    assert "schedule" not in robin.describe() and "tables" not in robin.describe()
    assert load_config(write(tmp_path / "b", "schedule: round_robin")).fingerprint() == robin.fingerprint()
    five = load_config(write(tmp_path / "c", "schedule: sampled\ntables: 5"))
    assert (five.schedule, five.tables) == ("sampled", 5)
    assert five.describe()["schedule"] == "sampled" and five.describe()["tables"] == 5
    six = load_config(write(tmp_path / "d", "schedule: sampled\ntables: 6"))
    assert len({robin.fingerprint(), five.fingerprint(), six.fingerprint()}) == 3


# ---------------------------------------------------------------- a run

def sampled_file(tmp_path: Path, name: str) -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nseats: [2, 3]\nschedule: sampled\ntables: 5\ncycles: 2\nseed: 4\n"
                    f"sandbox: none\nworkers: 2\noutput: {tmp_path / name}\n{BOTS}")
    return path


def rows(output: Path) -> list[tuple]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return db.execute("SELECT idx, match_id, seed, bots, places, totals, rounds FROM matches ORDER BY idx"
                          ).fetchall()
    finally:
        db.close()


def test_a_sampled_tournament_runs_resumes_and_matches_an_uninterrupted_one(tmp_path):
    reference = load_config(sampled_file(tmp_path, "whole"))
    whole = run_tournament(reference, out=open(os.devnull, "w"))
    schedule = schedule_of(reference)
    assert whole.total == len(schedule) == 2 * (3 * 2 + 2 * 3) and whole.failed == 0  # 3 pairs, 2 triples
    assert [r[1] for r in rows(reference.output)] == [m.match_id for m in schedule]

    path = sampled_file(tmp_path, "resumed")
    first = CliRunner().invoke(main, ["run", str(path)])
    assert first.exit_code == 0, first.output
    db = sqlite3.connect(tmp_path / "resumed" / "results.sqlite")
    with db:  # as if the run had been stopped with these matches still to play
        db.execute("DELETE FROM matches WHERE idx % 3 = 1")
    db.close()
    again = CliRunner().invoke(main, ["run", str(path)])
    assert again.exit_code == 0, again.output
    assert "24 matches, 16 already stored, 8 to play" in again.output
    assert rows(tmp_path / "resumed") == rows(reference.output)
    board = CliRunner().invoke(main, ["leaderboard", str(tmp_path / "resumed")])
    assert board.exit_code == 0 and "24 of 24 matches finished" in board.output

    changed = path.read_text().replace("tables: 5", "tables: 6")
    path.write_text(changed)
    refused = CliRunner().invoke(main, ["run", str(path)])  # 6 tables are drawn anew: not the 5 plus one
    assert refused.exit_code == 1 and refused.output.startswith(
        "Error: tables: 5 -> 6: the longer schedule does not begin with the stored matches (match ")
    changed = path.read_text().replace("tables: 6", "tables: 5").replace("cycles: 2", "cycles: 3")
    path.write_text(changed.replace("seed: 4", "seed: 5"))
    refused = CliRunner().invoke(main, ["run", str(path)])  # more cycles, and another change: not an extension
    assert refused.exit_code == 1 and "different tournament configuration" in refused.output
    assert "cycles: stored 2, now 3" in refused.output and "seed: stored 4, now 5" in refused.output
