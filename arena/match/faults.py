"""Bot faults: what a misbehaving bot did, in plain words.

A fault is never a game move (the rules' penalties for human slips do not apply):
it is recorded with its kind and the bot's stderr tail, and the fault policy
decides what happens next.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Any


class FaultKind(str, Enum):
    """Every way a bot can fail the protocol, and one way it can fail without breaking it."""

    STARTUP = "startup"
    """Did not start, or did not answer ``hello`` with ``ready`` in time."""
    TIMEOUT = "timeout"
    """No complete reply line before the deadline (or stopped reading its stdin)."""
    EXIT = "exit"
    """The process exited or closed its stdout."""
    BAD_JSON = "bad_json"
    """A reply line that is not valid UTF-8 JSON."""
    NOT_OBJECT = "not_object"
    """A reply that is JSON but not an object."""
    LINE_TOO_LONG = "line_too_long"
    """A reply line over the size limit (1 MiB)."""
    WRONG_ID = "wrong_id"
    """A reply whose ``id`` does not echo the request."""
    ILLEGAL = "illegal"
    """A reply that names no legal action."""
    HELPER_FALLBACK = "helper_fallback"
    """The bot's own code failed and its kit helper played legal index 0 for it, saying so on stderr
    (:mod:`arena.match.helpermark`). The move was legal, so nothing else follows: one per seat and match,
    however many decisions it covers, and it never forfeits the seat."""


FAULT_POLICIES = ("forfeit", "fallback")
FATAL = frozenset({FaultKind.STARTUP, FaultKind.EXIT, FaultKind.LINE_TOO_LONG})
"""Kinds after which a bot cannot play on, whatever the fault policy."""


class BotFault(Exception):
    """A bot broke the protocol; ``kind`` says how and the message says what exactly."""

    def __init__(self, kind: FaultKind, detail: str, fatal: bool = False) -> None:
        super().__init__(detail)
        self.kind = kind
        self.detail = detail
        self.fatal = fatal or kind in FATAL
        """The bot cannot go on (under any policy): its stream is broken or it is gone."""


class ProtocolError(BotFault):
    """A reply that cannot be read as a protocol message."""


class IllegalReply(BotFault):
    """A well-formed reply that names an action outside the legal ones."""


@dataclass(frozen=True)
class Fault:
    """One recorded fault."""

    seat: int
    """Seat of the faulting bot."""
    bot: str
    """Name of the faulting bot."""
    kind: FaultKind
    """What went wrong."""
    detail: str
    """Plain-words description, never containing hidden state."""
    stderr: str
    """Tail of the bot's stderr when the fault happened."""
    round: int
    """Round number when it happened (start-up faults count as round 1)."""
    decision: int
    """Index of the decision in the match (actions applied so far)."""

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.seat, "bot": self.bot, "kind": self.kind.value, "detail": self.detail,
                "stderr": self.stderr, "round": self.round, "decision": self.decision}
