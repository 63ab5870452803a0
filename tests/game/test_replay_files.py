"""Replay files from outside: read within bounds, and anything wrong is one line naming the file and line."""

from __future__ import annotations

import functools
import gzip
import json
import random
import tracemalloc
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.game import Match, make_rules
from arena.game.replay import MAX_REPLAY_BYTES, ReplayError, load_replay, rebuild, replay_bytes
from arena.selfplay import play_random


@functools.cache
def _text() -> str:
    """A real replay (played on first use, not when the module is collected)."""
    match = Match(make_rules("standard"), 2, 7)
    play_random(match, random.Random(7))
    return replay_bytes(match, {"match": "m-7", "bots": ["a", "b"]}).decode()


def _lines() -> list[str]:
    return _text().splitlines()


def _with_header(**changes: object) -> bytes:
    header = {k: v for k, v in {**json.loads(_lines()[0]), **changes}.items() if v is not None}
    return ("\n".join([json.dumps(header)] + _lines()[1:]) + "\n").encode()


def _changed_record(kind: str, change: dict) -> bytes:
    """The replay with the first record of ``kind`` changed (a value None removes that field)."""
    lines = _lines()
    out, done = [lines[0]], False
    for line in lines[1:]:
        record = json.loads(line)
        if not done and record["type"] == kind:
            record = {k: v for k, v in {**record, **change}.items() if v is not None}
            done = True
        out.append(json.dumps(record))
    assert done
    return ("\n".join(out) + "\n").encode()


def _line_of(kind: str) -> int:
    return next(n for n, line in enumerate(_lines(), 1) if json.loads(line)["type"] == kind)


BAD: dict[str, Callable[[], tuple[bytes, str]]] = {
    "empty": lambda: (b"", "not a replay file: it is empty"),
    "yaml": lambda: (b"name: league\nrules: standard\n", "not a replay file: line 1 is not JSON"),
    "array": lambda: (b"[1, 2]\n", "line 1 is a JSON array, not an object"),
    "string": lambda: (b'"header"\n', "line 1 is a JSON string, not an object"),
    "no header": lambda: (("\n".join(_lines()[1:]) + "\n").encode(),
                          "not a replay file: line 1 should be the header"),
    "unknown format": lambda: (_with_header(format="cabo-arena-replay/99"),
                               "replay format 'cabo-arena-replay/99' is not one this arena reads"),
    "no rules": lambda: (_with_header(rules=None), "line 1 (header): rules must be an object"),
    "players a string": lambda: (_with_header(players="x"), 'players must be a whole number 2 to 5, not "x"'),
    "players huge": lambda: (_with_header(players=10**9), "players must be a whole number 2 to 5, not 1000000000"),
    "seed a list": lambda: (_with_header(seed=[1]), "seed must be a number or a string"),
    "cut short": lambda: ((_text()[:len(_text()) // 2] + "\n").encode(), "is not JSON"),
    "not UTF-8": lambda: (b"\xff\xfe" + _text().encode(), "line 1 is not UTF-8 text (byte 0)"),
    "seat out of range": lambda: (_changed_record("action", {"seat": 7}),
                                  f"line {_line_of('action')} (action): seat must be a whole number 0..1, not 7"),
    "action not an object": lambda: (_changed_record("action", {"action": "draw"}),
                                     "(action): action must be an object"),
    "field missing": lambda: (_changed_record("round_start", {"dealer": None}),
                              f"line {_line_of('round_start')} (round_start): the field dealer is missing"),
    "result of wrong length": lambda: ((_text() + '{"type": "result", "places": [1], "totals": [3], '
                                        '"forfeited": [false], "reason": "score"}\n').encode(),
                                       "places, totals and forfeited must hold one value per seat (2)"),
    "record without type": lambda: (_changed_record("action", {"type": None}), 'a record needs a "type" string'),
    "nested deeply": lambda: ((_lines()[0] + "\n" + "[" * 100_000 + "]" * 100_000 + "\n").encode(),
                              "line 2 nests arrays or objects too deeply"),
    "two replays joined": lambda: ((_text() + _text()).encode(),
                                   f"line {len(_lines()) + 1} is a second header: a replay file holds one match"),
}


def _first(kind: str) -> dict:
    return next(json.loads(line) for line in _lines() if json.loads(line)["type"] == kind)


def _another_card(code: str) -> str:
    return "KC" if code != "KC" else "AS"


EDITED: dict[str, Callable[[], tuple[bytes, str]]] = {
    # a replay changed after its match was written: refused at the first record that its seed and actions do not
    # make, since its account would say one thing and the luck measured from the rebuilt match another
    "a card not of the deck": lambda: (_changed_record("draw", {"card": "ZZ"}),
                                       f'line {_line_of("draw")} (draw): "ZZ" is not a card of the standard deck '
                                       "(french: AS ... KC); the file was changed after its match was written"),
    "a card changed to another": lambda: (
        _changed_record("draw", {"card": _another_card(_first("draw")["card"])}),
        f'line {_line_of("draw")} (draw): card is "{_another_card(_first("draw")["card"])}", but the seed and the '
        f'actions before it give "{_first("draw")["card"]}"; the file was changed after its match was written'),
    "a hand's card changed": lambda: (
        _changed_record("round_over", {"hands": [["ZZ", *hand[1:]] for hand in _first("round_over")["hands"]]}),
        f'line {_line_of("round_over")} (round_over): "ZZ" is not a card of the standard deck'),
    "the seed changed": lambda: (_with_header(seed=8), "line 2 (round_start): "),
    "a field added to an event": lambda: (_changed_record("round_start", {"peeked": "AS"}),
                                          f"line {_line_of('round_start')} (round_start): the field peeked is not one "
                                          "this event has; the file was changed after its match was written"),
    "an event added": lambda: ((_text() + json.dumps(_first("draw")) + "\n").encode(),
                               f"line {len(_lines()) + 1} (draw): the seed and the actions before it make no such "
                               "event here"),
    "a time not a number": lambda: (_with_header(time={"move_ms": "fast", "startup_ms": 10000}),
                                    'line 1 (header): time.move_ms must be a whole number of milliseconds from 0 to '
                                    '1000000000, not "fast"'),
    "a time negative": lambda: (_with_header(time={"move_ms": 1000, "startup_ms": -1}),
                                "line 1 (header): time.startup_ms must be a whole number of milliseconds from 0 to "
                                "1000000000, not -1"),
}
BAD.update(EDITED)


@pytest.mark.parametrize("case", sorted(BAD))
@pytest.mark.parametrize("gzipped", [False, True])
def test_a_bad_replay_is_one_error_naming_the_file_and_what_was_expected(tmp_path, case, gzipped):
    data, words = BAD[case]()
    path = tmp_path / ("r.jsonl.gz" if gzipped else "r.jsonl")
    path.write_bytes(gzip.compress(data) if gzipped else data)
    with pytest.raises(ReplayError) as caught:
        load_replay(path)
    message = str(caught.value)
    assert message.startswith(f"{path}: ") and words in message and "\n" not in message


def test_a_good_replay_reads_and_rebuilds(tmp_path):
    text = _text().encode()
    for name, data in (("r.jsonl", text), ("r.jsonl.gz", gzip.compress(text))):
        (tmp_path / name).write_bytes(data)
        header, records = load_replay(tmp_path / name)
        assert header == json.loads(_lines()[0]) and len(records) == len(_lines()) - 1
        assert rebuild(header, records).result is not None


def test_a_gzip_cut_short_or_damaged_is_named_as_such(tmp_path):
    packed = gzip.compress(_text().encode())
    (tmp_path / "cut.jsonl.gz").write_bytes(packed[:len(packed) // 2])
    with pytest.raises(ReplayError, match="the gzip data ends early"):
        load_replay(tmp_path / "cut.jsonl.gz")
    damaged = bytearray(packed)
    damaged[-8] ^= 0xFF  # the CRC
    (tmp_path / "crc.jsonl.gz").write_bytes(bytes(damaged))
    with pytest.raises(ReplayError, match="damaged gzip data"):
        load_replay(tmp_path / "crc.jsonl.gz")


def _bomb(path: Path, megabytes: int) -> None:
    """A small gzip file of ``megabytes`` MiB of newlines (what a blank-line bomb looks like): one member
    of 1 MiB, repeated (a gzip file may hold many members; readers join them)."""
    member = gzip.compress(b"\n" * (1 << 20), compresslevel=9, mtime=0)
    path.write_bytes(member * megabytes)


def test_a_gzip_bomb_is_given_up_past_the_bound_without_holding_it(tmp_path):
    path = tmp_path / "bomb.jsonl.gz"
    _bomb(path, 200)
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ReplayError, match=r"more than 64 MiB uncompressed; a replay this arena reads is at most"):
            load_replay(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 2 * MAX_REPLAY_BYTES + (16 << 20)  # the bound and one copy, never the 200 MiB


def test_a_plain_file_is_bounded_too(tmp_path):
    path = tmp_path / "big.jsonl"
    path.write_bytes(_text().encode() + b"\n" * 2048)
    with pytest.raises(ReplayError, match=r"more than 0 MiB; a replay this arena reads"):
        load_replay(path, limit=1024)


def test_a_device_is_not_read(tmp_path):
    with pytest.raises(ReplayError, match="not a regular file"):
        load_replay(Path("/dev/zero"))


def test_a_fifo_is_refused_at_once_not_waited_on(tmp_path):
    """Opening a FIFO for reading waits for a writer; the reader never opens one that way."""
    import os

    fifo = tmp_path / "r.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ReplayError, match="not a regular file"):
        load_replay(fifo)
    result = CliRunner().invoke(main, ["replay", str(fifo)])
    assert result.exit_code == 1 and result.output.strip().splitlines() == [
        f"Error: {fifo}: not a regular file; give a replay file (.jsonl or .jsonl.gz)"]


@pytest.mark.parametrize("case", ["yaml", "array", "unknown format", "players huge", "cut short", "not UTF-8",
                                  "seat out of range", "field missing", "nested deeply", "two replays joined"])
def test_arena_replay_says_what_is_wrong_in_one_line(tmp_path, case):
    path = tmp_path / "r.jsonl"
    data, words = BAD[case]()
    path.write_bytes(data)
    for extra in ([], ["--seat", "1"], ["--html", str(tmp_path / "html")]):
        result = CliRunner().invoke(main, ["replay", str(path), *extra])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: {path}: ")
        assert words in result.output


@pytest.mark.parametrize("case", sorted(EDITED))
def test_arena_replay_luck_of_an_edited_replay_is_refused_in_one_line(tmp_path, case):
    """``arena replay --luck`` printed the edited card beside the luck of the card the deck gave, and exited 0."""
    path = tmp_path / "r.jsonl"
    data, words = EDITED[case]()
    path.write_bytes(data)
    for extra in (["--luck"], [], ["--seat", "0"]):
        result = CliRunner().invoke(main, ["replay", str(path), *extra])
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        lines = result.output.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"Error: {path}: ") and words in lines[0], lines


def test_arena_replay_html_of_actions_that_do_not_rebuild_is_one_line(tmp_path):
    first = _line_of("action")
    lines = _lines()
    lines[first - 1] = json.dumps({"type": "action", "seat": 0, "action": {"do": "cabo"}})
    path = tmp_path / "illegal.jsonl"
    path.write_text("\n".join(lines) + "\n")
    result = CliRunner().invoke(main, ["replay", str(path), "--html", str(tmp_path / "html")])
    assert result.exit_code == 1 and isinstance(result.exception, SystemExit)
    assert result.output.startswith(f"Error: {path}: its actions do not rebuild a match here ('cabo' is not legal")
    assert len(result.output.strip().splitlines()) == 1
    (tmp_path / "short.jsonl").write_text(_lines()[0] + "\n")
    result = CliRunner().invoke(main, ["replay", str(tmp_path / "short.jsonl"), "--html", str(tmp_path / "html")])
    assert result.exit_code == 1 and "the replay ends before the match does" in result.output
