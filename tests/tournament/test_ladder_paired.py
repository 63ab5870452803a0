"""A new version's first tables replay its previous version's (same deal and seats), and the board's paired line."""

from __future__ import annotations

import json
import math
import os
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.tournament.config import ConfigError, load_config
from arena.tournament.driver import run_tournament
from arena.tournament.ladder import paired
from arena.tournament.ladder.entries import Entry
from arena.tournament.ladder.tables import Replay
from arena.tournament.rating import RatingParams
from arena.tournament.ladder.matchmaking import LadderSchedule, ladder_match_id, source_of, table_of
from arena.site.withhold import withheld_in
from arena.tournament.store import ResultStore, schema
from arena.tournament.store.ladder import LadderStore
from tests.tournament.test_ladder import copy_bot, submit, write_ladder

Row = tuple[int, str, str, int, tuple[str, ...], tuple[int, ...]]


def stored(output: Path) -> list[Row]:
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return [(idx, mid, seed, rot, tuple(json.loads(bots)), tuple(json.loads(places)))
                for idx, mid, seed, rot, bots, places
                in db.execute("SELECT idx, match_id, seed, rotation, bots, places FROM matches ORDER BY idx")]
    finally:
        db.close()


def head(match_id: str) -> str:
    return match_id.partition("/")[0]


def by_table(rows: list[Row]) -> dict[str, list[Row]]:
    out: dict[str, list[Row]] = {}
    for row in rows:
        out.setdefault(head(row[1]), []).append(row)
    return out


def play(path: Path, matches: int, workers: int | None = None) -> None:
    with open(os.devnull, "w") as out:
        run_tournament(load_config(path), out=out, workers=workers, max_matches=matches)


def ladder_with_a_second_version(tmp_path: Path, extra: str = "", before: tuple[str, ...] = (),
                                 workers: int | None = None) -> Path:
    """ann, bob and cid play 12 matches (tables of 2 and 3 in turn); then ann's files change and ann@v2 enters.
    ``before``: an arena command run just before the submission (e.g. retiring bob)."""
    bots = [copy_bot(tmp_path, n) for n in ("ann", "bob", "cid")]
    path = write_ladder(tmp_path, bots, extra)
    play(path, 12, workers)
    if before:
        result = CliRunner().invoke(main, [before[0], str(path), *before[1:]])
        assert result.exit_code == 0, result.output
    (bots[0] / "notes.txt").write_text("a change: a new version\n")
    code, output = submit(path, bots[0])
    assert code == 0 and "entered ann@v2" in output, output
    return path


def source_head(tables: dict[str, list[Row]], match_id: str) -> str:
    """The head of the table that the replay ``match_id`` replays (``L2``, or ``L12~0`` for a replay's replay)."""
    first = f"L{source_of(match_id)}"
    return next(h for h in tables if h.partition("~")[0] == first)


def check_replay(tables: dict[str, list[Row]], replay: str) -> str:
    """Assert that table ``replay`` (whose rotations a stop may have cut short) is its source's deal and
    seatings with ann@v2 where ann@v1 sat; its source."""
    rows = tables[replay]
    source = source_head(tables, rows[0][1])
    original = {row[3]: row for row in tables[source]}
    assert sorted(original) == list(range(len(rows[0][4])))  # the source was complete
    assert len({row[3] for row in rows}) == len(rows)
    for _, _, seed, rotation, bots, _ in rows:
        assert seed == original[rotation][2]
        assert bots == tuple("ann@v2" if b == "ann@v1" else b for b in original[rotation][4])
    return source


def test_the_new_versions_first_tables_replay_the_old_ones_with_the_same_deal_and_seats(tmp_path):
    path = ladder_with_a_second_version(tmp_path, "replay_tables: 2\n")
    play(path, 12)
    rows = stored(tmp_path / "out")
    tables = by_table(rows)
    old = [h for h in tables if any("ann@v1" in r[4] for r in tables[h])]
    after = list(dict.fromkeys(head(r[1]) for r in rows if r[0] >= 12))
    assert all("~" in h for h in after[:2]) and not any("~" in h for h in after[2:])  # two replays, first
    assert [check_replay(tables, h) for h in after[:2]] == old[:2]  # in the order ann@v1 played them


def test_a_table_whose_opponent_left_the_field_is_not_replayed(tmp_path):
    path = ladder_with_a_second_version(tmp_path, before=("retire", "bob"))
    play(path, 8)
    tables = by_table(stored(tmp_path / "out"))
    replays = [h for h in tables if "~" in h]
    sources = [check_replay(tables, h) for h in replays]
    expected = [h for h in tables if "~" not in h and any("ann@v1" in r[4] for r in tables[h])
                and not any("bob@v1" in r[4] for r in tables[h])]
    assert sources == expected and expected  # ann's tables with cid alone; those with bob are skipped
    assert all("bob@v1" not in r[4] for h in replays for r in tables[h])


def test_a_version_coming_back_replays_the_one_before_it(tmp_path):
    bots = [copy_bot(tmp_path, n) for n in ("ann", "bob", "cid")]
    path = write_ladder(tmp_path, bots)
    play(path, 12)
    assert CliRunner().invoke(main, ["retire", str(path), "ann"]).exit_code == 0
    code, output = submit(path, bots[0])
    assert code == 0 and "back as a new version" in output, output
    play(path, 6)
    tables = by_table(stored(tmp_path / "out"))
    replays = [h for h in tables if "~" in h]
    assert replays and all(check_replay(tables, h) for h in replays)


def test_replay_tables_0_turns_replays_off(tmp_path):
    path = ladder_with_a_second_version(tmp_path, "replay_tables: 0\n")
    play(path, 8)
    assert not any("~" in r[1] for r in stored(tmp_path / "out"))
    assert "against" not in (tmp_path / "out" / "ladder.txt").read_text()


@pytest.mark.parametrize("value", ["-1", "1001", "yes", "2.5", "null", "[3]"])
def test_a_bad_replay_tables_is_refused_in_one_line_naming_the_key(tmp_path, value):
    path = write_ladder(tmp_path, [], f"replay_tables: {value}\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    message = str(caught.value)
    assert "\n" not in message and "ladder.yaml:" in message and "replay_tables" in message
    assert "expected an integer from 0 to 1000" in message
    result = CliRunner().invoke(main, ["run", str(path)])
    assert result.exit_code == 1 and result.output.count("\n") == 1 and "replay_tables" in result.output


def test_replay_tables_is_a_ladders_key(tmp_path):
    assert load_config(write_ladder(tmp_path, [], "replay_tables: 3\n")).replay_tables == 3
    assert load_config(write_ladder(tmp_path, [])).replay_tables == 8
    other = tmp_path / "rr.yaml"
    other.write_text("name: rr\nseats: 2\nreplay_tables: 3\nbots: [a, b]\n")
    with pytest.raises(ConfigError, match="replay_tables.*only used with schedule: ladder"):
        load_config(other)


def test_a_replay_cut_short_is_completed_with_the_same_deal_and_seats(tmp_path):
    path = ladder_with_a_second_version(tmp_path)
    play(path, 3)  # the replay of L0 (2 seats: 2 matches), then rotation 0 of the replay of L2 (3 seats)
    rows = stored(tmp_path / "out")
    cut = head(rows[-1][1])
    assert "~" in cut and [r[3] for r in rows if head(r[1]) == cut] == [0]
    store = ResultStore(tmp_path / "out", readonly=True)
    try:  # its deal is the original's, which the report shows already: so it shows the replay's too
        assert withheld_in(store, list(store.rows())) == set()
    finally:
        store.close()
    play(path, 2)
    rows = stored(tmp_path / "out")
    assert [(head(r[1]), r[3]) for r in rows[-2:]] == [(cut, 1), (cut, 2)]  # under the same id
    assert check_replay(by_table(rows), cut) == "L2"


def test_one_or_two_workers_store_the_same_matches_with_replays(tmp_path):
    runs = []
    for workers in (1, 2):
        home = tmp_path / f"w{workers}"
        home.mkdir()
        path = ladder_with_a_second_version(home, workers=workers)
        play(path, 20, workers)
        runs.append(stored(home / "out"))  # index, id, deal seed, rotation, seating, places
        assert stored(home / "out")[12][2] == stored(home / "out")[0][2]  # the first replay deals L0 again
    assert runs[0] == runs[1] and sum("~" in r[1] for r in runs[0]) >= 8


def flat(text: str) -> str:
    """A board's text with its wrapped lines joined: every run of spaces and line ends one space."""
    return " ".join(text.split())


def test_the_board_shows_the_line_everywhere_after_a_run_and_in_arena_leaderboard(tmp_path):
    path = ladder_with_a_second_version(tmp_path)
    play(path, 10)
    out = tmp_path / "out"
    db = sqlite3.connect(out / "results.sqlite")
    try:
        (line,) = paired.read(LadderStore(db))
    finally:
        db.close()
    said = line.line()
    assert said.startswith("ann@v2 against ann@v1 on the same ") and "places per match" in said
    assert said in flat((out / "ladder.txt").read_text()) and f"- {said}" in (out / "ladder.md").read_text()
    rows = {f"{r['name']}@v{r['version']}": r for r in json.loads((out / "ladder.json").read_text())}
    assert rows["ann@v2"]["paired"] == line.to_json() and rows["bob@v1"]["paired"] is None
    shown = CliRunner().invoke(main, ["leaderboard", str(out)])
    assert shown.exit_code == 0 and said in flat(shown.output)  # wrapped to the terminal, like every note
    report = CliRunner().invoke(main, ["report", str(out)])
    assert report.exit_code == 0, report.output
    assert (out / "report" / "index.html").is_file()


def _store(rows: list[tuple[int, str, str, int, list[str], list[int] | None]]) -> sqlite3.Connection:
    """An in-memory store holding these matches (places None: voided)."""
    db = sqlite3.connect(":memory:")
    db.executescript(schema.BASE)
    db.execute(schema.MIGRATIONS[0])
    for idx, match_id, seed, rotation, bots, places in rows:
        if places is None:
            db.execute("INSERT INTO voided VALUES (?, ?, ?, 1, ?, ?, 'killed its worker twice', 0)",
                       (idx, match_id, seed, rotation, json.dumps(bots)))
        else:
            db.execute("INSERT INTO matches VALUES (?, ?, ?, 1, ?, ?, ?, '[]', '[]', '', '[]', '[]', 0, 0, '[]', "
                       "'none', '', 0)", (idx, match_id, seed, rotation, json.dumps(bots), json.dumps(places)))
    return db


def test_the_line_is_the_mean_of_the_tables_differences_with_a_t_interval():
    a1, a2, b, c = "ann@v1", "ann@v2", "bob@v1", "cid@v1"
    db = _store([
        # L0: ann@v1 places 1 and 2 (mean 1.5); its replay L10~0: 1 and 1 (mean 1): +0.5 over 2 matches
        (0, "L0/ann@v1+bob@v1/r0", "d-0", 0, [a1, b], [1, 2]), (1, "L0/ann@v1+bob@v1/r1", "d-0", 1, [b, a1], [1, 2]),
        (10, "L10~0/ann@v2+bob@v1/r0", "d-0", 0, [a2, b], [1, 2]),
        (11, "L10~0/ann@v2+bob@v1/r1", "d-0", 1, [b, a2], [2, 1]),
        # L2: ann@v1 3, 3 and 1 (a tie: places shared); the replay's rotation 2 is voided, so rotations 0 and 1
        # count: old (3 + 3) / 2 = 3, new (1 + 3) / 2 = 2: +1 over 2 matches
        (2, "L2/ann@v1+bob@v1+cid@v1/r0", "d-2", 0, [a1, b, c], [3, 1, 2]),
        (3, "L2/ann@v1+bob@v1+cid@v1/r1", "d-2", 1, [b, c, a1], [1, 2, 3]),
        (4, "L2/ann@v1+bob@v1+cid@v1/r2", "d-2", 2, [c, a1, b], [1, 1, 3]),
        (12, "L12~2/ann@v2+bob@v1+cid@v1/r0", "d-2", 0, [a2, b, c], [1, 2, 3]),
        (13, "L12~2/ann@v2+bob@v1+cid@v1/r1", "d-2", 1, [b, c, a2], [1, 2, 3]),
        (14, "L12~2/ann@v2+bob@v1+cid@v1/r2", "d-2", 2, [c, a2, b], None),
        # L5: ann@v1 1 and 1; the replay L15~5: 2 and 2: -1 over 2 matches
        (5, "L5/ann@v1+cid@v1/r0", "d-5", 0, [a1, c], [1, 2]), (6, "L5/ann@v1+cid@v1/r1", "d-5", 1, [c, a1], [2, 1]),
        (15, "L15~5/ann@v2+cid@v1/r0", "d-5", 0, [a2, c], [2, 1]),
        (16, "L15~5/ann@v2+cid@v1/r1", "d-5", 1, [c, a2], [1, 2]),
        # L7 and its replay L17~7, of which nothing was played: it does not count
        (7, "L7/ann@v1+cid@v1/r0", "d-7", 0, [a1, c], [1, 2]), (8, "L7/ann@v1+cid@v1/r1", "d-7", 1, [c, a1], [1, 2]),
        (17, "L17~7/ann@v2+cid@v1/r0", "d-7", 0, [a2, c], None),
        # bob@v2 replays one table, L20, where bob@v1 placed 2 and 1 (mean 1.5); bob@v2 1 and 1: +0.5
        (20, "L20/bob@v1+cid@v1/r0", "d-20", 0, [b, c], [2, 1]),
        (21, "L20/bob@v1+cid@v1/r1", "d-20", 1, [c, b], [2, 1]),
        (30, "L30~20/bob@v2+cid@v1/r0", "d-20", 0, ["bob@v2", c], [1, 2]),
        (31, "L30~20/bob@v2+cid@v1/r1", "d-20", 1, [c, "bob@v2"], [2, 1]),
    ])
    ann, bob = paired.read(LadderStore(db))
    values = [0.5, 1.0, -1.0]
    mean = sum(values) / 3
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / 2)
    half = 4.303 * spread / math.sqrt(3)  # Student's t, 2 degrees of freedom
    assert (ann.new, ann.old, ann.tables, ann.matches) == ("ann@v2", "ann@v1", 3, 6)
    assert ann.mean == pytest.approx(mean) and ann.low == pytest.approx(mean - half)
    assert ann.high == pytest.approx(mean + half)
    assert ann.line() == ("ann@v2 against ann@v1 on the same 3 tables (6 matches): ann@v2 gains +0.17 places per match "
                          "[-2.42, +2.75] (old minus new; positive: the new version better)")
    assert (bob.tables, bob.matches, bob.mean, bob.low, bob.high) == (1, 2, 0.5, None, None)
    assert bob.line() == "bob@v2 against bob@v1 on the same 1 table (2 matches): bob@v2 gains +0.50 places per match " \
                         "(one table: no interval) (old minus new; positive: the new version better)"


def test_no_replays_no_line():
    db = _store([(0, "L0/ann@v1+bob@v1/r0", "d-0", 0, ["ann@v1", "bob@v1"], [1, 2])])
    assert paired.read(LadderStore(db)) == [] and paired.lines([]) == []


def test_a_replays_match_id_names_its_source_and_parses_as_a_ladder_table():
    replay = ladder_match_id(12, ("bob@v1", "ann@v2"), 1, source=3)
    assert replay == "L12~3/bob@v1+ann@v2/r1"
    assert table_of(replay) == (12, ("bob@v1", "ann@v2"), 1) and source_of(replay) == 3
    assert table_of("L4/a@v1+b@v1/r0") == (4, ("a@v1", "b@v1"), 0) and source_of("L4/a@v1+b@v1/r0") is None
    for junk in ("L12~/a@v1/r0", "L~3/a@v1/r0", "Lx~3/a@v1/r0", "L1~x/a@v1/r0", "c1/a+b/r0"):
        assert table_of(junk) is None and source_of(junk) is None


def test_an_unchanged_bot_places_on_a_replay_exactly_as_it_did_and_so_does_its_next_version(tmp_path):
    """A replay tells the bots the original's match id, so bots that seed their randomness from it (all the
    bundled ones) play the deal as they did: a version whose play did not change shows +0.00, also when the
    table it replays was itself a replay."""
    path = ladder_with_a_second_version(tmp_path, "replay_tables: 3\n")
    play(path, 12)
    ann = tmp_path / "bots" / "ann"
    (ann / "notes.txt").write_text("a third version\n")
    code, output = submit(path, ann)
    assert code == 0 and "entered ann@v3" in output, output
    play(path, 8)
    out = tmp_path / "out"
    tables = by_table(stored(out))
    chained = 0
    for name, rows in tables.items():
        if "~" in name:
            original = {r[3]: r for r in tables[source_head(tables, rows[0][1])]}
            assert all(r[5] == original[r[3]][5] for r in rows)  # the same places, seat by seat
            chained += "~" in head(original[0][1])
    assert chained  # ann@v3 replayed some of ann@v2's replays
    text = flat((out / "ladder.txt").read_text())
    assert re.search(r"ann@v3 against ann@v2 on the same 3 tables \(\d+ matches\): ann@v3 gains \+0\.00 places per match "
                     r"\[\+0\.00, \+0\.00\]", text), text


class PlannedReplays:
    """The store's side of replays, for a schedule without a store: three tables of a@v1 and b@v1 to replay."""

    def plan(self, new: str, active: object, limit: int) -> list[Replay]:
        if new != "a@v2":
            return []
        return [Replay(first, f"d-{first}", (("a@v2", "b@v1"), ("b@v1", "a@v2")), f"L{first}/a@v1+b@v1")
                for first in (0, 4, 8)][:limit]

    def replay(self, source: int, players: object) -> None:
        return None


def test_replays_go_first_but_a_table_for_the_bots_behind_the_floor_goes_before_the_next():
    from arena.bots import BotSpec

    field = [Entry("a", 2, "d", "p", "s", 0.0, "active")] + [Entry(n, 1, "d", "p", "s", 0.0, "active") for n in "bcd"]
    s = LadderSchedule(lambda: field, lambda e: BotSpec(name=e.key, command=("x",)), [2], "standard", 9,
                       RatingParams(), stored=PlannedReplays(), replay_tables=8)  # type: ignore[arg-type]
    s.resume(set(), [])
    batches = [s.next_batch() for _ in range(10)]
    tables = [(b[0].match_id, b[0].seed, b[0].bots, b[0].told) for b in batches if b]
    assert tables[:2] == [("L0~0/a@v2+b@v1/r0", "d-0", ("a@v2", "b@v1"), "L0/a@v1+b@v1/r0"),
                          ("L0~0/a@v2+b@v1/r1", "d-0", ("b@v1", "a@v2"), "L0/a@v1+b@v1/r1")]
    # c and d, who sit at no replay, are now behind the floor: a table for them, then the next replay
    assert [t[0] for t in tables[2:6]] == ["L2/c@v1+d@v1/r0", "L2/c@v1+d@v1/r1", "L4~4/a@v2+b@v1/r0",
                                           "L4~4/a@v2+b@v1/r1"]
    assert all(t[3] is None for t in tables if "~" not in t[0])  # an ordinary table tells its own id
    assert sum("~" in t[0] for t in tables) == 6  # all three replays within five tables


def test_no_store_no_replays():
    from arena.bots import BotSpec

    field = [Entry("a", 2, "d", "p", "s", 0.0, "active"), Entry("b", 1, "d", "p", "s", 0.0, "active")]
    s = LadderSchedule(lambda: field, lambda e: BotSpec(name=e.key, command=("x",)), [2], "standard", 9,
                       RatingParams(), replay_tables=8)
    s.resume(set(), [])
    assert not any("~" in b[0].match_id for b in (s.next_batch() for _ in range(4)) if b)


def test_replays_are_played_but_never_rated(tmp_path):
    # Every bot at a replay has played its deal before: a bot that kept notes could play it with
    # foreknowledge, so the ratings, the kept counts and the report pass over replays.
    from arena.site.data import RatingHistory
    from arena.tournament.ladder.kept import read
    from arena.tournament.rating import rate
    from arena.tournament.records import is_replay

    path = ladder_with_a_second_version(tmp_path)
    play(path, 10)
    store = ResultStore(tmp_path / "out", readonly=True)
    try:
        records = store.records()
        kept = read(store.ladder, RatingParams())
    finally:
        store.close()
    replays = [r for r in records if is_replay(r.match_id)]
    ordinary = [r for r in records if not is_replay(r.match_id)]
    assert replays and any("ann@v2" in r.bots for r in replays)
    expected = rate(ordinary, RatingParams(), [])
    assert set(kept.ratings) >= set(expected)
    for key, rating in expected.items():
        assert (kept.ratings[key].mu, kept.ratings[key].sigma) == pytest.approx((rating.mu, rating.sigma))
    assert kept.matches.get("ann@v2", 0) == sum("ann@v2" in r.bots for r in ordinary)
    assert kept.through == max(r.index for r in records)  # passed over, not waited for
    history = RatingHistory()
    history.update(records)
    assert set(history.ratings) == set(expected)
    for key, rating in expected.items():
        assert (history.ratings[key].mu, history.ratings[key].sigma) == pytest.approx((rating.mu, rating.sigma))


def test_a_new_version_stays_in_placement_through_its_replays():
    # Replays are never rated, so they do not count towards placement_matches, for anybody at them:
    # after its three replays (six seats) a@v2 has as few rated matches as before them.
    from arena.bots import BotSpec

    field = [Entry("a", 2, "d", "p", "s", 0.0, "active")] + [Entry(n, 1, "d", "p", "s", 0.0, "active") for n in "bcd"]
    s = LadderSchedule(lambda: field, lambda e: BotSpec(name=e.key, command=("x",)), [2], "standard", 9,
                       RatingParams(), stored=PlannedReplays(), replay_tables=8)  # type: ignore[arg-type]
    s.resume(set(), [])
    handed = [m for b in (s.next_batch() for _ in range(14)) if b for m in b]
    seats = {key: sum(key in m.bots for m in handed) for key in ("a@v2", "b@v1", "c@v1")}
    replay_seats = {key: sum(key in m.bots for m in handed if "~" in m.match_id) for key in seats}
    assert replay_seats["a@v2"] == 6 and replay_seats["c@v1"] == 0
    for key in seats:
        assert s.matches_of(key) == seats[key]
        assert s.rated_of(key) == seats[key] - replay_seats[key]
    # a resumed run counts the stored replays the same way
    from arena.tournament.records import MatchRecord

    stored_records = [MatchRecord(m.index, m.match_id, m.bots, (1, 2), (0, 0), (False, False), ()) for m in handed]
    again = LadderSchedule(lambda: field, lambda e: BotSpec(name=e.key, command=("x",)), [2], "standard", 9,
                           RatingParams(), replay_tables=8)
    again.resume({m.index for m in handed}, stored_records)
    assert {key: again.rated_of(key) for key in seats} == {key: s.rated_of(key) for key in seats}
