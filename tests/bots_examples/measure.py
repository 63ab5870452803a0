"""Measure average places of example bots over fixed seeds (not a test; run by hand).

    .venv/bin/python -m tests.bots_examples.measure --preset standard --matches 60 heuristic random random random

The first bot's seat rotates over the matches (match k: seat k mod players); the
others fill the remaining seats in order. ``heuristic`` and ``random`` run
in-process, any other bot directory as one persistent subprocess per seat (each
match starts with a new ``hello``). Match k uses seed ``k``.
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path
from typing import Any, Callable

from .driver import BOTS, BotProc, PolicySeat, ProcSeat, Seat, play


def load_module(name: str, path: Path) -> Any:
    """The file at ``path`` as module ``name``, registered before it runs: dataclasses and worker processes
    look their module up by name."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def heuristic_class() -> Any:
    return load_module("example_heuristic_strategy", BOTS / "lib" / "heuristic_strategy.py").HeuristicPolicy


def random_class() -> Any:
    return load_module("example_random_bot", BOTS / "random" / "bot.py").RandomPolicy


IN_PROCESS: dict[str, Callable[[], Any]] = {"heuristic": heuristic_class, "random": random_class}


def average_places(field: list[str], preset: str, matches: int, options: dict[str, Any] | None = None,
                   factories: dict[str, Any] | None = None) -> dict[str, float]:
    """Average place per entry of ``field`` (entry 0 rotates through the seats)."""
    n = len(field)
    factories = dict(factories or {})
    procs: list[BotProc] = []
    seats: list[Seat] = []
    for name in field:
        if name not in factories and name in IN_PROCESS:
            factories[name] = IN_PROCESS[name]()
        if name in factories:
            seats.append(PolicySeat(factories[name]))
        else:
            proc = BotProc(BOTS / name)
            procs.append(proc)
            seats.append(ProcSeat(proc))
    sums = [0.0] * n
    try:
        for k in range(matches):
            first = k % n
            order = list(range(1, n))
            assignment = [0] * n  # seat -> field entry
            assignment[first] = 0
            rest = [s for s in range(n) if s != first]
            for s, entry in zip(rest, order):
                assignment[s] = entry
            match = play([seats[e] for e in assignment], preset, k, options, copy_json=False)
            assert match.result is not None
            for s, entry in enumerate(assignment):
                sums[entry] += match.result.places[s]
    finally:
        for proc in procs:
            proc.close()
    out: dict[str, float] = {}
    for i, name in enumerate(field):
        key = name if name not in out else f"{name}#{i}"
        out[key] = sums[i] / matches
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--preset", default="standard")
    parser.add_argument("--matches", type=int, default=60)
    parser.add_argument("--option", action="append", default=[], help="key=value (JSON value)")
    parser.add_argument("field", nargs="+")
    args = parser.parse_args()
    import json
    options = {k: json.loads(v) for k, v in (o.split("=", 1) for o in args.option)}
    start = time.time()
    result = average_places(args.field, args.preset, args.matches, options)
    print(args.preset, options or "", {k: round(v, 3) for k, v in result.items()}, f"{time.time() - start:.1f}s")


if __name__ == "__main__":
    main()
