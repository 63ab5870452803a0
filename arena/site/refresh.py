"""The report written by ``arena run``: at the end of every run, and every few minutes while a ladder plays.

A ladder runs for weeks, and its participants look at the report rather than wait for
the run to end. Building it takes seconds to minutes (the viewer's frames of each new
match), so while the run plays it is built by a separate ``arena report`` process,
started when the last one has finished, and the run never waits for it.

The tournament driver knows nothing of the site: ``arena run`` hands it :class:`RunReport`
(:class:`arena.tournament.driver.Report`), which the driver tells when a match was stored and
when the run ended.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Callable

from ..tournament.store import StoreMismatch
from .build import REPORT_DIR, ReportError, build_report

EVERY = 300.0
"""Seconds between two background builds of a running ladder's report."""


def write(results_dir: Path) -> str:
    """Build the report now; one line saying where it is, or why there is none (a run never fails for it)."""
    try:
        out = build_report(results_dir)
    except (ReportError, StoreMismatch, OSError) as exc:
        return f"report: not written ({exc})"
    return f"report: {out / 'index.html'} (arena serve {results_dir} serves it live)"


class Background:
    """Rebuilds ``results_dir``'s report in a child process at most every :data:`EVERY` seconds."""

    def __init__(self, results_dir: Path, every: float = EVERY) -> None:
        self.results_dir = Path(results_dir)
        self.every = every
        self.started = time.monotonic()
        self.child: subprocess.Popen[bytes] | None = None

    def maybe(self) -> None:
        """Start a build if the last one has finished and the interval has passed."""
        if self.child is not None and self.child.poll() is None:
            return
        if time.monotonic() - self.started < self.every:
            return
        self.started = time.monotonic()
        self.child = subprocess.Popen([sys.executable, "-m", "arena.cli", "report", str(self.results_dir)],
                                      stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True)

    def close(self, wait: bool = True) -> None:
        """Wait for a build in progress (the final report is built after it, so it is the newest), or
        stop it (``wait`` False: the run was interrupted)."""
        if self.child is None:
            return
        try:
            self.child.wait(timeout=600 if wait else 0.01)
        except subprocess.TimeoutExpired:
            self.child.kill()
            self.child.wait()


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
