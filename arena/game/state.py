"""The match state machine: the full truth of one Cabo match (OpenSpiel's *State*).

Nothing here is meant for a bot's eyes: bots see a match only through
:func:`arena.game.observe.observe` and :func:`arena.game.observe.events_for`.

Knowledge is tracked per physical card (``known[card]`` is a bit mask of the seats
that know it), so it follows the card through blind swaps, claims and returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from typing import Any, Hashable, Iterable, Mapping

from . import scoring
from .chance import DEAL, DRAW, FLIP, PENALTY, Chance, ChanceWatcher
from .errors import IllegalAction
from .events import Event
from .rules import HAND_SIZE, MAX_PLAYERS, MIN_PLAYERS, Rules
from .rulesets import RULESETS

Action = dict[str, Any]

# Phases, as named in the protocol's ``state.phase``.
LOOK_INITIAL = "look_initial"
TURN = "turn"
DRAWN = "drawn"
REY = "rey"
CLAIM = "claim"
OVER = "over"

_POWERS = {name: ruleset.powers for name, ruleset in RULESETS.items()}
"""Preset -> rank -> power: every power a match may offer (each match reads its own rule set's)."""
_INT_FIELDS = ("slot", "seat", "their", "into")
_LEGAL_LISTS: dict[Hashable, list[Action]] = {}
"""Legal action lists by ``Match._legal_key``, shared by every match of the process."""
_LEGAL_LISTS_MAX = 2048
"""Cleared when full: espanola alone has tens of thousands of situations (4 KB each on average)."""


@dataclass(frozen=True)
class RoundResult:
    """How one round ended."""

    round: int
    """Round number, from 1."""
    hands: tuple[tuple[str, ...], ...]
    """Revealed cards of each seat (occupied slots only)."""
    sums: tuple[int, ...]
    """Card sum of each hand."""
    scores: tuple[int, ...]
    """Points added this round."""
    totals: tuple[int, ...]
    """Running totals after this round (100 -> 50 applied)."""
    caller: int | None
    """Seat that called Cabo, or None (a round cut by the turn limit is scored as if nobody had)."""
    moon: int | None
    """Seat that shot the moon, or None."""
    resets: tuple[int, ...]
    """Seats whose total dropped from 100 to 50 this round."""
    ended: str
    """``cabo`` or ``turn_limit``."""
    turns: int
    """Turns played in the round."""


@dataclass(frozen=True)
class MatchResult:
    """The outcome of a finished match."""

    totals: tuple[int, ...]
    """Final running totals per seat."""
    places: tuple[int, ...]
    """1-based place per seat; equal totals share a place."""
    rounds: tuple[RoundResult, ...]
    """Every round in order."""
    reason: str
    """``score`` (standard: a total above 100), ``rounds``, ``target`` or ``max_rounds``."""

    def to_json(self) -> dict[str, Any]:
        return {
            "totals": list(self.totals),
            "places": list(self.places),
            "reason": self.reason,
            "rounds": [
                {
                    "round": r.round, "scores": list(r.scores), "sums": list(r.sums),
                    "totals": list(r.totals), "caller": r.caller, "moon": r.moon,
                    "resets": list(r.resets), "ended": r.ended, "turns": r.turns,
                }
                for r in self.rounds
            ],
        }


class Match:
    """One match from the first deal to the end condition.

    Drive it with :meth:`asked` (seats that must act now, several during simultaneous
    phases), :meth:`legal_actions` and :meth:`apply`.
    """

    # Round state, (re)set by _deal.
    phase: str
    to_move: int
    starter: int
    dealer: int
    turn: int
    reshuffles: int
    deck: list[int]
    discard: list[int]
    known: list[int]
    hands: list[list[int | None]]
    _occ: list[tuple[int, ...]]
    """Occupied slot indices per seat, kept in step with ``hands`` (see ``_reoccupy``)."""
    cabo: int | None
    held: int | None
    held_from: str | None
    looked: tuple[int, int] | None
    claims: dict[int, int]
    waiting: set[int]
    window_origin: int
    window_then_advance: bool
    watcher: ChanceWatcher | None = None
    """Told of every card the deck gives (the referee's luck meter, :mod:`arena.luck`); never seen by a seat."""

    def __init__(self, rules: Rules, players: int, seed: int | str, chance: Chance | None = None,
                 watcher: ChanceWatcher | None = None) -> None:
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ValueError(f"players must be {MIN_PLAYERS} to {MAX_PLAYERS}, not {players}")
        self.rules = rules
        self.players = players
        self.seed = seed
        self.chance = chance or Chance(seed)
        self.everyone = (1 << players) - 1
        self.codes = rules.deck.codes
        self.values = rules.values
        self.ranks = tuple(code[0] for code in self.codes)
        ruleset = self.ruleset = rules.ruleset
        self.powers = ruleset.powers
        self.pairs = ruleset.pairs(rules.options)
        self.multi_from_deck = ruleset.multi_swap("deck", rules.options)
        self.multi_from_discard = ruleset.multi_swap("discard", rules.options)
        self.max_turns: int = rules.options["max_turns_per_round"]

        self.events: list[Event] = []
        self.history: list[tuple[int, Action, int]] = []
        """Applied actions: ``(seat, action, index of the first event it caused)``."""
        self.totals = [0] * players
        self.reset_used = [False] * players
        self.rounds: list[RoundResult] = []
        self.result: MatchResult | None = None
        self.round_no = 0
        self.version = 0
        self._shape = (rules.preset, self.multi_from_discard)
        """What, beyond the key's other parts, the drawn phase's legal list depends on."""
        self._by_seat: dict[int, tuple[Hashable, list[Action]]] = {}
        self._cache_version = -1

        self.starter, self.dealer = ruleset.first_seats(self.chance.first_seat(players), players)
        if watcher is not None:
            self.watcher = watcher
        self._deal()

    # ----------------------------------------------------------------- queries

    @property
    def over(self) -> bool:
        return self.result is not None

    def asked(self) -> tuple[int, ...]:
        """Seats that must act now, in seat order."""
        if self.phase in (LOOK_INITIAL, CLAIM):
            return tuple(sorted(self.waiting))
        if self.phase == OVER:
            return ()
        return (self.to_move,)

    def occupied(self, seat: int) -> list[int]:
        """Occupied slot indices of ``seat``."""
        return list(self._occ[seat])

    def can_draw(self) -> bool:
        return bool(self.deck) or len(self.discard) > 1

    def legal_actions(self, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now, as protocol action objects ([] if not asked).

        The list and its actions are shared with later identical situations: read them,
        never change them.
        """
        return self.legal_keyed(seat)[1]

    def legal_keyed(self, seat: int) -> tuple[Hashable, list[Action]]:
        """``(key, legal_actions(seat))``: equal keys mean equal lists, in any match.

        The key names only what the list depends on (phase, slot occupancy, the held card's
        power, the preset), so lists are built once per process (while the bounded cache
        keeps them) and shared between matches, and the arena encodes each list's JSON
        once under its key.
        """
        if self._cache_version != self.version:
            self._by_seat = {}
            self._cache_version = self.version
        entry = self._by_seat.get(seat)
        if entry is None:
            key = self._legal_key(seat)
            if key is None:
                actions: list[Action] = []
            else:
                actions = _LEGAL_LISTS.get(key)  # type: ignore[assignment]
                if actions is None:
                    if len(_LEGAL_LISTS) >= _LEGAL_LISTS_MAX:
                        _LEGAL_LISTS.clear()
                    actions = _LEGAL_LISTS[key] = self._generate(seat)
            entry = self._by_seat[seat] = (key, actions)
        return entry

    def _legal_key(self, seat: int) -> Hashable:
        """What ``seat``'s legal list depends on now, or None when it is not asked."""
        phase = self.phase
        if phase == LOOK_INITIAL or phase == CLAIM:
            return (phase, self._occ[seat]) if seat in self.waiting else None
        if phase == OVER or seat != self.to_move:
            return None
        if phase == TURN:
            return (TURN, self.can_draw(), bool(self.discard) and bool(self._occ[seat]), self.cabo is None)
        if phase == REY:
            return (REY,)
        held = self.held
        assert held is not None
        power = None if self.held_from == "discard" else self.powers.get(self.ranks[held])
        return (DRAWN, self._shape, seat, self.held_from, power, tuple(self._occ))

    def _generate(self, seat: int) -> list[Action]:
        phase = self.phase
        if phase == LOOK_INITIAL:
            if seat not in self.waiting:
                return []
            return [{"do": "look_initial", "slots": [a, b]} for a, b in combinations(self.occupied(seat), 2)]
        if phase == CLAIM:
            if seat not in self.waiting:
                return []
            return [{"do": "pass"}] + [{"do": "claim", "slot": i} for i in self.occupied(seat)]
        if phase == OVER or seat != self.to_move:
            return []
        if phase == TURN:
            return self._turn_actions(seat)
        if phase == REY:
            return [{"do": "place"}, {"do": "discard"}]
        return self._drawn_actions(seat)

    def _turn_actions(self, seat: int) -> list[Action]:
        out: list[Action] = []
        if self.can_draw():
            out.append({"do": "draw"})
        if self.discard and self.occupied(seat):
            out.append({"do": "take"})
        if self.cabo is None:
            out.append({"do": "cabo"})
        return out

    def _drawn_actions(self, seat: int) -> list[Action]:
        mine = self.occupied(seat)
        out: list[Action] = [{"do": "swap", "slot": i} for i in mine]
        if self.multi_from_deck if self.held_from == "deck" else self.multi_from_discard:
            for size in range(2, min(4, len(mine)) + 1):
                for group in combinations(mine, size):
                    out.extend({"do": "multi", "slots": list(group), "into": i} for i in group)
        if self.held_from == "discard":
            return out
        out.append({"do": "discard"})
        assert self.held is not None
        power = self.powers.get(self.ranks[self.held])
        others = [(s, i) for s in range(self.players) if s != seat for i in self.occupied(s)]
        if power == "peek":
            out.extend({"do": "peek", "slot": i} for i in mine)
        elif power == "spy":
            out.extend({"do": "spy", "seat": s, "slot": i}
                       for s in self.ruleset.spy_seats(seat, self.players) for i in self.occupied(s))
        elif power == "blind_swap":
            out.extend({"do": "blind_swap", "slot": m, "seat": s, "their": i} for m in mine for s, i in others)
        elif power == "look":
            out.extend({"do": "look", "seat": s, "slot": i} for s in range(self.players) for i in self.occupied(s))
        return out

    # ----------------------------------------------------------------- applying

    def apply(self, seat: int, action: Mapping[str, Any]) -> None:
        """Apply ``action`` for ``seat``; raise :class:`IllegalAction` saying why if it is not legal."""
        if type(seat) is not int or not 0 <= seat < self.players:
            raise IllegalAction(f"seat must be an integer 0..{self.players - 1}, not {seat!r}")
        legal = self.legal_actions(seat)
        if not _well_formed(action) or action not in legal:
            raise IllegalAction(self.explain(seat, action))
        act: Action = {key: list(value) if isinstance(value, list) else value for key, value in action.items()}
        self.history.append((seat, act, len(self.events)))
        self.version += 1
        getattr(self, "_do_" + str(act["do"]))(seat, act)

    def apply_legal(self, seat: int, index: int) -> None:
        """Apply the ``index``-th of ``legal_actions(seat)``: the arena's path, no validation needed."""
        act = self.legal_keyed(seat)[1][index]
        self.history.append((seat, act, len(self.events)))
        self.version += 1
        _HANDLERS[act["do"]](self, seat, act)

    def explain(self, seat: int, action: Any) -> str:
        """Why ``action`` is not legal for ``seat`` now (for fault messages)."""
        if not isinstance(action, Mapping) or not isinstance(action.get("do"), str):
            return f"an action must be an object with a string 'do'; got {_short(action)}"
        if not _well_formed(action):
            return f"fields {', '.join(_INT_FIELDS)} must be integers and 'slots' a list of integers; got {_short(action)}"
        legal = self.legal_actions(seat)
        if not legal:
            return f"seat {seat} is not asked to act now (phase {self.phase}, waiting for {list(self.asked())})"
        kinds = sorted({a["do"] for a in legal})
        same = [a for a in legal if a["do"] == action["do"]]
        if not same:
            return f"'{action['do']}' is not legal in phase {self.phase}; legal: {', '.join(kinds)}"
        for key in sorted(set(action) | set(same[0])):
            allowed = sorted({repr(a.get(key)) for a in same})
            if repr(action.get(key)) not in allowed:
                return f"'{action['do']}' with {key}={action.get(key)!r} is not legal; allowed {key}: {', '.join(allowed)}"
        return f"{_short(action)} is not among the legal actions"

    def _finish(self, seat: int, landed: bool) -> None:
        """End the current turn; a card that landed on the discard opens a claim window."""
        self.turn += 1
        self.held = None
        self.held_from = None
        self.looked = None
        if landed and self.pairs:
            self._open_window(seat, then_advance=True)
        else:
            self._advance()

    def _do_look_initial(self, seat: int, act: Action) -> None:
        slots = act["slots"]
        cards = [self.hands[seat][i] for i in slots]
        for card in cards:
            self.known[card] |= 1 << seat
        self._emit({"type": "look_initial", "seat": seat, "slots": slots},
                   ("cards", [self.codes[c] for c in cards], 1 << seat))
        self.waiting.discard(seat)
        if not self.waiting:
            if self.pairs:
                self._open_window((self.starter - 1) % self.players, then_advance=False)
            else:
                self._begin_turn()

    def _do_draw(self, seat: int, act: Action) -> None:
        card = self._pop_deck(seat)
        assert card is not None  # draw is legal only when a card can be drawn
        self.known[card] = 1 << seat
        self.held, self.held_from, self.phase = card, "deck", DRAWN
        if self.watcher is not None:
            self.watcher.drawn(self, DRAW, seat, card)
        self._emit({"type": "draw", "seat": seat, "deck": len(self.deck)}, ("card", self.codes[card], 1 << seat))

    def _do_take(self, seat: int, act: Action) -> None:
        card = self.discard.pop()
        self.held, self.held_from, self.phase = card, "discard", DRAWN
        self._emit({"type": "take", "seat": seat, "card": self.codes[card]})

    def _do_cabo(self, seat: int, act: Action) -> None:
        self.cabo = seat
        self._emit({"type": "cabo", "seat": seat})
        self._finish(seat, landed=False)

    def _do_swap(self, seat: int, act: Action) -> None:
        slot, card = act["slot"], self.held
        assert card is not None
        old = self.hands[seat][slot]
        assert old is not None
        self.hands[seat][slot] = card
        self._to_discard(old)
        self._emit({"type": "swap", "seat": seat, "slot": slot, "from": self.held_from, "discarded": self.codes[old]},
                   ("card", self.codes[card], self.known[card]))
        self._finish(seat, landed=True)

    def _do_multi(self, seat: int, act: Action) -> None:
        slots, into, card = act["slots"], act["into"], self.held
        assert card is not None
        hand = self.hands[seat]
        old = [hand[i] for i in slots]
        revealed = [self.codes[c] for c in old if c is not None]
        ok = len({self.values[c] for c in old if c is not None}) == 1
        public = {"type": "multi", "seat": seat, "slots": slots, "into": into, "from": self.held_from,
                  "revealed": revealed, "ok": ok}
        if ok:
            for i, c in zip(slots, old):
                assert c is not None
                hand[i] = None
                self._to_discard(c)
            hand[into] = card
            self._reoccupy(seat)
            self._emit(public, ("card", self.codes[card], self.known[card]))
        else:
            for c in old:
                assert c is not None
                self.known[c] = self.everyone
            self._to_discard(card)
            public["card"] = self.codes[card]
            self._emit(public)
        self._finish(seat, landed=True)

    def _do_discard(self, seat: int, act: Action) -> None:
        card = self.held
        assert card is not None
        self._to_discard(card)
        self._emit({"type": "discard", "seat": seat, "card": self.codes[card]})
        self._finish(seat, landed=True)

    def _use_power(self, seat: int) -> int:
        card = self.held
        assert card is not None
        self._to_discard(card)
        return card

    def _do_peek(self, seat: int, act: Action) -> None:
        self._spy_like(seat, "peek", seat, act["slot"])

    def _do_spy(self, seat: int, act: Action) -> None:
        self._spy_like(seat, "spy", act["seat"], act["slot"])

    def _spy_like(self, seat: int, kind: str, target: int, slot: int) -> None:
        power = self._use_power(seat)
        card = self.hands[target][slot]
        assert card is not None
        self.known[card] |= 1 << seat
        self._emit({"type": kind, "seat": seat, "target": target, "slot": slot, "discarded": self.codes[power]},
                   ("card", self.codes[card], 1 << seat))
        self._finish(seat, landed=True)

    def _do_blind_swap(self, seat: int, act: Action) -> None:
        power = self._use_power(seat)
        slot, target, their = act["slot"], act["seat"], act["their"]
        mine, theirs = self.hands[seat], self.hands[target]
        mine[slot], theirs[their] = theirs[their], mine[slot]
        self._emit({"type": "blind_swap", "seat": seat, "slot": slot, "target": target, "their": their,
                    "discarded": self.codes[power]})
        self._finish(seat, landed=True)

    def _do_look(self, seat: int, act: Action) -> None:
        rey = self.held
        assert rey is not None
        target, slot = act["seat"], act["slot"]
        card = self.hands[target][slot]
        assert card is not None
        self.known[rey] = self.everyone  # shown to use the power
        self.known[card] |= 1 << seat
        self.looked = (target, slot)
        self.phase = REY
        self._emit({"type": "look", "seat": seat, "target": target, "slot": slot, "rey": self.codes[rey]},
                   ("card", self.codes[card], 1 << seat))

    def _do_place(self, seat: int, act: Action) -> None:
        rey, looked = self.held, self.looked
        assert rey is not None and looked is not None
        target, slot = looked
        card = self.hands[target][slot]
        assert card is not None
        self.hands[target][slot] = rey
        self._to_discard(card)
        self._emit({"type": "place", "seat": seat, "target": target, "slot": slot, "card": self.codes[rey],
                    "discarded": self.codes[card]})
        self._finish(seat, landed=True)

    def _do_claim(self, seat: int, act: Action) -> None:
        self.claims[seat] = act["slot"]
        self._answered(seat)

    def _do_pass(self, seat: int, act: Action) -> None:
        self._answered(seat)

    # ----------------------------------------------------------------- windows

    def _open_window(self, origin: int, then_advance: bool) -> None:
        self.window_origin = origin
        self.window_then_advance = then_advance
        self.claims = {}
        self.waiting = {s for s in range(self.players) if self.occupied(s)}
        if self.waiting:
            self.phase = CLAIM
        else:
            self._after_window()

    def _answered(self, seat: int) -> None:
        self.waiting.discard(seat)
        if not self.waiting:
            self._resolve_window()

    def _resolve_window(self) -> None:
        rank = self.ranks[self.discard[-1]]
        last_right = None
        for step in range(1, self.players + 1):
            seat = (self.window_origin + step) % self.players
            if seat not in self.claims:
                continue
            slot = self.claims[seat]
            card = self.hands[seat][slot]
            assert card is not None
            ok = self.ranks[card] == rank
            self._emit({"type": "claim", "seat": seat, "slot": slot, "card": self.codes[card], "ok": ok})
            if ok:
                self.hands[seat][slot] = None
                self._reoccupy(seat)
                self._to_discard(card)
                last_right = seat
            else:
                self.known[card] = self.everyone
                self._penalty(seat)
        if last_right is not None:
            self._open_window(last_right, self.window_then_advance)
        else:
            self._after_window()

    def _after_window(self) -> None:
        self.claims = {}
        self.waiting = set()
        if self.window_then_advance:
            self._advance()
        else:
            self._begin_turn()

    def _penalty(self, seat: int) -> None:
        card = self._pop_deck(seat)
        if card is None:
            return
        self.known[card] = 0
        self.hands[seat].append(card)
        self._reoccupy(seat)
        if self.watcher is not None:
            self.watcher.drawn(self, PENALTY, seat, card)
        self._emit({"type": "penalty", "seat": seat, "slot": len(self.hands[seat]) - 1},
                   ("card", self.codes[card], 0))

    # ----------------------------------------------------------------- turns and rounds

    def _advance(self) -> None:
        """Move to the next turn, or end the round."""
        nxt = (self.to_move + 1) % self.players
        if self.cabo is not None and nxt == self.cabo:
            self._end_round("cabo")
        elif self.turn >= self.max_turns:
            self._end_round("turn_limit")
        else:
            self.to_move = nxt
            self._begin_turn()

    def _begin_turn(self) -> None:
        self.phase = TURN
        if self.cabo is not None and not self.can_draw() and not (self.discard and self._occ[self.to_move]):
            # No turn action (see _turn_actions): after Cabo, nothing to draw and nothing to take.
            self._emit({"type": "skip", "seat": self.to_move})
            self.turn += 1
            self._advance()

    def _pop_deck(self, seat: int) -> int | None:
        if not self.deck:
            if len(self.discard) < 2:
                return None
            rest, self.discard = self.discard[:-1], self.discard[-1:]
            self.reshuffles += 1
            self.deck = self.chance.reshuffle(self.round_no, self.reshuffles, rest)
            for card in rest:
                self.known[card] = 0
            self._emit({"type": "reshuffle", "seat": seat, "deck": len(self.deck)})
        return self.deck.pop()

    def _reoccupy(self, seat: int) -> None:
        """Refresh ``_occ[seat]`` after a slot of ``seat`` emptied or was added."""
        self._occ[seat] = tuple(i for i, card in enumerate(self.hands[seat]) if card is not None)

    def _to_discard(self, card: int) -> None:
        self.known[card] = self.everyone
        self.discard.append(card)

    def _emit(self, public: dict[str, Any], *private: tuple[str, Any, int]) -> None:
        self.events.append(Event(public, private))

    def _deal(self) -> None:
        self.round_no += 1
        n = self.players
        self.deck = self.chance.deal(self.round_no, list(range(len(self.codes))))
        self.known = [0] * len(self.codes)
        self.hands = [[] for _ in range(n)]
        watcher = self.watcher
        for _ in range(HAND_SIZE):  # seat 0 first: each seat's cards depend on seed and round only
            for seat, hand in enumerate(self.hands):
                card = self.deck.pop()
                hand.append(card)
                if watcher is not None:
                    watcher.drawn(self, DEAL, seat, card)
        self._occ = [tuple(range(len(hand))) for hand in self.hands]
        self.discard = []
        self._to_discard(self.deck.pop())
        if watcher is not None:
            watcher.drawn(self, FLIP, self.dealer, self.discard[-1])
        self.turn = 0
        self.reshuffles = 0
        self.cabo = None
        self.held = None
        self.held_from = None
        self.looked = None
        self.claims = {}
        self.window_origin = self.starter
        self.window_then_advance = False
        self.to_move = self.starter
        self.phase = LOOK_INITIAL
        self.waiting = set(range(n))
        self._emit({"type": "round_start", "seat": self.dealer, "round": self.round_no, "dealer": self.dealer,
                    "starter": self.starter, "slots": [len(h) for h in self.hands],
                    "discard": self.codes[self.discard[-1]], "deck": len(self.deck)})

    def _end_round(self, ended: str) -> None:
        hands = tuple(tuple(self.codes[c] for c in hand if c is not None) for hand in self.hands)
        # A round cut by the safety limit is scored as if nobody had called.
        score = scoring.score_round(self.rules, hands, self.cabo if ended == "cabo" else None)
        totals, self.reset_used, resets = scoring.add_scores(self.rules, self.totals, self.reset_used, score.scores)
        self.totals = totals
        result = RoundResult(self.round_no, hands, score.sums, score.scores, tuple(totals), self.cabo,
                             score.moon, tuple(resets), ended, self.turn)
        self.rounds.append(result)
        self._emit({"type": "round_over", "seat": self.cabo, "round": self.round_no, "ended": ended,
                    "hands": [list(h) for h in hands], "sums": list(score.sums), "scores": list(score.scores),
                    "totals": list(totals), "moon": score.moon, "resets": resets})
        reason = scoring.match_end(self.rules, totals, self.round_no)
        if reason is not None:
            self.phase = OVER
            self.waiting = set()
            self.result = MatchResult(tuple(totals), tuple(scoring.places(totals)), tuple(self.rounds), reason)
            self._emit({"type": "match_over", "seat": None, "reason": reason, "totals": list(totals),
                        "places": list(self.result.places)})
            return
        self.starter, self.dealer = scoring.next_starter_dealer(self.rules, score.scores, self.starter, self.dealer)
        self._deal()


_HANDLERS = {name[4:]: function for name, function in vars(Match).items() if name.startswith("_do_")}
"""Action name -> ``Match._do_<name>``: one dict lookup per applied action."""


def _well_formed(action: Any) -> bool:
    """Guard the ``in legal`` test against True == 1 and similar look-alikes."""
    if not isinstance(action, Mapping):
        return False
    for key in _INT_FIELDS:
        if key in action and type(action[key]) is not int:
            return False
    slots = action.get("slots")
    return slots is None or (type(slots) is list and all(type(s) is int for s in slots))


def _short(value: Any, limit: int = 200) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def replay_actions(rules: Rules, players: int, seed: int | str, actions: Iterable[tuple[int, Action]]) -> Match:
    """Rebuild a match from its seed and its actions."""
    match = Match(rules, players, seed)
    for seat, action in actions:
        match.apply(seat, action)
    return match
