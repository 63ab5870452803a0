"""docs/protocol.schema.json against real traffic, and docs/protocol.md against the code.

* Every message the arena writes in real matches over pipes (``arena.match.runner.play_match``
  with the bots in ``bots/``) validates against ``$defs/arena_message``; each seat's
  events, concatenated over its ``act`` and ``update`` messages, are exactly its view of
  the whole match.
* Every ``state``, ``legal`` list and projected event of many in-process random matches
  validates, including the rare event types.
* The JSON examples of the doc validate, its faulty replies are rejected by both the
  schema and the arena, and its two minimal bots play a match without a fault.
"""

from __future__ import annotations

import json
import random
import re
import shutil
from pathlib import Path
from typing import Any, Iterator

import pytest
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import best_match

import arena.game.cabo
from arena.match import protocol
from arena.match.link import BotLink, TimeControl
from arena.bots import BotSpec, load_bot
from arena.match.faults import BotFault
from arena.game import Match, events_for, make_rules, observe
from arena.game.events import omniscient
from arena.game.replay import NOTE_TYPES, read_replay, rebuild
from arena.game.state import CLAIM, TURN
from arena.match.runner import MatchJob, MatchOutcome, play_match
from arena.selfplay import play_random

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "protocol.schema.json").read_text(encoding="utf-8"))
DOC = (ROOT / "docs" / "protocol.md").read_text(encoding="utf-8")
DEFS = SCHEMA["$defs"]
EVENT_TYPES = frozenset(DEFS["event"]["properties"]["type"]["enum"])
ACTION_KINDS = frozenset(DEFS["action"]["properties"]["do"]["enum"])
ARENA_TYPES = frozenset(DEFS["arena_message"]["properties"]["type"]["enum"])
BOT_TYPES = frozenset(DEFS["bot_message"]["properties"]["type"]["enum"])
PRESETS = ("standard", "espanola")
RARE = ("multi", "penalty", "reshuffle", "skip")


# --------------------------------------------------------------------------- validators

_valid_refs: set[tuple[str, str]] = set()
_base_ref = Draft202012Validator.VALIDATORS["$ref"]


def _memo_ref(validator: Any, ref: str, instance: Any, schema: Any) -> Iterator[Any]:
    """``$ref``, remembering which (target, instance) pairs were valid.

    Real traffic repeats the same legal actions, events and slots thousands of times and
    jsonschema is slow; a verdict depends only on the target and the instance (all refs
    are local to one schema), so the result is the same, only faster.
    """
    key = (ref, json.dumps(instance, sort_keys=True))
    if key in _valid_refs:
        return
    errors = list(_base_ref(validator, ref, instance, schema))
    if not errors:
        _valid_refs.add(key)
    yield from errors


def _strict_integer(checker: Any, instance: Any) -> bool:
    """The arena checks ``type(x) is int``: 41.0 is not an id, although JSON Schema calls it an integer."""
    return isinstance(instance, int) and not isinstance(instance, bool)


_Validator = validators.extend(
    Draft202012Validator, {"$ref": _memo_ref},
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _strict_integer),
)
_validators: dict[str, Any] = {}


def _validator(name: str) -> Any:
    if name not in _validators:
        _validators[name] = _Validator({"$ref": f"#/$defs/{name}", "$defs": DEFS})
    return _validators[name]


def error_of(name: str, instance: Any) -> str | None:
    """Why ``instance`` is not a valid ``$defs/name``, or None."""
    error = best_match(_validator(name).iter_errors(instance))
    if error is None:
        return None
    where = "/".join(str(p) for p in error.absolute_path) or "(top)"
    return f"{error.message[:300]} at {where}"


def assert_valid(name: str, instance: Any) -> None:
    error = error_of(name, instance)
    if error is not None:
        pytest.fail(f"not a valid {name}: {error}\n{json.dumps(instance)[:3000]}")


def event_types(messages: list[dict[str, Any]]) -> set[str]:
    return {e["type"] for m in messages for e in m.get("events", ())}


# --------------------------------------------------------------------------- the schema itself

def test_schema_is_a_valid_draft_2020_12_schema() -> None:
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    for name in ("card", "hidden_card", "state", "hello", "ready", "act", "action_reply", "update", "over",
                 "arena_message", "bot_message", "event", "action"):
        assert name in DEFS, name
    assert {"event_" + t for t in EVENT_TYPES} <= set(DEFS)
    assert {"action_" + k for k in ACTION_KINDS} <= set(DEFS)
    assert ARENA_TYPES == {"hello", "act", "update", "over"}
    assert BOT_TYPES == {"ready", "action"}


def test_schema_enums_match_the_code() -> None:
    from arena.game.state import _POWERS

    handlers = {name[len("_do_"):] for name in dir(Match) if name.startswith("_do_")}
    assert handlers == ACTION_KINDS
    assert set(DEFS["phase"]["enum"]) == {"look_initial", "turn", "drawn", "rey", "claim"}
    assert {p for table in _POWERS.values() for p in table.values()} <= ACTION_KINDS


@pytest.mark.parametrize("preset", PRESETS)
def test_card_codes_and_hello(preset: str) -> None:
    rules = make_rules(preset)
    for code in rules.deck.codes:
        assert error_of("card", code) is None, code
    for bad in ("?", "10H", "1S", "AO", "ks", "K", "", "XX"):
        assert error_of("card", bad) is not None, bad
    assert_valid("arena_message", protocol.hello("m-1", 0, 2, rules, 1000, 10000))
    assert_valid("arena_message", protocol.hello("m-1", 4, 5, rules, 250, 2000, bank_ms=30000))


# --------------------------------------------------------------------------- real matches over pipes

BOTS = ROOT / "bots"
HEURISTIC = "heuristic" if (BOTS / "heuristic" / "bot.yaml").is_file() else "random"
R, H = "random", HEURISTIC
RUNNER_CASES = [
    ("standard", (R, R), 1),
    ("standard", (H, R, H, R), 2),
    ("standard", (H, H), 3),
    ("espanola", (R, H), 4),
    ("espanola", (H, R, R, H), 5),
    ("espanola", (R, R, R, R), 6),
]


class Capture:
    """Every message the arena encodes, and each link's messages in order."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.sent: list[dict[str, Any]] = []
        self.by_link: dict[int, list[dict[str, Any]]] = {}
        original = protocol.encode

        def encode(message: Any) -> bytes:
            data = original(message)
            self.sent.append(json.loads(data))
            return data

        monkeypatch.setattr(protocol, "encode", encode)  # the module arena.match.link sends through
        for method in ("send_hello", "request", "notify"):
            self._tag(monkeypatch, method)

    def _tag(self, monkeypatch: pytest.MonkeyPatch, method: str) -> None:
        original = getattr(BotLink, method)

        def wrapper(link: BotLink, *args: Any) -> Any:
            message = args[-1]
            if isinstance(message, bytes):  # an act line, built without ``encode``
                message = json.loads(message)
                self.sent.append(message)
            self.by_link.setdefault(id(link), []).append(message)
            return original(link, *args)

        monkeypatch.setattr(BotLink, method, wrapper)

    def per_seat(self) -> dict[int, list[dict[str, Any]]]:
        """Messages per seat (a link's first message is its hello)."""
        return {msgs[0]["seat"]: msgs for msgs in self.by_link.values()}


def play(job: MatchJob, capture: Capture) -> MatchOutcome:
    outcome = play_match(job)
    for message in capture.sent:
        assert_valid("arena_message", message)
    return outcome


def occurred_event_types(outcome: MatchOutcome) -> set[str]:
    _, records = read_replay(outcome.replay_text().splitlines())
    return {r["type"] for r in records if r["type"] != "action" and r["type"] not in NOTE_TYPES}


def assert_event_streams_complete(outcome: MatchOutcome, capture: Capture) -> None:
    """Each seat's events over all its messages are its whole view of the match, in order."""
    header, records = read_replay(outcome.replay_text().splitlines())
    match = rebuild(header, records)
    for seat, messages in capture.per_seat().items():
        if outcome.forfeited[seat]:
            continue
        received = [e for m in messages for e in m.get("events", ())]
        assert received == events_for(match, seat), f"seat {seat} missed or repeated events"
        kinds = [m["type"] for m in messages]
        assert kinds[0] == "hello" and kinds[-1] == "over" and kinds.count("hello") == 1
        assert messages[-2]["type"] == "update" and messages[-2]["events"][-1]["type"] == "match_over"


@pytest.mark.parametrize("preset,bots,seed", RUNNER_CASES,
                         ids=[f"{p}-{len(b)}p-{'-'.join(b)}-{s}" for p, b, s in RUNNER_CASES])
def test_real_match_messages_validate(preset: str, bots: tuple[str, ...], seed: int,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    capture = Capture(monkeypatch)
    job = MatchJob(f"schema-{seed}", make_rules(preset), seed, tuple(load_bot(str(BOTS / b)) for b in bots),
                   sandbox="none")
    outcome = play(job, capture)
    assert not outcome.faults, [f.to_json() for f in outcome.faults]
    kinds = [m["type"] for m in capture.sent]
    assert {"hello", "act", "update", "over"} <= set(kinds)
    assert kinds.count("hello") == kinds.count("over") == len(bots)
    assert occurred_event_types(outcome) <= event_types(capture.sent)
    ids = [m["id"] for m in capture.sent if m["type"] == "act"]
    assert ids == list(range(1, len(ids) + 1)), "act ids count up from 1 over the whole match"
    for message in capture.sent:
        if message["type"] == "over":
            result = message["result"]
            assert result["totals"] == list(outcome.totals) and result["places"] == list(outcome.places)
    assert_event_streams_complete(outcome, capture)


FAULTY_BOT = """
import json, sys
mode, acts = sys.argv[1], 0
for line in sys.stdin:
    msg = json.loads(line)
    if msg["type"] == "hello":
        print(json.dumps({"type": "ready", "name": "faulty"}), flush=True)
    elif msg["type"] == "act":
        acts += 1
        if acts == 3 and mode == "exit":
            sys.exit(3)
        index = "0" if acts == 3 else 0
        print(json.dumps({"type": "action", "id": msg["id"], "index": index}), flush=True)
"""


@pytest.mark.parametrize("policy", ["forfeit", "fallback"])
def test_fault_policies_as_documented(policy: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """forfeit: the seat is killed, gets nothing more, ranks last. fallback: the bad
    decision is replaced and the bot plays on (an exit is fatal under any policy)."""
    script = tmp_path / "faulty.py"
    script.write_text(FAULTY_BOT)
    for mode in ("illegal", "exit"):
        faulty = BotSpec(name="faulty", command=("{python}", str(script), mode))
        job = MatchJob(f"fault-{mode}", make_rules("standard"), 7, (faulty, load_bot(str(BOTS / "random"))),
                       sandbox="none", fault_policy=policy)
        with monkeypatch.context() as patch:
            capture = Capture(patch)
            outcome = play(job, capture)
        assert [f.kind.value for f in outcome.faults] == [mode]
        messages = capture.per_seat()[0]
        forfeited = policy == "forfeit" or mode == "exit"
        assert outcome.forfeited == (forfeited, False)
        if forfeited:
            assert outcome.places == (2, 1)
            assert [m["type"] for m in messages] == ["hello", "act", "act", "act"]
        else:
            assert messages[-1]["type"] == "over" and len(messages) > 10
            assert_event_streams_complete(outcome, capture)
        over = [m for m in capture.per_seat()[1] if m["type"] == "over"]
        assert over and over[0]["result"]["forfeited"] == list(outcome.forfeited)


# --------------------------------------------------------------------------- in-process matches

def _validating_observe(monkeypatch: pytest.MonkeyPatch, every_seat: bool) -> None:
    """Make Cabo's observe() (play_random's and the runner's) also validate the act message the runner would send."""
    real = arena.game.cabo.observe

    def observe_and_check(match: Match, seat: int) -> dict[str, Any]:
        state = real(match, seat)
        assert_valid("act", protocol.act(1, state, [], match.legal_actions(seat)))
        if every_seat:
            for other in range(match.players):
                if other != seat:
                    assert_valid("state", real(match, other))
        return state

    monkeypatch.setattr(arena.game.cabo, "observe", observe_and_check)


def check_events(match: Match) -> set[str]:
    """Validate every seat's whole event stream (as one update); return the event types."""
    for seat in range(match.players):
        assert_valid("update", protocol.update(events_for(match, seat)))
    return {e.type for e in match.events}


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("preset", PRESETS)
def test_random_matches_states_and_events(preset: str, players: int, monkeypatch: pytest.MonkeyPatch) -> None:
    _validating_observe(monkeypatch, every_seat=players <= 3)
    options = {"rounds": 3} if preset == "espanola" else {}  # random espanola rounds are long
    seen: set[str] = set()
    for seed in range(2):
        match = Match(make_rules(preset, options), players, f"schema/{seed}")
        play_random(match, random.Random(seed))
        seen |= check_events(match)
    assert {"round_start", "look_initial", "draw", "round_over", "match_over"} <= seen


def _claim_policy(match: Match, seat: int, legal: list[dict[str, Any]]) -> dict[str, Any]:
    """A scripted 2-seat espanola game that ends in a skip: seat 0 claims only right pairs
    until its hand is empty, seat 1 claims only wrong ones (collecting penalty cards until
    nothing can be drawn) and calls Cabo once seat 0 can neither draw nor take."""
    if match.phase == CLAIM:
        top = match.ranks[match.discard[-1]]
        for action in legal:
            if action["do"] == "claim":
                right = match.ranks[match.hands[seat][action["slot"]]] == top  # type: ignore[index]
                if right == (seat == 0):
                    return action
        return legal[0]
    kinds = [a["do"] for a in legal]
    if match.phase == TURN:
        if seat == 1 and "cabo" in kinds and not match.can_draw() and not match.occupied(0):
            return {"do": "cabo"}
        return next(a for a in legal if a["do"] in ("draw", "take", "cabo"))
    return legal[kinds.index("discard")] if "discard" in kinds else legal[0]


def _never_cabo(match: Match, seat: int, legal: list[dict[str, Any]], rng: random.Random) -> dict[str, Any]:
    return rng.choice([a for a in legal if a["do"] != "cabo"] or legal)


def test_rare_event_types_validate() -> None:
    """multi, penalty and reshuffle from random play; skip and a standard reshuffle from scripted play."""
    seen: dict[str, set[str]] = {p: set() for p in PRESETS}
    for preset, players, wanted in (("standard", 2, {"multi"}), ("espanola", 3, {"penalty", "reshuffle"})):
        for seed in range(40):
            match = Match(make_rules(preset), players, f"rare/{seed}")
            play_random(match, random.Random(seed))
            seen[preset] |= check_events(match)
            if wanted <= seen[preset]:
                break
        assert wanted <= seen[preset], f"{preset}: no {wanted - seen[preset]} in 40 random matches"

    found_skip = False
    for seed in range(60):
        match = Match(make_rules("espanola", {"rounds": 1}), 2, f"skip/{seed}")
        while not match.over:
            for seat in match.asked():
                state = observe(match, seat)
                action = _claim_policy(match, seat, match.legal_actions(seat))
                assert_valid("act", protocol.act(1, state, [], match.legal_actions(seat)))
                match.apply(seat, action)
        types = check_events(match)
        seen["espanola"] |= types
        if "skip" in types:
            found_skip = True
            break
    assert found_skip, "no scripted seed produced a skip"

    rng = random.Random(5)
    match = Match(make_rules("standard", {"max_rounds": 1}), 2, "long")
    while not match.over:
        seat = match.asked()[0]
        match.apply(seat, _never_cabo(match, seat, match.legal_actions(seat), rng))
    seen["standard"] |= check_events(match)
    assert "reshuffle" in seen["standard"]
    assert set(RARE) <= seen["standard"] | seen["espanola"]
    assert seen["standard"] | seen["espanola"] == EVENT_TYPES


def _expected_seen(event: dict[str, Any], players: int) -> dict[str, list[int]]:
    """Who may see each private field, as docs/protocol.md states it."""
    everyone, actor = list(range(players)), [event["seat"]]
    kind = event["type"]
    if kind == "look_initial":
        return {"cards": actor}
    if kind in ("draw", "peek", "spy", "look"):
        return {"card": actor}
    if kind == "swap" or (kind == "multi" and event["ok"]):
        return {"card": actor if event["from"] == "deck" else everyone}
    if kind == "penalty":
        return {"card": []}
    return {}


@pytest.mark.parametrize("preset", PRESETS)
def test_private_fields_are_shown_as_documented(preset: str) -> None:
    for seed in range(4):
        players = 2 + seed
        match = Match(make_rules(preset), players, f"private/{seed}")
        play_random(match, random.Random(seed), observe_each=False)
        for event in match.events:
            full = omniscient(event, players)
            assert full.get("seen", {}) == _expected_seen(full, players), full


# --------------------------------------------------------------------------- the doc's examples

def doc_json_examples() -> list[Any]:
    """Every JSON value in the doc's ```json blocks (a block is one value or JSON lines)."""
    values: list[Any] = []
    for block in re.findall(r"```json\n(.*?)```", DOC, flags=re.S):
        try:
            values.append(json.loads(block))
        except ValueError:
            values.extend(json.loads(line) for line in block.splitlines() if line.strip())
    return values


def kind_of(value: Any) -> str:
    if isinstance(value, dict):
        if value.get("type") in ARENA_TYPES:
            return "arena_message"
        if value.get("type") in BOT_TYPES:
            return "bot_message"
        if value.get("type") in EVENT_TYPES:
            return "event"
        if "do" in value:
            return "action"
        if "phase" in value:
            return "state"
    raise AssertionError(f"doc example of unknown kind: {json.dumps(value)[:200]}")


def test_doc_examples_validate() -> None:
    examples = doc_json_examples()
    kinds: dict[str, list[Any]] = {}
    for value in examples:
        kinds.setdefault(kind_of(value), []).append(value)
        assert_valid(kind_of(value), value)
    messages = kinds.get("arena_message", []) + kinds.get("bot_message", [])
    assert {m["type"] for m in messages} == ARENA_TYPES | BOT_TYPES
    documented_events = {e["type"] for e in kinds.get("event", [])} | event_types(messages)
    assert documented_events == EVENT_TYPES, f"no example of {EVENT_TYPES - documented_events}"
    documented_actions = {a["do"] for a in kinds.get("action", [])}
    documented_actions |= {a["do"] for m in messages if m["type"] == "act" for a in m["legal"]}
    assert documented_actions == ACTION_KINDS, f"no example of {ACTION_KINDS - documented_actions}"
    states = kinds.get("state", []) + [m["state"] for m in messages if m["type"] == "act"]
    assert {s["phase"] for s in states} == set(DEFS["phase"]["enum"])
    assert any(s["phase"] == "rey" and "looked" in s for s in states)


def test_doc_replies_are_accepted_by_the_arena() -> None:
    """Each reply example names a legal action of the act example with the same id."""
    examples = doc_json_examples()
    acts = {m["id"]: m for m in examples if isinstance(m, dict) and m.get("type") == "act"}
    replies = [m for m in examples if isinstance(m, dict) and m.get("type") == "action"]
    assert replies and all(r["id"] in acts for r in replies)
    for reply in replies:
        act = acts[reply["id"]]
        index = protocol.chosen_index(reply, act["id"], act["legal"])
        if "action" in reply and "index" not in reply:
            assert act["legal"][index] == reply["action"]


def doc_act(request_id: int) -> dict[str, Any]:
    acts = [m for m in doc_json_examples() if isinstance(m, dict) and m.get("type") == "act" and m["id"] == request_id]
    assert len(acts) == 1, f"docs/protocol.md should have one act example with id {request_id}"
    return acts[0]


def invalid_doc_replies() -> list[Any]:
    """The doc's '<!-- invalid replies -->' block: one JSON reply per line, then a comment."""
    match = re.search(r"<!-- invalid replies -->\s*```text\n(.*?)```", DOC, flags=re.S)
    assert match, "docs/protocol.md has no '<!-- invalid replies -->' block"
    return [json.loads(re.split(r"\s{2,}", line)[0]) for line in match.group(1).splitlines() if line.strip()]


def test_doc_invalid_replies_fail_schema_and_arena() -> None:
    """Every faulty reply the doc lists (answers to its act with id 21) fails both."""
    act = doc_act(21)
    bad_replies = invalid_doc_replies()
    assert len(bad_replies) >= 5
    for bad in bad_replies:
        assert error_of("bot_message", bad) is not None, f"schema accepts {bad}"
        with pytest.raises(BotFault):
            if not isinstance(bad, dict):
                protocol.decode(json.dumps(bad).encode())
            protocol.chosen_index(bad, act["id"], act["legal"])


INVALID_REPLIES = [
    {"type": "action", "index": 3},                                  # missing id
    {"type": "action", "id": 41, "index": "3"},                      # index as string
    {"type": "action", "id": "41", "index": 3},                      # id as string
    {"type": "action", "id": 41.0, "index": 3},                      # id as a float
    {"type": "action", "id": 41, "index": True},                     # index as a bool
    {"type": "action", "id": 41, "index": -1},
    {"type": "action", "id": 41},                                    # neither index nor action
    {"type": "action", "id": 41, "action": {"do": "swap", "slot": 2, "why": "low"}},  # extra field
    {"type": "action", "id": 41, "action": {"do": "swap", "slot": "2"}},
    {"type": "action", "id": 41, "action": {"do": "swap"}},
    {"type": "action", "id": 41, "action": {"do": "fly"}},
    {"type": "action", "id": 41, "action": 3},
    {"type": "move", "id": 41, "index": 3},
    {"id": 41, "index": 3},
    [{"type": "action", "id": 41, "index": 3}],
]
VALID_REPLIES = [
    {"type": "action", "id": 41, "index": 3},
    {"type": "action", "id": 41, "index": 0, "note": "extra fields are ignored"},
    {"type": "action", "id": 41, "action": {"do": "swap", "slot": 2}},
    {"type": "action", "id": 41, "action": {"slot": 2, "do": "swap"}},
    {"type": "action", "id": 41, "index": 1, "action": {"do": "swap", "slot": 2}},
    {"type": "ready", "name": "my-bot"},
    {"type": "ready"},
]
LEGAL_41 = [{"do": "swap", "slot": 0}, {"do": "swap", "slot": 2}, {"do": "swap", "slot": 3},
            {"do": "discard"}, {"do": "peek", "slot": 0}]


@pytest.mark.parametrize("reply", VALID_REPLIES, ids=lambda r: json.dumps(r))
def test_valid_replies(reply: dict[str, Any]) -> None:
    assert_valid("bot_message", reply)
    if reply["type"] == "action":
        protocol.chosen_index(reply, 41, LEGAL_41)
    else:
        assert protocol.check_ready(reply) == reply.get("name", "")


@pytest.mark.parametrize("reply", INVALID_REPLIES, ids=lambda r: json.dumps(r))
def test_invalid_replies_fail_schema_and_arena(reply: Any) -> None:
    assert error_of("bot_message", reply) is not None, f"schema accepts {reply}"
    with pytest.raises(BotFault):
        if not isinstance(reply, dict):
            protocol.decode(json.dumps(reply).encode())
        protocol.chosen_index(reply, 41, LEGAL_41)


def test_ready_name_must_be_a_string() -> None:
    assert error_of("bot_message", {"type": "ready", "name": 7}) is not None


# --------------------------------------------------------------------------- the doc's minimal bots

def doc_code(language: str) -> str:
    match = re.search(rf"<!-- minimal bot: {language} -->\s*```\w+\n(.*?)```", DOC, flags=re.S)
    assert match, f"docs/protocol.md has no minimal {language} bot"
    return match.group(1)


@pytest.mark.parametrize("language,preset", [("python", "standard"), ("javascript", "espanola")])
def test_doc_minimal_bot_plays_a_clean_match(language: str, preset: str, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    if language == "javascript":
        node = shutil.which("node")
        if node is None:
            pytest.skip("node is not installed")
        path = tmp_path / "bot.js"
        command: tuple[str, ...] = (node, str(path))
    else:
        path = tmp_path / "bot.py"
        command = ("{python}", str(path))
    path.write_text(doc_code(language), encoding="utf-8")
    capture = Capture(monkeypatch)
    minimal = BotSpec(name="minimal", command=command)
    job = MatchJob("doc-bot", make_rules(preset), 11, (minimal, load_bot(str(BOTS / "random")), minimal),
                   time=TimeControl(startup_ms=10000, move_ms=1000), sandbox="none")
    outcome = play(job, capture)
    assert not outcome.faults, [f.to_json() for f in outcome.faults]
    assert outcome.forfeited == (False, False, False)
