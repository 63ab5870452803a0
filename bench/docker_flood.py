"""What a bot flooding stderr costs a match under the docker sandbox, next to a quiet bot.

Matches of the C random bot against the test image's ``/bot/stderr_flood`` (answers
hello, then floods stderr from a child and answers every request with nonsense) under
the fallback policy, which keeps it in the match until its third fault, against the same
number of matches of two C random bots; then the removal alone (``kill``) of a flooding
and of a quiet container. The test image is built by ``tests/docker/build-test-image.sh``.
Before the attach stream was read during removal, each flooded match took about 60 s
(the SDK call's timeout). Last line: ``docker flood: match F s, quiet match Q s``.
Needs a Docker engine; without one it says so and exits 0.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.match.link import TimeControl  # noqa: E402
from arena.bots import BotSpec  # noqa: E402
from arena.game import make_rules  # noqa: E402
from arena.match.runner import MatchJob, play_match  # noqa: E402
from arena.sandbox import DockerBackend, LaunchSpec  # noqa: E402

IMAGE = "cabo-arena-test:latest"
HELLO = b'{"type":"hello","match":"bench","seat":0}\n'


def match_seconds(opponent: str, matches: int) -> float:
    """Median wall seconds of a whole match (start, play, close and removal of both containers)."""
    bots = (BotSpec(name="random", command=("/bot/bot",), image=IMAGE),
            BotSpec(name="other", command=(opponent,), image=IMAGE))
    took = []
    for index in range(matches):
        start = time.monotonic()
        play_match(MatchJob(f"bench-flood-{index}", make_rules("standard"), index, bots, sandbox="docker",
                            fault_policy="fallback", time=TimeControl(move_ms=1000, startup_ms=10000)))
        took.append(time.monotonic() - start)
    return statistics.median(took)


def kill_seconds(program: str, times: int) -> float:
    """Median seconds of ``kill()`` (the container's removal) half a second after the handshake."""
    backend = DockerBackend(IMAGE)
    took = []
    for _ in range(times):
        proc = backend.start(LaunchSpec((program,)))
        proc.send(HELLO, time.monotonic() + 10)
        proc.readline(time.monotonic() + 10)
        time.sleep(0.5)  # a flooder fills the socket meanwhile
        start = time.monotonic()
        proc.kill()
        took.append(time.monotonic() - start)
    return statistics.median(took)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--matches", type=int, default=3)
    args = parser.parse_args()
    ok, why = DockerBackend().available()
    if not ok:
        print(f"docker flood: skipped: {why}")
        return
    subprocess.run(["bash", str(ROOT / "tests" / "docker" / "build-test-image.sh"), IMAGE], check=True)
    flood_kill, quiet_kill = kill_seconds("/bot/stderr_flood", args.matches), kill_seconds("/bot/echo", args.matches)
    print(f"kill (removal): flooding container {flood_kill:.2f} s, quiet container {quiet_kill:.2f} s")
    flood, quiet = match_seconds("/bot/stderr_flood", args.matches), match_seconds("/bot/bot", args.matches)
    print(f"docker flood: match {flood:.1f} s, quiet match {quiet:.1f} s")


if __name__ == "__main__":
    main()
