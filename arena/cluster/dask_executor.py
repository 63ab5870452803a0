"""Play a tournament's batches on a Dask distributed cluster: the executor behind ``arena run --dask``.

It does what :func:`arena.execute.local.run_jobs` does (same arguments, same results: every
match index ends up exactly once in a :class:`Done` or a :class:`Voided`), with Dask workers in
place of local processes:

* each batch is one Dask task, submitted when a worker thread is free (and one more per worker,
  waiting at the scheduler, so no thread waits for the driver), its jobs made portable
  (:mod:`.portable`): bots named by version, their archives sent to every worker once (again if
  every copy was lost with the workers that held them);
* each match streams back as it ends, as an event on a topic named after the run (one-way from
  the worker, passed on by the scheduler to the driver alone, in order); a result that comes back
  twice (a task run again) is handed on once;
* a worker that disappears (``kill -9``, a lost machine) is reported as a :class:`WorkerLost`;
  its task is cancelled and what it had not sent back is submitted again as
  :class:`arena.execute.ledger.DeathLedger` says, the same ledger the local executor keeps (the match
  that was in play alone, voided after :data:`arena.execute.ledger.DEATHS_TO_VOID` deaths);
* a worker that lacks the sandbox the tournament asks for gets no match: one line names it
  and what is missing, before it plays;
* the scheduler going away raises :class:`PoolFailure` with one line: the driver keeps what
  was stored and a later ``arena run`` resumes.
"""

from __future__ import annotations

import importlib
import itertools
import logging
import pickle
import secrets
import threading
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Generator, Iterable, Iterator

from ..match.runner import MatchJob
from ..execute import LOCAL, Batch, DeathLedger, Done, PoolFailure, Voided, WorkerLost, parse_address
from .archive import Archive
from .portable import Packer, RemoteJob, play_remote, sandbox_missing, worker_private

INSTALL_HINT = "the Dask executor needs Dask: pip install 'cabo-arena[dask]'"
QUIET_LOGGERS = ("distributed", "asyncio", "tornado")
"""Loggers silenced while a run uses Dask."""
SPARE_PER_WORKER = 1
"""Batches submitted beyond one per worker thread, per worker (see ``_Run._capacity``)."""
STOP_POLL = 0.5
"""Seconds between a worker's looks at the run's stop event (set when the driver stops: Ctrl-C), between matches."""
SCATTER_WAIT = 5.0
"""Seconds a bot archive waits for a worker to take it before the driver looks again at who is there."""
WORKER_POLL = 1.0
"""Seconds between looks at the scheduler's list of workers (lost and new ones)."""


def require_dask() -> Any:
    """The ``distributed`` module (untyped here); :class:`PoolFailure` with the install hint without Dask."""
    try:
        return importlib.import_module("distributed")
    except ImportError:
        raise PoolFailure(INSTALL_HINT) from None


# ------------------------------------------------------------------ worker side

def _check(sandbox: str) -> str | None:
    return sandbox_missing(sandbox)


def _play_task(run: str, key: str, batch: list[tuple[int, RemoteJob]], archives: dict[str, Archive],
               sandbox: str) -> int:
    """One batch on a worker: where it runs, then each match's outcome, sent to the driver as they happen."""
    import os

    dask = require_dask()
    worker = dask.get_worker()
    here = (worker.address, os.getpid())

    def send(kind: str, index: int, payload: Any, error: str) -> None:
        # an event on the run's topic: one-way, on the worker's ordered stream to the scheduler, which
        # passes it on to the driver; the match thread does not wait for it
        worker.log_event(run, [kind, key, index, payload, error, *here])

    return _play_batch(send, dask.Event(run + "-stop"), batch, archives, sandbox)


def _play_batch(send: Callable[[str, int, Any, str], None], stop: Any, batch: list[tuple[int, RemoteJob]],
                archives: dict[str, Archive], sandbox: str) -> int:
    send("begin", -1, None, "")  # where it runs: a rerun elsewhere means this worker was lost
    missing = sandbox_missing(sandbox)
    if missing is not None:
        send("refused", -1, missing, "")
        return 0
    played = 0
    asked = [0.0, False]  # when the run's stop event was last read, and what it said

    def stopped() -> bool:
        if time.monotonic() - asked[0] >= STOP_POLL:
            asked[:] = [time.monotonic(), stop.is_set()]
        return bool(asked[1])

    # No message when a match starts: the driver knows the order, so a match's end says the next one is in play.
    for index, outcome, error in play_remote(batch, archives, worker_private(), started=lambda i: None,
                                             stopped=stopped):
        send("done", index, pickle.dumps(outcome), error)
        played += 1
    return played


# ------------------------------------------------------------------ driver side

@dataclass
class _Task:
    key: str
    held: dict[int, tuple[int, MatchJob]]
    """Matches not come back yet, by index, in playing order."""
    future: Any
    worker: str | None = None
    pid: int = 0
    playing: int | None = None
    order: list[int] = field(default_factory=list)


class DaskExecutor:
    """An executor (``executor(batches, workers)``, like :func:`arena.execute.local.run_jobs`) on Dask."""

    def __init__(self, address: str, sandbox: str, say: Callable[[str], None] = lambda line: None) -> None:
        self.address = parse_address(address)
        self.sandbox = sandbox
        self.say = say

    def describe(self, workers: int = 0) -> str:
        return f"Dask at {self.address}"  # its workers say how many they are

    def __call__(self, batches: Iterable[Batch], workers: int) -> Generator[Done | Voided | WorkerLost, None, None]:
        return self.run_jobs(batches, workers)

    def run_jobs(self, batches: Iterable[Batch], workers: int) -> Generator[Done | Voided | WorkerLost, None, None]:
        require_dask()
        names = [name for name in [*QUIET_LOGGERS, *logging.root.manager.loggerDict]
                 if name.split(".")[0] in QUIET_LOGGERS]
        quiet = {name: logging.getLogger(name).level for name in names}
        for name in names:  # the run reports what matters in one line; Dask would add tracebacks
            logging.getLogger(name).setLevel(logging.CRITICAL + 1)
        client = cluster = None
        try:
            client, cluster = self._connect()
            yield from _Run(client, self.address, self.sandbox, self.say).run(batches)
        finally:
            self._close(client, cluster)
            for name, level in quiet.items():
                logging.getLogger(name).setLevel(level)

    def _close(self, client: Any, cluster: Any) -> None:
        if client is not None:
            try:
                client.close(timeout=5)
            except Exception:
                pass
        if cluster is not None:
            try:
                cluster.close(timeout=10)
            except Exception:
                pass

    def _connect(self) -> tuple[Any, Any]:
        dask = require_dask()
        try:
            if self.address.startswith(LOCAL):
                cluster = dask.LocalCluster(n_workers=int(self.address[len(LOCAL):]), threads_per_worker=1,
                                            processes=True, dashboard_address=None,
                                            silence_logs=logging.ERROR)
                return dask.Client(cluster), cluster
            return dask.Client(self.address, timeout=10), None
        except Exception as exc:  # OSError, TimeoutError: nobody answers there
            raise PoolFailure(f"cannot reach the Dask scheduler at {self.address}: {exc}") from None


class _Run:
    def __init__(self, client: Any, address: str, sandbox: str, say: Callable[[str], None]) -> None:
        dask = require_dask()
        self.client = client
        self.address = address
        self.sandbox = sandbox
        self.say = say
        self.run_id = "arena-" + secrets.token_hex(8)
        self.inbox: deque[list[Any]] = deque()
        self.arrived = threading.Event()
        client.subscribe_topic(self.run_id, self._arrive)
        self.stop: Any = dask.Event(self.run_id + "-stop", client=client)
        self.packer = Packer()
        self.scattered: dict[str, Any] = {}
        self.tasks: dict[str, _Task] = {}
        self.numbers = itertools.count()
        self.yielded: set[int] = set()
        self.ledger = DeathLedger()  # what lost workers held, and what is put back: played before anything new
        self.again = self.ledger.again
        self.good: dict[str, int] = {}  # worker address -> threads
        self.refused: set[str] = set()
        self.last_look = 0.0
        self.empty_said = False

    # -------------------------------------------------------------- the loop
    def run(self, batches: Iterable[Batch]) -> Iterator[Done | Voided | WorkerLost]:
        source = iter(batches)
        try:
            yield from self._look(force=True)
            if not self.good and self.refused:
                raise PoolFailure(f"no Dask worker at {self.address} can play this tournament")
            if not self.good:
                self.say(f"no Dask worker at {self.address} yet: waiting for one to join (Ctrl-C stops the run)")
                self.empty_said = True
            ended = False
            while True:
                while self.good and len(self.tasks) < self._capacity():
                    batch = self.again.popleft() if self.again else None if ended else next(source, None)
                    if batch is None:
                        ended = True
                        break
                    if not batch:  # the schedule has nothing to hand out until results come back (a ladder)
                        break
                    if not self._submit(list(batch)):  # the workers we knew of are gone: look again
                        self.again.appendleft(list(batch))
                        yield from self._look(force=True)
                        break
                if not self.tasks:
                    if ended and not self.again:
                        return
                    time.sleep(0.2)  # nothing to play yet (a ladder waiting for results), or no worker to play it
                    yield from self._look()
                    continue
                yield from self._receive()
                yield from self._finished()
                yield from self._look()
        except PoolFailure:
            raise
        except (OSError, TimeoutError) as exc:
            raise self._lost(exc) from None
        except Exception as exc:
            if type(exc).__name__ in ("CommClosedError", "CancelledError", "StreamClosedError"):
                raise self._lost(exc) from None
            raise
        finally:
            if self.client.status == "running":  # else nobody is there to tell
                try:
                    self.stop.set()  # stays set on the scheduler (one flag per run): tasks still running read it
                    self.client.cancel([t.future for t in self.tasks.values()])
                    self.client.run_on_scheduler(_forgetter(self.run_id))  # its messages and its subscription
                except Exception:
                    pass

    def _connected(self) -> None:
        """Raise :class:`PoolFailure` if the client lost the scheduler. Even if it reconnects, the scheduler
        has dropped this run's tasks and subscription with the old connection: the run stops here, and
        ``arena run`` again resumes it."""
        if self.client.status != "running":
            raise PoolFailure(f"lost the Dask scheduler at {self.address} (the connection closed)")

    def _lost(self, exc: BaseException) -> PoolFailure:
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return PoolFailure(f"lost the Dask scheduler at {self.address} ({why})")

    def _capacity(self) -> int:
        """Batches out at once: one per worker thread, and one more per worker waiting at the scheduler,
        so that a worker thread that finishes a batch starts the next without waiting for the driver."""
        return sum(self.good.values()) + len(self.good) * SPARE_PER_WORKER

    # -------------------------------------------------------------- submitting
    def _submit(self, batch: list[tuple[int, MatchJob]]) -> bool:
        """Send a batch to the cluster (and the archives it needs, where no worker has them); False if no
        worker was there to take the archives."""
        remote = [(index, self.packer.portable(job)) for index, job in batch]
        needed = {d for _, r in remote for d in r.digests if d is not None}
        for digest in needed:
            held = self.scattered.get(digest)
            if held is None or held.status != "finished":  # never sent, or every copy died with its workers
                # broadcast: a copy on every worker, so a worker killed with one copy leaves the others; a fresh
                # key each time, as the scheduler may still know the lost one
                name = f"arena-bot-{digest}-{next(self.numbers)}"
                try:
                    self.scattered[digest] = self.client.scatter({name: self.packer.archives[digest]}, hash=False,
                                                                 broadcast=True, timeout=SCATTER_WAIT)[name]
                except TimeoutError:  # "No valid workers found"
                    return False
        key = f"{self.run_id}-batch-{next(self.numbers)}"
        future = self.client.submit(_play_task, self.run_id, key, remote,
                                    {d: self.scattered[d] for d in needed}, self.sandbox, key=key, pure=False,
                                    workers=sorted(self.good) if self.refused else None,
                                    allow_other_workers=False, retries=0)
        self.tasks[key] = _Task(key, {index: (index, job) for index, job in batch}, future,
                                order=[index for index, _ in batch])
        return True

    # -------------------------------------------------------------- results
    def _arrive(self, event: tuple[float, list[Any]]) -> None:
        """A task's message (called on the client's event loop, in the order the scheduler passed them on)."""
        self.inbox.append(event[1])
        self.arrived.set()

    def _messages(self, wait: float) -> list[list[Any]]:
        """What the tasks sent since the last look; waits up to ``wait`` seconds for the first of it."""
        if not self.inbox:
            self.arrived.wait(wait)
        self.arrived.clear()
        items = []
        while self.inbox:
            items.append(self.inbox.popleft())
        return items

    def _receive(self, wait: float = 0.2) -> Iterator[Done | Voided | WorkerLost]:
        for kind, key, index, payload, error, worker, pid in self._messages(wait):
            task = self.tasks.get(key)
            if kind == "refused":
                if worker not in self.refused:
                    self.refused.add(worker)
                    self.good.pop(worker, None)
                    self.say(f"Dask worker {worker} refused: {payload}")
                continue
            if task is not None and task.worker is not None and worker != task.worker:
                # the scheduler ran the task again elsewhere: its first worker is gone
                del self.tasks[key]
                self.client.cancel([task.future])
                yield from self._bury(task, f"Dask worker {task.worker} lost")
                task = None
            if task is not None:
                task.worker, task.pid = worker, pid
            if kind == "begin":  # its first match is in play (or about to be)
                if task is not None:
                    task.playing = self._next(task)
                continue
            if task is not None:
                task.held.pop(index, None)
                task.playing = self._next(task)
            if index in self.yielded:
                continue  # played twice (a task run again): handed on once
            self.yielded.add(index)
            yield Done(index, pickle.loads(payload), error)

    def _next(self, task: _Task) -> int | None:
        """The match a task plays next (or now): the first of its batch not come back, in playing order."""
        return next((i for i in task.order if i in task.held and i not in self.yielded), None)

    def _finished(self) -> Iterator[Done | Voided | WorkerLost]:
        done = [t for t in self.tasks.values() if t.future.done()]
        if not done:
            return
        self._connected()  # else they ended because the connection did: the client cancels every future then
        yield from self._receive(wait=0)  # what a finished task sent came before its end, on the same streams
        for task in done:
            del self.tasks[task.key]
            if task.future.status == "error":
                exc = task.future.exception()
                if type(exc).__name__ == "KilledWorker":  # the scheduler gave up on it after its worker(s) died
                    if task.worker is not None:
                        yield from self._bury(task, f"Dask worker {task.worker} died")
                    else:  # it never began: the death that killed it was another task's
                        self.again.appendleft([task.held[i] for i in task.order if i in task.held])
                    continue
                for index in list(task.held):  # an arena failure outside any match: those matches fail
                    if index not in self.yielded:
                        self.yielded.add(index)
                        yield Done(index, None, f"Dask task failed: {exc!r}")
                continue
            rest = [task.held[i] for i in task.order if i in task.held and i not in self.yielded]
            if task.future.status == "cancelled":
                # not by us (we forget a task before cancelling it): the scheduler dropped it because every copy
                # of an archive it needs was lost with the workers that held them; send them again
                for _, job in rest:
                    for spec in job.bots:
                        self.scattered.pop(self.packer.digest(spec) or "", None)
                if task.worker is not None:  # it had begun: its worker died with the last copy
                    yield from self._bury(task, f"Dask worker {task.worker} lost")
                elif rest:
                    self.again.appendleft(rest)
            elif rest:  # refused by its worker, or stopped: played elsewhere
                self.again.append(rest)

    def _look(self, force: bool = False) -> Iterator[WorkerLost | Voided]:
        self._connected()
        now = time.monotonic()
        if not force and now - self.last_look < WORKER_POLL:
            return
        self.last_look = now
        info = self.client.scheduler_info(n_workers=-1) if _takes_n_workers(self.client) else \
            self.client.scheduler_info()
        # a client that lost the scheduler while asking answers from what it last knew, or from nothing once it
        # has given up (no "workers" at all): that is the scheduler's end, not the workers'
        self._connected()
        if "workers" not in info:
            raise PoolFailure(f"lost the Dask scheduler at {self.address} (it did not say who works for it)")
        present = {addr: int(w.get("nthreads", 1)) for addr, w in info.get("workers", {}).items()}
        new = [a for a in present if a not in self.good and a not in self.refused]
        if new:
            found = self.client.run(_check, self.sandbox, workers=new, on_error="return")
            for addr in new:
                why = found.get(addr)
                if isinstance(why, BaseException):
                    why = f"could not be asked ({why})"
                if why is None:
                    self.good[addr] = present[addr]
                    self.empty_said = False
                else:
                    self.refused.add(addr)
                    self.say(f"Dask worker {addr} refused: {why}")
        if new and self.refused:  # tasks not started yet were kept to the workers known then: open them up
            for task in [t for t in self.tasks.values() if t.worker is None]:
                del self.tasks[task.key]
                self.client.cancel([task.future])
                self.again.appendleft([task.held[i] for i in task.order if i in task.held])
        for addr in [a for a in self.good if a not in present]:
            del self.good[addr]
            for task in [t for t in self.tasks.values() if t.worker == addr]:
                del self.tasks[task.key]
                self.client.cancel([task.future])
                yield from self._bury(task, f"Dask worker {addr} lost")
        if not self.good and not self.empty_said and not force:
            self.empty_said = True
            self.say(f"no Dask worker at {self.address} can play now: waiting for one to join (Ctrl-C stops the run)")

    def _bury(self, task: _Task, cause: str) -> Iterator[WorkerLost | Voided]:
        """What a lost worker held goes back as the ledger says (the match in play alone, or voided)."""
        pending = [task.held[i] for i in task.order if i in task.held and i not in self.yielded]
        results = self.ledger.died(task.pid, cause, pending, task.playing)
        self.yielded.update(r.index for r in results if isinstance(r, Voided))  # never handed on again
        yield from results


def _takes_n_workers(client: Any) -> bool:
    import inspect

    return "n_workers" in inspect.signature(client.scheduler_info).parameters


def _forgetter(topic: str) -> Callable[..., None]:
    """A function for the scheduler that drops a finished run's topic: its messages in the event log and the
    driver's subscription (best effort: the log keeps at most ``distributed.admin.low-level-log-length``
    messages per topic anyway, and a task still running after a Ctrl-C may add a few). Made here, so that
    it travels by value: the scheduler's machine need not have the arena installed."""

    def forget(dask_scheduler: Any = None) -> None:
        try:
            dask_scheduler._broker._topics.pop(topic, None)
        except AttributeError:
            pass

    return forget
