"""Copies of submitted bots, content-addressed: what a ladder rated stays on disk unchanged.

A ladder plays for weeks while authors keep editing their directories, so it runs a
copy taken at submission, under ``<output>/bots/<NAME>/<digest>/``: the bot's files in
``bot/`` and the shared ``lib`` beside its directory (if any) in ``lib/``, so that the
bot finds ``../lib`` as it does at home. The copy is written
to a temporary directory and renamed into place, so a directory with that name is always
complete; it is world-readable, since sandboxed bots may run as another user.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import shutil
import stat
import tempfile
from collections.abc import Collection
from pathlib import Path

from ...bots.links import leaving_link
from ...bots import BotSpec, build_bot, files, load_bot
from ...sandbox.backends import Backend
from .entries import Entry

BOTS_DIR = "bots"
"""Folder of the output directory holding the snapshots."""


BOT_SUBDIR = "bot"
"""Where a snapshot holds the bot's directory; the shared library goes beside it."""


def bot_files(directory: str) -> dict[str, str]:
    """The files a snapshot copies (the bot's, then ``../lib/...``) and their sha256."""
    return files.digests(directory)


def snapshot_path(name: str) -> str:
    """Where a listed file goes inside the snapshot (and a bot archive, :mod:`arena.cluster.archive`): ``../lib/x``
    to ``lib/x``, the others under ``bot/``."""
    return name[3:] if name.startswith("../") else f"{BOT_SUBDIR}/{name}"


def outside_link(directory: str | Path, listed: dict[str, str]) -> str | None:
    """Why the bot in ``directory`` (its files ``listed``) cannot be taken for a link that leads out of it, in
    one line; None when every link stays inside (the shared library beside it counts as inside)."""
    places = {snapshot_path(name): name for name in listed}
    links = {place: listed[name].removeprefix("symlink:") for place, name in places.items()
             if listed[name].startswith("symlink:")}
    leaving = leaving_link(links)
    if leaving is None:
        return None
    place, target = leaving
    return (f"{Path(directory) / places[place]} is a link to {target}, outside the bot's directory; a ladder "
            "takes only links that stay inside it")


def digest_of(listed: dict[str, str]) -> str:
    """One sha256 over file names and contents: equal iff the snapshots would be equal."""
    text = "\n".join(f"{name}\0{digest}" for name, digest in sorted(listed.items()))
    return hashlib.sha256(text.encode()).hexdigest()


def snapshot(source: str, output: Path, name: str, listed: dict[str, str] | None = None) -> tuple[str, Path]:
    """Copy ``source``'s files (``listed``: those, as read before a check built the bot) to
    ``<output>/bots/<name>/<digest>/`` (kept if already there); its digest and the bot's directory there."""
    listed = bot_files(source) if listed is None else listed
    digest = digest_of(listed)
    target = Path(output) / BOTS_DIR / name / digest
    if target.is_dir():
        return digest, target / BOT_SUBDIR
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=".tmp-", dir=target.parent))
    try:
        for rel in listed:
            src, dst = Path(source) / rel, tmp / snapshot_path(rel)
            dst.parent.mkdir(parents=True, exist_ok=True)
            if os.path.islink(src):
                os.symlink(os.readlink(src), dst)
            else:
                shutil.copyfile(src, dst)
                if files.file_digest(str(dst)) != listed[rel]:
                    raise ValueError(f"{src} changed while the bot was being submitted; submit it again")
                executable = os.stat(src).st_mode & stat.S_IXUSR
                os.chmod(dst, 0o755 if executable else 0o644)
        for folder, dirs, _ in os.walk(tmp):
            os.chmod(folder, 0o755)
        try:
            os.rename(tmp, target)
        except OSError:
            if not target.is_dir():  # else a concurrent submit of the same files won: theirs is identical
                raise
    finally:
        if tmp.exists():
            shutil.rmtree(tmp)
    return digest, target / BOT_SUBDIR


def player_spec(entry: Entry, backend: Backend | None = None, exempt: Collection[str] = (),
                unsandboxed_builds: bool = True) -> BotSpec:
    """The bot an entry's snapshot is, named by its player key, built under ``backend`` and ready to play.

    Without ``unsandboxed_builds`` a backend that does not wall builds in refuses to install or build
    a submitted entry; entries from the directories in ``exempt`` (the file's own bots) are built anyway.
    """
    spec = dataclasses.replace(load_bot(entry.path), name=entry.key)
    build_bot(spec, backend, allow_unsandboxed=unsandboxed_builds or entry.source in exempt)
    return spec
