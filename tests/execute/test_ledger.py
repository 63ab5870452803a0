"""The death-and-void ledger alone: what a worker death puts back, and when a match is voided instead."""

from __future__ import annotations

from arena.bots import BotSpec
from arena.execute import DEATHS_TO_VOID, DeathLedger, Voided, WorkerLost
from arena.game import make_rules
from arena.match.runner import MatchJob

RULES = make_rules("standard", {})
BOTS = (BotSpec("a", ("true",)), BotSpec("b", ("true",)))


def batch(first: int, *names: str) -> list[tuple[int, MatchJob]]:
    return [(first + i, MatchJob(name, RULES, name, BOTS)) for i, name in enumerate(names)]


def ids(again: list[tuple[int, MatchJob]]) -> list[str]:
    return [job.match_id for _, job in again]


def test_a_first_death_replays_the_match_in_play_alone_and_a_second_voids_it() -> None:
    ledger = DeathLedger()
    assert ledger.died(41, "SIGKILL", batch(3, "m3"), playing=3) == [WorkerLost(41, "SIGKILL", "m3", 1)]
    again = ledger.take()
    assert again is not None and ids(again) == ["m3"] and ledger.take() is None
    assert DEATHS_TO_VOID == 2
    assert ledger.died(42, "SIGKILL", again, playing=3) == [
        WorkerLost(42, "SIGKILL", "m3", 0, voided=True),
        Voided(3, "m3", ("a", "b"), "killed its worker process twice, SIGKILL each time")]
    assert ledger.take() is None  # voided: never played again


def test_a_death_puts_back_every_match_of_the_batch_the_one_in_play_alone() -> None:
    ledger = DeathLedger()
    lost = ledger.died(7, "exit status 1", batch(0, "m0", "m1", "m2", "m3"), playing=1)
    assert lost == [WorkerLost(7, "exit status 1", "m1", 4)]
    first, second = ledger.take(), ledger.take()
    assert first is not None and second is not None and ledger.take() is None
    assert ids(first) == ["m1"]  # alone, so that a second death pins it
    assert ids(second) == ["m0", "m2", "m3"]  # not suspects: together, in playing order
    assert [i for i, _ in first + second] == [1, 0, 2, 3]  # nothing lost, nothing doubled


def test_deaths_between_matches_blame_no_match() -> None:
    ledger = DeathLedger()
    for pid in (1, 2, 3):
        assert ledger.died(pid, "SIGTERM", batch(0, "m0", "m1"), playing=None) == [
            WorkerLost(pid, "SIGTERM", None, 2)]
        again = ledger.take()
        assert again is not None and ids(again) == ["m0", "m1"]
    assert ledger.causes == {}


def test_only_deaths_with_the_match_in_play_count_towards_its_void_and_the_reason_says_each() -> None:
    ledger = DeathLedger()
    ledger.died(1, "SIGKILL", batch(0, "m0", "m1"), playing=0)  # m1 was waiting: not a suspect
    ledger.died(2, "Dask worker tcp://w1 lost", batch(1, "m1"), playing=1)
    assert ledger.causes == {0: ["SIGKILL"], 1: ["Dask worker tcp://w1 lost"]}
    results = ledger.died(3, "SIGSEGV", batch(1, "m1"), playing=1)
    assert results[-1] == Voided(1, "m1", ("a", "b"),
                                 "killed its worker process twice, Dask worker tcp://w1 lost then SIGSEGV")
