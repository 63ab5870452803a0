"""The report written by ``arena run``: at the end of every run, and every few minutes while a ladder plays.

A ladder runs for weeks, and its participants look at the report rather than wait for
the run to end. So while the run plays the report is built by a separate process, which the
run never waits for: one that lives as long as the run and builds when told to (at most
every :data:`EVERY` seconds, when its last build has finished). It keeps what ``arena serve``
keeps between builds (the ratings, the decoded rows, the viewer's list), so a rebuild costs
what the matches stored since the last one cost, not what all of them do: a first build of a
ladder of 100,000 matches takes about a minute, a rebuild a second or two.

The tournament driver knows nothing of the site: ``arena run`` hands it :class:`RunReport`
(:class:`arena.tournament.driver.Report`), which the driver tells when a match was stored and
when the run ended.
"""

from __future__ import annotations

import select
import subprocess
import sys
import time
from pathlib import Path
from typing import IO, Callable

from ..tournament.store import StoreMismatch
from .build import REPORT_DIR, ReportError, build_report
from .data import RatingHistory, RowCache

EVERY = 300.0
"""Seconds between two background builds of a running ladder's report."""


def write(results_dir: Path) -> str:
    """Build the report now; one line saying where it is, or why there is none (a run never fails for it)."""
    try:
        out = build_report(results_dir)
    except (ReportError, StoreMismatch, OSError) as exc:
        return f"report: not written ({exc})"
    return f"report: {out / 'index.html'} (arena serve {results_dir} serves it live)"


BUILD = b"build\n"
"""What the run writes to the builder to have the report built; the builder answers :data:`BUILT` when done."""
BUILT = b"built\n"


class Background:
    """Rebuilds ``results_dir``'s report in a child process at most every :data:`EVERY` seconds, one build at a
    time: the same child each time (:func:`builder`), started at the first build."""

    def __init__(self, results_dir: Path, every: float = EVERY) -> None:
        self.results_dir = Path(results_dir)
        self.every = every
        self.started = time.monotonic()
        self.child: subprocess.Popen[bytes] | None = None
        self.building = False
        """A build was asked for and its answer not read yet."""

    def _done(self) -> bool:
        """True if no build is in progress (an answer waiting in the pipe is read now; a child that died is
        forgotten, and a new one started at the next build)."""
        child = self.child
        if child is None:
            return True
        if child.poll() is not None:
            self.child, self.building = None, False
            return True
        if self.building and child.stdout is not None and select.select([child.stdout], [], [], 0)[0]:
            answer = child.stdout.readline()
            self.building = answer != BUILT
            if not answer:  # the pipe closed: the child is ending
                self.child, self.building = None, False
        return not self.building

    def maybe(self) -> None:
        """Start a build if the last one has finished and the interval has passed."""
        if not self._done() or time.monotonic() - self.started < self.every:
            return
        self.started = time.monotonic()
        if self.child is None:
            self.child = subprocess.Popen([sys.executable, "-m", "arena.site.refresh", str(self.results_dir)],
                                          stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                          stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            assert self.child.stdin is not None
            self.child.stdin.write(BUILD)
            self.child.stdin.flush()
            self.building = True
        except (BrokenPipeError, OSError):  # it died meanwhile: a new one next time
            self.child.kill()
            self.child.wait()
            self.child, self.building = None, False

    def close(self, wait: bool = True) -> None:
        """Wait for a build in progress (the final report is built after it, so it is the newest), or
        stop it (``wait`` False: the run was interrupted); the child ends either way."""
        child, self.child, self.building = self.child, None, False
        if child is None:
            return
        try:
            if child.stdin is not None:
                child.stdin.close()  # end of input: the child ends after the build in progress
        except OSError:
            pass
        try:
            child.wait(timeout=600 if wait else 0.01)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
        if child.stdout is not None:
            child.stdout.close()


def builder(results_dir: Path, commands: IO[bytes], answers: IO[bytes]) -> None:
    """The background builder's loop: build the report of ``results_dir`` each time ``commands`` says
    :data:`BUILD`, keeping the ratings, rows and viewer list between builds, and answer :data:`BUILT`; end
    at the end of ``commands`` (the run closed it, or ended). A build that fails is left for the next."""
    ratings, rows = RatingHistory(), RowCache()
    for line in iter(commands.readline, b""):
        if line != BUILD:
            continue
        try:
            build_report(results_dir, ratings=ratings, rows=rows)
        except Exception:  # the report before it stays whole; the next build starts afresh
            ratings, rows = RatingHistory(), RowCache()
        answers.write(BUILT)
        answers.flush()


def final_report(output: Path, interrupted: bool, tell: Callable[[str], None]) -> None:
    """Build the report at the end of every run and say where it is. A Ctrl-C during the build (the
    second one, after a run was interrupted) skips it promptly: the report before it stays whole,
    since a build is swapped in at once (:mod:`.build`)."""
    if interrupted:
        tell("report: rebuilding it from the matches stored (Ctrl-C again skips it)")
    try:
        tell(write(output))
    except KeyboardInterrupt:
        kept = "the one before is kept" if (output / REPORT_DIR / "index.html").is_file() else "there is none yet"
        tell(f"report: not rebuilt, interrupted ({kept}); `arena report {output}` builds it")


class RunReport:
    """The report of one ``arena run`` in ``results_dir``: rebuilt in the background while it plays if
    ``live`` (a ladder), and at the end of every run."""

    def __init__(self, results_dir: Path, live: bool) -> None:
        self.results_dir = Path(results_dir)
        self.background = Background(self.results_dir) if live else None

    def stored(self) -> None:
        """A match was stored: a background build if it is time."""
        if self.background is not None:
            self.background.maybe()

    def close(self, wait: bool) -> None:
        """See :meth:`Background.close`."""
        if self.background is not None:
            self.background.close(wait=wait)

    def final(self, interrupted: bool, tell: Callable[[str], None]) -> None:
        """See :func:`final_report`."""
        final_report(self.results_dir, interrupted, tell)


if __name__ == "__main__":  # the background builder: ``python -m arena.site.refresh RESULTS_DIR``
    try:
        builder(Path(sys.argv[1]), sys.stdin.buffer, sys.stdout.buffer)
    except (KeyboardInterrupt, BrokenPipeError):
        pass
