"""The local executor with fake jobs: a job that kills its worker is replayed, then voided; none lost or doubled."""

from __future__ import annotations

import os
import signal
from collections import Counter
from pathlib import Path
from typing import Generator, Sequence

import pytest

from arena.bots import BotSpec
from arena.game import make_rules
from arena.match.runner import MatchJob, MatchOutcome
from arena.execute import Done, PoolFailure, Voided, WorkerLost
from arena.execute.local import IDLE_DEATHS_LIMIT, run_jobs

RULES = make_rules("standard", {})
BOTS = (BotSpec("a", ("true",)), BotSpec("b", ("true",)))


def job(name: str) -> MatchJob:
    return MatchJob(name, RULES, name, BOTS)


def batch(first: int, *names: str) -> list[tuple[int, MatchJob]]:
    return [(first + i, job(name)) for i, name in enumerate(names)]


def outcome(job: MatchJob) -> MatchOutcome:
    return MatchOutcome(job.match_id, job.seed, ("a", "b"), (1, 2), (1, 2), (False, False), (), "fake", (), 0, 0.0,
                        0.0, (), "none", b"")


class FakePlay:
    """Plays jobs instantly; ``kill*`` jobs SIGKILL their worker, ``once*`` only the first time.

    Runs in the forked workers, so what it did is logged to a file, one line per match started.
    """

    def __init__(self, log: Path) -> None:
        self.log = log

    def __call__(self, jobs: Sequence[MatchJob]) -> Generator[MatchOutcome, None, None]:
        for job in jobs:
            tries = self.log.read_text().split().count(job.match_id) if self.log.exists() else 0
            with open(self.log, "a") as f:
                f.write(job.match_id + "\n")
            if job.match_id.startswith("kill") or (job.match_id.startswith("once") and tries == 0):
                os.kill(os.getpid(), signal.SIGKILL)
            yield outcome(job)


def plays(log: Path) -> Counter[str]:
    return Counter(log.read_text().split())


@pytest.mark.parametrize("workers", [1, 2])
def test_a_job_that_kills_its_worker_twice_is_voided_and_the_rest_played_once(tmp_path, workers):
    log = tmp_path / "plays"
    batches = [batch(0, "ok0", "kill1", "ok2", "ok3"), batch(4, "ok4", "ok5")]
    got = list(run_jobs(batches, workers, FakePlay(log)))
    done = [m for m in got if isinstance(m, Done)]
    voided = [m for m in got if isinstance(m, Voided)]
    lost = [m for m in got if isinstance(m, WorkerLost)]
    assert sorted(d.index for d in done) == [0, 2, 3, 4, 5]
    assert all(d.outcome is not None and d.outcome.match_id == f"ok{d.index}" for d in done)
    assert voided == [Voided(1, "kill1", ("a", "b"), "killed its worker process twice, SIGKILL each time")]
    assert [(w.cause, w.playing, w.replayed, w.voided) for w in lost] == [
        ("SIGKILL", "kill1", 3, False),  # kill1 alone, then ok2 and ok3 together
        ("SIGKILL", "kill1", 0, True),  # alone: the culprit for sure
    ]
    assert got.index(lost[1]) + 1 == got.index(voided[0])
    # ok0 came back before the death and is not played again; the culprit was tried exactly twice
    assert plays(log) == {"ok0": 1, "kill1": 2, "ok2": 1, "ok3": 1, "ok4": 1, "ok5": 1}


def test_a_job_that_kills_its_worker_once_is_played_again_and_kept(tmp_path):
    log = tmp_path / "plays"
    got = list(run_jobs([batch(0, "ok0", "once1", "ok2")], 2, FakePlay(log)))
    assert sorted(m.index for m in got if isinstance(m, Done)) == [0, 1, 2]
    assert not [m for m in got if isinstance(m, Voided)]
    assert [(w.playing, w.replayed) for w in got if isinstance(w, WorkerLost)] == [("once1", 2)]
    assert plays(log) == {"ok0": 1, "once1": 2, "ok2": 1}


def test_workers_that_die_before_any_match_make_a_clear_failure_not_a_loop(tmp_path):
    def deadly(jobs: Sequence[MatchJob]) -> Generator[MatchOutcome, None, None]:
        os.kill(os.getpid(), signal.SIGKILL)  # before the first match is announced
        raise AssertionError("unreachable")

    with pytest.raises(PoolFailure, match=f"{IDLE_DEATHS_LIMIT} worker processes in a row died before playing"):
        for _ in run_jobs([batch(0, "ok0")], 1, deadly):
            pass


def test_closing_early_stops_every_worker(tmp_path):
    log = tmp_path / "plays"
    before = set(_children(os.getpid()))
    results = run_jobs([batch(0, "ok0", "ok1"), batch(2, "ok2")], 2, FakePlay(log))
    next(results)
    workers = set(_children(os.getpid())) - before
    assert len(workers) == 2
    results.close()  # type: ignore[attr-defined]
    assert not set(_children(os.getpid())) & workers


def _children(pid: int) -> list[int]:
    kids: list[int] = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            kids += [int(k) for k in f.read().split()]
    return kids
