"""Finding the starter kits' fallback markers in a seat's stderr.

The kits' helpers (``cabo_bot.py``, ``cabo_bot.js``, ``cabo_bot.h``) keep a bot in the
match when its own code fails: they answer the ``act`` with legal index 0. That move is
legal, so the protocol sees nothing wrong; the helper says so instead, on stderr, with a
line that starts with :data:`MARKER` (after the traceback, so the line before the end of
the log shows why). The runner feeds every seat's stderr through a :class:`MarkerScan`
and records what it finds as a ``helper_fallback`` fault of that seat.

A bot can write the marker without a helper, but only into its own stderr, so it can
only blame itself. Only whole lines count, and only those that start with the marker.
"""

from __future__ import annotations

from dataclasses import dataclass

MARKER = b"cabo-bot: fallback: "
"""The start of a helper's fallback line; the rest of the line says what failed and how."""
CONTEXT_BYTES = 2000
"""Stderr kept before (and with) the first marker line: the traceback that explains it."""
_HEAD = 500
"""Bytes kept of an unfinished line: the start of a marker line and its message, no more."""


@dataclass
class Sighting:
    """The first marker line of a match, and how many there were."""

    decision: int
    """Decision number at which the arena read the first marker line."""
    round: int
    """Round number then."""
    message: str
    """The first marker line without the marker: what failed, e.g. ``act: KeyError: 'hel'; sent legal index 0``."""
    context: str
    """The end of the stderr up to and including the first marker line (at most :data:`CONTEXT_BYTES`)."""
    count: int = 1
    """Marker lines read in the match."""


class MarkerScan:
    """Counts marker lines in one seat's stderr of one match, taken in piece by piece."""

    def __init__(self) -> None:
        self.sighting: Sighting | None = None
        self._open = bytearray()  # the unfinished last line (its head only)
        self._recent = bytearray()  # the last CONTEXT_BYTES of finished lines, until the first marker

    def add(self, decision: int, round_no: int, lost: int, data: bytes) -> None:
        """Take in ``data``, read at ``decision`` in round ``round_no``, after ``lost`` bytes the arena
        no longer held (a line cut by them is not whole, so it does not count)."""
        if lost:
            self._open.clear()
            self._recent.clear()
            data = data[data.find(b"\n") + 1:] if b"\n" in data else b""
            if not data:
                return
        if b"\n" not in data:
            if len(self._open) < _HEAD:
                self._open += data[:_HEAD - len(self._open)]
            return
        lines = data.split(b"\n")
        lines[0] = bytes(self._open) + lines[0][:_HEAD]
        self._open = bytearray(lines.pop()[:_HEAD])
        marked = [i for i, line in enumerate(lines) if line.startswith(MARKER)]
        if self.sighting is not None:
            self.sighting.count += len(marked)
            return
        first = marked[0] if marked else len(lines) - 1
        self._recent += b"\n".join(lines[:first + 1]) + b"\n"
        del self._recent[:-CONTEXT_BYTES]
        if marked:
            message = lines[first][len(MARKER):_HEAD].decode("utf-8", "replace").strip()
            self.sighting = Sighting(decision, round_no, message, self._recent.decode("utf-8", "replace"),
                                     count=len(marked))
            self._recent = bytearray()
