"""The ladder's board: the current field by default, older versions on request, and its four files."""

from __future__ import annotations

import csv
import io
import json
import re
from dataclasses import fields, replace
from pathlib import Path

from click.testing import CliRunner

from arena.cli import main
from arena.site.data import read_snapshot, version
from arena.tournament.config import load_config
from arena.tournament.driver import publish
from tests.tournament.test_table import unwrapped
from arena.tournament.ladder.board import LadderRow, current, markdown, text, to_csv, to_json, view, write
from arena.tournament.leaderboard import AHEAD_NOTE, INTERVAL_NOTE, LUCK_NOTE, TIER_NOTE
from arena.tournament.store import ResultStore
from tests.tournament.test_ladder import copy_bot, run, submit, write_ladder

NOON = 1796040000.0
"""2026-11-30T12:00:00Z."""

BOARD = [
    LadderRow("ann", 2, 21.23456, 30.0, 2.9218, 12, NOON, "ranked", 1, (1, 2), 0.87654),
    LadderRow("bob", 1, 15.5, 25.0, 3.1667, 9, NOON + 61.9, "ranked", 2, (1, 2)),
    LadderRow("cid", 1, 2.1, 25.5, 7.8, 1, NOON + 120, "placement"),
    LadderRow("ann", 1, 18.0, 27.0, 3.0, 7, NOON - 3600, "replaced"),
    LadderRow("bob", 0, 0.5, 20.0, 6.5, 0, None, "replaced"),
    LadderRow("dan", 1, 14.0, 24.0, 3.3, 8, NOON - 60, "retired"),
]
"""In board order, ranked, as ``rows()`` makes it (the functions print the rows given)."""


def cells(output: str) -> list[tuple[str, str, str, str]]:
    """(rank, bot, version, status) of each row of a terminal board."""
    return [(t[0], t[1], t[2], t[-1]) for t in (line.split() for line in output.splitlines())
            if len(t) >= 7 and re.fullmatch(r"v\d+", t[2])]


def test_the_current_field_is_every_entry_but_the_replaced_versions():
    assert [(r.name, r.version) for r in current(BOARD)] == [("ann", 2), ("bob", 1), ("cid", 1), ("dan", 1)]
    assert current([]) == []


def test_text_prints_the_rows_given_ranks_only_ranked_ones_and_says_what_is_hidden():
    shown = view(BOARD)
    assert cells(shown) == [("1", "ann", "v2", "ranked"), ("2", "bob", "v1", "ranked"),
                            ("-", "cid", "v1", "placement"), ("-", "dan", "v1", "retired")]
    assert shown.splitlines()[0].split() == ["#", "bot", "version", "mu-3σ", "95%", "rank", "P(>next)", "matches",
                                             "luck", "last", "played", "(UTC)", "status"]
    assert shown.splitlines()[1].split()[3:7] == ["21.23", "1-2", "0.88", "12"]
    assert shown.splitlines()[2].split()[3:6] == ["15.50", "1-2", "9"]  # the last ranked row: P(>next) blank
    assert shown.splitlines()[3].split()[3:6] == ["2.10", "-", "1"]  # in placement: no interval, no P
    assert unwrapped(shown.splitlines()[5:]) == [
        "#: ranked by mu-3σ (conservative TrueSkill: mu minus 3 sigma), ties by name; entries in placement and "
        "versions that left the field (replaced, retired) are listed after the ranked ones, unranked",
        INTERVAL_NOTE, AHEAD_NOTE, LUCK_NOTE, "(2 older versions hidden: --all shows them)"]  # no tier: no 2= note
    assert shown.splitlines()[-1] == "(2 older versions hidden: --all shows them)"
    everything = view(BOARD, everything=True)
    assert cells(everything)[3:5] == [("-", "ann", "v1", "replaced"), ("-", "bob", "v0", "replaced")]
    assert "hidden" not in everything and len(cells(everything)) == 6
    assert text(BOARD[:4], hidden=1).splitlines()[-1] == "(1 older version hidden: --all shows it)"
    assert [c[0] for c in cells(text([BOARD[2], BOARD[1]]))] == ["-", "2"]  # each row's own place
    assert "2026-11-30 12:01" in shown and " 21.23 " in shown
    assert text([]).splitlines()[-1] == "(no bot entered yet: arena submit LADDER.yaml BOT_DIR)"


def test_csv_holds_every_row_with_iso_times_and_an_empty_rank_when_unranked():
    rows = list(csv.reader(io.StringIO(to_csv(BOARD))))
    assert rows[0] == ["rank", "bot", "version", "exposure", "mu", "sigma", "matches", "last_played", "status",
                       "rank_low", "rank_high", "p_ahead_next", "tier", "next", "luck"]
    assert rows[1] == ["1", "ann", "2", "21.235", "30.0", "2.922", "12", "2026-11-30T12:00:00Z", "ranked",
                       "1", "2", "0.877", "", "", ""]
    assert rows[2][-6:] == ["1", "2", "", "", "", ""]
    assert rows[2][7] == "2026-11-30T12:01:01Z"
    assert [r[0] for r in rows[1:]] == ["1", "2", "", "", "", ""]
    assert rows[5] == ["", "bob", "0", "0.5", "20.0", "6.5", "0", "", "replaced", "", "", "", "", "", ""]
    assert len(rows) == 1 + len(BOARD)


def test_markdown_shows_the_current_field_then_the_older_versions_in_their_own_section():
    md = markdown(BOARD)
    lines = md.splitlines()
    assert lines[0] == "# Ladder"
    assert lines[2].startswith("2 ranked, 1 in placement, 1 retired")
    top, older = md.split("## Older versions")
    assert "| 1 | ann | v2 | 21.23 | 1-2 | 0.88 | 12 |" in top and "| 2 | bob | v1 | 15.50 | 1-2 |  | 9 |" in top
    assert "| - | dan | v1 | 14.00 | - |  | 8 | - | 2026-11-30 11:59 | retired |" in top
    assert AHEAD_NOTE in top and INTERVAL_NOTE in top and TIER_NOTE in top
    assert "| replaced |" not in top
    assert "| - | ann | v1 | 18.00 |" in older and "| - | bob | v0 |" in older and "ranked" not in older
    assert "## Older versions" not in markdown(current(BOARD))
    assert "no bot entered yet" in markdown([])


def test_json_holds_every_row_with_the_fields_of_a_row_rounded():
    data = json.loads(to_json(BOARD))
    assert [(d["name"], d["version"], d["status"]) for d in data] == [(r.name, r.version, r.status) for r in BOARD]
    assert all(list(d) == [f.name for f in fields(LadderRow)] + ["paired"] for d in data)
    assert all(d["paired"] is None for d in data)  # no version replayed its previous one's tables
    assert (data[0]["exposure"], data[0]["sigma"], data[4]["last_played"]) == (21.235, 2.922, None)
    assert (data[0]["rank"], data[2]["rank"]) == (1, None)
    assert (data[0]["rank_interval"], data[0]["p_ahead_next"]) == ([1, 2], 0.877)
    assert (data[1]["p_ahead_next"], data[2]["rank_interval"], data[2]["p_ahead_next"]) == (None, None, None)
    assert '"exposure": 0.0,' in to_json([replace(BOARD[0], exposure=-0.0001)])  # never -0.0


def test_write_puts_four_files_the_same_for_the_same_rows(tmp_path):
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        write(BOARD, tmp_path / name)
    names = ["ladder.json", "ladder.csv", "ladder.md", "ladder.txt"]
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == sorted(names)
    assert [(tmp_path / "a" / n).read_bytes() for n in names] == [(tmp_path / "b" / n).read_bytes() for n in names]
    assert (tmp_path / "a" / "ladder.txt").read_text() == view(BOARD)
    assert (tmp_path / "a" / "ladder.csv").read_text() == to_csv(BOARD)


def test_all_is_refused_for_a_tournament_that_is_not_a_ladder(tmp_path):
    store = ResultStore(tmp_path / "rr")
    try:
        store.claim("fp", {"name": "rr"}, 2)
    finally:
        store.close()
    result = CliRunner().invoke(main, ["leaderboard", str(tmp_path / "rr"), "--all"])
    assert result.exit_code == 1
    assert result.output == f"Error: --all applies to ladders only; {tmp_path / 'rr'} is a round-robin tournament\n"
    assert CliRunner().invoke(main, ["leaderboard", str(tmp_path / "rr")]).exit_code == 0


def test_the_leaderboard_hides_a_replaced_version_unless_all_is_given(tmp_path, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # the terminal of ladder.txt, whose notes are wrapped to 100
    ann, bob = copy_bot(tmp_path, "ann"), copy_bot(tmp_path, "bob")
    path = write_ladder(tmp_path, [ann, bob])
    out = tmp_path / "out"
    run(path, 4)
    with open(ann / "bot.py", "a") as f:
        f.write("# a new version\n")
    code, output = submit(path, ann)
    assert code == 0 and "replaces v1" in output, output
    run(path, 4)

    board = CliRunner().invoke(main, ["leaderboard", str(out)])
    assert board.exit_code == 0, board.output
    assert board.output.startswith("ladder: 8 matches played\n")
    assert {(bot, version) for _, bot, version, _ in cells(board.output)} == {("ann", "v2"), ("bob", "v1")}
    lines = board.output.splitlines()
    hidden = lines.index("(1 older version hidden: --all shows it)")
    assert lines[hidden + 2].startswith("ann@v2 against ann@v1 on the same ")  # then its replays' line
    everything = CliRunner().invoke(main, ["leaderboard", str(out), "--all"])
    assert everything.exit_code == 0, everything.output
    assert ("-", "ann", "v1", "replaced") in cells(everything.output) and "hidden" not in everything.output

    rows = list(csv.DictReader(io.StringIO((out / "ladder.csv").read_text())))
    # ann@v2 has played only replays of ann@v1's tables, which are never rated: still in placement
    assert {(r["bot"], r["version"], r["status"]) for r in rows} == {("ann", "1", "replaced"), ("ann", "2", "placement"),
                                                                      ("bob", "1", "ranked")}
    assert all(r["last_played"].endswith("Z") for r in rows)
    top, older = (out / "ladder.md").read_text().split("## Older versions")
    assert "| ann | v2 |" in top and "| ann | v1 |" not in top and "| ann | v1 |" in older
    assert (out / "ladder.txt").read_text() == board.output.split("\n", 1)[1]


def report_board(out: Path) -> tuple[list[str], list[tuple[str, str, str]]]:
    """The report's leaderboard page: its column titles and its (rank, player, status) rows, top to bottom."""
    from arena.site.build import build_report

    whole = (build_report(out, out / "report") / "index.html").read_text()
    page = whole.split('<table class="board sortable">', 1)[1]  # every version (the current field is above it)
    head = [re.sub(r"<[^>]+>", "", cell) for cell in re.findall(r"<th[^>]*>(.*?)</th>", page)]
    found = []
    for row in re.findall(r"<tr>(<td.*?)</tr>", page):
        cells = re.findall(r"<td[^>]*>(.*?)</td>", row)
        status = re.search(r'<span class="status">([^<]*)</span>', cells[1])
        found.append((cells[0], re.sub(r"<[^>]+>", "", cells[1].split(" <span")[0]), status.group(1) if status else ""))
    return head, found


def test_the_terminal_the_files_and_the_report_rank_a_ladder_alike(tmp_path):
    ann, bob, carl = (copy_bot(tmp_path, n) for n in ("ann", "bob", "carl"))
    path = write_ladder(tmp_path, [ann, bob, carl])
    out = tmp_path / "out"
    run(path, 6)
    with open(ann / "bot.py", "a") as f:
        f.write("# a new version\n")
    assert submit(path, ann)[0] == 0
    run(path, 5)
    served = version(read_snapshot(out))
    assert CliRunner().invoke(main, ["retire", str(path), "carl"]).exit_code == 0
    assert version(read_snapshot(out)) != served  # a served report reloads to show it
    assert submit(path, copy_bot(tmp_path, "dan"))[0] == 0  # never played: in placement

    everything = CliRunner().invoke(main, ["leaderboard", str(out), "--all"])
    assert everything.exit_code == 0, everything.output
    terminal = [(rank, f"{bot}@{version}", status) for rank, bot, version, status in cells(everything.output)]
    statuses = [status for _, _, status in terminal]
    assert {"ranked", "placement", "replaced", "retired"} <= set(statuses), everything.output
    groups = [{"ranked": 0, "placement": 1}.get(s, 2) for s in statuses]
    assert groups == sorted(groups)  # ranked, then in placement, then those that left the field
    assert [rank for rank, _, _ in terminal] == [str(n + 1) for n in range(statuses.count("ranked"))] + \
        ["-"] * (len(terminal) - statuses.count("ranked"))

    head, shown = report_board(out)
    assert shown == [(rank, player, "" if status == "ranked" else status) for rank, player, status in terminal]
    field = (out / "report" / "index.html").read_text().split('<table class="board drawn">', 1)[1].split("</table>")[0]
    drawn = [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in field.split("<tr>")[2:]]
    assert [(r[0], f"{r[1]}@{r[2]}", r[-1]) for r in drawn] == [t for t in terminal if t[2] != "replaced"]
    assert "mu-3σ" in head and "rating" not in " ".join(head)
    assert everything.output.splitlines()[1].split()[3] == "mu-3σ"
    note = "ranked by mu-3σ (conservative TrueSkill: mu minus 3 sigma), ties by name"
    assert note in everything.output and "R" + note[1:] in (out / "report" / "index.html").read_text()

    default = CliRunner().invoke(main, ["leaderboard", str(out)])  # the current field: the same, less replaced
    assert [(r, f"{b}@{v}", s) for r, b, v, s in cells(default.output)] == [t for t in terminal if t[2] != "replaced"]

    store = ResultStore(out)
    try:
        publish(store, load_config(path))  # the files as a run writes them, now
    finally:
        store.close()
    files = [(r["rank"] or "-", f"{r['bot']}@v{r['version']}", r["status"])
             for r in csv.DictReader(io.StringIO((out / "ladder.csv").read_text()))]
    standings = json.loads((out / "leaderboard.json").read_text())["standings"]
    assert [(str(s["rank"] or "-"), s["bot"], s["status"]) for s in standings] == files
    assert files == terminal


def test_the_refresh_reads_only_new_matches_and_equals_a_whole_read(tmp_path):
    """A ladder's board refresh keeps the pairs' deals between reads; matches stored later, at lower indices
    too, are read once, and the evidence is the same as reading every row."""
    import os
    import sqlite3

    import pytest

    from arena.tournament.config import load_config
    from arena.tournament.driver import run_tournament
    from arena.tournament.ladder.board import StoredEvidence, stored_evidence
    from arena.tournament.store.ladder import LadderStore
    from tests.tournament.test_ladder import copy_bot, write_ladder

    config = load_config(write_ladder(tmp_path, [copy_bot(tmp_path, n) for n in ("ann", "bob", "carl")]))
    run_tournament(config, out=open(os.devnull, "w"), max_matches=12)
    db = sqlite3.connect(config.output / "results.sqlite")
    try:
        held = [row for row in db.execute("SELECT * FROM matches WHERE idx IN (2, 5) ORDER BY idx")]
        with db:
            db.execute("DELETE FROM matches WHERE idx IN (2, 5)")  # as if they were still in play
        kept = StoredEvidence()
        kept.read(LadderStore(db))
        with db:  # they come back after later matches were stored
            db.executemany(f"INSERT INTO matches VALUES ({', '.join('?' * len(held[0]))})", held)
        again = kept.read(LadderStore(db))
        stored = stored_evidence(LadderStore(db))
        whole = stored.evidence
        pairs = [("ann@v1", "bob@v1"), ("ann@v1", "carl@v1"), ("bob@v1", "carl@v1")]
        assert [again.of(*p) for p in pairs] == [pytest.approx(whole.of(*p), abs=1e-9) for p in pairs]
        assert sum(whole.of(*p)[0] for p in pairs) > 0
        # the entries' luck likewise: the refresh's means are the whole read's, the two late matches in
        assert kept.luck() == pytest.approx(stored.luck()) and set(stored.luck()) == {"ann@v1", "bob@v1", "carl@v1"}
    finally:
        db.close()


LEAGUE = ("heuristic", "js-greedy", "c-random", "random")
"""The bundled league's bots (tournaments/league.yaml)."""


def league_rows(names: tuple[str, ...] = LEAGUE, extra: int = 0) -> list[LadderRow]:
    """A ladder board of the league's bots as a real ladder shows it (1,000 entries of ``bench/ladder.py``'s
    names with ``extra``): tiers, a P(>next), a placement entry, a retired one."""
    rows = [LadderRow(name, 1, 30.77 - 4 * i, 33.7 - 4 * i, 0.98, 72 + i, NOON, "ranked", i + 1, (1 + i // 2, 2 + i // 2),
                      0.996 if i == 1 else None, 1 + 2 * (i // 2), True, luck=-0.9 + i / 3)
            for i, name in enumerate(names)]
    rows += [LadderRow(f"bot{i:04d}", 1, 10.0 - i / 100, 20.0, 3.0, 12000, NOON, "ranked", len(names) + i + 1,
                       (len(names) + i - 40, len(names) + i + 60), 0.51, len(names) + i + 1, False, luck=-12.25)
             for i in range(extra)]
    return rows + [LadderRow("newcomer", 1, -12.5, 20.0, 8.0, 2, NOON, "placement"),
                   LadderRow("oldtimer", 3, 14.2, 21.0, 2.3, 9, NOON, "retired")]


def test_the_default_ladder_board_fits_100_columns_and_wide_adds_mu_and_sigma(monkeypatch):
    for rows in (league_rows(), league_rows(extra=1000)):
        for columns in ("60", "100"):
            monkeypatch.setenv("COLUMNS", columns)
            lines = view(rows).splitlines()
            table = lines[:len(rows) + 1]
            assert max(len(line) for line in table) <= 100  # the table fits 100 wherever it is printed
            assert all(len(line) <= int(columns) for line in lines[len(rows) + 1:])  # the notes fit the terminal
            assert unwrapped(lines[len(rows) + 1:])[1:3] == [TIER_NOTE, INTERVAL_NOTE]  # a tier is shown: its note
        wide = view(rows, wide=True).splitlines()
        assert [t.strip() for t in wide[0].split("  ") if t.strip()] == ["#", "bot", "version", "mu-3σ", "mu", "sigma",
                                                                          "95% rank", "P(>next)", "matches", "luck",
                                                                          "last played (UTC)", "status"]
        assert "33.70" in wide[1] and "33.70" not in view(rows).splitlines()[1]


def test_ladder_txt_is_wrapped_to_100_whatever_the_terminal_of_the_run_that_wrote_it(monkeypatch):
    from arena.tournament.ladder.board import LadderBoard

    board = LadderBoard(league_rows())
    monkeypatch.setenv("COLUMNS", "60")
    narrow = board.files()["ladder.txt"]
    monkeypatch.setenv("COLUMNS", "200")
    assert board.files()["ladder.txt"] == narrow == board.terminal(width=100)
    assert max(len(line) for line in narrow.splitlines()) <= 100 < len(LUCK_NOTE)
