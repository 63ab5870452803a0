"""Fixtures for the example-bot tests: bot directories, with c-random built in a temp copy."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from .driver import BOTS, build, copy_bot


@pytest.fixture(scope="session")
def c_random_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A temp copy of bots/c-random, built with its manifest's build command."""
    if shutil.which("gcc") is None:
        pytest.skip("gcc is not installed")
    target = copy_bot(BOTS / "c-random", tmp_path_factory.mktemp("c-random"))
    build(target)
    assert (target / "bot").is_file()
    return target


@pytest.fixture(scope="session")
def bot_dirs(c_random_dir: Path) -> dict[str, Path]:
    """Name -> directory of every example bot (c-random: the built temp copy)."""
    dirs = {name: BOTS / name for name in ("random", "heuristic", "js-greedy")}
    dirs["c-random"] = c_random_dir
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    return dirs
