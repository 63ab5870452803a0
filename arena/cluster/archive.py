"""A bot version as bytes named by its content: packed once by the driver, unpacked once per worker.

The archive holds the files a ladder snapshot copies (:func:`arena.tournament.ladder.snapshot.bot_files`:
the bot's directory and the shared ``../lib`` beside it, build outputs left out) laid out as a
snapshot is (``bot/`` and ``lib/``), so the bot finds ``../lib`` as it does at home. Its name is
the snapshot digest (:func:`.snapshot.digest_of`): equal names, equal files. A worker unpacks it
under its cache directory into ``<digest>/`` through a temporary directory renamed into place,
so a directory with that name is always complete, and checks every file against the listing.
"""

from __future__ import annotations

import io
import os
import shutil
import stat
import tarfile
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

from ..bots import files
from ..tournament.ladder.snapshot import BOT_SUBDIR, digest_of, snapshot_path


class ArchiveError(ValueError):
    """An archive that does not hold what its name says, or a bot that changed while it was packed."""


@dataclass(frozen=True)
class Archive:
    """One bot version: its digest, the sha256 of each file, and the files as a tar."""

    digest: str
    listed: tuple[tuple[str, str], ...]
    """``(name, sha256)`` as :func:`arena.bots.files.digests` names them (``../lib/x`` for the shared lib)."""
    data: bytes = b""
    """An uncompressed tar of the files at their snapshot places."""


def pack(directory: str, exclude: Iterable[str] = ()) -> Archive:
    """The files of the bot in ``directory`` (but ``exclude``: what its build wrote) as an :class:`Archive`."""
    listed = files.digests(directory, exclude)
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for name in sorted(listed):
            path = Path(directory) / name
            info = tar.gettarinfo(str(path), arcname=snapshot_path(name))
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if info.isreg():
                info.mode = 0o755 if os.stat(path).st_mode & stat.S_IXUSR else 0o644
                with open(path, "rb") as f:
                    content = f.read()
                if listed[name] != files.file_digest(str(path)) or len(content) != info.size:
                    raise ArchiveError(f"{path} changed while the bot was being packed; run again")
                tar.addfile(info, io.BytesIO(content))
            elif info.issym():
                tar.addfile(info)
    return Archive(digest_of(listed), tuple(sorted(listed.items())), buffer.getvalue())


def unpack(archive: Archive, cache: str | os.PathLike[str]) -> str:
    """The bot directory of ``archive`` under ``cache`` (unpacked now unless already there)."""
    target = Path(cache) / archive.digest
    if (target / BOT_SUBDIR).is_dir():
        return str(target / BOT_SUBDIR)
    listed = dict(archive.listed)
    if digest_of(listed) != archive.digest:
        raise ArchiveError(f"bot archive {archive.digest[:12]}: its listing does not match its name")
    Path(cache).mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=cache))
    try:
        places = {snapshot_path(name): name for name in listed}
        with tarfile.open(fileobj=io.BytesIO(archive.data), mode="r") as tar:
            members = tar.getmembers()
            if sorted(m.name for m in members) != sorted(places):
                raise ArchiveError(f"bot archive {archive.digest[:12]}: its files do not match its listing")
            _extract(tar, members, tmp, archive.digest[:12])
        for place, name in places.items():
            path = tmp / place
            got = "symlink:" + os.readlink(path) if path.is_symlink() else files.file_digest(str(path))
            if got != listed[name]:
                raise ArchiveError(f"bot archive {archive.digest[:12]}: {name} does not match its digest")
        for folder, _, _ in os.walk(tmp):
            os.chmod(folder, 0o755)  # sandboxed bots may run as another user
        try:
            os.rename(tmp, target)
        except OSError:
            if not (target / BOT_SUBDIR).is_dir():  # else another process of this worker unpacked it first
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return str(target / BOT_SUBDIR)


def _extract(tar: tarfile.TarFile, members: list[tarfile.TarInfo], into: Path, name: str) -> None:
    """Write the archive's files and symlinks under ``into``, refusing anything else and any path that
    leaves ``into`` or passes through one of its symlinks. Done here rather than with ``extractall(filter=)``,
    which Python 3.11 has only from 3.11.4 on."""
    links = {m.name for m in members if m.issym()}
    for member in members:
        parts = Path(member.name).parts
        if not (member.isreg() or member.issym()):
            raise ArchiveError(f"bot archive {name}: {member.name} is not a file")
        if not parts or member.name.startswith("/") or ".." in parts or \
                any(str(Path(*parts[:n])) in links for n in range(1, len(parts))):
            raise ArchiveError(f"bot archive {name}: {member.name} would land outside the bot")
        target = into.joinpath(*parts)
        target.parent.mkdir(parents=True, exist_ok=True)
        if member.issym():
            os.symlink(member.linkname, target)
            continue
        source = tar.extractfile(member)
        assert source is not None  # a regular file
        with source, open(target, "xb") as out:
            shutil.copyfileobj(source, out)
        os.chmod(target, 0o755 if member.mode & stat.S_IXUSR else 0o644)
