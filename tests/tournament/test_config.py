"""Tournament files: every key, defaults, bot paths, every error message, the fingerprint."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from arena.game.registry import games
from arena.match.link import TimeControl
from arena.sandbox.limits import Limits
from arena.tournament.config import ConfigError, TournamentConfig, load_config
from arena.tournament.rating import RatingParams

REPO = Path(__file__).resolve().parents[2]
BOTS = REPO / "bots"
RANDOM = BOTS / "random"

# Four bots (the default seats is 4); none is built or started by the loader.
BOT_LINES = f"""bots:
  - {BOTS / 'random'}
  - {BOTS / 'heuristic'}
  - {BOTS / 'js-greedy'}
  - {{name: c, path: {BOTS / 'c-random'}}}
"""


def write(directory: Path, text: str, name: str = "league.yaml") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


def config_with(tmp_path: Path, extra: str = "", bots: str = BOT_LINES) -> Path:
    """``name`` on line 1, ``extra`` from line 2, then the bots."""
    return write(tmp_path, "name: league\n" + extra + ("\n" if extra and not extra.endswith("\n") else "") + bots)


def load(tmp_path: Path, extra: str = "", bots: str = BOT_LINES) -> TournamentConfig:
    return load_config(config_with(tmp_path, extra, bots))


def failure(path: Path) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(path)
    return info.value


def error(tmp_path: Path, extra: str = "", bots: str = BOT_LINES) -> str:
    return str(failure(config_with(tmp_path, extra, bots)))


# ---------------------------------------------------------------- valid files

def test_every_key(tmp_path: Path) -> None:
    path = write(tmp_path, f"""
name: spring-cup.2
rules: {{preset: espanola, options: {{kings_zero: all, rounds: 3}}}}
seats: [4, 2, 4]
cycles: 2
seed: abc
time: {{move_ms: 500, startup_ms: 2000, bank_ms: 3000}}
sandbox: none
workers: 3
fault_policy: fallback
max_faults: 5
tell_opponents: true
rating: {{mu: 30, sigma: 5.5, beta: 3, tau: 0.5, draw_probability: 0.2, method: deal}}
limits: {{cpu_seconds: 10, memory_mb: 512, file_size_mb: 4, open_files: 32, processes: 20}}
output: {tmp_path / 'out'}
bots:
  - {RANDOM}
  - {{name: greedy, path: {BOTS / 'js-greedy'}}}
  - {{name: cmd, command: "{{python}} {RANDOM / 'bot.py'}"}}
  - {{name: listed, command: ["{{python}}", "{RANDOM / 'bot.py'}"]}}
""")
    config = load_config(path)
    assert config.name == "spring-cup.2"
    assert config.rules.preset == "espanola"
    assert config.rules.options["kings_zero"] == "all" and config.rules.options["rounds"] == 3
    assert config.rules.options["pairs"] is True  # defaults filled in
    assert config.seats == (2, 4)
    assert config.cycles == 2
    assert config.seed == "abc"
    assert config.time == TimeControl(move_ms=500, startup_ms=2000, bank_ms=3000)
    assert config.sandbox == "none"
    assert config.workers == 3
    assert config.fault_policy == "fallback" and config.max_faults == 5
    assert config.tell_opponents is True
    assert config.rating == RatingParams(mu=30.0, sigma=5.5, beta=3.0, tau=0.5, draw_probability=0.2, method="deal")
    assert config.limits == Limits(cpu_seconds=10, memory_mb=512, file_size_mb=4, open_files=32, processes=20)
    assert config.output == tmp_path / "out"
    assert config.path == path
    assert [b.name for b in config.bots] == ["random", "greedy", "cmd", "listed"]
    assert config.bots[0].directory == str(RANDOM) and config.bots[0].command == ("{python}", "bot.py")
    assert config.bots[1].directory == str(BOTS / "js-greedy")
    assert config.bots[2].command == ("{python}", str(RANDOM / "bot.py")) and config.bots[2].directory is None
    assert config.bots[3].command == config.bots[2].command


def test_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    config = load(tmp_path / "conf")
    assert config.rules.preset == "standard"
    assert config.rules.options["multi_swap_from_discard"] is True
    assert config.seats == (4,)
    assert config.cycles == 1
    assert config.seed is None  # drawn at random by the run, see test_driver
    assert config.time == TimeControl()
    assert config.sandbox == "auto"
    assert config.workers is None
    assert config.matches_per_process == 32
    assert config.fault_policy == "forfeit" and config.max_faults == 3
    assert config.tell_opponents is False
    assert config.rating == RatingParams()
    assert config.limits == Limits()
    assert config.output == tmp_path / "conf" / "results" / "league"  # beside the file, not in the current directory
    assert config.path == tmp_path / "conf" / "league.yaml"
    assert [b.name for b in config.bots] == ["random", "heuristic", "js-greedy", "c"]


def test_null_sections_mean_defaults(tmp_path: Path) -> None:
    config = load(tmp_path, "time: null\nrating:\nlimits: {}\nworkers: null\noutput: null\n")
    assert config.time == TimeControl() and config.rating == RatingParams() and config.limits == Limits()


def test_preset_string_and_seat_forms(tmp_path: Path) -> None:
    config = load(tmp_path, "rules: espanola\nseats: 3\nseed: -7\ntime: {bank_ms: 0}")
    assert config.rules.preset == "espanola" and config.rules.options["kings_zero"] == "two"
    assert config.seats == (3,) and config.seed == -7 and config.time.bank_ms == 0


def test_relative_output_is_relative_to_the_file_from_any_directory(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Every command reads the same results of a file, wherever it is run from."""
    (tmp_path / "elsewhere").mkdir()
    outputs = set()
    for here in (tmp_path, tmp_path / "elsewhere", REPO):
        monkeypatch.chdir(here)
        outputs.add(load(tmp_path / "conf", "output: runs/a").output)
        outputs.add(load(tmp_path / "conf2").output)
    assert outputs == {tmp_path / "conf" / "runs" / "a", tmp_path / "conf2" / "results" / "league"}


def test_results_kept_relative_to_the_current_directory_are_not_silently_left(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """An older arena put a relative output under the current directory: found there and not beside the file,
    the file is refused in one line saying where the results are and what to do, not started anew."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "results" / "league").mkdir(parents=True)
    (tmp_path / "results" / "league" / "results.sqlite").write_bytes(b"")
    path = config_with(tmp_path / "conf", "seats: 2")
    message = str(failure(path))
    assert f"{tmp_path / 'results' / 'league'} holds results" in message and "\n" not in message
    assert f"it is now relative to this file: {tmp_path / 'conf' / 'results' / 'league'}" in message
    assert f"or set output: {tmp_path / 'results' / 'league'}" in message
    assert not (tmp_path / "conf" / "results").exists()
    (tmp_path / "conf" / "results" / "league").mkdir(parents=True)  # moved: found where the file says
    (tmp_path / "conf" / "results" / "league" / "results.sqlite").write_bytes(b"")
    assert load_config(path).output == tmp_path / "conf" / "results" / "league"


# ---------------------------------------------------------------- bot paths

def test_bot_paths_absolute_and_relative_to_the_config_file(tmp_path: Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    conf_dir = tmp_path / "deep" / "conf"
    conf_dir.mkdir(parents=True)
    relative = os.path.relpath(RANDOM, conf_dir)
    assert not Path(relative).is_absolute()
    path = write(conf_dir, f"""name: league
seats: 2
bots:
  - {relative}
  - {{name: other, path: {relative}}}
  - {{name: abs, path: {RANDOM}}}
  - {{name: manifest, path: {relative}/bot.yaml}}
""")
    monkeypatch.chdir(REPO / "docs")  # the current directory must not matter
    config = load_config(path)
    assert [b.name for b in config.bots] == ["random", "other", "abs", "manifest"]
    assert {b.directory for b in config.bots} == {str(RANDOM)}


def test_relative_paths_do_not_use_the_current_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(REPO)
    path = config_with(tmp_path, "seats: 2", "bots: [bots/random, bots/heuristic]\n")
    message = str(failure(path))
    assert f"bots[0]: no such bot directory: {tmp_path / 'bots' / 'random'}" in message
    assert f"relative to {tmp_path}" in message


def test_command_paths_relative_to_the_config_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mine.py").write_text("print('hi')\n")
    monkeypatch.chdir(REPO)
    config = load(tmp_path, "seats: 2", f"bots:\n  - {RANDOM}\n  - {{name: mine, command: '{{python}} ./mine.py'}}\n")
    assert config.bots[1].command == ("{python}", str(tmp_path / "mine.py"))


def test_name_is_derived_for_an_unnamed_command(tmp_path: Path) -> None:
    config = load(tmp_path, "seats: 2", f"bots:\n  - {RANDOM}\n  - {{command: '{{python}} {RANDOM}/bot.py'}}\n")
    assert config.bots[1].name == "bot"


def test_loader_builds_and_runs_nothing(tmp_path: Path) -> None:
    bot = tmp_path / "needs-build"
    bot.mkdir()
    (bot / "bot.yaml").write_text('name: builder\nbuild: "touch built"\nrun: ["./bot"]\n')
    config = load(tmp_path, "seats: 2", f"bots:\n  - needs-build\n  - {{name: runner, command: 'touch {tmp_path}/ran'}}\n")
    assert config.bots[0].build == "touch built"
    assert not (bot / "built").exists() and not (tmp_path / "ran").exists()


# ---------------------------------------------------------------- file-level errors

def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    err = failure(path)
    assert str(err) == f"{path}: no such file" and err.file == str(path)


def test_directory_instead_of_file(tmp_path: Path) -> None:
    assert str(failure(tmp_path)) == f"{tmp_path}: is a directory, not a tournament file"


def test_unreadable_path(tmp_path: Path) -> None:
    (tmp_path / "plain").write_text("x")
    path = tmp_path / "plain" / "league.yaml"
    assert str(failure(path)).startswith(f"{path}: cannot read the file: Not a directory")


def test_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "league.yaml"
    path.write_bytes(b"name: \xff\xfe\n")
    assert "not UTF-8 text" in str(failure(path))


def test_not_yaml_gives_yamls_line(tmp_path: Path) -> None:
    path = write(tmp_path, "name: league\nseats: 2\ntime: {move_ms: [}\n")
    err = failure(path)
    assert str(err).startswith(f"{path}:3: not valid YAML: ") and err.line == 3


def test_not_yaml_bad_indentation(tmp_path: Path) -> None:
    path = write(tmp_path, "name: league\nbots:\n  - a\n - b\n")
    assert str(failure(path)).startswith(f"{path}:4: not valid YAML")


def test_empty_file(tmp_path: Path) -> None:
    path = write(tmp_path, "# nothing yet\n")
    assert "the file is empty; expected a mapping with at least 'name' and 'bots'" in str(failure(path))


def test_top_level_not_a_mapping(tmp_path: Path) -> None:
    path = write(tmp_path, "- name: league\n- bots: []\n")
    message = str(failure(path))
    assert message.startswith(f"{path}:1: the top level must be a mapping") and "got a list" in message


@pytest.mark.parametrize("text", ["root:*:20228:0:99999:7:::\ndaemon:*:20228:0:99999:7:::\n",
                                  "root:x:0:0:root:/root:/bin/bash daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n",
                                  "token-3f9a1c77e2\n", "name: x\nbots: [a, b]\nAPI_KEY=s3cr3t: 1\n"])
def test_a_file_that_is_no_tournament_file_is_refused_without_echoing_it(tmp_path: Path, text: str) -> None:
    """`arena run /etc/shadow`: the error names the file and the problem, never its content."""
    path = write(tmp_path, text)
    message = str(failure(path))
    assert message.startswith(f"{path}:") and "is this a tournament file?" in message
    said = message[len(str(path)):]
    for secret in ("20228", "root", "3f9a1c77e2", "s3cr3t", "API_KEY"):
        assert secret not in said


# ---------------------------------------------------------------- keys

def test_unknown_key_suggests_the_closest(tmp_path: Path) -> None:
    path = config_with(tmp_path, "seat: 2")
    err = failure(path)
    assert str(err).startswith(f"{path}:2: seat: unknown key (did you mean 'seats'?); allowed keys: name, game, rules, "
                               "seats, cycles, schedule, tables, seed, time, sandbox, workers, executor, matches_per_process, fault_policy, "
                               "max_faults, tell_opponents, rating, settle, limits, log_bytes, output, bots")
    assert err.key == "seat" and err.line == 2


def test_unknown_key_without_a_close_match(tmp_path: Path) -> None:
    message = error(tmp_path, "colour: blue")
    assert ":2: colour: unknown key; allowed keys: name," in message and "did you mean" not in message


def test_unknown_nested_key(tmp_path: Path) -> None:
    message = error(tmp_path, "time:\n  startup_ms: 5\n  move_s: 5")
    assert ":4: time.move_s: unknown key (did you mean 'move_ms'?); allowed keys: move_ms, startup_ms, bank_ms" \
        in message


def test_non_string_key(tmp_path: Path) -> None:
    assert ":2: 12: unknown key; allowed keys:" in error(tmp_path, "12: x")


def test_key_given_twice(tmp_path: Path) -> None:
    message = error(tmp_path, "seats: 2\ncycles: 1\nseats: 3")
    assert ":4: seats: key given twice (first at line 2)" in message


@pytest.mark.parametrize("key", ["name", "bots"])
def test_required_key_missing(tmp_path: Path, key: str) -> None:
    text = "name: league\n" + BOT_LINES
    text = text.replace("name: league\n", "") if key == "name" else "name: league\n"
    path = write(tmp_path, text)
    err = failure(path)
    assert str(err).startswith(f"{path}: {key}: required key missing; ") and err.line is None


# ---------------------------------------------------------------- values (extra on line 2)

BAD_VALUES = [
    # (extra, key path, expected fragment)
    ("rules: 5", "rules", "expected a preset name (standard | espanola) or a mapping"),
    ("rules: blackjack", "rules", "unknown rule preset 'blackjack'; expected one of standard | espanola"),
    ("rules: {options: {}}", "rules.preset", "required key missing; expected one of standard | espanola"),
    ("rules: {preset: standard, option: {}}", "rules.option", "unknown key (did you mean 'options'?); "
                                                              "allowed keys: preset, options"),
    ("rules: {preset: espanola, options: {kings_zero: some}}", "rules.options.kings_zero",
     "'some' is not allowed; expected two | all | none"),
    ("rules: {preset: standard, options: {kings_zero: all}}", "rules.options.kings_zero",
     "unknown key; allowed keys: multi_swap_from_discard, max_turns_per_round, max_rounds"),
    ("rules: {preset: espanola, options: {rounds: 0}}", "rules.options.rounds", "expected an integer from 1 to 10000"),
    ("rules: {preset: espanola, options: [1]}", "rules.options", "expected a mapping of option: value, got a list"),
    ("seats: 6", "seats", "expected an integer from 2 to 5, got 6"),
    ("seats: 1", "seats", "expected an integer from 2 to 5, got 1"),
    ("seats: true", "seats", "expected an integer from 2 to 5 or a non-empty list of them, got true"),
    ("seats: '4'", "seats", "expected an integer from 2 to 5 or a non-empty list of them, got '4'"),
    ("seats: []", "seats", "expected a non-empty list of integers from 2 to 5, got an empty list"),
    ("seats: [2, x]", "seats[1]", "expected an integer from 2 to 5, got 'x'"),
    ("cycles: 0", "cycles", "expected an integer from 1 to 100000, got 0"),
    ("cycles: 1.5", "cycles", "expected an integer from 1 to 100000, got 1.5"),
    ("seed: 1.5", "seed", "expected an integer from -9223372036854775808 to 9223372036854775807 or a string, got 1.5"),
    ("seed: true", "seed", "expected an integer from -9223372036854775808 to 9223372036854775807 or a string, got true"),
    ("seed: 2024-01-01", "seed", "quote it to make it a string"),
    ("time: 5", "time", "expected a mapping with keys among move_ms, startup_ms, bank_ms, got 5"),
    ("time: {move_ms: fast}", "time.move_ms", "expected an integer from 1 to 600000, got 'fast'"),
    ("time: {move_ms: 0}", "time.move_ms", "expected an integer from 1 to 600000, got 0"),
    ("time: {startup_ms: null}", "time.startup_ms", "expected an integer from 1 to 600000, got null"),
    ("time: {bank_ms: -1}", "time.bank_ms", "expected an integer from 0 to 3600000 or null, got -1"),
    ("sandbox: bwarp", "sandbox", "expected one of auto | none | bwrap | docker, got 'bwarp' (did you mean 'bwrap'?)"),
    ("sandbox: true", "sandbox", "expected one of auto | none | bwrap | docker, got true"),
    ("workers: 0", "workers", "expected an integer from 1 to 1024 or null, got 0"),
    ("workers: two", "workers", "expected an integer from 1 to 1024 or null, got 'two'"),
    ("matches_per_process: 0", "matches_per_process", "expected an integer from 1 to 10000, got 0"),
    ("fault_policy: ignore", "fault_policy", "expected one of forfeit | fallback, got 'ignore'"),
    ("max_faults: 0", "max_faults", "expected an integer from 1 to 1000, got 0"),
    ("tell_opponents: 1", "tell_opponents", "expected true or false, got 1"),
    ("tell_opponents: 'true'", "tell_opponents", "expected true or false, got 'true'"),
    ("tell_opponents: null", "tell_opponents", "expected true or false, got null"),
    ("tell_opponent: true", "tell_opponent", "unknown key (did you mean 'tell_opponents'?)"),
    ("rating: [1]", "rating", "expected a mapping with keys among mu, sigma, beta, tau, draw_probability, method,"),
    ("rating: {method: dupe}", "rating.method", "expected one of match | deal | table, got 'dupe'"),
    ("rating: {method: 1}", "rating.method", "expected one of match | deal | table, got 1"),
    ("rating: {method: deal}\nschedule: ladder", "rating.method",
     "expected match: a ladder keeps its ratings match by match, got deal"),
    ("rating: {mu: x}", "rating.mu", "expected a number from -1000000 to 1000000, got 'x'"),
    ("rating: {mu: true}", "rating.mu", "expected a number from -1000000 to 1000000, got true"),
    ("rating: {beta: .nan}", "rating.beta", "expected a number from 0.001 to 1000000, got nan"),
    ("rating: {sigma: 0}", "rating.sigma",
     "expected a number from 0.00416667 to 41.6667 (beta/1000 to 10 beta), got 0"),
    ("rating: {tau: -1}", "rating.tau", "expected a number from 0 to 41.6667 (at most 10 beta), got -1"),
    ("rating: {draw_probability: 1}", "rating.draw_probability", "expected a number from 0 to 0.99, got 1"),
    ("rating: {sigmaa: 1}", "rating.sigmaa", "unknown key (did you mean 'sigma'?); allowed keys: mu, sigma, "
                                             "beta, tau, draw_probability, method"),
    ("rules: {preset: espanola, options: {pairs: 'yes'}}", "rules.options.pairs",
     "option 'pairs': 'yes' is a string; expected true or false, written without quotes"),
    ("rules: {preset: espanola, options: {rounds: '5'}}", "rules.options.rounds",
     "option 'rounds': '5' is a string; expected an integer"),
    ("rules: {preset: espanola, options: {pairs: maybe}}", "rules.options.pairs",
     "option 'pairs': 'maybe' is a string; expected true or false"),
    ("settle: 5", "settle", "expected a mapping with keys among margin, got 5"),
    ("settle: {margin: 0}", "settle.margin", "expected places per match, a number above 0 and at most 4"),
    ("settle: {margin: -1}", "settle.margin", "at most 4 (e.g. 0.25: a quarter of a place), got -1"),
    ("settle: {margin: 4.5}", "settle.margin", "got 4.5"),
    ("settle: {margin: .inf}", "settle.margin", "got inf"),
    ("settle: {margin: quarter}", "settle.margin", "got 'quarter'"),
    ("settle: {margin: true}", "settle.margin", "got true"),
    ("settle: {margn: 0.1}", "settle.margn", "unknown key (did you mean 'margin'?); allowed keys: margin"),
    ("limits: {memory_mb: 0}", "limits.memory_mb", "expected an integer from 1 to 1048576, got 0"),
    ("limits: {cpu_seconds: 1.5}", "limits.cpu_seconds", "expected an integer from 1 to 86400, got 1.5"),
    ("limits: {stack_mb: 8}", "limits.stack_mb", "unknown key; allowed keys: cpu_seconds, memory_mb, file_size_mb, "
                                                 "open_files, processes, tmp_mb"),
    ("limits: {processes: 0}", "limits.processes", "expected an integer from 1 to 32768, got 0"),
    ("log_bytes: -1", "log_bytes", "expected an integer from 0 to 16777216, got -1"),
    ("log_bytes: 64k", "log_bytes", "expected an integer from 0 to 16777216, got '64k'"),
    ("log_bytes: 99999999", "log_bytes", "expected an integer from 0 to 16777216, got 99999999"),
    ("limits: {log_bytes: 10}", "limits.log_bytes", "unknown key; allowed keys: cpu_seconds"),
    ("output: 5", "output", "expected a directory path (a string) or null for results/league, got 5"),
    ("output: ''", "output", "expected a directory path (a string) or null"),
    ("output: /tmp/" + "a" * 5000, "output", "a path of 5,005 characters whose longest name has 5,000 bytes; a "
                                            "directory name holds at most 255 bytes"),
    ("output: /tmp/" + "/".join(["b" * 200] * 25), "output", "and a path 4,096: give a shorter output path"),
]


@pytest.mark.parametrize("extra,key,fragment", BAD_VALUES, ids=[b[0] for b in BAD_VALUES])
def test_bad_value(tmp_path: Path, extra: str, key: str, fragment: str) -> None:
    path = config_with(tmp_path, extra)
    err = failure(path)
    assert str(err).startswith(f"{path}:2: {key}: "), str(err)
    assert fragment in str(err)
    assert err.line == 2 and err.key == key


def test_the_settle_margin_is_read_and_kept_out_of_the_fingerprint(tmp_path: Path) -> None:
    plain = load(tmp_path)
    (tmp_path / "wide").mkdir()
    wide = load(tmp_path / "wide", "settle: {margin: 0.5}")
    assert plain.margin == 0.25 and wide.margin == 0.5
    assert plain.describe() == wide.describe()  # the margin decides no match: a run may change it


@pytest.mark.parametrize("name", ["League", "-x", "", "a b", "x" * 65, "5"])
def test_bad_name(tmp_path: Path, name: str) -> None:
    path = write(tmp_path, f"name: {json.dumps(name) if name != '5' else 5}\n{BOT_LINES}")
    err = failure(path)
    assert str(err).startswith(f"{path}:1: name: expected 1-64 characters of a-z 0-9 - _ . starting with a "
                               "letter or digit, got "), str(err)


def test_line_of_a_block_value(tmp_path: Path) -> None:
    path = config_with(tmp_path, "time:\n  startup_ms: 100\n  move_ms: fast\n")
    assert str(failure(path)) == f"{path}:4: time.move_ms: expected an integer from 1 to 600000, got 'fast'"


# ---------------------------------------------------------------- bots

def test_bots_not_a_list(tmp_path: Path) -> None:
    message = error(tmp_path, bots=f"bots: {RANDOM}\n")
    assert f":2: bots: expected a list of at least 2 bots, got '{RANDOM}'" in message


def test_one_bot_is_too_few(tmp_path: Path) -> None:
    message = error(tmp_path, "seats: 2", f"bots: [{RANDOM}]\n")
    assert ":3: bots: expected a list of at least 2 bots, got 1 entry" in message


def test_more_seats_than_bots(tmp_path: Path) -> None:
    message = error(tmp_path, "seats: [2, 5]")
    assert ":2: seats: matches of 5 players need at least 5 bots, but bots lists 4; add bots or set seats to " \
           "at most 4" in message


def test_default_seats_need_four_bots(tmp_path: Path) -> None:
    message = error(tmp_path, bots=f"bots: [{RANDOM}, {BOTS / 'heuristic'}]\n")
    assert ":2: bots: matches of 4 players (seats is not given; the default is 4) need at least 4 bots" in message


BAD_BOTS = [
    ("5", "bots[1]", "expected a bot directory path, {name: x, path: dir} or {name: x, command:"),
    ("{name: x}", "bots[1]", "give either path (a bot directory) or command (a command line), one of them is "
                             "required"),
    ("{name: x, path: a, command: b}", "bots[1]", "give either path (a bot directory) or command (a command line), "
                                                  "not both"),
    ("{name: x, paths: a}", "bots[1].paths", "unknown key (did you mean 'path'?); allowed keys: name, path, command"),
    ("{name: X Y, path: a}", "bots[1].name", "expected 1-64 characters of a-z 0-9 - _ . starting with a letter or "
                                             "digit, got 'X Y'"),
    ("{name: x, path: 5}", "bots[1].path", "expected the path of a bot directory (a string), got 5"),
    ("{name: x, path: missing}", "bots[1].path", "no such bot directory: {tmp}/missing (relative paths are "
                                                 "relative to {tmp})"),
    ("missing", "bots[1]", "no such bot directory: {tmp}/missing"),
    ("random=python3 x.py", "bots[1]", "for a command line write {name: x, command: \"...\"}"),
    (str(RANDOM / "bot.py"), "bots[1]", f"is a file, not a bot directory: {RANDOM / 'bot.py'}"),
    ("league.yaml", "bots[1]", "league.yaml:2: unknown field 'seats'"),  # a .yaml file is read as a manifest
    ("{name: x, command: 'no-such-program-zz --flag'}", "bots[1].command",
     "'no-such-program-zz' is not an executable program"),
    ("{name: x, command: ''}", "bots[1].command", "expected a command line (a string, or a list of strings), got ''"),
    ("{name: x, command: .}", "bots[1].command", "this is a directory; a bot directory goes under path, not command"),
    ("{name: x, command: 'a \"b'}", "bots[1].command", "cannot parse the command line"),
]


@pytest.mark.parametrize("entry,key,fragment", BAD_BOTS, ids=[b[0] for b in BAD_BOTS])
def test_bad_bot_entry(tmp_path: Path, entry: str, key: str, fragment: str) -> None:
    path = config_with(tmp_path, "seats: 2", f"bots:\n  - {RANDOM}\n  - {entry}\n")
    err = failure(path)
    assert str(err).startswith(f"{path}:5: {key}: "), str(err)
    assert fragment.replace("{tmp}", str(tmp_path)) in str(err)
    assert err.key == key and err.line == 5


def test_directory_without_manifest(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    message = error(tmp_path, "seats: 2", f"bots:\n  - {RANDOM}\n  - {{name: e, path: empty}}\n")
    assert f":5: bots[1].path: {tmp_path / 'empty'}: no bot.yaml manifest in this bot directory" in message


def test_bad_manifest(tmp_path: Path) -> None:
    (tmp_path / "bad").mkdir()
    (tmp_path / "bad" / "bot.yaml").write_text("name: bad\nrun: [x]\ncolour: red\n")
    message = error(tmp_path, "seats: 2", f"bots:\n  - {RANDOM}\n  - bad\n")
    assert ":5: bots[1]: " in message and "unknown field 'colour'; allowed:" in message


def test_duplicate_bot_names_name_both_entries(tmp_path: Path) -> None:
    bots = f"bots:\n  - {RANDOM}\n  - {BOTS / 'heuristic'}\n  - {{name: random, path: {BOTS / 'js-greedy'}}}\n"
    path = config_with(tmp_path, "seats: 2", bots)
    err = failure(path)
    assert str(err).startswith(f"{path}:6: bots[2]: duplicate bot name 'random': bots[0] at line 4 has it too; ")
    assert "{name: other-name, path: ...}" in str(err)


# ---------------------------------------------------------------- fingerprint

def fingerprint(tmp_path: Path, extra: str = "", bots: str = BOT_LINES) -> str:
    return load(tmp_path, extra, bots).fingerprint()


def test_fingerprint_ignores_workers_output_rating_name_and_bot_order(tmp_path: Path) -> None:
    base = fingerprint(tmp_path)
    assert len(base) == 64 and int(base, 16) >= 0
    assert fingerprint(tmp_path, "workers: 7") == base
    assert fingerprint(tmp_path, "matches_per_process: 1") == base
    assert fingerprint(tmp_path, f"output: {tmp_path / 'elsewhere'}") == base
    assert fingerprint(tmp_path, "rating: {mu: 10, sigma: 2, draw_probability: 0}") == base
    assert fingerprint(tmp_path, "rules: {preset: standard, options: {max_rounds: 100}}") == base  # the default
    reordered = "bots:\n" + "".join(reversed(BOT_LINES.splitlines(keepends=True)[1:]))
    assert fingerprint(tmp_path, bots=reordered) == base
    renamed = config_with(tmp_path, bots=BOT_LINES).read_text().replace("name: league", "name: other")
    assert load_config(write(tmp_path, renamed)).fingerprint() == base


@pytest.mark.parametrize("extra", [
    "seed: 2", "seed: '1x'", "seats: 3", "seats: [2, 4]", "cycles: 2",
    "rules: {preset: standard, options: {multi_swap_from_discard: false}}", "rules: espanola",
    "time: {move_ms: 999}", "time: {bank_ms: 100}", "sandbox: none", "limits: {memory_mb: 512}",
    "limits: {processes: 200}", "limits: {tmp_mb: 8}", "fault_policy: fallback", "max_faults: 4",
    "tell_opponents: true",
])
def test_fingerprint_changes_with_what_decides_the_matches(tmp_path: Path, extra: str) -> None:
    assert fingerprint(tmp_path / "a", extra) != fingerprint(tmp_path / "b")


def test_fingerprint_changes_with_the_bots(tmp_path: Path) -> None:
    base = fingerprint(tmp_path)
    renamed = BOT_LINES.replace("{name: c,", "{name: c2,")
    other_dir = BOT_LINES.replace("{name: c, path: " + str(BOTS / "c-random"), "{name: c, path: " + str(RANDOM))
    added = BOT_LINES + f"  - {{name: fifth, path: {RANDOM}}}\n"
    command = BOT_LINES.replace(f"{{name: c, path: {BOTS / 'c-random'}}}", "{name: c, command: 'true'}")
    results = {fingerprint(tmp_path, bots=b) for b in (renamed, other_dir, added, command)}
    assert base not in results and len(results) == 4


def test_default_later_limits_keep_fingerprints_from_before_them(tmp_path: Path) -> None:
    """Tournaments begun before ``limits.processes`` and ``tmp_mb`` existed resume: defaults are not described."""
    assert set(load(tmp_path / "a").describe()["limits"]) == {  # exactly the keys described before
        "cpu_seconds", "memory_mb", "file_size_mb", "open_files", "stderr_tail_bytes", "max_line_bytes"}
    assert fingerprint(tmp_path / "b", "limits: {processes: 64, tmp_mb: 64}") == fingerprint(tmp_path / "c")
    assert load(tmp_path / "d", "limits: {processes: 8}").describe()["limits"]["processes"] == 8


def test_log_bytes_sets_the_limit_and_is_not_fingerprinted(tmp_path: Path) -> None:
    """How much of a bot's stderr is kept changes no result: tournaments resume whatever it is set to."""
    assert load(tmp_path / "a").limits.log_bytes == 65536
    assert load(tmp_path / "b", "log_bytes: 0").limits.log_bytes == 0
    assert fingerprint(tmp_path / "c", "log_bytes: 1024") == fingerprint(tmp_path / "d")
    assert "log_bytes" not in load(tmp_path / "e", "log_bytes: 1024").describe()["limits"]


def test_tell_opponents_off_keeps_fingerprints_from_before_it(tmp_path: Path) -> None:
    """Off is the default and is not described, so tournaments begun before the key existed resume."""
    assert "tell_opponents" not in load(tmp_path / "a").describe()
    assert fingerprint(tmp_path / "b", "tell_opponents: false") == fingerprint(tmp_path / "c")
    assert load(tmp_path / "d", "tell_opponents: true").describe()["tell_opponents"] is True


def test_game_cabo_keeps_fingerprints_from_before_it(tmp_path: Path) -> None:
    """Cabo is the default game and is not described, so tournaments begun before ``game`` existed resume."""
    assert "game" not in load(tmp_path / "a").describe() and load(tmp_path / "a").game == "cabo"
    assert fingerprint(tmp_path / "b", "game: cabo") == fingerprint(tmp_path / "c")


def test_an_unknown_game_names_the_line_and_the_closest(tmp_path: Path) -> None:
    path = config_with(tmp_path, "game: cabbo")
    assert str(failure(path)) == f"{path}:2: game: unknown game 'cabbo' (did you mean 'cabo'?); expected one of " \
        + " | ".join(games())


def test_wire_id_is_opaque_unless_tell_opponents(tmp_path: Path) -> None:
    readable = "c1/c+heuristic+js-greedy/r1"
    hidden = load(tmp_path / "a", "seed: 7")
    told = load(tmp_path / "b", "seed: 7\ntell_opponents: true")
    assert told.wire_id(readable) == readable
    opaque = hidden.wire_id(readable)
    assert re.fullmatch(r"m-[0-9a-f]{16}", opaque)
    assert opaque == hidden.wire_id(readable) == load(tmp_path / "c", "seed: '7'").wire_id(readable)  # stable
    assert opaque != hidden.wire_id("c1/c+heuristic+js-greedy/r2")  # every rotation its own
    assert opaque != load(tmp_path / "d", "seed: 8").wire_id(readable)  # keyed with the master seed
    with pytest.raises(ValueError, match="no master seed yet"):
        load(tmp_path / "e").wire_id(readable)


def test_describe_is_plain_json_and_matches_the_fingerprint(tmp_path: Path) -> None:
    config = load(tmp_path, "seats: [2, 3]\nworkers: 2")
    described = config.describe()
    assert json.loads(json.dumps(described)) == described  # survives storing in the results database
    assert described["seats"] == [2, 3] and "workers" not in described and "rating" not in described
    assert described["bots"]["c"]["build"] and described["bots"]["random"]["directory"] == str(RANDOM)
    assert described["rules"] == {"preset": "standard", "options": dict(config.rules.options)}
    assert load(tmp_path, "seats: [3, 2, 2]\nworkers: 5").fingerprint() == config.fingerprint()


def test_bot_entries_may_name_a_container_image(tmp_path: Path) -> None:
    bots = f"""bots:
  - {{name: c, path: {BOTS / 'c-random'}, image: cabo-bots:1}}
  - {{name: boxed, command: /bot/bot --fast, image: cabo-bots:1}}
"""
    config = load(tmp_path, "seats: 2\nsandbox: docker", bots)
    c, boxed = config.bots
    assert c.image == "cabo-bots:1" and c.directory is not None
    assert boxed.image == "cabo-bots:1" and boxed.command == ("/bot/bot", "--fast") and boxed.directory is None
    # The image is part of what decides how matches are played.
    other = load(tmp_path / "o", "seats: 2\nsandbox: docker", bots.replace("cabo-bots:1", "cabo-bots:2"))
    assert other.fingerprint() != config.fingerprint()


def test_image_command_needs_a_name_and_a_string_image(tmp_path: Path) -> None:
    nameless = "bots:\n  - {command: /bot/bot, image: x}\n  - {command: /bot/bot, image: y}\n"
    assert "needs a name" in error(tmp_path, "seats: 2", nameless)
    bad = f"bots:\n  - {{name: a, path: {BOTS / 'random'}, image: 3}}\n  - {BOTS / 'heuristic'}\n"
    assert "bots[0].image" in error(tmp_path / "b", "seats: 2", bad)


@pytest.mark.parametrize("extra, said", [
    ("options: {rounds: 3}", "options: unknown key at the top of the file: rule options go inside rules, as "
                             "rules: {preset: standard, options: {...}}"),
    ("preset: espanola", "preset: unknown key at the top of the file: the preset goes inside rules"),
    ("move_ms: 500", "move_ms: unknown key at the top of the file: it goes inside time, as time: {move_ms: 1000}"),
])
def test_a_sections_key_at_the_top_names_the_section_it_belongs_in(tmp_path: Path, extra: str, said: str) -> None:
    message = error(tmp_path, extra)
    assert f"league.yaml:2: {said}" in message and "\n" not in message
