"""The games: the seam the arena plays any game through, and Cabo behind it.

:mod:`.seam` says what the arena needs from a game, :mod:`.registry` finds games by name and
:mod:`.plain` gives a game without its own viewer drawing its replays and text frames. The rest is
the Cabo rules engine: pure, seeded, deterministic, with per-seat views; :mod:`.cabo` puts it
behind the seam. The names below are the engine's, as they were before the seam.
"""

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
