"""The command line, driven through click's CliRunner."""

from click.testing import CliRunner

from arena.cli import main


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
