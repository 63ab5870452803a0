"""The viewer's frames: a seat's view holds exactly what that seat was sent, the end holds the stored result.

The checks replay each match again here, independently of arena.site.frames, and compare
every step with observe() / events_for() at the same moment.
"""

from __future__ import annotations

import gzip
import json
import random
import re
from pathlib import Path
from typing import Any, Iterator

import pytest

from arena.game import Match, cabo_frames, make_rules
from arena.game.observe import events_for, observe
from arena.game.replay import Notes, read_replay, replay_lines
from arena.site.frames import FORMAT, SLOWEST, build_frames, frames_for_file
from tests.game.conftest import codes_in

TABLE_KEYS = ("r", "ph", "tm", "w", "st", "dl", "cabo", "h", "d", "dn", "dk", "held", "hs", "hf", "lk", "tot", "ro",
              "ff")
CONFIGS = [("standard", {}), ("espanola", {"rounds": 3})]


def unpack(packed: str) -> list[list[str | None]]:
    return [[None if seat[i:i + 2] == "--" else "?" if seat[i:i + 2] == "??" else seat[i:i + 2]
             for i in range(0, len(seat), 2)] for seat in packed.split("|")]


def cells_of(text: str, before: list[list[str]] | None) -> list[list[str]]:
    """A seat view's cells: whole, or ``~`` and the (hand, slot, cell) changes since ``before``."""
    def read(part: str, at: int) -> tuple[str, int]:
        return (part[at], at + 1) if part[at] in "+?-" else (part[at:at + 2], at + 2)

    if text.startswith("~"):
        assert before is not None
        out, at = [list(hand) for hand in before], 1
        while at < len(text):
            hand, slot = int(text[at]), int(text[at + 1])
            cell, at = read(text, at + 2)
            if slot == len(out[hand]):
                out[hand].append(cell)
            else:
                out[hand][slot] = cell
        return out
    rows = []
    for part in text.split("|"):
        row, at = [], 0
        while at < len(part):
            cell, at = read(part, at)
            row.append(cell)
        rows.append(row)
    return rows


def written_out(entry: list[Any], step: dict[str, Any], frames: dict[str, Any], flagged: Iterator[list[Any]]) -> Any:
    """A log entry's text, a number written out as its line (with seat marks, as the frames write names)."""
    text = entry[1]
    if not isinstance(text, int):
        return text
    mark = lambda seat: chr(0xE000 + seat)  # noqa: E731
    if entry[0] == "slow":
        seat, ms, _ = next(flagged)
        move = frames["move_ms"]
        took = f"{mark(seat)} took {ms:.1f} ms for decision {text}"
        if move is not None and ms >= move / 2:
            return f"SLOW {took}, over half its {move} ms, one of the match's {SLOWEST} slowest"
        return f"{took}, one of the match's {SLOWEST} slowest" + (f", well within its {move} ms" if move else "")
    if text == 1:
        return f"Round {step['r']}: {mark(step['dl'])} deals, {mark(step['st'])} starts; discard [{step['d']}], deck {step['dk']}"
    assert text == 2, entry
    r = frames["rounds"][step["ro"] - 1]
    line = f"Round {r['round']} over ({r['ended']}): " + ", ".join(f"{mark(s)} {v:+d}" for s, v in enumerate(r["scores"]))
    line += f"; {mark(r['moon'])} shot the moon" if r["moon"] is not None else ""
    return line + (f"; reset to 50: {', '.join(map(mark, r['resets']))}" if r["resets"] else "")


def expand(frames: dict[str, Any]) -> list[dict[str, Any]]:
    """The steps with every field filled in, written out as the viewer's decode does: table fields and ``n``
    carried forward, the hands unpacked, ``hv`` added up, each seat's view from its cells, names for seat
    marks and each seat's text for a reference to another's."""
    out, previous, views = [], {}, [None] * frames["players"]
    cells: list[Any] = [None] * frames["players"]
    names, values = frames["bots"], frames["values"]

    def named(text: Any) -> Any:
        return re.sub("[\ue000-\uf8ff]", lambda m: f"{names[ord(m[0]) - 0xE000]}@{ord(m[0]) - 0xE000}", text) \
            if isinstance(text, str) else text

    for raw in frames["steps"]:
        step = dict(raw)
        step["n"] = raw.get("n", previous.get("n", -1) + 1)
        for key in TABLE_KEYS:
            step.setdefault(key, previous.get(key))
        step["h"] = unpack(step["h"]) if isinstance(step["h"], str) else step["h"]
        step["hv"] = [sum(values[c] for c in hand if c is not None) for hand in step["h"]]
        for seat, view in enumerate(raw["v"]):
            if view != 0:
                cells[seat] = cells_of(view[0], cells[seat])
                hands = [[step["h"][s][i] if c == "+" else "?" if c == "?" else None if c == "-" else c
                          for i, c in enumerate(hand)] for s, hand in enumerate(cells[seat])]
                views[seat] = (hands, step["held"] if view[1] == 1 else view[1])
        step["v"] = list(views)
        log = []
        flagged = iter([timed for timed in step.get("t", ()) if timed[2]])
        for entry in raw["log"]:
            written = [entry[0], named(written_out(entry, step, frames, flagged))]
            if len(entry) > 2:
                seen: list[Any] = []
                for text in entry[2]:
                    seen.append(seen[-1 - text] if isinstance(text, int) and text < 0 else named(text))
                written.append(seen)
            log.append(written)
        if "lu" in raw:
            log.append(["luck", named(luck_text(step)), [None] * frames["players"]])
        if raw is frames["steps"][-1] and "luck" in frames["result"]:
            log.append(["luck", named("luck over the match, per seat (points over the expected cards, +: worse): " +
                                      seat_points(frames["result"]["luck"], None)), [None] * frames["players"]])
        step["log"] = log
        out.append(step)
        previous = step
    return out


def seat_points(lu: list[int], skip: int | None) -> str:
    """Each seat's luck in tenths written as points, ``skip`` and (when one is skipped) the zeros left out."""
    return ", ".join(f"{chr(0xE000 + s)} {n / 10:+.1f}" for s, n in enumerate(lu)
                     if s != skip and (skip is None or n != 0))


def luck_text(step: dict[str, Any]) -> str:
    """The omniscient line of a step's ``lu``: the deal's, a drawn card's, or the other cards the deck gave."""
    if step["k"] == "deal":
        return "luck of the deal, per seat (+: more points than the expected cards, worse): " + \
            seat_points(step["lu"], None)
    if step["hf"] == "deck" and step["held"] and isinstance(step["hs"], int):
        n, others = step["lu"][step["hs"]], seat_points(step["lu"], step["hs"])
        said = "as expected" if n == 0 else f"{abs(n) / 10:.1f} points {'worse' if n > 0 else 'better'} than the expected card"
        return f"luck: {chr(0xE000 + step['hs'])} drew [{step['held']}]: {said}" + (f" (and so: {others})" if others else "")
    return "luck of the cards the deck gave, per seat (+: more points than the expected cards, worse): " + \
        seat_points(step["lu"], None)


def play(preset: str, options: dict[str, Any], players: int, seed: int, notes: bool = False, logs: bool = True,
         ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A random match as a replay file's header and records (with a fault, a forfeit and, if ``logs``, the
    faulting bot's log, if ``notes``): the log holds what the bot wrote, as the arena stores it."""
    match = Match(make_rules(preset, options), players, seed)
    rng = random.Random(seed)
    while not match.over:
        seat = rng.choice(match.asked())
        legal = match.legal_actions(seat)
        kinds = sorted({a["do"] for a in legal})
        kind = "cabo" if "cabo" in kinds and rng.random() < 0.08 else rng.choice(
            [k for k in kinds if k != "cabo"] or kinds)
        match.apply(seat, rng.choice([a for a in legal if a["do"] == kind]))
    assert match.result is not None
    totals, places = list(match.result.totals), list(match.result.places)
    before: list[dict[str, Any]] = []
    forfeited = [False] * players
    by: dict[int, str] = {}
    if notes:
        decision = len(match.history) // 2
        seat = match.history[decision][0]
        before = [
            {"type": "log", "seat": seat, "decision": decision, "text": "thinking hard SECRET-LOG\nSECRET-STDERR\n"},
            {"type": "fault", "seat": seat, "bot": f"bot{seat}", "kind": "timeout", "detail": "SECRET-DETAIL",
             "stderr": "thinking hard SECRET-LOG\nSECRET-STDERR\n", "round": 1, "decision": decision},
            {"type": "forfeit", "seat": seat, "bot": f"bot{seat}", "decision": decision, "round": 1},
        ][0 if logs else 1:]
        by = {d: "fallback" for d in range(decision, len(match.history)) if match.history[d][0] == seat}
        forfeited[seat] = True
        places = [players if s == seat else 1 + sum(1 for t in range(players) if t != seat and totals[t] < totals[s])
                  for s in range(players)]
    result = {"type": "result", "totals": totals, "places": places, "forfeited": forfeited, "reason": match.result.reason}
    meta = {"match": f"test-{preset}-{players}-{seed}", "wire_id": "w", "bots": [f"bot{s}" for s in range(players)]}
    header, records = read_replay(replay_lines(match, meta, Notes(before=before, by=by, final=[result])))
    return header, records


def face_up(hands: list[list[str | None]]) -> list[tuple[int, int, str]]:
    return [(s, i, c) for s, hand in enumerate(hands) for i, c in enumerate(hand) if c not in (None, "?")]


@pytest.mark.parametrize("preset,options", CONFIGS, ids=[c[0] for c in CONFIGS])
@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("seed", [1, 2])
def test_each_seat_view_is_what_observe_gave_that_seat(preset, options, players, seed):
    header, records = play(preset, options, players, seed)
    frames = build_frames(header, records)
    assert frames["format"] == FORMAT and frames["players"] == players
    steps = expand(frames)
    actions = [(r["seat"], r["action"]) for r in records if r["type"] == "action"]
    match = Match(make_rules(preset, options), players, seed)
    applied = 0
    moments: dict[int, tuple[list[dict[str, Any]], int]] = {}
    kinds = {step["k"] for step in steps}
    assert {"deal", "play", "end", "reveal"} <= kinds

    def advance(to: int) -> None:
        nonlocal applied
        while applied < to:
            match.apply(*actions[applied])
            applied += 1

    for step in steps:
        if step["k"] in ("deal", "play"):
            advance(step["n"])
            for seat in range(players):
                state = observe(match, seat)
                assert step["v"][seat] == (state["hands"], state["held"]), (step["n"], seat)
            assert step["dk"] == len(match.deck) and step["r"] == match.round_no
            assert step["d"] == (match.codes[match.discard[-1]] if match.discard else None)
            continue
        # "end" and "reveal" happen inside the step's last action: check against the moment before it
        # and what that action sent the seat.
        if step["n"] not in moments:
            advance(step["n"] - 1)
            moments[step["n"]] = ([observe(match, seat) for seat in range(players)], len(match.events))
            advance(step["n"])
        before, start = moments[step["n"]]
        for seat in range(players):
            sent = events_for(match, seat, start)
            hands = step["v"][seat][0]
            assert step["v"][seat][1] is None
            if step["k"] == "end":
                known = codes_in(before[seat]["hands"], frozenset(match.codes)) | codes_in(sent, frozenset(match.codes))
                assert {c for _, _, c in face_up(hands)} <= known
                assert [[c is None for c in hand] for hand in hands] == [[c is None for c in hand] for hand in step["h"]]
            else:
                over = [e for e in sent if e["type"] == "round_over"]
                assert len(over) == 1
                shown = [[c for c in hand if c is not None] for hand in hands]
                assert shown == over[0]["hands"]
                assert step["tot"] == over[0]["totals"]


@pytest.mark.parametrize("preset,options", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_no_seat_view_shows_a_card_the_seat_was_not_sent(preset, options):
    """Across a whole match: every face-up card of seat s's views and log lines was in what s was sent."""
    header, records = play(preset, options, 4, 7, notes=True)
    frames = build_frames(header, records)
    steps = expand(frames)
    match = Match(make_rules(preset, options), 4, 7)
    codes = frozenset(match.codes)
    sent: list[set[str]] = [set() for _ in range(4)]
    actions = [(r["seat"], r["action"]) for r in records if r["type"] == "action"]
    applied = 0
    for step in steps:
        while applied < step["n"]:
            start = len(match.events)
            match.apply(*actions[applied])
            applied += 1
            for seat in range(4):
                sent[seat] |= codes_in(events_for(match, seat, start), codes)
        for seat in range(4):
            sent[seat] |= codes_in(observe(match, seat), codes)
            if step["k"] == "deal" and applied == 0:
                sent[seat] |= codes_in(events_for(match, seat, 0), codes)
            view_hands, held = step["v"][seat]
            shown = {c for _, _, c in face_up(view_hands)} | ({held} if held else set())
            assert shown <= sent[seat], (step["n"], seat, shown - sent[seat])
            for entry in step["log"]:
                text = entry[1] if len(entry) == 2 or entry[2][seat] == 1 else entry[2][seat]
                if text is not None:
                    assert {c for c in codes if f"[{c}]" in text} <= sent[seat]


def test_the_last_step_holds_the_stored_result_and_the_marks():
    header, records = play("standard", {}, 4, 3, notes=True)
    frames = build_frames(header, records)
    result = next(r for r in records if r["type"] == "result")
    steps = expand(frames)
    last = steps[-1]
    assert last["tot"] == result["totals"] == frames["result"]["totals"]
    assert frames["result"]["places"] == result["places"] and frames["result"]["forfeited"] == result["forfeited"]
    assert last["k"] == "reveal" and [e[0] for e in last["log"][-2:]] == ["res", "luck"]
    assert last["log"][-1][2] == [None] * 4  # the match's luck: omniscient, in no seat's view
    assert [r["totals"] for r in frames["rounds"]][-1] == result["totals"]
    faulty = result["forfeited"].index(True)
    assert any(faulty in s.get("fl", []) for s in frames["steps"])
    assert any(faulty in s.get("fb", []) for s in frames["steps"])
    assert last["ff"] == [faulty]
    entries = [e for s in steps for e in s["log"]]
    fault = next(e for e in entries if e[0] == "fault")
    assert "SECRET-DETAIL" in fault[1]
    # what the bot wrote is shown once: in its log lines, which the fault's line does not repeat
    assert sum(e[1].count("SECRET-STDERR") for e in entries) == 1 and "SECRET-STDERR" not in fault[1]
    for seat in range(4):  # another seat's fault: only its kind; another seat's log: not at all
        mine = seat == faulty
        assert ("SECRET-DETAIL" in fault[2][seat]) == mine and "timeout" in fault[2][seat]
        log = next(e for e in entries if e[0] == "botlog")
        assert (log[2][seat] is not None) == mine


@pytest.mark.parametrize("preset,options", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_each_hand_value_is_what_the_rounds_scoring_adds(preset, options):
    """``hv``: every hand's value at every step, by the rules' card values; at a round's end exactly the
    sums its scoring used."""
    header, records = play(preset, options, 3, 4)
    frames = build_frames(header, records)
    values = frames["values"]
    assert values == make_rules(preset, options).value_map()
    reveals = 0
    for step in expand(frames):
        assert step["hv"] == [sum(values[c] for c in hand if c is not None) for hand in step["h"]]
        if step["k"] == "reveal":
            assert step["hv"] == frames["rounds"][step["ro"] - 1]["sums"]
            reveals += 1
    assert reveals == len(frames["rounds"]) > 0


def test_a_fault_shows_the_end_of_stderr_when_the_replay_has_no_log_of_that_bot():
    header, records = play("standard", {}, 4, 3, notes=True, logs=False)
    entries = [e for s in expand(build_frames(header, records)) for e in s["log"]]
    fault = next(e for e in entries if e[0] == "fault")
    assert "stderr| SECRET-STDERR" in fault[1] and not any(e[0] == "botlog" for e in entries)


@pytest.mark.parametrize("logs", [True, False])
def test_each_fault_is_placed_at_the_step_that_shows_it(logs):
    """The report links a fault by its decision; ``faults`` names the step whose log holds its line and
    whose ``fl`` marks its seat: the first step after that decision's action."""
    header, records = play("standard", {}, 4, 3, notes=True, logs=logs)
    frames = build_frames(header, records)
    fault = next(r for r in records if r["type"] == "fault")
    assert len(frames["faults"]) == 1
    seat, decision, index = frames["faults"][0]
    assert (seat, decision) == (fault["seat"], fault["decision"]) and decision > 0
    steps = expand(frames)
    step = steps[index]
    assert seat in step["fl"] and any(e[0] == "fault" for e in step["log"])
    assert step["n"] > decision and all(s["n"] <= decision for s in steps[:index])
    assert build_frames(*play("standard", {}, 4, 3))["faults"] == []


def test_each_decisions_stored_time_is_shown_at_its_step_and_the_slowest_are_marked():
    header, records = play("espanola", {"rounds": 3}, 4, 2, notes=True)
    moves = [r for r in records if r["type"] == "action"]
    times = [None if r.get("by") == "fallback" else n + 0.5 for n, r in enumerate(moves)]  # a time names its decision
    frames = build_frames(header, records, times)
    shown, previous = [], 0
    steps = expand(frames)
    for step in steps:
        for seat, ms, _ in step.get("t", []):
            decision = int(ms)
            assert moves[decision]["seat"] == seat and previous <= decision <= step["n"]
            shown.append(decision)
        previous = step["n"]
    assert shown == [n for n, ms in enumerate(times) if ms is not None]  # each once, in order; none for the fallback's
    slowest = sorted((n for n, ms in enumerate(times) if ms is not None), reverse=True)[:SLOWEST]
    assert [decision for decision, _ in frames["slow"]] == slowest
    for decision, index in frames["slow"]:
        step = steps[index]
        assert [decision + 0.5, 1] in [t[1:] for t in step["t"]]
        own = [1 if s == moves[decision]["seat"] else None for s in range(4)]  # not shown to the other seats
        assert any(e[0] == "slow" and f"took {decision + 0.5:.1f} ms for decision {decision}" in e[1] and e[2] == own
                   for e in step["log"])
    assert sum(t[2] for step in frames["steps"] for t in step.get("t", [])) == SLOWEST


@pytest.mark.parametrize("times", [None, [], ["12", True, -1, float("nan")] * 400], ids=["none", "empty", "not-times"])
def test_a_replay_without_stored_times_has_none_in_its_frames(times):
    header, records = play("standard", {}, 2, 1)
    frames = build_frames(header, records, times)
    assert frames["slow"] == [] and not any("t" in step for step in frames["steps"])
    assert not any(e[0] == "slow" for step in frames["steps"] for e in step["log"])


def test_frames_of_a_file_and_their_size(tmp_path):
    """A gzip replay file as a tournament stores it; the frames stay small (printed: bytes per match)."""
    for preset, options in CONFIGS:
        for players in (2, 4):
            header, records = play(preset, options, players, 11)
            path = tmp_path / f"{preset}{players}.jsonl.gz"
            with gzip.open(path, "wt", encoding="utf-8") as out:
                for record in [header, *records]:
                    out.write(json.dumps(record) + "\n")
            frames = frames_for_file(path)
            size = len(json.dumps(frames, separators=(",", ":"), ensure_ascii=False).encode())
            decisions = sum(1 for r in records if r["type"] == "action")
            print(f"{preset} {players} players: {decisions} decisions, {len(frames['steps'])} steps, {size} bytes")
            assert size < 400 * max(decisions, 1) + 5000


def test_format_1_replays_without_arena_records_still_make_frames():
    header, records = play("espanola", {"rounds": 2}, 2, 5)
    records = [r for r in records if r["type"] not in ("result", "fault", "forfeit", "log")]
    frames = build_frames({**header, "format": "cabo-arena-replay/1"}, records)
    assert frames["result"]["forfeited"] == [False, False]
    assert expand(frames)[-1]["tot"] == frames["result"]["totals"]


def test_a_replay_the_engine_does_not_rebuild_is_refused():
    header, records = play("standard", {}, 2, 4)
    extra = {"type": "draw", "seat": 0, "deck": 1}
    with pytest.raises(ValueError, match="does not match this engine"):
        build_frames(header, records + [extra])


def test_the_view_of_a_path_is_unchanged_by_paths(tmp_path: Path):
    """Frames do not depend on where the file is (they are cached by match index)."""
    header, records = play("standard", {}, 2, 9)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    for path in (a, b):
        path.write_text("\n".join(json.dumps(r) for r in [header, *records]) + "\n")
    assert frames_for_file(a) == frames_for_file(b)


def test_a_viewer_for_one_replay_file(tmp_path):
    """``arena play``'s replay in a viewer of its own: viewer.html and replays/b0.js, its block (and the packing)."""
    from arena.site.viewer import build_single

    header, records = play("espanola", {"rounds": 2}, 3, 6)
    path = tmp_path / "play.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in [header, *records]) + "\n")
    page = build_single(path, tmp_path / "site")
    assert page == tmp_path / "site" / "viewer.html" and page.is_file()
    from arena.site.blocks import frames_in

    assert sorted(p.name for p in (tmp_path / "site" / "replays").iterdir()) == ["b0.js", "index.js", "packing.js"]
    assert frames_in(tmp_path / "site" / "replays" / "b0.js") == {0: build_frames(header, records)}
    assert {p.name for p in (tmp_path / "site").iterdir()} == {"viewer.html", "viewer.css", "viewer.js", "replays",
                                                               ".arena-replay-viewer"}


def test_record_types_the_viewer_does_not_know_are_ignored():
    header, records = play("standard", {}, 2, 8)
    plain = build_frames(header, records)
    assert build_frames(header, records[:5] + [{"type": "comment", "seat": 0, "text": "hi"}] + records[5:]) == plain


def test_a_bot_cannot_write_another_seats_name_by_its_mark():
    """A seat's name is written in the frames as a mark the viewer turns into the name; a mark in what a bot
    wrote (its log, its fault's detail) is shown as U+FFFD, never as a seat's name."""
    header, records = play("standard", {}, 4, 3, notes=True)
    forged = chr(0xE000 + 2)
    for record in records:
        if record["type"] == "log":
            record["text"] = f"I am {forged} now"
        if record["type"] == "fault":
            record["detail"] = f"blame {forged}"
    entries = [e for s in expand(build_frames(header, records)) for e in s["log"]]
    log = next(e for e in entries if e[0] == "botlog")
    fault = next(e for e in entries if e[0] == "fault")
    assert "I am \ufffd now" in log[1] and "blame \ufffd" in fault[1]
    assert "bot2@2" not in log[1] + fault[1]
    assert any(f"bot{s}@{s} deals" in entries[0][1] for s in range(4))  # the engine's names are put in


def test_repeated_seat_texts_are_written_once():
    """The hidden-card version of a line most seats see alike is written once, the others refer to it."""
    header, records = play("standard", {}, 4, 3)
    raw = [e for s in build_frames(header, records)["steps"] for e in s["log"] if len(e) > 2]
    draws = [e for e in raw if "draws a card" in str(e[2])]
    assert draws and all(sum(isinstance(t, str) for t in e[2]) == 1 for e in draws)
    assert all(isinstance(t, int) and t < 0 or t in (1, None) or isinstance(t, str) for e in raw for t in e[2])


@pytest.mark.parametrize("preset,options", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_the_short_form_writes_out_to_exactly_the_long_one(preset, options, monkeypatch):
    """Frames write a line a reader can make from the step as a number (a round's start and end, a slow
    decision) and a seat text that repeats another's as a reference: written out, every step's log is the one
    written in full (and the short form is used)."""
    header, records = play(preset, options, 4, 9, notes=True)
    times = [float(n % 7) + 0.3 for n in range(2000)]
    short = build_frames(header, records, times)
    numbers = [e for s in short["steps"] for e in s["log"] if isinstance(e[1], int)]
    assert {e[0] for e in numbers} == {"rd", "slow"} and sum(e[0] == "slow" for e in numbers) == SLOWEST
    assert any(isinstance(t, int) and t < 0 for s in short["steps"] for e in s["log"] if len(e) > 2 for t in e[2])
    monkeypatch.setattr(cabo_frames._Builder, "write_short", lambda self: None)
    long = build_frames(header, records, times)
    assert not any(isinstance(e[1], int) for s in long["steps"] for e in s["log"])
    assert [s["log"] for s in expand(short)] == [s["log"] for s in expand(long)]


def test_slow_means_slow_against_the_time_limit():
    """The match's slowest decisions are listed; only one that took half its time limit or more is called SLOW
    (and drawn red by the viewer), whatever its rank among the match's."""
    header, records = play("standard", {}, 2, 1)
    header = {**header, "time": {"move_ms": 10, "startup_ms": 10000}}
    moves = sum(1 for r in records if r["type"] == "action")
    times = [0.5] * moves
    times[3], times[7] = 6.0, 0.9  # one near the 10 ms limit, one slow only among the match's
    frames = build_frames(header, records, times)
    assert frames["move_ms"] == 10
    lines = [e[1] for s in expand(frames) for e in s["log"] if e[0] == "slow"]
    assert any(line.startswith("SLOW ") and line.endswith(" took 6.0 ms for decision 3, over half its 10 ms, one of "
                                                          "the match's 5 slowest") for line in lines), lines
    assert any(line.endswith("took 0.9 ms for decision 7, one of the match's 5 slowest, well within its 10 ms")
               and not line.startswith("SLOW") for line in lines)
    assert sum(line.startswith("SLOW ") for line in lines) == 1


# ---------------------------------------------------------------------------- the luck of the cards (``lu``)

@pytest.mark.parametrize("preset,options", CONFIGS, ids=[c[0] for c in CONFIGS])
@pytest.mark.parametrize("players", [2, 4])
def test_each_card_the_deck_gives_has_its_luck_in_the_step_that_shows_it(preset, options, players):
    """A deal's step holds its cards' luck, a draw from the pile the drawn card's (the drawer's term is the meter's
    term for that card), a step where the deck gave nothing holds none; the steps add up to the match's luck
    within their rounding, and the result holds the match's luck itself."""
    from arena.luck.replayed import measured

    header, records = play(preset, options, players, 3)
    meter = measured(header, records)
    frames = build_frames(header, records)
    steps = expand(frames)
    draws = iter([event for event in meter.events if event.kind == "draw"])
    carrying = [0] * players
    for raw, step in zip(frames["steps"], steps):
        if step["k"] == "deal":
            assert "lu" in raw
        if "lu" in raw:
            assert len(raw["lu"]) == players and all(isinstance(n, int) for n in raw["lu"])
            carrying = [a + b for a, b in zip(carrying, raw["lu"])]
        drew = raw.get("hf") == "deck" and raw.get("held")
        if drew:
            event = next(draws)
            assert (event.seat, event.card) == (step["hs"], step["held"])
            assert raw["lu"][event.seat] == round(event.terms[event.seat] * 10)
        elif step["k"] == "play" and "lu" not in raw:
            assert raw.get("dk") is None  # the deck gave no card: its size did not change
    assert next(draws, None) is None, "every drawn card was shown with its luck"
    assert frames["result"]["luck"] == [round(v * 10) for v in meter.luck]
    steps_with_luck = sum(1 for raw in frames["steps"] if "lu" in raw)
    for seat in range(players):
        assert abs(carrying[seat] / 10 - meter.luck[seat]) <= 0.05 * steps_with_luck + 1e-9


@pytest.mark.parametrize("preset,options", CONFIGS, ids=[c[0] for c in CONFIGS])
def test_the_luck_changes_no_seat_view_and_no_log_line(preset, options):
    """The terms read every hand and the deck: the frames keep them beside the steps, never in what a seat was
    shown, so frames made with and without them differ in ``lu`` and the result's ``luck`` alone."""
    header, records = play(preset, options, 3, 5, notes=True)
    with_luck = build_frames(header, records)
    without = cabo_frames.build_frames(header, records)
    assert "luck" in with_luck["result"] and "luck" not in without["result"]
    assert any("lu" in step for step in with_luck["steps"]) and not any("lu" in step for step in without["steps"])
    for made, plain in zip(with_luck["steps"], without["steps"]):
        assert {k: v for k, v in made.items() if k != "lu"} == plain
    assert {k: v for k, v in with_luck.items() if k not in ("steps", "result")} == \
        {k: v for k, v in without.items() if k not in ("steps", "result")}


def test_luck_that_is_not_one_term_a_seat_for_every_card_is_refused():
    from arena.luck.replayed import replayed_terms

    header, records = play("standard", {}, 3, 4)
    terms = replayed_terms(header, records)
    assert terms is not None
    for wrong in (terms[:-1], terms + [terms[-1]], [t[:-1] for t in terms]):
        with pytest.raises(ValueError, match="luck of test-standard-3-4"):
            cabo_frames.build_frames(header, records, None, wrong)
