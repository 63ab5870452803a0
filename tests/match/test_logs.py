"""Bots' logs: each seat's stderr per match, bounded, stamped with decisions, shown by ``arena replay``;
and start-up times.

The bot is ``tests/bots/log_writer.py``, which says on stderr what it does and names the
match it got in ``hello``, so a test knows exactly what each match's log must hold.
"""

from __future__ import annotations

import dataclasses
import tracemalloc
from pathlib import Path

from click.testing import CliRunner

from arena.match.link import TimeControl
from arena.bots.spec import BotSpec, load_bot
from arena.cli import main
from arena.game import make_rules
from arena.game.replay import read_replay
from arena.match.runner import MatchJob, MatchOutcome, play_batch, play_match
from arena.sandbox import Limits
from arena.sandbox.channel import Channel
from arena.match.seatlog import SeatLog
from arena.match.seeds import play_match_id

ROOT = Path(__file__).resolve().parents[2]
WRITER = ROOT / "tests" / "bots" / "log_writer.py"
RANDOM = str(ROOT / "bots" / "random")
TIME = TimeControl(move_ms=5000, startup_ms=30000)


def writer(*args: str) -> BotSpec:
    return load_bot(" ".join(["/usr/bin/python3", str(WRITER), *args]), name="writer")


def job(seed: int, match_id: str, *bots: BotSpec, limits: Limits = Limits()) -> MatchJob:
    return MatchJob(match_id, make_rules("standard"), seed, bots or (writer(), load_bot(RANDOM, name="r")),
                    time=TIME, sandbox="none", limits=limits)


def written(outcome: MatchOutcome, seat: int = 0, closed: bool = True, fresh: bool = True) -> str:
    """What log_writer wrote in this match: hello (in a fresh process: a reused one's pre-``ready`` stderr
    belongs to no match), one line per act it answered, eof if its process ended."""
    match = outcome.match_id
    acts = "".join(f"{match} act {n}\n" for n in range(1, outcome.stats[seat].decisions + 1))
    return (f"{match} hello\n" if fresh else "") + acts + (f"{match} eof\n" if closed else "")


def test_a_matchs_log_holds_exactly_what_the_bot_wrote_in_it():
    alone = play_match(job(3, "solo"))
    assert alone.faults == () and alone.logs == (written(alone), "")


def test_with_a_reused_process_each_log_holds_only_its_own_match():
    outcomes = list(play_batch([job(seed, f"b-{seed}") for seed in (1, 2, 3)]))
    assert all(o.faults == () for o in outcomes)
    last = len(outcomes) - 1
    assert [o.logs[0] for o in outcomes] == [written(o, closed=n == last, fresh=n == 0) for n, o in enumerate(outcomes)]
    # one process served all three: its start-up belongs to the first match alone
    starts = [o.stats[0].startup_ms for o in outcomes]
    assert starts[0] is not None and starts[0] > 0 and starts[1:] == [None, None]


def test_what_a_reused_process_writes_after_over_never_lands_in_a_later_matchs_log():
    # It writes about match N while the arena already waits for its ready to match N+1: those
    # lines may be shown with N+1 while N's deal is still withheld, so they must not be N+1's.
    late = writer("after_over=0.2")
    outcomes = list(play_batch([job(seed, f"b-{seed}", late, load_bot(RANDOM, name="r")) for seed in (1, 2, 3)]))
    assert all(o.faults == () for o in outcomes)
    for n, outcome in enumerate(outcomes):
        named = {line.split(" ", 1)[0] for line in outcome.logs[0].splitlines()}
        assert named == {outcome.match_id}, outcome.logs[0]
        assert f"{outcome.match_id} act 1\n" in outcome.logs[0]
    # the last match's process ends with it: its log runs to the exit, over and late included
    assert outcomes[-1].logs[0].endswith(f"b-3 over\nb-3 late\nb-3 eof\n")


def test_a_reused_process_that_fails_its_next_start_shows_nothing_of_its_last_match():
    # crashes on its second hello after writing about its first match: the fault's tail must not show it
    crash = ROOT / "tests" / "bots" / "crash_second_hello.py"
    bot = load_bot(f"/usr/bin/python3 {crash}", name="crash")
    first, second = play_batch([job(seed, f"b-{seed}", bot, load_bot(RANDOM, name="r")) for seed in (1, 2)])
    assert first.faults == ()
    (fault,) = second.faults
    assert fault.kind.value == "startup" and "earlier match" in fault.detail
    assert "b-1" not in fault.stderr and "b-1" not in second.logs[0]


def test_a_log_over_the_limit_keeps_its_end_after_a_cut_marker():
    outcome = play_match(job(5, "cut", limits=Limits(log_bytes=300)))
    full = written(outcome)
    assert outcome.logs[0] == f"[... {len(full) - 300} bytes cut ...]\n" + full[-300:]


def test_an_8_mib_stderr_flood_before_every_reply_keeps_the_arena_small(monkeypatch):
    """Every act, 8 MiB of stderr before the reply: the arena holds only the bounded tail and log."""
    biggest = {"tail": 0, "log": 0}
    keep, add = Channel._keep_stderr, SeatLog.add

    def watched_keep(self, data):
        keep(self, data)
        biggest["tail"] = max(biggest["tail"], self._tail.__alloc__())

    def watched_add(self, decision, lost, data):
        add(self, decision, lost, data)
        biggest["log"] = max(biggest["log"], self.size)

    monkeypatch.setattr(Channel, "_keep_stderr", watched_keep)
    monkeypatch.setattr(SeatLog, "add", watched_add)
    spec = writer("flood=8")
    tracemalloc.start()
    try:
        outcome = play_match(job(2, "flood", spec, load_bot(RANDOM, name="r"), limits=Limits(log_bytes=65536)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    decisions = outcome.stats[0].decisions
    assert outcome.faults == () and decisions > 10
    flooded = decisions * 8 * 1024 * 1024
    assert peak < 8 * 1024 * 1024, peak  # far below even one act's flood, let alone all of them
    assert biggest["tail"] <= 2 * 65536 + 65536 and biggest["log"] <= 65536
    log = outcome.logs[0]
    head, rest = log.split("\n", 1)
    assert head == f"[... {flooded + len(written(outcome)) - 65536} bytes cut ...]"
    assert len(rest.encode()) == 65536 and rest.endswith(f"flood act {decisions}\nflood eof\n")


def test_start_up_is_timed_per_bot_while_the_others_start_too(tmp_path):
    """A bot that needs a second to start does not make its neighbour's start-up look slow.

    The slow one says ``ready`` only after a second and after the fast one has said it (a file the fast one
    makes), so it is the slower of the two on a machine of any speed."""
    fast_ready = tmp_path / "fast-ready"
    slow = dataclasses.replace(writer("ready_after=1.0", f"ready_when={fast_ready}"), name="slow")
    fast = dataclasses.replace(writer(f"mark={fast_ready}"), name="fast")
    outcome = play_match(job(4, "start", slow, fast))
    assert outcome.faults == ()
    slow_ms, fast_ms = (s.startup_ms for s in outcome.stats)
    assert slow_ms is not None and fast_ms is not None
    assert 1000 <= slow_ms, (slow_ms, fast_ms)  # its second counted...
    # ...and not its neighbour's: read one after the other (the slow one sits first), the fast one's ready
    # would have been read after the slow one's and timed longer. An order, not a duration a busy machine stretches.
    assert fast_ms < slow_ms, (slow_ms, fast_ms)
    assert outcome.to_json()["stats"][0]["startup_ms"] == round(slow_ms, 3)


def test_arena_replay_shows_a_seats_log_beside_its_own_moves(tmp_path):
    path = tmp_path / "m.jsonl"
    played = CliRunner().invoke(main, ["play", RANDOM, f"/usr/bin/python3 {WRITER}", "--seed", "8",
                                       "--sandbox", "none", "--replay", str(path)])
    assert played.exit_code == 0, played.output
    assert f"logs (stderr) of seat 1: arena replay {path} --seat N" in played.output
    _, records = read_replay(path.read_text().splitlines())
    assert {r["seat"] for r in records if r["type"] == "log"} == {1}

    mine = CliRunner().invoke(main, ["replay", str(path), "--seat", "1"]).output.splitlines()
    told = [line for line in mine if line.startswith("     log| ") or line.startswith("    > you chose")]
    acts = sum(line.startswith("    > you chose") for line in told)
    assert acts > 10
    # hello, then each act's line right before the move it chose, then eof after the last one
    match = play_match_id(8)  # the id the writer was sent in hello
    expected = [f"     log| {match} hello"]
    for n in range(1, acts + 1):
        expected += [f"     log| {match} act {n}", "you chose"]
    expected.append(f"     log| {match} eof")
    assert [line if "log|" in line else "you chose" for line in told] == expected

    quiet = CliRunner().invoke(main, ["replay", str(path), "--seat", "1", "--no-log"]).output
    other = CliRunner().invoke(main, ["replay", str(path), "--seat", "0", "--log"]).output
    assert "log|" not in quiet and "you chose" not in quiet
    assert "log|" not in other and f"{match} act" not in other  # another bot's log may name its cards
    everything = CliRunner().invoke(main, ["replay", str(path)]).output
    assert "log|" not in everything and f"{match} act" not in everything
    logged = CliRunner().invoke(main, ["replay", str(path), "--log"]).output
    assert f"     log log_writer@1| {match} act 1" in logged


def test_arena_play_log_bytes(tmp_path):
    path = tmp_path / "m.jsonl"
    args = ["play", RANDOM, f"/usr/bin/python3 {WRITER}", "--seed", "8", "--sandbox", "none", "--replay", str(path)]
    none = CliRunner().invoke(main, [*args, "--log-bytes", "0", "--json"])
    assert none.exit_code == 0, none.output
    assert '"type":"log"' not in path.read_text() and '"logs": [\n    "",\n    ""\n  ]' in none.output
    small = CliRunner().invoke(main, [*args, "--log-bytes", "64", "--json"])
    assert small.exit_code == 0 and '"cut":' in path.read_text() and "bytes cut ...]" in small.output
    bad = CliRunner().invoke(main, [*args, "--log-bytes", "-1"])
    assert bad.exit_code == 2 and "--log-bytes" in bad.output and "Traceback" not in bad.output
