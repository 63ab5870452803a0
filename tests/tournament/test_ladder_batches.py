"""How a ladder's drawn tables become batches: across tables, one match per deal, the same tables whatever
the cut, submissions and retirements seen by the next table drawn, --matches drawing whole tables."""

from __future__ import annotations

import hashlib
import json
import os
import math
import random
from collections import Counter

from arena.bots import BotSpec
from arena.match.runner import MatchJob
from arena.game import make_rules
from arena.tournament import driver
from arena.tournament.ladder.entries import Entry
from arena.tournament.rating import RatingFold, RatingParams
from arena.tournament.records import MatchRecord
from arena.tournament.schedules.base import ScheduledMatch
from arena.tournament.ladder.matchmaking import LAG, LadderSchedule, table_of


def entries(names: list[str]) -> list[Entry]:
    return [Entry(n, 1, "d", "p", "s", 0.0, "active") for n in names]


def ladder(names: list[str], seats: list[int], batch_size: int, seed: int = 3) -> LadderSchedule:
    s = LadderSchedule(lambda: entries(names), lambda e: BotSpec(name=e.key, command=("x",)), seats, "standard",
                       seed, RatingParams(), 2, batch_size=batch_size)
    s.resume(set(), [])
    return s


def result(match: ScheduledMatch) -> MatchRecord:
    """Places from a hash of the match id: the same match always ends the same way."""
    digest = hashlib.sha256(match.match_id.encode()).digest()
    order = sorted(range(len(match.bots)), key=lambda seat: (digest[seat], seat))
    places = tuple(order.index(seat) + 1 for seat in range(len(match.bots)))
    return MatchRecord(match.index, match.match_id, match.bots, places, (0,) * len(places),
                       (False,) * len(places), ())


def play(s: LadderSchedule, matches: int, workers: int, seed: int,
         on_batch=lambda batch: None) -> tuple[dict[int, ScheduledMatch], list[list[ScheduledMatch]]]:
    """Hand out ``matches`` matches (as ``--matches`` does) to ``workers`` simulated workers, each playing
    its batch in order while the others play theirs; which worker finishes a match next is drawn at
    random. Returns every match handed out, by index, and the batches."""
    rng = random.Random(seed)
    handed: dict[int, ScheduledMatch] = {}
    batches: list[list[ScheduledMatch]] = []
    held: list[list[ScheduledMatch]] = []  # per busy worker: the rest of its batch
    while len(handed) < matches or held:
        while len(held) < workers and len(handed) < matches:
            batch = s.next_batch(matches - len(handed))
            if not batch:
                break
            on_batch(batch)
            batches.append(batch)
            handed.update((m.index, m) for m in batch)
            held.append(list(batch))
        if not held:
            continue
        worker = held[rng.randrange(len(held))]
        match = worker.pop(0)
        s.finished(match, result(match))
        if not worker:
            held.remove(worker)
    return handed, batches


def test_a_batch_holds_one_match_per_deal_across_many_tables():
    s = ladder(["a", "b", "c", "d"], [4], 32)
    handed, batches = play(s, 200, 2, 1)
    for batch in batches:
        assert len({m.seed for m in batch}) == len(batch)  # a process never sees one deal twice
        assert len({table_of(m.match_id)[0] for m in batch}) == len(batch)  # one rotation of any table
    assert max(len(b) for b in batches) == LAG + 1  # a rotation of every table the lookahead allows
    assert sum(len(b) for b in batches) / len(batches) > 8  # processes follow their bots over many matches
    tables = Counter(table_of(m.match_id)[0] for m in handed.values())
    assert set(tables.values()) == {4}  # each table drawn is handed out under every rotation


def test_the_cut_changes_no_table_deal_or_index():
    """Batches of 1 on one worker, or of up to 32 on two or three, draw the same tables in the same order:
    tables depend on the ratings up to LAG tables back, never on who plays what when."""
    names = ["a", "b", "c", "d", "e", "f"]
    one, _ = play(ladder(names, [2, 3, 4], 1), 300, 1, 5)
    for workers in (2, 3):
        many, batches = play(ladder(names, [2, 3, 4], 32), 300, workers, workers)
        assert max(len(b) for b in batches) > 1
        common = sorted(set(one) & set(many))
        assert len(common) >= 250 and [one[i] for i in common] == [many[i] for i in common]


def test_a_submission_or_retirement_is_seen_by_the_next_table_drawn():
    names = ["a", "b", "c", "d", "e"]
    s = ladder(names, [2, 3], 32)
    first = s.next_batch()
    assert first and any("a@v1" in m.bots for m in first)
    drawn = s._next  # every table drawn so far starts below this index
    names.remove("a")  # retired while the run goes
    names.append("z")  # submitted while the run goes
    seen: list[int] = []

    def check(batch: list[ScheduledMatch]) -> None:
        for match in batch:
            if table_of(match.match_id)[0] >= drawn:
                assert "a@v1" not in match.bots
        fresh = sorted(table_of(m.match_id)[0] for m in batch if table_of(m.match_id)[0] >= drawn)
        if fresh and fresh[0] == drawn:
            assert any("z@v1" in m.bots for m in batch if table_of(m.match_id)[0] == drawn)  # in placement
            seen.append(drawn)

    for match in first:
        s.finished(match, result(match))
    handed, _ = play(s, 100, 2, 7, check)
    assert drawn in seen  # the first table drawn after the change was checked
    # the tables drawn before the retirement are played out (they were drawn, not cancelled)
    assert any("a@v1" in m.bots for m in handed.values() if table_of(m.match_id)[0] < drawn)


def test_within_a_limit_only_whole_tables_are_drawn():
    s = ladder(["a", "b", "c"], [2], 32)
    batch = s.next_batch(room=6)
    assert batch is not None and [m.rotation for m in batch] == [0, 0, 0]  # three tables of 2 fit in 6
    again = s.next_batch(room=3)
    assert again is not None and [m.rotation for m in again] == [1, 1, 1]
    assert {table_of(m.match_id)[0] for m in again} == {table_of(m.match_id)[0] for m in batch}
    for match in batch + again:
        s.finished(match, result(match))
    one = s.next_batch(room=1)
    assert one is not None and len(one) == 1  # nothing queued: one table is drawn whatever the room, as ever
    assert len(s._queue) == 1  # its other rotation, for a later batch or a later run


def test_batches_shrink_when_more_workers_want_them_than_the_lookahead_fills():
    s = ladder([f"b{i}" for i in range(10)], [2], 32)
    handed, batches = play(s, 600, 4, 2)
    window = (LAG + 1) * 2
    assert batches[0] and len(batches[0]) == LAG + 1
    assert max(len(b) for b in batches[-10:]) <= math.ceil(window / 4)  # four workers seen: a quarter each
    assert s._spread == 4


def job(match: ScheduledMatch) -> MatchJob:
    bots = tuple(BotSpec(b, ("x",)) for b in match.bots)
    return MatchJob(match.match_id, make_rules("standard", {}), match.seed, bots)


def test_what_a_ladder_drew_and_never_handed_out_is_passed_over_by_the_ratings():
    """The driver's fold waits for what the schedule drew (a later table's match may be handed out before
    an earlier table's last one), and at the end passes over what was never handed out, so every match
    stored is rated."""
    s = ladder(["a", "b", "c", "d"], [4], 32)
    live = RatingFold(RatingParams(), [], [])
    issued: dict[int, ScheduledMatch] = {}
    jobs = driver._jobs(s, live, issued, job)
    first = next(jobs)
    assert [i for i, _ in first] == [4 * t for t in range(LAG + 1)]  # rotation 0 of every table drawn
    for index, _ in reversed(first):
        match = issued.pop(index)
        record = result(match)
        live.add(record)
        s.finished(match, record)
    assert len(live.ratings) == 4 and not live.complete  # only match 0 is rated: 1, 2, 3 are still to come
    driver._pass_over_undealt(s, live, issued)
    assert live.complete  # the rest of those tables is for a later run, under new indices


class Five:
    """An open-ended schedule with one batch of five matches to give."""

    total = None

    def __init__(self) -> None:
        self.asked: list[int | None] = []
        self.batch = [ScheduledMatch(i, f"m{i}", f"s{i}", ("a", "b"), 1, 0) for i in range(5)]

    def next_batch(self, room: int | None = None) -> list[ScheduledMatch] | None:
        self.asked.append(room)
        batch, self.batch = self.batch, []
        return batch or None

    def unfinished(self) -> list[int]:
        return []

    def waiting(self) -> None:
        return None


def test_the_part_of_a_batch_beyond_the_limit_is_handed_out_when_room_comes_back():
    schedule = Five()
    live = RatingFold(RatingParams(), [], [])
    issued: dict[int, ScheduledMatch] = {}
    room = [2]
    jobs = driver._jobs(schedule, live, issued, job, lambda: room[0] - len(issued))  # type: ignore[arg-type]
    assert [i for i, _ in next(jobs)] == [0, 1] and schedule.asked == [2]
    assert next(jobs) == []  # no room while those two play
    issued.clear()
    room[0] = 3  # both failed, say: room for three more
    assert [i for i, _ in next(jobs)] == [2, 3, 4] and schedule.asked == [2]  # kept, not asked for again
    issued.clear()
    room[0] = 9
    assert next(jobs, None) is None and schedule.asked == [2, 9]


def test_a_real_ladder_plays_the_same_tables_results_and_ratings_on_one_worker_or_two(tmp_path):
    """Two workers keep the processes that ended their batches for later ones (arena/match/spare.py); one
    worker plays every batch in turn: the same file and seed give the same matches, results and ratings."""
    import sqlite3
    from pathlib import Path

    from arena.tournament.config import load_config
    from arena.tournament.driver import run_tournament

    root = Path(__file__).resolve().parents[2]

    def played(workers: int) -> tuple[list[tuple], list[tuple], int]:
        out = tmp_path / f"w{workers}"
        lines = ["name: same", "schedule: ladder", "seats: [2, 3]", "seed: 11", "sandbox: none",
                 f"workers: {workers}", "time: {move_ms: 2000, startup_ms: 10000}", f"output: {out}", "bots:"]
        lines += [f"  - {root / 'bots' / b}" for b in ("random", "heuristic", "c-random")]
        path = tmp_path / f"w{workers}.yaml"
        path.write_text("\n".join(lines) + "\n")
        run_tournament(load_config(path), out=open(os.devnull, "w"), max_matches=90)
        db = sqlite3.connect(out / "results.sqlite")
        try:
            matches = db.execute("SELECT idx, match_id, seed, bots, places, totals FROM matches ORDER BY idx").fetchall()
            ratings = db.execute("SELECT player, mu, sigma, matches FROM ladder_ratings ORDER BY player").fetchall()
            starts = sum(s.get("startup_ms") is not None for (stats,) in db.execute("SELECT stats FROM matches")
                         for s in json.loads(stats))
        finally:
            db.close()
        return matches, ratings, starts

    one, two = played(1), played(2)
    assert len(one[0]) == 90 and one[:2] == two[:2]
    batches = -(-90 // (LAG + 1))  # at least this many: a batch holds one match of each table in play
    assert one[2] < 3 * batches  # the kept processes served later batches: fewer starts than three a batch
