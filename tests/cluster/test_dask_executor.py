"""The Dask executor's reading of the scheduler, without a cluster: a client that lost its scheduler answers
from memory, and that must end the run as the scheduler's loss, never bury healthy workers as lost."""

from __future__ import annotations

from typing import Any

import pytest

from arena.cluster.dask_executor import _Run, _Task
from arena.execute import DeathLedger, PoolFailure, WorkerLost

WORKER = "tcp://127.0.0.1:40001"


class ForgetfulClient:
    """A Dask client as it is once the scheduler is gone: ``status`` leaves "running" during the call, and
    what it returns is what it last knew, or nothing once it has given up."""

    def __init__(self) -> None:
        self.status = "running"
        self.answers: list[tuple[str, dict[str, Any]]] = [("running", {"workers": {WORKER: {"nthreads": 1}}})]

    def scheduler_info(self, n_workers: int = 5) -> dict[str, Any]:
        self.status, info = self.answers.pop(0)
        return info

    def run(self, function: Any, *args: Any, workers: list[str], on_error: str) -> dict[str, Any]:
        return {worker: None for worker in workers}  # every new worker has the sandbox

    def cancel(self, futures: list[Any]) -> None:
        raise AssertionError("a task was cancelled as if its worker had left")


def a_run(client: ForgetfulClient) -> _Run:
    """A run's state as :class:`_Run` sets it up, without the scheduler-side event and subscription."""
    run = object.__new__(_Run)
    run.client, run.address, run.sandbox, run.say = client, "tcp://127.0.0.1:8786", "none", lambda line: None
    run.tasks, run.yielded, run.good, run.refused = {}, set(), {}, set()
    run.ledger = DeathLedger()
    run.again = run.ledger.again
    run.last_look, run.empty_said = 0.0, False
    return run


@pytest.mark.parametrize("answer", [("closed", {}), ("connecting", {"workers": {}}), ("running", {})],
                         ids=["given-up", "reconnecting", "no-worker-list"])
def test_a_look_through_a_lost_connection_is_the_schedulers_end_not_the_workers(
        answer: tuple[str, dict[str, Any]]) -> None:
    client = ForgetfulClient()
    run = a_run(client)
    assert list(run._look(force=True)) == [] and run.good == {WORKER: 1}
    run.tasks["t"] = _Task("t", {}, future=None, worker=WORKER)  # a batch in play on the healthy worker
    client.answers.append(answer)
    with pytest.raises(PoolFailure, match=r"^lost the Dask scheduler at tcp://127\.0\.0\.1:8786 "):
        for event in run._look(force=True):
            assert not isinstance(event, WorkerLost), event
    assert run.good == {WORKER: 1} and "t" in run.tasks  # nobody was buried


def test_a_worker_the_scheduler_no_longer_lists_is_lost() -> None:
    """The other side: a connected client whose scheduler lists no such worker has lost that worker."""
    client = ForgetfulClient()
    run = a_run(client)
    list(run._look(force=True))
    client.answers.append(("running", {"workers": {}}))
    assert list(run._look(force=True)) == [] and run.good == {}
