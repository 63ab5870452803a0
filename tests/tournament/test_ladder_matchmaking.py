"""The ladder's matchmaker on simulated runs: the fairness floor, informative tables, placement."""

from __future__ import annotations

import random
import statistics
from collections import Counter

import pytest

from arena.bots import BotSpec
from arena.tournament.ladder.entries import Entry
from arena.tournament.rating import RatingParams
from arena.tournament.records import MatchRecord
from arena.tournament.ladder import fairness
from arena.tournament.ladder.matchmaking import LadderSchedule


def key(name: str) -> str:
    return f"{name}@v1"


RECOVER = 30
"""Steps after a retirement before the floor is measured again."""


def simulate(seed: int, floor: float, seats: tuple[int, ...] = (2, 4), bots: int = 14, steps: int = 700,
             in_flight: int = 3, batch_size: int = 1) -> float:
    """A ladder with bots of hidden strengths, results coming back out of order, a bot joining every
    150 steps and one retiring every 350. Returns the worst ``own - (1 - floor) * median + 2 * max seat``
    over every active bot after every step (>= 0: the floor held), counted independently of the
    matchmaker: matches handed out since the bot joined, against the median over the bots in the
    field for all of that time. The matchmaker sees a bot join at its next draw, and counts a table's
    rotations when it draws it, so the bound allows two tables. A retirement can lift a median at once (the bot that left was below
    it); the bots that leaves behind sit first from the next table, so the ``RECOVER`` steps after a
    retirement are not measured. ``batch_size`` above 1: batches cut across tables, ``in_flight`` workers
    each holding one, a match coming back per step from a worker drawn at random."""
    rng = random.Random(seed)
    strength: dict[str, float] = {}
    active: list[str] = []
    counts: Counter[str] = Counter()
    since: dict[str, Counter[str]] = {}  # bot -> everybody's counts when it joined
    joined: dict[str, int] = {}

    def add(name: str, step: int) -> None:
        strength[key(name)] = rng.gauss(0, 1)
        active.append(name)
        since[key(name)], joined[key(name)] = Counter(counts), step

    for i in range(bots):
        add(f"b{i}", 0)
    schedule = LadderSchedule(lambda: [Entry(n, 1, "d", "p", "s", 0.0, "active") for n in active],
                              lambda e: BotSpec(name=e.key, command=("x",)), seats, "standard", seed,
                              RatingParams(), 3, floor, batch_size=batch_size)
    schedule.resume(set(), [])
    pending = []
    held: list[list] = []  # batch_size > 1: per busy worker, the rest of its batch
    worst = float("inf")
    retired = -RECOVER
    for step in range(steps):
        if step % 150 == 75:
            add(f"n{step}", step)
        if step % 350 == 175:
            active.remove(rng.choice(active))
            retired = step
        if batch_size > 1:
            batch = schedule.next_batch() if len(held) < in_flight else None
            for match in batch or []:
                counts.update(match.bots)
            if batch:
                held.append(list(batch))
            worker = held[rng.randrange(len(held))] if held else []
            match = worker.pop(0) if worker else None
            if held and not worker:
                held.remove(worker)
        else:
            batch = schedule.next_batch()
            if batch:
                counts.update(batch[0].bots)
                pending.append(batch[0])
            match = pending.pop(rng.randrange(len(pending))) if pending and (len(pending) >= in_flight or
                                                                                not batch) else None
        if match is not None:
            order = sorted(match.bots, key=lambda b: -(strength[b] + rng.gauss(0, 1)))
            places = tuple(order.index(b) + 1 for b in match.bots)
            schedule.finished(match, MatchRecord(match.index, match.match_id, match.bots, places,
                                                 (0,) * len(places), (False,) * len(places), ()))
        field = [key(n) for n in active]
        for bot in field if step >= retired + RECOVER else []:
            window = [other for other in field if joined[other] <= joined[bot]]
            median = statistics.median(counts[o] - since[bot][o] for o in window)
            own = counts[bot] - since[bot][bot]
            worst = min(worst, own - (1 - floor) * median + 2 * max(seats))
    return worst


@pytest.mark.parametrize("floor", [0.0, 0.25, 0.5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_no_active_bot_falls_below_the_floor_by_more_than_a_table(seed, floor):
    assert simulate(seed, floor) >= 0


@pytest.mark.parametrize("floor", [0.0, 0.25, 0.5])
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_floor_holds_with_batches_cut_across_tables(seed, floor):
    assert simulate(seed, floor, batch_size=32, in_flight=2) >= 0


def test_without_the_floor_the_same_runs_leave_bots_far_behind(monkeypatch):
    monkeypatch.setattr(fairness.Floor, "behind", lambda self: [])
    assert min(simulate(seed, 0.25) for seed in (1, 2, 3)) < -10
    assert min(simulate(seed, 0.25, batch_size=32, in_flight=2) for seed in (1, 2, 3)) < -10


def entries(names: str) -> list[Entry]:
    return [Entry(n, 1, "d", "p", "s", 0.0, "active") for n in names]


def schedule_of(names: str, seats: list[int], placement: int = 0) -> LadderSchedule:
    s = LadderSchedule(lambda: entries(names), lambda e: BotSpec(name=e.key, command=("x",)), seats, "standard", 4,
                       RatingParams(), placement)
    s.resume(set(), [])
    return s


def test_the_most_uncertain_bot_sits_first_and_meets_the_closest_rating():
    s = schedule_of("abcde", [2])
    model = s._fold.model
    ratings = {key("a"): model.rating(10, 1), key("b"): model.rating(20, 1),
               key("c"): model.rating(31, 5), key("d"): model.rating(29, 1),
               key("e"): model.rating(40, 1)}
    s._fold.ratings.update(ratings)
    for k, r in ratings.items():  # as the fold moves them when it rates
        s.index.set(k, r)
    batch = s.next_batch()
    assert batch and set(batch[0].bots) == {key("c"), key("d")}


def test_a_bot_in_placement_sits_first_until_it_has_played_its_placement():
    s = schedule_of("abc", [2], placement=4)
    tables = [s.next_batch() for _ in range(8)]
    firsts = Counter(bot for batch in tables if batch for bot in batch[0].bots)
    assert all(firsts[key(n)] >= 4 for n in "abc")  # 8 matches of 2 seats: everybody placed


def test_a_new_bot_is_placed_at_once():
    names = ["a", "b", "c"]
    s = LadderSchedule(lambda: entries("".join(names)), lambda e: BotSpec(name=e.key, command=("x",)), [2],
                       "standard", 4, RatingParams(), 4)
    s.resume(set(), [])
    for _ in range(12):
        s.next_batch()
    names.append("z")
    batches = [s.next_batch() for _ in range(4)]
    assert all(batch and key("z") in batch[0].bots for batch in batches)


def test_the_floor_refuses_a_fraction_outside_0_to_1():
    with pytest.raises(ValueError, match="fairness floor"):
        fairness.Floor(1.0)


def test_a_resumed_ladder_measures_the_floor_since_each_submission():
    field = [Entry("a", 1, "d", "p", "s", 0.0, "active"), Entry("b", 1, "d", "p", "s", 0.5, "active"),
             Entry("c", 1, "d", "p", "s", 3.0, "active")]
    history = [(1.0, (key("a"), key("b"))), (2.0, (key("b"), key("a"))), (4.0, (key("c"), key("a")))]
    records = [MatchRecord(i, f"L{i}/x/r0", bots, (1, 2), (0, 0), (False, False), ())
               for i, (_, bots) in enumerate(history)]
    s = LadderSchedule(lambda: field, lambda e: BotSpec(name=e.key, command=("x",)), [2], "standard", 4,
                       RatingParams(), 0, 0.0, history=lambda: history)
    s.resume({0, 1, 2}, records)
    windows = {frozenset(w.members): (w.base, w.since) for w in s.floor.windows}
    assert windows == {frozenset({key("a"), key("b")}): ({key("a"): 0, key("b"): 0}, [2, 3]),
                       frozenset({key("c")}): ({key("a"): 2, key("b"): 2, key("c"): 0}, [0, 1, 1])}
    assert s.floor.behind() == [key("b")]  # since c joined: a 1, c 1, b 0; median 1
