"""The schedule interface: the fixed schedules behind it, and an open-ended one run through the same driver."""

from __future__ import annotations

import hashlib
import io
import json
import re
import time
from collections.abc import Collection, Generator, Iterable, Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from arena.bots import BotSpec
from arena.cli import main
from arena.execute import Done
from arena.execute import local
from arena.game import make_rules
from arena.match.runner import MatchJob, MatchOutcome
from arena.tournament import driver
from arena.tournament.config import load_config
from arena.tournament.rating import RatingFold, RatingParams, rate
from arena.tournament.records import MatchRecord
from arena.tournament.schedules.base import ScheduledMatch
from arena.tournament.schedules.fixed import batches
from arena.tournament.schedules.round_robin import round_robin
from arena.tournament.schedules.base import Schedule
from arena.tournament.schedules.fixed import FixedSchedule
from arena.tournament.store import ResultStore

ROOT = Path(__file__).resolve().parents[2]
BOTS = ["a", "b", "c", "d", "e"]


def test_a_fixed_schedule_hands_out_the_batches_of_what_is_not_stored():
    matches = list(round_robin(BOTS, [2, 3], 2, 1))
    schedule: Schedule = FixedSchedule(matches, 3)
    assert schedule.total == len(matches) == 2 * (10 * 2 + 10 * 3)
    with pytest.raises(RuntimeError, match="resume"):
        schedule.next_batch()
    done = {m.index for m in matches if m.index % 4 == 0}
    schedule.resume(done, [])
    pending = {m.index for m in matches} - done
    assert list(schedule.unfinished()) == sorted(pending)
    handed = list(iter(schedule.next_batch, None))
    assert handed == batches(matches, pending, 3)  # the batches a run always cut: resuming regroups nothing
    assert schedule.next_batch() is None
    for match in handed[0]:
        schedule.finished(match, None)
    assert set(schedule.unfinished()) == pending - {m.index for m in handed[0]}


def test_a_fixed_schedule_needs_its_indices_in_order():
    matches = list(round_robin(BOTS, [2], 1, 1))
    with pytest.raises(ValueError, match="0, 1, 2"):
        FixedSchedule(matches[1:], 3)


def record(index: int, bots: tuple[str, ...], places: tuple[int, ...]) -> MatchRecord:
    return MatchRecord(index, f"m{index}", bots, places, (0,) * len(bots), (False,) * len(bots), ())


def test_the_fold_waits_for_matches_handed_out_later():
    fold = RatingFold(RatingParams(), ["a", "b"], [record(0, ("a", "b"), (1, 2))])
    assert fold.complete
    fold.expect([1, 2])
    fold.add(record(2, ("b", "a"), (1, 2)))
    assert not fold.complete  # 2 waits for 1
    fold.expect([1])  # awaited already: nothing changes
    fold.add(record(1, ("a", "b"), (2, 1)))
    assert fold.complete
    everything = rate([record(i, bots, places) for i, bots, places in
                       [(0, ("a", "b"), (1, 2)), (1, ("a", "b"), (2, 1)), (2, ("b", "a"), (1, 2))]],
                      RatingParams(), ["a", "b"])
    assert fold.ratings == everything
    with pytest.raises(ValueError, match="came already"):
        fold.expect([2])
    fold.expect([5])
    fold.void(5)
    with pytest.raises(ValueError, match="before matches already rated"):
        fold.expect([3])


# ---------------------------------------------------------------- an open-ended schedule

class OneAtATime:
    """A schedule that knows its next match only once the previous one came back, and says nothing
    of its length: what a ladder looks like to the driver."""

    def __init__(self, matches: Sequence[ScheduledMatch]) -> None:
        self.matches = list(matches)
        self.in_play = False
        self.told: list[tuple[int, bool]] = []
        self.asked = 0

    @property
    def total(self) -> int | None:
        return None

    def resume(self, done: Collection[int], records: Sequence[MatchRecord]) -> None:
        self.matches = [m for m in self.matches if m.index not in done]

    def unfinished(self) -> Iterable[int]:
        return [self.matches[0].index] if self.in_play else []

    def next_batch(self, room: int | None = None) -> list[ScheduledMatch] | None:
        self.asked += 1
        if self.in_play:
            return []
        if not self.matches:
            return None
        self.in_play = True
        return [self.matches[0]]

    def finished(self, scheduled: ScheduledMatch, record: MatchRecord | None) -> None:
        assert self.in_play and scheduled == self.matches[0]
        self.told.append((scheduled.index, record is not None))
        self.matches.pop(0)
        self.in_play = False

    def waiting(self) -> str | None:
        return "waiting for the match in play" if self.in_play else None


def fake_play(jobs: Sequence[MatchJob], spare: object = None) -> Generator[MatchOutcome, None, None]:
    """Plays instantly; places come from a hash of the match id (``spare``: as play_batch takes it, unused)."""
    for job in jobs:
        time.sleep(0.01)
        digest = hashlib.sha256(job.match_id.encode()).digest()
        seats = len(job.bots)
        yield MatchOutcome(job.match_id, job.seed, tuple(b.name for b in job.bots), (0,) * seats,
                           tuple(1 + digest[s] % seats for s in range(seats)), (False,) * seats, (), "fake", (), 0,
                           0.0, 0.0, (), "none", b"")


def test_an_open_ended_schedule_runs_through_the_same_driver(tmp_path, monkeypatch):
    bot = ROOT / "bots" / "random" / "bot.py"
    path = tmp_path / "open.yaml"
    path.write_text(f"name: open\nseats: 3\nseed: 2\nsandbox: none\nworkers: 2\noutput: {tmp_path / 'open'}\nbots:\n"
                    + "".join(f"  - {{name: {n}, command: \"{{python}} {bot}\"}}\n" for n in BOTS))
    config = load_config(path)
    schedule = OneAtATime(round_robin(BOTS, [3], 1, 2))
    monkeypatch.setattr(driver, "schedule_for", lambda config, *backend: schedule)
    monkeypatch.setattr(local, "play_batch", fake_play)
    monkeypatch.setattr(local, "POLL_SECONDS", 0.01)
    out = io.StringIO()
    summary = driver.run_tournament(config, out=out)
    assert (summary.total, summary.played, summary.failed) == (None, 30, 0)
    assert schedule.told == [(i, True) for i in range(30)]  # told of each match, in the order they came back
    assert schedule.asked > 31  # asked again while its one match was being played
    assert f"tournament open (results in {tmp_path / 'open'}): open-ended, 0 already stored, playing on 2 worker(s)" \
        in out.getvalue()
    assert re.search(r"^\[1\] [0-9.]+ matches/s  top: ", out.getvalue(), re.M) and "None" not in out.getvalue()
    written = (config.output / "leaderboard.json").read_text()
    store = ResultStore(config.output)
    try:
        assert json.loads(store._db.execute("SELECT value FROM meta WHERE key = 'total'").fetchone()[0]) is None
        driver.publish(store, config)  # recomputed from the store: the same ratings as the fold kept
    finally:
        store.close()
    assert (config.output / "leaderboard.json").read_text() == written
    board = CliRunner().invoke(main, ["leaderboard", str(config.output)])
    assert board.exit_code == 0 and board.output.startswith("30 matches finished\n")


def test_the_pool_waits_for_a_source_with_nothing_ready(monkeypatch):
    monkeypatch.setattr(local, "POLL_SECONDS", 0.01)
    rules = make_rules("standard", {})
    specs = (BotSpec("a", ("true",)), BotSpec("b", ("true",)))
    jobs = [(i, MatchJob(f"j{i}", rules, f"s{i}", specs)) for i in range(3)]
    results: list[int] = []

    def source() -> Generator[list[tuple[int, MatchJob]], None, None]:
        yield [jobs[0]]
        while len(results) < 1:  # nothing more until the first result came back
            yield []
        yield []
        yield [jobs[1], jobs[2]]

    for done in local.run_jobs(source(), 2, fake_play):
        assert isinstance(done, Done)
        results.append(done.index)
    assert results == [0, 1, 2]
