"""One match for an environment: the seats a learner plays, the seats opponents play, and every message
each seat is sent, made as the arena's referee makes them.

The referee (:mod:`arena.match.runner`) asks every seat that must act at once, each with an ``act``
message built from :func:`arena.game.observe.observe` and the seat's new events (request ids counted
over the table, in seat order), applies the choices in seat order, sends ``update`` after a round's
end and ``over`` at the match's. A :class:`Table` does the same with the same functions
(:mod:`arena.match.protocol`), except that a learner's seat is answered by :meth:`Table.choose`
instead of a process: so what a learner is shown is what a bot in that seat would have been sent,
byte for byte (a test plays the same match both ways). The learner's other messages (``hello``,
``update``, ``over``) wait in :meth:`Table.sent` until it next looks.

An opponent's fault is handled as in a tournament under ``fault_policy`` (``forfeit``: the fallback
policy plays the seat's moves from then on, and it ranks below the others; ``fallback``: that decision
only, forfeited after ``max_faults``), and kept in :attr:`Table.faults`.
"""

from __future__ import annotations

import random
from typing import Any, Mapping

from ..bounds import MAX_FAULTS
from ..game.registry import DEFAULT_GAME, game_named
from ..game.seam import GameRules
from ..match import protocol
from ..match.faults import FAULT_POLICIES, BotFault, FaultKind
from ..match.link import TimeControl, collect_ready, collect_replies
from ..match.runner import final_places
from ..sandbox import SandboxError
from ..match.seeds import play_match_id
from .checks import integer, legal_index, one_of
from .opponents import BotOpponent, CallableOpponent, Opponent

__all__ = ["Table"]


class Table:
    """A match of ``players`` seats under ``rules``; ``opponents`` by seat, the other seats the learner's."""

    def __init__(self, rules: GameRules, players: int, opponents: Mapping[int, Opponent],
                 time: TimeControl | None = None, fault_policy: str = "forfeit", max_faults: int = 3,
                 game: str = DEFAULT_GAME) -> None:
        one_of("fault_policy", fault_policy, FAULT_POLICIES)
        max_faults = integer("max_faults", max_faults, 1, MAX_FAULTS)
        self.rules, self.players, self.game_name = rules, players, game
        self.game = game_named(game)
        self.opponents = dict(opponents)
        self.learners = [seat for seat in range(players) if seat not in self.opponents]
        self.time = time or TimeControl()
        self.fault_policy, self.max_faults = fault_policy, max_faults
        self.match: Any = None
        self.result: dict[str, Any] | None = None
        self.faults: list[tuple[int, str, str]] = []
        """(seat, fault kind, detail) of the opponents' faults in this match."""

    # ------------------------------------------------------------------ a match

    def reset(self, seed: int | str, match_id: str | None = None,
              leaving: Mapping[int, tuple[int, bool]] | None = None) -> None:
        """Deal a new match from ``seed`` and play until a learner is asked (or the match is over). ``match_id``:
        the id ``hello`` gives (default: one made from the seed, as ``arena play`` makes it); ``leaving``: seats
        that forfeit, each at a decision and whether before it was asked (a start-up fault), as a replay says."""
        self.match = self.game.new_match(self.rules, self.players, seed)
        self.match_id = play_match_id(seed) if match_id is None else match_id  # never the seed itself
        self.leaving = dict(leaving or {})
        self.request_id = 0
        self.cursor = [0] * self.players
        self.outbox: dict[int, list[dict[str, Any]]] = {seat: [] for seat in self.learners}
        self.asking: dict[int, dict[str, Any]] = {}
        self.chosen: dict[int, int] = {}
        self.forfeited = [False] * self.players
        self.fault_count = [0] * self.players
        self.faults = []
        self.result = None
        for seat in range(self.players):
            self._send(seat, protocol.hello(self.match_id, seat, self.players, self.rules, self.time.move_ms,
                                            self.time.startup_ms, self.time.bank_ms, self.game_name))
        self._ready()
        self._leave(before=True)
        self._advance()

    @property
    def over(self) -> bool:
        return self.result is not None

    def waiting(self) -> list[int]:
        """The learner's seats asked now and not answered yet, in seat order."""
        return [seat for seat in self.asking
                if seat in self.outbox and seat not in self.chosen and not self.forfeited[seat]]

    def message(self, seat: int) -> dict[str, Any]:
        """The ``act`` message ``seat`` is asked with now (a :class:`KeyError` if it is not asked)."""
        return self.asking[seat]

    def sent(self, seat: int) -> list[dict[str, Any]]:
        """The learner seat's messages other than ``act`` since it last looked (``hello``, ``update``, ``over``)."""
        out, self.outbox[seat] = self.outbox[seat], []
        return out

    def choose(self, seat: int, index: int) -> None:
        """The learner's answer for ``seat``: an index into its message's ``legal``; play on when every seat asked
        has answered. A :class:`ValueError` for a seat not asked or an index out of range, a :class:`TypeError`
        for an index not an int."""
        if seat not in self.waiting():
            raise ValueError(f"seat {seat} is not asked now (asked: {self.waiting() or 'none'})")
        self.chosen[seat] = legal_index("index", index, seat, len(self.asking[seat]["legal"]))
        self._advance()

    def close(self) -> None:
        """Stop every bot opponent's process."""
        for opponent in self.opponents.values():
            if isinstance(opponent, BotOpponent):
                opponent.stop()

    # ------------------------------------------------------------------ the referee's loop

    def _advance(self) -> None:
        match = self.match
        while not match.over:
            if not self.asking:
                self._ask()
            if self.waiting():
                return
            self._answer_opponents()
            since = len(match.events)
            for seat in sorted(self.asking):  # the runner applies every choice, in seat order
                index = self.chosen.get(seat)
                match.apply_legal(seat, self.game.fallback(self.asking[seat]["legal"]) if index is None else index)
            self.asking, self.chosen = {}, {}
            self._leave(before=False)
            if self.game.round_ended(match, since):
                for seat in range(self.players):
                    self._send(seat, protocol.update(self._new_events(seat)))
        self._finish()

    def _leave(self, before: bool) -> None:
        """The seats ``leaving`` says have forfeited by now: after the decision they faulted at, or before it
        for a start-up fault."""
        done = len(self.match.history)
        for seat, (decision, startup) in self.leaving.items():
            if decision < done or (before and startup and decision <= done):
                self.forfeited[seat] = True

    def _ask(self) -> None:
        """Make every asked seat's ``act`` message now, before any choice is applied (a request id each)."""
        self._leave(before=True)
        for seat in self.match.asked():
            if self.forfeited[seat]:
                self.asking[seat] = {"legal": self.match.legal_keyed(seat)[1]}  # the fallback plays it
                continue
            self.request_id += 1
            self.asking[seat] = protocol.act(self.request_id, self.game.observe(self.match, seat),
                                             self._new_events(seat), self.match.legal_keyed(seat)[1])

    def _answer_opponents(self) -> None:
        waiting: dict[int, Any] = {}
        for seat, message in self.asking.items():
            opponent = self.opponents.get(seat)
            if opponent is None or self.forfeited[seat]:
                continue
            if isinstance(opponent, CallableOpponent):
                self.chosen[seat] = int(opponent.policy(message))
                continue
            link = opponent.link
            if link is None:
                continue
            try:
                link.request(message["id"], protocol.encode(message))
                waiting[seat] = (link, message["legal"])
            except BotFault as fault:
                self._fault(seat, fault)
        for seat, answer in collect_replies(waiting).items():
            if isinstance(answer, BotFault):
                self._fault(seat, answer)
            else:
                self.chosen[seat] = answer
        for seat, index in list(self.chosen.items()):
            if seat in self.opponents and not 0 <= index < len(self.asking[seat]["legal"]):
                del self.chosen[seat]  # a policy's answer out of range: the fallback's move, and a fault
                self._fault(seat, BotFault(FaultKind.ILLEGAL, f"index {index} is not in 0..{len(self.asking[seat]['legal']) - 1}"))

    def _new_events(self, seat: int) -> list[dict[str, Any]]:
        events = self.game.events_for(self.match, seat, self.cursor[seat])
        self.cursor[seat] = len(self.match.events)
        return events

    def _send(self, seat: int, message: dict[str, Any]) -> None:
        """A message that expects no reply (or ``hello``): to the learner's outbox, or to the opponent; none to a
        seat forfeited (its process is gone)."""
        if self.forfeited[seat] and message["type"] != "hello":
            return
        if seat in self.outbox:
            self.outbox[seat].append(message)
            return
        opponent = self.opponents[seat]
        if not isinstance(opponent, BotOpponent) or self.forfeited[seat]:
            return
        try:
            if message["type"] == "hello":
                opponent.started().send_hello(message)
            elif opponent.link is not None:
                opponent.link.notify(message)
        except (BotFault, SandboxError, OSError) as exc:
            fault = exc if isinstance(exc, BotFault) else BotFault(FaultKind.STARTUP, f"could not start: {exc}")
            self._fault(seat, fault)

    def _ready(self) -> None:
        links = {seat: opponent.link for seat, opponent in self.opponents.items()
                 if isinstance(opponent, BotOpponent) and opponent.link is not None and not self.forfeited[seat]}
        for seat, fault in sorted(collect_ready(links).items()):
            self._fault(seat, fault)

    def _fault(self, seat: int, fault: BotFault) -> None:
        self.faults.append((seat, fault.kind.value, fault.detail))
        self.fault_count[seat] += 1
        if self.fault_policy == "forfeit" or fault.fatal or self.fault_count[seat] >= self.max_faults:
            self.forfeited[seat] = True
            opponent = self.opponents[seat]
            if isinstance(opponent, BotOpponent):
                opponent.stop()

    def _finish(self) -> None:
        if self.result is not None:
            return
        outcome = self.game.result(self.match)
        forfeited = tuple(self.forfeited)
        places = final_places(outcome.totals, forfeited, self.game_name)
        self.result = {"totals": list(outcome.totals), "places": list(places), "reason": outcome.reason,
                       "forfeited": list(forfeited)}
        for seat in range(self.players):
            self._send(seat, protocol.over({**self.result, "seat": seat}))
        for seat, opponent in self.opponents.items():  # as a tournament keeps a process: only one without a fault
            if isinstance(opponent, BotOpponent) and self.fault_count[seat]:
                opponent.stop()


def draw_seed(stream: random.Random) -> int:
    """A match seed from an environment's own stream (below 2**53: exact in JSON readers)."""
    return stream.randrange(2**53)
