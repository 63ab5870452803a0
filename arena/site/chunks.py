"""The match list on disk: one script per chunk of :data:`CHUNK` match indices, ``data/matches-<k>.js``.

A ladder's match list of 100,000 matches is 12 MB of JSON; written as one file, every rebuild made
all of it again for one more match. Split by index (chunk ``k`` holds the shown matches of index
``CHUNK * k`` to ``CHUNK * (k + 1) - 1``), a chunk changes only when one of its matches is stored or
its deal becomes whole, which is nearly always in the last chunk or two. Each chunk sets a global of
its own (``window.ARENA_MATCH_LIST_<k> = {columns, rows}``, see :func:`.pages.script_json`);
``matches.html`` loads the chunks it names (``data-chunks`` on its table), and report.js joins
them in order. A chunk with no match to show has no file.

:class:`MatchChunks`, kept between builds by ``arena serve`` (with its :class:`.data.RowCache`),
remembers which rows each chunk it wrote holds; a chunk whose rows are the same row objects
(a row cache hands out the same object for a row it did not read again) and whose file is still
the one it wrote is linked from the report being replaced instead of written. The bytes are the
same either way: a chunk's text depends on its rows only.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Sequence

from . import data
from .linked import link_if_same, stamp
from .pages import script_json

CHUNK = 4096
"""Match indices a chunk file spans: at 100,000 matches, 25 files of about 0.5 MB."""
DATA = "data"


def chunk_of(idx: int) -> int:
    return idx // CHUNK


def chunk_name(chunk: int) -> str:
    return f"matches-{chunk}.js"


def chunk_js(chunk: int, rows: Sequence[dict[str, Any]]) -> str:
    """The script of one chunk: its matches as :func:`.data.compact` columns."""
    return script_json(f"ARENA_MATCH_LIST_{chunk}",
                       data.compact([data.match_entry(row) for row in rows], data.MATCH_COLUMNS))


def _same(a: Sequence[Any], b: Sequence[Any]) -> bool:
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))


class MatchChunks:
    """Writes the chunks of a match list, linking those an earlier build of the same report wrote with the
    same rows (see the module's docstring)."""

    def __init__(self) -> None:
        self.written: dict[int, tuple[list[dict[str, Any]], tuple[int, ...]]] = {}

    def write(self, shown: Sequence[dict[str, Any]], target: Path, reuse: Path | None = None) -> list[int]:
        """Write the chunks of the ``shown`` rows (schedule order) into ``target/data``; ``reuse``: the report
        being replaced, whose unchanged chunks are linked. Returns the chunk numbers written, in order."""
        by_chunk: dict[int, list[dict[str, Any]]] = {}
        for row in shown:
            by_chunk.setdefault(chunk_of(int(row["idx"])), []).append(row)
        written: dict[int, tuple[list[dict[str, Any]], tuple[int, ...]]] = {}
        (target / DATA).mkdir(exist_ok=True)
        for chunk, rows in sorted(by_chunk.items()):
            path = target / DATA / chunk_name(chunk)
            if not self._link(chunk, rows, path, reuse):
                path.write_text(chunk_js(chunk, rows), encoding="utf-8")
            written[chunk] = (rows, stamp(path))
        self.written = written
        return sorted(written)

    def _link(self, chunk: int, rows: list[dict[str, Any]], path: Path, reuse: Path | None) -> bool:
        """Link the earlier build's chunk to ``path`` if it holds ``rows`` and is still the file written then."""
        before = self.written.get(chunk)
        if reuse is None or before is None or not _same(before[0], rows):
            return False
        return link_if_same(reuse / DATA / chunk_name(chunk), path, before[1])
