"""arena.env: Cabo as a PettingZoo AEC environment and a Gymnasium one, shown what a bot in the seat is sent."""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test  # noqa: E402

from arena.bots import load_bot  # noqa: E402
from arena.env import cabo_env, cabo_gym, random_policy  # noqa: E402
from arena.env.encode import action_count, encode, layout  # noqa: E402
from arena.env.table import draw_seed  # noqa: E402
from arena.game import make_rules  # noqa: E402
from arena.match import protocol  # noqa: E402
from arena.match.link import TimeControl  # noqa: E402
from arena.match.runner import MatchJob, play_match  # noqa: E402
from arena.match.seeds import play_match_id  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
RECORDER = ROOT / "tests" / "bots" / "recorder.py"


@pytest.mark.parametrize("preset,players,options,opponents", [
    ("standard", 2, {}, {}),
    ("standard", 4, {}, {}),
    ("espanola", 3, {"rounds": 2, "pairs": True}, {1: random_policy(1)}),
    ("espanola", 5, {"rounds": 1}, {0: random_policy(2), 4: random_policy(3)}),
])
def test_it_passes_pettingzoos_api_test(preset, players, options, opponents):
    env = cabo_env(preset, players, options, opponents)
    api_test(env, num_cycles=3000)
    assert env.possible_agents == [f"player_{s}" for s in range(players) if s not in opponents]


def recorded(directory: Path) -> dict[int, list[bytes]]:
    """The lines each recorder bot was sent, by the seat its hello named."""
    out = {}
    for path in directory.glob("*.jsonl"):
        lines = path.read_bytes().splitlines(keepends=True)
        out[json.loads(lines[0])["seat"]] = lines
    return out


def drive(env: Any, seed: int) -> dict[int, list[bytes]]:
    """Play the env as recorder bots would (their random streams, from the match id and seat), keeping every
    message each agent was given, encoded as the arena encodes a line."""
    env.reset(seed=seed)
    seen: dict[int, list[bytes]] = {}
    streams: dict[int, random.Random] = {}
    for agent in env.agent_iter():
        seat = env.seat_of(agent)
        observation, _, done, _, info = env.last()
        for message in info["sent"]:
            seen.setdefault(seat, []).append(protocol.encode(message))
            if message["type"] == "hello":
                streams[seat] = random.Random(f"{message['match']}/{seat}")
        if done:
            env.step(None)
            continue
        message = observation["message"]
        seen[seat].append(protocol.encode(message))
        env.step(streams[seat].randrange(len(message["legal"])))
    return seen


@pytest.mark.parametrize("preset,players", [("standard", 4), ("espanola", 3)])
def test_an_agent_is_sent_byte_for_byte_what_a_bot_in_its_seat_is_sent(tmp_path, preset, players):
    """The same deal played by the arena with recorder bots and by the environment choosing as they do:
    every agent's messages (hello, each act, each update, over) are the lines the bot in that seat read."""
    seed = draw_seed(random.Random(7))
    bots = tuple(load_bot(f"r{s}=/usr/bin/python3 {RECORDER} {tmp_path}") for s in range(players))
    rules = make_rules(preset)
    play_match(MatchJob("m", rules, seed, bots, TimeControl(), "none", wire_id=play_match_id(seed)))
    arena = recorded(tmp_path)
    env = cabo_env(preset, players)
    assert drive(env, 7) == arena
    assert sum(len(lines) for lines in arena.values()) > 20 * players


def test_a_bot_opponent_is_sent_what_it_would_be_in_a_tournament(tmp_path):
    """Opponents from bot processes (here the recorder, under no sandbox) read the same lines as at the arena's
    table, and the agents beside them are shown theirs."""
    seed = draw_seed(random.Random(3))
    arena_dir, env_dir = tmp_path / "arena", tmp_path / "env"
    arena_dir.mkdir()
    env_dir.mkdir()
    bots = tuple(load_bot(f"r{s}=/usr/bin/python3 {RECORDER} {arena_dir}") for s in range(4))
    play_match(MatchJob("m", make_rules("standard"), seed, bots, TimeControl(), "none", wire_id=play_match_id(seed)))
    env = cabo_env("standard", 4, opponents={s: f"/usr/bin/python3 {RECORDER} {env_dir}" for s in (1, 3)},
                   sandbox="none")
    try:
        agents = drive(env, 3)
    finally:
        env.close()
    arena, opponents = recorded(arena_dir), recorded(env_dir)
    assert agents == {s: arena[s] for s in (0, 2)} and opponents == {s: arena[s] for s in (1, 3)}


def test_the_gym_environment_plays_one_seat_against_a_field_reproducibly():
    def play(seed: int) -> tuple[list[int], float, dict[str, Any]]:
        env = cabo_gym([str(ROOT / "bots" / "random"), random_policy(5), str(ROOT / "bots" / "heuristic")], seat=2)
        try:
            observation, info = env.reset(seed=seed)
            assert info["sent"][0]["type"] == "hello" and info["sent"][0]["seat"] == 2
            picks, rng, done, reward = [], np.random.default_rng(seed), False, 0.0
            while not done:
                assert env.observation_space.contains(observation)
                assert observation["message"]["state"]["seat"] == 2
                pick = int(rng.choice(np.flatnonzero(observation["action_mask"])))
                picks.append(pick)
                observation, reward, done, truncated, info = env.step(pick)
                assert not truncated and (reward == 0.0 or done)
            return picks, reward, info
        finally:
            env.close()

    picks, reward, info = play(11)
    assert (picks, reward, info["result"]) == play(11)[:2] + (play(11)[2]["result"],)
    place = info["result"]["places"][2]
    assert reward == 1.0 - 2.0 * (place - 1) / 3 and info["sent"][-1]["type"] == "over"
    assert info["faults"] == []


def test_a_faulting_opponent_is_played_by_the_fallback_and_ranks_last():
    crash = f"/usr/bin/python3 {ROOT / 'tests' / 'bots' / 'fault_exit.py'} 2"
    env = cabo_gym([crash, random_policy(1)], seat=0, sandbox="none")
    try:
        observation, _ = env.reset(seed=1)
        done = False
        while not done:
            observation, _, done, _, info = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    finally:
        env.close()
    assert [f[0] for f in info["faults"]] == [1] and info["result"]["forfeited"] == [False, True, False]
    assert info["result"]["places"][1] == 3


def test_a_bad_opponent_is_one_line_naming_it(tmp_path):
    with pytest.raises(ValueError, match=f"opponent {tmp_path / 'nope'}: ") as caught:
        cabo_gym([str(tmp_path / "nope")])
    assert "\n" not in str(caught.value)
    with pytest.raises(ValueError, match="an opponent is a bot directory"):
        cabo_gym([3])
    with pytest.raises(ValueError, match="not one of seat 0's"):
        env = cabo_gym([random_policy(0)])
        env.reset(seed=0)
        env.step(10_000)


def test_the_vector_holds_what_the_message_says_and_nothing_hidden():
    """Each known card's value sits in its slot, a card the seat does not know reads as unknown, and the
    mask has one entry per legal action."""
    env = cabo_env("standard", 3)
    env.reset(seed=4)
    names = layout(env.max_slots)
    for agent in env.agent_iter(max_iter=200):
        observation, _, done, _, _ = env.last()
        if done:
            env.step(None)
            continue
        message, vector = observation["message"], observation["observation"]
        assert vector.shape == (len(names),) and np.all(np.abs(vector) <= 1.0)
        state = message["state"]
        for rel in range(3):
            seat = (state["seat"] + rel) % 3
            for slot, card in enumerate(state["hands"][seat]):
                known = vector[names.index(f"seat+{rel}.slot{slot}.known")]
                value = vector[names.index(f"seat+{rel}.slot{slot}.value")]
                assert known == (card not in (None, "?"))
                assert value == (0.0 if card in (None, "?") else np.float32(env.values[card] / 13))
        assert observation["action_mask"].sum() == len(message["legal"])
        assert len(observation["action_mask"]) == action_count(3, env.max_slots)
        assert np.array_equal(vector, encode(message, env.values, 3, env.max_slots))
        env.step(int(np.flatnonzero(observation["action_mask"])[-1]))


def test_the_worked_example_trains_and_measures(tmp_path):
    """examples/train_linear.py, as small as it goes: it trains, then prints both policies' places against the
    bundled random bot run under the sandbox."""
    import subprocess

    done = subprocess.run([sys.executable, str(ROOT / "examples" / "train_linear.py"), "--generations", "2",
                           "--population", "6", "--deals", "4", "--eval", "8"],
                          capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["generation 1", "generation 2"]
    assert any(line.startswith("trained: average place ") and "of 8 deals against 3 x random" in line for line in lines)
    assert any(line.startswith("random: average place ") for line in lines)
