"""What a bot's code is: the files of its directory (and the shared ``lib`` beside it).

A resumable tournament must notice when a bot was edited between runs, or old and new
versions end up mixed in one leaderboard. Files are compared by content (sha256), so a
fresh checkout or a ``touch`` changes nothing. What a build writes is not code the
author edits and may differ from build to build (timestamps, build ids): files the
build step created or changed are left out, see :func:`changed_by`.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..sandbox.allowlist import SHARED_LIB  # the folder beside a bot's directory that bots may read

SKIPPED_DIRS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache"})
"""Never part of a bot's code: bytecode caches and version-control metadata."""

ARENA_OUTPUTS = frozenset({"replays", "results"})
"""Folders the arena itself writes into the current directory (``arena play`` replays, tournament
results): skipped at the top of a bot directory, where a bot author running the arena from
inside it would otherwise "change" the bot."""

Stamp = tuple[int, int, int, int]
"""``(inode, size, mtime_ns, ctime_ns)``: changes whenever a file is written or replaced."""


def roots(directory: str) -> list[tuple[str, Path]]:
    """``(prefix, folder)`` pairs whose files make up the bot: its directory, then ``../lib`` if present."""
    base = Path(directory)
    out = [("", base)]
    shared = base.parent / SHARED_LIB
    if shared.is_dir() and shared.resolve() != base.resolve():
        out.append((f"../{SHARED_LIB}/", shared))
    return out


def _walk(directory: str) -> Iterator[tuple[str, str, os.stat_result]]:
    """``(name, path, lstat)`` of every file and symlink, names relative to the bot directory, in sorted order."""
    for prefix, root in roots(directory):
        for folder, dirs, files in os.walk(root):
            rel = os.path.relpath(folder, root)
            dirs[:] = sorted(d for d in dirs if d not in SKIPPED_DIRS and not (rel == "." and d in ARENA_OUTPUTS))
            for file in sorted(files):
                path = os.path.join(folder, file)
                try:
                    info = os.lstat(path)
                except OSError:
                    continue  # vanished while we looked
                yield prefix + (file if rel == "." else f"{rel}/{file}"), path, info


def stamps(directory: str) -> dict[str, Stamp]:
    """A cheap snapshot (no reading) to see what a build step wrote."""
    return {name: (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
            for name, _, info in _walk(directory)}


def changed_by(before: dict[str, Stamp], after: dict[str, Stamp]) -> frozenset[str]:
    """Files present after a step that were new or rewritten by it."""
    return frozenset(name for name, stamp in after.items() if before.get(name) != stamp)


def digests(directory: str, exclude: Iterable[str] = ()) -> dict[str, str]:
    """sha256 of every file of the bot but ``exclude``; a symlink is its target, not what it points to."""
    skip = set(exclude)
    out: dict[str, str] = {}
    for name, path, info in _walk(directory):
        if name in skip:
            continue
        if stat.S_ISLNK(info.st_mode):
            out[name] = "symlink:" + os.readlink(path)
        elif stat.S_ISREG(info.st_mode):
            out[name] = file_digest(path)
    return out


def file_digest(path: str) -> str:
    """SHA-256 of a file's bytes, read in 1 MiB blocks; ``unreadable: <why>`` when it cannot be read."""
    digest = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
    except OSError as exc:
        return f"unreadable: {exc.strerror}"
    return digest.hexdigest()


def difference(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """Plain words for what changed, e.g. ``bot.py changed``, sorted by file name."""
    words = []
    for name in sorted(set(old) | set(new)):
        if name not in new:
            words.append(f"{name} removed")
        elif name not in old:
            words.append(f"{name} added")
        elif old[name] != new[name]:
            words.append(f"{name} changed")
    return words
