"""The C bot's JSON scanner and generator, driven directly over pipes."""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

HELLO = {"type": "hello", "protocol": 1, "match": "m-7", "seat": 2, "players": 4,
         "rules": {"preset": "standard", "options": {}}, "values": {"AS": 1},
         "time": {"move_ms": 1000, "startup_ms": 10000}}


def run_lines(bot_dir: Path, lines: list[str]) -> list[dict]:
    proc = subprocess.run([str(bot_dir / "bot")], input="".join(line + "\n" for line in lines).encode(),
                          capture_output=True, timeout=30, check=True)
    return [json.loads(line) for line in proc.stdout.decode().splitlines()]


def act(id_: object, legal: list, **extra: object) -> str:
    return json.dumps({"type": "act", "id": id_, "state": {}, "events": [], "legal": legal, **extra})


def test_counts_top_level_legal_only(c_random_dir: Path) -> None:
    tricky = [{"s": "]", "t": "\\\"[{"}, "a,b", [[], [[1, 2]], {"x": [3]}], {"legal": list(range(9))}, None,
              -1.5e3, True, "\u00e9\U0001F600"]
    # key order differs from the usual one; a nested "legal" and "type" must not count
    line = json.dumps({"legal": tricky, "state": {"type": "hello", "legal": [1]}, "id": 5, "type": "act"})
    replies = run_lines(c_random_dir, [json.dumps(HELLO)] + [line] * 400)
    assert replies[0] == {"type": "ready", "name": "c-random"}
    indices = Counter(r["index"] for r in replies[1:])
    assert all(r == {"type": "action", "id": 5, "index": r["index"]} for r in replies[1:])
    assert set(indices) == set(range(len(tricky)))  # every element reachable, none beyond


def test_whitespace_escapes_and_ids(c_random_dir: Path) -> None:
    lines = [
        json.dumps(HELLO, indent=None, separators=(" , ", " : ")),
        '  {  "id" : "a\\"b\\\\c" , "legal" : [ ] , "type" : "act" }  ',
        '{"t\\u0079pe":"act","id":7,"legal":[{"do":"x"}]}',          # escaped key
        '{"type":"act\\u0000","id":8,"legal":[1]}',                   # not "act"
        '{"type":"update","events":[{"type":"act","id":9}]}',
        '{"type":"over","result":{"places":[1,2]}}',
        '{"type":"act","id":12345678901234567890,"legal":[1]}',
        '{"type":"act","id":10,"legal":[1,2],"legal":[1]}',          # duplicate key: last wins
        'not json', '', '[1,2]', '{"type":"act","id":11,"legal":[1,2}',  # malformed lines are skipped
    ]
    replies = run_lines(c_random_dir, lines)
    assert replies[0]["type"] == "ready"
    assert replies[1] == {"type": "action", "id": 'a"b\\c', "index": 0}
    assert replies[2] == {"type": "action", "id": 7, "index": 0}
    assert replies[3] == {"type": "action", "id": 12345678901234567890, "index": 0}
    assert replies[4] == {"type": "action", "id": 10, "index": 0}
    assert len(replies) == 5


def test_long_lines(c_random_dir: Path) -> None:
    big_ok = act(1, [1, 2, 3], state={"pad": "x" * 1_000_000})
    assert len(big_ok) < 1 << 20
    too_big = act(2, [1], state={"pad": "y" * (1 << 20)})
    replies = run_lines(c_random_dir, [json.dumps(HELLO), big_ok, too_big, act(3, [1])])
    assert [r["id"] for r in replies[1:]] == [1, 3]
    assert 0 <= replies[1]["index"] < 3


def test_seeded_by_match_and_seat(c_random_dir: Path) -> None:
    acts = [act(i, list(range(10))) for i in range(50)]

    def indices(hello: dict) -> list[int]:
        return [r["index"] for r in run_lines(c_random_dir, [json.dumps(hello)] + acts)[1:]]

    first = indices(HELLO)
    assert indices(HELLO) == first
    assert indices({**HELLO, "seat": 3}) != first
    assert indices({**HELLO, "match": "m-8"}) != first
    # a second hello restarts the generator from its own seed
    again = run_lines(c_random_dir, [json.dumps({**HELLO, "match": "m-8"})] + acts[:5] + [json.dumps(HELLO)] + acts)
    assert [r["index"] for r in again[7:]] == first


def test_builds_without_warnings(c_random_dir: Path, tmp_path: Path) -> None:
    from .driver import BOTS, copy_bot, manifest

    target = copy_bot(BOTS / "c-random", tmp_path)
    command = manifest(target)["build"]
    assert "-static" in command and "-std=c99" in command and "-Wextra" in command
    proc = subprocess.run(command, shell=True, cwd=target, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.strip() == ""
    assert (target / "bot").is_file()
