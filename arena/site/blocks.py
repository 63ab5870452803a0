"""The viewer's replays on disk: one script per block of :data:`BLOCK` matches, each match's frames packed.

A match's frames (:mod:`.frames`) are about 16 KB of JSON, much of it the same from match to
match; one file per match made a report of 10,000 matches 150 MB in 10,000 files. So the matches
``BLOCK * b`` to ``BLOCK * (b + 1) - 1`` share ``replays/b<b>.js``::

    window.ARENA_BLOCK = {"format": BLOCK_FORMAT, "block": b, "packing": ..., "formats": [frames format, ...],
                          "matches": [[idx, deal key, index in formats, length], ...],
                          "size": ..., "data": "<each match's packed frames in base85, one after the other>"};

Each match's frames are packed as :mod:`arena.game.framepack` says: raw DEFLATE continuing a fixed
dictionary, whose compressed form is the ``prefix`` of ``replays/packing.js`` (:data:`PACKING_FILE`,
one for every block: it is the same for all)::

    window.ARENA_PACKING = {"packing": ..., "prefix": "<base85>", "skip": n};

The viewer inflates ``prefix`` followed by the match's own bytes with the browser's own
``DecompressionStream`` and drops the first ``skip`` bytes (the dictionary). The bytes are written in
base85 (Python's :func:`base64.b85encode` alphabet, which holds no quote, backslash or slash): a
sixteenth smaller than base64, and the viewer's decoder is a few lines. A match's deal key
(:func:`deal_key`) stands for its id and its deal's seed: what a rebuild compares, in 12 characters. A match is packed once, by the worker that played it (the results store
keeps the bytes), so a report's build copies them and compresses nothing; and the viewer inflates only
the match it shows. The frames are still the engine's (made in Python, per seat from ``observe()``).
A page opened from ``file://`` may not ``fetch()``, but it may add a ``<script>``, hence a script.
The bytes on disk are what counts: no web server's gzip is assumed.

``matches`` lists what the block holds, so a rebuild can tell without reading the data
whether an earlier build's block is still right (same matches, same deals, same frames format, same
packing: it is linked) or which of its matches it can keep (the rest are added, the block written again).
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..game import framepack
from ..game.framepack import frames_line

__all__ = ["BLOCK", "BLOCK_FORMAT", "PACKING_FILE", "BlockError", "Entry", "all_frames", "block_name", "block_of",
           "deal_key", "encode", "entries_of", "frames_in", "frames_line", "is_public", "packing_script", "parse_head",
           "read_block", "read_head"]

BLOCK = 128
"""Matches a block file holds (by index): few files in a report, and a rebuild that writes one block again
copies 128 matches' bytes at most."""
BLOCK_FORMAT = "arena-viewer-block/3"
"""3: base85, deal keys, the dictionary's prefix in :data:`PACKING_FILE`; 2: each match packed on its own
against a dictionary; 1: the block's frames compressed as one stream."""
PREFIX = "window.ARENA_BLOCK = "
PACKING_FILE = "packing.js"
"""Beside the blocks: the packing's name, its compressed dictionary (``prefix``) and ``skip``."""


def deal_key(match: str, seed: str) -> str:
    """A match's id and deal seed as 12 characters: a rebuild keeps a match's frames only for the same match
    and deal (48 bits: two of a block's 128 matches share a key once in about 10**10 blocks)."""
    return hashlib.sha256(f"{match}\n{seed}".encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Entry:
    """One match in a block: its index, deal key (:func:`deal_key`), frames format and its frames packed
    (:func:`arena.game.framepack.pack`)."""

    idx: int
    deal: str
    format: str
    packed: bytes

    @classmethod
    def of(cls, idx: int, match: str, seed: str, format: str, line: str) -> Entry:
        """The entry of frames given as their line of JSON (packed here) for match ``match`` dealt by ``seed``."""
        return cls(idx, deal_key(match, seed), format, framepack.pack(line))

    @property
    def line(self) -> str:
        """The frames as one line of JSON."""
        return framepack.unpack(self.packed)


def is_public(head: dict[str, Any]) -> bool:
    """True if a block's header says its frames hold no bot's log (:func:`encode`)."""
    return head.get("public") is True


def block_of(idx: int) -> int:
    return idx // BLOCK


def block_name(block: int) -> str:
    return f"b{block}.js"


def encode(block: int, entries: list[Entry], public: bool = False) -> str:
    """The script of a block holding ``entries`` (in index order); ``public``: its frames hold no bot's log
    (:mod:`.public`), said in its header so that a build of the other kind never links or keeps it."""
    entries = sorted(entries, key=lambda e: e.idx)
    pieces = [base64.b85encode(e.packed).decode("ascii") for e in entries]
    data = "".join(pieces)
    formats = sorted({e.format for e in entries})
    head = {"format": BLOCK_FORMAT, "block": block, "packing": framepack.packing(), "formats": formats,
            "matches": [[e.idx, e.deal, formats.index(e.format), len(piece)] for e, piece in zip(entries, pieces)],
            "size": len(data), **({"public": True} if public else {}), "data": data}
    text = json.dumps(head, separators=(",", ":"), ensure_ascii=False)
    return PREFIX + text.replace("</", "<\\/") + ";\n"  # "</" could end an inlined <script>


def packing_script() -> str:
    """:data:`PACKING_FILE`'s text: what every block's bytes continue (see the module's docstring)."""
    text = json.dumps({"packing": framepack.packing(), "prefix": base64.b85encode(framepack.prefix()).decode("ascii"),
                       "skip": len(framepack.dictionary())}, separators=(",", ":"))
    return "window.ARENA_PACKING = " + text + ";\n"


def listed(head: dict[str, Any]) -> list[tuple[int, str, str]]:
    """(idx, deal key, frames format) of every match a block's header lists (a :class:`BlockError` if it does
    not list them so)."""
    try:
        formats = [str(f) for f in head["formats"]]
        return [(int(k[0]), str(k[1]), formats[int(k[2])]) for k in head["matches"]]
    except (ValueError, TypeError, IndexError, KeyError) as exc:
        raise BlockError(f"its list of matches does not read ({exc})") from None


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
    """The matches of a block's header, each with its packed frames (``path`` names it in an error). A block
    packed against another dictionary than this arena's (another version's) is a :class:`BlockError`: its
    matches are made anew."""
    if head.get("packing") != framepack.packing():
        raise BlockError(f"{path}: packed against another dictionary than this arena's; it is made anew")
    try:
        data = str(head.get("data", ""))
        sizes = [int(k[3]) for k in head["matches"]]
        entries, at = [], 0
        for (idx, deal, frames_format), size in zip(listed(head), sizes):
            if size < 0 or at + size > len(data):
                raise ValueError(f"match {idx}'s {size} characters run past the data")
            entries.append(Entry(idx, deal, frames_format, base64.b85decode(data[at:at + size])))
            at += size
    except (binascii.Error, ValueError, TypeError, IndexError, KeyError, BlockError) as exc:
        raise BlockError(f"{path}: its data does not decode ({exc})") from None
    if at != len(data):
        raise BlockError(f"{path}: {len(data) - at} characters of data that no listed match holds")
    return entries


def frames_in(path: Path) -> dict[int, dict[str, Any]]:
    """The frames of every match of a block file, by index, as the viewer gets them (a
    :class:`BlockError` if one does not inflate)."""
    try:
        return {entry.idx: json.loads(entry.line) for entry in read_block(path)}
    except ValueError as exc:
        raise BlockError(f"{path}: {exc}") from None


def all_frames(replays: Path) -> dict[int, dict[str, Any]]:
    """The frames of every match in the blocks of a ``replays/`` directory, by index."""
    out: dict[int, dict[str, Any]] = {}
    for path in sorted(replays.glob("b[0-9]*.js")):
        out.update(frames_in(path))
    return out
