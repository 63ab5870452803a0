""""Did you mean" hints for a misspelt key or value, worded alike in every file the arena reads.

Tournament files and bot manifests are written by hand; a typo in a key is the most
common mistake, and naming the closest allowed word fixes it in one step.
"""

from __future__ import annotations

import difflib
from typing import Sequence


def did_you_mean(word: object, choices: Sequence[str]) -> str:
    """`` (did you mean 'run'?)`` for the closest of ``choices`` to ``word``; "" when none is close."""
    if not isinstance(word, str):
        return ""
    close = difflib.get_close_matches(word, choices, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""
