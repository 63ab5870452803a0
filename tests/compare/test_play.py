"""The paired deals of arena compare: what both matches of a deal share, and the order deals come back in."""

import pytest

from arena.bots import BotSpec
from arena.compare.play import CHUNK_DEALS, ArenaFailure, Setup, _batches, deal_jobs, pairs, table_of
from arena.game import make_rules
from arena.match.runner import MatchOutcome

NEW, OLD = BotSpec("mine", ("new",)), BotSpec("mine", ("old",))
FIELD = (BotSpec("random", ("r",)), BotSpec("heuristic", ("h",)))


def setup(seats=4, seed=7):
    return Setup(NEW, OLD, FIELD, make_rules("standard"), seats, seed)


def test_both_matches_of_a_deal_differ_only_in_the_bot_in_the_seat_under_test():
    for deal in range(6):
        new, old = deal_jobs(setup(), deal)
        seat, _ = table_of(setup(), deal)
        assert new.seed == old.seed and new.hello_id == old.hello_id  # same cards, same random streams
        assert new.bots[seat].command == ("new",) and old.bots[seat].command == ("old",)
        assert [b for s, b in enumerate(new.bots) if s != seat] == [b for s, b in enumerate(old.bots) if s != seat]
        assert new.match_id != old.match_id


def test_seats_and_opponents_turn_over_the_deals_and_every_deal_has_its_own_cards():
    s = setup(seats=3)
    assert [table_of(s, deal)[0] for deal in range(6)] == [0, 1, 2, 0, 1, 2]
    # deal 1 draws heuristic first: it sits directly after the version under test (seat 1), random before it
    assert [tuple(b.name for b in table_of(s, deal)[1]) for deal in range(2)] == [("random", "heuristic"),
                                                                                  ("random", "heuristic")]
    jobs = [deal_jobs(s, deal)[0] for deal in range(50)]
    assert len({job.seed for job in jobs}) == 50 and len({job.hello_id for job in jobs}) == 50
    assert all(job.seed.removeprefix("d-")[:8] not in job.hello_id for job in jobs)  # bots never see the seed
    assert deal_jobs(setup(seed=8), 0)[0].seed != jobs[0].seed  # another master seed, other deals


@pytest.mark.parametrize("seats, field", [(2, 3), (3, 2), (4, 3), (5, 2), (4, 1)])
def test_the_version_under_test_sits_after_each_field_bot_as_often_as_before_it(seats, field):
    """Over seats x field x design deals: every seat as often, and directly after each field bot as often as
    directly before it (a field of one: after and before its copies as often)."""
    from collections import Counter

    from arena.tournament.schedules.balance import design

    bots = tuple(BotSpec(f"f{i}", (str(i),)) for i in range(field))
    s = Setup(NEW, OLD, bots, make_rules("standard"), seats, 1)
    where: Counter = Counter()
    after: Counter = Counter()
    for deal in range(seats * field * len(design(seats))):
        seat, opponents = table_of(s, deal)
        names = [b.name for b in opponents]
        names.insert(seat, "X")
        where[seat] += 1
        after["X", names[(seat + 1) % seats]] += 1
        after[names[seat - 1], "X"] += 1
    assert len(set(where.values())) == 1 and len(where) == seats
    assert all(after["X", b.name] == after[b.name, "X"] > 0 for b in bots)


def test_field_bots_that_repeat_at_a_table_get_names_of_their_own():
    one = Setup(NEW, OLD, (FIELD[0],), make_rules("standard"), 4, 1)
    names = [b.name for b in deal_jobs(one, 0)[0].bots]
    assert names == ["mine", "random", "random-2", "random-3"]


def test_new_and_old_never_share_a_batch_so_no_opponent_process_sees_a_deal_twice():
    batches = list(_batches(setup(), 2 * CHUNK_DEALS + 3))
    for batch in batches:
        assert len({index % 2 for index, _ in batch}) == 1  # all NEW's or all OLD's
        assert len({job.seed for _, job in batch}) == len(batch)
    assert sorted(index for batch in batches for index, _ in batch) == list(range(2 * (2 * CHUNK_DEALS + 3)))


def fake_outcome(job, place_of):
    seat = next(s for s, b in enumerate(job.bots) if b.command in (("new",), ("old",)))
    place = place_of(job, seat)
    places = tuple(place if s == seat else (1 if place != 1 else 2) for s in range(len(job.bots)))
    totals = tuple(10 * p for p in places)
    return MatchOutcome(job.match_id, job.seed, tuple(b.name for b in job.bots), totals, places,
                        (False,) * len(places), (), "cabo", (), 0, 0.0, 0.0, (), "none", b"")


def test_pairs_come_back_in_deal_order_with_new_minus_old_differences():
    def play(jobs):
        for job in jobs:  # NEW places 1st in even deals, 2nd in odd ones; OLD always 3rd
            deal = int(job.match_id.split("/")[0][1:])
            yield fake_outcome(job, lambda j, s: (1 + deal % 2) if j.bots[s].command == ("new",) else 3)

    got = list(pairs(setup(), 20, workers=2, play=play))
    assert [p.deal for p in got] == list(range(20))
    assert [p.place_diff for p in got] == [-2, -1] * 10
    assert [p.points_diff for p in got] == [-20, -10] * 10
    assert all(p.forfeits() == (False, False) for p in got)


def test_an_arena_failure_stops_the_comparison_with_one_line():
    def play(jobs):
        raise RuntimeError("the engine broke")
        yield  # pragma: no cover

    with pytest.raises(ArenaFailure, match="the arena failed on NEW's match of deal 0: RuntimeError: the engine broke"):
        list(pairs(setup(), 4, workers=1, play=play))


def test_a_table_without_opponents_is_refused():
    with pytest.raises(ValueError, match="at least one opponent"):
        Setup(NEW, OLD, (), make_rules("standard"), 4, 1)
