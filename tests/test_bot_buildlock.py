"""Building a bot waits for other arenas starting it, and starting waits for a build.

That one waited for the other is seen in what the other left (a file it writes just before it lets go of
the lock), not in a duration: a busy machine stretches and shrinks those.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from arena.bots import BotConfigError, build_bot, load_bot
from arena.game import make_rules
from arena.match.runner import MatchJob, play_match

ROOT = Path(__file__).resolve().parent.parent
HOLD = """
import sys, time
sys.path.insert(0, {root!r})
from arena.bots.buildlock import bot_lock
with bot_lock([{directory!r}], exclusive={exclusive}):
    print("held", flush=True)
    time.sleep({seconds})
    open({released!r}, "w").close()
"""


def hold(directory: Path, exclusive: bool, seconds: float) -> subprocess.Popen[str]:
    """Another arena process holding the bot's lock for ``seconds``; it makes :func:`released` just before
    it lets go."""
    code = HOLD.format(root=str(ROOT), directory=str(directory), exclusive=exclusive, seconds=seconds,
                       released=str(released(directory)))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline() == "held\n"
    return proc


def released(directory: Path) -> Path:
    """The file :func:`hold` makes just before it lets go of the lock."""
    return directory.parent / f"{directory.name}.released"


def c_bot_copy(tmp_path: Path) -> Path:
    directory = tmp_path / "c-bot"
    shutil.copytree(ROOT / "bots" / "c-random", directory, ignore=shutil.ignore_patterns("bot"))
    return directory


def test_bots_start_after_another_arenas_build_of_them(tmp_path):
    directory = c_bot_copy(tmp_path)
    spec = load_bot(str(directory))
    build_bot(spec)
    builder = hold(directory, exclusive=True, seconds=1.0)
    try:
        bots = (spec, load_bot(str(ROOT / "bots" / "random")))
        outcome = play_match(MatchJob("m", make_rules("standard"), 1, bots, sandbox="none"))
        assert outcome.faults == ()
        assert released(directory).exists()  # it waited for the build
    finally:
        builder.wait()


def test_a_build_waits_for_another_arena_starting_the_bot_and_gives_up_in_words(tmp_path, monkeypatch):
    from arena.bots import spec as bot_spec

    directory = c_bot_copy(tmp_path)
    starting = hold(directory, exclusive=False, seconds=1.0)
    try:
        build_bot(load_bot(str(directory), name="waits"))
        assert released(directory).exists()  # it waited for the start
    finally:
        starting.wait()
    monkeypatch.setattr(bot_spec, "_built", {})  # as in a later arena process
    starting = hold(directory, exclusive=False, seconds=3600)  # lets go only when killed
    try:
        with pytest.raises(BotConfigError, match="another arena kept starting this bot"):
            build_bot(load_bot(str(directory), name="gives-up"), timeout=0.5)
    finally:
        starting.kill()
        starting.wait()


def test_rebuilding_beside_a_running_tournament_causes_no_startup_fault(tmp_path):
    """Two arenas sharing a C bot: one rebuilds it over and over while the other starts it.

    The builder goes on until the matches are over (a file says so), however long they take."""
    directory = c_bot_copy(tmp_path)
    spec = load_bot(str(directory))
    build_bot(spec)
    done = tmp_path / "matches-done"
    loop = (f"import os, sys; sys.path.insert(0, {str(ROOT)!r})\n"
            "from arena.bots import spec as s\n"
            f"bot = s.load_bot({str(directory)!r})\n"
            "s._built.clear(); s.build_bot(bot)\n"
            "print('building', flush=True)\n"
            f"while not os.path.exists({str(done)!r}):\n"
            "    s._built.clear(); s.build_bot(bot)\n")
    builder = subprocess.Popen([sys.executable, "-c", loop], stdout=subprocess.PIPE, text=True)
    try:
        assert builder.stdout is not None and builder.stdout.readline() == "building\n"  # rebuilding from now on
        faults = []
        for number in range(1, 4):
            bots = (spec, load_bot(str(directory), name="twin"))
            outcome = play_match(MatchJob(f"m{number}", make_rules("standard"), number, bots, sandbox="none"))
            faults += [f.detail for f in outcome.faults]
        assert builder.poll() is None  # still rebuilding: every match started beside it
        assert faults == []
    finally:
        done.touch()
        builder.wait()
