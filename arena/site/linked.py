"""Files of a report that a rebuild links from the report it replaces instead of writing them again.

A file is a pure function of what it is made from (its key); :class:`LinkedFiles`, kept between
builds by ``arena serve`` (with its :class:`.data.RowCache`), remembers the key of each file it
wrote or linked and which file that was (device, inode, size, modification time). When the key is
the same and the report being replaced still holds that very file (no other build wrote it since),
the file is hard-linked into the new report (copied where links are refused): the same bytes a
first build writes, without making them.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any


def link_if_same(old: Path, new: Path, stamped: tuple[int, ...]) -> bool:
    """Link ``old`` to ``new`` (or copy it where a link cannot be made) if it is still the file :func:`stamp`
    gave ``stamped``; False if it is not, or is gone."""
    try:
        if stamp(old) != stamped:
            return False
        os.link(old, new)
    except OSError:
        try:
            shutil.copyfile(old, new)
        except OSError:
            return False
    return True


def stamp(path: Path) -> tuple[int, ...]:
    """What tells a file from any other written since: device, inode, size and modification time (not the
    change time, which linking it into the next build and removing the old build change)."""
    info = path.stat()
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


class Same:
    """Part of a key compared by identity: a row or an entry that a row cache hands out again as the same
    object while it did not change (held here, so that its identity is not another object's later)."""

    __slots__ = ("obj",)

    def __init__(self, obj: Any) -> None:
        self.obj = obj

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Same) and other.obj is self.obj

    def __hash__(self) -> int:
        return id(self.obj)


class LinkedFiles:
    """The files one build wrote, by path relative to the report, with their keys (see the module's docstring)."""

    def __init__(self) -> None:
        self.written: dict[str, tuple[Any, tuple[int, ...]]] = {}
        self.now: dict[str, tuple[Any, tuple[int, ...]]] = {}

    def begin(self) -> None:
        """A build begins: nothing of it written yet."""
        self.now = {}

    def link(self, relative: str, key: Any, target: Path, reuse: Path | None) -> bool:
        """Link ``reuse / relative`` to ``target / relative`` if the earlier build wrote it from ``key`` and it is
        still that file; then remember it for the next build (as :meth:`wrote` does)."""
        before = self.written.get(relative)
        if reuse is None or before is None or before[0] != key:
            return False
        if not link_if_same(reuse / relative, target / relative, before[1]):
            return False
        self.wrote(relative, key, target)
        return True

    def wrote(self, relative: str, key: Any, target: Path) -> None:
        """``target / relative`` was written (or linked) from ``key``."""
        self.now[relative] = (key, stamp(target / relative))

    def done(self) -> None:
        """The build is written: what it wrote is what the next one may link (and nothing else)."""
        self.written, self.now = self.now, {}
