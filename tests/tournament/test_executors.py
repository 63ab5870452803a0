"""The driver plays on whichever executor is registered under the name a run chooses, and knows none itself."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterable, Iterator

import pytest

from arena.tournament import executors
from arena.tournament.config import load_config
from arena.tournament.driver import run_tournament
from arena.tournament.pool import Batch, PoolFailure, Results, run_jobs

from .test_driver import ROOT, results_of, rows


def league(tmp_path: Path, output: str) -> Path:
    """One tournament (same name, so the same matches) written to ``output``; bots that need no build, as a
    run on another executor leaves building them to its workers."""
    path = tmp_path / f"{output}.yaml"
    path.write_text("\n".join(["name: same", "seats: 2", "cycles: 2", "seed: 11", "sandbox: none", "workers: 1",
                               f"output: {tmp_path / output}", "bots:", f"  - {ROOT / 'bots' / 'random'}",
                               f"  - {ROOT / 'bots' / 'heuristic'}"]) + "\n")
    return path


class Recording:
    """An executor that plays on local worker processes and remembers the matches it was given."""

    def __init__(self, address: str, sandbox: str) -> None:
        self.address, self.sandbox = address, sandbox
        self.played: list[int] = []

    def __call__(self, batches: Iterable[Batch], workers: int) -> Results:
        def seen() -> Iterator[Batch]:
            for batch in batches:
                self.played.extend(index for index, _ in batch)
                yield batch
        return run_jobs(seen(), workers)

    def describe(self) -> str:
        return f"the recording executor at {self.address}"


def test_a_run_plays_on_the_registered_executor_with_the_same_results(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Recording] = []

    def make(address: str, sandbox: str, say: Callable[[str], None]) -> Recording:
        made.append(Recording(address, sandbox))
        return made[-1]

    monkeypatch.setitem(executors._registry, executors.DASK, executors.Registered(lambda: None, make))
    here = run_tournament(load_config(league(tmp_path, "here")), say=lambda line: None)
    lines: list[str] = []
    there = run_tournament(load_config(league(tmp_path, "there")), say=lines.append, dask="local:2")
    assert [(e.address, e.sandbox) for e in made] == [("local:2", "none")]
    assert sorted(made[0].played) == list(range(there.total or 0))
    assert "on the recording executor at local:2;" in lines[0]
    assert (there.played, there.total) == (here.played, here.total)
    assert there.played == 4 and rows(tmp_path / "there") == rows(tmp_path / "here")
    assert results_of(tmp_path / "there") == results_of(tmp_path / "here")


def test_an_executor_nobody_registered_is_one_line_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(executors._registry, executors.DASK, raising=False)
    with pytest.raises(PoolFailure, match=r"^no dask executor is registered \(arena.cluster registers it"):
        executors.registered(executors.DASK)


def test_the_address_is_checked_without_the_executor() -> None:
    assert executors.parse_address("local:4") == "local:4"
    assert executors.parse_address("tcp://10.0.0.5:8786") == "tcp://10.0.0.5:8786"
    with pytest.raises(ValueError, match="expected local:N with N a number of worker processes from 1 to"):
        executors.parse_address("local:0")
    with pytest.raises(ValueError, match="expected a Dask scheduler address"):
        executors.parse_address("nonsense")
