"""Every number in a tournament file has a range, and a schedule too large to build is refused at load."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import pytest

from arena.bounds import MAX_SCHEDULE_MATCHES
from arena.tournament.config import ConfigError, load_config

from .test_config import BOT_LINES, config_with, failure, load, write

HUGE = "1000000000000000000000000"
"""10**24: past every bound, and past the 64 bits SQLite and the kernel take."""
BAD_INTS = [HUGE, "-1000000000000000000000000", ".nan", ".inf", "-.inf", "-1", "true", "1.5", "1.0e+23"]
"""Values no integer key accepts (the ranges below all start at 0 or more)."""

INT_KEYS = [
    # (line 2 with {} for the value, key path, the allowed range as the message gives it)
    ("cycles: {}", "cycles", "an integer from 1 to 100000"),
    ("time: {{move_ms: {}}}", "time.move_ms", "an integer from 1 to 600000"),
    ("time: {{startup_ms: {}}}", "time.startup_ms", "an integer from 1 to 600000"),
    ("time: {{bank_ms: {}}}", "time.bank_ms", "an integer from 0 to 3600000 or null"),
    ("workers: {}", "workers", "an integer from 1 to 1024 or null"),
    ("matches_per_process: {}", "matches_per_process", "an integer from 1 to 10000"),
    ("max_faults: {}", "max_faults", "an integer from 1 to 1000"),
    ("log_bytes: {}", "log_bytes", "an integer from 0 to 16777216"),
    ("limits: {{cpu_seconds: {}}}", "limits.cpu_seconds", "an integer from 1 to 86400"),
    ("limits: {{memory_mb: {}}}", "limits.memory_mb", "an integer from 1 to 1048576"),
    ("limits: {{file_size_mb: {}}}", "limits.file_size_mb", "an integer from 1 to 1048576"),
    ("limits: {{open_files: {}}}", "limits.open_files", "an integer from 1 to 1048576"),
    ("limits: {{processes: {}}}", "limits.processes", "an integer from 1 to 32768"),
    ("limits: {{tmp_mb: {}}}", "limits.tmp_mb", "an integer from 1 to 1048576"),
    ("rules: {{preset: standard, options: {{max_rounds: {}}}}}", "rules.options.max_rounds",
     "an integer from 1 to 10000"),
    ("rules: {{preset: standard, options: {{max_turns_per_round: {}}}}}", "rules.options.max_turns_per_round",
     "an integer from 1 to 10000"),
    ("rules: {{preset: espanola, options: {{rounds: {}}}}}", "rules.options.rounds", "an integer from 1 to 10000"),
    ("schedule: sampled\ntables: {}", "tables", "an integer from 1 to 2000000"),
    ("schedule: ladder\nplacement_matches: {}", "placement_matches", "an integer from 0 to 10000"),
]


def refused(path: Path, key: str) -> str:
    """The one-line message of a refused file, checked to name the file and the key."""
    message = str(failure(path))
    assert message.startswith(f"{path}:") and f": {key}: " in message and "\n" not in message, message
    return message


@pytest.mark.parametrize("value", BAD_INTS)
@pytest.mark.parametrize("line,key,allowed", INT_KEYS, ids=[k[1] for k in INT_KEYS])
def test_an_integer_key_refuses_what_is_out_of_range_or_not_an_integer(tmp_path: Path, line: str, key: str,
                                                                       allowed: str, value: str) -> None:
    assert allowed in refused(config_with(tmp_path, line.format(value)), key)


TAKE_MAXIMUM = [k for k in INT_KEYS if k[1] != "tables"]
"""The largest ``tables`` makes a schedule over the bound: see the schedule tests."""


@pytest.mark.parametrize("line,key,allowed", TAKE_MAXIMUM, ids=[k[1] for k in TAKE_MAXIMUM])
def test_an_integer_key_takes_its_maximum(tmp_path: Path, line: str, key: str, allowed: str) -> None:
    maximum = allowed.split(" to ")[1].split()[0]
    load(tmp_path, line.format(maximum))  # no error


def test_rule_option_with_no_minimum_still_has_a_range(tmp_path: Path) -> None:
    key = "rules.options.target_score"
    for value in (HUGE, "-" + HUGE, ".nan", "true", "1.5"):
        path = config_with(tmp_path, f"rules: {{preset: espanola, options: {{target_score: {value}}}}}")
        assert "an integer from -100000 to 100000 or null" in refused(path, key)


@pytest.mark.parametrize("value", [HUGE, "-" + HUGE, "9223372036854775808", ".nan", ".inf", "true", "1.5"])
def test_an_integer_seed_is_64_bits(tmp_path: Path, value: str) -> None:
    message = refused(config_with(tmp_path, f"seed: {value}"), "seed")
    assert "expected an integer from -9223372036854775808 to 9223372036854775807 or a string" in message


def test_a_seed_at_the_64_bit_ends_and_a_string_seed_load(tmp_path: Path) -> None:
    for seed in (-(2 ** 63), 2 ** 63 - 1):
        assert load(tmp_path, f"seed: {seed}").seed == seed
    assert load(tmp_path, f"seed: '{HUGE}'").seed == HUGE


RATING_RANGES = {"mu": "from -1000000 to 1000000", "sigma": "from 0.00416667 to 41.6667 (beta/1000 to 10 beta)",
                 "beta": "from 0.001 to 1000000", "tau": "from 0 to 41.6667 (at most 10 beta)",
                 "draw_probability": "from 0 to 0.99"}
"""Each rating number's range as its message gives it, with the default beta (25/6)."""


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "1.0e+23", "-1.0e+23", "true", "x"])
@pytest.mark.parametrize("key", sorted(RATING_RANGES))
def test_a_rating_parameter_is_a_finite_number_in_range(tmp_path: Path, key: str, value: str) -> None:
    message = refused(config_with(tmp_path, f"rating: {{{key}: {value}}}"), f"rating.{key}")
    assert f"expected a number {RATING_RANGES[key]}, got " in message


@pytest.mark.parametrize("key,value,got", [("sigma", "1.0e-300", "1e-300"), ("sigma", "0.004", "0.004"),
                                           ("sigma", "42", "42"), ("beta", "0.0005", "0.0005"), ("tau", "42", "42"),
                                           ("draw_probability", "0.995", "0.995")])
def test_a_rating_parameter_where_a_model_overflows_is_refused_naming_its_line_and_range(tmp_path: Path, key: str,
                                                                                          value: str, got: str) -> None:
    """``sigma: 1.0e-300`` once passed, and every board of the run overflowed after its matches were played."""
    path = config_with(tmp_path, f"time: {{move_ms: 500}}\nrating:\n  {key}: {value}\n")
    message = refused(path, f"rating.{key}")
    assert message == f"{path}:4: rating.{key}: expected a number {RATING_RANGES[key]}, got {got}"


def test_sigma_and_tau_are_bounded_in_units_of_the_beta_given(tmp_path: Path) -> None:
    assert "expected a number from 0.001 to 10 (beta/1000 to 10 beta), got 11" in \
        refused(config_with(tmp_path, "rating: {beta: 1, sigma: 11}"), "rating.sigma")
    assert "expected a number from 0 to 20 (at most 10 beta), got 21" in \
        refused(config_with(tmp_path, "rating: {beta: 2, sigma: 1, tau: 21}"), "rating.tau")
    message = refused(config_with(tmp_path, "rating: {beta: 0.5}"), "rating.beta")  # the default sigma is 8.33
    assert message.endswith("with beta 0.5, the default sigma 8.33333 is not a number from 0.0005 to 5 (beta/1000 to "
                            "10 beta); give sigma too"), message
    rating = load(tmp_path, "rating: {beta: 0.5, sigma: 5, tau: 5, mu: -1000000, draw_probability: 0.99}").rating
    assert (rating.beta, rating.sigma, rating.tau, rating.mu, rating.draw_probability) == (0.5, 5, 5, -1e6, 0.99)


@pytest.mark.parametrize("value", [".nan", ".inf", "-.inf", "-0.5", "1", HUGE, "true"])
def test_fairness_floor_is_a_fraction(tmp_path: Path, value: str) -> None:
    message = refused(config_with(tmp_path, f"schedule: ladder\nfairness_floor: {value}"), "fairness_floor")
    assert "must be a number from 0" in message


# ---------------------------------------------------------------- schedule sizes

def command_bots(count: int) -> str:
    """``count`` bots given as command lines (nothing is started by the loader)."""
    return "bots:\n" + "".join(f"  - {{name: b{i}, command: \"python3 -c pass\"}}\n" for i in range(count))


def test_cycles_of_a_trillion_is_refused_at_once(tmp_path: Path) -> None:
    assert "expected an integer from 1 to 100000, got 1000000000000" in \
        refused(config_with(tmp_path, "cycles: 1000000000000"), "cycles")


def test_a_trillion_sampled_tables_is_refused_at_once(tmp_path: Path) -> None:
    path = config_with(tmp_path, "schedule: sampled\ntables: 1000000000000")
    assert "expected an integer from 1 to 2000000, got 1000000000000" in refused(path, "tables")


def test_a_round_robin_of_too_many_tables_is_refused_naming_seats(tmp_path: Path) -> None:
    path = config_with(tmp_path, "seats: 5", bots=command_bots(60))
    message = refused(path, "seats")
    assert message == (f"{path}:2: seats: the schedule would hold 27,307,560 matches (every table of 60 bots at "
                       f"seats [5], every rotation, 1 cycle), over the {MAX_SCHEDULE_MATCHES:,} a run can build; "
                       "use fewer bots or seats, or schedule: sampled with a number of tables")


def test_a_round_robin_of_too_many_cycles_is_refused_naming_cycles(tmp_path: Path) -> None:
    path = config_with(tmp_path, "cycles: 100000\nseats: [2, 3, 4]", bots=command_bots(5))
    message = refused(path, "cycles")
    assert "would hold 7,000,000 matches" in message and message.endswith("lower cycles to at most 28571")


def test_a_sampled_schedule_of_too_many_tables_is_refused_naming_tables(tmp_path: Path) -> None:
    path = config_with(tmp_path, "seats: 4\nschedule: sampled\ntables: 1000000")
    message = refused(path, "tables")
    assert "would hold 4,000,000 matches (1000000 tables of seats [4]" in message and message.endswith("lower tables")


def test_a_schedule_at_the_bound_loads_without_being_built(tmp_path: Path) -> None:
    config = load(tmp_path, "seats: 4\nschedule: sampled\ntables: 500000")  # 2,000,000 matches
    assert config.tables == 500_000


def test_a_ladder_has_no_total(tmp_path: Path) -> None:
    assert load(tmp_path, "schedule: ladder\nseats: 5", bots="bots: []\n").schedule == "ladder"


# ---------------------------------------------------------------- YAML bounds

BOMB = """\
rules:
  preset: standard
  options:
    max_rounds:
      - &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
      - &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
      - &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
      - &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
      - &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
      - &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
      - &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
      - &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
      - &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""
"""A billion laughs where the loader used to print the value back in its message (gigabytes)."""


def test_an_alias_bomb_in_a_tournament_file_is_refused_in_one_line(tmp_path: Path) -> None:
    path = config_with(tmp_path, BOMB)
    tracemalloc.start()
    try:
        error = failure(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert str(error) == (f"{path}:11: YAML aliases expand to over 100,000 values; write the values out or use "
                          "fewer aliases")
    assert error.line == 11 and peak < 4 * 1024 * 1024


def test_a_shared_bot_list_and_merged_sections_still_load(tmp_path: Path) -> None:
    path = write(tmp_path, f"""name: league
time: &fast {{move_ms: 100, bank_ms: 0}}
limits: {{<<: {{cpu_seconds: 5, memory_mb: 256}}, memory_mb: 512}}
{BOT_LINES}""")
    config = load_config(path)
    assert config.time.move_ms == 100 and config.limits.cpu_seconds == 5 and config.limits.memory_mb == 512


def test_a_tournament_file_over_the_size_bound_is_refused(tmp_path: Path) -> None:
    path = config_with(tmp_path, "# " + "x" * (1024 * 1024))
    with pytest.raises(ConfigError, match="larger than 1024 KiB"):
        load_config(path)


@pytest.mark.parametrize("count", ["0", "1025", HUGE, "²"])
def test_local_dask_workers_are_bounded_like_workers(tmp_path: Path, count: str) -> None:
    message = refused(config_with(tmp_path, f"executor: {{dask: 'local:{count}'}}"), "executor.dask")
    assert message.endswith("expected local:N with N a number of worker processes from 1 to 1024")
