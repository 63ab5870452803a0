"""Bots, tournament files and stored results for the cluster tests (no Dask needed here)."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

BOTS = Path(__file__).resolve().parents[2] / "bots"


def stored(output: Path) -> int:
    """Matches stored so far (0 before the store exists)."""
    try:
        with sqlite3.connect(f"file:{output / 'results.sqlite'}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("select count(*) from matches").fetchone()[0])
    except sqlite3.Error:
        return 0


def results(output: Path) -> list[tuple[object, ...]]:
    """What must not depend on where matches were played: each match's id, seed, bots and scores."""
    with sqlite3.connect(output / "results.sqlite") as db:
        columns = [row[1] for row in db.execute("pragma table_info(matches)")]
        keep = [c for c in ("match_id", "seed", "bots", "totals", "places", "forfeited", "rounds", "reason")
                if c in columns]
        return sorted(db.execute(f"select {', '.join(keep)} from matches").fetchall())


def copy_bots(target: Path) -> Path:
    """The bundled bots (random, heuristic, c-random and their ../lib) copied to ``target``."""
    for name in ("random", "heuristic", "c-random", "lib"):
        shutil.copytree(BOTS / name, target / name, ignore=shutil.ignore_patterns("__pycache__"))
    return target


def write_tournament(path: Path, bots: Path, output: Path, cycles: int = 2, per_process: int = 4,
                     sandbox: str = "none") -> Path:
    path.write_text(f"""name: cluster
seats: 2
cycles: {cycles}
seed: 7
sandbox: {sandbox}
matches_per_process: {per_process}
output: {output}
bots:
  - {bots / 'random'}
  - {bots / 'heuristic'}
  - {bots / 'c-random'}
""")
    return path


def reference(tmp: Path, cache: dict[int, list[tuple[object, ...]]], cycles: int) -> list[tuple[object, ...]]:
    """The results of ``cycles`` cycles of the test tournament played by two local worker processes."""
    from arena.tournament.config import load_config
    from arena.tournament.driver import run_tournament

    if cycles not in cache:
        bots = copy_bots(tmp / f"ref-bots-{cycles}")
        file = write_tournament(tmp / f"ref-{cycles}.yaml", bots, tmp / f"ref-out-{cycles}", cycles)
        with open(os.devnull, "w") as quiet:
            run_tournament(load_config(file), workers=2, out=quiet)
        cache[cycles] = results(tmp / f"ref-out-{cycles}")
    return cache[cycles]
