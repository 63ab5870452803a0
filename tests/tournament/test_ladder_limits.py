"""Submission limits: a ladder file's ``submission: {max_mb, max_files}``, checked before anything else."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import ConfigError, load_config
from arena.tournament.ladder import limits
from arena.tournament.ladder.limits import SubmissionLimits, over
from tests.tournament.test_ladder import copy_bot, submit, write_ladder


def test_the_defaults_and_the_keys_are_read_and_checked(tmp_path: Path) -> None:
    assert load_config(write_ladder(tmp_path, [])).submission == SubmissionLimits(100, 5000)
    path = write_ladder(tmp_path, [], "submission: {max_mb: 5, max_files: 300}\n")
    assert load_config(path).submission == SubmissionLimits(5, 300)
    for extra, expected in (("submission: {max_files: 0}\n", "submission.max_files: expected an integer from 1 to "
                                                             "1000000, got 0"),
                            ("submission: {max_mb: 1.5}\n", "submission.max_mb: expected an integer from 1 to 100000"),
                            ("submission: {max_size: 3}\n", "submission.max_size: unknown key"),
                            ("submission: 100\n", "submission: expected a mapping with keys among max_mb, max_files")):
        with pytest.raises(ConfigError) as caught:
            load_config(write_ladder(tmp_path, [], extra))
        assert expected in str(caught.value) and "\n" not in str(caught.value)


def test_a_tournament_that_is_not_a_ladder_refuses_the_key(tmp_path: Path) -> None:
    path = tmp_path / "league.yaml"
    path.write_text(f"name: l\nbots: [{copy_bot(tmp_path, 'ann')}, {copy_bot(tmp_path, 'bob')}]\nseats: 2\n"
                    "submission: {max_mb: 5}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert "submission: only used with schedule: ladder" in str(caught.value)


def test_a_bot_with_too_many_files_is_refused_in_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    path = write_ladder(tmp_path, [], "submission: {max_files: 40}\n")
    ana = copy_bot(tmp_path, "ana")
    (ana / "data").mkdir()
    for index in range(60):
        (ana / "data" / f"{index}.txt").write_text("x")
    code, output = submit(path, ana)
    assert code == 1
    assert output == (f"Error: {ana}: more than 40 files and folders in the bot directory (with the ../lib it "
                      "shares, if any); this ladder takes at most 40 (submission.max_files in ladder.yaml); nothing "
                      "was entered\n")
    assert not (tmp_path / "out").exists()


def test_a_bot_too_big_is_refused_before_its_check(tmp_path: Path) -> None:
    path = write_ladder(tmp_path, [], "submission: {max_mb: 1}\n")
    ana = copy_bot(tmp_path, "ana")
    (ana / "bot.yaml").write_text("name: ana\nrun: [no-such-program]\n")  # a check would fail: it never runs
    with open(ana / "weights.bin", "wb") as f:
        f.truncate(2 * 1024 * 1024)
    code, output = submit(path, ana, "--name", "ana")
    assert code == 1 and output.startswith("Error: ana: more than 1 MB of files in the bot directory")
    assert "(submission.max_mb in ladder.yaml)" in output and output.count("\n") == 1
    assert not (tmp_path / "out").exists()


def test_only_what_a_snapshot_copies_counts(tmp_path: Path) -> None:
    bot = tmp_path / "bots" / "b"
    (bot / ".git" / "objects").mkdir(parents=True)
    for index in range(50):
        (bot / ".git" / "objects" / str(index)).write_text("x")
    (bot / "replays").mkdir()
    (bot / "replays" / "big").write_bytes(b"x" * 3000)
    outside = tmp_path / "huge"
    outside.mkdir()
    (outside / "data").write_bytes(b"x" * 5000)
    (bot / "link").symlink_to(outside)  # copied as a link: what it points to is not counted
    (bot / "bot.py").write_text("")
    assert over(str(bot), SubmissionLimits(max_mb=1, max_files=3)) is None
    (tmp_path / "bots" / "lib").mkdir()
    for index in range(3):
        (tmp_path / "bots" / "lib" / f"{index}.py").write_text("")
    assert over(str(bot), SubmissionLimits(max_mb=1, max_files=3)) == "more than 3 files and folders"


def test_counting_stops_at_the_first_limit_passed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bot = tmp_path / "bot"
    for folder in range(20):
        (bot / f"f{folder}").mkdir(parents=True)
        for index in range(20):
            (bot / f"f{folder}" / str(index)).write_text("")
    listed: list[str] = []
    real = os.scandir

    def scandir(path: str):  # type: ignore[no-untyped-def]
        listed.append(path)
        return real(path)

    monkeypatch.setattr(limits.os, "scandir", scandir)
    assert over(str(bot), SubmissionLimits(max_files=30)) == "more than 30 files and folders"
    assert len(listed) <= 3  # the top, and the first folder or two: never the other 18 of 20
    listed.clear()
    assert over(str(bot), SubmissionLimits(max_files=1000)) is None
    assert len(listed) == 21


def test_the_cli_names_the_command_and_key(tmp_path: Path) -> None:
    path = write_ladder(tmp_path, [], "submission: {max_files: 2}\n")
    result = CliRunner().invoke(main, ["submit", str(path), str(copy_bot(tmp_path, "ana"))])
    assert result.exit_code == 1 and "submission.max_files in ladder.yaml" in result.output
