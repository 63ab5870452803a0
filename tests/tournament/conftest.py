"""Real stores written by small runs (sandbox none), shared by the tests of the store and of the standings."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament

from tests.tournament.test_ladder import copy_bot

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="package")
def played_round_robin(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A round robin of four bots, one of which plays an illegal action (a fault, with a log)."""
    directory = tmp_path_factory.mktemp("round-robin")
    path = directory / "rr.yaml"
    illegal = ROOT / "tests" / "bots" / "fault_illegal.py"
    path.write_text(f"name: rr\nseats: 2\ncycles: 1\nseed: 3\nsandbox: none\nworkers: 2\nfault_policy: fallback\n"
                    f"log_bytes: 4096\noutput: {directory / 'out'}\nbots:\n"
                    f"  - {ROOT / 'bots' / 'random'}\n  - {ROOT / 'bots' / 'heuristic'}\n"
                    f"  - {{name: illegal, command: /usr/bin/python3 {illegal} 3}}\n"
                    f"  - {{name: writer, command: /usr/bin/python3 {ROOT / 'tests' / 'bots' / 'log_writer.py'}}}\n")
    summary = run_tournament(load_config(path), out=open(os.devnull, "w"))
    assert summary.played == 12 and summary.failed == 0
    return directory / "out"


@pytest.fixture(scope="package")
def played_ladder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A ladder of three bots that played, then a new version of one (replacing the old) and a retirement,
    then more matches: every status a board shows. Returns the ladder file; its output is ``out`` beside it."""
    directory = tmp_path_factory.mktemp("ladder")
    bots = [copy_bot(directory, name) for name in ("ann", "bob", "carl", "dan")]
    path = directory / "ladder.yaml"
    path.write_text("\n".join([
        "name: lad", "schedule: ladder", "seats: [2, 3]", "seed: 5", "time: {move_ms: 2000, startup_ms: 10000}",
        "sandbox: none", "unsandboxed_builds: true", "workers: 2", "placement_matches: 4",
        f"output: {directory / 'out'}", "bots:", *(f"  - {b}" for b in bots[:3])]) + "\n")

    def cli(*args: str) -> None:
        result = CliRunner().invoke(main, list(args))
        assert result.exit_code == 0, result.output

    cli("run", str(path), "--matches", "6")
    (bots[0] / "bot.yaml").write_text((bots[0] / "bot.yaml").read_text() + "\n# v2\n")
    cli("submit", str(path), str(bots[0]))  # ann@v2 replaces ann@v1
    cli("submit", str(path), str(bots[3]))  # dan joins
    cli("retire", str(path), "carl")
    cli("run", str(path), "--matches", "10")
    return path
