"""`arena replay FILE --seat N --transcript OUT` writes what the seat was sent; `--feed BOT_DIR` sends it to a
new version and shows where it first answers otherwise."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots import load_bot
from arena.cli import main
from arena.game import make_rules
from arena.match.link import TimeControl
from arena.match.runner import MatchJob, play_match

ROOT = Path(__file__).resolve().parents[2]
RECORDER = ROOT / "tests" / "bots" / "recorder.py"
CRASH = ROOT / "tests" / "bots" / "fault_exit.py"


def arena(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


def played(tmp_path: Path, seats: list[str], fault_policy: str = "forfeit") -> tuple[Path, dict[int, bytes]]:
    """A match among ``seats`` (command lines; ``REC`` a recorder bot) with its replay file, and what each
    recorder was sent, by seat."""
    seen = tmp_path / "seen"
    seen.mkdir()
    bots = tuple(load_bot(f"b{s}={command.replace('REC', f'/usr/bin/python3 {RECORDER} {seen}')}")
                 for s, command in enumerate(seats))
    outcome = play_match(MatchJob("m", make_rules("standard"), 77, bots, TimeControl(5000, 30000), "none",
                                  wire_id="w-1", fault_policy=fault_policy))
    replay = tmp_path / "m.jsonl"
    replay.write_text(outcome.replay_text())
    lines = {}
    for path in seen.glob("*.jsonl"):
        data = path.read_bytes()
        lines[json.loads(data.splitlines()[0])["seat"]] = data
    return replay, lines


def test_a_transcript_is_byte_for_byte_what_the_seat_was_sent(tmp_path):
    """Recorder bots keep every line they read; the transcripts of their seats are those lines, also with a
    seat beside them that crashed and was forfeited (no act is counted for it after)."""
    crash = f"/usr/bin/python3 {CRASH} 5"
    replay, lines = played(tmp_path, ["REC", crash, "REC", "REC"])
    assert '"type":"forfeit"' in replay.read_text()
    for seat in (0, 2, 3):
        out = tmp_path / f"seat{seat}.jsonl"
        code, said, err = arena("replay", str(replay), "--seat", str(seat), "--transcript", str(out))
        assert code == 0, err
        assert out.read_bytes() == lines[seat]
        acts = sum(1 for line in lines[seat].splitlines() if b'"type":"act"' in line)
        assert said == f"wrote {out}: the {len(lines[seat].splitlines())} lines seat {seat} (b{seat}) was sent, {acts} of them act\n"
    out = tmp_path / "seat1.jsonl"  # the crashed seat: its messages up to the act it left at, nothing after
    assert arena("replay", str(replay), "--seat", "1", "--transcript", str(out))[0] == 0
    sent = [json.loads(line) for line in out.read_text().splitlines()]
    assert sent[0]["type"] == "hello" and sent[-1]["type"] == "act" and not any(m["type"] == "over" for m in sent)


def test_a_bot_fed_its_transcript_plays_its_part_again(tmp_path):
    """`python bot.py < OUT` answers as recorded; --feed says so, or shows the first decision that differs."""
    heuristic = ROOT / "bots" / "heuristic"
    replay, _ = played(tmp_path, ["REC", f"/usr/bin/python3 {heuristic / 'bot.py'}", "REC"])
    out = tmp_path / "t.jsonl"
    assert arena("replay", str(replay), "--seat", "1", "--transcript", str(out))[0] == 0
    answers = subprocess.run(["/usr/bin/python3", str(heuristic / "bot.py")], stdin=out.open("rb"),
                             capture_output=True, timeout=60, cwd=heuristic).stdout.decode().splitlines()
    chosen = [json.loads(a)["index"] for a in answers if '"action"' in a]
    recorded = [r["action"] for r in map(json.loads, replay.read_text().splitlines())
                if r["type"] == "action" and r["seat"] == 1]
    acts = [json.loads(line) for line in out.read_text().splitlines() if '"type":"act"' in line]
    assert [act["legal"][i] for act, i in zip(acts, chosen)] == recorded and len(chosen) == len(recorded)
    code, said, _ = arena("replay", str(replay), "--seat", "1", "--feed", str(heuristic), "--sandbox", "none")
    assert code == 0 and said == f"heuristic in seat 1 of m.jsonl: all {len(recorded)} decisions answered as recorded\n"
    code, said, _ = arena("replay", str(replay), "--seat", "1", "--feed", str(ROOT / "bots" / "random"), "--sandbox", "none")
    lines = said.splitlines()
    assert code == 1 and lines[0] in [f"random in seat 1 of m.jsonl: the first {n} decision{'s' if n != 1 else ''} "
                                      "answered as recorded" for n in range(1, len(recorded))] + \
        ["random in seat 1 of m.jsonl: parted from the recording at its first decision"]
    assert "; the bot chose " in lines[1] and "recorded {" in lines[1] and lines[2].startswith('  its state: {"phase"')


def test_a_fed_bot_that_faults_is_shown_at_that_decision(tmp_path):
    replay, _ = played(tmp_path, ["REC", "REC"])
    bot = tmp_path / "crasher"
    bot.mkdir()
    (bot / "bot.yaml").write_text(f"name: crasher\nrun: /usr/bin/python3 {CRASH} 3\n")
    code, said, _ = arena("replay", str(replay), "--seat", "0", "--feed", str(bot), "--sandbox", "none")
    assert code == 1 and "the first 2 decisions answered as recorded" in said
    assert "decision 3 of " in said and ": the bot faulted: exit: " in said


def test_a_transcript_needs_a_seat_and_one_of_the_two(tmp_path):
    replay, _ = played(tmp_path, ["REC", "REC"])
    code, _, err = arena("replay", str(replay), "--transcript", str(tmp_path / "o.jsonl"))
    assert code == 2 and "--transcript needs --seat N: whose messages (0..1)" in err
    code, _, err = arena("replay", str(replay), "--seat", "0", "--transcript", "x", "--feed", str(tmp_path))
    assert code == 2 and "give --transcript OUT or --feed BOT_DIR, not both" in err
    code, _, err = arena("replay", str(replay), "--seat", "0", "--transcript", "/proc/1/x.jsonl")
    assert code == 1 and err.count("\n") == 1 and "--transcript" in err


@pytest.mark.parametrize("limits,said", [
    ({"move_ms": "fast"}, 'time.move_ms must be a whole number of milliseconds from 0 to 1000000000, not "fast"'),
    ({"move_ms": 1000, "startup_ms": -5}, "time.startup_ms must be a whole number of milliseconds from 0 to "
                                          "1000000000, not -5"),
    ({"move_ms": 1000, "bank_ms": True}, "time.bank_ms must be a whole number of milliseconds from 0 to 1000000000, "
                                         "not true"),
    ({"move_ms": 1.5e300}, "time.move_ms must be a whole number of milliseconds from 0 to 1000000000, not 1.5e+300"),
    ([1000], "time must be an object of move_ms, startup_ms, bank_ms, not [1000]")])
def test_a_replay_header_with_nonsense_time_limits_is_refused_in_one_line(tmp_path, limits, said):
    """The header's ``time`` is given to a bot again (``--feed``): one that is not whole milliseconds is the file's
    damage, said in one line, as every other field's (it was once taken as the defaults, silently)."""
    replay, _ = played(tmp_path, ["REC", "REC"])
    lines = replay.read_text().splitlines()
    header = json.loads(lines[0])
    header["time"] = limits
    replay.write_text("\n".join([json.dumps(header), *lines[1:]]) + "\n")
    for extra in (["--seat", "0", "--transcript", str(tmp_path / "t.jsonl")], ["--luck"],
                  ["--seat", "0", "--feed", str(ROOT / "bots" / "random"), "--sandbox", "none"]):
        code, out, err = arena("replay", str(replay), *extra)
        assert (code, out, err) == (1, "", f"Error: {replay}: line 1 (header): {said}\n")
    assert not (tmp_path / "t.jsonl").exists()
