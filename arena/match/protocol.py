"""Protocol v1: JSON-lines codec, message builders and reply validation.

Knows the wire format and nothing of processes (see :mod:`arena.sandbox`) or of
who asks (see :mod:`arena.match.link`). Every message the arena sends is built here, so
the JSON Schema in ``docs/protocol.schema.json`` has one place to mirror.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import orjson

from ..game.registry import DEFAULT_GAME, game_named
from ..game.seam import GameRules
from .faults import FaultKind, IllegalReply, ProtocolError

PROTOCOL_VERSION = 1


def encode(message: Mapping[str, Any]) -> bytes:
    """One message as a compact UTF-8 JSON line.

    orjson writes the same bytes as ``json`` with ``separators=(",", ":")`` and
    ``ensure_ascii=False``, about ten times faster; encoding was the largest share of the
    arena's own time per decision.
    """
    return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)


def encode_value(value: Any) -> bytes:
    """A part of a message (no newline), encoded as :func:`encode` would inside the whole."""
    return orjson.dumps(value)


def decode(line: bytes) -> dict[str, Any]:
    """Parse one reply line into an object, or raise :class:`ProtocolError`."""
    try:
        value = orjson.loads(line)  # strict RFC 8259: NaN, Infinity, lone surrogates and >64-bit integers fail
    except (UnicodeDecodeError, ValueError) as exc:  # orjson.JSONDecodeError is a ValueError
        raise ProtocolError(FaultKind.BAD_JSON, f"reply is not valid JSON ({exc}): {_clip(line)}") from None
    except RecursionError:  # "[[[[..." fits easily in a line and would otherwise escape as an arena error
        raise ProtocolError(FaultKind.BAD_JSON, f"reply is not valid JSON (nested too deeply): {_clip(line)}") from None
    if not isinstance(value, dict):
        raise ProtocolError(FaultKind.NOT_OBJECT, f"reply is JSON but not an object: {_clip(line)}")
    return value


def hello(match_id: str, seat: int, players: int, rules: GameRules, move_ms: int, startup_ms: int,
          bank_ms: int | None = None, game: str = DEFAULT_GAME) -> dict[str, Any]:
    """The first message to a bot; what it says of the game (``rules``, Cabo's ``values``) is the game's."""
    return {"type": "hello", "protocol": PROTOCOL_VERSION, "match": match_id, "seat": seat, "players": players,
            **game_named(game).hello_fields(rules, seat, players), "time": time_limits(move_ms, startup_ms, bank_ms)}


def time_limits(move_ms: int, startup_ms: int, bank_ms: int | None = None) -> dict[str, Any]:
    """``hello``'s ``time`` object (a replay's header keeps it too)."""
    time: dict[str, Any] = {"move_ms": move_ms, "startup_ms": startup_ms}
    if bank_ms is not None:
        time["bank_ms"] = bank_ms
    return time


def act(request_id: int, state: dict[str, Any], events: list[dict[str, Any]],
        legal: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "act", "id": request_id, "state": state, "events": events, "legal": legal}


def act_line(request_id: int, state: dict[str, Any], events: list[dict[str, Any]], legal_json: bytes) -> bytes:
    """``encode(act(...))`` with the legal list already encoded: the same bytes, built faster.

    The legal list is most of an ``act`` line and repeats from situation to situation, so
    the arena encodes each distinct list once per process (see ``Match.legal_keyed``).
    """
    return b"".join((b'{"type":"act","id":', b"%d" % request_id, b',"state":', orjson.dumps(state),
                     b',"events":', orjson.dumps(events), b',"legal":', legal_json, b"}\n"))


def update(events: list[dict[str, Any]]) -> dict[str, Any]:
    return {"type": "update", "events": events}


def over(result: dict[str, Any]) -> dict[str, Any]:
    return {"type": "over", "result": result}


def check_ready(message: dict[str, Any]) -> str:
    """The bot's self-reported name from a ``ready`` reply."""
    if message.get("type") != "ready":
        raise ProtocolError(FaultKind.STARTUP, f"expected a 'ready' reply to hello, got {_clip(message)}")
    name = message.get("name")
    return name if isinstance(name, str) else ""


def chosen_index(message: dict[str, Any], request_id: int, legal: Sequence[Mapping[str, Any]]) -> int:
    """Index into ``legal`` of the action a reply names; raise a fault saying why otherwise."""
    if message.get("id") != request_id or type(message.get("id")) is not int:
        raise ProtocolError(FaultKind.WRONG_ID, f"reply id {message.get('id')!r} does not match request id {request_id}")
    if message.get("type") != "action":
        raise IllegalReply(FaultKind.ILLEGAL, f"expected an 'action' reply, got type {message.get('type')!r}")
    if "index" in message:
        index = message["index"]
        if type(index) is not int or not 0 <= index < len(legal):
            raise IllegalReply(FaultKind.ILLEGAL, f"index {index!r} is not in 0..{len(legal) - 1}")
        return index
    action = message.get("action")
    if not isinstance(action, dict):
        raise IllegalReply(FaultKind.ILLEGAL, "reply has neither an 'index' nor an 'action' object")
    for index, candidate in enumerate(legal):
        if candidate == action and _same_types(candidate, action):
            return index
    raise IllegalReply(FaultKind.ILLEGAL, f"action {_clip(action)} is not one of the {len(legal)} legal actions")


def _same_types(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Reject look-alikes such as ``true`` for ``1``."""
    return all(type(a[key]) is type(b[key]) for key in a)


def _clip(value: Any, limit: int = 160) -> str:
    text = value.decode("utf-8", "replace") if isinstance(value, bytes) else orjson.dumps(value).decode() if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 3] + "..."
