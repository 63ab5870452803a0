"""The code blocks of the docs (README.md, docker/README.md, docs/*.md) that a reader is meant to run do run.

The convention: a fenced ```python block is run unless the line right above its fence is an HTML comment
``<!-- not run: REASON -->``; a shell block (```sh, ```bash) is run only when that line is ``<!-- run -->``
(commands that need no earlier state and take seconds). Each runs in a fresh process, in a temporary
directory in which the checkout's ``bots``, ``docs``, ``tournaments``, ``examples`` and ``.venv`` are
reachable by the same relative paths as from the checkout, so whatever a block writes stays out of it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .docs_markdown import ROOT, Block, blocks, docs_files, split

PYTHON = ("python", "py")
SHELLS = ("sh", "bash", "shell")
REACHABLE = ("bots", "docs", "tournaments", "examples")
KNOWN_FAILING: dict[str, str] = {}
"""Blocks, by ``file:line``, known to fail and why; strict, so the fix of a block must remove its entry."""


def runnable(block: Block) -> bool:
    """Whether the convention above runs ``block``."""
    if block.lang in PYTHON:
        return not block.note.startswith("not run:")
    return block.lang in SHELLS and block.note == "run"


def collected() -> list[Block]:
    """Every runnable block of the docs, in file order."""
    return [block for path in docs_files() for block in blocks(path) if runnable(block)]


def where(block: Block) -> str:
    """The block's name in test ids and failures: its file and the line of its opening fence."""
    return f"{block.path.relative_to(ROOT)}:{block.line}"


def cases() -> list[Any]:
    """The runnable blocks as test cases, a known failure marked as such (strictly: a fix must unmark it)."""
    marked = []
    for block in collected():
        reason = KNOWN_FAILING.get(where(block))
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        marked.append(pytest.param(block, id=where(block), marks=marks))
    return marked


@pytest.mark.parametrize("block", cases())
def test_doc_block_runs(block: Block, tmp_path: Path) -> None:
    """The block exits 0, its stdin closed (a bot's loop ends at once)."""
    for name in REACHABLE:
        (tmp_path / name).symlink_to(ROOT / name)
    (tmp_path / ".venv").symlink_to(sys.prefix)
    python = block.lang in PYTHON
    script = tmp_path / ("block.py" if python else "block.sh")
    script.write_text(block.code, encoding="utf-8")
    command = [sys.executable, script.name] if python else ["bash", "-e", "-o", "pipefail", script.name]
    done = subprocess.run(command, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, (f"{where(block)} exited {done.returncode}\n--- stderr\n{done.stderr}"
                                  f"--- stdout\n{done.stdout}")


@pytest.mark.parametrize(("note", "lang", "runs"), [
    ("", "python", True),
    ("minimal bot: python", "python", True),
    ("not run: needs a Docker engine", "python", False),
    ("", "sh", False),
    ("run", "sh", True),
    ("run", "yaml", False),
])
def test_which_blocks_run(note: str, lang: str, runs: bool) -> None:
    """The convention, read from the comment right above a fence."""
    text = (f"<!-- {note} -->\n" if note else "Text.\n") + f"```{lang}\nx\n```\n"
    [block] = split(text)[0]
    assert runnable(block) is runs
