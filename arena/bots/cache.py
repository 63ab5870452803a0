"""Where bots' dependency environments live, and how a finished one is published.

The cache is ``$ARENA_CACHE``, else ``$XDG_CACHE_HOME/cabo-arena``, else
``~/.cache/cabo-arena``; environments are in its ``envs`` folder, one entry per version
(:func:`arena.bots.deps.key`), shared by every tournament, ``arena play`` and
``arena bot check`` on the machine. Nothing is ever written into a bot's own directory,
which may be read-only.

An entry is built into a fresh folder ``envs/<key>.<random>`` while holding
``envs/<key>.lock`` (:func:`arena.bots.buildlock.entry_lock`), gets a marker file last,
and is then published by renaming a symlink ``envs/<key>`` onto it, which is atomic: an
arena sees either no environment or a complete one, never a half-built one. The folder
itself never moves once built, because a venv and ``node_modules`` hold absolute paths
(scripts' ``#!`` lines, links). Folders of builds that died before publishing are
removed by the next build of that key.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from .buildlock import entry_lock

ENV_VAR = "ARENA_CACHE"
"""Overrides the cache's location."""
MARKER = "arena-env.json"
"""Written into an entry last, before it is published: what it is and when it was built."""
LOG = "build.log"
"""The install's output, kept in the entry (and beside it as ``<key>.failed.log`` when it failed)."""


def root() -> Path:
    """The arena's cache folder (not created here)."""
    named = os.environ.get(ENV_VAR)
    if named:
        return Path(named).expanduser().absolute()
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "cabo-arena"
    home = os.path.expanduser("~")
    if home == "~":  # no HOME and no account (a container run as an unknown uid)
        return Path(tempfile.gettempdir()) / f"cabo-arena-cache-{os.getuid()}"
    return Path(home) / ".cache" / "cabo-arena"


def envs() -> Path:
    """The folder of environments."""
    return root() / "envs"


def lookup(key: str) -> str | None:
    """The real path of the published, complete entry ``key``; None if there is none."""
    link = envs() / key
    real = os.path.realpath(link)
    if real == str(link) or not os.path.isfile(os.path.join(real, MARKER)):
        return None
    return real


def publish(key: str, build: Callable[[str], None], timeout: float, about: dict[str, object]) -> str:
    """The real path of the entry ``key``, built by ``build(folder)`` unless it already exists.

    Waits up to ``timeout`` for another arena building the same entry. ``build`` gets a new
    empty folder (mode 0755) and raises to give up; the folder is then removed. ``about``
    goes into the marker file.
    """
    folder = envs()
    folder.mkdir(parents=True, exist_ok=True)
    with entry_lock(str(folder / key), timeout):
        found = lookup(key)
        if found is not None:
            return found  # built by another arena while this one waited
        _remove_leftovers(folder, key)
        work = tempfile.mkdtemp(prefix=f"{key}.", dir=folder)
        try:
            os.chmod(work, 0o755)  # mkdtemp's 0700 would lock out a sandboxed bot running as another user
            build(work)
            # O_EXCL | O_NOFOLLOW: never written through a file or symlink that an install step left here
            fd = os.open(os.path.join(work, MARKER), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
            with os.fdopen(fd, "w") as f:
                json.dump({"key": key, "built": time.strftime("%Y-%m-%dT%H:%M:%S%z"), **about}, f, indent=1)
            os.chmod(os.path.join(work, MARKER), 0o644)
            link = folder / f".{key}.{secrets.token_hex(4)}.link"
            os.symlink(os.path.basename(work), link)
            os.replace(link, folder / key)
        except BaseException:
            shutil.rmtree(work, ignore_errors=True)
            raise
    return os.path.realpath(folder / key)


def _remove_leftovers(folder: Path, key: str) -> None:
    """Folders of builds of ``key`` that never published (the builder died): called under the entry's lock."""
    pattern = re.compile(re.escape(key) + r"\.[A-Za-z0-9_]{8}")
    for name in os.listdir(folder):
        path = folder / name
        if pattern.fullmatch(name) and path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
