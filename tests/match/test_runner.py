"""Fault handling of the match runner, with real bot processes.

Every faulting bot is a ``tests/bots/fault_*.py`` script that plays like ``bots/random``
until a chosen ``act`` (argv), then commits one fault. The other seats are
``bots/random``. Every test also checks that no bot process outlives ``play_match``.

Time limits are far above what a bot meant to be in time needs, on a machine many times
slower than a quiet one; a bot meant to be late answers only once the arena gave up on it
(``fault_timeout.py``'s ``late``), never after a sleep a busy arena might not notice in time.
Only the sleeps of bots meant to be slow but in time, and the silent bot's wait for
``startup_ms``, cost the module time.
"""

from __future__ import annotations

import dataclasses
import os
import pickle
import re
import shutil
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.match import protocol
from arena.match.link import BotLink, TimeControl
from arena.bots.spec import BotSpec, load_bot
from arena.match.fallback import fallback_index
from arena.match.faults import Fault, FaultKind
from arena.game import Match, make_rules
from arena.game.replay import read_replay
from arena.game.scoring import places as plain_places
from arena.match.runner import MatchJob, MatchOutcome, final_places, play_batch, play_match
from arena.sandbox import backends, get_backend, reaper

ROOT = Path(__file__).resolve().parents[2]
FAULT_BOTS = ROOT / "tests" / "bots"
RANDOM = str(ROOT / "bots" / "random")
PYTHON = "/usr/bin/python3"
MOVE_MS = 1000
"""Far above a random bot's answer (a few ms; ~100 ms at worst on 2 cores with a load average of 13)."""
STARTUP_MS = 30_000
"""Far above a start (~0.1-0.5 s); a bot that fails its start exits or stays silent, costing only ``SILENT``."""
TIME = TimeControl(move_ms=MOVE_MS, startup_ms=STARTUP_MS)
ROOMY = TimeControl(move_ms=2500, startup_ms=STARTUP_MS)
"""For bots that sleep 60% of move_ms on purpose and must still be in time: a second to spare."""
SILENT = TimeControl(move_ms=MOVE_MS, startup_ms=5000)
"""For the bot that never says ``ready``: it costs all of startup_ms, which the others' starts must meet."""
MARKER = "FAULT-MARKER"
CORRUPT = "CORRUPT-LINE-FROM-ARENA"


# --------------------------------------------------------------------------- helpers

def fault_bot(script: str, *args: str, name: str = "faulty") -> BotSpec:
    """A ``tests/bots/<script>.py`` bot run by the system Python, as a command line."""
    return load_bot(" ".join([PYTHON, str(FAULT_BOTS / f"{script}.py"), *args]), name=name)


def table(players: int, seat: int, bot: BotSpec) -> tuple[BotSpec, ...]:
    """``bot`` at ``seat``, ``bots/random`` (distinct names) everywhere else."""
    return tuple(bot if s == seat else load_bot(RANDOM, name=f"r{s}") for s in range(players))


def job(bots: tuple[BotSpec, ...], preset: str = "standard", seed: int | str = 7, *, policy: str = "forfeit",
        max_faults: int = 3, time_control: TimeControl = TIME, sandbox: str = "none",
        match_id: str = "t-0001", **options: Any) -> MatchJob:
    return MatchJob(match_id=match_id, rules=make_rules(preset, options), seed=seed, bots=bots,
                    time=time_control, sandbox=sandbox, fault_policy=policy, max_faults=max_faults)


def _proc_table() -> dict[int, tuple[int, str, str]]:
    """pid -> (ppid, state, command line) of every process we can see."""
    out: dict[int, tuple[int, str, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            with open(f"/proc/{name}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        comm = stat[stat.find(b"(") + 1:stat.rfind(b")")].decode("utf-8", "replace")
        out[int(name)] = (int(fields[1]), fields[0].decode(), cmd or f"[{comm}]")
    return out


def _has_token(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/environ", "rb") as f:
            return any(v.startswith(b"ARENA_SANDBOX=") for v in f.read().split(b"\0"))
    except OSError:
        return False


def descendants() -> dict[int, str]:
    """Every process (zombies included) whose parent chain leads to this test process."""
    me = os.getpid()
    procs = _proc_table()
    found: dict[int, str] = {}
    for pid, (ppid, state, cmd) in procs.items():
        seen, p = set(), ppid
        while p > 1 and p not in seen and p != me:
            seen.add(p)
            p = procs[p][0] if p in procs else 0
        if p == me and pid != me:
            tag = " [ARENA_SANDBOX]" if _has_token(pid) else ""
            found[pid] = f"pid {pid} ppid {ppid} state {state}{tag}: {cmd[:150]}"
    return found


@pytest.fixture(autouse=True)
def no_bot_survives():
    """No process started during a test may remain once it is over (play_match promises it)."""
    before = set(descendants())
    yield
    left = {pid: line for pid, line in descendants().items() if pid not in before}
    assert not left, "bot processes outlived play_match:\n" + "\n".join(left.values())


def actions(outcome: MatchOutcome) -> tuple[list[tuple[int, list[dict[str, Any]], dict[str, Any]]], Match]:
    """Rebuild the match from the omniscient replay: (seat, legal, chosen action) per decision."""
    header, records = read_replay(outcome.replay_text().splitlines())
    match = Match(make_rules(header["rules"]["preset"], header["rules"]["options"]), header["players"],
                  header["seed"])
    steps = []
    for record in records:
        if record["type"] == "action":
            legal = [dict(a) for a in match.legal_actions(record["seat"])]
            steps.append((record["seat"], legal, record["action"]))
            match.apply(record["seat"], record["action"])
    return steps, match


def asks_before(steps: list, seat: int, decision: int) -> int:
    """How many decisions of ``seat`` were applied before decision index ``decision``."""
    return sum(1 for s, _, _ in steps[:decision] if s == seat)


def assert_finished(outcome: MatchOutcome, preset: str, players: int) -> None:
    """The match was played to its real end, and the replay rebuilds exactly that match."""
    steps, rebuilt = actions(outcome)
    assert rebuilt.over, "the replay stops before the end of the match"
    assert rebuilt.result is not None
    assert rebuilt.result.totals == outcome.totals
    assert rebuilt.result.reason == outcome.reason
    assert len(steps) == outcome.decisions
    assert len(outcome.rounds) == len(rebuilt.result.rounds) >= 1
    assert len(outcome.totals) == len(outcome.places) == len(outcome.forfeited) == len(outcome.stats) == players
    if preset == "espanola":
        assert outcome.reason == "rounds" and len(outcome.rounds) == 5
    else:
        assert outcome.reason == "score" and max(outcome.totals) > 100


def assert_forfeit_outcome(outcome: MatchOutcome, seat: int, kind: FaultKind, words: str) -> Fault:
    """One fault of ``kind`` at ``seat``, in plain words with the stderr tail; that seat alone forfeited and last."""
    assert [(f.seat, f.kind) for f in outcome.faults] == [(seat, kind)], outcome.faults
    fault = outcome.faults[0]
    assert fault.bot == outcome.bots[seat] == "faulty"
    assert isinstance(fault.detail, str) and re.search(words, fault.detail), fault.detail
    assert "Traceback" not in fault.detail and "\n" not in fault.detail
    assert MARKER in fault.stderr, f"stderr tail not captured: {fault.stderr!r}"
    assert fault.to_json()["kind"] == kind.value
    assert outcome.forfeited == tuple(s == seat for s in range(len(outcome.bots)))
    for other in range(len(outcome.bots)):
        if other != seat:
            assert outcome.places[seat] > outcome.places[other], (outcome.places, outcome.totals)
    assert outcome.places[seat] == len(outcome.bots)  # the only forfeit: strictly last
    assert outcome.places == final_places(outcome.totals, outcome.forfeited)
    return fault


# --------------------------------------------------------------------------- every fault kind, policy forfeit

# (id, script args, kind, detail regexp, preset, players, seat, faulting act)
MID_MATCH = [
    ("timeout", ("fault_timeout", "3"), FaultKind.TIMEOUT, rf"no reply within {MOVE_MS} ms", "standard", 4, 1, 3),
    ("exit", ("fault_exit", "4", "3"), FaultKind.EXIT, r"(exited|closed its stdout) \(exit status 3\)", "espanola", 3, 0, 4),
    ("exit_closing_stdout", ("fault_exit", "3", "0", "close"), FaultKind.EXIT, r"^bot closed its stdout$", "standard", 4, 1, 3),
    ("bad_json", ("fault_bad_json", "2"), FaultKind.BAD_JSON, r"not valid JSON.*\{\"type\": action", "standard", 3, 2, 2),
    ("bad_json_deep", ("fault_bad_json", "2", "deep"), FaultKind.BAD_JSON, r"not valid JSON \((nested too deeply|depth limit)", "espanola", 2, 1, 2),
    ("not_object", ("fault_not_object", "5"), FaultKind.NOT_OBJECT, r"not an object.*\[1,2\]", "espanola", 4, 3, 5),
    ("line_too_long", ("fault_line_too_long", "3"), FaultKind.LINE_TOO_LONG, r"more than 1048576 bytes",
     "standard", 4, 0, 3),
    ("wrong_id", ("fault_wrong_id", "3"), FaultKind.WRONG_ID, r"reply id \d+ does not match request id \d+",
     "espanola", 4, 2, 3),
    ("illegal_index", ("fault_illegal", "3", "index"), FaultKind.ILLEGAL, r"index \d+ is not in 0\.\.\d+",
     "standard", 3, 1, 3),
    ("illegal_bool", ("fault_illegal", "2", "bool"), FaultKind.ILLEGAL, r"index True is not in", "standard", 4, 3, 2),
    ("illegal_fly", ("fault_illegal", "3", "fly"), FaultKind.ILLEGAL, r"\"fly\".*not one of the \d+ legal actions",
     "espanola", 4, 1, 3),
    ("illegal_type", ("fault_illegal", "2", "type"), FaultKind.ILLEGAL, r"expected an 'action' reply", "standard", 3, 0, 2),
]


@pytest.mark.parametrize("script, kind, words, preset, players, seat, act",
                         [pytest.param(*case[1:], id=case[0]) for case in MID_MATCH])
def test_mid_match_fault_is_recorded_and_forfeited(script, kind, words, preset, players, seat, act):
    outcome = play_match(job(table(players, seat, fault_bot(*script)), preset))  # returns normally
    fault = assert_forfeit_outcome(outcome, seat, kind, words)
    assert_finished(outcome, preset, players)
    steps, _ = actions(outcome)
    # it faulted at the right moment: its act number `act`, in the first round
    assert asks_before(steps, seat, fault.decision) == act - 1
    assert fault.round == 1 and fault.decision >= act - 1
    assert f"act {act} " in fault.stderr
    # after the forfeit the fallback policy played that seat, and the others were never faulted
    for s, legal, action in steps[fault.decision:]:
        if s == seat:
            assert action == legal[fallback_index(legal)]
    assert outcome.stats[seat].decisions <= act
    assert all(outcome.stats[s].decisions > 0 for s in range(players) if s != seat)
    assert outcome.sandbox == "none"


# espanola: act 1 is look_initial and act 2 the claim window that follows it, both asked of
# every seat at once (the collect_replies path that waits on several bots)
SIMULTANEOUS = [
    ("exit_in_look_initial", ("fault_exit", "1", "9"), FaultKind.EXIT, 1, "look_initial"),
    ("bad_json_in_look_initial", ("fault_bad_json", "1"), FaultKind.BAD_JSON, 1, "look_initial"),
    ("timeout_in_claim", ("fault_timeout", "2"), FaultKind.TIMEOUT, 2, "claim"),
    ("line_too_long_in_claim", ("fault_line_too_long", "2"), FaultKind.LINE_TOO_LONG, 2, "claim"),
    ("illegal_in_claim", ("fault_illegal", "2", "negative"), FaultKind.ILLEGAL, 2, "claim"),
]


@pytest.mark.parametrize("script, kind, act, phase", [pytest.param(*c[1:], id=c[0]) for c in SIMULTANEOUS])
def test_fault_in_a_simultaneous_phase(script, kind, act, phase):
    seat = 1
    outcome = play_match(job(table(4, seat, fault_bot(*script)), "espanola"))
    fault = assert_forfeit_outcome(outcome, seat, kind, r"\w")
    assert f"act {act} " in fault.stderr and f"phase {phase}" in fault.stderr
    assert_finished(outcome, "espanola", 4)
    steps, _ = actions(outcome)
    assert asks_before(steps, seat, fault.decision) == act - 1
    # the other seats answered the same simultaneous request themselves, without a fault
    assert all(outcome.stats[s].decisions > 20 for s in (0, 2, 3))


STARTUP = [
    ("silent", ("fault_startup", "silent"), rf"no 'ready' within startup_ms={SILENT.startup_ms}", "standard", 3, 1),
    ("exit_at_once", ("fault_startup", "exit", "4"), r"failed to start: .*\(exit status 4\)", "espanola", 4, 0),
    ("garbage", ("fault_startup", "garbage"), r"no valid 'ready' to hello: .*steady", "standard", 4, 3),
]


@pytest.mark.parametrize("script, words, preset, players, seat", [pytest.param(*c[1:], id=c[0]) for c in STARTUP])
def test_startup_fault(script, words, preset, players, seat):
    quick = SILENT if script[1] == "silent" else TIME  # the silent bot costs all of startup_ms
    started = time.monotonic()
    outcome = play_match(job(table(players, seat, fault_bot(*script)), preset, time_control=quick))
    fault = assert_forfeit_outcome(outcome, seat, FaultKind.STARTUP, words)
    assert_finished(outcome, preset, players)
    assert fault.decision == 0
    assert outcome.stats[seat].decisions == 0  # never asked
    steps, _ = actions(outcome)
    assert all(action == legal[fallback_index(legal)] for s, legal, action in steps if s == seat)
    if script[1] == "silent":
        assert time.monotonic() - started >= quick.startup_ms / 1000.0


def test_startup_fault_for_a_program_that_does_not_exist():
    # built directly: load_bot may refuse a missing program up front, but a job can still carry one
    bots = table(3, 2, BotSpec(name="faulty", command=("/nonexistent/arena-test/bot", "--flag")))
    outcome = play_match(job(bots))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(2, FaultKind.STARTUP)]
    assert "/nonexistent/arena-test/bot" in outcome.faults[0].detail
    assert outcome.forfeited == (False, False, True) and outcome.places[2] == 3
    assert_finished(outcome, "standard", 3)


BWRAP_CASES = [
    pytest.param(("fault_timeout", "2"), FaultKind.TIMEOUT, r"no reply within", id="timeout"),
    pytest.param(("fault_exit", "2", "5"), FaultKind.EXIT, r"\(exit status 5\)", id="exit"),
    # bubblewrap's own two processes hold the bot's stdout too: closing it is only silence
    pytest.param(("fault_exit", "2", "0", "close"), FaultKind.TIMEOUT, r"no reply within", id="closing_stdout"),
]


@pytest.fixture(scope="module")
def bwrap() -> None:
    """Skip (saying why) where bwrap cannot run. Module scope: the one-off availability probe
    happens before the per-test leftover snapshot (its own leftover is the subject of
    test_bwrap_probe_leaves_no_zombie_in_a_subreaper_arena)."""
    ok, why = get_backend("bwrap").available()
    _reap_new_zombie_children(set())
    if not ok:
        pytest.skip(f"bwrap sandbox unavailable here: {why}")


def _reap_new_zombie_children(before: set[int]) -> list[str]:
    """Reap zombies that are direct children of this process and not in ``before``; describe them."""
    me, reaped = os.getpid(), []
    for pid, (ppid, state, cmd) in _proc_table().items():
        if ppid == me and state == "Z" and pid not in before:
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                continue
            reaped.append(f"pid {pid} {cmd}")
    return reaped


@pytest.mark.parametrize("script, kind, words", BWRAP_CASES)
def test_fault_under_bwrap(bwrap, script, kind, words):
    outcome = play_match(job(table(4, 2, fault_bot(*script)), "espanola", sandbox="bwrap"))
    assert outcome.sandbox == "bwrap"
    assert_forfeit_outcome(outcome, 2, kind, words)
    assert_finished(outcome, "espanola", 4)


# --------------------------------------------------------------------------- policy fallback

def test_fallback_illegal_below_max_faults_keeps_playing():
    seat = 1
    outcome = play_match(job(table(4, seat, fault_bot("fault_illegal", "2,4", "fly")), "espanola",
                             policy="fallback", max_faults=3))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(seat, FaultKind.ILLEGAL)] * 2
    assert outcome.forfeited == (False, False, False, False)
    assert outcome.places == plain_places_tuple(outcome.totals)
    assert_finished(outcome, "espanola", 4)
    steps, _ = actions(outcome)
    mine = [(legal, action) for s, legal, action in steps if s == seat]
    assert [asks_before(steps, seat, f.decision) for f in outcome.faults] == [1, 3]
    for n in (2, 4):  # the faulted decisions were played by the fallback policy
        legal, action = mine[n - 1]
        assert action == legal[fallback_index(legal)]
    # it went on answering every later request itself (no further fault, nothing forfeited)
    assert len(mine) > 20
    assert outcome.stats[seat].decisions == len(mine)


def test_fallback_forfeits_once_max_faults_is_reached():
    seat = 2
    outcome = play_match(job(table(4, seat, fault_bot("fault_illegal", "2,4,6,8", "index")), "espanola",
                             policy="fallback", max_faults=3))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(seat, FaultKind.ILLEGAL)] * 3
    assert outcome.forfeited == (False, False, True, False)
    assert all(outcome.places[seat] > outcome.places[s] for s in (0, 1, 3))
    assert_finished(outcome, "espanola", 4)
    steps, _ = actions(outcome)
    assert [asks_before(steps, seat, f.decision) for f in outcome.faults] == [1, 3, 5]
    assert outcome.stats[seat].decisions == 6  # never asked again after the third fault
    mine = [(legal, action) for s, legal, action in steps if s == seat]
    assert all(action == legal[fallback_index(legal)] for legal, action in mine[5:])


FALLBACK_NON_FATAL = [
    pytest.param(("fault_bad_json", "3"), FaultKind.BAD_JSON, id="bad_json"),
    pytest.param(("fault_not_object", "3"), FaultKind.NOT_OBJECT, id="not_object"),
    pytest.param(("fault_wrong_id", "3"), FaultKind.WRONG_ID, id="wrong_id"),
    pytest.param(("fault_timeout", "3", "late"), FaultKind.TIMEOUT, id="timeout"),
]


@pytest.mark.parametrize("script, kind", FALLBACK_NON_FATAL)
def test_fallback_one_nonfatal_fault_is_not_forfeited(script, kind):
    seat = 0
    outcome = play_match(job(table(3, seat, fault_bot(*script)), "espanola", policy="fallback", max_faults=2))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(seat, kind)]
    assert MARKER in outcome.faults[0].stderr
    assert outcome.forfeited == (False, False, False)
    assert outcome.places == plain_places_tuple(outcome.totals)
    assert_finished(outcome, "espanola", 3)
    steps, _ = actions(outcome)
    assert asks_before(steps, seat, outcome.faults[0].decision) == 2
    assert sum(1 for s, _, _ in steps if s == seat) > 20


FALLBACK_FATAL = [
    pytest.param(("fault_exit", "3"), FaultKind.EXIT, id="exit"),
    pytest.param(("fault_line_too_long", "3"), FaultKind.LINE_TOO_LONG, id="line_too_long"),
]


@pytest.mark.parametrize("script, kind", FALLBACK_FATAL)
def test_fallback_fatal_fault_forfeits_at_once(script, kind):
    seat = 1
    outcome = play_match(job(table(3, seat, fault_bot(*script)), "standard", policy="fallback", max_faults=3))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(seat, kind)]
    assert outcome.forfeited == (False, True, False)
    assert outcome.places[seat] == 3
    assert_finished(outcome, "standard", 3)


@pytest.mark.parametrize("phases", ["turn", "claim"])
def test_fallback_late_reply_is_ignored(phases):
    """A reply that arrives after its timeout is dropped: no wrong_id, no desync, the bot plays on."""
    seat = 2
    bot = fault_bot("fault_timeout", "2", "late", phases)  # answers once the arena has moved on
    outcome = play_match(job(table(4, seat, bot), "espanola", policy="fallback", max_faults=2))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(seat, FaultKind.TIMEOUT)], outcome.faults
    assert f"phase {phases}" in outcome.faults[0].stderr
    assert outcome.forfeited == (False,) * 4
    assert_finished(outcome, "espanola", 4)
    steps, _ = actions(outcome)
    decision = outcome.faults[0].decision
    # its timed-out decision (the first of its own at or after the fault) was played by the fallback
    index = next(i for i in range(decision, len(steps)) if steps[i][0] == seat)
    assert asks_before(steps, seat, index) == asks_before(steps, seat, decision)
    legal, action = steps[index][1], steps[index][2]
    assert action == legal[fallback_index(legal)]
    assert sum(1 for s, _, _ in steps[index + 1:] if s == seat) > 20  # it kept answering, in time


# --------------------------------------------------------------------------- final_places

def plain_places_tuple(totals: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(plain_places(totals))


@pytest.mark.parametrize("totals, forfeited, expected", [
    ((10, 20, 30), (False, False, False), (1, 2, 3)),
    ((30, 10, 10, 40), (False, False, False, False), (3, 1, 1, 4)),  # clean tie shares a place
    ((5, 20, 30), (True, False, False), (3, 1, 2)),  # best total but forfeited: last
    ((5, 20, 20, 1), (True, False, False, True), (4, 1, 1, 3)),  # tie among clean seats, forfeits below
    ((50, 7, 50, 3), (True, False, True, False), (3, 2, 3, 1)),  # tie among forfeited seats
    ((9, 9, 9), (True, True, True), (1, 1, 1)),  # everyone forfeited: ranked among themselves
    ((9, 9, 4, 9, 9), (False, True, False, True, False), (2, 4, 1, 4, 2)),
])
def test_final_places(totals, forfeited, expected):
    assert final_places(totals, forfeited) == expected


def test_final_places_without_forfeits_is_plain_places():
    for totals in [(0, 0), (100, 3, 3, 50, 3), (7, 8, 9, 10)]:
        assert final_places(totals, (False,) * len(totals)) == plain_places_tuple(totals)


# --------------------------------------------------------------------------- simultaneous phases

def test_simultaneous_phases_each_bot_on_its_own_clock():
    """Three bots each taking 60% of move_ms on the same look_initial / claim requests all make it."""
    move = ROOMY.move_ms
    bots = tuple(load_bot(RANDOM, name="r2") if s == 2 else
                 fault_bot("fault_timeout", "1-3", "0.6", "look_initial,claim", name=f"slow{s}") for s in range(4))
    outcome = play_match(job(bots, "espanola", time_control=ROOMY))
    assert outcome.faults == ()
    assert outcome.forfeited == (False,) * 4
    for s in (0, 1, 3):  # all in time: no fault above; each was charged its own sleep
        assert 0.6 * move * 0.9 <= outcome.stats[s].max_ms, outcome.stats
    # Its own clock: the others' sleeps are not charged to it (an order, not a duration a busy machine stretches).
    assert outcome.stats[2].max_ms < min(outcome.stats[s].max_ms for s in (0, 1, 3)), outcome.stats
    assert_finished(outcome, "espanola", 4)


def test_timeout_in_a_simultaneous_phase_only_hits_the_slow_bot():
    bots = (
        fault_bot("fault_timeout", "1-3", "0.6", "look_initial,claim", name="slow"),
        load_bot(RANDOM, name="r1"),
        fault_bot("fault_timeout", "2", "late", "look_initial,claim"),
        load_bot(RANDOM, name="r3"),
    )
    outcome = play_match(job(bots, "espanola", policy="fallback", time_control=ROOMY))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(2, FaultKind.TIMEOUT)]
    assert outcome.forfeited == (False,) * 4
    assert 0.5 * ROOMY.move_ms <= outcome.stats[0].max_ms  # charged its sleep, and in time (no fault of its own)
    assert_finished(outcome, "espanola", 4)


# --------------------------------------------------------------------------- determinism

@pytest.mark.parametrize("preset, policy, faulty", [
    ("standard", "forfeit", None),
    ("espanola", "fallback", ("fault_illegal", "2,5", "fly")),
])
def test_same_job_twice_gives_the_same_match(preset, policy, faulty):
    bots = table(4, 3, fault_bot(*faulty)) if faulty else table(4, 3, load_bot(RANDOM, name="r3"))
    the_job = job(bots, preset, seed="det-42", policy=policy, match_id="t-0042")
    first, second = play_match(the_job), play_match(the_job)
    assert first.totals == second.totals
    assert first.places == second.places
    assert first.forfeited == second.forfeited
    assert first.rounds == second.rounds and first.reason == second.reason
    assert first.decisions == second.decisions
    assert [(f.seat, f.kind, f.detail, f.round, f.decision) for f in first.faults] == \
           [(f.seat, f.kind, f.detail, f.round, f.decision) for f in second.faults]
    assert first.replay_text() == second.replay_text()
    assert first.replay == second.replay  # the compressed bytes too (gzip mtime fixed)
    assert (len(first.faults) > 0) == (faulty is not None)
    # each decision's time is in the outcome, never in the replay (a time never repeats)
    assert len(first.decision_ms) == first.decisions and '"ms"' not in first.replay_text()


def test_the_outcome_has_each_decisions_time_and_none_where_the_fallback_policy_chose():
    seat = 1
    outcome = play_match(job(table(4, seat, fault_bot("fault_illegal", "2,4", "fly")), "espanola",
                             policy="fallback", max_faults=3))
    _, records = replay_records(outcome)
    steps, _ = actions(outcome)
    times = outcome.decision_ms
    assert len(times) == outcome.decisions == len(steps)
    assert [n for n, ms in enumerate(times) if ms is None] == marked(records)  # the faulty seat's 2nd and 4th
    assert all(ms >= 0 and round(ms, 1) == ms for ms in times if ms is not None)
    for other in (0, 2, 3):  # a seat without faults: one time per decision its bot was charged, same total
        mine = [ms for (s, _, _), ms in zip(steps, times) if s == other]
        stats = outcome.stats[other]
        assert None not in mine and len(mine) == stats.decisions
        assert abs(sum(mine) - stats.think_ms) <= 0.05 * len(mine) + 1e-6


def test_an_outcome_pickled_before_decision_times_loads_without_them():
    outcome = play_match(job(table(2, 0, load_bot(RANDOM, name="r")), "standard"))
    old = object.__new__(MatchOutcome)
    old.__dict__.update({k: v for k, v in outcome.__dict__.items()
                         if k not in ("decision_ms", "frames")})  # as an older arena made it
    loaded = pickle.loads(pickle.dumps(old))
    assert loaded.decision_ms == () and loaded.frames is None and loaded.totals == outcome.totals


def test_a_job_that_asks_for_frames_gets_those_a_report_makes_from_its_replay(tmp_path):
    from arena.game import framepack
    from arena.site.frames import frames_for_file

    asked = play_match(dataclasses.replace(job(table(3, 0, load_bot(RANDOM, name="r")), "standard"), frames=True))
    assert asked.frames is not None
    path = tmp_path / "m.jsonl.gz"
    path.write_bytes(asked.replay)
    expected = frames_for_file(path, list(asked.decision_ms))
    assert asked.frames[:2] == (expected["format"], framepack.packing())
    assert framepack.unpack(asked.frames[2]) == framepack.frames_line(expected)
    assert play_match(job(table(3, 0, load_bot(RANDOM, name="r")), "standard")).frames is None  # not asked


# --------------------------------------------------------------------------- bugs found while testing

def test_reply_echoing_an_earlier_id_is_a_wrong_id_fault():
    """PROTOCOL.md: "`id` must echo the request. Anything else is a fault."

    A reply carrying id-1 (never a request that timed out for this bot) must be a
    wrong_id fault at once. The arena treats every action with a smaller id as a late
    answer to a timed-out request (bot._stale), drops it, waits out move_ms and records
    a timeout instead.
    """
    outcome = play_match(job(table(4, 1, fault_bot("fault_wrong_id", "3", "-1")), "standard"))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(1, FaultKind.WRONG_ID)], outcome.faults


def test_timeout_detail_states_the_time_actually_allowed():
    """With bank_ms, the detail must name the time the bot really had for that decision.

    move_ms=300, bank_ms=3000. Act 1 takes 1050 ms (in time: 300 + 750 from the bank, 2250
    left); act 2 is answered only after the arena gave up, at about 2550 ms, but the detail
    said "no reply within 3300 ms" (move_ms + the *initial* bank, bot.BotLink.reply) although
    the bot never had that long. (Every bot has the bank: a random bot's slow answer on a
    busy machine draws on it instead of timing out.)
    """
    bank = TimeControl(move_ms=300, startup_ms=STARTUP_MS, bank_ms=3000)
    outcome = play_match(job(table(3, 0, fault_bot("fault_timeout", "1,2", "3.5,late")), "standard",
                             time_control=bank))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(0, FaultKind.TIMEOUT)]
    steps, _ = actions(outcome)
    assert asks_before(steps, 0, outcome.faults[0].decision) == 1  # the first act used the bank, in time
    allowed = int(re.search(r"(\d+) ms", outcome.faults[0].detail).group(1))
    # Act 1 slept 3.5 x move_ms, so it took at least that: the bank had at most 3000 - 750 left for act 2.
    # A bound from the sleep, not from the machine's speed (which only lowers ``allowed``).
    move = bank.move_ms
    assert move <= allowed <= move + 3000 - (3.5 * move - move), outcome.faults[0].detail


def test_fallback_never_sends_a_torn_message_after_a_send_timeout(monkeypatch):
    """A bot that stops reading its stdin while a large message is being written must never
    receive half of that message glued to the next one.

    BotLink._send turns the sandbox's ChannelTimeout into a TIMEOUT fault, which is not
    fatal under ``fallback``; the link is kept although BotProcess documents that after a
    send timeout "the byte stream is out of step; the caller should give up on the bot".
    The next message is then written right after the torn one, and the bot reads one
    corrupt line (the fragment plus the next message): a request it never sees, and more
    faults charged to it. Acts larger than a pipe page happen in real matches (5 players,
    standard, a drawn J/Q: ~100 legal actions); here every act is padded with an extra
    field (the protocol allows added fields) so the case is deterministic, and the bot
    shrinks its stdin pipe to one page.
    """
    real_act = protocol.act_line
    monkeypatch.setattr(protocol, "act_line", lambda *a: real_act(*a)[:-2] + b',"pad":"' + b"p" * 8000 + b'"}\n')
    seat = 1
    # It stops reading for 30 x move_ms: far longer than the arena takes to reach its next act and give
    # up on writing it (the arena then kills it; a torn message would be read once it reads again).
    outcome = play_match(job(table(3, seat, fault_bot("fault_stdin_stall", "3", "30")), "standard",
                             policy="fallback", max_faults=5))
    assert outcome.faults and outcome.faults[0].seat == seat
    assert outcome.faults[0].kind is FaultKind.TIMEOUT and "could not be written" in outcome.faults[0].detail
    torn = [f"{f.kind.value}: {f.stderr.strip().splitlines()[-1]}" for f in outcome.faults if CORRUPT in f.stderr]
    assert not torn, f"the bot received a torn message: {torn}"


def test_bwrap_probe_leaves_no_zombie_in_a_subreaper_arena():
    """BwrapBackend.available() runs bwrap once (``_probe``) with subprocess.run, which reaps
    only the outer bwrap. Its PID-namespace init is re-parented to the arena, which is a
    child subreaper as soon as any bot was started, and is never reaped: one zombie
    ``bwrap`` per probe stays a child of the arena (e.g. `arena` with sandbox "auto" or
    "bwrap" after a "none" match, or any worker that probes after starting a bot).
    """
    if shutil.which("bwrap") is None:
        pytest.skip("bwrap is not installed")
    reaper.ensure_subreaper()  # what starting any bot does
    backends._BWRAP_PROBES.clear()  # force the (otherwise cached) probe to run again
    before = set(descendants())
    try:
        backends.BwrapBackend().available()
        time.sleep(0.1)  # let the namespace init finish exiting
        left = {pid: line for pid, line in descendants().items() if pid not in before}
    finally:
        _reap_new_zombie_children(before)  # tidy up so the autouse leftover check stays quiet
    assert not left, "the bwrap probe left:\n" + "\n".join(left.values())


# --------------------------------------------------------------------------- the replay's record of faults

def replay_records(outcome: MatchOutcome) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    return read_replay(outcome.replay_text().splitlines())


def marked(records: list[dict[str, Any]]) -> list[int]:
    """Decision numbers of the actions the replay says the fallback policy chose."""
    return [n for n, r in enumerate(r for r in records if r["type"] == "action") if r.get("by") == "fallback"]


def assert_result_record(outcome: MatchOutcome, records: list[dict[str, Any]]) -> None:
    """The replay ends with the outcome as stored: the arena's places, not the engine's."""
    assert records[-1] == {"type": "result", "totals": list(outcome.totals), "places": list(outcome.places),
                           "forfeited": list(outcome.forfeited), "reason": outcome.reason}
    assert records[-2]["type"] == "match_over" and records[-2]["totals"] == list(outcome.totals)


def test_replay_records_the_fault_the_forfeit_and_every_move_played_for_the_seat():
    seat = 1
    outcome = play_match(job(table(3, seat, fault_bot("fault_illegal", "3", "index")), "standard", seed=12))
    fault = assert_forfeit_outcome(outcome, seat, FaultKind.ILLEGAL, r"index")
    _, records = replay_records(outcome)
    at = records.index({"type": "fault", **fault.to_json()})
    assert records[at + 1] == {"type": "forfeit", "seat": seat, "bot": "faulty", "decision": fault.decision,
                               "round": fault.round}
    assert sum(1 for r in records[:at] if r["type"] == "action") == fault.decision  # just before its decision
    assert records[at + 2]["type"] == "action"
    assert [r["type"] for r in records].count("fault") == 1 and [r["type"] for r in records].count("forfeit") == 1
    steps, _ = actions(outcome)
    assert marked(records) == [n for n, (s, _, _) in enumerate(steps) if s == seat and n >= fault.decision]
    assert all(steps[n][2] == steps[n][1][fallback_index(steps[n][1])] for n in marked(records))
    assert_result_record(outcome, records)


def test_replay_marks_only_the_decisions_the_fallback_policy_replaced():
    seat = 1
    outcome = play_match(job(table(4, seat, fault_bot("fault_illegal", "2,4", "fly")), "espanola",
                             policy="fallback", max_faults=3))
    _, records = replay_records(outcome)
    assert [{k: r[k] for k in ("seat", "kind", "decision")} for r in records if r["type"] == "fault"] == \
        [{"seat": f.seat, "kind": f.kind.value, "decision": f.decision} for f in outcome.faults]
    assert not [r for r in records if r["type"] == "forfeit"]
    steps, _ = actions(outcome)
    mine = [n for n, (s, _, _) in enumerate(steps) if s == seat]
    assert marked(records) == [mine[1], mine[3]]  # its 2nd and 4th decisions, nothing else
    assert_result_record(outcome, records)


def test_replay_of_a_startup_fault_marks_every_move_of_the_seat():
    outcome = play_match(job(table(3, 0, fault_bot("fault_startup", "exit", "4")), "espanola",
                             time_control=TIME))
    _, records = replay_records(outcome)
    first_action = next(i for i, r in enumerate(records) if r["type"] == "action")
    assert [r["type"] for r in records[first_action - 2:first_action]] == ["fault", "forfeit"]
    assert records[first_action - 1]["decision"] == 0
    steps, _ = actions(outcome)
    assert marked(records) == [n for n, (s, _, _) in enumerate(steps) if s == 0]
    assert_result_record(outcome, records)


def test_clean_replay_has_only_its_result_and_bots_get_the_wire_id(monkeypatch):
    from arena.sandbox import BotProcess

    sent: list[bytes] = []
    original = BotProcess.send

    def send(process: BotProcess, data: bytes, deadline: float) -> None:
        sent.append(bytes(data))
        original(process, data, deadline)

    monkeypatch.setattr(BotProcess, "send", send)
    bots = tuple(load_bot(RANDOM, name=f"r{s}") for s in range(3))
    the_job = dataclasses.replace(job(bots, match_id="c1/r0+r1+r2/r0"), wire_id="m-0123456789abcdef")
    outcome = play_match(the_job)
    hellos = [m for m in map(protocol.decode, sent) if m["type"] == "hello"]
    assert [h["match"] for h in hellos] == ["m-0123456789abcdef"] * 3
    assert not [line for line in sent if b"r0+r1" in line]
    header, records = replay_records(outcome)
    assert outcome.match_id == header["match"] == "c1/r0+r1+r2/r0" and header["wire_id"] == "m-0123456789abcdef"
    assert not [r for r in records if r["type"] in ("fault", "forfeit") or "by" in r]
    assert_result_record(outcome, records)


# --------------------------------------------------------------------------- still usable

def test_zz_arena_still_usable_after_all_faults():
    bots = tuple(load_bot(RANDOM, name=f"r{s}") for s in range(4))
    outcome = play_match(job(bots, "espanola", seed=99))
    assert outcome.faults == () and outcome.forfeited == (False,) * 4
    assert outcome.places == plain_places_tuple(outcome.totals)
    assert Counter(s for s, _, _ in actions(outcome)[0]) == Counter(
        {s: outcome.stats[s].decisions for s in range(4)})
    assert_finished(outcome, "espanola", 4)


def test_bots_are_closed_together_not_one_after_another(monkeypatch):
    """Every bot gets EOF before the arena waits for any of them to exit, so four bots that each need
    0.5 s to exit take 0.5 s together, not 2 s one after another. Asserted by the order of the calls,
    not by a duration (a busy machine stretches any duration)."""
    calls: list[tuple[str, str]] = []
    end_input, close = BotLink.end_input, BotLink.close

    def spy_end_input(self: BotLink) -> None:
        calls.append(("eof", self.name))
        end_input(self)

    def spy_close(self: BotLink, grace: float = 1.0) -> None:
        calls.append(("close", self.name))
        close(self, grace)

    monkeypatch.setattr(BotLink, "end_input", spy_end_input)
    monkeypatch.setattr(BotLink, "close", spy_close)
    bots = tuple(fault_bot("slow_exit", "0.5", name=f"slow{i}") for i in range(4))
    outcome = play_match(job(bots))
    assert outcome.faults == ()
    names = [f"slow{i}" for i in range(4)]
    assert [kind for kind, _ in calls] == ["eof"] * 4 + ["close"] * 4, calls  # one after another: eof, close, ...
    assert sorted(name for kind, name in calls if kind == "eof") == names
    assert sorted(name for kind, name in calls if kind == "close") == names


# ---------------------------------------------------------------- batches: one process, several matches

def _count_starts(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, ...]]:
    """Commands of every bot process started from now on (none backend)."""
    started: list[tuple[str, ...]] = []
    original = backends.NoneBackend.start

    def start(self, spec):
        started.append(spec.command)
        return original(self, spec)

    monkeypatch.setattr(backends.NoneBackend, "start", start)
    return started


def test_a_batch_reuses_each_seats_process_and_plays_as_if_every_match_were_alone(monkeypatch):
    bots = tuple(load_bot(RANDOM, name=f"r{s}") for s in range(3))
    jobs = [job(bots, "espanola", seed=s, match_id=f"b-{s}") for s in (1, 2, 3)]
    started = _count_starts(monkeypatch)
    together = list(play_batch(jobs))
    assert len(started) == 3  # one process per seat served all three matches
    alone = [play_match(j) for j in jobs]
    assert len(started) == 3 + 9
    assert [(o.totals, o.rounds, o.places, o.decisions) for o in together] == \
        [(o.totals, o.rounds, o.places, o.decisions) for o in alone]
    assert all(o.faults == () for o in together)
    assert [o.stats[0].decisions for o in together] == [o.stats[0].decisions for o in alone]  # counted per match


def test_a_seat_that_faulted_gets_a_fresh_process_for_the_next_match(monkeypatch):
    bots = (fault_bot("fault_illegal", "3"), load_bot(RANDOM, name="r1"))
    jobs = [job(bots, seed=s, policy="fallback", match_id=f"f-{s}") for s in (1, 2)]
    started = _count_starts(monkeypatch)
    outcomes = list(play_batch(jobs))
    assert [[(f.seat, f.kind) for f in o.faults] for o in outcomes] == [[(0, FaultKind.ILLEGAL)]] * 2
    assert len(started) == 3  # both seats once, then seat 0 again (a faulty process is never trusted twice)
    assert not any(o.forfeited[0] for o in outcomes)


def test_a_bot_that_refuses_a_second_hello_faults_at_start_up_and_the_batch_goes_on():
    bots = (fault_bot("one_match", name="once"), load_bot(RANDOM, name="r1"))
    first, second = play_batch([job(bots, seed=s, match_id=f"o-{s}") for s in (1, 2)])
    assert first.faults == ()
    assert [(f.seat, f.kind) for f in second.faults] == [(0, FaultKind.STARTUP)]
    assert second.forfeited == (True, False) and second.places == (2, 1)


def test_a_batch_never_plays_one_deal_twice():
    a, b = load_bot(RANDOM, name="a"), load_bot(RANDOM, name="b")
    with pytest.raises(ValueError, match="one deal twice"):
        list(play_batch([job((a, b), seed=5, match_id="r0"), job((b, a), seed=5, match_id="r1")]))


def test_a_bots_process_follows_it_to_other_seats_and_tables(monkeypatch):
    """A big field with one cycle: processes serve the bot's next match whatever the seat or opponents."""
    a, b, c = (load_bot(RANDOM, name=n) for n in "abc")
    jobs = [job(bots, seed=n, match_id=f"t-{n}") for n, bots in enumerate([(a, b), (b, c), (c, a)], 1)]
    started = _count_starts(monkeypatch)
    together = list(play_batch(jobs))
    assert len(started) == 3  # a and b for the first match, c for the second; b moved seats, a waited
    assert all(o.faults == () for o in together)
    alone = [play_match(j) for j in jobs]
    assert [(o.totals, o.rounds, o.decisions) for o in together] == [(o.totals, o.rounds, o.decisions) for o in alone]


def test_helper_fallback_lines_are_one_fault_of_that_seat_that_never_forfeits_it() -> None:
    """The marker is a self-report: it is counted for the seat whose stderr holds it, once per match with
    the number of decisions, and it neither forfeits the seat nor counts towards max_faults."""
    outcome = play_match(job(table(3, 1, fault_bot("helper_fallback", "2", name="kit")), policy="fallback",
                             max_faults=1))
    assert [(f.seat, f.kind) for f in outcome.faults] == [(1, FaultKind.HELPER_FALLBACK)]
    fault = outcome.faults[0]
    acts = outcome.stats[1].decisions
    assert acts >= 3 and f"{acts - 1} times in this match" in fault.detail
    assert fault.stderr.endswith("KeyError: 'hel'\ncabo-bot: fallback: act: KeyError: 'hel'; sent legal index 0\n")
    assert outcome.forfeited == (False, False, False)
    assert outcome.places == final_places(outcome.totals, outcome.forfeited)
    notes = [r for r in read_replay(outcome.replay_text().splitlines())[1] if r.get("type") == "fault"]
    assert [(r["seat"], r["kind"], r["decision"]) for r in notes] == [(1, "helper_fallback", fault.decision)]
