"""A worker's spare processes: a later batch takes them only if they saw none of its deals and their CPU
allowance covers its matches; outcomes are those of fresh processes."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from arena.bots import BotSpec, load_bot
from arena.game import make_rules
from arena.match.link import TimeControl
from arena.match.runner import MatchJob, play_batch, play_match
from arena.match.spare import KEPT_BATCHES, Spare
from arena.sandbox import Limits, backends

ROOT = Path(__file__).resolve().parents[2]
RANDOM = str(ROOT / "bots" / "random")
RULES = make_rules("standard", {})


def job(bots: tuple[BotSpec, ...], seed: int, cpu_seconds: int = 600, per_process: int = 32) -> MatchJob:
    """``cpu_seconds`` far above what the matches take: a kept process is judged by its age (times the cores),
    so with a small allowance a slow machine would make a spare process too old to take."""
    return MatchJob(f"s-{seed}-{'+'.join(b.name for b in bots)}", RULES, seed, bots,
                    time=TimeControl(move_ms=1000, startup_ms=30000), sandbox="none",
                    limits=Limits(cpu_seconds=cpu_seconds), per_process=per_process)


@pytest.fixture
def started(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Names of the bots whose processes were started from now on (none backend)."""
    names: list[str] = []
    original = backends.NoneBackend.start

    def start(self, spec):
        names.append(spec.command[-1])
        return original(self, spec)

    monkeypatch.setattr(backends.NoneBackend, "start", start)
    return names


def pair() -> tuple[BotSpec, BotSpec]:
    return load_bot(RANDOM, name="a"), load_bot(RANDOM, name="b")


def test_a_later_batch_with_none_of_their_deals_takes_the_processes_that_ended_a_batch(started):
    a, b = pair()
    spare = Spare()
    try:
        first = list(play_batch([job((a, b), 1), job((b, a), 2), job((a, b), 3)], spare))
        assert len(started) == 2
        later = [job((b, a), 4), job((a, b), 5)]
        again = list(play_batch(later, spare))
        assert len(started) == 2  # no process started: both came from the spare
        assert all(s.startup_ms is None for o in again for s in o.stats)
        assert all(o.faults == () for o in first + again)
        alone = [play_match(j) for j in later]
        assert [(o.totals, o.places, o.decisions) for o in again] == [(o.totals, o.places, o.decisions) for o in alone]
    finally:
        spare.close()


def test_a_process_never_takes_a_deal_it_has_seen(started):
    """A table's other rotation shares its deal: the processes that played the first get none of it."""
    a, b = pair()
    spare = Spare()
    try:
        list(play_batch([job((a, b), 1), job((b, a), 2), job((a, b), 3)], spare))
        list(play_batch([job((b, a), 1), job((a, b), 5)], spare))  # deal 1 again, in the other seating
        assert len(started) == 4
        list(play_batch([job((a, b), 6)], spare))  # a new deal: the processes of either batch may take it
        assert len(started) == 4
    finally:
        spare.close()


def test_a_process_whose_allowance_left_may_not_cover_the_matches_is_not_taken(started):
    """The CPU a process used is bounded by its age on every core: past that, a fresh process plays.

    Allowances of 100 s a match: the processes' real age (the matches played so far, on a machine of any
    speed) stays far below the 25 s that would use up what one more match needs."""
    a, b = pair()
    later = 0.0
    spare = Spare(cores=4, clock=lambda: time.monotonic() + later)
    try:
        list(play_batch([job((a, b), 1, cpu_seconds=100), job((b, a), 2, cpu_seconds=100)], spare))
        assert len(started) == 2  # each process may use 200 s: its two matches' allowance
        later = 50.0  # 50 s old on 4 cores: up to 200 s used, maybe nothing left for a third match
        list(play_batch([job((a, b), 3, cpu_seconds=100)], spare))
        assert len(started) == 4
        later = 0.0  # young again: 200 s less at most 4 times their age covers 100 s
        list(play_batch([job((a, b), 4, cpu_seconds=100)], spare))
        assert len(started) == 4
        once = [held for group in spare.kept for held in group if held.allowance == 100]
        assert len(once) == 2  # started for one match: its allowance never covers another
        assert not any(held.fits({9}, 1, 100, 32, time.monotonic(), 4) for held in once)
    finally:
        spare.close()


def test_a_process_serves_no_more_matches_in_all_than_matches_per_process(started):
    a, b = pair()
    spare = Spare()
    try:
        list(play_batch([job((a, b), n, per_process=3) for n in (1, 2, 3)], spare))
        list(play_batch([job((a, b), 4, per_process=3)], spare))
        assert len(started) == 4
        list(play_batch([job((a, b), 5, per_process=0)], spare))  # 0: a job that allows no process to be kept
        assert len(started) == 6
    finally:
        spare.close()


def test_a_worker_keeps_the_processes_of_its_last_few_batches_and_kills_them_when_it_stops(started):
    spare = Spare()
    bots = [load_bot(RANDOM, name=f"p{n}") for n in range(KEPT_BATCHES + 1)]
    links = []
    for n, bot in enumerate(bots):  # every batch a bot of its own, so that nothing is taken
        list(play_batch([job((bot, bot), n)], spare))
        links.append([held.link for group in spare.kept for held in group if held.spec == bot])
    assert len(started) == 2 * len(bots)  # the same bot in both seats: one process kept of the two
    assert [len(found) for found in links] == [1] * len(bots)
    assert not links[0][0].process.alive()  # the oldest batch's process went when one more was kept
    assert all(found[0].process.alive() for found in links[1:])
    spare.close()
    assert not any(found[0].process.alive() for found in links)


def test_recorded_lines_show_no_process_sees_a_deal_twice_across_batches(tmp_path):
    """Bots that write down every line they get: across a worker's batches, one process, many deals, each once."""
    seen = tmp_path / "seen"
    seen.mkdir()
    recorder = f"{sys.executable} {ROOT / 'tests' / 'bots' / 'recorder.py'} {seen}"
    x, y = load_bot(recorder, name="x"), load_bot(recorder, name="y")
    spare = Spare()
    seeds: dict[str, int] = {}
    try:
        for batch in ([1, 2, 3], [1, 2, 3], [4, 5], [4, 5], [6]):  # as a ladder's rotations come
            jobs = [job((x, y) if n % 2 else (y, x), n) for n in batch]
            seeds.update({j.match_id: j.seed for j in jobs})
            list(play_batch(jobs, spare))
    finally:
        spare.close()
    per_process = [[seeds[json.loads(line)["match"]] for line in log.read_text().splitlines()
                    if json.loads(line)["type"] == "hello"] for log in seen.iterdir()]
    assert all(len(set(deals)) == len(deals) for deals in per_process)
    assert max(len(deals) for deals in per_process) > 3  # some process served more than one batch
    assert len(per_process) == 4  # two processes of each bot: one for each rotation
    assert sum(map(len, per_process)) == 2 * 11


def test_a_process_that_may_serve_no_more_matches_is_closed_not_kept(started):
    """Its last match's log then runs to its exit, as a process that ends with its match always has."""
    a, b = pair()
    spare = Spare()
    try:
        list(play_batch([job((a, b), 1, per_process=2), job((b, a), 2, per_process=2)], spare))  # served 2 of 2
        assert [h for group in spare.kept for h in group] == []
        list(play_batch([job((a, b), 3, per_process=2)], spare))  # served 1 of 2: may serve another
        assert sorted(h.spec.name for group in spare.kept for h in group) == ["a", "b"]
    finally:
        spare.close()
