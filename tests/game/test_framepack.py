"""A match's frames packed as it is played (arena/game/framepack.py): what is packed comes back, what a
browser does to a block gives the same line, and anything else is refused in one line."""

from __future__ import annotations

import random
import subprocess
import sys
import zlib
from pathlib import Path

import pytest

from arena.game import Match, framepack, make_rules
from arena.game.replay import replay_bytes
from arena.luck import shipped_model
from arena.luck.meter import Meter
from arena.selfplay import play_random
from arena.site.frames import frames_for_file

ROOT = Path(__file__).resolve().parents[2]


def _played(seed: int, preset: str = "standard", players: int = 3, meter: Meter | None = None) -> bytes:
    match = Match(make_rules(preset), players, seed, watcher=meter)
    play_random(match, random.Random(seed))
    return replay_bytes(match, {"match": f"m{seed}", "bots": [f"b{s}" for s in range(players)]})


def test_what_is_packed_comes_back():
    line = '{"log":[["ev","caf\u00e9 \u00b7 </script>\\n"]],"n":' + "7" * 5000 + "}"
    packed = framepack.pack(line)
    assert framepack.unpack(packed) == line and len(packed) < 200


def test_a_browser_inflating_the_prefix_then_the_bytes_gets_the_dictionary_then_the_line():
    """What viewer.js does: raw DEFLATE of the block's prefix followed by a match's bytes, less ``skip`` bytes."""
    line = framepack.frames_line({"format": "f", "steps": [{"k": "deal", "n": 0}] * 40})
    whole = zlib.decompressobj(-15).decompress(framepack.prefix() + framepack.pack(line))
    skip = len(framepack.dictionary())
    assert whole[:skip] == framepack.dictionary() and whole[skip:].decode() == line
    assert 8 * 1024 < skip <= framepack.WINDOW


@pytest.mark.parametrize("damage, why", [
    (lambda b: b[:len(b) // 2], "cut short"),
    (lambda b: b + b"\x00junk", "run on"),
    (lambda b: b"\xff" * 40, "do not inflate"),
])
def test_packed_bytes_that_are_not_whole_are_refused(damage, why):
    packed = framepack.pack(framepack.frames_line({"steps": list(range(3000))}))
    with pytest.raises(ValueError, match=why):
        framepack.unpack(damage(packed))


def test_a_small_packed_bomb_is_refused_before_it_fills_memory():
    bomb = framepack._primed()[0].copy()  # a valid continuation of the dictionary that inflates to 8 MiB
    data = bomb.compress(b"0" * (8 * 1024 * 1024)) + bomb.flush()
    assert len(data) < 64 * 1024
    with pytest.raises(ValueError, match="larger than a match's frames can be"):
        framepack.unpack(data, limit=1024 * 1024)


def test_every_process_makes_the_same_dictionary():
    """Workers (local or on a cluster) pack against the dictionary the report's build names: one made from the
    engine with a fixed seed, so every process of one arena agrees on it."""
    code = "from arena.game import framepack; print(framepack.packing())"
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert other.stdout.strip() == framepack.packing()
    assert framepack.packing().startswith("deflate-dictionary/")


def test_frames_made_as_the_match_is_played_are_those_a_report_makes_from_its_replay(tmp_path):
    """The worker passes the luck its meter measured as the match was played; a report measures it again from
    the replay: the same terms, the same bytes."""
    meter = Meter(shipped_model(), "standard", 3)
    text = _played(11, meter=meter)
    times = [round(random.Random(1).uniform(0, 50), 1) for _ in range(text.count(b'"type":"action"'))]
    made = framepack.packed_frames(text, times, meter.terms())
    assert made is not None
    frames_format, packing, packed = made
    path = tmp_path / "r.jsonl"
    path.write_bytes(text)
    expected = frames_for_file(path, times)
    assert (frames_format, packing) == (expected["format"], framepack.packing())
    assert framepack.unpack(packed) == framepack.frames_line(expected)


def test_frames_that_cannot_be_made_are_none_not_a_failed_match():
    assert framepack.packed_frames(b'{"type":"header"}\n{"type":"action","seat":0}\n', []) is None
    assert framepack.packed_frames(b"\xff\xfe", []) is None
