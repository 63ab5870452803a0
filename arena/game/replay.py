"""Omniscient replay files: JSON lines from which seed + actions rebuild a match.

Line 1 is a header (rules, players, seed); then, in order, every applied action
(``{"type": "action", ...}``) followed by the events it caused, each event carrying
``seen``: for every hidden card field, the seats that saw it. A replay viewer can
therefore show the match from any seat's perspective.
"""

from __future__ import annotations

import json
from typing import IO, Any, Iterable, Iterator

import orjson

from .events import omniscient
from .rules import make_rules
from .state import Match

FORMAT = "cabo-arena-replay/1"


def replay_records(match: Match, meta: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """The replay of ``match`` as records: the header, then actions and events in order."""
    yield {"type": "header", "format": FORMAT, "rules": match.rules.to_json(), "players": match.players,
           "seed": match.seed, **(meta or {})}
    pending = iter(match.history)
    nxt = next(pending, None)
    for index, event in enumerate(match.events):
        while nxt is not None and nxt[2] <= index:
            yield _action_record(nxt)
            nxt = next(pending, None)
        yield omniscient(event, match.players)
    while nxt is not None:  # answers still waiting for the rest of a claim window
        yield _action_record(nxt)
        nxt = next(pending, None)


def replay_bytes(match: Match, meta: dict[str, Any] | None = None) -> bytes:
    """The replay file's content: compact UTF-8 JSON, one record per line."""
    dumps, newline = orjson.dumps, orjson.OPT_APPEND_NEWLINE
    return b"".join(dumps(record, option=newline) for record in replay_records(match, meta))


def replay_lines(match: Match, meta: dict[str, Any] | None = None) -> Iterator[str]:
    """The replay of ``match`` as JSON lines (no trailing newlines)."""
    for record in replay_records(match, meta):
        yield orjson.dumps(record).decode()


def _action_record(entry: tuple[int, dict[str, Any], int]) -> dict[str, Any]:
    seat, action, _ = entry
    return {"type": "action", "seat": seat, "action": action}


def write_replay(match: Match, out: IO[str], meta: dict[str, Any] | None = None) -> None:
    """Write the replay of ``match`` to a text stream."""
    for line in replay_lines(match, meta):
        out.write(line + "\n")


def read_replay(lines: Iterable[str]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Split a replay into its header and its records (actions and events)."""
    records = [json.loads(line) for line in lines if line.strip()]
    if not records or records[0].get("type") != "header":
        raise ValueError("not a replay file: the first line must be a header")
    return records[0], records[1:]


def rebuild(header: dict[str, Any], records: list[dict[str, Any]]) -> Match:
    """Replay the actions of a replay file into a fresh match."""
    rules = make_rules(header["rules"]["preset"], header["rules"]["options"])
    match = Match(rules, header["players"], header["seed"])
    for record in records:
        if record["type"] == "action":
            match.apply(record["seat"], record["action"])
    return match
