"""Each rule set answers the questions on which the presets differ, and the engine follows its answer.

Every test puts the same question to ``standard`` and ``espanola`` in a position where the source
texts disagree, so a rule set that answered for the other preset fails it.
"""

from __future__ import annotations

import pickle
import random
from dataclasses import dataclass
from typing import ClassVar

import pytest

from arena.game import Match, RuleError, Rules, make_rules, options_of, preset_names
from arena.game.rulesets import RULESETS, Espanola, RuleSet, Standard, register
from arena.game.scoring import add_scores, match_end, next_starter_dealer, score_round

from .conftest import drive

STANDARD = make_rules("standard")
ESPANOLA = make_rules("espanola")


def test_presets_are_the_registered_rule_sets_in_order():
    assert preset_names() == ("standard", "espanola")
    assert isinstance(STANDARD.ruleset, Standard) and isinstance(ESPANOLA.ruleset, Espanola)
    assert options_of("espanola") == Espanola.options


def test_rules_travel_and_compare_with_their_rule_set():
    # A MatchJob carries Rules to a worker process: the copy must equal the original and play the same.
    copy = pickle.loads(pickle.dumps(ESPANOLA))
    assert copy == ESPANOLA and copy.ruleset == ESPANOLA.ruleset and copy != STANDARD
    assert make_rules("espanola", {"pairs": False}) != ESPANOLA
    # Built by hand as before rule sets existed, Rules finds its preset's rule set.
    by_hand = Rules("espanola", ESPANOLA.options, ESPANOLA.deck, ESPANOLA.values)
    assert isinstance(by_hand.ruleset, Espanola) and by_hand == ESPANOLA


def test_card_values():
    # A king: 13 in the French deck, a red one 0; a Rey is 10, de bastos and de espadas 0 by default.
    assert [STANDARD.value_map()[c] for c in ("KS", "KH", "QS", "AS")] == [13, 0, 12, 1]
    assert [ESPANOLA.value_map()[c] for c in ("RO", "RB", "SO", "1O")] == [10, 0, 10, 1]
    assert make_rules("espanola", {"kings_zero": "all"}).value_map()["RO"] == 0
    assert make_rules("espanola", {"kings_zero": "none"}).value_map()["RB"] == 10
    assert (len(STANDARD.values), len(ESPANOLA.values)) == (52, 40)


def test_powers():
    assert STANDARD.ruleset.powers["9"] == "spy" and "9" not in ESPANOLA.ruleset.powers
    assert ESPANOLA.ruleset.powers["R"] == "look" and "look" not in STANDARD.ruleset.powers.values()


def test_claim_windows_only_where_pairs_apply():
    assert ESPANOLA.ruleset.pairs(ESPANOLA.options) is True
    assert STANDARD.ruleset.pairs(STANDARD.options) is False
    off = make_rules("espanola", {"pairs": False})
    assert off.ruleset.pairs(off.options) is False


def test_multi_swap_after_a_draw():
    no_discard = make_rules("standard", {"multi_swap_from_discard": False})
    assert [STANDARD.ruleset.multi_swap(h, STANDARD.options) for h in ("deck", "discard")] == [True, True]
    assert [no_discard.ruleset.multi_swap(h, no_discard.options) for h in ("deck", "discard")] == [True, False]
    assert [ESPANOLA.ruleset.multi_swap(h, ESPANOLA.options) for h in ("deck", "discard")] == [False, False]


def test_spy_reaches_own_cards_only_in_espanola():
    assert STANDARD.ruleset.spy_seats(1, 3) == [0, 2]
    assert ESPANOLA.ruleset.spy_seats(1, 3) == [0, 1, 2]


def test_first_round_dealer_and_starter():
    # The seeded first seat deals (standard) or starts (espanola).
    assert STANDARD.ruleset.first_seats(3, 4) == (0, 3)
    assert ESPANOLA.ruleset.first_seats(0, 4) == (0, 3)
    for rules in (STANDARD, ESPANOLA):
        match = Match(rules, 4, "seats")
        first = match.chance.first_seat(4)
        assert (match.starter, match.dealer) == rules.ruleset.first_seats(first, 4)


def test_next_round_dealer_and_starter():
    # Lowest score starts and highest deals (standard); the start moves one seat on (espanola).
    scores = [9, 0, 20, 5]
    assert next_starter_dealer(STANDARD, scores, starter=3, dealer=2) == (1, 2)
    assert next_starter_dealer(ESPANOLA, scores, starter=3, dealer=2) == (0, 3)


def test_caller_tied_for_lowest():
    assert score_round(STANDARD, [["3S"], ["3H"], ["9S"]], caller=0).scores == (0, 3, 9)
    assert score_round(ESPANOLA, [["3O"], ["3C"], ["7E"]], caller=0).scores == (3, 3, 7)


def test_caller_strictly_lowest_and_not_lowest():
    assert score_round(STANDARD, [["2S"], ["5H"]], caller=0).scores == (0, 5)
    assert score_round(ESPANOLA, [["2O"], ["5C"]], caller=0).scores == (-8, 5)
    assert score_round(STANDARD, [["5S"], ["2H"]], caller=0).scores == (10, 0)
    assert score_round(ESPANOLA, [["5O"], ["2C"]], caller=0).scores == (5, 2)
    literal = make_rules("espanola", {"cabo_bonus": "literal"})
    assert score_round(literal, [["2O"], ["5C"]], caller=0).scores == (-10, 5)


def test_no_caller():
    # Standard: every lowest hand scores 0; espanola: everyone scores the sum.
    assert score_round(STANDARD, [["2S"], ["5H"]], caller=None).scores == (0, 5)
    assert score_round(ESPANOLA, [["2O"], ["5C"]], caller=None).scores == (2, 5)


def test_the_moon_is_standard_only():
    moon = score_round(STANDARD, [["QH", "QD", "KS", "KC"], ["AH"]], caller=1)
    assert moon.moon == 0 and moon.scores == (0, 50)
    alike = score_round(ESPANOLA, [["SO", "SC", "RO", "RC"], ["1O"]], caller=1)
    assert alike.moon is None and alike.scores == (40, -9)


def test_reset_at_100_is_standard_only():
    assert add_scores(STANDARD, [90, 0], [False, False], [10, 0]) == ([50, 0], [True, False], [0])
    assert add_scores(ESPANOLA, [90, 0], [False, False], [10, 0]) == ([100, 0], [False, False], [])


def test_match_end():
    assert match_end(STANDARD, [101, 0], 1) == "score"
    assert match_end(ESPANOLA, [101, 0], 1) is None
    assert match_end(ESPANOLA, [101, 0], 5) == "rounds"
    assert match_end(STANDARD, [99, 0], 5) is None
    assert match_end(make_rules("espanola", {"target_score": 0}), [101, 0], 1) == "target"
    assert match_end(make_rules("standard", {"max_rounds": 3}), [0, 0], 3) == "max_rounds"


@dataclass(frozen=True)
class ShortEspanola(Espanola):
    """A third preset: espanola without claim windows, over two rounds."""

    name: ClassVar[str] = "short_espanola"

    def pairs(self, options):
        return False

    def match_end(self, options, totals, rounds_played):
        return "rounds" if rounds_played >= 2 else None


def test_a_registered_rule_set_is_a_preset_the_engine_plays():
    register(ShortEspanola())
    try:
        assert preset_names() == ("standard", "espanola", "short_espanola")
        rules = make_rules("short_espanola", {"rounds": 9})
        assert rules.value_map() == ESPANOLA.value_map()
        match = Match(rules, 3, "third")
        for _ in drive(match, random.Random(1), 100_000):
            assert match.phase != "claim"
        assert match.result is not None and match.result.reason == "rounds" and len(match.result.rounds) == 2
    finally:
        del RULESETS["short_espanola"]


def test_a_preset_is_registered_once_and_unknown_ones_are_refused():
    with pytest.raises(ValueError, match="registered twice"):
        register(Standard())
    with pytest.raises(RuleError, match="unknown rule preset 'tute'; expected one of: standard, espanola"):
        make_rules("tute")
    assert issubclass(Standard, RuleSet)
