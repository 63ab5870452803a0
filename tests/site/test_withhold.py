"""A report made while a deal is still being played shows nothing of it: not its frames, its seed, its
list entry, its faults' logs nor a link to its replay, in any file of the report or served by ``arena
serve``; once every rotation of the deal is stored, the rebuilt report shows it. Round robins and
ladders cut short by ``--matches`` are played for real, so the replays hold real seeds and frames."""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import urllib.error
import urllib.request
from collections import defaultdict
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.site import data
from arena.site.blocks import all_frames, entries_of, parse_head
from arena.site.build import build_report
from arena.site.serve import LiveReport, make_server
from arena.site.viewer import build_viewer, match_list
from arena.site.withhold import withheld
from arena.tournament.store import schema
from arena.tournament.config import load_config
from arena.tournament.schedules.round_robin import round_robin

from tests.tournament.test_ladder import copy_bot
from arena.tournament.kinds import schedule_of
from arena.tournament.ladder.matchmaking import table_of
from arena.tournament.schedules.sampled import sampled

from .synthetic import add_match, synthetic_store

ROOT = Path(__file__).resolve().parents[2]
LINK = re.compile(r"viewer\.html#match=(\d+)")


def row(idx: int, seed: str, rotation: int, seats: int = 2) -> dict[str, object]:
    return {"idx": idx, "seed": seed, "rotation": rotation, "bots": [f"b{i}" for i in range(seats)]}


def test_a_deal_is_shown_once_every_rotation_is_stored():
    rows = [row(0, "x", 0, 3), row(1, "x", 1, 3), row(2, "y", 0), row(3, "y", 1), row(4, "z", 1)]
    assert withheld(rows) == {0, 1, 4}
    assert withheld(rows + [row(5, "x", 2, 3)]) == {4}


def test_a_voided_rotation_settles_its_deal_a_replayed_one_counts_once():
    rows = [row(0, "x", 0, 3), row(1, "x", 1, 3)]
    assert withheld(rows, [("x", 2, 3)]) == set()
    assert withheld([row(0, "y", 0), row(1, "y", 0)]) == {0, 1}  # rotation 0 twice: rotation 1 is still to come


@pytest.mark.parametrize("kind", ["round robin", "sampled"])
def test_every_schedule_plays_each_deal_under_every_rotation(kind):
    """What the report relies on to know a deal is whole from its stored rotations alone."""
    bots, seats = ["a", "b", "c", "d", "e"], [2, 3, 4]
    matches = list(round_robin(bots, seats, 2, 7) if kind == "round robin" else sampled(bots, seats, 9, 2, 7))
    deals: dict[str, list[int]] = defaultdict(list)
    for match in matches:
        deals[match.seed].append(match.rotation)
        assert len(match.bots) == len(next(m for m in matches if m.seed == match.seed).bots)
    assert all(sorted(rotations) == list(range(len(rotations))) for rotations in deals.values())
    assert len(deals) < len(matches)


def test_a_ladder_waits_for_a_voided_rotation_to_be_played_again(tmp_path):
    """A ladder completing a table plays its voided rotation again, with the same deal."""
    results = tmp_path / "ladder"
    synthetic_store(results, 4, ["a@v1", "b@v1"], voided=0, ladder=True)
    add_match(results, 4, ["a@v1", "b@v1"], [1, 2], deal="d-t", rotation=0)
    db = sqlite3.connect(results / "results.sqlite")
    with db:
        db.execute("INSERT INTO voided VALUES (5, 'v5', 'd-t', 1, 1, '[\"b@v1\", \"a@v1\"]', 'killed', 0)")
    db.close()
    assert data.read_snapshot(results).withheld == {4}
    add_match(results, 6, ["b@v1", "a@v1"], [1, 2], deal="d-t", rotation=1)
    assert data.read_snapshot(results).withheld == set()


def site_files(out: Path) -> dict[str, bytes]:
    """Every file of a report by its path, and each match's frames inflated from its block
    (``replays/<idx>``), so that what the blocks hold compressed is searched too."""
    return inflated({str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*") if p.is_file()})


def inflated(files: dict[str, bytes]) -> dict[str, bytes]:
    """``files`` with each match's frames inflated from its block as ``replays/<idx>``."""
    for name in [n for n in files if re.fullmatch(r"replays/b[0-9]+\.js", n)]:
        for entry in entries_of(parse_head(files[name].decode(), name), name):
            files[f"replays/{entry.idx}"] = entry.line.encode()
    return files


def stored(results: Path) -> list[tuple[int, str, str, int]]:
    db = sqlite3.connect(results / "results.sqlite")
    try:
        return db.execute("SELECT idx, match_id, seed, rotation FROM matches ORDER BY idx").fetchall()
    finally:
        db.close()


def check_site(files: dict[str, bytes], shown: dict[int, tuple[str, str]], hidden: dict[int, tuple[str, str]]) -> None:
    """No file names, links to or deals a hidden match (id and seed by index); each shown one is listed
    and has its frames, which hold its seed."""
    everything = b"\n".join(files.values())
    for idx, (match_id, seed) in hidden.items():
        assert seed.encode() not in everything, f"the seed of withheld match {idx} is in the report"
        assert f"replays/{idx}" not in files
        assert json.dumps(match_id).encode() not in everything and f">{match_id}<".encode() not in everything
    for idx, (match_id, seed) in shown.items():
        assert seed.encode() in files[f"replays/{idx}"]
        assert json.dumps(match_id).encode() in b"".join(text for name, text in files.items()
                                                          if name.startswith("data/matches-"))
    linked = {int(i) for name, text in files.items() if name.endswith(".html") for i in LINK.findall(text.decode())}
    listed = {m["idx"] for m in match_list(files["replays/index.js"].decode())}
    assert linked <= set(shown) and listed == set(shown)
    withheld_line = f"{len(hidden)} withheld until their deals are played out".encode()
    assert (withheld_line in files["index.html"]) == bool(hidden) and (b"withheld" in files["index.html"]) == bool(hidden)


def round_robin_config(tmp_path: Path) -> Path:
    """Three bots in pairs, each pair's deal played under both rotations: 6 matches, 3 deals; one bot
    plays an illegal action each match, so there are faults with logs."""
    path = tmp_path / "rr.yaml"
    path.write_text(
        f"name: deals\nrules: standard\nseats: [2]\ncycles: 1\nseed: 11\nsandbox: none\nworkers: 1\n"
        f"fault_policy: fallback\nlog_bytes: 4096\noutput: {tmp_path / 'out'}\nbots:\n"
        f"  - {ROOT / 'bots' / 'random'}\n  - {ROOT / 'bots' / 'heuristic'}\n"
        f"  - {{name: illegal, command: /usr/bin/python3 {ROOT / 'tests' / 'bots' / 'fault_illegal.py'} 3}}\n")
    return path


def run(config: Path, matches: int | None = None) -> None:
    done = CliRunner().invoke(main, ["run", str(config)] + (["--matches", str(matches)] if matches else []))
    assert done.exit_code == 0, done.output


def split_by_schedule(config: Path) -> tuple[dict[int, tuple[str, str]], dict[int, tuple[str, str]]]:
    """The stored matches as (shown, hidden): hidden when the schedule (not the store) has a match of
    the same deal that is not stored yet."""
    results = load_config(config).output
    rows = stored(results)
    done = {idx for idx, *_ in rows}
    missing = {m.seed for m in schedule_of(load_config(config)) if m.index not in done}
    shown = {idx: (mid, seed) for idx, mid, seed, _ in rows if seed not in missing}
    hidden = {idx: (mid, seed) for idx, mid, seed, _ in rows if seed in missing}
    return shown, hidden


def test_a_round_robin_cut_short_withholds_its_unfinished_deals(tmp_path):
    config = round_robin_config(tmp_path)
    results = load_config(config).output
    seen_hidden = seen_both = False
    for matches in (3, 2, None):  # three runs cut short by --matches, the last one plays the rest
        run(config, matches)
        shown, hidden = split_by_schedule(config)
        seen_hidden |= bool(hidden)
        seen_both |= bool(hidden) and bool(shown)
        check_site(site_files(results / "report"), shown, hidden)  # the report `arena run` wrote at its end
        check_site(site_files(build_report(results, tmp_path / "again")), shown, hidden)
        build_viewer(results, tmp_path / f"viewer-{len(shown)}")  # the viewer alone withholds them too
        assert set(all_frames(tmp_path / f"viewer-{len(shown)}" / "replays")) == set(shown)
        if hidden:
            faults = (results / "report" / "faults.html").read_text()
            assert all(f"match={idx}&" not in faults for idx in hidden)
    assert seen_hidden and seen_both and not hidden and len(shown) == 6


def test_a_ladder_table_cut_short_is_withheld_until_a_later_run_completes_it(tmp_path):
    bots = [copy_bot(tmp_path, name) for name in ("ann", "bob", "cat")]
    config = tmp_path / "ladder.yaml"
    config.write_text("\n".join(["name: lad", "schedule: ladder", "seats: [2, 3]", "seed: 5", "sandbox: none",
                                 "workers: 1", "placement_matches: 2", f"output: {tmp_path / 'out'}", "bots:"]
                                + [f"  - {b}" for b in bots]) + "\n")
    results = tmp_path / "out"
    run(config, 3)  # a table of two (both rotations), then the first rotation of a table of three
    rows = stored(results)
    tables: dict[tuple[int, tuple[str, ...]], set[int]] = defaultdict(set)
    for _, match_id, _, rotation in rows:
        parsed = table_of(match_id)
        assert parsed is not None
        tables[parsed[:2]].add(rotation)
    whole = {key for key, rotations in tables.items() if rotations == set(range(len(key[1])))}
    assert len(tables) == 2 and len(whole) == 1
    split = {idx: (mid, seed) for idx, mid, seed, _ in rows}
    hidden = {idx: value for idx, value in split.items() if table_of(value[0])[:2] not in whole}  # type: ignore[index]
    shown = {idx: value for idx, value in split.items() if idx not in hidden}
    check_site(site_files(results / "report"), shown, hidden)
    run(config, 2)  # the next run completes that table first, same deal, new indices
    rows = stored(results)
    assert len(rows) == 5 and {seed for *_, seed, _ in rows[3:]} == {seed for _, seed in hidden.values()}
    check_site(site_files(results / "report"), {idx: (mid, seed) for idx, mid, seed, _ in rows}, {})


def test_arena_serve_withholds_a_deal_until_the_run_has_played_it_out(tmp_path):
    config = round_robin_config(tmp_path)
    results = load_config(config).output
    run(config, 2)
    server, report = make_server(results, "127.0.0.1", 0, interval=0)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    host, port = server.server_address[:2]

    def served() -> dict[str, bytes]:
        report.refresh()  # as the first request would: rebuilt when the store changed
        files = {}
        for path in report.root.rglob("*"):  # what the report holds, each fetched over HTTP
            name = str(path.relative_to(report.root))
            if name.startswith(".") or not path.is_file():
                continue  # the marker file: never served
            with urllib.request.urlopen(f"http://{host}:{port}/{name}", timeout=10) as response:
                files[name] = response.read()
        return inflated(files)

    try:
        shown, hidden = split_by_schedule(config)
        assert hidden
        files = served()
        check_site(files, shown, hidden)
        assert all(f"replays/{idx}" not in files for idx in hidden)  # in no block served
        run(config)  # the run plays the rest while the report is served
        shown, hidden = split_by_schedule(config)
        assert not hidden and len(shown) == 6
        check_site(served(), shown, hidden)
        assert report.builds >= 2
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


def test_a_store_from_the_first_arena_is_grouped_the_same(tmp_path):
    """Layout 0 (no voided table, no logs) already kept each match's seed and rotation."""
    results = tmp_path / "old"
    results.mkdir()
    db = sqlite3.connect(results / "results.sqlite")
    db.executescript(schema.BASE)
    with db:
        db.execute("INSERT INTO meta VALUES ('bots', '[\"a\", \"b\"]')")
        db.execute("INSERT INTO meta VALUES ('fingerprint', '\"0f1e2d3c\"')")  # every run claimed its store
        for idx, rotation, seed, bots in ((0, 0, "d-1", '["a", "b"]'), (1, 1, "d-1", '["b", "a"]'),
                                          (2, 0, "d-2", '["a", "b"]')):
            db.execute(f"INSERT INTO matches VALUES ({', '.join('?' * 18)})",
                       (idx, f"c1/a+b/r{rotation}" if seed == "d-1" else "c2/a+b/r0", seed, 1, rotation, bots,
                        "[1, 2]", "[10, 20]", "[false, false]", "score", "[]", "[]", 10, 0.1,
                        json.dumps([{"decisions": 5, "think_ms": 1.0, "max_ms": 1.0, "startup_ms": None}] * 2),
                        "none", f"replays/{idx:06d}.jsonl.gz", 1.0))
    db.close()
    snapshot = data.read_snapshot(results)
    assert snapshot.withheld == {2} and [m["index"] for m in data.match_list(snapshot)] == [0, 1]
    assert data.summary(snapshot)["withheld"] == 1 and len(snapshot.records) == 3


def report_texts(report: Path) -> dict[str, str]:
    """Every file of a report (its markers apart) as text, by its path."""
    return {str(p.relative_to(report)): p.read_text(encoding="utf-8", errors="replace")
            for p in report.rglob("*") if p.is_file() and not p.name.startswith(".")}


def public_rows(results: Path) -> dict[str, tuple[int, float | None, float]]:
    """Each bot's matches, luck and mu on the public board of ``results``."""
    board = data.compute(data.public_view(data.read_snapshot(results))).board
    return {row["bot"]: (row["matches"], row["luck"], row["mu"]) for row in data.leaderboard_rows(board)}


def test_a_public_board_counts_only_the_deals_played_out(tmp_path):
    """The public report (what ``arena serve LADDER`` shows strangers, rebuilt as it does) leaves a deal still in
    play out of its board too: in every page and data file the ratings, match counts and luck are those of the
    deals played out, and one line says how many more wait; once the deal is played out they count. The
    organiser's board counts them, and says how many the public one holds back."""
    bots = [copy_bot(tmp_path, name) for name in ("ann", "bob")]
    config = tmp_path / "ladder.yaml"
    config.write_text("\n".join(["name: lad", "schedule: ladder", "seats: [2]", "seed: 5", "sandbox: none",
                                 "workers: 1", "placement_matches: 2", f"output: {tmp_path / 'out'}", "bots:"]
                                + [f"  - {b}" for b in bots]) + "\n")
    results = tmp_path / "out"
    public = LiveReport(results, tmp_path / "public", interval=0, public=True)
    run(config, 4)  # two deals, each under both rotations
    public.build()
    before, counted = report_texts(public.root), public_rows(results)
    assert {matches for matches, _, _ in counted.values()} == {4} and all(luck is not None for _, luck, _ in
                                                                          counted.values())
    run(config, 1)  # the first rotation of a third deal
    assert len(data.read_snapshot(results).withheld) == 1
    public.build()
    held, line = report_texts(public.root), "4 matches, 1 more held back until its deal is played out"
    assert line in held["index.html"] and line in held["data/summary.js"]
    assert {name: text.replace(line, "4 matches") for name, text in held.items()} == before
    assert public_rows(results) == counted
    board = CliRunner().invoke(main, ["leaderboard", str(results)]).output.splitlines()
    assert board[0] == "ladder: 5 matches played; the public board holds back 1 until its deal is played out"
    end = board[1].index("matches") + len("matches")  # numbers are right-aligned under their heading
    assert [row[:end].split()[-1] for row in board[2:4]] == ["5", "5"]  # its matches column counts the deal

    run(config, 1)  # the next run plays the deal out
    public.build()
    after = report_texts(public.root)
    assert "6 matches ·" in after["index.html"] and "held back" not in after["index.html"]
    assert {matches for matches, _, _ in public_rows(results).values()} == {6}
    fresh = report_texts(build_report(results, tmp_path / "fresh", public=True))
    assert {name: text for name, text in after.items() if name.endswith(".html")} == \
        {name: text for name, text in fresh.items() if name.endswith(".html")}
    assert CliRunner().invoke(main, ["leaderboard", str(results)]).output.splitlines()[0] == \
        "ladder: 6 matches played"
