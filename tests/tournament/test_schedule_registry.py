"""A schedule kind is a module and a registry entry: one defined here, with a config key of its own,
loads, fingerprints and runs through ``run_tournament`` with no change anywhere else; and neither
the driver nor the config loader branches on a kind."""

from __future__ import annotations

import ast
import io
import sqlite3
from contextlib import contextmanager
from dataclasses import dataclass
from itertools import combinations
from pathlib import Path
from typing import Any, Iterator, Mapping

import pytest

from arena.tournament import config as config_module
from arena.tournament import driver as driver_module
from arena.tournament.config import ConfigError, TournamentConfig, load_config
from arena.tournament.driver import run_tournament
from arena.tournament import kinds as registry
from arena.tournament.schedules.base import ScheduledMatch
from arena.tournament.schedules.fixed import FixedKind
from arena.tournament.schedules.kind import KeyReader, Keys, RunHooks
from arena.match.seeds import deal_seed
from arena.tournament.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
BOT = ROOT / "bots" / "random" / "bot.py"


@dataclass(frozen=True)
class PairSettings:
    pair_rounds: int


class CountingHooks(RunHooks):
    """Default hooks that also count the matches they are told were stored, and hold a guard."""

    @classmethod
    @contextmanager
    def guard(cls, config: TournamentConfig) -> Iterator[None]:
        EVERY_PAIR.guarded.append("held")
        yield
        EVERY_PAIR.guarded.append("released")

    def stored(self) -> None:
        EVERY_PAIR.stored += 1


class EveryPair(FixedKind):
    """Every pair of bots meets once per round at one table of two, each meeting its own deal."""

    name = "every_pair"
    keys = Keys(shape=("pair_rounds",))
    hooks = CountingHooks

    def __init__(self) -> None:
        self.stored = 0
        self.guarded: list[str] = []

    def read(self, reader: KeyReader, data: Mapping[str, Any]) -> PairSettings:
        return PairSettings(reader.required_int(("pair_rounds",), data.get("pair_rounds", 1), 1, 9))

    def describe(self, options: Any) -> dict[str, Any]:
        return {"schedule": self.name, "pair_rounds": options.pair_rounds}

    def matches(self, config: TournamentConfig) -> list[ScheduledMatch]:
        assert config.seed is not None
        names = sorted(b.name for b in config.bots)
        meetings = [(r, pair) for r in range(1, config.pair_rounds + 1) for pair in combinations(names, 2)]
        return [ScheduledMatch(i, f"p{r}/{'+'.join(pair)}", deal_seed(config.seed, f"p{r}/{'+'.join(pair)}"), pair, r, 0)
                for i, (r, pair) in enumerate(meetings)]


EVERY_PAIR = EveryPair()


@pytest.fixture
def every_pair() -> Iterator[EveryPair]:
    EVERY_PAIR.stored, EVERY_PAIR.guarded = 0, []
    registry.register(EVERY_PAIR)
    try:
        yield EVERY_PAIR
    finally:
        registry.unregister(EVERY_PAIR.name)


def write(tmp_path: Path, extra: str, name: str = "pairs") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(f"name: {name}\nseats: 2\nseed: 5\nsandbox: none\nworkers: 1\n{extra}"
                    f"output: {tmp_path / name}\nbots:\n"
                    + "".join(f"  - {{name: {n}, command: \"{{python}} {BOT}\"}}\n" for n in ("a", "b", "c")))
    return path


def test_a_kind_registered_by_a_test_runs_through_the_driver_with_its_own_key(tmp_path, every_pair):
    config = load_config(write(tmp_path, "schedule: every_pair\npair_rounds: 2\n"))
    assert (config.schedule, config.pair_rounds) == ("every_pair", 2)
    summary = run_tournament(config, out=io.StringIO())
    assert (summary.total, summary.played, summary.failed) == (6, 6, 0)
    db = sqlite3.connect(config.output / "results.sqlite")
    try:
        ids = [row[0] for row in db.execute("SELECT match_id FROM matches ORDER BY idx")]
    finally:
        db.close()
    assert ids == ["p1/a+b", "p1/a+c", "p1/b+c", "p2/a+b", "p2/a+c", "p2/b+c"]
    assert sorted(s.bot for s in summary.leaderboard.standings) == ["a", "b", "c"]
    assert every_pair.stored == 6 and every_pair.guarded == ["held", "released"]  # its hooks, called by the driver
    again = run_tournament(config, out=io.StringIO())
    assert (again.played, again.skipped) == (0, 6)


def test_its_key_is_checked_with_file_line_and_key_and_refused_elsewhere(tmp_path, every_pair):
    path = write(tmp_path, "schedule: every_pair\npair_rounds: 0\n")
    with pytest.raises(ConfigError) as bad:
        load_config(path)
    assert str(bad.value) == f"{path}:7: pair_rounds: expected an integer from 1 to 9, got 0"
    assert (bad.value.key, bad.value.line) == ("pair_rounds", 7)
    other = write(tmp_path, "pair_rounds: 2\n", "rr")
    with pytest.raises(ConfigError, match=r"rr.yaml:6: pair_rounds: only used with schedule: every_pair; remove "
                                          r"it, or add schedule: every_pair"):
        load_config(other)
    typo = write(tmp_path, "schedule: every_pair\npair_round: 2\n", "typo")
    with pytest.raises(ConfigError, match=r"pair_round: unknown key \(did you mean 'pair_rounds'\?\)"):
        load_config(typo)


def test_its_key_is_in_the_fingerprint(tmp_path, every_pair):
    two = load_config(write(tmp_path, "schedule: every_pair\npair_rounds: 2\n"))
    three = load_config(write(tmp_path, "schedule: every_pair\npair_rounds: 3\n", "three"))
    assert two.describe()["pair_rounds"] == 2 and two.describe()["schedule"] == "every_pair"
    assert two.fingerprint() != three.fingerprint()


def test_an_unregistered_kind_is_an_unknown_schedule(tmp_path):
    path = write(tmp_path, "schedule: every_pair\n")
    with pytest.raises(ConfigError, match=r"schedule: expected one of round_robin \| sampled \| ladder, got "
                                          r"'every_pair'"):
        load_config(path)


def test_a_taken_name_is_refused() -> None:
    with pytest.raises(ValueError, match="taken"):
        registry.register(registry.kind_of("sampled"))


@pytest.mark.parametrize("module", [driver_module, config_module])
def test_the_driver_and_the_loader_branch_on_no_kind(module) -> None:
    source = Path(module.__file__).read_text()
    tree = ast.parse(source)
    kind_names = {"LADDER", "SAMPLED", "ROUND_ROBIN", *registry.names()}
    compared = [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Compare)
                and any(isinstance(side, ast.Attribute) and side.attr == "schedule"
                        or isinstance(side, ast.Name) and side.id in kind_names
                        or isinstance(side, ast.Constant) and side.value in kind_names
                        for side in (node.left, *node.comparators))]
    assert compared == []
    taken = [node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             and node.module and node.module.split(".")[-1] in {"ladder", "sampled", "matchmaking", "round_robin"}]
    assert taken == []
    assert "ladder" not in source.lower()  # not even in a docstring: the kind that keeps ratings is a kind


def test_a_reader_asks_the_stored_kind_what_its_results_are(tmp_path, every_pair):
    """``kinds.reading``: a round robin's, a plug-in kind's and a store with no run yet read as a schedule
    known in advance; a ladder's store keeps its ratings, with its placement, and plays voided rotations
    again. The readers ask this, never a kind's own meta key."""
    from arena.tournament.schedules.kind import Reading
    from tests.tournament.test_ladder import copy_bot, write_ladder

    run_tournament(load_config(write(tmp_path, "schedule: every_pair\npair_rounds: 1\n")), out=io.StringIO())
    plain = tmp_path / "plain"
    run_tournament(load_config(write(tmp_path, "", name="plain")), out=io.StringIO(), max_matches=2)
    ladder = load_config(write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob")]))
    run_tournament(ladder, out=io.StringIO(), max_matches=2)
    (tmp_path / "empty").mkdir()
    answers = {}
    for name, directory in (("pairs", tmp_path / "pairs"), ("plain", plain), ("ladder", ladder.output)):
        store = ResultStore(directory, readonly=True)
        try:
            answers[name] = registry.reading(store)
        finally:
            store.close()
    fresh = ResultStore(tmp_path / "empty")
    try:
        answers["empty"] = registry.reading(fresh)
    finally:
        fresh.close()
    assert answers == {"pairs": Reading(), "plain": Reading(), "empty": Reading(),
                       "ladder": Reading(keeps_ratings=True, placement=2, replays_voided=True)}


@pytest.mark.parametrize("name", ["arena/cli.py", "arena/tournament/standings.py", "arena/site/withhold.py"])
def test_the_readers_name_no_kinds_meta_key(name) -> None:
    """The boards, ``arena leaderboard`` and the report ask the kind (``kinds.reading``), so a ladder's meta key
    is the ladder kind's business alone."""
    tree = ast.parse((ROOT / name).read_text())
    asked = [ast.unparse(node) for node in ast.walk(tree) if isinstance(node, ast.Call)
             and isinstance(node.func, ast.Attribute) and node.func.attr == "meta"
             and any(isinstance(a, ast.Constant) and a.value == "ladder" for a in node.args)]
    assert asked == []


def test_a_kind_is_a_narrow_interface_with_one_optional_hooks_object() -> None:
    """What a kind must know of (its keys, reading and checking them, its fingerprint, its matches, its
    schedule, its board's field, what its results are to readers, where it settles) stays about ten
    members; what a run does beyond playing is one hooks class, which a plain kind does not supply and the
    ladder does."""
    from arena.tournament.ladder.kind import LadderRun
    from arena.tournament.schedules.kind import ScheduleKind

    members = sorted(n for n in dir(ScheduleKind) if not n.startswith("_"))
    assert members == ["build", "check", "describe", "field", "hooks", "keys", "matches", "name", "read",
                       "reading", "settle"]
    assert registry.kind_of("round_robin").hooks is RunHooks and registry.kind_of("sampled").hooks is RunHooks
    assert registry.kind_of("ladder").hooks is LadderRun
    assert not LadderRun.builds_up_front and LadderRun.board_files  # built as they join; a board of its own
