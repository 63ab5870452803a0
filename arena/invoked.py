"""How the user started this arena, so that a command it prints for them to run next can be pasted as it is.

``arena`` is only right when that name on ``PATH`` is this program: a checkout's arena is
often run as ``.venv/bin/arena`` with no ``arena`` on ``PATH``, or with another install's
``arena`` there, which would check the bot with other code.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from pathlib import Path

CONSOLE_SCRIPT = "arena"
"""The name of the console script pyproject.toml installs."""


def arena_command(argv0: str | None = None, on_path: str | None = None) -> str:
    """``arena`` when the ``arena`` on PATH (``on_path``, else looked up) is the program started as ``argv0``
    (else ``sys.argv[0]``); else that program's path as it was typed (``.venv/bin/arena``); else, when the
    arena was not started by its console script (``python -m arena.cli``), the interpreter and module."""
    started = sys.argv[0] if argv0 is None else argv0
    found = shutil.which(CONSOLE_SCRIPT) if on_path is None else on_path
    if Path(started).name == CONSOLE_SCRIPT and Path(started).is_file():
        if found and _same(found, started):
            return CONSOLE_SCRIPT
        return shlex.quote(started)
    return f"{shlex.quote(sys.executable)} -m arena.cli"


def _same(one: str, other: str) -> bool:
    try:
        return os.path.samefile(one, other)
    except OSError:
        return False
