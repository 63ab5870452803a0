"""A build runs in a private copy of the bot's files; what it made is copied back, and nothing else.

Under a sandbox, a manifest's ``build`` command is the bot author's code running before
any match. It gets a fresh copy of the bot directory (and of the shared ``lib`` beside
it), owned by the sandbox's uid and bound read-write at the original paths, so that
absolute paths a build records (bytecode, ``#!`` lines) stay true. Afterwards the arena
copies back into the bot directory only regular files the build created or changed, and
the folders holding them: no symlink, device, pipe or socket leaves the copy, nothing is
written through a symlink of the bot directory, the modes are plain (``0644``/``0755``,
no set-uid), and the whole is bounded by :data:`MAX_OUTPUT_BYTES`. Files the build
deleted stay in the bot directory.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
from collections.abc import Iterator

from ..sandbox import orphans
from .files import ARENA_OUTPUTS, roots

MAX_OUTPUT_BYTES = 512 * 1024 * 1024
"""Most bytes of files a build may leave in the bot directory."""

_VCS = frozenset({".git", ".hg", ".svn"})
"""Never copied back (a build has no business rewriting version control)."""
_CHUNK = 1 << 20


class OutputTooLarge(Exception):
    """The build wrote more than :data:`MAX_OUTPUT_BYTES`; the message says how much."""


Stamp = tuple[int, int, int, int]


def make(directory: str, uid: int | None) -> tuple[str, list[tuple[str, str]]]:
    """A private holder folder and ``(copy, original)`` pairs for the bot directory and its ``../lib``;
    with ``uid``, the copies belong to that uid (the holder stays the arena's, private)."""
    holder = tempfile.mkdtemp(prefix=orphans.workdir_prefix())
    pairs = []
    try:
        for prefix, root in roots(directory):
            copy = os.path.join(holder, "lib" if prefix else "bot")
            _copy_tree(str(root), copy)
            if uid is not None:
                chown_tree(copy, uid, uid)
            pairs.append((copy, os.path.realpath(root)))
    except BaseException:
        shutil.rmtree(holder, ignore_errors=True)
        raise
    return holder, pairs


def stamps(pairs: list[tuple[str, str]]) -> dict[str, Stamp]:
    """``(copy index, relative name)`` of every file in the copies, as a cheap stamp (no reading)."""
    out: dict[str, Stamp] = {}
    for index, (copy, _) in enumerate(pairs):
        for name, info in _walk(copy):
            out[f"{index}/{name}"] = (info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    return out


def copy_back(pairs: list[tuple[str, str]], before: dict[str, Stamp]) -> list[str]:
    """Copy the regular files the build created or changed to the originals; lines for the log about
    what was left behind. Raises :class:`OutputTooLarge` before writing anything if they are too big."""
    after = stamps(pairs)
    changed = sorted(name for name, stamp in after.items() if before.get(name) != stamp)
    notes: list[str] = []
    files: list[tuple[str, str, str]] = []
    total = 0
    for key in changed:
        index, _, name = key.partition("/")
        copy, original = pairs[int(index)]
        source = os.path.join(copy, name)
        info = os.lstat(source)
        if not stat.S_ISREG(info.st_mode):
            notes.append(f"not copied back: {name} (not a regular file)")
            continue
        total += info.st_size
        files.append((source, original, name))
    if total > MAX_OUTPUT_BYTES:
        raise OutputTooLarge(f"it wrote {total / 1048576:.0f} MiB of files, more than the "
                             f"{MAX_OUTPUT_BYTES // 1048576} MiB a build may leave in the bot directory")
    for source, original, name in files:
        if not _put(source, original, name):
            notes.append(f"not copied back: {name} (a folder on its way in the bot directory is not a folder)")
    return notes


def chown_tree(path: str, uid: int, gid: int) -> None:
    """``lchown`` a folder and everything in it, never following a symlink."""
    os.lchown(path, uid, gid)
    for folder, dirs, files in os.walk(path):
        for name in (*dirs, *files):
            os.lchown(os.path.join(folder, name), uid, gid)


def _copy_tree(source: str, target: str) -> None:
    """Folders, regular files (times kept, so that ``make`` sees what is up to date) and symlinks (as
    links); pipes, sockets and devices are left out, as are the arena's outputs at the top."""
    os.mkdir(target, 0o755)
    for folder, dirs, files in os.walk(source):
        rel = os.path.relpath(folder, source)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in ARENA_OUTPUTS]
        into = os.path.normpath(os.path.join(target, rel))
        for name in list(dirs):
            path = os.path.join(folder, name)
            if os.path.islink(path):
                os.symlink(os.readlink(path), os.path.join(into, name))
                dirs.remove(name)
            else:
                os.mkdir(os.path.join(into, name), 0o755)
        for name in files:
            path = os.path.join(folder, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                os.symlink(os.readlink(path), os.path.join(into, name))
            elif stat.S_ISREG(info.st_mode):
                shutil.copy2(path, os.path.join(into, name), follow_symlinks=False)


def _walk(root: str) -> Iterator[tuple[str, os.stat_result]]:
    """``(relative name, lstat)`` of every file and symlink under ``root`` but version control."""
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if d not in _VCS)
        rel = os.path.relpath(folder, root)
        for name in sorted(files):
            try:
                yield (name if rel == "." else f"{rel}/{name}"), os.lstat(os.path.join(folder, name))
            except OSError:
                continue


def _put(source: str, original: str, name: str) -> bool:
    """Write ``source`` to ``original/name`` by a new file renamed into place; False where a folder on the
    way is not a real folder (a symlink would lead the write out of the bot directory)."""
    parts = name.split("/")
    where = original
    for part in parts[:-1]:
        where = os.path.join(where, part)
        try:
            info = os.lstat(where)
        except FileNotFoundError:
            os.mkdir(where, 0o755)
            continue
        if not stat.S_ISDIR(info.st_mode):
            return False
    target = os.path.join(where, parts[-1])
    if os.path.isdir(target) and not os.path.islink(target):
        return False
    fd_out, temp = tempfile.mkstemp(prefix=".build-", dir=where)
    try:
        with open(source, "rb", opener=lambda path, flags: os.open(path, flags | os.O_NOFOLLOW)) as src, \
                os.fdopen(fd_out, "wb") as dst:
            shutil.copyfileobj(src, dst, _CHUNK)
            info = os.fstat(src.fileno())
            os.fchmod(dst.fileno(), 0o755 if info.st_mode & 0o100 else 0o644)
            dst.flush()
            os.utime(dst.fileno(), ns=(info.st_atime_ns, info.st_mtime_ns))
        os.replace(temp, target)
    except BaseException:
        if os.path.exists(temp):
            os.unlink(temp)
        raise
    return True
