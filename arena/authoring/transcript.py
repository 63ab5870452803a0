"""What a seat of a recorded match was sent, and a bot fed it again: replay a decision into a new version.

:func:`transcript` rebuilds the lines a seat was sent from a replay file: the match is played again
with the replay's actions by the referee's own loop (:class:`arena.env.table.Table`, every seat
answered from the replay), so each ``hello``, ``act``, ``update`` and ``over`` is the arena's own
message (the act's request ids counted over the table; no message to a seat after it forfeited).
``python bot.py < transcript.jsonl`` then shows what the bot makes of the match.

:func:`feed` sends a transcript to a bot process (under the sandbox, with the replay's time limits) and
reads its answers: the first decision whose answer differs from the recorded one, or where the bot
faults, is what an author wants to look at; nothing after it is sent (the match would have gone
another way from there).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from ..bots import BotSpec
from ..bots.launch import launch_spec
from ..env.table import Table
from ..game.registry import DEFAULT_GAME, game_named
from ..game.replay import hello_time
from ..match import protocol
from ..match.faults import BotFault
from ..match.link import BotLink, TimeControl, collect_ready, collect_replies
from ..sandbox import Limits
from ..sandbox.backends import Backend

__all__ = ["Difference", "Transcript", "feed", "time_of", "transcript"]


def time_of(header: dict[str, Any]) -> TimeControl:
    """The time limits a replay's ``hello`` gave (an older arena's replay keeps none: the defaults)."""
    time, default = hello_time(header), TimeControl()
    return TimeControl(time.get("move_ms") or default.move_ms, time.get("startup_ms") or default.startup_ms,
                       time.get("bank_ms"))


@dataclass(frozen=True)
class Transcript:
    """A seat's messages, in order, and for each ``act`` among them the index of the recorded answer and
    whether the fallback policy chose it (the bot had faulted)."""

    messages: list[dict[str, Any]]
    recorded: list[int]
    by_fallback: list[bool]


def transcript(header: dict[str, Any], records: Sequence[dict[str, Any]], seat: int) -> Transcript:
    """Every message seat ``seat`` was sent in the replayed match, in order (``hello`` first). A
    :class:`ValueError` when the replay's actions do not rebuild a match here."""
    game = str(header.get("game", DEFAULT_GAME))
    found = game_named(game)
    players = int(header["players"])
    rules = found.make_rules(header["rules"]["preset"], header["rules"]["options"])
    actions = [r for r in records if r.get("type") == "action"]
    startup = {(r["seat"], r["decision"]) for r in records if r.get("type") == "fault" and r.get("kind") == "startup"}
    leaving = {int(r["seat"]): (int(r["decision"]), (r["seat"], r["decision"]) in startup)
               for r in records if r.get("type") == "forfeit"}
    table = Table(rules, players, {}, time_of(header), game=game)
    table.reset(header["seed"], str(header.get("wire_id") or header.get("match") or ""), leaving)
    sent: list[dict[str, Any]] = []
    recorded: list[int] = []
    by_fallback: list[bool] = []
    while True:
        sent += table.sent(seat)
        if table.over:
            return Transcript(sent, recorded, by_fallback)
        waiting = table.waiting()
        if not waiting:
            raise ValueError("the replay's actions do not rebuild its match here (no seat asked before the end)")
        done = len(table.match.history)
        asked = sorted(table.asking)
        mine = actions[done:done + len(asked)]
        if len(mine) < len(asked):
            raise ValueError(f"the replay ends at decision {done}, before its match does")
        for index, record in zip(asked, mine):
            if int(record["seat"]) != index:
                raise ValueError(f"decision {done}: the replay has seat {record['seat']} move where seat {index} is asked")
        for record in mine:
            chosen = int(record["seat"])
            if chosen not in waiting:
                continue  # forfeited: the fallback's move, as the replay says
            legal = table.message(chosen)["legal"]
            if record["action"] not in legal:
                raise ValueError(f"decision {done}: seat {chosen}'s recorded action {record['action']} is not legal here")
            if chosen == seat:
                sent.append(table.message(seat))
                recorded.append(legal.index(record["action"]))
                by_fallback.append(record.get("by") == "fallback")
            table.choose(chosen, legal.index(record["action"]))


@dataclass(frozen=True)
class Difference:
    """Where a fed bot first parted from the recording: the ``act`` message, the recorded index, and the bot's
    index or its fault (kind, detail)."""

    decision: int
    """The act's number among the seat's acts (1 for the first)."""
    message: dict[str, Any]
    recorded: int
    chosen: int | None
    fault: tuple[str, str] | None = None


def feed(spec: BotSpec, backend: Backend, messages: Sequence[dict[str, Any]], recorded: Sequence[int],
         time: TimeControl, limits: Limits | None = None) -> tuple[int, Difference | None]:
    """Send ``messages`` (a transcript) to the bot ``spec`` under ``backend``, each ``act`` answered against
    ``recorded`` (the recorded index of each act, in order); returns how many acts it answered as recorded
    and the first difference (None: every act answered as recorded)."""
    link = BotLink(spec.name, backend.start(launch_spec(spec, limits or Limits())), time)
    acts = 0
    try:
        for message in messages:
            kind = message["type"]
            try:
                if kind == "hello":
                    link.send_hello(message)
                    failed = collect_ready({0: link}).get(0)
                    if failed is not None:
                        return acts, Difference(0, message, -1, None, (failed.kind.value, failed.detail))
                elif kind == "act":
                    link.request(message["id"], protocol.encode(message))
                    answer = collect_replies({0: (link, message["legal"])})[0]
                    expected = recorded[acts]
                    acts += 1
                    if isinstance(answer, BotFault):
                        return acts - 1, Difference(acts, message, expected, None, (answer.kind.value, answer.detail))
                    if answer != expected:
                        return acts - 1, Difference(acts, message, expected, answer)
                else:
                    link.notify(message)
            except BotFault as fault:
                return acts, Difference(acts + 1 if kind == "act" else acts, message, -1, None,
                                        (fault.kind.value, fault.detail))
        return acts, None
    finally:
        link.close()
