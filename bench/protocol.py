"""Arena cost per decision against a raw JSON-lines ping-pong, measured in one run.

Arena: full matches of four C random bots through ``play_match`` (engine, observation,
JSON encoding, sandboxed pipes, reply validation), timing the decision loop only
(process start-up and shutdown are per match, not per decision). Raw: the same number of lines of the
same sizes written to a C echo child over plain pipes and answered with a short line.
Also measured, to show where the arena's time goes: its transport alone (the recorded
act lines through ``BotProcess`` to one C random bot, replies decoded; no engine), and
its own work alone (the same matches replayed with every bot answered in-process from
the recorded replies: engine, observation, encoding, validation, no pipes, no bot).
The two add up to about the arena's time per decision. Last line:
``protocol: arena/raw = R``.
"""

from __future__ import annotations

import argparse
import collections
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.match import protocol, runner  # noqa: E402
from arena.bots import BotSpec, build_bot, load_bot  # noqa: E402
from arena.game import make_rules  # noqa: E402
from arena.bots import resolve_command  # noqa: E402
from arena.match.runner import MatchJob, play_match  # noqa: E402
from arena.sandbox import LaunchSpec, Limits, resolve_backend  # noqa: E402


def bench_bots() -> tuple[BotSpec, ...]:
    spec = load_bot(str(ROOT / "bots" / "c-random"))
    build_bot(spec)
    return tuple(load_bot(str(ROOT / "bots" / "c-random"), name=f"c{i}") for i in range(4))


def play(preset: str, matches: int, sandbox: str) -> tuple[float, int]:
    """Seconds per decision of the decision loops of ``matches`` matches, and the decisions."""
    bots = bench_bots()
    seconds = decisions = 0.0
    for index in range(matches):
        outcome = play_match(MatchJob(f"bench-{index}", make_rules(preset), f"bench/{index}", bots, sandbox=sandbox))
        seconds += outcome.play_seconds
        decisions += outcome.decisions
    return seconds / decisions, int(decisions)


def arena_run(preset: str, matches: int, sandbox: str, lines: list[bytes],
              choices: list[dict[int, int]]) -> tuple[float, int]:
    """Seconds per decision over ``matches`` matches and the decisions; records every act
    line sent and, per match, the index each request id was answered with."""
    act_line, chosen_index, start_table = protocol.act_line, protocol.chosen_index, runner._Table.start

    def recording_line(*args: object) -> bytes:
        data = act_line(*args)  # type: ignore[arg-type]
        lines.append(data)
        return data

    def recording_index(message: dict, request_id: int, legal: list) -> int:  # type: ignore[type-arg]
        index = chosen_index(message, request_id, legal)
        choices[-1][request_id] = index
        return index

    def numbered_start(table: runner._Table, backend_name: str) -> str:
        choices.append({})  # a new match
        return start_table(table, backend_name)

    protocol.act_line = recording_line  # type: ignore[assignment]
    protocol.chosen_index = recording_index  # type: ignore[assignment]
    runner._Table.start = numbered_start  # type: ignore[method-assign, assignment]
    try:
        return play(preset, matches, sandbox)
    finally:
        protocol.act_line = act_line
        protocol.chosen_index = chosen_index
        runner._Table.start = start_table  # type: ignore[method-assign]


class _Answering:
    """A bot that is no process: it answers each ``act`` at once with the recorded index.

    Stands in for :class:`arena.sandbox.BotProcess` so that only the arena's own work is
    timed. ``wait_fds`` is a pipe that is always readable, for the claim windows' poll.
    """

    def __init__(self, answers: dict[int, int], ready_fd: int) -> None:
        self.answers = answers
        self.ready_fd = ready_fd
        self.queue: collections.deque[bytes] = collections.deque()

    def send(self, data: bytes, deadline: float) -> None:
        if data.startswith(b'{"type":"act","id":'):
            request_id = int(data[19:data.index(b",", 19)])
            self.queue.append(b'{"type":"action","id":%d,"index":%d}' % (request_id, self.answers[request_id]))
        elif data.startswith(b'{"type":"hello"'):
            self.queue.append(b'{"type":"ready","name":"recorded"}')

    def readline(self, deadline: float) -> bytes:
        return self.queue.popleft()

    def wait_fds(self) -> tuple[int, ...]:
        return (self.ready_fd,)

    def alive(self) -> bool:
        return True

    def stderr_tail(self) -> str:
        return ""

    stderr_total = 0
    """No stderr ever: the per-decision check of the bot's log stays the one it is with a real bot."""

    def stderr_since(self, mark: int) -> tuple[int, bytes]:
        return 0, b""

    def drain_stderr(self) -> None:
        pass

    def close_stdin(self) -> None:
        pass

    def close(self, grace: float = 1.0) -> None:
        pass

    def kill(self) -> None:
        pass


def work_run(preset: str, choices: list[dict[int, int]], decisions: int) -> float:
    """Seconds per decision of the arena's own work: the recorded matches replayed with
    bots answered in-process (no pipes, no bot), the same decisions in the same order."""
    matches = iter(choices)
    readable, writer = os.pipe()
    os.write(writer, b"x")

    class Recorded:
        name = "recorded"

        def __init__(self) -> None:
            self.answers: dict[int, int] = {}

        def start(self, launch: LaunchSpec) -> _Answering:
            return _Answering(self.answers, readable)

    backend = Recorded()

    def start_table(table: runner._Table, backend_name: str) -> str:
        backend.answers = next(matches)
        table._start(backend)  # type: ignore[arg-type]
        return backend.name

    original = runner._Table.start
    runner._Table.start = start_table  # type: ignore[method-assign, assignment]
    try:
        per_decision, replayed = play(preset, len(choices), "none")
    finally:
        runner._Table.start = original  # type: ignore[method-assign]
        os.close(readable)
        os.close(writer)
    if replayed != decisions:
        raise SystemExit(f"the replayed {preset} matches took {replayed} decisions, not {decisions}: "
                         "the recorded answers no longer reproduce them")
    return per_decision


def raw_run(sizes: list[int]) -> float:
    """Seconds per round trip with a C echo child, lines of the recorded sizes."""
    with tempfile.TemporaryDirectory() as tmp:
        echo = os.path.join(tmp, "echo")
        subprocess.run(["gcc", "-O2", "-o", echo, str(ROOT / "bench" / "echo.c")], check=True)
        child = subprocess.Popen([echo], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
        assert child.stdin is not None and child.stdout is not None
        out, inp = child.stdin.fileno(), child.stdout.fileno()
        lines = [(b'{"type":"act","pad":"' + b"x" * max(0, n - 24) + b'"}\n') for n in sizes]
        start = time.perf_counter()
        for line in lines:
            os.write(out, line)
            reply = b""
            while not reply.endswith(b"\n"):
                reply += os.read(inp, 65536)
        elapsed = time.perf_counter() - start
        child.stdin.close()
        child.wait()
    return elapsed / len(lines)


def transport_run(lines: list[bytes], sandbox: str) -> float:
    """Seconds per round trip through the arena's transport alone: the recorded act lines
    sent to one C random bot with ``BotProcess.send``/``readline`` and each reply decoded.

    No engine, no observation, no validation: the floor a faster engine could reach.
    """
    spec = load_bot(str(ROOT / "bots" / "c-random"))
    backend, _ = resolve_backend(sandbox)
    bot = backend.start(LaunchSpec(tuple(resolve_command(spec)), spec.directory, Limits()))
    try:
        bot.send(protocol.encode(protocol.hello("bench", 0, 4, make_rules("standard"), 1000, 10000)), time.monotonic() + 10)
        bot.readline(time.monotonic() + 10)
        start = time.perf_counter()
        for line in lines:
            deadline = time.monotonic() + 10
            bot.send(line, deadline)
            protocol.decode(bot.readline(deadline))
        elapsed = time.perf_counter() - start
    finally:
        bot.close()
    return elapsed / len(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--matches", type=int, default=20, help="matches per preset")
    parser.add_argument("--sandbox", default="none", help="sandbox backend for the arena side")
    args = parser.parse_args()
    total_arena = total_raw = total_transport = total_work = 0.0
    for preset in ("standard", "espanola"):
        lines: list[bytes] = []
        choices: list[dict[int, int]] = []
        per_decision, decisions = arena_run(preset, args.matches, args.sandbox, lines, choices)
        sizes = [len(line) for line in lines]
        raw = raw_run(sizes)
        transport = transport_run(lines, args.sandbox)
        work = work_run(preset, choices, decisions)
        mean_size = sum(sizes) / len(sizes)
        print(f"{preset}: arena {per_decision * 1e6:.1f} us/decision over {decisions} decisions "
              f"(sandbox {args.sandbox}); raw ping-pong {raw * 1e6:.1f} us; the arena's transport alone "
              f"{transport * 1e6:.1f} us, its own work alone {work * 1e6:.1f} us; "
              f"act line {mean_size:.0f} bytes on average")
        total_arena += per_decision
        total_raw += raw
        total_transport += transport
        total_work += work
    print(f"transport alone / raw = {total_transport / total_raw:.2f} (the floor without engine work); "
          f"own work alone / raw = {total_work / total_raw:.2f} (the floor without pipes and bots)")
    print(f"protocol: arena/raw = {total_arena / total_raw:.2f}")

if __name__ == "__main__":
    main()
