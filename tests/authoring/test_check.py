"""``arena bot check``: the tables it plays come from the manifest, and it prints only what went wrong."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner
import pytest

from arena.bots import load_bot
from arena.authoring.check import plan
from arena.authoring.diagnosis import diagnose
from arena.match.faults import Fault, FaultKind
from arena.cli import main
from arena.sandbox import BwrapBackend

# Plays index 0 (always legal) at two-seat standard tables and exits at any other hello.
PICKY = """import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        if msg["players"] != 2 or msg["rules"]["preset"] != "standard":
            sys.exit(f"picky: cannot play {msg['rules']['preset']} at {msg['players']}")
        reply = {"type": "ready"}
    elif msg["type"] == "act":
        reply = {"type": "action", "id": msg["id"], "index": 0}
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def make_bot(tmp_path: Path, program: str, extra: str = "", name: str = "picky") -> Path:
    directory = tmp_path / name
    directory.mkdir()
    (directory / "bot.yaml").write_text(f'name: {name}\nrun: ["{{python}}", "bot.py"]\n{extra}')
    (directory / "bot.py").write_text(program)
    return directory


def check(*args: str) -> tuple[int, list[str]]:
    result = CliRunner().invoke(main, ["bot", "check", *args, "--sandbox", "none"])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result.exit_code, result.output.splitlines()


def test_only_the_declared_tables_are_played_and_the_output_says_so(tmp_path: Path) -> None:
    declared = make_bot(tmp_path, PICKY, "supports: {rules: [standard], seats: [2]}\n")
    code, lines = check(str(declared), "--matches", "2")
    assert code == 0, lines
    assert lines[1:] == [
        "supports: standard, 2 seats (from bot.yaml)",
        lines[2],
        "reuse: one process, two matches (standard, then a new hello for standard): ok",
        "result: clean: no fault in 4 matches",
    ]
    assert lines[2].startswith("standard: 2 matches at 2 seats: ok (mean ")
    # The same program declaring nothing is played everywhere, and fails where it cannot play.
    code, lines = check(str(make_bot(tmp_path, PICKY, name="open")))
    assert code == 1 and "supports: every preset, 2-5 seats (nothing declared in bot.yaml)" in lines
    assert "espanola: 4 matches at 2-5 seats: 4 with faults (findings below)" in lines


def test_every_declared_table_size_is_played_whatever_matches_says(tmp_path: Path) -> None:
    spec = load_bot(str(make_bot(tmp_path, PICKY, "supports: {rules: espanola, seats: [2, 3, 5]}\n")))
    tables = plan(spec, 1)
    assert list(tables) == ["espanola"]
    assert [(t.players, t.seat) for t in tables["espanola"]] == [(2, 0), (3, 1), (5, 2)]
    undeclared = plan(load_bot(str(make_bot(tmp_path, PICKY, name="open"))), 3)
    assert {p: [(t.players, t.seat) for t in ts] for p, ts in undeclared.items()} == {
        "standard": [(2, 0), (3, 1), (4, 2), (5, 3)], "espanola": [(2, 0), (3, 1), (4, 2), (5, 3)]}


HALF = """import json, sys
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        players = msg["players"]
        if players > 2:
            print("WARNING: 2-player engine, playing %d seats blind" % players, file=sys.stderr, flush=True)
        reply = {"type": "ready"}
    elif msg["type"] == "act":
        if players == 5:
            sys.exit("half: no idea what to do at 5 seats")
        reply = {"type": "action", "id": msg["id"], "index": 0}
    else:
        continue
    print(json.dumps(reply), flush=True)
"""


def test_a_bot_that_declares_nothing_is_played_at_five_seats_and_its_warnings_are_shown(tmp_path: Path) -> None:
    """A bot that half-works (warns above 2 seats, crashes at 5) does not check clean, and its own warning
    line is in what the check prints."""
    code, lines = check(str(make_bot(tmp_path, HALF, name="half")))
    assert code == 1 and "standard: 4 matches at 2-5 seats: 1 with faults (findings below)" in lines
    assert any(line.startswith("finding 1: ") and "5 seats" in line for line in lines)
    warned = lines.index(next(line for line in lines if line.startswith("the bot warned (")))
    assert lines[warned + 1].startswith("  warning| WARNING: 2-player engine, playing 3 seats blind   (first at ")
    declared = make_bot(tmp_path, HALF, "supports: {rules: [standard], seats: [2, 3]}\n", name="half-declared")
    code, lines = check(str(declared))
    assert code == 0 and lines[-1].startswith("result: clean: no fault in ") and \
        lines[-1].endswith(", but 1 warning line (above)")


def test_a_bot_that_never_starts_is_one_finding_with_its_cause_and_remedy(tmp_path: Path) -> None:
    broken = make_bot(tmp_path, "import numpy_that_is_not_here\n")
    code, lines = check(str(broken))
    assert code == 1
    assert lines[1:6] == [
        "--matches 3: raised to 4 per preset, one at each table size the bot plays (2-5 seats)",
        "supports: every preset, 2-5 seats (nothing declared in bot.yaml)",
        "finding 1: the bot never started (standard, 2 seats, seat 0)",
        "  cause: the bot exited during start-up (exit status 1): ModuleNotFoundError: No module named "
        "'numpy_that_is_not_here'",
        "  remedy: the bot's Python has no module 'numpy_that_is_not_here': declare it in requirements.txt beside "
        "bot.yaml (docs/bots.md, \"Bots with dependencies\"), or use only the standard library",
    ]
    assert "  stderr|     import numpy_that_is_not_here" in lines and "Traceback" not in "".join(lines)
    assert lines[-1] == "result: 1 finding: nothing else was checked, since the bot never started"
    assert not any(line.startswith(("standard:", "espanola:", "reuse:", "finding 2")) for line in lines)


def test_a_bot_that_does_not_build_is_one_finding(tmp_path: Path) -> None:
    broken = make_bot(tmp_path, "", "build: \"echo 'bot.c:3: error: expected ;' >&2; exit 2\"\n")
    code, lines = check(str(broken))
    assert code == 1
    assert lines[3] == "note: the bot's install and build run unsandboxed, as the arena's user (sandbox none)"
    assert lines[4] == "finding 1: the build failed (before any match)"
    assert lines[5].startswith("  cause: build command ") and lines[5].endswith(
        "failed (exit 2): bot.c:3: error: expected ;")
    assert lines[6].startswith("  remedy: run the build command by hand in the bot directory")
    assert lines[-1] == "result: 1 finding: nothing else was checked, since the bot did not build"


@pytest.mark.skipif(not BwrapBackend().available()[0], reason="bwrap unavailable here")
def test_a_build_under_bwrap_gets_no_unsandboxed_note_and_its_failure_is_one_finding(tmp_path: Path) -> None:
    broken = make_bot(tmp_path, "", "build: \"echo 'bot.c:3: error: expected ;' >&2; exit 2\"\n")
    result = CliRunner().invoke(main, ["bot", "check", str(broken), "--sandbox", "bwrap"])
    lines = result.output.splitlines()
    assert result.exit_code == 1 and not any(line.startswith("note: ") for line in lines)
    assert lines[3] == "finding 1: the build failed (before any match)"
    assert lines[4].endswith("failed (exit 2): bot.c:3: error: expected ;")


def test_an_opponent_that_does_not_play_the_declared_tables_is_refused_in_one_line(tmp_path: Path) -> None:
    bot = make_bot(tmp_path, PICKY, "supports: {seats: [3]}\n")
    opponent = make_bot(tmp_path, PICKY, "supports: {seats: [2]}\n", name="pairs-only")
    code, lines = check(str(bot), "--opponent", str(opponent))
    assert code == 1 and lines[-1] == ("Error: the opponent pairs-only does not play espanola at 3 seats, standard at "
                                       "3 seats, which picky supports; choose another --opponent")


def fault(kind: FaultKind, detail: str, stderr: str = "") -> Fault:
    return Fault(0, "b", kind, detail, stderr, 1, 0)


def test_diagnoses_name_the_cause_in_plain_words() -> None:
    helper = diagnose(fault(FaultKind.STARTUP, "failed to start: bot exited (exit status 1)",
                            "Traceback\nModuleNotFoundError: No module named 'cabo_bot'\n"), never_started=True)
    assert helper.title == "the bot never started" and "copy cabo_bot.py next to bot.py" in helper.remedy
    killed = diagnose(fault(FaultKind.EXIT, "bot exited (killed by signal 24)"))
    assert killed.cause == "the bot was killed by SIGXCPU in the middle of a match (it used up its CPU time)"
    missing = diagnose(fault(FaultKind.STARTUP, "could not start ['./bot']: [Errno 2] No such file or directory"))
    assert missing.cause.startswith("the arena could not start the bot: ['./bot']: [Errno 2]")
    assert "made by 'build' if it is compiled" in missing.remedy
    slow = diagnose(fault(FaultKind.TIMEOUT, "no reply within 1000 ms"), move_ms=1000)
    assert slow.cause == "no reply within 1000 ms (move_ms is 1000)" and "flush stdout" in slow.remedy
    banner = diagnose(fault(FaultKind.STARTUP, "no valid 'ready' to hello: reply is not valid JSON: hi"))
    assert banner.cause == "the bot's first line after 'hello' was not a 'ready': reply is not valid JSON: hi"
    caught = diagnose(fault(FaultKind.HELPER_FALLBACK, "... played legal index 0 instead, 12 times in this match",
                            "Traceback\nKeyError: 'hel'\ncabo-bot: fallback: act: KeyError: 'hel'; sent legal index 0\n"))
    assert caught.cause == ("the helper sent legal index 0 instead of the bot's answer, 12 times in that match: "
                            "act: KeyError: 'hel'")
    assert caught.remedy.startswith("fix the error its stderr shows")
    c = diagnose(fault(FaultKind.HELPER_FALLBACK, "once in this match",
                       "cabo-bot: fallback: on_act returned 9, not in 0..3; sent legal index 0\n"))
    assert c.cause.endswith(", once in that match: on_act returned 9, not in 0..3")
    assert c.remedy.startswith("make on_act return an index into msg->legal")


def test_an_installed_arena_checks_against_the_opponent_it_ships(tmp_path: Path,
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """A pip-installed arena has no bots/ folder: `arena bot check` and `arena submit` still have an opponent."""
    from arena.authoring import check as check_module

    monkeypatch.setattr(check_module, "RANDOM_BOT", Path("no-such-folder") / "random")
    opponent = check_module.default_opponent()
    assert opponent.parent.name == "kits" and load_bot(str(opponent)).name == "random"
    code, lines = check(str(make_bot(tmp_path, PICKY, "supports: {rules: [standard], seats: [2]}\n")))
    assert code == 0 and lines[-1] == "result: clean: no fault in 5 matches", lines


def test_an_untested_reuse_is_not_played_and_not_counted(tmp_path: Path) -> None:
    code, lines = check(f"/usr/bin/python3 {Path(__file__).parents[1] / 'bots' / 'fault_illegal.py'}", "--matches", "1")
    assert code == 1
    assert ("reuse: one process, two matches (standard, then a new hello for espanola): not tested: the first match "
            "ended in a fault, so the second was not played (findings below)") in lines
    # a match at each table size (2-5) of each preset, then the first of the reuse pair: nine played, nine counted
    assert any(line.startswith("finding 1: an illegal reply (9 times in 9 of 9 matches; first: ") for line in lines), lines
    assert lines[-1] == "result: 1 finding: fix it before submitting"


# Reads its weights by a relative path at start, as authors write it; plays the index they hold.
WEIGHTED = """import json, sys
with open("weights.json") as f:
    INDEX = json.load(f)["index"]
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        reply = {"type": "ready"}
    elif msg["type"] == "act":
        reply = {"type": "action", "id": msg["id"], "index": INDEX}
    else:
        continue
    print(json.dumps(reply), flush=True)
"""
STANDARD_PAIRS = "supports: {rules: [standard], seats: [2]}\n"
BWRAP = BwrapBackend()


def weighted_bot(tmp_path: Path) -> Path:
    """A bot directory with its data file, readable by the uid bwrap runs bots as."""
    directory = make_bot(tmp_path, WEIGHTED, STANDARD_PAIRS, name="weighted")
    (directory / "weights.json").write_text('{"index": 0}\n')
    for path in (tmp_path, directory):
        path.chmod(0o755)
    for path in directory.iterdir():
        path.chmod(0o644)
    return directory


@pytest.mark.parametrize("sandbox", ["none", "bwrap"])
def test_a_bot_reading_its_data_file_by_relative_path_checks_clean(tmp_path: Path, sandbox: str) -> None:
    if sandbox == "bwrap" and not BWRAP.available()[0]:
        pytest.skip("bwrap unavailable here")
    result = CliRunner().invoke(main, ["bot", "check", str(weighted_bot(tmp_path)), "--sandbox", sandbox,
                                       "--matches", "1"])
    assert result.exit_code == 0 and result.output.splitlines()[-1] == "result: clean: no fault in 3 matches", \
        result.output


@pytest.mark.skipif(not (BWRAP.available()[0] and BWRAP.as_root), reason="needs bwrap run by root (bots as uid 65534)")
def test_a_file_the_sandboxed_bot_cannot_read_gets_chmod_advice(tmp_path: Path) -> None:
    directory = weighted_bot(tmp_path)
    (directory / "weights.json").chmod(0o600)  # the author's own: root can read it, uid 65534 cannot
    result = CliRunner().invoke(main, ["bot", "check", str(directory), "--sandbox", "bwrap", "--matches", "1"])
    lines = result.output.splitlines()
    assert result.exit_code == 1 and "finding 1: the bot never started (standard, 2 seats, seat 0)" in lines
    assert "  cause: the bot exited during start-up (exit status 1): PermissionError: [Errno 13] Permission denied: " \
           "'weights.json'" in lines
    assert "  remedy: make the file readable by others: chmod o+r weights.json in the bot directory, and the " \
           "folders that lead to it o+x (under bwrap and docker the bot runs as uid 65534, not as its files' owner)" \
           in lines


def test_a_run_typo_is_reported_as_bot_yaml_names_it(tmp_path: Path) -> None:
    directory = make_bot(tmp_path, PICKY, STANDARD_PAIRS)
    (directory / "bot.yaml").write_text('name: picky\nrun: ["{python}", "bots.py"]\n' + STANDARD_PAIRS)
    code, lines = check(str(directory))
    assert code == 1 and lines[2:5] == [
        "finding 1: the bot never started (standard, 2 seats, seat 0)",
        f"  cause: the arena could not start the bot: {directory}/bot.yaml: 'run' names 'bots.py', which is not a "
        "file in the bot directory (did you mean 'bot.py'?)",
        "  remedy: correct the path in bot.yaml's 'run': it is relative to the bot directory, the bot's working "
        "directory (a compiled program must be made by 'build')",
    ], lines
    assert "/tmp/bots.py" not in "\n".join(lines)


def test_sandbox_errors_in_stderr_get_sandbox_advice() -> None:
    node = diagnose(fault(FaultKind.STARTUP, "failed to start: bot exited (exit status 1)",
                          "Error: EACCES: permission denied, open '/bots/b/model.bin'\n    at Object.openSync\n"))
    assert node.remedy.startswith("make the file readable by others: chmod o+r /bots/b/model.bin, and the folders")
    program = diagnose(fault(FaultKind.STARTUP, "failed to start: bot exited (exit status 1)",
                             "setpriv: failed to execute /bots/b/bot: Permission denied\n"))
    assert program.remedy.startswith("make the file readable by others: chmod o+rx /bots/b/bot, and the folders")
    typo = diagnose(fault(FaultKind.STARTUP, "failed to start: bot exited (exit status 127)",
                          "setpriv: failed to execute pyhton3: No such file or directory\n"))
    assert typo.remedy.startswith("check 'run' in bot.yaml: pyhton3 is neither a file in the bot directory nor a "
                                  "program on the sandbox's PATH (/usr/local/bin:/usr/bin:/bin)")
    later = diagnose(fault(FaultKind.EXIT, "bot exited (exit status 1)",
                           "OSError: [Errno 30] Read-only file system: 'cache.json'\n"))
    assert later.remedy.startswith("write files to the folder TMPDIR names (Python: tempfile.gettempdir()")
    other = diagnose(fault(FaultKind.EXIT, "bot exited (exit status 1)", "KeyError: 'hel'\n"))
    assert other.remedy == "fix the error its stderr shows; a bot keeps running until its stdin closes"
