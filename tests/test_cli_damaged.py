"""Every command that reads a results directory or a replay, on a few kinds of damaged input:
always one line and a non-zero exit, never a traceback (a small, deterministic fuzz)."""

from __future__ import annotations

import gzip
import random
import shutil
import sqlite3
from pathlib import Path
from typing import Callable

import pytest
from click.testing import CliRunner

from arena.cli import main

from .site.synthetic import synthetic_store

ROOT = Path(__file__).resolve().parents[1]
NOISE = random.Random(19).randbytes(20000)


def _truncated(db: Path) -> None:
    db.write_bytes(db.read_bytes()[:6000])


def _scrambled(db: Path) -> None:
    data = bytearray(db.read_bytes())
    rng = random.Random(5)
    for _ in range(200):
        at = rng.randrange(100, len(data))
        data[at] = rng.randrange(256)
    db.write_bytes(bytes(data))


STORES: dict[str, Callable[[Path], None]] = {  # (an empty file is a new store, not a damaged one)
    "noise": lambda db: db.write_bytes(NOISE),
    "cut short": _truncated,
    "scrambled pages": _scrambled,
    "a directory": lambda db: (db.unlink(), db.mkdir()),
}


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("base") / "results"
    synthetic_store(out, 60, ["random", "c-random", "other"], ladder=True)
    return out


def _config(tmp_path: Path, output: Path, ladder: bool) -> Path:
    path = tmp_path / ("ladder.yaml" if ladder else "league.yaml")
    path.write_text(f"name: t\nseats: 2\nseed: 3\nsandbox: none\nworkers: 1\noutput: {output}\n"
                    + ("schedule: ladder\n" if ladder else "")
                    + f"bots:\n  - {ROOT / 'bots' / 'random'}\n  - {ROOT / 'bots' / 'c-random'}\n")
    return path


def _one_line_refusal(args: list[str]) -> str:
    result = CliRunner().invoke(main, args)
    assert isinstance(result.exception, SystemExit) and result.exit_code == 1, (args, result.exception, result.output)
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: ") and "Traceback" not in result.output, (args, lines)
    return lines[0]


@pytest.mark.parametrize("damage", sorted(STORES))
def test_every_store_command_refuses_a_damaged_store_in_one_line(base, tmp_path, damage):
    out = tmp_path / "results"
    shutil.copytree(base, out)
    STORES[damage](out / "results.sqlite")
    ladder = _config(tmp_path, out, ladder=True)
    for args in (["leaderboard", str(out)], ["leaderboard", str(out), "--all"], ["report", str(out)],
                 ["report", str(out), "-o", str(tmp_path / "site")], ["bot", "log", str(out), "random"],
                 ["bot", "log", str(out), "random", "--match", "m1"], ["retire", str(ladder), "random"],
                 ["submit", str(ladder), str(ROOT / "bots" / "random")],
                 ["run", str(ladder), "--matches", "1", "--no-report"],
                 ["run", str(_config(tmp_path, out, ladder=False)), "--no-report"]):
        line = _one_line_refusal(args)
        assert "results.sqlite" in line, (args, line)


def _sql(db: Path, statement: str) -> None:
    with sqlite3.connect(db) as connection:
        connection.execute(statement)
    connection.close()


ROWS: dict[str, tuple[str, tuple[str, ...], str]] = {
    # a damage to the rows, the commands that read them (a ladder's board reads its kept ratings, not its rows),
    # and what the one line says
    "a match stored twice": ("INSERT INTO matches SELECT 100, match_id || '-copy', seed, cycle, rotation, bots, "
                             "places, totals, forfeited, reason, rounds, faults, decisions, seconds, stats, sandbox, "
                             "replay, finished_at FROM matches WHERE idx = 3", ("report", "run"),
                             "(match 100 (m3/c-random+other+random-copy) repeats match 3 (m3/c-random+other+random): "
                             "the same deal, rotation and seats stored twice)"),
    "a luck of NaN": ("INSERT INTO luck SELECT idx, 'cabo-v2', '[0, NaN, 0]' FROM matches WHERE idx = 3",
                      ("leaderboard", "report", "run"),
                      "(match 3: luck is not a finite number for each of its 3 seats, got [0, NaN, 0])"),
    "a luck of another table": ("INSERT INTO luck SELECT idx, 'cabo-v2', '[0.5, -0.5]' FROM matches WHERE idx = 3",
                                ("leaderboard", "report", "run"),
                                "(match 3: luck is not a finite number for each of its 3 seats, got [0.5, -0.5])"),
}


@pytest.mark.parametrize("damage", sorted(ROWS))
def test_a_match_stored_twice_or_a_luck_not_one_number_per_seat_is_refused_in_one_line(base, tmp_path, damage):
    out = tmp_path / "results"
    shutil.copytree(base, out)
    statement, commands, words = ROWS[damage]
    _sql(out / "results.sqlite", statement)
    args = {"leaderboard": ["leaderboard", str(out)], "report": ["report", str(out)],
            "run": ["run", str(_config(tmp_path, out, ladder=True)), "--matches", "1", "--no-report"]}
    for command in commands:
        line = _one_line_refusal(args[command])
        assert line.startswith(f"Error: {out / 'results.sqlite'}: the store is damaged ") and words in line, line


REPLAYS: dict[str, bytes] = {
    "noise": NOISE,
    "gzip of noise": gzip.compress(NOISE),
    "gzip cut short": gzip.compress(NOISE)[:5000],
    "gzip header only": gzip.compress(b"")[:10],
    "json lines of numbers": b"1\n2\n3\n",
    "nul bytes": b"\0" * 1000,
    "a header of nulls": b'{"type": "header", "format": null, "rules": null, "players": null, "seed": null}\n',
}


@pytest.mark.parametrize("case", sorted(REPLAYS))
def test_arena_replay_refuses_a_damaged_file_in_one_line(tmp_path, case):
    path = tmp_path / "r.jsonl.gz"
    path.write_bytes(REPLAYS[case])
    for extra in ([], ["--seat", "0"], ["--log"], ["--html", str(tmp_path / "html")]):
        assert _one_line_refusal(["replay", str(path), *extra]).startswith(f"Error: {path}: ")
