"""The bundled heuristic bot's decision time: CPU time per ``act``, over whole matches in-process.

Four heuristic seats, both presets, two seeds each. Last line: ``heuristic: median N ms,
p99 N ms per decision (CPU)``; under 2 and 5 ms is what the bot was written for. It was a
test once, but a duration on a shared machine says as much about the machine as about the
bot, so it is measured here and read by a person.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.bots_examples.driver import PolicySeat, play  # noqa: E402
from tests.bots_examples.measure import heuristic_class  # noqa: E402


def decision_times() -> list[float]:
    """CPU seconds of every decision of the heuristic policy over the matches, sorted."""
    base = heuristic_class()
    times: list[float] = []

    class Timed(base):  # type: ignore[misc, valid-type]
        def act(self, state: Any, legal: Any, events: Any) -> Any:
            start = time.thread_time()
            index = super().act(state, legal, events)
            times.append(time.thread_time() - start)
            return index

    for preset in ("standard", "espanola"):
        for seed in range(2):
            play([PolicySeat(Timed) for _ in range(4)], preset, seed)
    return sorted(times)


def main() -> None:
    times = decision_times()
    median, p99 = times[len(times) // 2], times[int(len(times) * 0.99)]
    print(f"heuristic: median {median * 1e3:.2f} ms, p99 {p99 * 1e3:.2f} ms per decision (CPU), "
          f"{len(times)} decisions")


if __name__ == "__main__":
    main()
