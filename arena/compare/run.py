"""The comparison as the command runs it: pairs in, the test updated, progress and the verdict out.

Kept apart from the click glue so that it can be driven with a fake ``play`` in tests, and apart
from :mod:`.sprt` (no playing there) and :mod:`.play` (no statistics there).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..execute import WorkerLost
from ..execute.results import Play
from .play import Pair, Setup, pairs
from .sprt import BETTER, NO_DIFFERENCE, WORSE, Plan, Sequential, Tally, Verdict

__all__ = ["EXIT_CODES", "Comparison", "UNDECIDED_EXIT", "compare", "effect_text", "verdict_line"]

EXIT_CODES = {BETTER: 0, WORSE: 3, NO_DIFFERENCE: 4}
"""The exit status of each verdict (1 and 2 stay the errors of every command)."""
UNDECIDED_EXIT = 5
"""The exit status when ``--max-matches`` came first."""
PROGRESS_DEALS = 8
"""A progress line every this many deals."""


@dataclass
class Comparison:
    """Where a comparison stands: the test, and what did not count."""

    test: Sequential
    played: int = 0
    """Matches played, those beyond the deciding deal included."""
    dropped: list[str] = field(default_factory=list)
    """Why each dropped deal does not count."""
    forfeits: list[int] = field(default_factory=lambda: [0, 0])
    """Matches in which NEW, and OLD, were forfeited (each then placed last)."""

    @property
    def verdict(self) -> Verdict | None:
        return self.test.verdict

    @property
    def used(self) -> int:
        """Matches the verdict rests on: two per counted deal."""
        return 2 * self.test.deals


def compare(setup: Setup, plan: Plan, max_deals: int, workers: int, say: Callable[[str], None],
            play: Play | None = None) -> Comparison:
    """Play deals in order until the test gives a verdict or ``max_deals`` deals have been played;
    ``say`` gets the progress lines. A KeyboardInterrupt stops the workers and propagates, with the
    comparison so far in its ``comparison`` attribute."""
    done = Comparison(Sequential(plan))
    source = pairs(setup, max_deals, workers, play)
    try:
        for item in source:
            if isinstance(item, WorkerLost):
                where = f"while playing {item.playing}" if item.playing else "between matches"
                say(f"worker process {item.pid} died ({item.cause}) {where}")
                continue
            _count(done, item)
            if done.verdict is not None:
                break
            if item.deal % PROGRESS_DEALS == PROGRESS_DEALS - 1:
                say(progress_line(done))
    except KeyboardInterrupt as exc:
        exc.comparison = done  # type: ignore[attr-defined]
        raise
    finally:
        source.close()
    return done


def _count(done: Comparison, pair: Pair) -> None:
    done.played += 2
    if pair.dropped:
        done.dropped.append(f"deal {pair.deal}: {pair.dropped}")
        return
    for side, lost in enumerate(pair.forfeits()):
        done.forfeits[side] += lost
    done.test.add(pair.place_diff, pair.points_diff)


def _gain(tally: Tally, digits: int) -> str:
    """A tally of NEW minus OLD (lower is better in Cabo) as OLD minus NEW, the gain: positive is better."""
    low, high = tally.interval()
    return f"{-tally.mean + 0.0:+.{digits}f} [{-high + 0.0:+.{digits}f}, {-low + 0.0:+.{digits}f}]"


def effect_text(test: Sequential) -> str:
    """The effect per match with its 95% interval, as the ladder's paired line says it: what NEW gains over OLD
    (OLD minus NEW; positive: NEW better), in places, then in points."""
    return (f"NEW gains {_gain(test.places, 3)} places and {_gain(test.points, 1)} points per match "
            "(OLD minus NEW, 95% intervals; positive: NEW better)")


def progress_line(done: Comparison) -> str:
    better, worse = done.test.ratios()
    above, below = done.test.within()
    plan = done.test.plan
    return (f"  {done.test.deals} deals: {effect_text(done.test)}; evidence (log-likelihood ratio) that NEW is "
            f"better {better:+.2f}, worse {worse:+.2f}, of the {plan.upper:.2f} that gives that verdict; that they "
            f"are within the margin {min(above, below):+.2f}, of the {plan.lower:.2f} that says no difference")


def verdict_line(done: Comparison) -> str:
    """The last line: the verdict (or why there is none), the effect, and the matches it rests on."""
    test = done.test
    verdict = done.verdict
    if verdict is NO_DIFFERENCE:
        head = f"no difference at margin {test.plan.margin:g}"
    elif verdict is not None:
        head = verdict.value
    else:
        better, worse = test.ratios()
        lean = "better" if better > worse else "worse"
        head = (f"undecided (leaning {lean}: evidence {max(better, worse):+.2f} of the {test.plan.upper:.2f} a "
                f"verdict needs)" if test.deals else "undecided")
    return f"{head}: {effect_text(test)}; {done.used} matches used ({test.deals} deals)"
