"""What a public report leaves out: every line a bot wrote on stderr.

A report that ``arena serve`` hands to strangers must not show one author's logs to another
(a log may name the bot's cards, its strategy, its secrets). Two places of a report hold log text:
the fault list (``faults.html`` and the bot pages, the end of the bot's log under each fault) and the
viewer's frames (Cabo's ``botlog`` entries, and the ``stderr|`` lines under a fault's entry:
:mod:`arena.game.cabo_frames`). The pages are told ``public`` and write no tail; the frames, made
when their match was played and stored with it, are unpacked here, their log lines taken out, and
packed again, so a public build needs no replay read again and no frames made anew: about 0.6 ms of
a core a match (its frames inflated, parsed, written and deflated again), against 7 ms to make them.
"""

from __future__ import annotations

from typing import Any

import orjson

from ..game import framepack
from . import blocks

BOT_LOG = "botlog"
"""The class of a frames' log entry holding a piece of a bot's stderr (:mod:`arena.game.cabo_frames`)."""
STDERR_MARK = "  stderr| "
"""How a fault's entry in the frames starts each line of the bot's stderr under it."""


def strip_text(text: Any) -> Any:
    """A fault entry's text without its ``stderr|`` lines (anything else as it is)."""
    if not isinstance(text, str) or STDERR_MARK not in text:
        return text
    return "\n".join(line for line in text.split("\n") if not line.startswith(STDERR_MARK))


def strip_frames(frames: dict[str, Any]) -> dict[str, Any]:
    """``frames`` without a bot's log line: no ``botlog`` entry, no fault entry's ``stderr|`` lines (changed
    in place; returned)."""
    for step in frames.get("steps") or ():
        entries = step.get("log") if isinstance(step, dict) else None
        if not isinstance(entries, list):
            continue
        kept = []
        for entry in entries:
            if not isinstance(entry, list) or not entry:
                kept.append(entry)
                continue
            if entry[0] == BOT_LOG:
                continue
            entry = [strip_text(entry[1]) if i == 1 else piece for i, piece in enumerate(entry)] \
                if len(entry) > 1 else entry
            if len(entry) > 2 and isinstance(entry[2], list):
                entry[2] = [strip_text(view) for view in entry[2]]
            kept.append(entry)
        step["log"] = kept
    return frames


def public_entry(entry: blocks.Entry) -> blocks.Entry:
    """``entry`` with its frames' log lines taken out (the same entry when they hold none)."""
    line = framepack.unpack(entry.packed)
    if f'"{BOT_LOG}"' not in line and STDERR_MARK not in line:
        return entry
    stripped = orjson.dumps(strip_frames(orjson.loads(line))).decode("utf-8")  # a tenth of json's time
    return blocks.Entry(entry.idx, entry.deal, entry.format, framepack.pack(stripped))
