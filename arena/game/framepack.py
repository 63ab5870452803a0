"""A match's viewer frames, made as it is played and packed small enough to keep with every match.

Making a match's frames (:meth:`.seam.Game.frames`) costs about 7 ms of a core: reading the
replay, rebuilding the match and asking ``observe()`` for every seat at every step. Made by a
report's first build, 10,000 matches cost over a minute; made by the worker that has just
played the match, the cost is spread over the tournament, and a report only copies bytes.

The frames are one line of JSON of 10 to 20 KB (18 KB at the bundled league's 4 seats), much of it
the same from match to match (keys, log phrases, card codes). So each is compressed as the
continuation of a fixed :func:`dictionary` (raw DEFLATE at :data:`LEVEL`, the dictionary's part
flushed to a byte boundary): :func:`pack` gives only the bytes after the dictionary's, about 2 KB at
4 seats. Anything that
inflates :func:`prefix` followed by those bytes gets the dictionary and then the line, and drops
the dictionary: the browser's own ``DecompressionStream("deflate-raw")`` does, so a report needs
neither a decoder of its own nor a second compression of the frames (``arena/site/blocks.py``).

The dictionary is the frames of a match this module plays itself (a fixed seed, moves drawn from a
fixed random stream), so it follows the engine and the frames' format without a file to keep up
to date; :func:`packing` names it by a hash of its bytes, and frames packed against another
dictionary are not decoded here but made anew from their replay.
"""

from __future__ import annotations

import functools
import hashlib
import io
import json
import random
import zlib
from typing import Any, Sequence

from .replay import Notes, read_replay

WINDOW = 32 * 1024 - 262
"""DEFLATE refers back at most 32 KiB, less zlib's lookahead: a longer dictionary is never used."""
DICTIONARY_SEED = "viewer-frames-dictionary"
LEVEL = 9
"""zlib's best: 4% smaller than its default for 0.2 ms more of a worker's core a match (the frames cost 5 ms)."""


def frames_line(frames: dict[str, Any]) -> str:
    """The frames as one line of JSON (JSON escapes every newline of a string, so a line is a match)."""
    return json.dumps(frames, separators=(",", ":"), ensure_ascii=False)


@functools.lru_cache(maxsize=1)
def dictionary() -> bytes:
    """What every packed line continues: the frames of a few matches played here by a fixed random
    stream (both rule sets, 2 to 4 seats), their last :data:`WINDOW` bytes."""
    lines = [_played(preset, players) for preset, players in DICTIONARY_MATCHES]
    return "\n".join(lines).encode("utf-8")[-WINDOW:]


DICTIONARY_MATCHES = (("espanola", 3), ("standard", 2), ("standard", 4))


class _StandIn:
    """Luck terms shaped like the meter's (:mod:`arena.luck`, a layer above this one) for the dictionary's
    matches, as the bundled league's measure: a drawn card gives its seat about 1.9 points either way and
    the others none in nine of ten; a dealt card moves every seat a little. Only the packing reads them,
    so that a match's real ``lu`` continues something like itself."""

    def __init__(self, pick: random.Random, players: int) -> None:
        self.pick, self.players = pick, players
        self.terms: list[list[float]] = []

    def drawn(self, match: Any, kind: str, seat: int, card: int) -> None:
        pick = self.pick
        dealt = kind == "deal"
        self.terms.append([pick.gauss(0.0, 2.5 if dealt else 1.9) if s == seat else
                           pick.gauss(0.0, 0.3) if dealt or pick.random() < 0.11 else 0.0
                           for s in range(self.players)])


def _played(preset: str, players: int) -> str:
    """The frames of a match of ``preset`` among ``players`` seats whose moves a fixed random stream draws."""
    from .registry import game_named
    from .rules import make_rules
    from .state import Match

    game = game_named("cabo")
    seed = f"{DICTIONARY_SEED}-{preset}-{players}"
    pick = random.Random(seed)
    luck = _StandIn(random.Random(f"{seed}/luck"), players)
    state = Match(make_rules(preset), players, seed, watcher=luck)
    while not state.over:
        seat = state.asked()[0]
        _, legal = state.legal_keyed(seat)
        state.apply_legal(seat, pick.randrange(len(legal)))
    meta = {"match": "m-0000", "wire_id": "w", "bots": [f"bot{seat}" for seat in range(players)]}
    header, records = read_replay(io.StringIO(game.replay_bytes(state, meta, Notes()).decode("utf-8")))
    times: Sequence[float | None] = [round(pick.uniform(0.1, 40.0), 1) for _ in range(len(state.history))]
    return frames_line(game.frames(header, records, times, luck.terms))


@functools.lru_cache(maxsize=1)
def _primed() -> tuple[zlib._Compress, bytes]:
    """A compressor that has taken the dictionary (flushed to a byte boundary), and what it gave for it."""
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)
    head = packer.compress(dictionary()) + packer.flush(zlib.Z_SYNC_FLUSH)
    return packer, head


@functools.lru_cache(maxsize=1)
def packing() -> str:
    """The name of this arena's packing: its dictionary's hash (stored beside each packed line)."""
    return "deflate-dictionary/" + hashlib.sha256(dictionary()).hexdigest()[:16]


def prefix() -> bytes:
    """The dictionary, compressed and flushed: inflate this followed by a packed line."""
    return _primed()[1]


def pack(line: str) -> bytes:
    """``line`` compressed as the continuation of the dictionary (see the module's docstring)."""
    packer = _primed()[0].copy()
    return packer.compress(line.encode("utf-8")) + packer.flush()


def unpack(data: bytes, limit: int = 64 * 1024 * 1024) -> str:
    """The line :func:`pack` packed (a ``ValueError`` if ``data`` is not such, or inflates past ``limit``)."""
    skip = len(dictionary())
    unpacker = zlib.decompressobj(-15)
    try:
        out = unpacker.decompress(prefix() + data, skip + limit + 1)
    except zlib.error as exc:
        raise ValueError(f"packed frames do not inflate ({exc})") from None
    if len(out) > skip + limit or not unpacker.eof or unpacker.unused_data:
        raise ValueError("packed frames are cut short, run on, or are larger than a match's frames can be")
    return out[skip:].decode("utf-8")


def packed_frames(replay: bytes, times: Sequence[float | None],
                  luck: Sequence[Sequence[float]] | None = None) -> tuple[str, str, bytes] | None:
    """The frames of a match just played, from its replay's text, its decision times and the luck terms its
    meter measured (one per card the deck gave, or None), as a report would make them from the stored replay
    and times: (frames format, :func:`packing`, :func:`pack`'s bytes). None if they cannot be made (a report
    then tries again from the replay and says why it cannot)."""
    from .registry import DEFAULT_GAME, game_named

    try:
        header, records = read_replay(io.StringIO(replay.decode("utf-8")), strict=True)
        frames = game_named(header.get("game", DEFAULT_GAME)).frames(header, records, list(times), luck)
        return str(frames["format"]), packing(), pack(frames_line(frames))
    except (ValueError, KeyError, TypeError, IndexError, AssertionError):
        return None
