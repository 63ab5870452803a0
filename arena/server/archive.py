"""Bot archives for uploads: :func:`pack` on the author's machine, :func:`unpack` on the server.

A stand-in kept small: tar.gz only, members checked for paths leaving the bot, links and
special files, and counted against the ladder's submission limits while decompressing.
The full module (zip too, every hostile case) replaces it.
"""

from __future__ import annotations

import io
import os
import shutil
import tarfile
import tempfile
from pathlib import Path

from ..tournament.ladder.limits import SubmissionLimits
from ..tournament.ladder.snapshot import bot_files, snapshot_path


class ArchiveRefused(Exception):
    """The upload is not a bot archive the server takes; the message says why in one line."""


def pack(directory: Path) -> bytes:
    """A tar.gz of the files a ladder would snapshot of the bot in ``directory`` (``bot/...`` and ``lib/...``),
    deterministic: sorted names, mtime 0, owner 0."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.PAX_FORMAT) as tar:
        for rel in sorted(bot_files(str(directory))):
            path = Path(directory) / rel
            info = tar.gettarinfo(str(path), arcname=snapshot_path(rel))
            info.mtime, info.uid, info.gid, info.uname, info.gname = 0, 0, 0, "", ""
            if info.isreg():
                info.mode = 0o755 if info.mode & 0o100 else 0o644
                with open(path, "rb") as handle:
                    tar.addfile(info, handle)
            else:
                tar.addfile(info)
    return buffer.getvalue()


def unpack(data: bytes, dest: Path, limits: SubmissionLimits) -> None:
    """Write the archive's files to ``dest`` (which must not exist), or refuse it and leave nothing there."""
    if not data.startswith(b"\x1f\x8b"):
        raise ArchiveRefused("not a tar.gz archive; upload the bot's files as a .tar.gz")
    dest = Path(dest)
    tmp = Path(tempfile.mkdtemp(prefix=".unpack-", dir=dest.parent))
    try:
        budget, count = limits.max_mb * 1024 * 1024, 0
        try:
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                for member in tar:
                    count += 1
                    if count > limits.max_files:
                        raise ArchiveRefused(f"the archive holds more than {limits.max_files:,} entries")
                    parts = member.name.split("/")
                    if member.name.startswith("/") or ".." in parts or "\\" in member.name:
                        raise ArchiveRefused(f"the archive holds {member.name}: an entry that leaves the bot's "
                                             "directory; pack the bot's files only")
                    if not (member.isreg() or member.isdir()):
                        raise ArchiveRefused(f"the archive holds {member.name}: not a plain file or folder")
                    target = tmp.joinpath(*[p for p in parts if p not in ("", ".")])
                    if member.isdir():
                        target.mkdir(parents=True, exist_ok=True)
                        continue
                    budget -= member.size
                    if budget < 0:
                        raise ArchiveRefused(f"the archive holds more than {limits.max_mb:,} MB")
                    target.parent.mkdir(parents=True, exist_ok=True)
                    source = tar.extractfile(member)
                    assert source is not None
                    with source, open(target, "xb") as out:
                        shutil.copyfileobj(source, out)
                    os.chmod(target, 0o755 if member.mode & 0o100 else 0o644)
        except (tarfile.TarError, EOFError, OSError, UnicodeError) as exc:
            raise ArchiveRefused(f"a damaged tar.gz archive ({exc})") from None
        tops = list(tmp.iterdir())
        root = tops[0] if len(tops) == 1 and tops[0].is_dir() else tmp
        os.rename(root, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
