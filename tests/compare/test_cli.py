"""arena compare from the command line: real matches of bots of known strength, and bad input."""

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.compare.play import DEFAULT_FIELD, bundled_field


def run(*args):
    return CliRunner().invoke(main, ["compare", *args])


FAST = ("--field", "bots/random", "--sandbox", "none", "--workers", "1", "--seed", "3")


@pytest.mark.parametrize("new, old, verdict, code", [("known-p0", "known-p100", "better", 0),
                                                     ("known-p100", "known-p0", "worse", 3)])
@pytest.mark.parametrize("margin, unit", [(("--margin-points", "8"), "luck-corrected points"),
                                          (("--luck", "off", "--margin", "0.3"), "places")])
def test_the_stronger_version_is_called_better_and_the_weaker_worse(new, old, verdict, code, margin, unit):
    result = run(f"bots/{new}", f"bots/{old}", *margin, "--max-matches", "100", *FAST)
    assert result.exit_code == code, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith(f"{verdict} on {unit}: NEW gains {'+' if verdict == 'better' else '-'}")
    assert "OLD minus NEW, 95% intervals; positive: NEW better)" in last and "matches used" in last
    assert "compare: NEW " + new in result.stderr  # the header and progress go to stderr
    assert f"tested on {unit}" in result.stderr


def test_the_luck_corrected_test_is_the_default_and_reports_plain_points_and_places_beside_it():
    result = run("bots/known-p0", "bots/known-p100", "--max-matches", "100", *FAST)
    assert result.exit_code == 0, result.output
    last = result.stdout.strip().splitlines()[-1]
    assert last.startswith("better on luck-corrected points: NEW gains +")
    assert " luck-corrected points per match (plain points +" in last and ", places +" in last
    assert "margin 2.5 points" in result.stderr


@pytest.mark.parametrize("margin, said", [(("--margin-points", "8"), "no difference at margin 8 luck-corrected "
                                                 "points: NEW gains +0.0 "),
                                                (("--luck", "off", "--margin", "0.5"), "no difference at margin 0.5 "
                                                 "places: NEW gains +0.000 ")])
def test_a_version_against_itself_is_no_difference_at_the_margin(margin, said):
    result = run("bots/known-p0", "bots/known-p0", *margin, "--max-matches", "400", *FAST)
    assert result.exit_code == 4, result.output
    assert result.stdout.strip().splitlines()[-1].startswith(said)
    assert "note: NEW and OLD have the same name, known-p0: NEW is " in result.stderr
    assert "compare: NEW known-p0 (" in result.stderr


def test_max_matches_ends_an_open_comparison_undecided():
    result = run("bots/known-p0", "bots/known-p0", "--max-matches", "41", *FAST)
    assert result.exit_code == 5, result.output
    assert result.stdout.strip().splitlines()[-1].startswith("undecided")
    assert "40 matches used (20 deals)" in result.stdout


@pytest.mark.parametrize("args, message", [
    (("bots/nope", "bots/known-p0"), "bot 'bots/nope': no such directory"),
    (("bots/known-p0", "bots/known-p10", "--field", "bots/nope"), "bot 'bots/nope': no such directory"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--margin", "0"), "'--margin': 0.0 is not a margin"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--margin", "nan"), "'--margin': nan is not a margin"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--seats", "2", "--margin", "1"),
     "below 1 (the most a 2-seat match"),
    (("bots/known-p0", "bots/known-p10", "--margin", "0.2"), "'--margin': --margin is in places and sets the plain "
     "test (--luck off); the luck-corrected test's margin is --margin-points POINTS (default 2.5)"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--margin-points", "3"), "'--margin-points': "
     "--margin-points sets the luck-corrected test; with --luck off the margin is --margin PLACES (default 0.1)"),
    (("bots/known-p0", "bots/known-p10", "--margin-points", "-1"), "'--margin-points': -1.0 is not a margin in "
     "points per match: give one above 0 and below 100"),
    (("bots/known-p0", "bots/known-p10", "--margin-points", "inf"), "'--margin-points': inf is not a margin"),
    (("bots/known-p0", "bots/known-p10", "--luck", "maybe"), "'maybe' is not one of 'on', 'off'"),
    (("bots/known-p0", "bots/known-p10", "--alpha", "0.7"), "'--alpha': 0.7 is not an error rate"),
    (("bots/known-p0", "bots/known-p10", "--beta", "nan"), "'--beta': nan is not an error rate"),
    (("bots/known-p0", "bots/known-p10", "--max-matches", "19"), "'--max-matches': 19 matches cannot end in a verdict: at margin 2.5 points and alpha 0.05 none comes before 10 deals"),
    (("bots/known-p0", "bots/known-p10", "--luck", "off", "--max-matches", "21"), "'--max-matches': 21 matches cannot end in a verdict: at margin 0.1 places and alpha 0.05 none comes before 11 deals"),
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
    points each such deal counts as the worst difference against the side that forfeited, so a crash is worse."""
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
    assert result.exit_code == 3, result.output
    assert ("forfeited (each deal one side forfeited counted as the worst difference the test allows against it): "
            "NEW in ") in result.stdout
    assert result.stdout.strip().splitlines()[-1].startswith("worse on luck-corrected points: ")
