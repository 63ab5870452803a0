"""Rating methods: a deal's rotations compared with each other (``deal``, ``table``) or each match alone (``match``)."""

from __future__ import annotations

import random

import pytest

from arena.tournament.rating import RatingFold, RatingParams, deal_key, games, rate
from arena.tournament.records import MatchRecord

# A deal of three seats where seat 0's cards win whoever holds them; with the same cards
# a beats b beats c in the other two seats.
LUCKY_SEAT = [
    (("a", "b", "c"), (1, 2, 3)),
    (("b", "c", "a"), (1, 3, 2)),
    (("c", "a", "b"), (1, 2, 3)),
]
# A deal decided by the seats alone: every rotation ends 1, 2, 3 by seat.
SEATS_ALONE = [
    (("a", "b", "c"), (1, 2, 3)),
    (("b", "c", "a"), (1, 2, 3)),
    (("c", "a", "b"), (1, 2, 3)),
]


def records(deals: list[list[tuple[tuple[str, ...], tuple[int, ...]]]], start: int = 0) -> list[MatchRecord]:
    """The deals' rotations as a round robin stores them: ids ``cN/a+b+c/rK``, consecutive indices."""
    out = []
    for number, deal in enumerate(deals, 1):
        for rotation, (bots, places) in enumerate(deal):
            index = start + len(out)
            out.append(MatchRecord(index, f"c{number}/a+b+c/r{rotation}", bots, places,
                                   tuple(10 * p for p in places), (False,) * len(bots), ()))
    return out


def order(ratings: dict) -> list[str]:
    return sorted(ratings, key=lambda name: -ratings[name].mu)


def test_deal_key_drops_only_the_rotation() -> None:
    assert deal_key("c2/a+b+c/r1") == "c2/a+b+c"
    assert deal_key("c1/t7/a+b/r0") == "c1/t7/a+b"
    assert deal_key("L40/a@v1+b@v2/r3") == "L40/a@v1+b@v2"
    assert deal_key("m5") == "m5"


def test_deal_ranks_each_seat_against_what_its_cards_gave() -> None:
    # seat averages over the deal: 1, 7/3, 8/3. Seat 0's winner only did what its cards do (second in
    # every rotation); a's 2 in seat 2 beats that seat's 8/3 and c's 3 in seat 1 falls short of 7/3
    assert [places for _, places in games("deal", records([LUCKY_SEAT]))] == [(2, 1, 3), (2, 3, 1), (2, 1, 3)]
    assert games("table", records([LUCKY_SEAT])) == [(("a", "b", "c"), (1, 2, 3))]
    assert games("match", records([LUCKY_SEAT])) == [(bots, places) for bots, places in LUCKY_SEAT]


def test_a_deal_decided_by_the_seats_alone_moves_nobody() -> None:
    for method in ("deal", "table"):
        ratings = rate(records([SEATS_ALONE] * 4), RatingParams(method=method), ["a", "b", "c"])
        assert ratings["a"].mu == pytest.approx(ratings["b"].mu, abs=1e-9)
        assert ratings["b"].mu == pytest.approx(ratings["c"].mu, abs=1e-9)
    plain = rate(records([SEATS_ALONE] * 4), RatingParams(method="match"), ["a", "b", "c"])
    assert len({round(r.mu, 6) for r in plain.values()}) == 3  # each match alone reads the seats' luck as skill


@pytest.mark.parametrize("method", ["deal", "table"])
def test_within_deal_methods_find_the_order_that_holds_on_the_same_cards(method: str) -> None:
    mixed = [LUCKY_SEAT, SEATS_ALONE] * 3
    assert order(rate(records(mixed), RatingParams(method=method), ["c", "b", "a"])) == ["a", "b", "c"]


def test_a_deal_waits_for_its_last_rotation_and_a_voided_one_does_not_hold_it() -> None:
    recs = records([LUCKY_SEAT, LUCKY_SEAT])
    fold = RatingFold(RatingParams(method="deal"), ["a", "b", "c"], expected=range(6))
    fold.add(recs[0])
    fold.add(recs[1])
    assert fold.ahead == 2 and all(r.mu == 25.0 for r in fold.ratings.values())
    fold.add(recs[2])
    assert fold.ahead == 0 and order(fold.ratings) == ["a", "b", "c"]
    fold.add(recs[3])
    fold.void(4)
    fold.add(recs[5])  # the deal lost rotation 4: rated on the two it has, once nothing more can come
    assert fold.complete and fold.ahead == 0
    assert fold.ratings == rate([recs[i] for i in (0, 1, 2, 3, 5)], RatingParams(method="deal"), ["a", "b", "c"])


@pytest.mark.parametrize("method", ["deal", "table"])
def test_fold_in_any_order_and_resumed_equals_rate(method: str) -> None:
    params = RatingParams(method=method)
    recs = records([LUCKY_SEAT, SEATS_ALONE, LUCKY_SEAT, LUCKY_SEAT])
    whole = rate(recs, params, ["a", "b", "c"])
    shuffled = list(recs)
    random.Random(3).shuffle(shuffled)
    fold = RatingFold(params, ["a", "b", "c"], expected=range(len(recs)))
    for record in shuffled:
        fold.add(record)
    assert fold.complete and fold.ratings == whole
    resumed = RatingFold(params, ["a", "b", "c"], recs[:7], expected=range(7, len(recs)))  # stopped mid-deal
    for record in recs[7:]:
        resumed.add(record)
    assert resumed.ratings == whole


def test_an_unknown_method_is_refused_by_name() -> None:
    with pytest.raises(ValueError, match="method must be one of match, deal, table, got 'duplicate'"):
        RatingParams(method="duplicate")
