"""One seat's log of one match: the end of what its bot wrote on stderr, stamped with decisions.

Authors read a bot's log beside its decisions (``arena replay FILE --seat N``), so each
piece is stamped with the match's decision number at the time the arena took it in
(actions applied so far: the same count as a fault's ``decision``). Pieces are whole
lines where the bot writes whole lines: an unfinished last line waits for its end and
takes the stamp of the moment it ends.

Memory stays bounded whatever the bot writes: at most ``limit`` bytes are held, the
oldest dropped first, and what was dropped is only counted. What is kept is therefore
always the end of the match's stderr, and the count of cut bytes belongs at its start.
"""

from __future__ import annotations

import codecs
from collections import deque


def cut_marker(cut: int) -> str:
    """The line that stands where the start of a log was cut off."""
    return f"[... {cut} bytes cut ...]\n"


class SeatLog:
    """The last ``limit`` bytes of one seat's stderr in one match, as decision-stamped pieces."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        """Most bytes kept (0: keep nothing, count everything as cut)."""
        self.cut = 0
        """Bytes of the match's stderr not kept: the oldest ones."""
        self._pieces: deque[tuple[int, bytes]] = deque()  # (decision, bytes ending in a newline)
        self._open = bytearray()  # an unfinished last line
        self._size = 0  # bytes in _pieces and _open

    @property
    def size(self) -> int:
        """Bytes held now (never more than ``limit`` once a call returns)."""
        return self._size

    def add(self, decision: int, lost: int, data: bytes) -> None:
        """Take in ``data``, read at ``decision``, that came after ``lost`` bytes the arena no longer held.

        Lost bytes came after everything held here, so keeping it would leave a hole in the
        middle: it is dropped, and the log stays one unbroken end of the stream.
        """
        if lost:
            self.cut += self._size + lost
            self._pieces.clear()
            self._open.clear()
            self._size = 0
        if not data:
            return
        self._open += data
        self._size += len(data)
        end = self._open.rfind(b"\n") + 1
        if end:
            self._pieces.append((decision, bytes(self._open[:end])))
            del self._open[:end]
        self._trim()

    def close(self, decision: int) -> None:
        """The match is over: an unfinished last line becomes a piece of its own, read at ``decision``."""
        if self._open:
            self._pieces.append((decision, bytes(self._open)))
            self._open.clear()

    def _trim(self) -> None:
        """Drop the oldest bytes until at most ``limit`` are held."""
        excess = self._size - self.limit
        while excess > 0 and self._pieces:
            stamp, piece = self._pieces[0]
            if len(piece) <= excess:
                self._pieces.popleft()
                dropped = len(piece)
            else:
                self._pieces[0] = (stamp, piece[excess:])
                dropped = excess
            self.cut += dropped
            self._size -= dropped
            excess -= dropped
        if excess > 0:  # all that is left is one unfinished line
            del self._open[:excess]
            self.cut += excess
            self._size -= excess

    def pieces(self) -> list[tuple[int, str]]:
        """``(decision, text)`` of every piece held (finished ones), decoded leniently.

        One decoder runs over all pieces, so a character split between two reads is not
        garbled.
        """
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        out = [(stamp, decoder.decode(piece)) for stamp, piece in self._pieces]
        tail = decoder.decode(b"", final=True)
        if tail and out:
            out[-1] = (out[-1][0], out[-1][1] + tail)
        return [(stamp, text) for stamp, text in out if text]

    def text(self) -> str:
        """The whole log as stored with the results: the cut marker (if any), then the pieces."""
        if not self.limit:
            return ""
        body = "".join(text for _, text in self.pieces())
        return cut_marker(self.cut) + body if self.cut else body
