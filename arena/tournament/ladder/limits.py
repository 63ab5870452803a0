"""How big a submitted bot may be: the ladder file's ``submission: {max_mb, max_files}``.

A ladder copies every version it is given and keeps the copy (:mod:`.snapshot`), and a
check builds and runs the bot first, so a 200 MB or 20,000-file directory costs disk and
time before anyone looks at it. The bot's files are counted first, as the snapshot would
copy them (the same folders skipped, symlinks not followed, the shared ``../lib``
included), and the count stops as soon as a limit is passed, so even a directory of a
million files is refused at once.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass

from ...bots.files import ARENA_OUTPUTS, SKIPPED_DIRS, roots

DEFAULT_MAX_MB = 100
"""Megabytes (MiB) of files a submission may hold when the ladder file does not say."""
DEFAULT_MAX_FILES = 5000
"""Files and folders a submission may hold when the ladder file does not say."""
MAX_MB = 100_000
"""Largest ``max_mb`` the ladder file may give."""
MAX_FILES = 1_000_000
"""Largest ``max_files`` the ladder file may give."""
KEYS = ("max_mb", "max_files")
"""Keys of the ``submission`` section."""


@dataclass(frozen=True)
class SubmissionLimits:
    """What ``arena submit`` accepts."""

    max_mb: int = DEFAULT_MAX_MB
    """Total size of the files, in MiB."""
    max_files: int = DEFAULT_MAX_FILES
    """Files, symlinks and folders together."""


def over(directory: str, limits: SubmissionLimits) -> str | None:
    """Which limit the bot in ``directory`` passes, in words (``more than 5,000 files and folders``), or None.

    Walks with ``os.scandir`` and never follows a symlink, as the snapshot copies a symlink
    as a link. Stops at the first limit passed.
    """
    budget = limits.max_mb * 1024 * 1024
    count = size = 0
    stack = [(str(root), True) for _, root in roots(directory)]
    while stack:
        folder, top = stack.pop()
        try:
            with os.scandir(folder) as listing:
                for item in listing:
                    try:
                        info = item.stat(follow_symlinks=False)
                    except OSError:
                        continue  # vanished while we looked
                    if stat.S_ISDIR(info.st_mode):
                        if item.name in SKIPPED_DIRS or (top and item.name in ARENA_OUTPUTS):
                            continue
                        stack.append((item.path, False))
                    elif stat.S_ISREG(info.st_mode):
                        size += info.st_size
                    count += 1
                    if count > limits.max_files:
                        return f"more than {limits.max_files:,} files and folders"
                    if size > budget:
                        return f"more than {limits.max_mb:,} MB of files"
        except OSError:
            continue  # an unreadable folder: the snapshot says so, with the file it could not read
    return None


def refusal(label: str, directory: str, limits: SubmissionLimits, config_name: str) -> str | None:
    """The one-line refusal for a bot past a limit (None when it is within them): ``ana: more than
    5,000 files and folders in the bot directory; this ladder takes at most 5,000 (submission.max_files
    in ladder.yaml)``."""
    passed = over(directory, limits)
    if passed is None:
        return None
    key, most = ("max_files", f"{limits.max_files:,}") if "files and folders" in passed \
        else ("max_mb", f"{limits.max_mb:,} MB")
    return (f"{label}: {passed} in the bot directory (with the ../lib it shares, if any); this ladder takes at "
            f"most {most} (submission.{key} in {config_name}); nothing was entered")
