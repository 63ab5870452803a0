"""Omniscient replay files: JSON lines from which seed + actions rebuild a match.

Line 1 is a header (rules, players, seed); then, in order, every applied action
(``{"type": "action", ...}``) followed by the events it caused, each event carrying
``seen``: for every hidden card field, the seats that saw it. A replay viewer can
therefore show the match from any seat's perspective.

The engine knows nothing of bots, so what the arena adds comes in as :class:`Notes`
(format 2): records about bots (``fault``, ``forfeit``), each placed just before the
decision it happened at; ``"by": "fallback"`` on the actions a bot did not choose; and
a last ``result`` record with the places as the arena ranks them. Format 3 adds the
bots' own logs (``log`` records: what a seat's bot wrote on stderr, placed like the
others by the decision at which the arena read it). Files of formats 1 and 2 (without
these) are still read.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import IO, Any, Iterable, Iterator, Mapping, Sequence

import orjson

from .events import omniscient
from .rules import make_rules
from .state import Match

FORMAT = "cabo-arena-replay/3"
"""Written now. 2 added the arena's records (``fault``, ``forfeit``, ``result``) and ``by`` on actions;
3 added ``log`` records (an older viewer would show them as events, to every seat)."""
READABLE = ("cabo-arena-replay/1", "cabo-arena-replay/2", FORMAT)
"""Formats :func:`read_replay` accepts."""
NOTE_TYPES = frozenset({"fault", "forfeit", "result", "log"})
"""Record types that are the arena's, not engine events (an event type never takes one of these names)."""


@dataclass(frozen=True)
class Notes:
    """What the arena knows and the engine does not, to be merged into the replay in order."""

    before: Sequence[dict[str, Any]] = ()
    """Records with a ``decision`` number, in the order they happened; each is written just before
    the action of that number (actions applied so far), or after the last one if none is left."""
    by: Mapping[int, str] = field(default_factory=dict)
    """Decision number -> who chose that action, for the actions its seat's bot did not choose."""
    final: Sequence[dict[str, Any]] = ()
    """Records written last, after the ``match_over`` event."""


_NO_NOTES = Notes()


def replay_records(match: Match, meta: dict[str, Any] | None = None,
                   notes: Notes | None = None) -> Iterator[dict[str, Any]]:
    """The replay of ``match`` as records: the header, then actions and events in order, then ``notes.final``."""
    notes = notes or _NO_NOTES
    yield {"type": "header", "format": FORMAT, "rules": match.rules.to_json(), "players": match.players,
           "seed": match.seed, **(meta or {})}
    waiting: dict[int, list[dict[str, Any]]] = {}
    for record in notes.before:
        waiting.setdefault(record["decision"], []).append(record)
    by, history = notes.by, match.history
    decision, applied = 0, len(history)
    for index, event in enumerate(match.events):
        while decision < applied and history[decision][2] <= index:
            if waiting:
                yield from waiting.pop(decision, ())
            yield _action_record(history[decision], by.get(decision))
            decision += 1
        yield omniscient(event, match.players)
    while decision < applied:  # answers still waiting for the rest of a claim window
        if waiting:
            yield from waiting.pop(decision, ())
        yield _action_record(history[decision], by.get(decision))
        decision += 1
    for number in sorted(waiting):  # after the last action (a bot that failed to take the last update)
        yield from waiting[number]
    yield from notes.final


def replay_bytes(match: Match, meta: dict[str, Any] | None = None, notes: Notes | None = None) -> bytes:
    """The replay file's content: compact UTF-8 JSON, one record per line."""
    dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    return b"".join(dumps(record, option=newline) for record in replay_records(match, meta, notes))


def replay_lines(match: Match, meta: dict[str, Any] | None = None, notes: Notes | None = None) -> Iterator[str]:
    """The replay of ``match`` as JSON lines (no trailing newlines)."""
    for record in replay_records(match, meta, notes):
        yield orjson.dumps(record).decode()


def _action_record(entry: tuple[int, dict[str, Any], int], by: str | None) -> dict[str, Any]:
    seat, action, _ = entry
    if by is None:
        return {"type": "action", "seat": seat, "action": action}
    return {"type": "action", "seat": seat, "action": action, "by": by}


def write_replay(match: Match, out: IO[str], meta: dict[str, Any] | None = None, notes: Notes | None = None) -> None:
    """Write the replay of ``match`` to a text stream."""
    for line in replay_lines(match, meta, notes):
        out.write(line + "\n")


def read_replay(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Split a replay into its header and its records (actions, events and the arena's notes).

    A format this arena does not know is refused rather than misread.
    """
    records = [json.loads(line) for line in lines if line.strip()]
    if not records or records[0].get("type") != "header":
        raise ValueError("not a replay file: the first line must be a header")
    if records[0].get("format") not in READABLE:
        raise ValueError(f"replay format {records[0].get('format')!r} is not one this arena reads "
                         f"({', '.join(READABLE)}); is the arena older than the file?")
    return records[0], records[1:]


def rebuild(header: dict[str, Any], records: list[dict[str, Any]]) -> Match:
    """Replay the actions of a replay file into a fresh match."""
    rules = make_rules(header["rules"]["preset"], header["rules"]["options"])
    match = Match(rules, header["players"], header["seed"])
    for record in records:
        if record["type"] == "action":
            match.apply(record["seat"], record["action"])
    return match


class ReplayError(ValueError):
    """A replay that cannot be read: the message names the file (and line) and what was expected."""
