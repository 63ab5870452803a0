"""Refuse to resume a tournament whose bots were edited since its matches were played.

The fingerprint covers settings, not code; this covers code. The first run stores, per
bot, the sha256 of each of its files and the files its build writes (never compared:
builds need not be reproducible). A later run compares; a bot whose files differ would
put two versions under one name in the leaderboard, so the run stops and says which
files changed, unless the user accepts the change.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..bots import BotSpec, build_outputs
from ..bots import files
from .store import ResultStore, StoreMismatch

META_KEY = "bot_files"
"""results.sqlite meta entry: ``{bot name: {"files": {name: sha256}, "built": [names]}}``."""


class BotsChanged(StoreMismatch):
    """Bots differ from the ones that played the stored matches; the message lists the files."""


def check_bot_files(store: ResultStore, bots: Sequence[BotSpec], accept: bool = False) -> list[str]:
    """Compare the bots' files with the stored ones, then store the current ones.

    Returns notes for the user (changes accepted). Raises :class:`BotsChanged` when a bot
    changed, matches are already stored, and ``accept`` is false. Plain command lines
    (no directory) are not checked: the arena cannot tell what they run.
    """
    stored: dict[str, Any] = store.meta(META_KEY) or {}
    played = bool(store.done())
    current: dict[str, Any] = {}
    changes: list[str] = []
    for spec in bots:
        if not spec.directory:
            continue
        before = stored.get(spec.name)
        built = sorted(set(before["built"] if before else ()) | build_outputs(spec))
        now = files.digests(spec.directory, exclude=built)
        current[spec.name] = {"files": now, "built": built}
        if before is None or not played:
            continue
        old = {name: digest for name, digest in before["files"].items() if name not in built}
        words = files.difference(old, now)
        if words:
            shown = ", ".join(words[:6]) + (f" and {len(words) - 6} more" if len(words) > 6 else "")
            changes.append(f"  {spec.name} ({spec.directory}): {shown}")
    if changes and not accept:
        raise BotsChanged(
            "bots changed since this tournament's stored matches were played; resuming would mix two versions "
            "under one name in the leaderboard:\n" + "\n".join(changes) + "\n"
            "To rate the new version, give the bot a new name or choose another output directory; to resume "
            "anyway, run again with --accept-bot-changes.")
    store.set_meta(META_KEY, {**stored, **current})
    return [f"accepted changed bot files:\n{line}" for line in changes]
