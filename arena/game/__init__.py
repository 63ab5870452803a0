"""The Cabo rules engine: pure, seeded, deterministic, with per-seat views."""

from .cards import FRENCH, SPANISH, Deck
from .chance import Chance
from .errors import IllegalAction
from .observe import events_for, observe
from .rules import Rules, RuleError, make_rules, options_of, parse_option_args, preset_names
from .state import Match, MatchResult, RoundResult, replay_actions

__all__ = [
    "Chance", "Deck", "FRENCH", "IllegalAction", "Match", "MatchResult", "RoundResult", "RuleError",
    "Rules", "SPANISH", "events_for", "make_rules", "observe", "options_of", "parse_option_args",
    "preset_names", "replay_actions",
]
