"""A real package from the index: runs only where ``ARENA_NETWORK_TESTS=1`` (CI), since it downloads numpy."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from arena.bots import build_bot, load_bot
from arena.sandbox import get_backend

from .conftest import need_backend, play, readable

pytestmark = pytest.mark.skipif(os.environ.get("ARENA_NETWORK_TESTS") != "1",
                                reason="downloads numpy from the package index: set ARENA_NETWORK_TESTS=1 (CI does)")

NUMPY_BOT = '''\
import json
import sys

import numpy as np

rng = np.random.default_rng(0)
for line in sys.stdin:
    msg = json.loads(line)
    if msg.get("type") == "hello":
        rng = np.random.default_rng([ord(c) for c in f"{msg.get('match')}/{msg.get('seat')}"])
        print(json.dumps({"type": "ready", "name": "numpy-" + np.__version__}), flush=True)
    elif msg.get("type") == "act":
        scores = rng.random(len(msg["legal"]))
        print(json.dumps({"type": "action", "id": msg["id"], "index": int(np.argmax(scores))}), flush=True)
'''


def test_a_bot_importing_numpy_from_the_index_plays_under_bwrap(tmp_path: Path, own_cache: Path) -> None:
    need_backend("bwrap")
    directory = tmp_path / "numpy-bot"
    directory.mkdir()
    (directory / "requirements.txt").write_text("numpy>=1.24,<3\n")
    (directory / "bot.py").write_text(NUMPY_BOT)
    (directory / "bot.yaml").write_text('name: numpy-bot\nrun: ["{python}", "bot.py"]\n')
    spec = load_bot(str(readable(directory)))
    build_bot(spec, get_backend("bwrap"))  # pip from the index, inside the sandbox
    outcome = play(spec, "bwrap")
    assert outcome.faults == () and outcome.stats[0].decisions > 0, outcome.faults
