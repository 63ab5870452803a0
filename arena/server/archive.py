"""Uploaded bots as archives: unpacked so that nothing an upload holds reaches past its own directory.

Anyone holding a token can upload, so an archive's bytes are hostile until read: names may
climb out (``../x``, ``/etc/x``, ``C:\\x``), links may point anywhere, a few kilobytes may
inflate to gigabytes, and ``tarfile`` and ``zipfile`` extract much of that as they find it
(``extractall(filter=)`` exists in Python 3.11 only from 3.11.4 on, and covers tar only). So
an archive is read here as a stream, entry by entry: each name is checked before anything is
written, bytes are counted while they are decompressed (a bomb stops at the ladder's
``submission.max_mb``, never fills memory or disk), every file is created new
(``O_EXCL | O_NOFOLLOW``) with a mode chosen here, and links are made only at the end, once
every file is written and every link is known to point inside, so no write ever goes through
a link. It all happens in a temporary directory beside the destination, renamed into place at
the end: a refused or interrupted upload leaves nothing at the destination.

:func:`pack` is the other side, for ``arena submit --server``: the files a ladder would snapshot
of the bot (:func:`arena.tournament.ladder.snapshot.bot_files`), laid out as a snapshot is
(``bot/`` and the shared ``lib/`` beside it), so that :func:`unpack` gives back a directory with
the same digest.
"""

from __future__ import annotations

import errno
import gzip
import io
import lzma
import os
import re
import shutil
import stat
import struct
import tarfile
import tempfile
import zipfile
import zlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from ..bots import files
from ..bots.links import MAX_LINK_HOPS, resolve_link
from ..sandbox.allowlist import SHARED_LIB
from ..tournament.ladder.limits import SubmissionLimits
from ..tournament.ladder.snapshot import BOT_SUBDIR, bot_files, outside_link, snapshot_path

MIB = 1 << 20
MAX_DEPTH = 64
"""Deepest folder nesting an upload may hold."""
MAX_RATIO = 200
"""Largest compression ratio of a zip member of more than :data:`RATIO_FROM` bytes: past it, a bomb."""
RATIO_FROM = MIB
"""Members smaller than this may compress as well as they like."""
MAX_HEADER = 64 * 1024
"""Largest tar PAX or GNU long-name header: tarfile reads one whole into memory."""
MAX_NAME = 255
"""Longest file or folder name, in bytes (Linux's limit)."""
MAC_METADATA = "__MACOSX"
"""The top folder in which macOS's Finder adds resource forks to a zip it makes: skipped, never the bot's."""
HINT = "send a zip or a tar.gz of the bot's directory (arena submit --server packs one)"

_DRIVE = re.compile(r"^[A-Za-z]:")
_MAGIC = ((b"\x89PNG", "a PNG image"), (b"\xff\xd8\xff", "a JPEG image"), (b"GIF8", "a GIF image"),
          (b"%PDF", "a PDF document"), (b"BZh", "bzip2 data"), (b"\xfd7zXZ\x00", "xz data"),
          (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"), (b"Rar!", "a RAR archive"),
          (b"\x28\xb5\x2f\xfd", "zstd data"), (b"\x7fELF", "an executable"))
_FILE, _DIR, _IMPLIED, _LINK = "file", "folder", "implied folder", "link"


class ArchiveRefused(Exception):
    """An upload that is not a safe archive of a bot; the message is one line: what is wrong, what would be right."""


class ArchiveTooLarge(ArchiveRefused):
    """Refused for passing the ladder's ``submission`` limits (``max_mb``, ``max_files``): the server answers 413."""


class _TooLong(Exception):
    """The decompressed stream passed its cap (raised below tarfile, named by the entry being read)."""


TMP_INFIX = ".tmp-"
"""In the name of the temporary directory :func:`unpack` writes beside ``dest``: ``.<dest's name>.tmp-<random>``."""


def unpack(data: bytes, dest: Path, limits: SubmissionLimits) -> Path:
    """Unpack the archive ``data`` (zip, tar.gz or tar, told by its first bytes) into the new directory ``dest``.

    On success ``dest`` holds the bot's files (if every entry sits under one top folder, that
    folder's content) and the bot's directory is returned: ``dest`` itself, or ``dest/bot`` when
    the archive is laid out as :func:`pack` lays out a bot that shares a ``lib`` (``bot/`` holding
    ``bot.yaml``, and ``lib/``, which then sits beside it as ``../lib``). Since a bot's files include
    a ``lib`` folder beside its directory, ``dest``'s parent should hold no ``lib``. Raises
    :class:`ArchiveRefused`, leaving nothing at ``dest``, for anything unsafe or past ``limits``.
    """
    dest = Path(dest)
    if os.path.lexists(dest):
        raise FileExistsError(f"{dest} exists; unpack writes a new directory")
    kind = _kind(data)
    tmp = Path(tempfile.mkdtemp(prefix=f".{dest.name}{TMP_INFIX}", dir=dest.parent))
    try:
        tree = _Tree(tmp / "u", limits)
        os.mkdir(tree.root, 0o700)
        if kind == "zip":
            _read_zip(data, tree)
        else:
            _read_tar(data, kind == "gzip", tree)
        try:
            top, bot = tree.finish()
        except OSError as exc:
            raise ArchiveRefused(f"could not make the archive's links: {exc.strerror}; pack the bot again") from None
        for folder, _, _ in os.walk(top):  # never follows links
            os.chmod(folder, 0o755)  # sandboxed bots may run as another user
        if os.path.lexists(dest):
            raise FileExistsError(f"{dest} appeared while the upload was unpacked")
        os.rename(top, dest)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return dest / bot if bot else dest


def remove_leftovers(folder: Path) -> list[Path]:
    """Remove what :func:`unpack` calls killed mid-way left in ``folder`` (their temporary directories, never a
    ``dest``), and say which. Call it when no unpack into ``folder`` is running, e.g. as the server starts."""
    removed = []
    for path in sorted(Path(folder).glob(f".*{TMP_INFIX}*")):
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def pack(directory: Path) -> bytes:
    """The bot in ``directory`` as a tar.gz for :func:`unpack`: the files a ladder snapshot copies, the same bytes
    for the same files (sorted, mtime 0, owner 0, modes 0644/0755). Raises :class:`ArchiveRefused` for a link
    that leads out of the bot (the server would refuse it) or a file that changes or cannot be read meanwhile."""
    listed = bot_files(str(directory))
    leaving = outside_link(directory, listed)
    if leaving is not None:
        raise ArchiveRefused(leaving)
    links = {snapshot_path(name): digest.removeprefix("symlink:") for name, digest in listed.items()
             if digest.startswith("symlink:")}
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=6) as zipped:
        with tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            for name in sorted(listed):
                path = Path(directory) / name
                info = tarfile.TarInfo(snapshot_path(name))
                info.mtime = 0
                if snapshot_path(name) in links:
                    info.type, info.linkname, info.mode = tarfile.SYMTYPE, links[snapshot_path(name)], 0o777
                    tar.addfile(info)
                    continue
                try:
                    content = path.read_bytes()
                    executable = os.stat(path).st_mode & stat.S_IXUSR
                except OSError as exc:
                    raise ArchiveRefused(f"could not read {path}: {exc.strerror}; make it readable and pack again") \
                        from None
                if files.file_digest(str(path)) != listed[name]:
                    raise ArchiveRefused(f"{path} changed while the bot was being packed; pack again")
                info.size, info.mode = len(content), 0o755 if executable else 0o644
                tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def _kind(data: bytes) -> str:
    """``zip``, ``gzip`` or ``tar``, by the first bytes, whatever the upload's name or content type."""
    if not data:
        raise ArchiveRefused(f"the upload is empty; {HINT}")
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if data[:2] == b"\x1f\x8b":
        return "gzip"
    if data[257:262] == b"ustar":
        return "tar"
    seen = next((f" (it is {what})" for magic, what in _MAGIC if data.startswith(magic)), "")
    raise ArchiveRefused(f"the upload is not a zip or tar.gz archive{seen}; {HINT}")


def _shown(name: str) -> str:
    """``name`` printable on one line: bytes that are not UTF-8 and control characters escaped, cut at 200."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    text = "".join(c if c.isprintable() else repr(c)[1:-1] for c in text)
    return text if len(text) <= 200 else text[:200] + "..."


def _refuse(name: str, problem: str, remedy: str, kind: type[ArchiveRefused] = ArchiveRefused) -> ArchiveRefused:
    return kind(f"the archive holds {_shown(name)}: {problem}; {remedy}")


def _unwritable(raw: str, exc: OSError) -> ArchiveRefused:
    """Writing entry ``raw`` failed: a path too long for the system, or the server's own trouble (a full disk)."""
    if exc.errno is None:  # not the system's: bz2 reports bad data as an OSError without one
        return ArchiveRefused(f"the archive is damaged at {_shown(raw)} ({exc}); pack it again")
    if exc.errno == errno.ENAMETOOLONG:
        return _refuse(raw, "a path longer than this system takes", "shorten the bot's folder and file names")
    return ArchiveRefused(f"could not unpack {_shown(raw)}: {exc.strerror}; try again later, or tell the organiser")


def _place(raw: str) -> str | None:
    """Where entry ``raw`` goes, relative to the unpacked directory (``\\`` read as ``/``), or None for the top
    itself (``./``); refuses a name that is not UTF-8, holds a control character, or would leave."""
    try:
        raw.encode("utf-8")
    except UnicodeEncodeError:
        raise _refuse(raw, "a name that is not valid UTF-8", "name the bot's files in UTF-8") from None
    if any(ord(c) < 32 or ord(c) == 127 for c in raw):
        raise _refuse(raw, "a name with a control character", "rename the file")
    name = raw.replace("\\", "/")
    if name.startswith("/"):
        raise _refuse(raw, "an absolute path", "pack paths relative to the bot's directory")
    if _DRIVE.match(name):
        raise _refuse(raw, "a path on a drive", "pack paths relative to the bot's directory")
    parts = [part for part in name.split("/") if part not in ("", ".")]
    if ".." in parts:
        raise _refuse(raw, "an entry that leaves the bot's directory", "pack the bot's files only")
    if len(parts) > MAX_DEPTH:
        raise _refuse(raw, f"folders nested more than {MAX_DEPTH} deep", "flatten the bot's folders")
    if any(len(part.encode()) > MAX_NAME for part in parts):
        raise _refuse(raw, f"a name longer than {MAX_NAME} bytes", "shorten it")
    return "/".join(parts) or None




@dataclass
class _Tree:
    """What has been unpacked so far under ``root``, by relative path: kinds, link targets, names as archived."""

    root: Path
    limits: SubmissionLimits
    kinds: dict[str, str] = field(default_factory=dict)
    links: dict[str, str] = field(default_factory=dict)
    raws: dict[str, str] = field(default_factory=dict)
    size: int = 0
    """Bytes of files written."""

    @property
    def budget(self) -> int:
        return self.limits.max_mb * MIB

    def too_large(self, raw: str) -> ArchiveRefused:
        most = f"{self.limits.max_mb:,} MB"
        return _refuse(raw, f"more than {most} once unpacked, counting the files before it",
                       f"this ladder takes at most {most} of files (submission.max_mb)", ArchiveTooLarge)

    def _new(self, raw: str, place: str, kind: str) -> None:
        """Record ``place``, making the folders above it; refuses a duplicate, or a place under a file or link."""
        parts = place.split("/")
        for n in range(1, len(parts)):
            above = "/".join(parts[:n])
            held = self.kinds.get(above)
            if held is None:
                os.mkdir(self.root / above, 0o700)
                self._count(raw, above, _IMPLIED)
            elif held in (_FILE, _LINK):
                raise _refuse(raw, f"an entry inside {_shown(self.raws[above])}, which is a {held}",
                              "a bot's files sit in real folders")
        held = self.kinds.get(place)
        if held == _IMPLIED and kind == _DIR:
            self.kinds[place] = _DIR
        elif held is not None:
            raise _refuse(raw, "a second entry of that name", "pack each file once")
        else:
            self._count(raw, place, kind)

    def _count(self, raw: str, place: str, kind: str) -> None:
        self.kinds[place], self.raws[place] = kind, raw
        if len(self.kinds) > self.limits.max_files + 1:  # + the top folder, if there is one
            most = f"{self.limits.max_files:,}"
            raise _refuse(raw, f"more than {most} files and folders up to it",
                          f"this ladder takes at most {most} (submission.max_files)", ArchiveTooLarge)

    def folder(self, raw: str) -> None:
        place = _place(raw)
        if place is not None:
            self._new(raw, place, _DIR)
            os.makedirs(self.root / place, 0o700, exist_ok=True)

    def file(self, raw: str, source: IO[bytes] | None, executable: bool) -> None:
        place = _place(raw)
        if place is None:
            raise _refuse(raw, "a file with no name", "pack the bot's files only")
        self._new(raw, place, _FILE)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        with os.fdopen(os.open(self.root / place, flags, 0o600), "wb") as out:
            while source is not None and (chunk := source.read(MIB)):
                self.size += len(chunk)
                if self.size > self.budget:
                    raise self.too_large(raw)
                out.write(chunk)
            os.fchmod(out.fileno(), 0o755 if executable else 0o644)  # never setuid, setgid or sticky

    def symlink(self, raw: str, target: str) -> None:
        """Record a symbolic link; made by :meth:`finish` once its target is known to stay inside."""
        place = _place(raw)
        if place is None:
            raise _refuse(raw, "a link with no name", "pack the bot's files only")
        try:
            target.encode("utf-8")
        except UnicodeEncodeError:
            raise _refuse(raw, "a link whose target is not valid UTF-8", "name the bot's files in UTF-8") from None
        if len(target.encode()) > 4095:
            raise _refuse(raw, "a link whose target is longer than 4,095 bytes", "shorten it")
        if not target or "\\" in target or any(ord(c) < 32 for c in target):
            raise _refuse(raw, f"a link to {_shown(target)!r}", "links name a file of the bot with / between folders")
        if target.startswith("/") or _DRIVE.match(target):
            raise _refuse(raw, f"a link to {_shown(target)}, outside the bot's directory",
                          "links may point only inside it")
        self._new(raw, place, _LINK)
        self.links[place] = target

    def hardlink(self, raw: str, target: str, executable: bool) -> None:
        """A hard link is unpacked as a copy of the file it names, which must come before it in the archive."""
        try:
            named = _place(target)
        except ArchiveRefused:
            named = None
        if named is None or self.kinds.get(named) != _FILE:
            where = "outside the bot's directory" if named is None else "not a file the archive holds before it"
            raise _refuse(raw, f"a hard link to {_shown(target)}, {where}", "links may point only inside it")
        with open(self.root / named, "rb") as source:
            self.file(raw, source, executable)

    def finish(self) -> tuple[Path, str]:
        """Make the links, and say which folder holds the bot's files and where the bot's directory is in it."""
        tops = {place.split("/")[0] for place in self.kinds}
        top = next(iter(tops)) if len(tops) == 1 and self.kinds[next(iter(tops))] in (_DIR, _IMPLIED) else ""
        if not self.kinds or (top and len(self.kinds) == 1):
            raise ArchiveRefused(f"the archive holds no files; {HINT}")
        cut = len(top) + 1 if top else 0
        kinds = {place[cut:]: kind for place, kind in self.kinds.items() if place != top}
        links = {place[cut:]: target for place, target in self.links.items()}
        bot = ""
        if kinds.get("bot.yaml") != _FILE and kinds.get(f"{BOT_SUBDIR}/bot.yaml") == _FILE and \
                {p.split("/")[0] for p in kinds} == {BOT_SUBDIR, SHARED_LIB} and kinds[SHARED_LIB] != _LINK:
            bot = BOT_SUBDIR  # pack's layout of a bot that shares a lib: bot/ and lib/ beside it
        counted = len(kinds) - (2 if bot else 0)
        if counted > self.limits.max_files:
            most = f"{self.limits.max_files:,}"
            raise ArchiveTooLarge(f"the archive holds more than {most} files and folders ({counted:,}); "
                                 f"this ladder takes at most {most} (submission.max_files)")
        home = self.root / top if top else self.root
        for place, target in sorted(links.items()):
            why = resolve_link(place, target, links)
            if why is not None:
                raw = self.raws[top + "/" + place if top else place]
                problem = "outside the bot's directory" if why == "leaves" else "that loops through links"
                raise _refuse(raw, f"a link to {_shown(target)}, {problem}", "links may point only inside it")
            os.symlink(target, home / place)
        real = os.path.realpath(home)
        for place, target in links.items():  # the same, as the kernel sees it now
            if os.path.commonpath([real, os.path.realpath(home / place)]) != real:
                raise _refuse(place, f"a link to {_shown(target)}, outside the bot's directory",
                              "links may point only inside it")
        return home, bot


class _Plain:
    """An uncompressed tar's bytes, read in pieces and counted up to ``cap``."""

    def __init__(self, data: bytes, cap: int) -> None:
        self._data, self._pos, self._cap = memoryview(data), 0, cap

    def read(self, size: int = -1) -> bytes:
        size = MIB if size is None or size < 0 else size
        out = bytes(self._data[self._pos:self._pos + size])
        self._pos += len(out)
        if self._pos > self._cap:
            raise _TooLong()
        return out


class _Inflate:
    """A gzip stream's decompressed bytes (one or more members), made a bounded piece at a time and counted
    up to ``cap``: a small input that inflates to gigabytes stops at the cap, with never more than a
    piece of it in memory. Bytes after the last member that are not another member are ignored, as gzip does."""

    PIECE = 1 << 16

    def __init__(self, data: bytes, cap: int) -> None:
        self._data, self._pos, self._cap, self.total = memoryview(data), 0, cap, 0
        self._z: zlib._Decompress | None = zlib.decompressobj(31)
        self._pending = b""

    def read(self, size: int = -1) -> bytes:
        want = MIB if size is None or size < 0 else max(1, min(size, MIB))
        while self._z is not None:
            if not self._pending:
                self._pending = bytes(self._data[self._pos:self._pos + self.PIECE])
                self._pos += len(self._pending)
                if not self._pending:
                    raise EOFError("the gzip stream ends before its end marker")
            out = self._z.decompress(self._pending, want)
            self._pending = self._z.unconsumed_tail
            if self._z.eof:
                end = self._pos - len(self._z.unused_data)
                self._pos, self._pending = end, b""
                self._z = zlib.decompressobj(31) if bytes(self._data[end:end + 2]) == b"\x1f\x8b" else None
            if out:
                self.total += len(out)
                if self.total > self._cap:
                    raise _TooLong()
                return out
        return b""


class _Header(tarfile.TarInfo):
    """A tar header read within bounds: tarfile reads a PAX or GNU long-name header whole into memory and a
    sparse file's map entry by entry, so a large one is refused before it is read."""

    def _proc_member(self, tar: tarfile.TarFile) -> tarfile.TarInfo:
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise _refuse(self.name, "a sparse file", "pack it as a plain file")
        if self.type in (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE, tarfile.GNUTYPE_LONGNAME,
                         tarfile.GNUTYPE_LONGLINK) and self.size > MAX_HEADER:
            raise ArchiveRefused(f"the archive holds a tar header of {self.size:,} bytes; no file name or "
                                 f"attribute needs more than {MAX_HEADER:,}; pack it again with tar or zip")
        return super()._proc_member(tar)  # type: ignore[misc,no-any-return]

    def _proc_gnusparse_00(self, *args: object) -> None:
        raise _refuse(self.name, "a sparse file", "pack it as a plain file")

    _proc_gnusparse_01 = _proc_gnusparse_10 = _proc_gnusparse_00


def _read_tar(data: bytes, gzipped: bool, tree: _Tree) -> None:
    """Unpack a tar (gzipped or not) into ``tree``, as a stream: headers, then each file's bytes."""
    cap = tree.budget + 4096 * (tree.limits.max_files + 2) + MIB  # files, their headers and padding
    stream = _Inflate(data, cap) if gzipped else _Plain(data, cap)
    current = ""
    try:
        with tarfile.open(fileobj=stream, mode="r|", tarinfo=_Header,  # type: ignore[call-overload]
                          encoding="utf-8", errors="surrogateescape") as tar:
            for member in tar:
                current = member.name
                executable = bool(member.mode & stat.S_IXUSR)
                if member.isdir():
                    tree.folder(member.name)
                elif member.issym():
                    tree.symlink(member.name, member.linkname)
                elif member.islnk():
                    tree.hardlink(member.name, member.linkname, executable)
                elif member.isreg():
                    tree.file(member.name, tar.extractfile(member), executable)
                elif member.ischr() or member.isblk():
                    raise _refuse(member.name, "a device file", "a bot's files are plain files, folders and links")
                elif member.isfifo():
                    raise _refuse(member.name, "a FIFO (named pipe)", "a bot's files are plain files, folders and links")
                else:
                    raise _refuse(member.name, f"an entry of tar type {member.type!r}",
                                  "a bot's files are plain files, folders and links")
    except _TooLong:
        raise (tree.too_large(current) if current else
               ArchiveTooLarge(f"the archive's first entry takes it past {tree.limits.max_mb:,} MB once unpacked; "
                              f"this ladder takes at most {tree.limits.max_mb:,} MB of files (submission.max_mb)")) \
            from None
    except (tarfile.TarError, EOFError, zlib.error) as exc:
        if not current:
            what = "gzip file" if gzipped else "tar archive"
            raise ArchiveRefused(f"the {what} does not hold a readable tar archive ({exc}); {HINT}") from None
        raise ArchiveRefused(f"the archive is damaged or cut short after {_shown(current)} ({exc}); "
                             "pack it again") from None
    except OSError as exc:
        raise _unwritable(current, exc) from None


def _zip_name(info: zipfile.ZipInfo) -> str:
    """An entry's name as its bytes say: UTF-8 if flagged, else UTF-8 if they are (as most zip tools write
    today), else left undecodable (``surrogateescape``) for :func:`_place` to refuse."""
    if info.flag_bits & 0x800:
        return info.orig_filename
    raw = info.orig_filename.encode("cp437")
    return raw.decode("utf-8", "surrogateescape")


def _check_zip(infos: list[zipfile.ZipInfo], data: bytes, limits: SubmissionLimits) -> None:
    """Refuse before reading a byte of content: encryption, declared sizes past the limit, ratios past
    :data:`MAX_RATIO`, and entries whose bytes overlap (how the smallest zip bombs reuse one stream)."""
    declared = 0
    spans = []
    for info in infos:
        raw = _zip_name(info)
        if info.flag_bits & 0x1:
            raise _refuse(raw, "an encrypted entry", "pack the bot without a password")
        declared += info.file_size
        if declared > limits.max_mb * MIB:
            most = f"{limits.max_mb:,} MB"
            raise _refuse(raw, f"more than {most} once unpacked (as the zip declares), counting the entries before it",
                          f"this ladder takes at most {most} of files (submission.max_mb)", ArchiveTooLarge)
        if info.file_size > RATIO_FROM and info.file_size > MAX_RATIO * max(info.compress_size, 1):
            raise _refuse(raw, f"{info.compress_size:,} bytes that inflate to {info.file_size:,} "
                          f"(past {MAX_RATIO}:1, a zip bomb)", "pack the bot's own files")
        header = data[info.header_offset:info.header_offset + 30]
        if len(header) < 30 or header[:4] != b"PK\x03\x04":
            raise ArchiveRefused(f"the archive is damaged: the zip's entry {_shown(raw)} is missing; pack it again")
        name_length, extra_length = struct.unpack("<HH", header[26:30])
        spans.append((info.header_offset, info.header_offset + 30 + name_length + extra_length
                      + info.compress_size, raw))
    spans.sort()
    for (_, end, first), (start, _, second) in zip(spans, spans[1:]):
        if start < end:
            raise _refuse(second, f"bytes that overlap those of {_shown(first)} (a zip bomb)",
                          "pack the bot again with zip")


def _read_zip(data: bytes, tree: _Tree) -> None:
    """Unpack a zip into ``tree`` after :func:`_check_zip`, counting each entry's bytes as they inflate."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except UnicodeDecodeError:
        raise ArchiveRefused("the archive holds a name flagged UTF-8 that is not; name the bot's files in UTF-8") \
            from None
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, ValueError, OSError, struct.error) as exc:
        raise ArchiveRefused(f"the zip archive is damaged or cut short ({exc}); pack it again") from None
    except NotImplementedError as exc:  # a version of zip this Python does not read
        raise ArchiveRefused(f"the zip archive uses what this server cannot read ({exc}); pack it with zip's "
                             "defaults") from None
    current = ""
    with archive:
        infos = archive.infolist()
        if len(infos) > tree.limits.max_files + 1:
            most = f"{tree.limits.max_files:,}"
            raise ArchiveTooLarge(f"the archive holds more than {most} files and folders ({len(infos):,} entries); "
                                 f"this ladder takes at most {most} (submission.max_files)")
        _check_zip(infos, data, tree.limits)
        try:
            for info in infos:
                current = raw = _zip_name(info)
                if (_place(raw) or "").split("/")[0] == MAC_METADATA:
                    continue
                mode = info.external_attr >> 16 if info.create_system == 3 else 0
                kind = stat.S_IFMT(mode)
                if info.is_dir() or raw.replace("\\", "/").endswith("/") or kind == stat.S_IFDIR:
                    tree.folder(raw)
                elif kind == stat.S_IFLNK:
                    if info.file_size > 4096:
                        raise _refuse(raw, "a link whose target is longer than 4,096 bytes", "shorten it")
                    target = archive.read(info).decode("utf-8", "surrogateescape")
                    tree.symlink(raw, target)
                elif kind in (0, stat.S_IFREG):
                    with archive.open(info) as source:
                        tree.file(raw, source, bool(mode & stat.S_IXUSR))
                elif kind in (stat.S_IFCHR, stat.S_IFBLK):
                    raise _refuse(raw, "a device file", "a bot's files are plain files, folders and links")
                elif kind == stat.S_IFIFO:
                    raise _refuse(raw, "a FIFO (named pipe)", "a bot's files are plain files, folders and links")
                else:
                    raise _refuse(raw, "a socket or an entry of unknown type",
                                  "a bot's files are plain files, folders and links")
        except (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, ValueError, struct.error) as exc:
            raise ArchiveRefused(f"the archive is damaged at {_shown(current)} ({exc}); pack it again") from None
        except NotImplementedError as exc:
            raise _refuse(current, f"an entry this server cannot inflate ({exc})",
                          "pack it with zip's usual deflate") from None
        except OSError as exc:
            raise _unwritable(current, exc) from None
