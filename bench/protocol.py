"""Arena cost per decision against a raw JSON-lines ping-pong, measured in one run.

Arena: full matches of four C random bots through ``play_match`` (engine, observation,
JSON encoding, sandboxed pipes, reply validation), timing the decision loop only
(process start-up and shutdown are per match, not per decision). Raw: the same number of lines of the
same sizes written to a C echo child over plain pipes and answered with a short line.
Also measured: the arena's transport alone (the recorded act lines through
``BotProcess`` to one C random bot, replies decoded; no engine), the floor that a faster
engine could approach. Last line: ``protocol: arena/raw = R``.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena import protocol  # noqa: E402
from arena.bots import build_bot, load_bot  # noqa: E402
from arena.game import make_rules  # noqa: E402
from arena.bots import resolve_command  # noqa: E402
from arena.runner import MatchJob, play_match  # noqa: E402
from arena.sandbox import LaunchSpec, Limits, resolve_backend  # noqa: E402


def arena_run(preset: str, matches: int, sandbox: str, lines: list[bytes]) -> tuple[float, int]:
    """Seconds per decision over ``matches`` matches; records every act line sent."""
    spec = load_bot(str(ROOT / "bots" / "c-random"))
    build_bot(spec)
    bots = tuple(load_bot(str(ROOT / "bots" / "c-random"), name=f"c{i}") for i in range(4))
    original = protocol.act_line

    def recording(*args: object) -> bytes:
        data = original(*args)  # type: ignore[arg-type]
        lines.append(data)
        return data

    protocol.act_line = recording  # type: ignore[assignment]
    try:
        seconds = decisions = 0.0
        for index in range(matches):
            outcome = play_match(MatchJob(f"bench-{index}", make_rules(preset), f"bench/{index}", bots, sandbox=sandbox))
            seconds += outcome.play_seconds
            decisions += outcome.decisions
    finally:
        protocol.act_line = original  # type: ignore[assignment]
    return seconds / decisions, int(decisions)


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
    total_arena = total_raw = total_transport = 0.0
    for preset in ("standard", "espanola"):
        lines: list[bytes] = []
        per_decision, decisions = arena_run(preset, args.matches, args.sandbox, lines)
        sizes = [len(line) for line in lines]
        raw = raw_run(sizes)
        transport = transport_run(lines, args.sandbox)
        mean_size = sum(sizes) / len(sizes)
        print(f"{preset}: arena {per_decision * 1e6:.1f} us/decision over {decisions} decisions "
              f"(sandbox {args.sandbox}); raw ping-pong {raw * 1e6:.1f} us; the arena's transport alone "
              f"{transport * 1e6:.1f} us; act line {mean_size:.0f} bytes on average")
        total_arena += per_decision
        total_raw += raw
        total_transport += transport
    print(f"transport alone / raw = {total_transport / total_raw:.2f} (the floor without engine work)")
    print(f"protocol: arena/raw = {total_arena / total_raw:.2f}")


if __name__ == "__main__":
    main()
