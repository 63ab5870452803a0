"""The report's data, checked against the tournament's own leaderboard.json and against recomputations
from the raw rows, for real tournaments under both presets and for made-up stores."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import trueskill

from arena.site import data
from arena.tournament.rating import RatingParams
from arena.tournament.store import StoreMismatch

from .played import play
from .synthetic import add_match, synthetic_store

HOSTILE = '<script>alert("x")</script>'
NAMES = ["alpha", HOSTILE, "o'neil", "foo@v2", "beta"]


_made: dict[str, Path] = {}


def _store(kind: str, factory) -> Path:
    """A results directory: a real tournament under a preset, or ``made`` up (hostile names, faults)."""
    if kind not in _made:
        if kind == "made":
            _made[kind] = factory.mktemp("made") / "out"
            synthetic_store(_made[kind], 240, NAMES, faulty=[HOSTILE, "beta"], voided=2)
        else:
            _made[kind] = play(factory.mktemp(kind), kind)
    return _made[kind]


@pytest.fixture(scope="module", params=["standard", "espanola"])
def played(request, tmp_path_factory):
    return _store(request.param, tmp_path_factory)


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    return _store("made", tmp_path_factory)


@pytest.fixture(scope="module", params=["standard", "espanola", "made"])
def any_store(request, tmp_path_factory):
    return _store(request.param, tmp_path_factory)


def test_leaderboard_rows_agree_with_leaderboard_json(played):
    snapshot = data.read_snapshot(played)
    rows = data.leaderboard_rows(data.compute(snapshot).board)
    stored = json.loads((played / "leaderboard.json").read_text())["standings"]
    assert [r["bot"] for r in rows] == [s["bot"] for s in stored]
    assert len(rows) >= 4
    for row, want in zip(rows, stored):
        assert row["rank"] == want["rank"]
        for key in ("mu", "sigma", "exposure", "average_place", "average_total", "mean_ms", "max_ms"):
            assert row[key] == pytest.approx(want[key], abs=1e-3), key
        for key in ("matches", "wins", "forfeits", "faults"):
            assert row[key] == want[key], key
        assert row["fault_count"] == sum(want["faults"].values())
        assert row["page"] == row["bot"]  # plain names keep their own page name


def test_the_preset_and_progress_are_read(played):
    snapshot = data.read_snapshot(played)
    summary = data.summary(snapshot)
    assert summary["preset"] == played.parent.name.rstrip("0123456789")
    assert summary["matches"] == len(snapshot.rows) == summary["total"]
    assert summary["ladder"] is False and summary["voided"] == 0


def _recomputed_history(rows, params):
    """Each bot's (played, mu, sigma) after each of its matches, with trueskill directly."""
    env = trueskill.TrueSkill(mu=params.mu, sigma=params.sigma, beta=params.beta, tau=params.tau,
                              draw_probability=params.draw_probability)
    ratings: dict[str, trueskill.Rating] = {}
    out: dict[str, list[list[float]]] = {}
    for row in sorted(rows, key=lambda r: r["idx"]):
        for bot in row["bots"]:
            ratings.setdefault(bot, env.create_rating())
            out.setdefault(bot, [[0, params.mu, params.sigma]])
        teams = env.rate([(ratings[b],) for b in row["bots"]], ranks=[p - 1 for p in row["places"]])
        for bot, (rating,) in zip(row["bots"], teams):
            ratings[bot] = rating
            out[bot].append([len(out[bot]), rating.mu, rating.sigma])
    return out, ratings


def test_rating_history_is_each_bots_rating_after_each_of_its_matches(any_store):
    snapshot = data.read_snapshot(any_store)
    computed = data.compute(snapshot)
    want, final = _recomputed_history(snapshot.rows, snapshot.params)
    assert set(computed.history) == set(want)
    for bot, points in computed.history.items():
        assert len(points) == len(want[bot]) == sum(bot in r["bots"] for r in snapshot.rows) + 1
        assert [p[0] for p in points] == list(range(len(points)))
        for got, expected in zip(points, want[bot]):
            assert got[1] == pytest.approx(expected[1], abs=1e-3) and got[2] == pytest.approx(expected[2], abs=1e-3)
        standing = next(s for s in computed.board.standings if s.bot == bot)
        assert points[-1][1] == pytest.approx(standing.mu, abs=1e-3)
        assert points[-1][2] == pytest.approx(final[bot].sigma, abs=1e-3)
    assert json.loads(json.dumps(computed.history)) == computed.history  # plain JSON


def test_history_includes_a_bot_named_only_in_the_records(made):
    snapshot = data.read_snapshot(made)
    snapshot.names = ["alpha"]  # as if the others had left the configuration
    computed = data.compute(snapshot)
    assert set(computed.history) == set(NAMES)
    assert all(points[0] == [0, 25.0, 8.333] for points in computed.history.values())


def test_head_to_head_matrix_counts_every_shared_match(any_store):
    snapshot = data.read_snapshot(any_store)
    board = data.compute(snapshot).board
    matrix = data.head_to_head(board)
    assert matrix["bots"] == [s.bot for s in board.standings] and matrix["omitted"] == 0
    for i, bot in enumerate(matrix["bots"]):
        for j, other in enumerate(matrix["bots"]):
            cell = matrix["cells"][i][j]
            shared = [r for r in snapshot.rows if bot in r["bots"] and other in r["bots"]]
            if i == j or not shared:
                assert cell is None
                continue
            places = [(r["places"][r["bots"].index(bot)], r["places"][r["bots"].index(other)]) for r in shared]
            assert cell == {"shared": len(shared), "ahead": sum(a < b for a, b in places),
                            "behind": sum(a > b for a, b in places), "level": sum(a == b for a, b in places)}
            assert matrix["cells"][j][i]["ahead"] == cell["behind"]
            assert 0 <= data.score(cell) <= 1


def test_head_to_head_is_cut_to_the_best_bots(made):
    board = data.compute(data.read_snapshot(made)).board
    matrix = data.head_to_head(board, limit=3)
    assert matrix["bots"] == [s.bot for s in board.standings[:3]] and matrix["omitted"] == 2
    assert len(matrix["cells"]) == 3 and all(len(line) == 3 for line in matrix["cells"])


def test_faults_name_bot_match_kind_and_the_end_of_the_log(made):
    snapshot = data.read_snapshot(made)
    faults = data.fault_list(snapshot)
    expected = [(r["idx"], f["seat"]) for r in snapshot.rows for f in r["faults"]]
    assert [(f["index"], f["seat"]) for f in faults] == expected and len(faults) > 20
    assert {f["bot"] for f in faults} == {HOSTILE, "beta"}
    for fault in faults:
        row = next(r for r in snapshot.rows if r["idx"] == fault["index"])
        assert fault["match"] == row["match_id"] and fault["bot"] == row["bots"][fault["seat"]]
        assert fault["kind"] in ("timeout", "illegal") and fault["detail"] == f"<detail {fault['index']}>"
        if fault["index"] % 2:  # the fault kept what the bot wrote up to it
            assert fault["log_tail"] == f"trace line {fault['index']}\nFAULT-MARKER <b>\"bad\"</b> & 'quoted'"
        else:  # else the end of its log of that match, from the logs table
            assert fault["log_tail"].endswith(f"log of {fault['bot']} in match {fault['index']}\nlast line <x>")
    counts = {r["bot"]: r["fault_count"] for r in data.leaderboard_rows(data.compute(snapshot).board)}
    assert counts[HOSTILE] == sum(f["bot"] == HOSTILE for f in faults) and counts["alpha"] == 0


def test_faults_of_a_real_tournament_carry_the_bots_stderr(played):
    faults = data.fault_list(data.read_snapshot(played))
    if played.parent.name.startswith("espanola"):
        assert faults == []
        return
    assert faults and {f["bot"] for f in faults} == {"illegal"}
    assert all(f["kind"] == "illegal" and "FAULT-MARKER" in f["log_tail"] for f in faults)


def test_log_tail_keeps_the_last_lines_and_characters():
    text = "".join(f"line {i}\n" for i in range(1000))
    tail = data.log_tail(text)
    assert tail.splitlines() == [f"line {i}" for i in range(975, 1000)]
    assert len(data.log_tail("x" * 10_000)) == data.LOG_TAIL_CHARS
    assert data.log_tail("") == ""


PY_TRACE = """player: thinking
Traceback (most recent call last):
  File "bot.py", line 40, in act
    return choose(state["hel"])
                  ~~~~~^^^^^^^
KeyError: 'hel'
falling back to legal[0]
"""


@pytest.mark.parametrize("text,line", [
    (PY_TRACE, "KeyError: 'hel'"),  # a traceback: its exception line, not the lines printed after it
    ("Traceback (most recent call last):\n  File \"a.py\", line 1\nValueError: x\n\nDuring handling of the above "
     "exception, another exception occurred:\n\nTraceback (most recent call last):\n  File \"a.py\", line 3\n"
     "RuntimeError: y\n", "RuntimeError: y"),  # chained: the last one raised
    ("start\nTypeError: s.held is not a function\n    at act (/bot/bot.js:12:9)\n    at main (/bot/bot.js:40:3)\n",
     "TypeError: s.held is not a function"),  # JavaScript: the line above its stack
    ("one\ntwo\n\n", "two"),  # nothing named: the last line
    ("", ""),
])
def test_the_exception_line_of_a_bots_stderr(text, line):
    assert data.exception_line(text) == line


def test_match_list_has_every_match_in_order(made):
    snapshot = data.read_snapshot(made)
    matches = data.match_list(snapshot)
    assert [m["index"] for m in matches] == list(range(240))
    for match, row in zip(matches, snapshot.rows):
        assert match["id"] == row["match_id"] and match["bots"] == row["bots"] and match["places"] == row["places"]
        assert match["totals"] == row["totals"] and match["faults"] == len(row["faults"])
        assert match["decisions"] == row["decisions"] and match["seconds"] == pytest.approx(row["seconds"], abs=1e-3)
    packed = data.compact(matches, data.MATCH_COLUMNS)
    assert packed["columns"] == list(data.MATCH_COLUMNS)
    assert [dict(zip(packed["columns"], line)) for line in packed["rows"]] == matches


def test_voided_matches_are_counted_not_listed(made):
    snapshot = data.read_snapshot(made)
    assert data.summary(snapshot)["voided"] == 2 and data.summary(snapshot)["total"] == 242
    assert all(not m["id"].startswith("v") for m in data.match_list(snapshot))


def test_version_changes_with_the_results(tmp_path):
    synthetic_store(tmp_path / "a", 10, ["a", "b"], voided=0)
    synthetic_store(tmp_path / "b", 11, ["a", "b"], voided=0)
    first, again = data.version(data.read_snapshot(tmp_path / "a")), data.version(data.read_snapshot(tmp_path / "a"))
    assert first == again != data.version(data.read_snapshot(tmp_path / "b"))


def test_safe_names_are_safe_and_distinct():
    names = ["alpha", HOSTILE, "o'neil", "foo@v2", "../etc", ".hidden", "a b", "a_b", "A", "a", "x" * 200]
    pages = [data.safe_name(n) for n in names]
    assert len(set(pages)) == len(pages)
    assert pages[0] == "alpha" and pages[3] == "foo@v2" and pages[9] == "a"
    assert all(re.fullmatch(r"[a-z0-9_@-][a-z0-9_.@-]{0,80}", p) for p in pages), pages


def test_an_empty_store_gives_empty_data(tmp_path):
    synthetic_store(tmp_path / "e", 0, ["a", "b"], voided=0)
    snapshot = data.read_snapshot(tmp_path / "e")
    computed = data.compute(snapshot)
    assert [r["matches"] for r in data.leaderboard_rows(computed.board)] == [0, 0]
    assert computed.history == {"a": [[0, 25.0, 8.333]], "b": [[0, 25.0, 8.333]]}
    assert data.fault_list(snapshot) == [] and data.match_list(snapshot) == []


def test_a_directory_without_results_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="no results.sqlite"):
        data.read_snapshot(tmp_path)
    (tmp_path / "results.sqlite").write_text("not a database at all, " * 100)
    with pytest.raises(StoreMismatch):
        data.read_snapshot(tmp_path)


def test_ratings_use_the_stored_parameters(tmp_path):
    synthetic_store(tmp_path / "p", 20, ["a", "b", "c"], voided=0)
    from arena.tournament.store import ResultStore

    store = ResultStore(tmp_path / "p")
    store.set_meta("rating", {**RatingParams().__dict__, "mu": 100.0, "sigma": 10.0})
    store.close()
    history = data.compute(data.read_snapshot(tmp_path / "p")).history
    assert all(points[0][1:] == [100.0, 10.0] for points in history.values())


def test_kept_ratings_rate_only_new_matches_and_go_back_for_late_ones(tmp_path, monkeypatch):
    monkeypatch.setattr(data, "CHECKPOINT", 16)
    directory = tmp_path / "grow"
    synthetic_store(directory, 100, ["a", "b", "c", "d"], voided=0)
    kept = data.RatingHistory()
    first = data.compute(data.read_snapshot(directory), kept)
    assert len(kept.applied) == 100 and len(kept.checkpoints) == 1 + 100 // 16
    add_match(directory, 150, ["a", "b"], [2, 1])  # a later match
    add_match(directory, 120, ["c", "d", "a"], [1, 3, 2])
    calls = []
    real = kept.model.update
    monkeypatch.setattr(kept.model, "update", lambda *args: (calls.append(args[1]), real(*args)))
    grown = data.compute(data.read_snapshot(directory), kept)
    assert len(calls) == 2  # only the new ones were rated
    add_match(directory, 110, ["b", "c"], [1, 2])  # arrives late: before 120 and 150
    calls.clear()
    late = data.compute(data.read_snapshot(directory), kept)
    assert 3 <= len(calls) <= 3 + 16  # back to the last checkpoint before it, not from scratch
    fresh = data.compute(data.read_snapshot(directory))
    assert late.history == fresh.history and late.history != grown.history != first.history
    assert [(s.bot, s.mu, s.sigma) for s in late.board.standings] == \
           [(s.bot, s.mu, s.sigma) for s in fresh.board.standings]
    assert [i for i, _ in kept.applied] == list(range(100)) + [110, 120, 150]


def test_kept_ratings_start_again_when_the_parameters_change(tmp_path):
    synthetic_store(tmp_path / "p", 20, ["a", "b"], voided=0)
    kept = data.RatingHistory(RatingParams(mu=10.0, sigma=3.0))
    computed = data.compute(data.read_snapshot(tmp_path / "p"), kept)
    assert kept.params == RatingParams()
    assert computed.history == data.compute(data.read_snapshot(tmp_path / "p")).history


@pytest.mark.parametrize("method", ["deal", "table"])
def test_a_method_rating_a_deals_rotations_together_gives_the_tournaments_own_ratings(played, method):
    from dataclasses import replace

    from arena.tournament.rating import rate
    snapshot = data.read_snapshot(played)
    snapshot.params = replace(snapshot.params, method=method)
    computed = data.compute(snapshot)
    want = rate(snapshot.records, snapshot.params, snapshot.names)
    assert {s.bot: (s.mu, s.sigma) for s in computed.board.standings} == \
           {bot: (r.mu, r.sigma) for bot, r in want.items()}
    for bot, points in computed.history.items():
        assert len(points) == sum(bot in r.bots for r in snapshot.records) + 1
        assert points[-1][1:] == [round(want[bot].mu, 3), round(want[bot].sigma, 3)]
    assert computed.history != data.compute(data.read_snapshot(played)).history  # not rated match by match
