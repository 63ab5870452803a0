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

Replay files come from outside too (a report's directory, a file someone sends), so
reading one is bounded and checked: at most :data:`MAX_REPLAY_BYTES` of text (a gzip
file is decompressed as a stream and given up past that, so a small "bomb" cannot
fill memory), at most :data:`MAX_RECORDS` records, each line a JSON object whose
fields the arena's readers use have the right types. A replay of Cabo is also dealt again
from its seed and actions (:func:`check_dealt`): a record edited after the match was written (a
card changed, an action or the seed) no longer matches what they make, and the file is refused,
since its account and the luck measured from it would disagree. Anything else is a
:class:`ReplayError` naming the file, the line and what was expected.
"""

from __future__ import annotations

import gzip
import io
import json
import os
import stat
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Iterable, Iterator, Mapping, Sequence

import orjson

from .events import omniscient
from .rules import MAX_PLAYERS, MIN_PLAYERS, Rules, make_rules
from .state import Match

FORMAT = "cabo-arena-replay/3"
"""Written now. 2 added the arena's records (``fault``, ``forfeit``, ``result``) and ``by`` on actions;
3 added ``log`` records (an older viewer would show them as events, to every seat)."""
READABLE = ("cabo-arena-replay/1", "cabo-arena-replay/2", FORMAT)
"""Formats :func:`read_replay` accepts."""
MAX_REPLAY_BYTES = 64 * 1024 * 1024
"""The most text (uncompressed) a replay file may hold; the longest real match is far below it."""
MAX_RECORDS = 1_000_000
"""The most records (lines) a replay file may hold."""
MAX_SEATS = 64
"""The most players the header of another game's replay may name (Cabo's are checked against its own range)."""
FALLBACK = "fallback"
"""``by`` of an action the fallback policy chose (absent: the seat's bot chose it)."""
NOTE_TYPES = frozenset({"fault", "forfeit", "result", "log"})
"""Record types that are the arena's, not engine events (an event type never takes one of these names)."""
TIME_KEYS = ("move_ms", "startup_ms", "bank_ms")
"""The time limits a header keeps, as ``hello`` gave them."""
MAX_MS = 10**9
"""The largest time limit a header may say, in milliseconds (the arena's own are far below)."""


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


class ReplayError(ValueError):
    """A replay that cannot be read: the message names the file (and line) and what was expected."""


def read_replay(lines: Iterable[str], strict: bool = False,
                numbers: list[int] | None = None) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Split a replay into its header and its records (actions, events and the arena's notes).

    A format this arena does not know is refused rather than misread, and so is a line that
    is not a JSON object; ``strict`` (a file from outside: :func:`load_replay`) also refuses
    a header or record whose fields are not what the readers expect. Each refusal is a
    :class:`ReplayError` saying which line (blank lines count) and what was expected.
    ``numbers``: given a list, each record's line number is appended to it, for a later check to name.
    """
    header: dict[str, Any] | None = None
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except RecursionError:
            raise ReplayError(f"line {number} nests arrays or objects too deeply to be a replay's; a record of "
                              "a replay is a flat JSON object") from None
        except ValueError as exc:
            if header is None:
                raise ReplayError(f"not a replay file: line {number} is not JSON ({_json_why(exc)}); a replay "
                                  "is JSON lines, the first a header {\"type\": \"header\", ...}") from None
            raise ReplayError(f"line {number} is not JSON ({_json_why(exc)}); is the file cut short?") from None
        if not isinstance(record, dict):
            raise ReplayError(f"line {number} is a JSON {_kind(record)}, not an object; every line of a replay "
                              "is one JSON object")
        if header is None:
            header = _check_header(record, number, strict)
            continue
        if record.get("type") == "header":
            raise ReplayError(f"line {number} is a second header: a replay file holds one match (two replays "
                              "joined into one file?); split it at that line")
        if len(records) >= MAX_RECORDS:
            raise ReplayError(f"more than {MAX_RECORDS:,} records; a replay holds at most that many")
        if strict:
            _check_record(record, number, header["players"], header.get("game", "cabo") == "cabo")
        records.append(record)
        if numbers is not None:
            numbers.append(number)
    if header is None:
        raise ReplayError("not a replay file: it is empty; a replay starts with a header line")
    return header, records


def hello_time(header: dict[str, Any]) -> dict[str, int]:
    """The time limits ``hello`` gave, as a replay's header keeps them (``move_ms``, ``startup_ms``, ``bank_ms``):
    only those that are whole numbers of milliseconds; none for an older arena's replay, or a file that says
    something else there."""
    given = header.get("time")
    if not isinstance(given, dict):
        return {}
    return {key: given[key] for key in TIME_KEYS if _is_ms(given.get(key))}


def _is_ms(value: Any) -> bool:
    """Whether ``value`` is a time limit a header may say: whole milliseconds from 0 to :data:`MAX_MS`."""
    return _is_int(value) and 0 <= value <= MAX_MS


def _json_why(exc: ValueError) -> str:
    return f"{exc.msg}, column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)


def _kind(value: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", int: "number", float: "number",
            type(None): "null"}.get(type(value), type(value).__name__)


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check_header(record: dict[str, Any], number: int, strict: bool) -> dict[str, Any]:
    """The header, if it is one this arena reads (``strict``: with fields of the right types); else why not."""
    if record.get("type") != "header":
        raise ReplayError(f"not a replay file: line {number} should be the header "
                          "({\"type\": \"header\", \"format\": ...}), not a record of type "
                          f"{str(record.get('type'))[:40]!r}")
    if record.get("format") not in READABLE:
        raise ReplayError(f"replay format {str(record.get('format'))[:80]!r} is not one this arena reads "
                          f"({', '.join(READABLE)}); is the arena older than the file?")
    if not strict:
        return record
    where = f"line {number} (header)"
    rules = record.get("rules")
    if not (isinstance(rules, dict) and isinstance(rules.get("preset"), str)
            and isinstance(rules.get("options"), dict)):
        raise ReplayError(f"{where}: rules must be an object with a preset name and an options object")
    game = record.get("game")
    if game is not None and not isinstance(game, str):
        raise ReplayError(f"{where}: game must be a game's name, not {json.dumps(game)[:40]}")
    players = record.get("players")
    low, high = (MIN_PLAYERS, MAX_PLAYERS) if game in (None, "cabo") else (1, MAX_SEATS)  # another game: its own
    if not (isinstance(players, int) and not isinstance(players, bool) and low <= players <= high):
        raise ReplayError(f"{where}: players must be a whole number {low} to {high}, "
                          f"not {json.dumps(players)[:40]}")
    seed = record.get("seed")
    if not (_is_int(seed) or isinstance(seed, str)):
        raise ReplayError(f"{where}: seed must be a number or a string, not {json.dumps(seed)[:40]}")
    bots = record.get("bots")
    if bots is not None and not (isinstance(bots, list) and len(bots) == players
                                 and all(isinstance(b, str) for b in bots)):
        raise ReplayError(f"{where}: bots must be a list of {players} names, one per seat")
    _check_time(record.get("time"), where)
    return record


def _check_time(given: Any, where: str) -> None:
    """Refuse a header's time limits unless each is whole milliseconds from 0 to :data:`MAX_MS` (``arena replay
    --feed`` gives them to a bot again, the viewer shows them)."""
    if given is None:
        return
    if not isinstance(given, dict):
        raise ReplayError(f"{where}: time must be an object of {', '.join(TIME_KEYS)}, not {json.dumps(given)[:40]}")
    for key in TIME_KEYS:
        if key in given and not _is_ms(given[key]):
            raise ReplayError(f"{where}: time.{key} must be a whole number of milliseconds from 0 to {MAX_MS}, "
                              f"not {json.dumps(given[key])[:40]}")


_FIELDS: dict[str, dict[str, tuple[type, ...]]] = {
    "action": {"seat": (int,), "action": (dict,)},
    "fault": {"seat": (int,), "round": (int,), "decision": (int,), "kind": (str,), "detail": (str,)},
    "forfeit": {"seat": (int,), "decision": (int,)},
    "log": {"seat": (int,), "decision": (int,), "text": (str,)},
    "result": {"places": (list,), "totals": (list,), "forfeited": (list,), "reason": (str,)},
    "round_start": {"round": (int,), "dealer": (int,), "starter": (int,)},
    "round_over": {"round": (int,), "hands": (list,), "sums": (list,), "scores": (list,), "totals": (list,)},
    "match_over": {"totals": (list,), "places": (list,)},
}
"""Per record type, the fields the arena's readers (``arena replay``, the viewer) need and their types; the
engine's event types (``round_start``, ``round_over``, ``match_over``) only in a replay of Cabo."""
_NOTES_AND_ACTIONS = frozenset(NOTE_TYPES | {"action"})
_PRESENT = {"round_start": ("discard", "deck"), "round_over": ("ended",), "match_over": ("reason",)}
"""Fields that are printed as they are, of any type, but must be there."""


def _check_record(record: dict[str, Any], number: int, players: int, cabo: bool = True) -> None:
    """Refuse a record whose fields the readers would trip over, naming its line (``cabo``: a replay of Cabo,
    whose events the readers know too; another game's events are its own)."""
    kind = record.get("type")
    if not isinstance(kind, str):
        raise ReplayError(f"line {number}: a record needs a \"type\" string")
    where = f"line {number} ({kind[:40]})"
    checked = _FIELDS.get(kind, {}) if cabo or kind in _NOTES_AND_ACTIONS else {}
    for name, types in checked.items():
        if name not in record:
            raise ReplayError(f"{where}: the field {name} is missing")
        value = record[name]
        if not isinstance(value, types) or isinstance(value, bool):
            want = {int: "a whole number", dict: "an object", list: "a list", str: "a string"}[types[0]]
            raise ReplayError(f"{where}: {name} must be {want}, not {json.dumps(value)[:40]}")
    for name in _PRESENT.get(kind, ()) if cabo else ():
        if name not in record:
            raise ReplayError(f"{where}: the field {name} is missing")
    seat = record.get("seat")
    if seat is not None and not (_is_int(seat) and 0 <= seat < players):
        raise ReplayError(f"{where}: seat must be a whole number 0..{players - 1}, not {json.dumps(seat)[:40]}")
    if kind == "result" and not all(len(record[k]) == players for k in ("places", "totals", "forfeited")):
        raise ReplayError(f"{where}: places, totals and forfeited must hold one value per seat ({players})")
    if kind == "result" and not all(_is_int(p) for p in record["places"]):
        raise ReplayError(f"{where}: places must be whole numbers")
    seen = record.get("seen")
    if seen is not None and not (isinstance(seen, dict) and all(isinstance(v, list) for v in seen.values())):
        raise ReplayError(f"{where}: seen must be an object of lists of seats")
    if kind == "log" and record.get("cut") is not None and not _is_int(record["cut"]):
        raise ReplayError(f"{where}: cut must be a whole number of bytes")


def read_replay_bytes(path: Path, limit: int = MAX_REPLAY_BYTES) -> bytes:
    """The text of a replay file, gunzipped if it is gzip (by its first bytes, whatever its name);
    at most ``limit`` bytes of it are ever held: past that, a :class:`ReplayError`."""
    path = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO waits for a writer, which may never come; the check below refuses it
        with os.fdopen(os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)), "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                raise ReplayError(f"{path}: not a regular file; give a replay file (.jsonl or .jsonl.gz)")
            gzipped = handle.read(2) == b"\x1f\x8b"
            handle.seek(0)
            if gzipped:
                with gzip.GzipFile(fileobj=handle) as unzipped:
                    data = unzipped.read(limit + 1)  # decompressed as a stream: never more than this
            else:
                data = handle.read(limit + 1)
    except ReplayError:
        raise
    except EOFError:
        raise ReplayError(f"{path}: the gzip data ends early (the file was cut short); it cannot be read") from None
    except (gzip.BadGzipFile, zlib.error) as exc:
        raise ReplayError(f"{path}: damaged gzip data ({exc}); it cannot be read") from None
    except OSError as exc:
        raise ReplayError(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if len(data) > limit:
        raise ReplayError(f"{path}: more than {limit // (1024 * 1024)} MiB{' uncompressed' if gzipped else ''}; "
                          "a replay this arena reads is at most that (is it a replay file?)")
    return data


def load_replay(path: Path, limit: int = MAX_REPLAY_BYTES) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """Header and records of the replay file ``path`` (.jsonl or .jsonl.gz), read within the bounds above;
    anything wrong is one :class:`ReplayError` that names the file."""
    data = read_replay_bytes(path, limit)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReplayError(f"{path}: line {line} is not UTF-8 text (byte {exc.start}); a replay is UTF-8 "
                          "JSON lines") from None
    del data
    numbers: list[int] = []
    try:
        header, records = read_replay(io.StringIO(text), strict=True, numbers=numbers)
        if header.get("game", "cabo") == "cabo":
            check_dealt(header, records, numbers)
    except ReplayError as exc:
        raise ReplayError(f"{path}: {exc}") from None
    return header, records


def check_dealt(header: dict[str, Any], records: Sequence[dict[str, Any]], numbers: Sequence[int]) -> None:
    """Refuse a replay of Cabo whose recorded events are not those its seed and actions make: the engine deals
    every card from the seed, so a card code changed (to another card, or to none of the deck's), a card moved
    between events, an action or the seed edited, each shows as the first event that differs. ``numbers``: each
    record's line. A file that ends early is left to its readers, which say so; fields an older arena did not
    write are not asked for."""
    rules = _rules_of(header)
    match = Match(rules, header["players"], header["seed"])
    compared = 0  # the rebuilt events compared so far
    for record, number in zip(records, numbers):
        kind = record["type"]
        if kind == "action":
            try:
                match.apply(record["seat"], record["action"])
            except ValueError as exc:
                raise ReplayError(f"its actions do not rebuild a match here ({exc}), from line {number} (action) "
                                  "on") from None
        elif kind not in NOTE_TYPES:
            if compared == len(match.events):
                raise ReplayError(f"line {number} ({kind[:40]}): the seed and the actions before it make no such "
                                  "event here; the file was changed after its match was written")
            rebuilt = omniscient(match.events[compared], match.players)
            _check_event(record, rebuilt, rules, f"line {number} ({kind[:40]})")
            compared += 1


def _rules_of(header: dict[str, Any]) -> Rules:
    """The rules a checked header names, or a :class:`ReplayError` naming the header's problem."""
    try:
        return make_rules(header["rules"]["preset"], header["rules"]["options"])
    except ValueError as exc:
        raise ReplayError(f"the header's rules are not ones this arena plays ({exc})") from None


def _check_event(record: dict[str, Any], made: dict[str, Any], rules: Rules, where: str) -> None:
    """Refuse a recorded event that says other than the rebuilt one, naming the field (or, in a field of cards, a
    code the rule set's deck has no card of)."""
    for key, value in record.items():
        if key in made and value == made[key]:
            continue
        if key not in made:
            what = f"the field {key[:40]} is not one this event has"
        else:
            what = _not_a_card(value, made[key], rules) or (f"{key} is {json.dumps(value)[:60]}, but the seed and "
                                                             f"the actions before it give {json.dumps(made[key])[:60]}")
        raise ReplayError(f"{where}: {what}; the file was changed after its match was written")


def _not_a_card(value: Any, made: Any, rules: Rules) -> str:
    """What is wrong with ``value`` in place of ``made``, a field of cards, when it names a card the deck lacks
    ("" otherwise, or when ``made`` holds no cards)."""
    codes = rules.ruleset.deck.codes
    cards = _strings(made)
    if not cards or not all(code in codes for code in cards):
        return ""
    strange = [text for text in _strings(value) if text not in codes]
    if not strange:
        return ""
    return (f"{json.dumps(strange[0])[:40]} is not a card of the {rules.preset} deck "
            f"({rules.ruleset.deck.name}: {codes[0]} ... {codes[-1]})")


def _strings(value: Any) -> list[str]:
    """The strings in ``value``, a string or lists of them (an event's card fields)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    return []


def rebuild(header: dict[str, Any], records: list[dict[str, Any]]) -> Match:
    """Replay the actions of a replay file into a fresh match."""
    rules = make_rules(header["rules"]["preset"], header["rules"]["options"])
    match = Match(rules, header["players"], header["seed"])
    for record in records:
        if record["type"] == "action":
            match.apply(record["seat"], record["action"])
    return match
