"""Progress of a running tournament: a live line on a terminal, plain lines otherwise.

Its ratings cover every match stored so far. Ratings are folded in schedule order, and
a match stored ahead of an earlier one still in play waits for it; the line adds such
matches in the order they came and says so in plain words (``top, counting N matches that
finished before earlier ones (exact once those are in)``), rather than show ratings that
stand still while the stored count grows.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """Counts finished matches and reports rate, ETA and the current top 3.

    ``total`` None is a schedule without an end: the line then shows the count and rate only.
    """

    def __init__(self, total: int | None, already: int, stream: TextIO | None = None, interval: float = 10.0) -> None:
        self.total = total
        self.done = already
        self.fresh = 0
        self.stream = stream or sys.stderr
        self.live = self.stream.isatty()
        self.interval = interval
        self.started = time.monotonic()
        self.last_print = 0.0
        self.step = max(1, total // 20) if total is not None else None

    def update(self, top: list[tuple[str, float]], ahead: int = 0) -> None:
        """One more match finished; ``top`` is the current leaders with their exposure over every
        match stored, ``ahead`` of them rated out of schedule order (:meth:`.RatingFold.top`)."""
        self.done += 1
        self.fresh += 1
        now = time.monotonic()
        if self.live:
            if now - self.last_print >= 0.1 or self.done == self.total:
                self.stream.write("\r\x1b[2K" + self.line(top, now, ahead))
                self.stream.flush()
                self.last_print = now
        elif (self.done == self.total or (self.step is not None and self.fresh % self.step == 0)
              or now - self.last_print >= self.interval):
            self.stream.write(self.line(top, now, ahead) + "\n")
            self.stream.flush()
            self.last_print = now

    def line(self, top: list[tuple[str, float]], now: float, ahead: int = 0) -> str:
        elapsed = max(now - self.started, 1e-9)
        rate = self.fresh / elapsed
        leaders = ", ".join(f"{name} {value:.1f}" for name, value in top[:3])
        label = (f"top, counting {ahead} match{'es' if ahead != 1 else ''} that finished before earlier ones "
                 "(exact once those are in)") if ahead else "top"
        if self.total is None:
            return f"[{self.done}] {rate:.2f} matches/s  {label}: {leaders or '-'}"
        left = self.total - self.done
        eta = _clock(left / rate) if rate > 0 else "?"
        width = len(str(self.total))
        return (f"[{self.done:>{width}}/{self.total}] {100 * self.done / max(self.total, 1):5.1f}%  "
                f"{rate:.2f} matches/s  ETA {eta}  {label}: {leaders or '-'}")

    def close(self) -> None:
        if self.live:
            self.stream.write("\n")
            self.stream.flush()


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"
