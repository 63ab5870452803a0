"""``arena prune``: give back the disk of versions that no longer play, and keep everything else.

A ladder keeps a snapshot of every version ever submitted (:mod:`.snapshot`), so authors
who resubmit every day fill the disk. A version that is ``replaced`` or ``retired`` never
plays again (statuses only ever move away from ``active``), so its files can go; its entry,
matches, ratings, replays and logs are in ``results.sqlite`` and ``replays/`` and stay.

Three things make it safe:

- **A running ``arena run``.** It reads the field before every table and queues whole
  tables ahead, so a version replaced a moment ago may still be queued or playing. A
  version whose files the running run may still start is kept: one that left the field
  after the run started (with :data:`MARGIN` to spare), or at an unknown time. Without a
  run, every version out of the field goes. ``arena prune`` after the run stops gets the rest.
- **A kill.** Each version is first marked reclaimed in the store (one transaction), then
  its snapshot folder is renamed to ``.reclaim-<digest>`` and removed. A killed prune
  leaves a marked version whose folder is still there, or a ``.reclaim-`` folder: the
  next prune finishes both. Nothing reads a version's files once it left the field, so a
  half-removed folder breaks nothing in between.
- **Idempotence.** A second prune finds nothing to do and says so.
- **A comeback.** A retired bot (or an old version) submitted again is a new version with the
  same digest, so the same snapshot folder: a folder that an active version uses is never
  removed, whichever version out of the field it was first made for.
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path

from ..store.ladder import RECLAIMED as RECLAIMED
from ..store.ladder import LadderStore
from .entries import ACTIVE, REPLACED, Entry, entries, left_at
from .lock import started
from .snapshot import BOT_SUBDIR, BOTS_DIR

MARGIN = 60.0
"""Seconds before a run's start that a version must have left the field by for it to be removed while
that run goes: a submission's time is taken just before its transaction commits."""
TRASH = ".reclaim-"
"""Prefix of a snapshot folder being removed."""


@dataclass
class Pruned:
    """What :func:`prune` did."""

    removed: list[tuple[str, int]] = field(default_factory=list)
    """``(NAME@vK, bytes)`` of every version whose snapshot was removed now."""
    kept: list[tuple[str, str]] = field(default_factory=list)
    """``(NAME@vK, why)`` of versions out of the field whose snapshot stays for now."""

    @property
    def freed(self) -> int:
        return sum(size for _, size in self.removed)


def reclaimed(ladder: LadderStore) -> dict[str, dict[str, float]]:
    """The versions whose snapshots were removed, by player key."""
    return ladder.reclaimed()


def prune(ladder: LadderStore, output: Path) -> Pruned:
    """Remove the snapshot of every version of the ladder in ``output`` that no longer plays (module docstring)."""
    output = Path(output)
    run_start = started(output)
    left = left_at(ladder)
    done = Pruned()
    field_ = entries(ladder)
    playing = {(e.name, e.digest): e for e in field_ if e.status == ACTIVE}
    for entry in field_:
        if entry.status == ACTIVE:
            continue
        folder = _snapshot_folder(output, entry)
        if folder is None:
            done.kept.append((entry.key, f"its files are not a snapshot of this ladder ({entry.path}); left alone"))
            continue
        user = playing.get((entry.name, entry.digest))
        if user is not None:  # the same files came back as a new version: the folder is that one's now
            if entry.key not in reclaimed(ladder):
                done.kept.append((entry.key, f"its files are those of {user.key}, which plays"))
            continue
        if entry.key in reclaimed(ladder):
            if folder.exists():  # a killed prune marked it and did not finish
                done.removed.append((entry.key, _size(folder)))
                _remove(folder)
            continue
        why = _busy(entry, field_, left, run_start)
        if why is not None:
            done.kept.append((entry.key, why))
            continue
        size = _size(folder)
        _mark(ladder, entry.key, size)
        done.removed.append((entry.key, size))
        _remove(folder)
    for trash in sorted((output / BOTS_DIR).glob(f"*/{TRASH}*")):
        _remove(trash)  # left by a killed prune, already marked
    return done


def _snapshot_folder(output: Path, entry: Entry) -> Path | None:
    """``<output>/bots/<NAME>/<digest>``, if that is where the entry's files are (never anything else)."""
    path = Path(entry.path)
    folder = output.resolve() / BOTS_DIR / entry.name / entry.digest
    return folder if path.name == BOT_SUBDIR and path.parent.resolve() == folder else None


def _busy(entry: Entry, field_: list[Entry], left: dict[str, float], run_start: float | None) -> str | None:
    """Why a running ``arena run`` may still start this version (None: it cannot)."""
    if run_start is None:
        return None
    when = left.get(entry.key)
    if when is None:  # left before the time was kept: a replaced one by its name's newest version at the latest
        newer = [e.submitted_at for e in field_ if e.name == entry.name and e.version > entry.version]
        when = max(newer) if newer and entry.status == REPLACED else None
    if when is not None and when < run_start - MARGIN:
        return None
    since = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(run_start)) if run_start else "an unknown time"
    return (f"{entry.status} while the arena run going since {since} may still have its tables queued; "
            "prune again after that run stops")


def _size(folder: Path) -> int:
    """Bytes of disk the folder's files and folders take (allocated blocks, as ``du``)."""
    total = 0
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _mark(ladder: LadderStore, key: str, size: int) -> None:
    """Record in the store that ``key``'s snapshot is being removed, before a byte of it is."""
    ladder.mark_reclaimed(key, size, time.time())


def _remove(folder: Path) -> None:
    """Rename the folder out of the way (one step), then delete it; a gone folder is fine."""
    trash = folder if folder.name.startswith(TRASH) else folder.with_name(TRASH + folder.name)
    if trash != folder:
        try:
            os.rename(folder, trash)
        except FileNotFoundError:
            if not trash.exists():
                return
    for root, dirs, _ in os.walk(trash):  # snapshots are read-only to others but ours to delete
        for name in dirs:
            try:
                os.chmod(os.path.join(root, name), 0o755)
            except OSError:
                pass
    shutil.rmtree(trash, ignore_errors=True)


def size_text(size: int) -> str:
    """``1.4 MB`` (MiB), ``620 KB``: how much was freed, in words."""
    if size >= 1024 * 1024:
        return f"{size / (1024 * 1024):,.1f} MB"
    return f"{size / 1024:,.0f} KB"
