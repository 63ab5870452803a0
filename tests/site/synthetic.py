"""A results directory made up without playing: any number of matches, any bot names, faults and logs,
written the way the driver writes them (rows, logs, voided matches, meta), in one bulk transaction.

As in every schedule, each made-up table is played under every rotation of its seats with one deal
seed, so a report shows all of its matches (only a deal with a rotation missing is withheld)."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any, Sequence

from arena.tournament.rating import RatingParams
from arena.tournament.store import ResultStore

FAULT_TEXT = "trace line {n}\nFAULT-MARKER <b>\"bad\"</b> & 'quoted'\n"


def synthetic_store(directory: Path, matches: int, bots: Sequence[str], seats: Sequence[int] = (2, 3, 4),
                    seed: int = 1, preset: str = "standard", faulty: Sequence[str] = (), voided: int = 1,
                    ladder: bool = False) -> None:
    """Fill ``directory`` with ``matches`` finished matches among ``bots`` (hidden strengths by list
    order, best first), faults for the ``faulty`` bots in about a fifth of their matches, and ``voided``
    voided matches at the end of the schedule.

    Tables are played under every rotation; their sizes are drawn from ``seats`` so that they add up to
    ``matches`` (only when that cannot be, as 5 matches of 2 bots, is the last deal cut short).
    The voided matches have deals of their own."""
    rng = random.Random(seed)
    store = ResultStore(Path(directory))
    try:
        store.claim(f"synthetic-{seed}", {"name": f"synthetic {preset}", "rules": {"preset": preset},
                                           "schedule": "ladder" if ladder else "sampled"}, None if ladder else
                    matches + voided)
        store.set_meta("rating", RatingParams().__dict__)
        store.set_meta("bots", list(bots))
        if ladder:
            store.set_meta("ladder", {"placement_matches": 5})
        strength = {bot: -i for i, bot in enumerate(bots)}
        rows, logs = [], []
        sizes = sorted({min(n, len(bots)) for n in seats})
        deals: list[tuple[list[str], int]] = []  # each match's seating and rotation, table after table
        while len(deals) < matches:
            left = matches - len(deals)
            count = rng.choice(sizes)
            if count > left or left - count == 1:
                fits = [n for n in sizes if n == left or n < left - 1]
                count = fits[-1] if fits else count  # else the last table is cut short
            dealt = rng.sample(list(bots), count)
            deals += [(dealt[r:] + dealt[:r], r) for r in range(count)]
        for index, (table, rotation) in enumerate(deals[:matches]):
            count = len(table)
            first = index - rotation
            order = sorted(table, key=lambda b: -(strength[b] + rng.gauss(0, 2)))
            places = [order.index(b) + 1 for b in table]
            totals = [20 * p + rng.randrange(10) for p in places]
            faults = []
            for seat, bot in enumerate(table):
                if bot in faulty and rng.random() < 0.2:
                    faults.append({"seat": seat, "bot": bot, "kind": rng.choice(["timeout", "illegal"]),
                                   "detail": f"<detail {index}>", "stderr": FAULT_TEXT.format(n=index) if index % 2
                                   else "", "round": 1, "decision": 3})
            forfeited = [False] * count
            stats = [{"decisions": 30, "think_ms": 30.0 + seat, "max_ms": 2.5, "startup_ms": 15.0 if index < 8
                      else None} for seat in range(count)]
            rows.append((index, f"m{index}/{'+'.join(table)}", f"1/{first}", 1, rotation, json.dumps(table),
                         json.dumps(places), json.dumps(totals), json.dumps(forfeited), "score", "[[0]]",
                         json.dumps(faults), 30 * count, 0.25 + index % 7 / 100, json.dumps(stats), "none",
                         f"replays/{index:06d}.jsonl.gz", 1_700_000_000.0 + index))
            for seat, bot in enumerate(table):
                logs.append((index, seat, f"log of {bot} in match {index}\n" * 3 + "last line <x>\n"))
        with store._db:
            store._db.executemany(f"INSERT INTO matches VALUES ({', '.join('?' * 18)})", rows)
            store._db.executemany("INSERT INTO logs VALUES (?, ?, ?)", logs)
            for v in range(voided):
                index = matches + v
                store._db.execute("INSERT INTO voided VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                                 (index, f"v{index}", f"1/{index}", 1, 0, json.dumps(list(bots[:2])),
                                  "killed its worker twice", 1_700_000_000.0 + index))
    finally:
        store.close()


def add_match(directory: Path, index: int, bots: Sequence[str], places: Sequence[int],
              deal: str | None = None, rotation: int = 0) -> None:
    """Store one more finished match (as a running tournament would), with its logs. ``deal``: its seed
    (by default one of its own), ``rotation``: which rotation of that deal it is."""
    count = len(bots)
    stats = [{"decisions": 30, "think_ms": 30.0, "max_ms": 2.5, "startup_ms": None}] * count
    store = ResultStore(Path(directory))
    try:
        with store._db:
            store._db.execute(f"INSERT INTO matches VALUES ({', '.join('?' * 18)})",
                             (index, f"m{index}/{'+'.join(bots)}", deal or f"1/{index}", 1, rotation,
                              json.dumps(list(bots)),
                              json.dumps(list(places)), json.dumps([20 * p for p in places]),
                              json.dumps([False] * count), "score", "[[0]]", "[]", 30 * count, 0.3,
                              json.dumps(stats), "none", f"replays/{index:06d}.jsonl.gz", 1_800_000_000.0 + index))
            store._db.executemany("INSERT INTO logs VALUES (?, ?, ?)", [(index, s, "") for s in range(count)])
    finally:
        store.close()


def put_back(results: Path, row: tuple[Any, ...]) -> None:
    """Store a match's row taken out of the store earlier, as a run stores its next match."""
    db = sqlite3.connect(results / "results.sqlite")
    try:
        with db:
            db.execute(f"INSERT INTO matches VALUES ({', '.join('?' * len(row))})", row)
    finally:
        db.close()
