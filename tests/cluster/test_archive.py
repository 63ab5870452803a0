"""Bot versions as content-addressed archives, the executor in tournament files and on the command line."""

from __future__ import annotations

import dataclasses
import hashlib
import io
import os
import tarfile
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.cluster.archive import Archive, ArchiveError, pack, unpack
from arena.cluster.dask_executor import INSTALL_HINT
from arena.execute import Choice
from arena.tournament.config import ConfigError, load_config
from arena.tournament.ladder.snapshot import bot_files, digest_of, snapshot_path

from .harness_paths import BOTS, copy_bots


def test_an_archive_is_named_like_a_snapshot_and_unpacks_with_its_lib(tmp_path: Path) -> None:
    bots = copy_bots(tmp_path / "bots")
    archive = pack(str(bots / "random"))
    assert archive.digest == digest_of(bot_files(str(bots / "random")))
    assert pack(str(bots / "random")).data == archive.data  # the same files, the same bytes
    directory = Path(unpack(archive, tmp_path / "cache"))
    assert directory == tmp_path / "cache" / archive.digest / "bot"
    assert (directory / "bot.py").read_bytes() == (bots / "random" / "bot.py").read_bytes()
    assert (directory.parent / "lib" / "cabo_bot.py").is_file()  # ../lib, as at home
    assert os.access(directory / "bot.py", os.R_OK)
    assert unpack(archive, tmp_path / "cache") == str(directory)  # once: already there
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [archive.digest]


def test_a_tampered_archive_is_refused(tmp_path: Path) -> None:
    archive = pack(str(copy_bots(tmp_path / "bots") / "random"))
    listed = dict(archive.listed)
    listed["bot.py"] = "0" * 64
    with pytest.raises(ArchiveError):
        unpack(dataclasses.replace(archive, listed=tuple(sorted(listed.items()))), tmp_path / "cache")
    forged = dataclasses.replace(archive, digest=digest_of(listed), listed=tuple(sorted(listed.items())))
    with pytest.raises(ArchiveError, match="does not match its digest"):
        unpack(forged, tmp_path / "cache")
    assert not any((tmp_path / "cache").iterdir())  # nothing half-unpacked left behind


def _forged(members: list[tuple[str, str | None, bytes]]) -> Archive:
    """An archive of ``(listed name, symlink target or None, content)`` whose name and listing agree."""
    buffer = io.BytesIO()
    listed = {}
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, link, content in members:
            info = tarfile.TarInfo(snapshot_path(name))
            if link is not None:
                info.type, info.linkname = tarfile.SYMTYPE, link
                listed[name] = "symlink:" + link
                tar.addfile(info)
            else:
                info.size = len(content)
                listed[name] = hashlib.sha256(content).hexdigest()
                tar.addfile(info, io.BytesIO(content))
    return Archive(digest_of(listed), tuple(sorted(listed.items())), buffer.getvalue())


@pytest.mark.parametrize("members", [
    [("x", "/", b""), ("x/evil", None, b"pwned")],  # a file written through a symlink of the archive
    [("../../evil", None, b"pwned")],  # a path that climbs out of the cache
], ids=["through-symlink", "dot-dot"])
def test_an_archive_cannot_write_outside_its_directory(tmp_path: Path, members: list[tuple[str, str | None, bytes]]
                                                       ) -> None:
    cache = tmp_path / "deep" / "cache"
    with pytest.raises(ArchiveError, match="would land outside the bot"):
        unpack(_forged(members), cache)
    assert not (tmp_path / "deep" / "evil").exists() and not Path("/evil").exists()
    assert not any(cache.iterdir())


def _file(tmp_path: Path, extra: str) -> Path:
    file = tmp_path / "t.yaml"
    file.write_text(f"name: t\nseats: 2\nsandbox: none\n{extra}\nbots:\n  - {BOTS / 'random'}\n"
                    f"  - {BOTS / 'heuristic'}\n")
    return file


def test_the_executor_key(tmp_path: Path) -> None:
    assert load_config(_file(tmp_path, "")).executor is None
    assert load_config(_file(tmp_path, "executor: local")).executor is None
    assert load_config(_file(tmp_path, "executor: {dask: 'tcp://10.0.0.5:8786'}")).executor == Choice("dask", "tcp://10.0.0.5:8786")
    assert load_config(_file(tmp_path, "executor: {dask: 'local:3'}")).executor == Choice("dask", "local:3")
    with pytest.raises(ConfigError, match="local:N"):
        load_config(_file(tmp_path, "executor: {dask: 'local:zero'}"))
    with pytest.raises(ConfigError, match="unknown key"):
        load_config(_file(tmp_path, "executor: {ray: 'x'}"))
    a, b = load_config(_file(tmp_path, "")), load_config(_file(tmp_path, "executor: {dask: 'local:2'}"))
    assert a.fingerprint() == b.fingerprint()  # where matches are played changes no result


def test_dask_missing_says_how_to_install_it(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "distributed", None)  # import distributed now raises ImportError
    result = CliRunner().invoke(main, ["run", str(_file(tmp_path, "")), "--dask", "local:2", "--no-report"])
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1] == f"Error: {INSTALL_HINT}"
