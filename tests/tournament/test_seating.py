"""Tournaments of bots that support only some tables: the schedule, the fingerprint, the refusals."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from arena.bots import BotConfigError
from arena.tournament.config import ConfigError, TournamentConfig, load_config
from arena.tournament.driver import run_tournament, schedule_of

REPO = Path(__file__).resolve().parents[2]
RANDOM = REPO / "bots" / "random"


def bot(tmp_path: Path, name: str, supports: str | None = None) -> str:
    """A bot directory named ``name`` (never started here) declaring ``supports``."""
    directory = tmp_path / name
    directory.mkdir()
    (directory / "bot.yaml").write_text(f'name: {name}\nrun: ["{{python}}", "{RANDOM / "bot.py"}"]\n'
                                        + (f"supports: {supports}\n" if supports else ""))
    return name


def tournament(tmp_path: Path, seats: str, *bots: str, rules: str = "standard") -> Path:
    path = tmp_path / "league.yaml"
    path.write_text(f"name: league\nrules: {rules}\nseats: {seats}\nseed: 5\noutput: {tmp_path / 'out'}\n"
                    "bots:\n" + "".join(f"  - {b}\n" for b in bots))
    return path


def load(tmp_path: Path, seats: str, *bots: str, rules: str = "standard") -> TournamentConfig:
    return load_config(tournament(tmp_path, seats, *bots, rules=rules))


def refused(tmp_path: Path, seats: str, *bots: str, rules: str = "standard") -> str:
    with pytest.raises(ConfigError) as info:
        load(tmp_path, seats, *bots, rules=rules)
    return str(info.value)


def test_the_schedule_seats_bots_only_at_tables_they_support(tmp_path: Path) -> None:
    field = [bot(tmp_path, "a", "{seats: [2]}"), bot(tmp_path, "b", "{seats: [2, 3], rules: [standard]}"),
             bot(tmp_path, "c"), bot(tmp_path, "d"), bot(tmp_path, "e", "{seats: 3}")]
    config = load(tmp_path, "[2, 3]", *field)
    schedule = schedule_of(config)
    pairs = {frozenset(m.bots) for m in schedule if len(m.bots) == 2}
    threes = {frozenset(m.bots) for m in schedule if len(m.bots) == 3}
    assert all("e" not in t for t in pairs) and len(pairs) == 6  # C(4, 2): a, b, c, d
    assert all("a" not in t for t in threes) and len(threes) == 4  # C(4, 3): b, c, d, e
    # What a bot supports decides its matches, so it is fingerprinted; bots that play everything are not.
    described = config.describe()["bots"]
    assert described["a"]["seats"] == [2] and described["e"]["seats"] == [3]
    assert "seats" not in described["b"] and "seats" not in described["c"]


def test_a_field_that_declares_nothing_keeps_its_description(tmp_path: Path) -> None:
    """Tournaments stored before ``supports`` existed resume: each bot is described as before."""
    config = load(tmp_path, "[2, 3]", bot(tmp_path, "a"), bot(tmp_path, "b"), bot(tmp_path, "c"),
                  bot(tmp_path, "d", "{seats: [2, 3, 4]}"))
    assert all(set(entry) == {"command", "directory", "build", "image"} for entry in config.describe()["bots"].values())


def test_a_table_size_the_field_cannot_fill_is_refused_naming_the_bots(tmp_path: Path) -> None:
    field = [bot(tmp_path, "a", "{seats: [2]}"), bot(tmp_path, "b", "{seats: [2, 3]}"), bot(tmp_path, "c"),
             bot(tmp_path, "d")]
    message = refused(tmp_path, "[2, 4]", *field)
    assert message == (f"{tmp_path / 'league.yaml'}:3: seats: no table of 4 seats can be filled: only 2 bots "
                       "support 4 seats under standard rules (c, d); the others declare a: seats [2], b: seats "
                       "[2, 3]; drop 4 from seats or add bots that play it")


def test_the_rules_preset_counts_too(tmp_path: Path) -> None:
    field = [bot(tmp_path, "a", "{rules: [standard]}"), bot(tmp_path, "b"), bot(tmp_path, "c")]
    message = refused(tmp_path, "3", *field, rules="espanola")
    assert "no table of 3 seats can be filled: only 2 bots support 3 seats under espanola rules (b, c); " \
           "the others declare a: rules [standard]" in message


def test_a_bot_that_would_play_no_match_is_refused(tmp_path: Path) -> None:
    field = [bot(tmp_path, "a", "{seats: [4]}"), bot(tmp_path, "b"), bot(tmp_path, "c"), bot(tmp_path, "d")]
    message = refused(tmp_path, "[2, 3]", *field)
    assert message.endswith(": a (supports every preset, 4 seats) would play no match: this tournament plays "
                            "standard at 2 or 3 seats; remove it or change rules or seats")


def test_the_driver_refuses_a_config_made_in_code_before_building_anything(tmp_path: Path) -> None:
    config = load(tmp_path, "2", bot(tmp_path, "a", "{seats: [2, 3]}"), bot(tmp_path, "b"), bot(tmp_path, "c"))
    wider = dataclasses.replace(config, seats=(2, 3), bots=(config.bots[0], config.bots[1]))
    with pytest.raises(BotConfigError, match="^tournament league.yaml: no table of 3 seats can be filled: only 2 "
                                             r"bots support 3 seats under standard rules \(a, b\)"):
        run_tournament(wider)
    assert not (tmp_path / "out").exists()


def test_a_tournament_with_limited_bots_plays_and_resumes(tmp_path: Path) -> None:
    field = [bot(tmp_path, "a", "{seats: [2]}"), bot(tmp_path, "b"), bot(tmp_path, "c"), bot(tmp_path, "d")]
    path = tournament(tmp_path, "[2, 3]", *field)
    path.write_text(path.read_text() + "sandbox: none\nworkers: 1\n")
    first = run_tournament(load_config(path), say=lambda line: None)
    assert (first.total, first.played, first.failed) == (6 * 2 + 1 * 3, 15, 0)
    again = run_tournament(load_config(path), say=lambda line: None)
    assert (again.played, again.skipped) == (0, 15)
    matches = {row.bot: row.matches for row in again.leaderboard.standings}
    assert matches == {"a": 6, "b": 9, "c": 9, "d": 9}
