"""The command line, driven through click's CliRunner."""

import re
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game.replay import FORMAT
from arena.match.seeds import play_match_id

ROOT = Path(__file__).resolve().parents[1]


def run(*args):
    return CliRunner().invoke(main, list(args))


def test_help_lists_commands():
    result = run("--help")
    assert result.exit_code == 0 and "rules" in result.output


def test_rules_prints_options_and_values():
    result = run("rules", "standard")
    assert result.exit_code == 0
    assert "multi_swap_from_discard = true" in result.output
    assert "KH=0" in result.output and "KS=13" in result.output and "QD=12" in result.output


def test_rules_with_option_marks_the_change():
    result = run("rules", "espanola", "--option", "kings_zero=all")
    assert result.exit_code == 0
    assert "kings_zero = all (default two)" in result.output and "RO=0" in result.output


def test_bad_option_is_one_clear_line():
    result = run("rules", "espanola", "--option", "kings_zero=some")
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "option 'kings_zero': 'some' is not allowed; expected two | all | none" in result.output
    result = run("rules", "standard", "-o", "pairs=true")
    assert "unknown option 'pairs' for preset 'standard'" in result.output


def test_unknown_preset():
    result = run("rules", "poker")
    assert result.exit_code == 2 and "'poker' is not one of 'standard', 'espanola'" in result.output


def test_selfplay_summary():
    result = run("selfplay", "--rules", "espanola", "--matches", "5", "--players", "3", "--seed", "2")
    assert result.exit_code == 0, result.output
    assert "5 random matches" in result.output and "match ends: rounds 5" in result.output


def test_play_writes_replay_and_prints_standings(tmp_path):
    replay = tmp_path / "m.jsonl"
    result = run("play", "bots/random", "bots/random", "--seed", "4", "--sandbox", "none", "--replay", str(replay))
    assert result.exit_code == 0, result.output
    assert "standings:" in result.output and "random-2@1" in result.output and "faults: none" in result.output
    assert replay.read_text().startswith('{"type":"header"')
    seat = run("replay", str(replay), "--seat", "1")
    assert seat.exit_code == 0 and "showing seat 1 (random-2)" in seat.output
    everything = run("replay", str(replay))
    assert "> seat 0 chose do=look_initial" in everything.output


@pytest.mark.parametrize("where, says", [("/proc/1/x.jsonl", "cannot write it: No such file or directory"),
                                         ("FIFO", "not a regular file; give a file path to write the replay to")])
def test_play_refuses_a_replay_path_it_cannot_write_before_it_plays(tmp_path, where, says):
    import os

    if where == "FIFO":
        where = str(tmp_path / "r.jsonl")
        os.mkfifo(where)
    result = run("play", "bots/random", "bots/random", "--seed", "4", "--sandbox", "none", "--replay", where)
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
    assert result.output.strip().splitlines() == [f"Error: --replay {where}: {says}" +
                                                  ("; give a path in a directory you can write" if "/proc" in where
                                                   else "")]
    assert "standings" not in result.output  # refused before the match was played


def test_play_json_is_machine_readable(tmp_path):
    import json

    result = run("play", "bots/random", "--players", "3", "--rules", "espanola", "--seed", "x", "--sandbox", "none",
                 "--replay", str(tmp_path / "r.jsonl"), "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["bots"] == ["random", "random-2", "random-3"] and sorted(data["places"])[0] == 1
    assert len(data["rounds"]) == 5 and data["faults"] == []


def test_play_without_seed_draws_one_prints_it_and_can_be_replayed(tmp_path):
    import json

    def play(*extra):
        result = run("play", "bots/random", "bots/random", "--sandbox", "none", "--json",
                     "--replay", str(tmp_path / "r.jsonl"), *extra)
        assert result.exit_code == 0, result.output
        return json.loads(result.output)

    first, second = play(), play()
    assert first["seed"] != second["seed"]  # a fixed default seed would be known to every bot author
    again = play("--seed", str(first["seed"]))
    assert (again["seed"], again["totals"], again["rounds"]) == (first["seed"], first["totals"], first["rounds"])
    assert again["match"] == first["match"] != second["match"]  # its own id, kept when the match is played again
    assert re.fullmatch(r"m-[0-9a-f]{16}", first["match"]) and str(first["seed"]) not in first["match"]


def test_each_play_sends_its_own_opaque_match_id_in_hello_and_the_replay(tmp_path):
    import json

    recorder = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'recorder.py'} {tmp_path}"
    ids = []
    for seed in ("4", "5", "4"):
        replay = tmp_path / f"r{len(ids)}.jsonl"
        result = run("play", recorder, "bots/random", "--seed", seed, "--sandbox", "none", "--replay", str(replay))
        assert result.exit_code == 0, result.output
        header = json.loads(replay.read_text().splitlines()[0])
        assert header["match"] == header["wire_id"] == play_match_id(int(seed))
        ids.append(header["match"])
    hellos = [json.loads(line)["match"] for path in sorted(tmp_path.glob("*.jsonl")) if not path.name.startswith("r")
              for line in path.read_text().splitlines() if json.loads(line)["type"] == "hello"]
    assert sorted(hellos) == sorted(ids)  # what the bot was sent is what the replay names
    assert ids[0] == ids[2] != ids[1] and all(re.fullmatch(r"m-[0-9a-f]{16}", i) for i in ids)


def test_play_bad_arguments_are_one_line_errors():
    for args, text in [
        (("play", "bots/nope"), "no such directory"),
        (("play", "bots/random", "--players", "7"), "2 to 5 players"),
        (("play", "bots/random", "bots/random", "-o", "kings_zero=all"), "unknown option 'kings_zero'"),
        (("play", "bots/random", "bots/random", "--sandbox", "vm"), "'vm' is not one of"),
    ]:
        result = run(*args)
        assert result.exit_code != 0 and text in result.output, result.output
        assert "Traceback" not in result.output


def test_play_again_with_a_seed_keeps_the_earlier_replay_and_names_the_new_one(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    bots = [str(ROOT / "bots" / "random"), str(ROOT / "bots" / "heuristic")]
    first = run("play", *bots, "--seed", "7", "--sandbox", "none")
    assert first.exit_code == 0 and "replay: replays/play-7.jsonl\n" in first.output, first.output
    earlier = (tmp_path / "replays" / "play-7.jsonl").read_text()
    second = run("play", *reversed(bots), "--seed", "7", "--sandbox", "none")
    assert second.exit_code == 0, second.output
    assert ("replay: replays/play-7-2.jsonl (replays/play-7.jsonl was there already and is kept; --replay FILE "
            "chooses the file)") in second.output
    assert (tmp_path / "replays" / "play-7.jsonl").read_text() == earlier
    assert '"heuristic"' in (tmp_path / "replays" / "play-7-2.jsonl").read_text().splitlines()[0]


def test_replay_shows_the_fault_the_forfeit_the_fallback_moves_and_the_stored_places(tmp_path):
    replay = tmp_path / "f.jsonl"
    illegal = "/usr/bin/python3 tests/bots/fault_illegal.py 2 fly"
    result = run("play", "bots/random", illegal, "--seed", "6", "--sandbox", "none", "--replay", str(replay))
    assert result.exit_code == 0, result.output
    everything = run("replay", str(replay)).output
    assert "!! fault: fault_illegal@1, round 1, decision" in everything and "not one of the" in everything
    assert "stderr| FAULT-MARKER" in everything
    assert "!! forfeit: fault_illegal@1 from decision" in everything
    assert "  [by the fallback policy]" in everything
    assert "== result (score): places [1, 2]" in everything and "2. fault_illegal@1" in everything
    mine = run("replay", str(replay), "--seat", "0").output
    assert "!! fault: fault_illegal@1" in mine and "not one of the" not in mine and "FAULT-MARKER" not in mine
    assert "moved by the fallback policy" in mine and "== result (score): places [1, 2]" in mine
    newer = tmp_path / "newer.jsonl"
    newer.write_text(replay.read_text().replace(FORMAT, "cabo-arena-replay/99", 1))
    refused = run("replay", str(newer))
    assert refused.exit_code != 0
    assert "replay format 'cabo-arena-replay/99' is not one this arena reads" in refused.output


def test_replay_of_a_non_replay_file(tmp_path):
    bad = tmp_path / "x.jsonl"
    bad.write_text('{"type": "nope"}\n')
    result = run("replay", str(bad))
    assert result.exit_code != 0 and "not a replay file" in result.output


def test_bot_check_clean_bot_exits_zero():
    result = run("bot", "check", "bots/random", "--matches", "1", "--sandbox", "none")
    assert result.exit_code == 0, result.output
    assert "result: clean" in result.output
    assert "reuse: one process, two matches (standard, then a new hello for espanola): ok" in result.output


def test_bot_check_says_when_it_plays_more_matches_than_asked_and_why():
    result = run("bot", "check", "bots/random", "--matches", "1", "--sandbox", "none")
    lines = result.output.splitlines()
    assert lines[1] == "--matches 1: raised to 4 per preset, one at each table size the bot plays (2-5 seats)"
    assert "standard: 4 matches at 2-5 seats: ok" in result.output
    asked = run("bot", "check", "bots/random", "--matches", "5", "--sandbox", "none")
    assert "raised" not in asked.output and "standard: 5 matches at 2-5 seats: ok" in asked.output
    help_text = " ".join(run("bot", "check", "--help").output.split())
    assert "Matches per preset, raised to one at each table size the bot plays when that is more (4 for a bot " \
           "that declares no seats: 2-5). [default: 3" in help_text


def test_bot_check_catches_a_bot_that_refuses_a_second_hello():
    result = run("bot", "check", "/usr/bin/python3 tests/bots/one_match.py", "--matches", "1", "--sandbox", "none")
    assert result.exit_code == 1, result.output
    assert "standard: 4 matches at 2-5 seats: ok" in result.output  # no supports: every size of each preset
    assert "reuse: one process, two matches (standard, then a new hello for espanola): failed" in result.output
    assert "finding 1: the bot did not take a second hello on the same process" in result.output
    assert "cause: after 'over', the bot exited instead of answering a new hello (exit status 0)" in result.output
    assert "remedy: keep reading stdin after 'over'" in result.output and "finding 2" not in result.output
    assert result.output.splitlines()[-1] == "result: 1 finding: fix it before submitting"


def test_bot_check_faulty_bot_exits_nonzero_and_explains():
    result = run("bot", "check", "/usr/bin/python3 tests/bots/fault_illegal.py", "--matches", "1", "--sandbox", "none")
    assert result.exit_code == 1
    # One finding for the kind of fault, however many matches it spoilt; the reuse pair is not played on
    # (its first match faulted), so 9 matches: one per table size (2-5) of each preset, and that one.
    assert "finding 1: an illegal reply (9 times in 9 of 9 matches; first: standard, 2 seats, seat 0" in result.output
    assert "cause: the reply named no legal action: index" in result.output
    assert "remedy: answer with an 'index' into this act's 'legal' list" in result.output
    assert "stderr| FAULT-MARKER" in result.output and "finding 2" not in result.output


# ---------------------------------------------------------------- bounded numbers and files

def refused(result, name):
    """A refused command: non-zero exit, no traceback, and the one error line naming ``name``."""
    assert result.exit_code != 0
    assert result.exception is None or isinstance(result.exception, SystemExit)  # not an uncaught error
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith("Error: ")]
    assert len(errors) == 1 and name in errors[0], result.output
    return errors[0]


def two_bots(tmp_path, extra=""):
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nseats: 2\n{extra}\nbots:\n  - {{name: a, command: \"python3 -c pass\"}}\n"
                    "  - {name: b, command: \"python3 -c pass\"}\n")
    return str(path)


@pytest.mark.parametrize("hours", ["nan", "inf", "-inf", "-1", "0", "1e9"])
def test_run_hours_must_be_a_finite_positive_number(tmp_path, hours):
    result = run("run", two_bots(tmp_path), f"--hours={hours}")
    assert result.exit_code == 2
    refused(result, "'--hours'")
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("args,name", [
    (["--workers", "100000"], "'--workers'"),
    (["--matches", "100000000000000000000"], "'--matches'"),
])
def test_run_counts_are_bounded(tmp_path, args, name):
    result = run("run", two_bots(tmp_path), *args)
    assert result.exit_code == 2 and "is not in the range" in refused(result, name)


@pytest.mark.parametrize("args,name", [
    (["selfplay", "--seed", "100000000000000000000000"], "'--seed'"),
    (["selfplay", "--matches", "1000000000000"], "'--matches'"),
    (["selfplay", "--players", "1000000000000"], "'--players'"),
    (["play", "x", "y", "--move-ms", "1" + "0" * 23], "'--move-ms'"),
    (["play", "x", "y", "--startup-ms", "0"], "'--startup-ms'"),
    (["play", "x", "y", "--bank-ms", "99999999999999"], "'--bank-ms'"),
    (["play", "x", "y", "--max-faults", "1000000"], "'--max-faults'"),
    (["bot", "check", "x", "--move-ms", "1" + "0" * 23], "'--move-ms'"),
    (["bot", "check", "x", "--matches", "1000000"], "'--matches'"),
    (["serve", "x", "--port", "70000"], "'--port'"),
])
def test_numeric_options_are_bounded(args, name):
    result = run(*args)
    assert result.exit_code == 2 and "is not in the range" in refused(result, name)


@pytest.mark.parametrize("extra,key", [
    ("cycles: 1000000000000", "cycles: expected an integer from 1 to 100000"),
    ("schedule: sampled\ntables: 1000000000000", "tables: expected an integer from 1 to 2000000"),
    ("time: {move_ms: 100000000000000000000000}", "time.move_ms: expected an integer from 1 to 600000"),
    ("rules: {preset: standard, options: {max_rounds: 100000000000000000000}}", "rules.options.max_rounds"),
    ("rating: {mu: .nan}", "rating.mu: expected a number from -1000000 to 1000000"),
    ("limits: {memory_mb: -1}", "limits.memory_mb: expected an integer from 1 to 1048576"),
])
def test_run_refuses_an_out_of_range_file_in_one_line(tmp_path, extra, key):
    result = run("run", two_bots(tmp_path, extra))
    assert result.exit_code == 1 and key in refused(result, "t.yaml:")
    assert not (tmp_path / "results").exists()


def test_run_refuses_an_alias_bomb_in_one_line(tmp_path):
    lines = "".join(f"    - &{a} [{', '.join([f'*{b}'] * 9)}]\n" for b, a in zip("abcdefgh", "bcdefghi"))
    bomb = "rules:\n  preset: standard\n  options:\n    max_rounds:\n      - &a [x, x, x, x, x, x, x, x, x]\n" \
           + lines.replace("    - ", "      - ")
    result = run("run", two_bots(tmp_path, bomb))
    assert result.exit_code == 1
    assert "YAML aliases expand to over 100,000 values; write the values out or use fewer aliases" \
        in refused(result, "t.yaml:")
