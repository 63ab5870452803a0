"""Ratings: equal to trueskill's own step-by-step numbers, independent of finish order."""

from __future__ import annotations

import random

import pytest
import trueskill

from arena.tournament.rating import RatingParams, exposure, model_of, rate
from arena.tournament.records import MatchRecord


def record(index: int, bots: tuple[str, ...], places: tuple[int, ...],
           forfeited: tuple[bool, ...] | None = None) -> MatchRecord:
    """A record with the fields ratings ignore filled in."""
    return MatchRecord(index=index, match_id=f"m{index}", bots=bots, places=places,
                       totals=tuple(10 * p for p in places),
                       forfeited=forfeited or tuple(False for _ in bots), faults=())


def close(a: trueskill.Rating, b: trueskill.Rating) -> bool:
    return bool(a.mu == pytest.approx(b.mu, abs=1e-12) and a.sigma == pytest.approx(b.sigma, abs=1e-12))


RECORDS = [
    record(0, ("a", "b", "c"), (1, 2, 3)),
    record(1, ("c", "a"), (1, 2)),
    record(2, ("b", "c", "a"), (1, 1, 3)),  # b and c share first place
]


def test_two_player_win_literal_numbers() -> None:
    ratings = rate([record(0, ("w", "l"), (1, 2))], RatingParams(), ["w", "l"])
    assert ratings["w"].mu == pytest.approx(29.224, abs=1e-3)
    assert ratings["w"].sigma == pytest.approx(7.192, abs=1e-3)
    assert ratings["l"].mu == pytest.approx(20.776, abs=1e-3)
    assert ratings["l"].sigma == pytest.approx(7.192, abs=1e-3)
    assert exposure(ratings["w"]) == pytest.approx(29.224 - 3 * 7.192, abs=1e-2)


def test_two_player_win_literal_numbers_with_drifting_skill() -> None:
    """trueskill's own defaults (tau 25/300, draw 10%), which ``rating: {tau: 0.0833, draw_probability: 0.1}`` gives."""
    ratings = rate([record(0, ("w", "l"), (1, 2))], RatingParams(tau=25 / 300, draw_probability=0.1), ["w", "l"])
    assert ratings["w"].mu == pytest.approx(29.396, abs=1e-3)
    assert ratings["w"].sigma == pytest.approx(7.171, abs=1e-3)
    assert ratings["l"].mu == pytest.approx(20.604, abs=1e-3)


def test_two_player_draw_literal_numbers() -> None:
    ratings = rate([record(0, ("x", "y"), (1, 1))], RatingParams(), ["x", "y"])
    for name in ("x", "y"):
        assert ratings[name].mu == pytest.approx(25.0, abs=1e-9)
        assert ratings[name].sigma == pytest.approx(6.455, abs=1e-3)


def test_defaults_are_the_documented_ones() -> None:
    """docs/tournaments.md, "Ratings": a skill that does not drift (tau 0) and the draw rate Cabo shows."""
    assert RatingParams() == RatingParams(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=0.0, draw_probability=0.01,
                                          method="match")


def test_matches_trueskill_step_by_step() -> None:
    env = trueskill.TrueSkill(mu=25.0, sigma=25 / 3, beta=25 / 6, tau=0.0, draw_probability=0.01)
    a = b = c = env.create_rating()
    (a,), (b,), (c,) = env.rate([(a,), (b,), (c,)], ranks=[0, 1, 2])
    (c,), (a,) = env.rate([(c,), (a,)], ranks=[0, 1])
    (b,), (c,), (a,) = env.rate([(b,), (c,), (a,)], ranks=[0, 0, 2])

    ratings = rate(RECORDS, RatingParams(), ["a", "b", "c"])
    assert set(ratings) == {"a", "b", "c"}
    assert close(ratings["a"], a) and close(ratings["b"], b) and close(ratings["c"], c)


def test_order_given_does_not_matter() -> None:
    bots = [f"bot{i}" for i in range(6)]
    rng = random.Random(5)
    records = []
    for index in range(30):
        table = tuple(rng.sample(bots, rng.choice((2, 3, 4))))
        places = tuple(sorted(rng.randint(1, len(table)) for _ in table))
        records.append(record(index, table, places))
    expected = rate(records, RatingParams(), bots)
    for seed in range(3):
        shuffled = records[:]
        random.Random(seed).shuffle(shuffled)
        got = rate(shuffled, RatingParams(), bots)
        assert {k: (v.mu, v.sigma) for k, v in got.items()} == {k: (v.mu, v.sigma) for k, v in expected.items()}
    reversed_order = rate(reversed(records), RatingParams(), bots)  # any iterable, not only lists
    assert reversed_order["bot0"].mu == expected["bot0"].mu


def test_tied_players_get_equal_updates() -> None:
    ratings = rate([record(0, ("x", "y"), (1, 1)), record(1, ("p", "q"), (2, 2))], RatingParams(), "xypq")
    assert (ratings["x"].mu, ratings["x"].sigma) == (ratings["y"].mu, ratings["y"].sigma)
    assert (ratings["p"].mu, ratings["p"].sigma) == (ratings["x"].mu, ratings["x"].sigma)


def test_tied_players_in_a_larger_match() -> None:
    # trueskill's chain schedule leaves tied seats a few thousandths apart in matches of 3+
    # (sublee/trueskill#13, #15; the reference calculator does the same), so equal means close here.
    ratings = rate([record(0, ("a", "b", "c", "d"), (1, 2, 2, 4))], RatingParams(), "abcd")
    assert ratings["b"].mu == pytest.approx(ratings["c"].mu, abs=0.02)
    assert ratings["b"].sigma == pytest.approx(ratings["c"].sigma, abs=0.01)
    assert ratings["a"].mu > max(ratings["b"].mu, ratings["c"].mu)
    assert min(ratings["b"].mu, ratings["c"].mu) > ratings["d"].mu


def test_forfeited_seat_loses_rating() -> None:
    ratings = rate([record(0, ("ok", "quit", "also"), (1, 3, 2), forfeited=(False, True, False))],
                   RatingParams(), ["ok", "quit", "also"])
    assert ratings["quit"].mu < 25.0
    assert exposure(ratings["quit"]) == min(exposure(r) for r in ratings.values())


def test_bot_without_matches_keeps_default() -> None:
    params = RatingParams(mu=30.0, sigma=5.0)
    ratings = rate(RECORDS, params, ["a", "b", "c", "idle"])
    assert (ratings["idle"].mu, ratings["idle"].sigma) == (30.0, 5.0)
    assert exposure(ratings["idle"]) == pytest.approx(15.0)
    assert rate([], RatingParams(), ["x"])["x"].mu == 25.0


def test_bot_only_in_records_still_rated() -> None:
    ratings = rate(RECORDS, RatingParams(), ["a", "b"])
    assert set(ratings) == {"a", "b", "c"}


def test_custom_params_change_result_and_match_trueskill() -> None:
    params = RatingParams(mu=1000.0, sigma=100.0, beta=50.0, tau=1.0, draw_probability=0.3)
    env = trueskill.TrueSkill(mu=1000.0, sigma=100.0, beta=50.0, tau=1.0, draw_probability=0.3)
    (w,), (l,) = env.rate([(env.create_rating(),), (env.create_rating(),)], ranks=[0, 1])
    got = rate([record(0, ("w", "l"), (1, 2))], params, ["w", "l"])
    assert close(got["w"], w) and close(got["l"], l)
    default = rate(RECORDS, RatingParams(), "abc")
    tweaked = rate(RECORDS, RatingParams(beta=10.0), "abc")
    assert default["a"].mu != tweaked["a"].mu


def test_the_model_is_private() -> None:
    model = model_of(RatingParams(mu=40.0, draw_probability=0.0))
    assert model.fresh().mu == 40.0 and model.env.draw_probability == 0.0  # type: ignore[attr-defined]
    assert trueskill.global_env().mu == 25.0


@pytest.mark.parametrize(("field", "value"), [
    ("sigma", 0.0), ("sigma", -1.0), ("beta", 0.0), ("tau", -0.1),
    ("draw_probability", 1.0), ("draw_probability", -0.01), ("mu", float("nan")), ("beta", float("inf")),
])
def test_bad_params_name_the_field(field: str, value: float) -> None:
    with pytest.raises(ValueError, match=field):
        RatingParams(**{field: value})


def test_bad_records_refused() -> None:
    with pytest.raises(ValueError, match="more than one seat"):
        rate([record(0, ("a", "a"), (1, 2))], RatingParams(), ["a"])
    with pytest.raises(ValueError, match="more than once"):
        rate([record(0, ("a", "b"), (1, 2)), record(0, ("a", "b"), (2, 1))], RatingParams(), "ab")
    with pytest.raises(ValueError, match="places"):
        rate([record(0, ("a", "b"), (1,))], RatingParams(), "ab")


def test_fold_fed_in_any_order_ends_exactly_at_rate_and_shows_only_a_finished_prefix() -> None:
    from arena.tournament.rating import RatingFold

    rng = random.Random(5)
    bots = ["a", "b", "c", "d"]
    records = []
    for index in range(30):
        seated = tuple(rng.sample(bots, 3))
        records.append(record(index, seated, tuple(rng.choice([(1, 2, 3), (1, 1, 3), (2, 1, 3)]))))
    stored, new = records[::3], [r for r in records if r.index % 3]
    fold = RatingFold(RatingParams(), bots, stored, (r.index for r in new))
    assert not fold.complete
    shuffled = new[:]
    rng.shuffle(shuffled)
    for r in shuffled:
        fold.add(r)
        applied = fold._next  # the prefix applied so far: never a match whose predecessor is missing
        arrived = {x.index for x in stored} | {x.index for x in shuffled[:shuffled.index(r) + 1]}
        assert all(i in arrived for i in range(applied))
    assert fold.complete
    expected = rate(records, RatingParams(), bots)
    assert list(fold.ratings) == list(expected)
    assert all(fold.ratings[n] == expected[n] for n in bots)  # the same updates in the same order: bit for bit
    with pytest.raises(ValueError, match="not expected or came twice"):
        fold.add(new[0])


def test_a_voided_match_is_passed_over_and_later_ones_do_not_wait_for_it() -> None:
    from arena.tournament.rating import RatingFold

    fold = RatingFold(RatingParams(), ["a", "b", "c"], expected=[0, 1, 2, 3])
    fold.add(RECORDS[2])
    fold.add(RECORDS[0])
    assert not fold.complete  # 1 is neither in nor voided: 2 waits
    fold.void(1)
    with pytest.raises(ValueError, match="came twice"):
        fold.void(1)
    fold.add(record(3, ("a", "b"), (2, 1)))
    assert fold.complete
    everything = rate([RECORDS[0], RECORDS[2], record(3, ("a", "b"), (2, 1))], RatingParams(), ["a", "b", "c"])
    assert all(close(fold.ratings[name], everything[name]) for name in "abc")  # a recomputation without it


def test_defaults_match_the_keys_table_of_the_docs() -> None:
    """Every ``rating.*`` row of docs/tournaments.md's Keys table names the default RatingParams has."""
    import re
    from dataclasses import fields
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "tournaments.md").read_text()
    rows = dict(re.findall(r"^\| `rating\.(\w+)` \| [^|]*(?:\\\|[^|]*)* \| ([^|]+) \|", text, re.M))
    assert set(rows) == {f.name for f in fields(RatingParams)}
    for name, cell in rows.items():
        fraction = re.search(r"\((\d+)/(\d+)\)", cell)
        shown = re.match(r"`([^`]+)`", cell.strip())
        assert shown, cell
        value = getattr(RatingParams(), name)
        if isinstance(value, str):
            assert shown.group(1) == value
        elif fraction:
            assert value == pytest.approx(int(fraction.group(1)) / int(fraction.group(2)))
        else:
            assert value == pytest.approx(float(shown.group(1)))


def test_a_ladder_replay_is_passed_over_in_schedule_order_and_never_rated():
    from arena.tournament.rating import RatingFold

    plain = [record(0, ("a", "b"), (1, 2)), record(2, ("a", "b"), (2, 1))]
    replay = MatchRecord(1, "L1~0/a+b/r0", ("a", "b"), (1, 2), (0, 0), (False, False), ())
    heard: list[tuple[str, int]] = []
    fold = RatingFold(RatingParams(), ["a", "b"], expected=[0, 1, 2],
                      on_rate=lambda r: heard.append(("rated", r.index)),
                      on_pass=lambda r: heard.append(("passed", r.index)))
    for each in (plain[1], replay, plain[0]):  # any order in; schedule order out
        fold.add(each)
    assert fold.complete and heard == [("rated", 0), ("passed", 1), ("rated", 2)]
    assert fold.ratings == rate(plain, RatingParams(), ["a", "b"])
    assert rate([*plain, replay], RatingParams(), ["a", "b"]) == rate(plain, RatingParams(), ["a", "b"])
