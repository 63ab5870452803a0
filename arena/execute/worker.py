"""One local worker process: plays the batches the driver hands it and says when each match starts and ends.

Every worker has two pipes of its own, one for batches in and one for messages out, so
the driver always knows which batch a worker holds and which of its matches was in
play when it died. A worker killed in the middle of a write can garble only its own
pipe; a queue shared by all workers would be left garbled or locked for the others.
Messages are written synchronously: once ``send`` returns they are in the kernel's
pipe buffer, and the driver reads them even after the worker is gone.

Workers ignore SIGINT (the driver decides what a Ctrl-C means), turn SIGTERM into an
orderly exit (so a stopped run still kills every bot process it started) and die with
the driver.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import traceback
from multiprocessing.connection import Connection
from multiprocessing.context import ForkContext
from types import FrameType
from typing import Generator

from ..match.runner import MatchJob
from ..sandbox.reaper import die_with_parent
from .results import Batch, Done, Play, Started


def play_messages(batch: Batch, play: Play) -> Generator[Started | Done, None, None]:
    """Play a batch: before each match a :class:`Started`, after it a :class:`Done`.

    An arena failure in one match is reported for that match; the rest of the batch
    goes on with fresh processes.
    """
    pending = list(batch)
    while pending:
        outcomes = play([job for _, job in pending])
        try:
            while pending:
                yield Started(pending[0][0])
                outcome = next(outcomes)
                yield Done(pending.pop(0)[0], outcome)
        except Exception:  # an arena bug must not take the tournament down with it
            yield Done(pending.pop(0)[0], None, traceback.format_exc())
        finally:
            outcomes.close()


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(128 + signum)


def _quiet(unraisable: "sys.UnraisableHookArgs") -> None:
    """A SIGTERM that lands in a finalizer (``Popen.__del__``) raises SystemExit where Python can only
    print it, as a traceback on the user's Ctrl-C: say nothing, the driver sends SIGTERM again to a
    worker that lingers (then SIGKILL). Anything else is reported as Python would."""
    if isinstance(unraisable.exc_value, SystemExit):
        return
    sys.__unraisablehook__(unraisable)


def _serve(parent: int, jobs: Connection, messages: Connection, play: Play, drivers: tuple[Connection, ...]) -> None:
    """The worker's life: batches in until None (or the driver is gone), messages out."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _terminate)
    sys.unraisablehook = _quiet
    die_with_parent(signal.SIGTERM)  # a driver killed with SIGKILL takes its workers (and their bots) along
    for end in drivers:  # the driver's ends, inherited by the fork: only the driver may hold them
        end.close()
    if os.getppid() != parent:
        return
    try:
        while (batch := jobs.recv()) is not None:
            with contextlib.closing(play_messages(batch, play)) as played:  # closing kills the batch's bots
                for message in played:
                    messages.send(message)
    except (EOFError, OSError):  # the driver is gone or stopped listening: nobody to report to
        pass
    finally:
        close = getattr(play, "close", None)  # a play that keeps processes between batches (local.SparePlay)
        if close is not None:
            close()


class Worker:
    """A worker process as the driver sees it: its pipes and the matches it holds."""

    def __init__(self, ctx: ForkContext, play: Play) -> None:
        jobs_out, jobs_in = ctx.Pipe(duplex=False)
        messages_out, messages_in = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=_serve, args=(os.getpid(), jobs_out, messages_in, play,
                                                        (jobs_in, messages_out)), daemon=True)
        try:
            self.process.start()
        finally:  # the worker holds these ends alone, so its death reads as EOF here and EPIPE there
            jobs_out.close()
            messages_in.close()
        self.jobs = jobs_in
        self.messages = messages_out
        self.held: list[tuple[int, MatchJob]] = []
        """Matches of the batch in hand whose result has not come back, in playing order."""
        self.playing: int | None = None
        """Index of the match announced by :class:`Started` and not finished, if any."""
        self.dead = False
        """True once the process is known to be gone (every message it sent has been read)."""
        self.stopping = False
        """True once it was asked to finish."""

    @property
    def pid(self) -> int:
        return self.process.pid or 0

    @property
    def busy(self) -> bool:
        return bool(self.held)

    def give(self, batch: Batch) -> None:
        """Hand over a batch (the worker must hold none); a worker found dead keeps it for the caller to replay."""
        self.held = list(batch)
        self.playing = None
        try:
            self.jobs.send(self.held)
        except OSError:  # EPIPE: it died before reading
            self.dead = True

    def receive(self) -> list[Done]:
        """Results that arrived; marks the worker dead (all it wrote read) when it is gone."""
        gone = self.dead or not self.process.is_alive()  # before reading: whatever it wrote is in the pipe now
        results = []
        try:
            while self.messages.poll():
                message = self.messages.recv()
                if isinstance(message, Started):
                    self.playing = message.index
                    continue
                self.held = [pair for pair in self.held if pair[0] != message.index]
                self.playing = None
                results.append(message)
        except (EOFError, OSError):  # closed, or cut off in the middle of a message
            gone = True
        self.dead = gone
        return results

    def cause(self) -> str:
        """How a dead worker ended, e.g. ``SIGKILL`` or ``exit status 1``."""
        self.process.join(timeout=5)
        code = self.process.exitcode
        if code is None:
            return "unknown cause"
        if code < 0:
            try:
                return signal.Signals(-code).name
            except ValueError:
                return f"signal {-code}"
        return f"exit status {code}"

    def stop(self) -> None:
        """Ask an idle worker to finish: it exits once it reads this."""
        self.stopping = True
        try:
            self.jobs.send(None)
        except OSError:
            pass

    def terminate(self) -> None:
        """SIGTERM: the worker kills its bots and exits (sent to all workers first, so they end together)."""
        if self.process.is_alive():
            self.process.terminate()

    def end(self, timeout: float = 10.0) -> None:
        """Wait for the process to go (SIGTERM, then SIGKILL if it lingers) and close the pipes."""
        self.process.join(timeout=timeout if self.stopping or not self.process.is_alive() else 0)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(timeout=timeout)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(timeout=timeout)
        self.jobs.close()
        self.messages.close()
