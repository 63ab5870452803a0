"""One ladder per file, from any directory: every command finds the results its file names, says where they
are, and a read creates nothing."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import load_config
from tests.server.live import copy_bot

LADDER = """name: lad
schedule: ladder
seats: [2, 3]
seed: 5
time: {move_ms: 2000, startup_ms: 10000}
sandbox: none
unsandboxed_builds: true
workers: 2
placement_matches: 2
bots: [alice, bob]
"""


def arena(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture()
def ladder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """A ladder file with no ``output`` (so ``results/lad``, beside it) in ``home``, and another directory, the
    current one, that every command must leave alone."""
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    for name in ("alice", "bob", "carol"):
        copy_bot(home, name)
    (home / "ladder.yaml").write_text(LADDER)
    monkeypatch.chdir(elsewhere)
    return home / "ladder.yaml", elsewhere


def test_every_command_uses_the_results_beside_the_file_and_says_so(ladder: tuple[Path, Path]) -> None:
    path, elsewhere = ladder
    results = path.parent / "results" / "lad"
    said = f"lad: results in {results} (from {path})"
    # reads before anything exists create nothing, and say there is nothing
    code, out, _ = arena("author", "list", str(path))
    assert code == 0 and out.startswith(f"no authors yet ({results} has no server.sqlite)")
    code, _, err = arena("leaderboard", str(path))
    assert code == 1 and f"{results}: no results.sqlite here" in err
    assert arena("retire", str(path), "alice")[0] == 1 and arena("prune", str(path))[0] == 1
    assert not results.exists()
    code, out, err = arena("run", str(path), "--matches", "4", "--no-report")
    assert code == 0, err
    assert f"tournament lad (results in {results})" in out + err
    code, out, err = arena("author", "add", str(path), "ann")
    assert code == 0 and out.startswith("added the author ann") and err.strip().endswith(said)
    code, out, err = arena("author", "list", str(path))
    assert code == 0 and out.startswith("ann: bots none") and err.strip() == said
    code, out, err = arena("submit", str(path), str(path.parent / "carol"))
    assert code == 0 and "carol@v1" in out and err.strip().endswith(said), err
    code, out, err = arena("leaderboard", str(path))
    assert code == 0 and "alice" in out and err.strip() == said
    code, out, err = arena("bot", "log", str(path), "alice")
    assert code == 0 and err.strip() == said
    code, out, err = arena("retire", str(path), "carol")
    assert code == 0 and err.strip() == said
    code, out, err = arena("report", str(path))
    assert code == 0 and str(results / "report" / "index.html") in out and err.strip() == said
    assert arena("prune", str(path))[0] == 0
    assert os.listdir(elsewhere) == []  # nothing where the commands were run


def test_a_tournament_file_names_its_results_for_the_readers_too(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """``leaderboard`` and ``report`` take a tournament's file as well as its output directory."""
    home = tmp_path / "home"
    home.mkdir()
    for name in ("alice", "bob"):
        copy_bot(home, name)
    (home / "t.yaml").write_text("name: t\nseats: 2\ncycles: 1\nseed: 1\nsandbox: none\noutput: out\n"
                                 "bots: [alice, bob]\n")
    monkeypatch.chdir(tmp_path)
    assert arena("run", str(home / "t.yaml"), "--no-report")[0] == 0
    assert (home / "out" / "results.sqlite").is_file() and not (tmp_path / "out").exists()
    by_file, by_dir = arena("leaderboard", str(home / "t.yaml")), arena("leaderboard", str(home / "out"))
    assert by_file[0] == by_dir[0] == 0 and by_file[1] == by_dir[1]
    assert by_file[2].strip() == f"t: results in {home / 'out'} (from {home / 't.yaml'})" and by_dir[2] == ""


def test_an_output_up_from_the_files_directory_is_shown_without_dot_dot(tmp_path: Path) -> None:
    for name in ("alice", "bob"):
        copy_bot(tmp_path / "tournaments", name)
    path = tmp_path / "tournaments" / "t.yaml"
    path.write_text("name: t\nseats: 2\nseed: 1\nsandbox: none\noutput: ../results/t\nbots: [alice, bob]\n")
    code, out, err = arena("run", str(path), "--no-report")
    assert code == 0, err
    results = tmp_path / "results" / "t"
    assert f"tournament t (results in {results})" in err and f"results: {results} (" in out
    assert "/../" not in out + err + arena("leaderboard", str(path))[2]


def test_an_output_up_from_a_symlinked_directory_is_where_the_kernel_finds_it(tmp_path: Path) -> None:
    """``..`` after a symlink leads up from its target: that is the output, not the symlink's own parent."""
    (tmp_path / "real" / "sub").mkdir(parents=True)
    (tmp_path / "link").symlink_to(tmp_path / "real" / "sub")
    for name in ("alice", "bob"):
        copy_bot(tmp_path / "real" / "sub", name)
    path = tmp_path / "link" / "t.yaml"
    path.write_text("name: t\nseats: 2\nseed: 1\nsandbox: none\noutput: ../out\nbots: [alice, bob]\n")
    assert load_config(path).output == tmp_path / "real" / "out"


def test_swapped_submit_arguments_get_the_order(ladder: tuple[Path, Path]) -> None:
    path, _ = ladder
    bot = path.parent / "carol"
    code, _, err = arena("submit", str(bot), str(path))
    assert code == 2 and f"the ladder file comes first, then the bot directory: arena submit {path} {bot}" in err
