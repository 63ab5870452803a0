"""Presets and option validation."""

import pytest

from arena.game import RuleError, make_rules, parse_option_args


def test_decks_have_right_sizes_and_codes():
    std, esp = make_rules("standard"), make_rules("espanola")
    assert len(std.deck) == 52 and len(set(std.deck.codes)) == 52
    assert len(esp.deck) == 40 and "RB" in esp.deck.codes and "CC" in esp.deck.codes
    assert std.value_map()["TH"] == 10 and std.value_map()["AS"] == 1 and std.value_map()["QS"] == 12


def test_defaults_filled():
    assert make_rules("standard").options == {"multi_swap_from_discard": True, "max_turns_per_round": 400, "max_rounds": 100}
    esp = make_rules("espanola").options
    assert esp["kings_zero"] == "two" and esp["pairs"] is True and esp["cabo_bonus"] == "modifier"
    assert esp["rounds"] == 5 and esp["target_score"] is None


def test_unknown_preset_lists_presets():
    with pytest.raises(RuleError, match="standard, espanola"):
        make_rules("uno")


def test_unknown_option_named_with_allowed_list():
    with pytest.raises(RuleError, match="'kings_zero'.*allowed: multi_swap_from_discard"):
        make_rules("standard", {"kings_zero": "all"})


@pytest.mark.parametrize("key,value,expected", [
    ("kings_zero", "some", "two | all | none"),
    ("pairs", "maybe", "true or false"),
    ("rounds", 0, "integer from 1 to 10000"),
    ("rounds", True, "integer from 1 to 10000"),
    ("rounds", 10_001, "integer from 1 to 10000"),
    ("max_rounds", 10 ** 20, "integer from 1 to 10000"),
    ("max_rounds", 1e23, "integer from 1 to 10000"),
    ("max_turns_per_round", "1e23", "integer from 1 to 10000"),
    ("target_score", "x", "integer from -100000 to 100000 or null"),
    ("target_score", -(10 ** 30), "integer from -100000 to 100000 or null"),
])
def test_bad_values_say_what_is_allowed(key, value, expected):
    with pytest.raises(RuleError, match=expected):
        make_rules("espanola", {key: value})


def test_command_line_strings_are_coerced():
    rules = make_rules("espanola", parse_option_args(["pairs=false", "rounds=3", "target_score=null", "kings_zero=all"]))
    assert rules.options["pairs"] is False and rules.options["rounds"] == 3
    assert rules.options["target_score"] is None and rules.options["kings_zero"] == "all"


def test_malformed_option_argument():
    with pytest.raises(RuleError, match="key=value"):
        parse_option_args(["pairs"])


def test_rules_are_picklable():
    import pickle

    rules = make_rules("espanola", {"kings_zero": "none"})
    assert pickle.loads(pickle.dumps(rules)) == rules
