"""The driver plays on whichever executor is registered under the name a run chooses, and knows none itself."""

from __future__ import annotations

from pathlib import Path
from typing import Callable, Generator, Iterable, Iterator

import pytest

from arena.execute import (DASK, Batch, Done, PoolFailure, Registered, Result, choose, names, parse_address,
                           registry)
from arena.execute.local import run_jobs
from arena.match.runner import play_batch
from arena.tournament.config import ConfigError, load_config
from arena.tournament.driver import run_tournament

from ..tournament.test_driver import ROOT, results_of, rows


def league(tmp_path: Path, output: str, executor: str = "") -> Path:
    """One tournament (same name, so the same matches) written to ``output``; bots that need no build, as a
    run on another executor leaves building them to where it plays."""
    path = tmp_path / f"{output}.yaml"
    path.write_text("\n".join(["name: same", "seats: 2", "cycles: 2", "seed: 11", "sandbox: none", "workers: 1",
                               *([f"executor: {executor}"] if executor else []),
                               f"output: {tmp_path / output}", "bots:", f"  - {ROOT / 'bots' / 'random'}",
                               f"  - {ROOT / 'bots' / 'heuristic'}"]) + "\n")
    return path


class Recording:
    """An executor that plays on local worker processes and remembers the matches it was given."""

    def __init__(self, address: str, sandbox: str) -> None:
        self.address, self.sandbox = address, sandbox
        self.played: list[int] = []

    def __call__(self, batches: Iterable[Batch], workers: int) -> Generator[Result, None, None]:
        def seen() -> Iterator[Batch]:
            for batch in batches:
                self.played.extend(index for index, _ in batch)
                yield batch
        return run_jobs(seen(), workers)

    def describe(self, workers: int) -> str:
        return f"the recording executor at {self.address}"


def test_a_run_plays_on_the_registered_executor_with_the_same_results(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Recording] = []

    def make(address: str, sandbox: str, say: Callable[[str], None]) -> Recording:
        made.append(Recording(address, sandbox))
        return made[-1]

    monkeypatch.setitem(registry._registry, DASK, Registered(lambda: None, make, parse_address))
    here = run_tournament(load_config(league(tmp_path, "here")), say=lambda line: None)
    lines: list[str] = []
    there = run_tournament(load_config(league(tmp_path, "there")), say=lines.append, executor=choose(DASK, "local:2"))
    assert [(e.address, e.sandbox) for e in made] == [("local:2", "none")]
    assert sorted(made[0].played) == list(range(there.total or 0))
    assert lines[0].endswith("on the recording executor at local:2")
    assert (there.played, there.total) == (here.played, here.total)
    assert there.played == 4 and rows(tmp_path / "there") == rows(tmp_path / "here")
    assert results_of(tmp_path / "there") == results_of(tmp_path / "here")


class Inline:
    """The smallest executor: plays each batch in this very process, one match after another."""

    def __init__(self, address: str) -> None:
        self.address = address
        self.closed = False

    def __call__(self, batches: Iterable[Batch], workers: int) -> Generator[Result, None, None]:
        try:
            for batch in batches:
                for (index, _), outcome in zip(batch, play_batch([job for _, job in batch])):
                    yield Done(index, outcome)
        finally:
            self.closed = True

    def describe(self, workers: int) -> str:
        return f"this process ({self.address})"


def test_an_executor_added_by_one_registration_is_chosen_by_name_in_the_file(tmp_path: Path,
                                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    made: list[Inline] = []

    def make(address: str, sandbox: str, say: Callable[[str], None]) -> Inline:
        made.append(Inline(address))
        return made[-1]

    def parse(address: str) -> str:
        if address != "here":
            raise ValueError(f"{address!r}: expected here")
        return address

    monkeypatch.setitem(registry._registry, "inline", Registered(lambda: None, make, parse))
    assert "inline" in names()
    lines: list[str] = []
    there = run_tournament(load_config(league(tmp_path, "there", "{inline: here}")), say=lines.append)
    here = run_tournament(load_config(league(tmp_path, "here")), say=lambda line: None)
    assert len(made) == 1 and made[0].closed  # the driver closed it when the run ended
    assert lines[0].endswith("4 to play on this process (here)")
    assert there.played == here.played == 4 and rows(tmp_path / "there") == rows(tmp_path / "here")
    assert results_of(tmp_path / "there") == results_of(tmp_path / "here")
    with pytest.raises(ConfigError, match=r"executor\.inline: 'there': expected here$"):
        load_config(league(tmp_path, "refused", "{inline: there}"))


def test_an_executor_nobody_registered_is_one_line_not_a_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(registry._registry, DASK, raising=False)
    with pytest.raises(PoolFailure, match=r"^no dask executor is registered \(arena.cluster registers it"):
        registry.registered(DASK)


def test_the_address_is_checked_without_the_executor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delitem(registry._registry, DASK, raising=False)  # as before arena.cluster is imported
    assert parse_address("local:4") == "local:4"
    assert choose(DASK, "tcp://10.0.0.5:8786").address == "tcp://10.0.0.5:8786"
    with pytest.raises(ValueError, match="expected local:N with N a number of worker processes from 1 to"):
        choose(DASK, "local:0")
    with pytest.raises(ValueError, match="expected a Dask scheduler address"):
        parse_address("nonsense")
    with pytest.raises(ValueError, match=r"^unknown executor 'ray'; expected one of: local, dask$"):
        choose("ray", "x")


@pytest.mark.parametrize("value, message", [
    ("{ray: x}", r"executor\.ray: unknown key.*dask"),
    ("{}", r"executor: expected local, or one key among dask with its address.*, got no key$"),
    ("{dask: 5}", r"executor\.dask: expected an address such as tcp://10\.0\.0\.5:8786 or local:N, got 5"),
])
def test_a_bad_executor_in_the_file_is_one_line_naming_the_key(tmp_path: Path, value: str, message: str) -> None:
    with pytest.raises(ConfigError, match=message) as caught:
        load_config(league(tmp_path, "bad", value))
    assert "\n" not in str(caught.value) and "bad.yaml:" in str(caught.value)


@pytest.mark.parametrize("remote", [False, True])
def test_whether_the_bots_are_built_here_is_the_registrys_to_say(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                                 remote: bool) -> None:
    """The driver asks the executor's entry, not its name: a local one gets the sandbox resolved here and the
    bots built here (a build that leaves a file behind); a remote one gets the file's sandbox as written and
    builds nothing here, its workers do."""
    import shutil

    bot = tmp_path / "built"
    shutil.copytree(ROOT / "bots" / "random", bot, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copytree(ROOT / "bots" / "lib", tmp_path / "lib", ignore=shutil.ignore_patterns("__pycache__"))
    manifest = bot / "bot.yaml"
    manifest.write_text("\n".join("build: \"touch made-here\"" if line.startswith("build:") else
                                  line.replace("name: random", "name: built") for line in
                                  manifest.read_text().splitlines()) + "\n")
    sandboxes: list[str] = []

    def make(address: str, sandbox: str, say: Callable[[str], None]) -> Inline:
        sandboxes.append(sandbox)
        return Inline(address)

    monkeypatch.setitem(registry._registry, "inline", Registered(lambda: None, make, str, remote=remote))
    path = tmp_path / "t.yaml"
    path.write_text(f"name: t\nseats: 2\ncycles: 1\nseed: 1\nsandbox: auto\nexecutor: {{inline: x}}\n"
                    f"output: {tmp_path / 'out'}\nbots: [{bot}, {ROOT / 'bots' / 'heuristic'}]\n")
    assert run_tournament(load_config(path), say=lambda line: None).played == 2  # (a build this bot can play without)
    if remote:
        assert sandboxes == ["auto"] and not (bot / "made-here").exists()
    else:
        assert sandboxes[0] in ("bwrap", "none") and (bot / "made-here").exists()


def test_the_driver_knows_no_executor_by_name():
    """Every executor is described by its registry entry: the driver asks it, and names none."""
    from pathlib import Path

    import arena.tournament.driver as driver

    source = Path(driver.__file__).read_text()
    assert "dask" not in source.lower() and "cluster" not in source.lower()
    assert "LOCAL" not in source  # the local executor is chosen by the registry's default, not by name
