"""Engine throughput: random legal matches, 4 players, both presets, on one core.

Each decision includes what the arena does for a real bot: building the acting
seat's observation and its new events, listing legal actions, applying one.
Last line: ``engine: N decisions/s`` (the slower preset, the number to watch), per
second of CPU time of this process: on a shared machine wall time also counts the time
other jobs (or the hypervisor) took the core away; both are printed.
"""

from __future__ import annotations

import argparse
import random
import time

from arena.game import Match, events_for, make_rules, observe


def run(preset: str, players: int, seconds: float) -> tuple[float, float, float]:
    """Play matches for about ``seconds``; return (decisions per CPU second, matches per CPU second, wall decisions/s)."""
    rules = make_rules(preset)
    decisions = matches = 0
    cpu = time.process_time()
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        match = Match(rules, players, f"bench/{matches}")
        rng = random.Random(matches)
        cursor = [0] * players
        while not match.over:
            asked = match.asked()
            seat = asked[0] if len(asked) == 1 else rng.choice(asked)
            observe(match, seat)
            events_for(match, seat, cursor[seat])
            cursor[seat] = len(match.events)
            match.apply(seat, rng.choice(match.legal_actions(seat)))
            decisions += 1
        matches += 1
    elapsed = time.perf_counter() - start
    used = time.process_time() - cpu
    return decisions / used, matches / used, decisions / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--seconds", type=float, default=5.0, help="time per preset")
    parser.add_argument("--players", type=int, default=4)
    args = parser.parse_args()
    rates = []
    for preset in ("standard", "espanola"):
        per_decision, per_match, wall = run(preset, args.players, args.seconds)
        rates.append(per_decision)
        print(f"{preset}: {per_decision:,.0f} decisions/s, {per_match:,.1f} matches/s per CPU second "
              f"({wall:,.0f} decisions/s of wall time; {args.players} players)")
    print(f"engine: {min(rates):.0f} decisions/s")


if __name__ == "__main__":
    main()
