"""Every example bot plays full matches over real pipes, under both presets."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.bots import load_bot
from arena.game.rules import make_rules
from arena.match.runner import MatchJob, play_match
from arena.sandbox import get_backend

from .driver import BOTS, BotProc, ProcSeat, manifest, play, play_processes

LINEUPS = [
    ("standard", {}, ["heuristic", "random", "js-greedy", "c-random"], 1),
    ("standard", {}, ["c-random", "js-greedy"], 2),
    ("standard", {"multi_swap_from_discard": False}, ["random", "c-random", "heuristic"], 3),
    ("standard", {}, ["js-greedy", "heuristic", "random", "c-random", "heuristic"], 4),
    ("standard", {}, ["heuristic", "js-greedy"], 5),
    ("espanola", {}, ["heuristic", "random", "js-greedy", "c-random"], 6),
    ("espanola", {}, ["js-greedy", "heuristic"], 7),
    ("espanola", {"kings_zero": "all", "pairs": False}, ["c-random", "heuristic", "random"], 8),
    ("espanola", {"cabo_bonus": "literal", "kings_zero": "none"}, ["random", "js-greedy", "heuristic", "c-random", "js-greedy"], 9),
    ("espanola", {"rounds": 3}, ["heuristic", "js-greedy", "heuristic", "random"], 10),
]


@pytest.mark.parametrize("preset,options,lineup,seed", LINEUPS,
                         ids=[f"{p}-{'-'.join(l)}" for p, _, l, _ in LINEUPS])
def test_full_match(bot_dirs: dict[str, Path], preset: str, options: dict[str, Any], lineup: list[str],
                    seed: int) -> None:
    match = play_processes([bot_dirs[name] for name in lineup], preset, seed, options)
    assert match.result is not None
    assert len(match.result.places) == len(lineup)


@pytest.mark.parametrize("preset", ["standard", "espanola"])
def test_every_example_bot_plays_under_the_bwrap_allowlist(bot_dirs: dict[str, Path], preset: str) -> None:
    """Python, Node and a static C bot, as an unprivileged uid seeing only the allowlisted files."""
    ok, why = get_backend("bwrap").available()
    if not ok:
        pytest.skip(f"bwrap unavailable: {why}")
    bots = tuple(load_bot(str(bot_dirs[name])) for name in ("heuristic", "random", "js-greedy", "c-random"))
    outcome = play_match(MatchJob(f"allowlist-{preset}", make_rules(preset), 11, bots, sandbox="bwrap"))
    assert outcome.sandbox == "bwrap"
    assert outcome.faults == (), [(f.bot, f.kind, f.detail, f.stderr) for f in outcome.faults]
    assert outcome.decisions > 0


def test_manifests() -> None:
    names = set()
    for bot in ("random", "heuristic", "js-greedy", "c-random"):
        data = manifest(BOTS / bot)
        assert data["name"] == bot
        assert set(data) >= {"name", "description", "language", "build", "run"}
        assert isinstance(data["run"], list) and data["run"]
        names.add(data["name"])
    assert len(names) == 4
    assert (BOTS / "c-random" / ".gitignore").read_text().split() == ["bot"]


def test_second_hello_reuses_process(bot_dirs: dict[str, Path]) -> None:
    """One process per bot plays two matches (a new hello after over), then exits on EOF.

    All four bots are deterministic given the match id and seat, so replaying the
    second match with fresh processes must give exactly the same actions: the
    reused processes really started over."""
    lineup = ["heuristic", "js-greedy", "c-random", "random"]
    procs = [BotProc(bot_dirs[name]) for name in lineup]
    try:
        seats = [ProcSeat(p) for p in procs]
        first = play(seats, "standard", 11)
        second = play(seats[::-1], "espanola", 12)
    finally:
        codes = [p.close() for p in procs]
    assert codes == [0, 0, 0, 0]
    assert first.result is not None and second.result is not None
    fresh = play_processes([bot_dirs[name] for name in lineup[::-1]], "espanola", 12)
    assert [(s, a) for s, a, _ in fresh.history] == [(s, a) for s, a, _ in second.history]


@pytest.mark.parametrize("name", ["random", "heuristic", "js-greedy", "c-random"])
def test_ignores_unknown_messages_and_exits_on_eof(bot_dirs: dict[str, Path], name: str) -> None:
    proc = BotProc(bot_dirs[name])
    try:
        proc.send({"type": "ping", "payload": [1, {"type": "act"}]})
        proc.send({"type": "hello", "protocol": 1, "match": "m-x", "seat": 1, "players": 2,
                   "rules": {"preset": "standard", "options": {}}, "values": {"AS": 1},
                   "time": {"move_ms": 1000, "startup_ms": 10000}, "future_field": {"x": 1}})
        ready = proc.recv()
        assert ready["type"] == "ready" and isinstance(ready["name"], str) and ready["name"]
        proc.send({"type": "update", "events": []})
        proc.send({"type": "something_new"})
    finally:
        assert proc.close() == 0
