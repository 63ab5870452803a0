"""Small real tournaments (sandbox none) under both rule presets, to build reports from."""

from __future__ import annotations

import os
from pathlib import Path

from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament

ROOT = Path(__file__).resolve().parents[2]


def play(directory: Path, preset: str) -> Path:
    """Run a one-cycle tournament of the bundled bots (and, under standard, one that plays an illegal
    action each match, with a log) into ``directory / "out"``, each match's viewer frames made as it is
    played (as a run with a report has them); returns that results directory."""
    if preset == "standard":
        rules, seats = "standard", "[2, 3]"
        extra = (f"  - {{name: illegal, command: /usr/bin/python3 {ROOT / 'tests' / 'bots' / 'fault_illegal.py'} 3}}\n"
                 f"  - {{name: writer, command: /usr/bin/python3 {ROOT / 'tests' / 'bots' / 'log_writer.py'}}}\n")
    else:
        rules, seats, extra = "{preset: espanola, options: {rounds: 2}}", "4", f"  - {ROOT / 'bots' / 'js-greedy'}\n"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{preset}.yaml"
    path.write_text(f"name: site-{preset}\nrules: {rules}\nseats: {seats}\ncycles: 1\nseed: 3\nsandbox: none\n"
                    f"workers: 2\nfault_policy: fallback\nlog_bytes: 4096\noutput: {directory / 'out'}\nbots:\n"
                    f"  - {ROOT / 'bots' / 'random'}\n  - {ROOT / 'bots' / 'heuristic'}\n"
                    f"  - {ROOT / 'bots' / 'c-random'}\n" + extra)
    summary = run_tournament(load_config(path), out=open(os.devnull, "w"), frames=True)  # as a run with a report
    assert summary.played > 0 and summary.failed == 0
    return directory / "out"
