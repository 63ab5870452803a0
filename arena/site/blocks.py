"""The viewer's replays on disk: one script per block of :data:`BLOCK` matches, its frames compressed.

A match's frames (:mod:`.frames`) are about 15 KB of JSON, most of it log lines that differ
little from match to match; one file per match made a report of 10,000 matches 150 MB in
10,000 files. So the matches ``BLOCK * b`` to ``BLOCK * (b + 1) - 1`` share ``replays/b<b>.js``::

    window.ARENA_BLOCK = {"format": BLOCK_FORMAT, "block": b,
                          "matches": [[idx, match id, seed, frames format], ...],
                          "data": "<base64 of the raw DEFLATE of the frames' JSON, one match a line>"};

The frames are still the engine's (made in Python, per seat from ``observe()``); the viewer only
inflates them, with the browser's own ``DecompressionStream``, and parses the line of the match it
shows. A page opened from ``file://`` may not ``fetch()``, but it may add a ``<script>``, hence a
script. The bytes on disk are what counts: no web server's gzip is assumed.

``matches`` lists in plain what the block holds, so a rebuild can tell without inflating it whether
an earlier build's block is still right (same matches, same deals, same frames format: it is linked)
or which of its lines it can keep (the rest are made anew, the block compressed again).
"""

from __future__ import annotations

import base64
import os
import binascii
import json
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BLOCK = 128
"""Matches a block file holds (by index): small enough that a rebuild compresses one block in a fraction
of a second and the viewer inflates one quickly, large enough that a report has few files."""
BLOCK_FORMAT = "arena-viewer-block/1"
PREFIX = "window.ARENA_BLOCK = "
LEVEL = 6
"""zlib's level: 9 saves 3-4% more for twice the time."""


@dataclass(frozen=True)
class Entry:
    """One match in a block: its index, id, deal seed, frames format and the frames as one line of JSON."""

    idx: int
    match: str
    seed: str
    format: str
    line: str

    def key(self) -> list[object]:
        return [self.idx, self.match, self.seed, self.format]


def block_of(idx: int) -> int:
    return idx // BLOCK


def block_name(block: int) -> str:
    return f"b{block}.js"


def frames_line(frames: dict[str, Any]) -> str:
    """The frames as one line (JSON escapes every newline of a string, so a line is a match)."""
    return json.dumps(frames, separators=(",", ":"), ensure_ascii=False)


def encode(block: int, entries: list[Entry]) -> str:
    """The script of a block holding ``entries`` (in index order)."""
    entries = sorted(entries, key=lambda e: e.idx)
    packer = zlib.compressobj(LEVEL, zlib.DEFLATED, -15)  # raw DEFLATE: what DecompressionStream("deflate-raw") reads
    packed = packer.compress("\n".join(e.line for e in entries).encode("utf-8")) + packer.flush()
    data = base64.b64encode(packed).decode("ascii")
    head = {"format": BLOCK_FORMAT, "block": block, "matches": [e.key() for e in entries], "size": len(data),
            "data": data}
    text = json.dumps(head, separators=(",", ":"), ensure_ascii=False)
    return PREFIX + text.replace("</", "<\\/") + ";\n"  # "</" could end an inlined <script>


END = '"};\n'
"""How a block's file ends, after its data (:func:`read_head` checks the size by it)."""


class BlockError(Exception):
    """A block file that is not one this arena wrote (or is damaged)."""


DATA_KEY = ',"data":"'
"""Where a block's header ends and its data begins: :func:`encode` writes ``data`` last, and inside a JSON
string a quote is always escaped, so the first such text is the key."""


def read_head(path: Path) -> dict[str, Any]:
    """The block's header (``format``, ``block``, ``matches``) as written, read without its data: a rebuild
    looks at every block's header, and the data is nearly all of a block's bytes."""
    try:
        with path.open("rb") as handle:
            text = b""
            while DATA_KEY.encode() not in text:
                more = handle.read(1 << 16)
                if not more:
                    break
                text += more
            total = os.fstat(handle.fileno()).st_size
        cut = text.find(DATA_KEY.encode())
        head = parse_head(text[:cut].decode("utf-8") + "}" if cut >= 0 else text.decode("utf-8"), path)
    except (OSError, UnicodeDecodeError) as exc:
        raise BlockError(f"{path}: {exc}") from None
    size = head.get("size")
    if cut < 0 or not isinstance(size, int) or total != cut + len(DATA_KEY) + size + len(END):
        raise BlockError(f"{path}: cut short or grown: its size is not the one its header gives")
    return head


def parse_head(text: str, path: Path | str) -> dict[str, Any]:
    """:func:`read_head` of a block's text (``path`` names it in an error)."""
    if not text.startswith(PREFIX):
        raise BlockError(f"{path}: not a block of replays (it does not start with {PREFIX.strip()})")
    try:
        head = json.loads(text[len(PREFIX):].rstrip().rstrip(";"))
    except ValueError as exc:
        raise BlockError(f"{path}: not a block of replays ({exc})") from None
    if not isinstance(head, dict) or head.get("format") != BLOCK_FORMAT or not isinstance(head.get("matches"), list):
        raise BlockError(f"{path}: not a block of replays in the format {BLOCK_FORMAT}")
    return head


def read_block(path: Path) -> list[Entry]:
    """Every match of a block file, its frames' line included (:class:`BlockError` if it is not a sound one)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise BlockError(f"{path}: {exc}") from None
    return entries_of(parse_head(text, path), path)


def entries_of(head: dict[str, Any], path: Path | str) -> list[Entry]:
    """The matches of a block's header, inflated (``path`` names it in an error)."""
    try:
        lines = zlib.decompress(base64.b64decode(str(head.get("data", "")), validate=True), -15).decode("utf-8").split("\n")
        keys = [(int(k[0]), str(k[1]), str(k[2]), str(k[3])) for k in head["matches"]]
    except (binascii.Error, zlib.error, UnicodeDecodeError, ValueError, TypeError, IndexError) as exc:
        raise BlockError(f"{path}: its data does not decode ({exc})") from None
    if len(lines) != len(keys):
        raise BlockError(f"{path}: {len(keys)} matches listed, {len(lines)} lines of frames")
    return [Entry(*key, line) for key, line in zip(keys, lines)]


def frames_in(path: Path) -> dict[int, dict[str, Any]]:
    """The frames of every match of a block file, by index, as the viewer gets them."""
    return {entry.idx: json.loads(entry.line) for entry in read_block(path)}


def all_frames(replays: Path) -> dict[int, dict[str, Any]]:
    """The frames of every match in the blocks of a ``replays/`` directory, by index."""
    out: dict[int, dict[str, Any]] = {}
    for path in sorted(replays.glob("b[0-9]*.js")):
        out.update(frames_in(path))
    return out
