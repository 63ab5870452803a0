"""Every stored replay of a tournament of hostile bots tells what results.sqlite tells.

Four bots, three of them faulty (``tests/bots/fault_*.py``), play every table of three
under each fault policy. For every stored match the replay's ``result`` record holds
the row's places, totals and forfeits, every fault of the row is in the replay just as
stored, every forfeit is recorded where it happened, and the actions marked as the
fallback policy's are exactly those the bot did not choose.
"""

from __future__ import annotations

import gzip
import os
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from arena.match.fallback import fallback_index
from arena.game import Match, make_rules
from arena.game.replay import read_replay
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
FAULT_BOTS = ROOT / "tests" / "bots"
PYTHON = "/usr/bin/python3"


def hostile_config(tmp_path: Path, policy: str) -> Path:
    def bot(name: str, script: str, *args: str) -> str:
        return f"  - {{name: {name}, command: \"{' '.join([PYTHON, str(FAULT_BOTS / script), *args])}\"}}\n"

    path = tmp_path / f"{policy}.yaml"
    path.write_text(
        f"name: hostile-{policy}\nrules: {{preset: espanola, options: {{rounds: 2}}}}\nseats: 3\nseed: 5\n"
        f"time: {{move_ms: 1000, startup_ms: 30000}}\nsandbox: none\nworkers: 2\nfault_policy: {policy}\n"
        f"max_faults: 3\noutput: {tmp_path / policy}\nbots:\n  - {ROOT / 'bots' / 'random'}\n"
        + bot("exiter", "fault_exit.py", "4", "3")  # fatal under either policy
        + bot("illegal", "fault_illegal.py", "2,4,6", "fly")  # forfeited at its 1st fault, or at its 3rd
        + bot("sleeper", "fault_timeout.py", "3,7", "late"))  # forfeited at its 1st timeout, or never
    return path


def expected_fallback(row: dict[str, Any], seats: list[int]) -> set[int]:
    """The decisions the fallback policy must have made, from the row alone.

    A fault at decision d replaces the faulting seat's first action from d on (its
    answer to the request that faulted); a forfeited seat is played by the fallback
    from its last fault on. (A fault while the arena writes an ``update`` would replace
    nothing, but these bots always read their input.)
    """
    chosen: set[int] = set()
    last: dict[int, int] = {}
    for fault in row["faults"]:
        chosen.add(next(n for n, s in enumerate(seats) if s == fault["seat"] and n >= fault["decision"]))
        last[fault["seat"]] = fault["decision"]
    for seat, forfeited in enumerate(row["forfeited"]):
        if forfeited:
            chosen.update(n for n, s in enumerate(seats) if s == seat and n >= last[seat])
    return chosen


@pytest.mark.parametrize("policy", ["forfeit", "fallback"])
def test_every_replay_agrees_with_the_database(tmp_path: Path, policy: str) -> None:
    config = load_config(hostile_config(tmp_path, policy))
    summary = run_tournament(config, out=open(os.devnull, "w"))
    assert summary.played == 12 and summary.failed == 0
    store = ResultStore(config.output, readonly=True)
    try:
        rows = list(store.rows())
    finally:
        store.close()
    assert len(rows) == 12
    kinds: Counter[str] = Counter()
    reordered = 0
    for row in rows:
        header, records = read_replay(gzip.decompress((config.output / row["replay"]).read_bytes()).decode()
                                      .splitlines())
        assert header["match"] == row["match_id"] and header["wire_id"] == config.wire_id(row["match_id"])
        # the last record is the outcome exactly as stored
        assert records[-1] == {
            "type": "result", "totals": row["totals"], "places": row["places"], "forfeited": row["forfeited"],
            "reason": row["reason"]}
        match_over = next(r for r in records if r["type"] == "match_over")
        reordered += match_over["places"] != row["places"]
        # every fault as stored, in order; each forfeit at the decision of the seat's last fault
        assert [r for r in records if r["type"] == "fault"] == [{"type": "fault", **f} for f in row["faults"]]
        kinds.update(f["kind"] for f in row["faults"])
        forfeits = {r["seat"]: r["decision"] for r in records if r["type"] == "forfeit"}
        assert sorted(forfeits) == [s for s, lost in enumerate(row["forfeited"]) if lost]
        for seat, decision in forfeits.items():
            assert decision == [f["decision"] for f in row["faults"] if f["seat"] == seat][-1]
        # the marked actions are the fallback policy's, and all of them; the actions rebuild the match
        match = Match(make_rules(header["rules"]["preset"], header["rules"]["options"]), header["players"],
                      header["seed"])
        seats, marked = [], set()
        for record in (r for r in records if r["type"] == "action"):
            legal = [dict(a) for a in match.legal_actions(record["seat"])]
            if record.get("by") == "fallback":
                marked.add(len(seats))
                assert record["action"] == legal[fallback_index(legal)]
            else:
                assert "by" not in record
            seats.append(record["seat"])
            match.apply(record["seat"], record["action"])
        assert match.result is not None and list(match.result.totals) == row["totals"]
        assert len(seats) == row["decisions"]
        assert marked == expected_fallback(row, seats), row["match_id"]
    assert {"exit", "illegal", "timeout"} <= set(kinds), kinds
    if policy == "forfeit":
        assert reordered, "no forfeited seat was ahead on total: the test would not see the places differ"
