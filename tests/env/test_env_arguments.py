"""arena.env checks its arguments: a bad call raises TypeError (a wrong type) or ValueError (a value not allowed)
at the call, in one line that starts with the argument's name and says what is allowed; never an exception
from deep inside a match, and never a value quietly taken for another (``step(1.7)`` playing index 1)."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from arena.env import cabo_env, cabo_gym, random_policy  # noqa: E402
from arena.env.aec import CaboEnv, place_reward  # noqa: E402
from arena.env.encode import action_count, encode, layout, mask  # noqa: E402
from arena.env.gym import CaboGym  # noqa: E402
from arena.env.table import Table  # noqa: E402
from arena.game import make_rules  # noqa: E402
from arena.match.link import TimeControl  # noqa: E402

POLICY = random_policy(0)


def fresh() -> CaboEnv:
    """Two agents, not reset yet."""
    return cabo_env("standard", 2)


def started() -> CaboEnv:
    env = fresh()
    env.reset(seed=1)
    return env


def finished() -> CaboEnv:
    """A match played out, its agents not yet stepped out of it."""
    env = started()
    while not env.table.over:
        env.step(0)
    return env


def emptied() -> CaboEnv:
    """A match played out and every agent stepped out of it (``step(None)`` each)."""
    env = finished()
    while env.agents:
        env.step(None)
    return env


def gym_started() -> CaboGym:
    env = cabo_gym([POLICY])
    env.reset(seed=1)
    return env


def gym_finished() -> CaboGym:
    env = gym_started()
    done = False
    while not done:
        done = env.step(0)[2]
    return env


def asked() -> tuple[dict[str, Any], dict[str, int]]:
    """An act message of a two-seat match and the card values."""
    env = started()
    return env.observe(env.agent_selection)["message"], env.values


BAD_CALLS: list[tuple[str, Callable[[], Any], type[Exception], str]] = [
    ("preset None", lambda: cabo_env(None), TypeError, "preset must be one of 'standard' | 'espanola'"),
    ("preset unknown", lambda: cabo_env("frob"), ValueError, "preset must be one of"),
    ("players too many", lambda: cabo_env(players=6), ValueError, "players must be an int from 2 to 5, got 6"),
    ("players float", lambda: cabo_env(players=2.0), TypeError, "players must be an int from 2 to 5, got float"),
    ("players str", lambda: cabo_env(players="4"), TypeError, "players must be an int"),
    ("players bool", lambda: cabo_env(players=True), TypeError, "players must be an int"),
    ("players None", lambda: cabo_env(players=None), TypeError, "players must be an int"),
    ("options str", lambda: cabo_env(options="rounds=3"), TypeError, "options must be a mapping"),
    ("options pairs", lambda: cabo_env(options=[("max_rounds", 3)]), TypeError, "options must be a mapping"),
    ("opponents list", lambda: cabo_env(opponents=[POLICY]), TypeError, "opponents must be a mapping of seat"),
    ("opponents str", lambda: cabo_env(opponents="bots/random"), TypeError, "opponents must be a mapping"),
    ("opponent seat out of range", lambda: cabo_env(opponents={4: POLICY}), ValueError,
     "opponents' seat must be an int from 0 to 3, got 4"),
    ("opponent seat str", lambda: cabo_env(opponents={"1": POLICY}), TypeError, "opponents' seat must be an int"),
    ("opponent seat bool", lambda: cabo_env(opponents={True: POLICY}), TypeError, "opponents' seat must be an int"),
    ("opponents in every seat", lambda: cabo_env(players=2, opponents={0: POLICY, 1: POLICY}), ValueError,
     "opponents must leave at least one of the 2 seats"),
    ("max_slots 0", lambda: cabo_env(max_slots=0), ValueError, "max_slots must be an int from 4 to 64, got 0"),
    ("max_slots float", lambda: cabo_env(max_slots=2.5), TypeError, "max_slots must be an int"),
    ("max_slots bool", lambda: cabo_env(max_slots=True), TypeError, "max_slots must be an int"),
    ("max_slots huge", lambda: cabo_env(max_slots=10**7), ValueError, "max_slots must be an int from 4 to 64"),
    ("sandbox unknown", lambda: cabo_env(sandbox="frob"), ValueError, "sandbox must be one of 'auto' | 'none'"),
    ("sandbox None", lambda: cabo_env(sandbox=None), TypeError, "sandbox must be one of"),
    ("time int", lambda: cabo_env(time=1000), TypeError, "time must be a TimeControl or None, got int"),
    ("time negative", lambda: cabo_env(time=TimeControl(move_ms=-1)), ValueError,
     "time.move_ms must be an int from 1 to"),
    ("limits dict", lambda: cabo_env(limits={"cpu_seconds": 1}), TypeError, "limits must be a Limits or None"),
    ("fault_policy unknown", lambda: cabo_env(fault_policy="frob"), ValueError,
     "fault_policy must be one of 'forfeit' | 'fallback', got 'frob'"),
    ("fault_policy None", lambda: cabo_env(fault_policy=None), TypeError, "fault_policy must be one of"),
    ("fault_policy before any bot is built", lambda: cabo_env(opponents={1: "/nonexistent/bot"}, fault_policy="frob"),
     ValueError, "fault_policy must be one of"),
    ("render_mode unknown", lambda: cabo_env(render_mode="human"), ValueError, "render_mode must be one of None | 'ansi'"),
    # the games another test registered in this process are listed after cabo
    ("game unknown", lambda: cabo_env(game="frob"), ValueError, "game must be one of 'cabo'"),
    ("step before reset", lambda: fresh().step(0), ValueError, "step(action) was called before reset()"),
    ("observe before reset", lambda: fresh().observe("player_0"), ValueError, "observe(agent) was called before reset()"),
    ("last before reset", lambda: fresh().last(), ValueError, "last() was called before reset()"),
    ("reset seed float", lambda: fresh().reset(seed=1.5), TypeError, "reset(seed) must be an int from 0 up or None"),
    ("reset seed str", lambda: fresh().reset(seed="abc"), TypeError, "reset(seed) must be an int"),
    ("reset seed negative", lambda: fresh().reset(seed=-1), ValueError, "reset(seed) must be an int from 0 up"),
    ("reset seed bool", lambda: fresh().reset(seed=True), TypeError, "reset(seed) must be an int"),
    ("reset options str", lambda: fresh().reset(seed=1, options="x"), TypeError, "reset(options) must be a mapping"),
    ("step float", lambda: started().step(1.7), TypeError,
     "step(action) must be an int index of one of seat 0's 6 legal actions (0..5), got float 1.7"),
    ("step whole float", lambda: started().step(1.0), TypeError, "step(action) must be an int index"),
    ("step numpy float", lambda: started().step(np.float64(1)), TypeError, "step(action) must be an int index"),
    ("step str", lambda: started().step("1"), TypeError, "step(action) must be an int index"),
    ("step bool", lambda: started().step(True), TypeError, "step(action) must be an int index"),
    ("step numpy bool", lambda: started().step(np.bool_(True)), TypeError, "step(action) must be an int index"),
    ("step None while asked", lambda: started().step(None), TypeError, "step(action) must be an int index"),
    ("step out of range", lambda: started().step(10_000), ValueError,
     "step(action): 10000 is not one of seat 0's 6 legal actions"),
    ("step negative", lambda: started().step(-1), ValueError, "step(action): -1 is not one of seat 0's"),
    ("step an index once the match is over", lambda: finished().step(0), ValueError,
     "step(action) must be None for player_0: its match is over"),
    ("step after every agent left", lambda: emptied().step(None), ValueError,
     "step(action) was called after every agent left the ended match"),
    ("observe unknown agent", lambda: started().observe("player_9"), ValueError,
     "observe(agent) must be one of 'player_0' | 'player_1'"),
    ("observe a seat number", lambda: started().observe(0), TypeError, "observe(agent) must be one of"),
    ("observation_space unknown agent", lambda: fresh().observation_space("frob"), ValueError,
     "observation_space(agent) must be one of"),
    ("action_space unknown agent", lambda: fresh().action_space("player_9"), ValueError,
     "action_space(agent) must be one of"),
    ("gym opponents str", lambda: cabo_gym("bots/random"), TypeError, "opponents must be a list of 1 to 4 opponents"),
    ("gym opponents mapping", lambda: cabo_gym({1: POLICY}), TypeError, "opponents must be a list"),
    ("gym opponents callable", lambda: cabo_gym(POLICY), TypeError, "opponents must be a list"),
    ("gym no opponents", lambda: cabo_gym([]), ValueError, "opponents must be a list of 1 to 4 opponents"),
    ("gym too many opponents", lambda: cabo_gym([POLICY] * 5), ValueError, "opponents must be a list"),
    ("gym seat float", lambda: cabo_gym([POLICY], seat=1.0), TypeError, "seat must be an int from 0 to 1"),
    ("gym seat bool", lambda: cabo_gym([POLICY], seat=True), TypeError, "seat must be an int"),
    ("gym seat str", lambda: cabo_gym([POLICY], seat="0"), TypeError, "seat must be an int"),
    ("gym seat out of range", lambda: cabo_gym([POLICY], seat=2), ValueError, "seat must be an int from 0 to 1, got 2"),
    ("gym fault_policy unknown", lambda: cabo_gym([POLICY], fault_policy="frob"), ValueError, "fault_policy must be"),
    ("gym reset seed negative", lambda: cabo_gym([POLICY]).reset(seed=-1), ValueError, "reset(seed) must be an int"),
    ("gym reset seed float", lambda: cabo_gym([POLICY]).reset(seed=1.5), TypeError, "reset(seed) must be an int"),
    ("gym step before reset", lambda: cabo_gym([POLICY]).step(0), ValueError, "step(action) was called before reset()"),
    ("gym step float", lambda: gym_started().step(1.7), TypeError, "step(action) must be an int index"),
    ("gym step after the end", lambda: gym_finished().step(0), ValueError,
     "step(action) was called after the match ended"),
    ("gym step None after the end", lambda: gym_finished().step(None), ValueError,
     "step(action) was called after the match ended"),
    ("random_policy None", lambda: random_policy(None), TypeError, "seed must be an int from 0 up or a str"),
    ("random_policy float", lambda: random_policy(1.5), TypeError, "seed must be an int"),
    ("random_policy bool", lambda: random_policy(True), TypeError, "seed must be an int"),
    ("random_policy negative", lambda: random_policy(-1), ValueError, "seed must be an int from 0 up"),
    ("layout 0", lambda: layout(0), ValueError, "max_slots must be an int from 4 to 64"),
    ("layout float", lambda: layout(1.5), TypeError, "max_slots must be an int"),
    ("action_count one player", lambda: action_count(1, 8), ValueError, "players must be an int from 2 to 5"),
    ("action_count float", lambda: action_count(4.0, 8), TypeError, "players must be an int"),
    ("mask negative size", lambda: mask(asked()[0], -1), ValueError, "size must be an int from 1 up"),
    ("mask not a message", lambda: mask({}, 10), ValueError, "message must be an act message"),
    ("mask None", lambda: mask(None, 10), TypeError, "message must be an act message"),
    ("encode not a message", lambda: encode({}, asked()[1], 2, 8), ValueError, "message must be an act message"),
    ("encode other seats", lambda: encode(*asked(), 3, 8), ValueError,
     "players must be the seats the message shows, 2, got 3"),
    ("encode too many players", lambda: encode(*asked(), 6, 8), ValueError, "players must be an int from 2 to 5"),
    ("encode no values", lambda: encode(asked()[0], {}, 2, 8), ValueError, "values must be the card values"),
    ("encode values None", lambda: encode(asked()[0], None, 2, 8), TypeError, "values must be the card values"),
    ("encode players float", lambda: encode(*asked(), 2.0, 8), TypeError, "players must be an int"),
    ("place_reward one player", lambda: place_reward(1, 1), ValueError, "players must be an int from 2 up"),
    ("place_reward place past the last", lambda: place_reward(5, 4), ValueError, "place must be an int from 1 to 4"),
    ("Table fault_policy", lambda: Table(make_rules("standard"), 2, {}, fault_policy="frob"), ValueError,
     "fault_policy must be one of"),
    ("Table max_faults", lambda: Table(make_rules("standard"), 2, {}, max_faults=0), ValueError,
     "max_faults must be an int from 1 to"),
]


@pytest.mark.parametrize("call,kind,start", [row[1:] for row in BAD_CALLS], ids=[row[0] for row in BAD_CALLS])
def test_a_bad_call_names_its_argument_and_what_is_allowed(call: Callable[[], Any], kind: type[Exception],
                                                          start: str) -> None:
    with pytest.raises(Exception) as caught:
        call()
    message = str(caught.value)
    assert type(caught.value) is kind, f"{type(caught.value).__name__}: {message}"
    assert message.startswith(start), message
    assert "\n" not in message


def test_numpy_integers_are_taken_where_ints_are() -> None:
    """What array code hands on (``np.int64`` from ``argmax``, a 0-d array from a policy) plays as the int would."""
    def picks(env: CaboEnv, seed: Any, index: Callable[[int], Any]) -> list[int]:
        env.reset(seed=seed)
        seen = []
        for _ in env.agent_iter(max_iter=60):
            observation, _, done, _, _ = env.last()
            seen.append(int(observation["action_mask"].sum()))
            env.step(None if done else index(0))
        return seen

    def numpy_env() -> CaboEnv:
        return cabo_env("standard", np.int64(3), opponents={np.int64(1): random_policy(np.int64(4))},
                        max_slots=np.int64(8))

    plain = picks(cabo_env("standard", 3, opponents={1: random_policy(4)}), 3, int)
    assert type(numpy_env().players) is int
    assert picks(numpy_env(), np.int64(3), np.int64) == plain
    assert picks(numpy_env(), np.uint8(3), np.array) == plain
    observation, _ = cabo_gym((POLICY,), seat=np.int64(1)).reset(seed=np.int64(2))
    assert observation["message"]["state"]["seat"] == 1


def test_a_refused_action_leaves_the_match_as_it_was() -> None:
    """``step(1.7)`` neither plays index 1 nor changes what the agent is shown: the match goes on as if it had
    never been called."""
    env, twin = started(), started()
    with pytest.raises(TypeError):
        env.step(1.7)
    assert env.agent_selection == twin.agent_selection
    for one in (env, twin):
        one.step(1)
    assert env.agent_selection == twin.agent_selection
    assert env.observe(env.agent_selection)["message"] == twin.observe(twin.agent_selection)["message"]
