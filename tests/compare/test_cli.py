"""arena compare from the command line: real matches of bots of known strength, and bad input."""

import shutil

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.compare.play import DEFAULT_FIELD, bundled_field


def run(*args):
    return CliRunner().invoke(main, ["compare", *args])


FAST = ("--field", "bots/random", "--sandbox", "none", "--workers", "1", "--seed", "3")


def progress(result):
    return [line for line in result.stderr.splitlines() if " deals: " in line]


@pytest.mark.parametrize("new, old, verdict, code", [("known-p0", "known-p100", "better", 0),
                                                     ("known-p100", "known-p0", "not better", 4)])
@pytest.mark.parametrize("margin, unit, words", [(("--margin-points", "8"), "points", ("fewer", "more")),
                                                 (("--luck", "off", "--margin", "0.3"), "places", ("ahead", "behind"))])
def test_the_stronger_version_is_better_and_the_weaker_not_better(new, old, verdict, code, margin, unit, words):
    result = run(f"bots/{new}", f"bots/{old}", *margin, "--max-matches", "100", *FAST)
    assert result.exit_code == code, result.output
    last = result.stdout.strip().splitlines()[-1]
    word = words[0] if code == 0 else words[1]
    assert last.startswith(f"{verdict}: NEW {'scores' if unit == 'points' else 'finishes'} ")
    assert f" {word} " in last and "(95%); LLR " in last and " of [-2.94, +2.94], margin " in last
    assert last.endswith("; 32 matches (16 deals)")  # a difference this large needs no more than the floor
    assert "compare: NEW " + new in result.stderr  # the header and progress go to stderr
    assert all(len(line) <= 100 for line in progress(result))


def test_the_luck_corrected_test_is_the_default_and_reports_plain_points_and_places_beside_it():
    result = run("bots/known-p0", "bots/known-p100", "--max-matches", "100", *FAST)
    assert result.exit_code == 0, result.output
    *_, beside, last = result.stdout.strip().splitlines()
    assert last.startswith("better: NEW scores ") and " fewer luck-corrected points a match [" in last
    assert "margin 5 points, alpha 0.05, beta 0.05" in last
    assert beside.startswith("plain: NEW ") and " fewer points a match [" in beside and " places ahead " in beside
    assert "SPRT on luck-corrected points: NEW better by 5 points a match (H1) or not better (H0)" in result.stderr


@pytest.mark.parametrize("luck", [(), ("--luck", "off")])
def test_a_byte_identical_copy_is_not_better_within_40_matches(tmp_path, luck):
    copy = tmp_path / "bots"
    for name in ("heuristic", "lib"):
        shutil.copytree(f"bots/{name}", copy / name, ignore=shutil.ignore_patterns("__pycache__"))
    result = run(str(copy / "heuristic"), "bots/heuristic", *luck, "--max-matches", "400", *FAST)
    assert result.exit_code == 4, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("not better: NEW ") and last.endswith("; 34 matches (17 deals)")
    assert "note: NEW and OLD have the same name, heuristic: NEW is " in result.stderr
    assert len(progress(result)) == 2 and all(len(line) <= 100 for line in progress(result))


def test_max_matches_ends_an_open_comparison_undecided():
    result = run("bots/known-p0", "bots/known-p0", "--margin-points", "0.5", "--max-matches", "41", *FAST)
    assert result.exit_code == 5, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("undecided: NEW scores 0.0 fewer luck-corrected points a match [")
    assert last.endswith("; 40 matches (20 deals)")


@pytest.mark.parametrize("args, message", [
    (("bots/nope", "bots/known-p0"), "bot 'bots/nope': no such directory"),
    (("bots/known-p0", "bots/known-p10", "--field", "bots/nope"), "bot 'bots/nope': no such directory"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--margin", "0"), "'--margin': 0.0 is not a margin"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--margin", "nan"), "'--margin': nan is not a margin"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--seats", "2", "--margin", "1"),
     "below 1 (the most a 2-seat match"),
    (("bots/known-p0", "bots/known-p10", "--margin", "0.2"), "'--margin': --margin is in places and sets the plain "
     "test (--luck off); the luck-corrected test's margin is --margin-points POINTS (default 5)"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--margin-points", "3"), "'--margin-points': "
     "--margin-points sets the luck-corrected test; with --luck off the margin is --margin PLACES (default 0.15)"),
    (("bots/known-p0", "bots/known-p10", "--margin-points", "-1"), "'--margin-points': -1.0 is not a margin in "
     "points per match: give one above 0 and below 100"),
    (("bots/known-p0", "bots/known-p10", "--margin-points", "inf"), "'--margin-points': inf is not a margin"),
    (("bots/known-p0", "bots/known-p10", "--luck", "maybe"), "'maybe' is not one of 'on', 'off'"),
    (("bots/known-p0", "bots/known-p10", "--alpha", "0.7"), "'--alpha': 0.7 is not an error rate: give one above 0 "
     "and below 0.5"),
    (("bots/known-p0", "bots/known-p10", "--alpha", "0"), "'--alpha': 0.0 is not an error rate: give one above 0 "
     "and below 0.5"),
    (("bots/known-p0", "bots/known-p10", "--beta", "nan"), "'--beta': nan is not an error rate"),
    (("bots/known-p0", "bots/known-p10", "--max-matches", "31"), "'--max-matches': 31 matches cannot end in a "
     "verdict: none comes before 16 deals (32 matches)"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--max-matches", "5"), "'--max-matches': 5 matches cannot "
     "end in a verdict"),
    (("bots/known-p0", "bots/known-p10", "-o", "nope=1"), "unknown option 'nope'"),
    (("bots/known-p0",), "Missing argument 'OLD'"),
])
def test_bad_input_is_one_line_without_a_traceback(args, message):
    result = run(*args, "--sandbox", "none")
    assert result.exit_code in (1, 2)
    assert message in result.output
    assert "Traceback" not in result.output
    assert [line for line in result.output.splitlines() if line.startswith("Error:")] == \
        [result.output.strip().splitlines()[-1]]


def test_the_default_field_is_the_bundled_bots():
    assert [path.name for path in bundled_field()] == list(DEFAULT_FIELD)
    assert all((path / "bot.yaml").is_file() for path in bundled_field())


def test_an_installed_arena_without_bots_plays_against_the_opponent_it_ships(monkeypatch, tmp_path):
    from arena.compare import play

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(play, "DEFAULT_FIELD", ("not-a-bundled-bot",))  # as if no bots/ folder were near
    field = bundled_field()
    assert [path.parent.name for path in field] == ["kits"] and (field[0] / "bot.yaml").is_file()


def test_a_version_that_crashes_never_gains_by_the_fallback_playing_its_seat(tmp_path):
    """The fallback policy plays a forfeited seat out, and may score fewer points than the bot would have: on
    points each such deal counts as a whole match lost by the side that forfeited, so a crash is never better."""
    crash = tmp_path / "crash"
    crash.mkdir()
    (crash / "bot.yaml").write_text('name: crash\nrun: ["{python}", "bot.py"]\n')
    (crash / "bot.py").write_text("import json, sys\n"
                                  "for line in sys.stdin:\n"
                                  "    msg = json.loads(line)\n"
                                  "    if msg['type'] == 'hello':\n"
                                  "        print(json.dumps({'type': 'ready', 'name': 'crash'}), flush=True)\n"
                                  "    elif msg['type'] == 'act':\n"
                                  "        sys.exit(1)\n")
    result = run(str(crash), "bots/known-p100", "--max-matches", "60", *FAST)
    assert result.exit_code == 4, result.output
    assert ("forfeited (a deal one side forfeited counts as a whole match lost by that side, 100 points): "
            "NEW in 16 match(es), OLD in 0") in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("not better: NEW scores 100.0 more luck-corrected "
                                                             "points a match [")
