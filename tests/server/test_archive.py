"""Uploaded archives: every hostile one refused in one line with nothing left behind; a packed bot comes back whole."""

from __future__ import annotations

import gzip
import io
import os
import random
import shutil
import stat
import subprocess
import sys
import tarfile
import tracemalloc
import warnings
import zipfile
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from arena.server.archive import ArchiveRefused, ArchiveTooLarge, pack, remove_leftovers, unpack
from arena.tournament.ladder.limits import SubmissionLimits
from arena.tournament.ladder.snapshot import bot_files, digest_of

BOTS = Path(__file__).resolve().parents[2] / "bots"
LIMITS = SubmissionLimits()
MIB = 1 << 20

Entry = tuple[str, str, bytes | str]
"""``(name, kind, content or link target)``; kind is file, exe, dir, sym, hard, fifo or chr."""


def _tar(entries: Sequence[Entry], gz: bool = True) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz" if gz else "w", format=tarfile.GNU_FORMAT) as tar:
        for name, kind, content in entries:
            info = tarfile.TarInfo(name)
            info.mode = 0o755 if kind == "exe" else 0o644
            if kind in ("file", "exe"):
                data = content if isinstance(content, bytes) else content.encode()
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
                continue
            info.type = {"dir": tarfile.DIRTYPE, "sym": tarfile.SYMTYPE, "hard": tarfile.LNKTYPE,
                         "fifo": tarfile.FIFOTYPE, "chr": tarfile.CHRTYPE}[kind]
            if kind in ("sym", "hard"):
                info.linkname = str(content)
            tar.addfile(info)
    return buffer.getvalue()


def _zip(entries: Sequence[Entry]) -> bytes:
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # zipfile warns of duplicate names, which one test writes on purpose
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, kind, content in entries:
                info = zipfile.ZipInfo(name + "/" if kind == "dir" else name)
                info.create_system = 3  # unix, so that the mode bits below count
                info.compress_type = zipfile.ZIP_DEFLATED
                mode = {"file": stat.S_IFREG | 0o644, "exe": stat.S_IFREG | 0o755, "dir": stat.S_IFDIR | 0o755,
                        "sym": stat.S_IFLNK | 0o777, "fifo": stat.S_IFIFO | 0o644, "chr": stat.S_IFCHR | 0o644}[kind]
                info.external_attr = mode << 16
                archive.writestr(info, content)
    return buffer.getvalue()


Pack = Callable[[Sequence[Entry]], bytes]
""":func:`_tar` or :func:`_zip`."""


def _refused(data: bytes, tmp_path: Path, *words: str, limits: SubmissionLimits = LIMITS) -> ArchiveRefused:
    """Unpack ``data``, expecting a one-line refusal holding ``words``, with nothing left at or beside dest."""
    parent = tmp_path / "uploads"
    parent.mkdir(exist_ok=True)
    with pytest.raises(ArchiveRefused) as refused:
        unpack(data, parent / "sub", limits)
    message = str(refused.value)
    assert "\n" not in message and "Traceback" not in message
    for word in words:
        assert word in message, message
    assert list(parent.iterdir()) == []  # not dest, nor a temporary directory beside it
    return refused.value


BOT: list[Entry] = [("bot.yaml", "file", "name: x\nrun: ['{python}', bot.py]\n"), ("bot.py", "file", "print('hi')\n")]


@pytest.mark.parametrize("make", [_tar, _zip])
@pytest.mark.parametrize("name", ["../x", "sub/../../x", "/etc/x", "C:/x", "..\\..\\x"])
def test_a_name_that_leaves_is_refused(tmp_path: Path, make: Pack, name: str) -> None:
    message = str(_refused(make(BOT + [(name, "file", "evil")]), tmp_path, "the archive holds", name))
    assert "relative to the bot's directory" in message or "leaves the bot's directory" in message


@pytest.mark.parametrize("make", [_tar, _zip])
@pytest.mark.parametrize("target", ["/etc/passwd", "../..", "../../etc/passwd", "x/../../../etc", "C:/Windows"])
def test_a_symlink_that_leaves_is_refused(tmp_path: Path, make: Pack, target: str) -> None:
    _refused(make(BOT + [("sub/evil", "sym", target)]), tmp_path, "sub/evil", f"a link to {target}",
             "outside the bot's directory")


@pytest.mark.parametrize("make", [_tar, _zip])
def test_a_link_leaving_through_another_link_is_refused(tmp_path: Path, make: Pack) -> None:
    # `here/..` is the folder above where `here` points (the top), not the top itself: the kernel's reading
    _refused(make(BOT + [("here", "sym", "."), ("evil", "sym", "here/..")]), tmp_path, "evil", "outside")
    _refused(make(BOT + [("a", "sym", "b"), ("b", "sym", "a")]), tmp_path, "loops")


@pytest.mark.parametrize("make", [_tar, _zip])
def test_nothing_is_written_through_a_link(tmp_path: Path, make: Pack) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    _refused(make(BOT + [("out", "sym", str(outside)), ("out/x", "file", "evil")]), tmp_path, "out")
    _refused(make(BOT + [("in", "dir", b""), ("link", "sym", "in"), ("link/x", "file", "evil")]), tmp_path,
             "link/x", "inside link, which is a link")
    assert list(outside.iterdir()) == []


@pytest.mark.parametrize("target", ["/etc/passwd", "../../x", "missing.py"])
def test_a_hardlink_out_is_refused(tmp_path: Path, target: str) -> None:
    _refused(_tar(BOT + [("evil", "hard", target)]), tmp_path, "evil", f"a hard link to {target}")


def test_a_hardlink_inside_is_a_copy(tmp_path: Path) -> None:
    got = unpack(_tar(BOT + [("same.py", "hard", "bot.py")]), tmp_path / "sub", LIMITS)
    assert (got / "same.py").read_text() == "print('hi')\n"
    assert os.stat(got / "same.py").st_ino != os.stat(got / "bot.py").st_ino


@pytest.mark.parametrize("make", [_tar, _zip])
@pytest.mark.parametrize("kind, word", [("fifo", "FIFO"), ("chr", "device file")])
def test_special_files_are_refused(tmp_path: Path, make: Pack, kind: str, word: str) -> None:
    _refused(make(BOT + [("pipe", kind, b"")]), tmp_path, "pipe", word)


def _gzip_bomb(tar_header: bool) -> bytes:
    """1 GiB of zeros (after a tar header saying a file holds them all) as 1,025 gzip members: about 1 MB,
    never the gigabyte itself in memory."""
    piece = gzip.compress(bytes(MIB), mtime=0)
    head = b""
    if tar_header:
        info = tarfile.TarInfo("zeros.bin")
        info.size = 1 << 30
        head = gzip.compress(info.tobuf(format=tarfile.GNU_FORMAT), mtime=0)
    return head + piece * 1024


def test_a_gzip_bomb_stops_at_the_limit_in_bounded_memory(tmp_path: Path) -> None:
    data = _gzip_bomb(tar_header=True)
    assert len(data) < 2 * MIB
    tracemalloc.start()
    try:
        refused = _refused(data, tmp_path, "zeros.bin", "more than 8 MB once unpacked", "submission.max_mb",
                           limits=SubmissionLimits(max_mb=8))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 32 * MIB
    assert isinstance(refused, ArchiveTooLarge)
    _refused(_gzip_bomb(tar_header=False), tmp_path, "holds no files")  # zeros read as a tar's end


def test_a_zip_bomb_is_refused_before_it_inflates(tmp_path: Path) -> None:
    zeros = bytes(20 * MIB)
    _refused(_zip(BOT + [("zeros.bin", "file", zeros)]), tmp_path, "zeros.bin", "past 200:1")
    _refused(_zip(BOT + [("zeros.bin", "file", zeros)]), tmp_path, "zeros.bin", "as the zip declares",
             limits=SubmissionLimits(max_mb=8))


def test_a_zip_whose_entries_share_bytes_is_refused(tmp_path: Path) -> None:
    data = bytearray(_zip([("a", "file", os.urandom(1000)), ("b", "file", os.urandom(1000))]))
    central_b = data.index(b"PK\x01\x02", data.index(b"PK\x01\x02") + 4)
    data[central_b + 42:central_b + 46] = bytes(4)  # b's bytes are a's
    _refused(bytes(data), tmp_path, "overlap")


@pytest.mark.parametrize("make", [_tar, _zip])
def test_too_many_files_or_bytes_are_refused(tmp_path: Path, make: Pack) -> None:
    many = BOT + [(f"f{i}.txt", "file", "x") for i in range(12)]
    refused = [_refused(make(many), tmp_path, "more than 10", "submission.max_files",
                        limits=SubmissionLimits(max_files=10))]
    refused.append(_refused(make(BOT + [(f"d{i}/f.txt", "file", "x") for i in range(6)]), tmp_path,
                            "submission.max_files", limits=SubmissionLimits(max_files=10)))  # folders count, as on disk
    large = BOT + [("a.bin", "file", os.urandom(600 * 1024)), ("b.bin", "file", os.urandom(600 * 1024))]
    refused.append(_refused(make(large), tmp_path, "b.bin", "more than 1 MB once unpacked",
                            limits=SubmissionLimits(max_mb=1)))
    assert all(isinstance(exc, ArchiveTooLarge) for exc in refused)  # the server's 413, not 400
    assert unpack(make(large), tmp_path / "ok", SubmissionLimits(max_mb=2)).is_dir()


def test_wrong_types_are_refused(tmp_path: Path) -> None:
    _refused(b"", tmp_path, "the upload is empty")
    _refused(b"\x89PNG\r\n\x1a\n" + bytes(100), tmp_path, "not a zip or tar.gz archive (it is a PNG image)")
    _refused(b"name: x\n", tmp_path, "not a zip or tar.gz archive")
    _refused(gzip.compress(b"just text"), tmp_path, "does not hold a readable tar archive")
    good = BOT + [("big.bin", "file", os.urandom(64 * 1024))]
    _refused(_tar(good)[:len(_tar(good)) // 2], tmp_path, "cut short")
    _refused(_tar(good, gz=False)[:5000], tmp_path, "cut short")
    _refused(_zip(good)[:len(_zip(good)) // 2], tmp_path, "damaged or cut short")


@pytest.mark.parametrize("make", [_tar, _zip])
def test_duplicates_and_files_under_files_are_refused(tmp_path: Path, make: Pack) -> None:
    _refused(make(BOT + [("bot.py", "file", "again")]), tmp_path, "bot.py", "a second entry of that name")
    _refused(make(BOT + [("./bot.py", "file", "again")]), tmp_path, "./bot.py", "a second entry")
    _refused(make(BOT + [("bot.py/x", "file", "x")]), tmp_path, "inside bot.py, which is a file")


def test_names_nesting_and_encryption(tmp_path: Path) -> None:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz", format=tarfile.GNU_FORMAT, encoding="utf-8",
                      errors="surrogateescape") as tar:
        tar.addfile(tarfile.TarInfo("caf\udce9.txt"))  # Latin-1 bytes, not UTF-8
    _refused(buffer.getvalue(), tmp_path, "caf\\xe9.txt", "not valid UTF-8")
    zipped = bytearray(_zip([("cafX.txt", "file", "x")]))
    for at in (i for i in range(len(zipped)) if zipped[i:i + 4] == b"cafX"):
        zipped[at + 3] = 0xE9
    _refused(bytes(zipped), tmp_path, "caf\\xe9.txt", "not valid UTF-8")
    _refused(_tar(BOT + [("a\nb", "file", "x")]), tmp_path, "a\\nb", "control character")
    _refused(_tar(BOT + [("/".join(["d"] * 65) + "/f", "file", "x")]), tmp_path, "nested more than 64 deep")
    _refused(_tar(BOT + [("x" * 256, "file", "x")]), tmp_path, "a name longer than 255 bytes")
    _refused(_zip(BOT + [("/".join(["n" * 250] * 20), "file", "x")]), tmp_path, "a path longer than this system takes")
    _refused(_tar(BOT + [("l", "sym", "a/" * 3000)]), tmp_path, "a link whose target is longer than 4,095 bytes")
    secret = bytearray(_zip(BOT))
    for signature, at in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):  # the encrypted flag, as zip -e sets it
        start = secret.index(signature)
        secret[start + at] |= 0x1
    _refused(bytes(secret), tmp_path, "bot.yaml", "encrypted", "without a password")


def test_modes_are_the_servers_and_one_top_folder_is_the_bot(tmp_path: Path) -> None:
    entries: list[Entry] = [("mine/bot.yaml", "file", "name: x\n"), ("mine/run.sh", "exe", "#!/bin/sh\n"),
                            ("mine/src/a.py", "file", "a = 1\n"), ("mine/link.py", "sym", "src/a.py")]
    for n, data in enumerate([_tar(entries), _zip(entries), _tar(entries, gz=False)]):
        got = unpack(data, tmp_path / f"sub{n}", LIMITS)
        assert got == tmp_path / f"sub{n}"
        assert sorted(os.listdir(got)) == ["bot.yaml", "link.py", "run.sh", "src"]
        assert stat.S_IMODE(os.lstat(got / "run.sh").st_mode) == 0o755
        assert stat.S_IMODE(os.lstat(got / "bot.yaml").st_mode) == 0o644
        assert stat.S_IMODE(os.lstat(got / "src").st_mode) == stat.S_IMODE(os.lstat(got).st_mode) == 0o755
        assert os.readlink(got / "link.py") == "src/a.py"  # a link inside stays a link
    finder = _zip(entries + [("__MACOSX/mine/._bot.yaml", "file", b"\0\5\26\7")])  # as macOS's Compress makes
    assert sorted(os.listdir(unpack(finder, tmp_path / "mac", LIMITS))) == ["bot.yaml", "link.py", "run.sh", "src"]
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        info = tarfile.TarInfo("bot.py")
        info.mode, info.uid, info.gid, info.size = 0o6755, 1234, 1234, 1
        tar.addfile(info, io.BytesIO(b"x"))
    got = unpack(buffer.getvalue(), tmp_path / "suid", LIMITS)
    assert stat.S_IMODE(os.stat(got / "bot.py").st_mode) == 0o755  # no setuid, setgid
    assert os.stat(got / "bot.py").st_uid == os.getuid()  # no owner from the archive


def test_a_process_killed_mid_unpack_leaves_no_dest(tmp_path: Path) -> None:
    (tmp_path / "archive.tar.gz").write_bytes(_tar(BOT + [("more.py", "file", "x")]))
    script = f"""
import sys
from pathlib import Path
from arena.server import archive
from arena.tournament.ladder.limits import SubmissionLimits
write = archive._Tree.file
def stuck(*args, **kwargs):
    write(*args, **kwargs)
    print("wrote a file", flush=True)
    sys.stdin.read()  # until killed
archive._Tree.file = stuck
archive.unpack(Path({str(tmp_path / 'archive.tar.gz')!r}).read_bytes(), Path({str(tmp_path / 'sub')!r}),
               SubmissionLimits())
"""
    with subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True) as process:
        assert process.stdout is not None and process.stdout.readline() == "wrote a file\n"
        process.kill()
    assert not (tmp_path / "sub").exists()
    left = [p for p in tmp_path.iterdir() if p.name.startswith(".sub.tmp-")]
    assert len(left) == 1 and any(left[0].rglob("bot.yaml"))
    assert remove_leftovers(tmp_path) == left
    assert sorted(p.name for p in tmp_path.iterdir()) == ["archive.tar.gz"]


def test_dest_must_be_new(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    with pytest.raises(FileExistsError):
        unpack(_tar(BOT), tmp_path / "sub", LIMITS)


@pytest.mark.parametrize("bot", ["random", "c-random"])
def test_a_packed_bot_unpacks_with_its_digest_and_shared_lib(tmp_path: Path, bot: str) -> None:
    for name in (bot, "lib"):
        shutil.copytree(BOTS / name, tmp_path / "bots" / name, ignore=shutil.ignore_patterns("__pycache__"))
    source = tmp_path / "bots" / bot
    data = pack(source)
    assert pack(source) == data  # the same files, the same bytes
    (tmp_path / "up").mkdir()
    got = unpack(data, tmp_path / "up" / "sub", LIMITS)
    assert got == tmp_path / "up" / "sub" / "bot" and (got.parent / "lib" / "cabo_bot.py").is_file()
    assert digest_of(bot_files(str(got))) == digest_of(bot_files(str(source)))


def test_a_bot_with_its_own_lib_and_nested_folders_round_trips(tmp_path: Path) -> None:
    source = tmp_path / "home" / "deep"
    (source / "lib" / "x" / "y").mkdir(parents=True)
    (source / "__pycache__").mkdir()
    (source / "bot.yaml").write_text("name: deep\nrun: ['{python}', bot.py]\n")
    (source / "bot.py").write_text("import lib.x.y.z\n")
    (source / "lib" / "x" / "y" / "z.py").write_text("Z = 1\n")
    (source / "__pycache__" / "bot.pyc").write_bytes(b"skipped")
    (source / "run.sh").write_text("#!/bin/sh\n")
    (source / "run.sh").chmod(0o755)
    os.symlink("lib/x/y/z.py", source / "z.py")
    (tmp_path / "up").mkdir()
    got = unpack(pack(source), tmp_path / "up" / "sub", LIMITS)
    assert got == tmp_path / "up" / "sub"
    assert digest_of(bot_files(str(got))) == digest_of(bot_files(str(source)))
    assert not (got / "__pycache__").exists() and os.readlink(got / "z.py") == "lib/x/y/z.py"
    assert os.stat(got / "run.sh").st_mode & stat.S_IXUSR


def test_pack_refuses_a_link_the_server_would(tmp_path: Path) -> None:
    source = tmp_path / "bot"
    source.mkdir()
    (source / "bot.yaml").write_text("name: x\n")
    os.symlink("/etc/passwd", source / "data")
    with pytest.raises(ArchiveRefused, match="data is a link to /etc/passwd, outside the bot's directory"):
        pack(source)


def test_an_inflating_stream_is_damaged_not_a_crash(tmp_path: Path) -> None:
    data = bytearray(_tar(BOT + [("big.bin", "file", os.urandom(200_000))]))
    data[len(data) // 2] ^= 0xFF
    message = str(_refused(bytes(data), tmp_path))
    assert "damaged" in message or "does not hold" in message


def test_damaged_archives_are_refused_or_unpacked_never_raised(tmp_path: Path) -> None:
    rng = random.Random(24)
    noise = bytes(rng.randrange(256) for _ in range(5000))
    bot = BOT + [("src/a.py", "file", "x" * 3000), ("l", "sym", "src/a.py"), ("big", "file", noise)]
    packed = [_tar(bot), _zip(bot), _tar(bot, gz=False)]
    for method in (zipfile.ZIP_BZIP2, zipfile.ZIP_LZMA):
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", method) as archive:
            archive.writestr("bot.yaml", "name: x\n")
            archive.writestr("big", noise)
        packed.append(buffer.getvalue())
    (tmp_path / "up").mkdir()
    for n in range(400):
        data = bytearray(packed[n % len(packed)])
        for _ in range(rng.randrange(1, 6)):
            data[rng.randrange(len(data))] = rng.randrange(256)
        if n % 5 == 0:
            del data[rng.randrange(len(data)):]
        try:
            unpack(bytes(data), tmp_path / "up" / str(n), SubmissionLimits(max_mb=1, max_files=50))
        except ArchiveRefused as refused:
            assert "\n" not in str(refused)
            assert not (tmp_path / "up" / str(n)).exists()
    assert not [p for p in (tmp_path / "up").iterdir() if p.name.startswith(".")]
