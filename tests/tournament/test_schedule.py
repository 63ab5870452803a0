"""Round robin: counts, rotations, duplicate deals, stable ids."""

from collections import Counter
from math import comb

import pytest

from arena.tournament.schedules.balance import CYCLIC
from arena.tournament.schedules.round_robin import round_robin, schedule_size

BOTS = ["random", "heuristic", "js-greedy", "c-random", "extra"]


@pytest.mark.parametrize("seats,cycles", [([4], 1), ([2, 3], 2), ([5], 1), ([2, 3, 4, 5], 1)])
def test_counts(seats, cycles):
    matches = list(round_robin(BOTS, seats, cycles, 7))
    assert len(matches) == schedule_size(len(BOTS), seats, cycles)
    assert [m.index for m in matches] == list(range(len(matches)))
    assert len({m.match_id for m in matches}) == len(matches)


def test_every_table_played_under_every_rotation_with_the_same_deal():
    matches = list(round_robin(BOTS, [3], 1, 7))
    by_seed: dict[str, list] = {}
    for m in matches:
        by_seed.setdefault(m.seed, []).append(m)
    assert len(by_seed) == 10  # C(5, 3) tables
    for group in by_seed.values():
        assert len(group) == 3 and len({frozenset(m.bots) for m in group}) == 1
        # Each bot sits in each seat exactly once across the rotations.
        for seat in range(3):
            assert sorted(m.bots[seat] for m in group) == sorted(group[0].bots)


def test_each_bot_plays_equally_often():
    counts = Counter(name for m in round_robin(BOTS, [4], 2, 1) for name in m.bots)
    assert set(counts.values()) == {2 * 4 * 4}  # 2 cycles, C(4,3)=4 tables containing it, 4 rotations


def test_ids_and_seeds_do_not_depend_on_field_order_or_change_with_cycle():
    a = {m.match_id: m for m in round_robin(BOTS, [2], 2, 3)}
    b = {m.match_id: m for m in round_robin(list(reversed(BOTS)), [2], 2, 3)}
    assert a.keys() == b.keys() and all(a[k].seed == b[k].seed and a[k].bots == b[k].bots for k in a)
    seeds = {(m.cycle, m.seed) for m in a.values()}
    assert len({s for _, s in seeds}) == len(seeds)  # another cycle, another deal


def test_master_seed_changes_deals():
    one = next(round_robin(BOTS, [2], 1, 1))
    two = next(round_robin(BOTS, [2], 1, 2))
    assert one.seed != two.seed and one.bots == two.bots


def test_duplicate_names_refused():
    with pytest.raises(ValueError):
        list(round_robin(["a", "a"], [2], 1, 1))


def test_match_ids_never_reveal_the_seed():
    """Bots receive the id in hello; with the seed in it they could recompute the deal."""
    for m in round_robin(BOTS, [2, 3], 2, "secret-master"):
        assert "secret-master" not in m.match_id and m.seed not in m.match_id
        assert m.match_id == f"c{m.cycle}/{'+'.join(sorted(m.bots))}/r{m.rotation}"


def test_batches_never_hold_a_deal_twice_and_cover_every_pending_match_once():
    from arena.tournament.schedules.fixed import batches

    schedule = list(round_robin(BOTS, [2, 3], 5, 1))
    pending = {m.index for m in schedule if m.index % 7}  # some already played
    runs = batches(schedule, pending, 3)
    assert sorted(m.index for run in runs for m in run) == sorted(pending)
    for run in runs:
        assert 1 <= len(run) <= 3
        assert len({m.seed for m in run}) == len(run)  # a process never sees a deal twice
        assert len({(len(m.bots), m.rotation) for m in run}) == 1
    assert [run[0].index for run in runs] == sorted(run[0].index for run in runs)


def test_with_many_bots_and_one_cycle_processes_serve_many_matches():
    """A league of dozens of bots plays few cycles: runs follow tables that differ by one bot."""
    from arena.tournament.schedules.fixed import batches

    names = [f"bot{i:02d}" for i in range(8)]
    schedule = list(round_robin(names, [4], 1, 1))
    runs = batches(schedule, {m.index for m in schedule}, 32)
    starts = sum(len({bot for m in run for bot in m.bots}) for run in runs)
    assert len(schedule) == 280 and len(runs) == 12
    assert starts <= 12 * 8  # at most every bot once per run: 96 process starts instead of 1,120


def test_batches_do_not_depend_on_what_was_already_played():
    """A run is cut from the whole schedule, so resuming regroups nothing."""
    from arena.tournament.schedules.fixed import batches

    schedule = list(round_robin(BOTS, [3], 4, 1))
    whole = {m.index: tuple(x.index for x in run) for run in batches(schedule, {m.index for m in schedule}, 3)
             for m in run}
    later = batches(schedule, {m.index for m in schedule if m.index >= 20}, 3)
    for run in later:
        assert set(x.index for x in run) <= set(whole[run[0].index])
    assert [len(r) for r in batches(schedule, {m.index for m in schedule}, 1)] == [1] * len(schedule)
    with pytest.raises(ValueError):
        batches(schedule, set(), 0)


# ---------------------------------------------------------------- what bots support

def digest(matches) -> str:
    import hashlib

    return hashlib.sha256(repr([(m.index, m.match_id, m.seed, m.bots, m.cycle, m.rotation)
                                for m in matches]).encode()).hexdigest()


def test_without_limits_the_schedule_is_the_one_stored_tournaments_were_played_with():
    """Byte for byte the schedule stored tournaments were played with (fingerprint format 3: deal seeds are
    HMACs of the master seed, one cyclic order per table: ``seating: cyclic``, which a store begun before
    balanced seatings resumes with), whatever ``supports`` says of bots that play every size, so they resume."""
    before = "f99537ecceb84e9d623bc7775c33cac8b619474b510fb1d4981a4eebcbe63a4b"
    assert digest(round_robin(BOTS, [2, 3, 4], 2, "spring", seating=CYCLIC)) == before
    assert digest(round_robin(BOTS, [2, 3, 4], 2, "spring", {}, CYCLIC)) == before
    assert digest(round_robin(BOTS, [2, 3, 4], 2, "spring", {"extra": (2, 3, 4)}, CYCLIC)) == before  # plays all
    balanced = digest(round_robin(BOTS, [2, 3, 4], 2, "spring"))
    assert balanced != before  # the same deals and ids, other seatings
    assert digest(round_robin(BOTS, [2, 3, 4], 2, "spring", {"extra": (2, 3, 4)})) == balanced


def test_a_size_is_drawn_only_among_the_bots_that_play_it():
    limits = {"random": (2,), "heuristic": (2, 4)}
    matches = list(round_robin(BOTS, [2, 3, 4], 1, 7, limits))
    for m in matches:
        assert all(len(m.bots) in limits.get(bot, (2, 3, 4)) for bot in m.bots), m
    tables = {(len(m.bots), frozenset(m.bots)) for m in matches}
    assert len([t for t in tables if t[0] == 2]) == comb(5, 2)  # everyone plays pairs
    assert {t for _, t in tables if len(t) == 3} == {frozenset({"c-random", "extra", "js-greedy"})}
    assert {t for _, t in tables if len(t) == 4} == {frozenset({"c-random", "extra", "js-greedy", "heuristic"})}
    assert [m.index for m in matches] == list(range(len(matches)))
    assert len(matches) == comb(5, 2) * 2 + 3 + 4


def test_limited_schedules_are_deterministic_and_do_not_depend_on_field_order():
    limits = {"random": (3,), "extra": (2, 4)}
    one = list(round_robin(BOTS, [2, 3, 4], 2, "s", limits))
    assert one == list(round_robin(BOTS, [2, 3, 4], 2, "s", limits))
    other = {m.match_id: (m.seed, m.bots) for m in round_robin(list(reversed(BOTS)), [2, 3, 4], 2, "s", limits)}
    assert other == {m.match_id: (m.seed, m.bots) for m in one}
    # A table keeps its id and deal when another size's field changes: ids come from names only.
    unlimited = {m.match_id: m.seed for m in round_robin(BOTS, [2, 3, 4], 2, "s")}
    assert all(unlimited[m.match_id] == m.seed for m in one)


def test_a_size_that_cannot_be_filled_is_refused():
    with pytest.raises(ValueError, match="no table of 4 seats can be filled"):
        list(round_robin(BOTS, [2, 4], 1, 1, {"random": (2,), "heuristic": (2,)}))


def test_a_deal_seed_tells_nothing_of_the_master_seed_or_of_other_tables():
    from arena.match.seeds import deal_seed
    from arena.tournament.schedules.round_robin import round_robin

    master = "a-secret-master-seed"
    seeds = {m.seed for m in round_robin(["a", "b", "c"], [2, 3], 2, master)}
    assert len(seeds) == 2 * 4  # one per table (3 of 2 seats, 1 of 3) and cycle, shared by its rotations
    assert all(s.startswith("d-") and len(s) == 34 and master not in s for s in seeds)
    assert deal_seed(1, "c1/a+b") == deal_seed("1", "c1/a+b") != deal_seed(2, "c1/a+b")
