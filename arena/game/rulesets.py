"""Rule sets: what each preset decides, as one object per preset.

The engine (:mod:`arena.game.state`, :mod:`arena.game.scoring`) never compares preset names; it
asks the match's rule set (``rules.ruleset``) every question on which the presets differ: the deck
and card values, the powers and whom they reach, whether claim windows open, whether a multi-swap
is offered, who deals and starts, how a round scores and when a match ends. A preset is a
:class:`RuleSet` subclass registered under its name with :func:`register`; a third one is a new
class here (deck in :mod:`arena.game.cards`, options from :mod:`arena.game.options`) and one
``register`` line, with no change to the engine.

A rule set holds no state of its own: everything a match chose is in ``options``, passed in. Rule
sets are frozen dataclasses without fields, so two of the same class are equal and a pickled
:class:`~arena.game.rules.Rules` compares equal to the one it was made from.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Any, ClassVar, Mapping, Sequence

from .cards import FRENCH, SPANISH, Deck
from .options import SAFETY, Option
from .scoring import (CABO_BONUS, CALLER_PENALTY, END_ABOVE, MOON_PENALTY, RESET_AT, RESET_TO, RoundScore,
                      first_clockwise, is_moon)

Options = Mapping[str, Any]


@dataclass(frozen=True)
class RuleSet(abc.ABC):
    """One preset's rules. Subclasses set the class attributes and the methods without a default."""

    name: ClassVar[str]
    """Preset name, as in configs, ``hello`` and replays."""
    deck: ClassVar[Deck]
    """The physical deck."""
    options: ClassVar[tuple[Option, ...]]
    """Options of the preset, in documentation order."""
    powers: ClassVar[Mapping[str, str]]
    """Rank -> power of a card drawn from the deck (``peek``, ``spy``, ``blind_swap``, ``look``)."""

    @abc.abstractmethod
    def card_value(self, code: str, options: Options) -> int:
        """Score value of the card ``code`` under ``options``."""

    def values(self, options: Options) -> tuple[int, ...]:
        """Score value of each card id of :attr:`deck`."""
        return tuple(self.card_value(code, options) for code in self.deck.codes)

    def pairs(self, options: Options) -> bool:
        """Whether a card landing on the discard opens a claim window."""
        return False

    def multi_swap(self, held_from: str, options: Options) -> bool:
        """Whether a card held from ``deck`` or ``discard`` may be used for a multi-swap."""
        return False

    def spy_seats(self, seat: int, players: int) -> list[int]:
        """Seats whose cards ``seat`` may look at with a ``spy`` power, in seat order."""
        return [s for s in range(players) if s != seat]

    @abc.abstractmethod
    def first_seats(self, first: int, players: int) -> tuple[int, int]:
        """``(starter, dealer)`` of the first round, from the seeded ``first`` seat."""

    @abc.abstractmethod
    def next_seats(self, scores: Sequence[int], starter: int, dealer: int) -> tuple[int, int]:
        """``(starter, dealer)`` of the next round, from this round's scores."""

    @abc.abstractmethod
    def score_round(
        self, options: Options, hands: Sequence[Sequence[str]], sums: tuple[int, ...], caller: int | None
    ) -> RoundScore:
        """Score the revealed ``hands`` with card sums ``sums`` for ``caller`` (or None)."""

    def resets(self, totals: list[int], used: list[bool]) -> list[int]:
        """Apply the preset's total resets in place to the new ``totals``; return the seats reset."""
        return []

    def match_end(self, options: Options, totals: Sequence[int], rounds_played: int) -> str | None:
        """The preset's own reason to end the match after this round (safety limits aside), or None."""
        return None


@dataclass(frozen=True)
class Standard(RuleSet):
    """The Portuguese rules (seed 000): 52 cards, multi-swaps, shooting the moon, 100 -> 50 once."""

    name: ClassVar[str] = "standard"
    deck: ClassVar[Deck] = FRENCH
    options: ClassVar[tuple[Option, ...]] = (
        Option("multi_swap_from_discard", "bool", True, "a card taken from the discard may be used for a multi-swap"),
        *SAFETY,
    )
    powers: ClassVar[Mapping[str, str]] = {
        "7": "peek", "8": "peek", "9": "spy", "T": "spy", "J": "blind_swap", "Q": "blind_swap"}

    def card_value(self, code: str, options: Options) -> int:
        if code in ("KH", "KD"):
            return 0
        return {"A": 1, "T": 10, "J": 11, "Q": 12, "K": 13}.get(code[0]) or int(code[0])

    def multi_swap(self, held_from: str, options: Options) -> bool:
        return held_from == "deck" or bool(options["multi_swap_from_discard"])

    def first_seats(self, first: int, players: int) -> tuple[int, int]:
        # ``first`` deals; the seat on the dealer's left starts.
        return (first + 1) % players, first

    def next_seats(self, scores: Sequence[int], starter: int, dealer: int) -> tuple[int, int]:
        n = len(scores)
        low, high = min(scores), max(scores)
        return (first_clockwise({s for s in range(n) if scores[s] == low}, starter, n),
                first_clockwise({s for s in range(n) if scores[s] == high}, dealer, n))

    def score_round(
        self, options: Options, hands: Sequence[Sequence[str]], sums: tuple[int, ...], caller: int | None
    ) -> RoundScore:
        for seat, hand in enumerate(hands):
            if is_moon(hand):
                return RoundScore(sums, tuple(0 if s == seat else MOON_PENALTY for s in range(len(hands))), seat)
        low = min(sums)
        if caller is not None and sums[caller] == low:
            scores = [0 if s == caller else total for s, total in enumerate(sums)]
        else:
            scores = [0 if total == low else total for total in sums]
            if caller is not None:
                scores[caller] = sums[caller] + CALLER_PENALTY
        return RoundScore(sums, tuple(scores), None)

    def resets(self, totals: list[int], used: list[bool]) -> list[int]:
        reset = []
        for seat, total in enumerate(totals):
            if total == RESET_AT and not used[seat]:
                totals[seat], used[seat] = RESET_TO, True
                reset.append(seat)
        return reset

    def match_end(self, options: Options, totals: Sequence[int], rounds_played: int) -> str | None:
        return "score" if any(t > END_ABOVE for t in totals) else None


@dataclass(frozen=True)
class Espanola(RuleSet):
    """The Spanish rules (seed 003): 40 cards, claim windows, the Rey's look, a fixed number of rounds."""

    name: ClassVar[str] = "espanola"
    deck: ClassVar[Deck] = SPANISH
    options: ClassVar[tuple[Option, ...]] = (
        Option("kings_zero", "choice", "two", "which Reyes are worth 0: two (bastos, espadas), all, none",
               choices=("two", "all", "none")),
        Option("pairs", "bool", True, "claim windows: discard a card of the discard top's rank out of turn"),
        Option("cabo_bonus", "choice", "modifier", "a winning caller scores sum-10 (modifier) or -10 (literal)",
               choices=("modifier", "literal")),
        Option("rounds", "int", 5, "the match ends after this many rounds", minimum=1, maximum=10_000),
        Option("target_score", "int_or_none", None, "the match also ends once a total is at or below this",
               minimum=-100_000, maximum=100_000),
        *SAFETY,
    )
    powers: ClassVar[Mapping[str, str]] = {"S": "spy", "C": "blind_swap", "R": "look"}

    def card_value(self, code: str, options: Options) -> int:
        rank, suit = code[0], code[1]
        zero = options["kings_zero"]
        if rank == "R" and (zero == "all" or (zero == "two" and suit in "BE")):
            return 0
        return 10 if rank in "SCR" else int(rank)

    def pairs(self, options: Options) -> bool:
        return bool(options["pairs"])

    def spy_seats(self, seat: int, players: int) -> list[int]:
        # The Sota looks at any one card, the player's own included.
        return list(range(players))

    def first_seats(self, first: int, players: int) -> tuple[int, int]:
        # ``first`` starts; the seat on the starter's right deals.
        return first, (first - 1) % players

    def next_seats(self, scores: Sequence[int], starter: int, dealer: int) -> tuple[int, int]:
        nxt = (starter + 1) % len(scores)
        return nxt, (nxt - 1) % len(scores)

    def score_round(
        self, options: Options, hands: Sequence[Sequence[str]], sums: tuple[int, ...], caller: int | None
    ) -> RoundScore:
        scores = list(sums)
        if caller is not None:
            strictly_lowest = all(sums[caller] < t for s, t in enumerate(sums) if s != caller)
            if options["cabo_bonus"] == "literal":
                scores[caller] = -CABO_BONUS if strictly_lowest else 0
            elif strictly_lowest:
                scores[caller] = sums[caller] - CABO_BONUS
        return RoundScore(sums, tuple(scores), None)

    def match_end(self, options: Options, totals: Sequence[int], rounds_played: int) -> str | None:
        target = options["target_score"]
        if target is not None and any(t <= target for t in totals):
            return "target"
        return "rounds" if rounds_played >= options["rounds"] else None


RULESETS: dict[str, RuleSet] = {}
"""Preset name -> its rule set, in registration order (the order ``arena rules`` and errors list them)."""


def register(ruleset: RuleSet) -> RuleSet:
    """Make ``ruleset`` available as the preset ``ruleset.name``."""
    if ruleset.name in RULESETS:
        raise ValueError(f"rule preset {ruleset.name!r} is registered twice")
    RULESETS[ruleset.name] = ruleset
    return ruleset


register(Standard())
register(Espanola())
