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
from .sprt import BETTER, NO_DIFFERENCE, WORSE, Plan, Sequential, Tally, Verdict, points_test

__all__ = ["EXIT_CODES", "Comparison", "UNDECIDED_EXIT", "compare", "effect_text", "new_test", "verdict_line"]

EXIT_CODES = {BETTER: 0, WORSE: 3, NO_DIFFERENCE: 4}
"""The exit status of each verdict (1 and 2 stay the errors of every command)."""
UNDECIDED_EXIT = 5
"""The exit status when ``--max-matches`` came first."""
PROGRESS_DEALS = 8
"""A progress line every this many deals."""


def new_test(plan: Plan, seats: int, luck: bool) -> Sequential:
    """The test a comparison runs: of luck-corrected points (``luck``), or of places."""
    return points_test(plan) if luck else Sequential(plan, seats - 1)


@dataclass
class Comparison:
    """Where a comparison stands: the test, the differences it reports, and what did not count."""

    test: Sequential
    luck: bool = True
    """The test is of luck-corrected points (else of places)."""
    places: Tally = field(default_factory=Tally)
    points: Tally = field(default_factory=Tally)
    corrected: Tally = field(default_factory=Tally)
    """NEW minus OLD per counted deal: places, points, luck-corrected points (reported whichever is tested)."""
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
            play: Play | None = None, luck: bool = True) -> Comparison:
    """Play deals in order until the test gives a verdict or ``max_deals`` deals have been played;
    ``say`` gets the progress lines. ``luck``: test luck-corrected points, else places. A KeyboardInterrupt
    stops the workers and propagates, with the comparison so far in its ``comparison`` attribute."""
    done = Comparison(new_test(plan, setup.seats, luck), luck)
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
    forfeits = pair.forfeits()
    for side, lost in enumerate(forfeits):
        done.forfeits[side] += lost
    done.places.add(pair.place_diff)
    done.points.add(pair.points_diff)
    done.corrected.add(pair.corrected_diff)
    if not done.luck:
        done.test.add(pair.place_diff)
    elif forfeits[0] != forfeits[1]:
        # a forfeited seat is played out by the fallback policy: its points are not its bot's, so the match counts
        # as the worst the test allows for the side that forfeited, as a place test counts it last
        done.test.add(done.test.spread if forfeits[0] else -done.test.spread)
    else:
        done.test.add(0.0 if forfeits[0] else pair.corrected_diff)


def _gain(tally: Tally, digits: int) -> str:
    """A tally of NEW minus OLD (lower is better in Cabo) as OLD minus NEW, the gain: positive is better."""
    low, high = tally.interval()
    return f"{-tally.mean + 0.0:+.{digits}f} [{-high + 0.0:+.{digits}f}, {-low + 0.0:+.{digits}f}]"


def effect_text(done: Comparison) -> str:
    """The effect per match with its 95% interval, as the ladder's paired line says it: what NEW gains over OLD
    (OLD minus NEW; positive: NEW better), in what is tested first."""
    if done.luck:
        return (f"NEW gains {_gain(done.corrected, 1)} luck-corrected points per match (plain points "
                f"{_gain(done.points, 1)}, places {_gain(done.places, 3)}; OLD minus NEW, 95% intervals; "
                "positive: NEW better)")
    return (f"NEW gains {_gain(done.places, 3)} places and {_gain(done.points, 1)} points per match "
            "(OLD minus NEW, 95% intervals; positive: NEW better)")


def progress_line(done: Comparison) -> str:
    better, worse = done.test.ratios()
    above, below = done.test.within()
    plan = done.test.plan
    return (f"  {done.test.deals} deals: {effect_text(done)}; evidence (log-likelihood ratio) that NEW is "
            f"better {better:+.2f}, worse {worse:+.2f}, of the {plan.upper:.2f} that gives that verdict; that they "
            f"are within the margin {min(above, below):+.2f}, of the {plan.lower:.2f} that says no difference")


def verdict_line(done: Comparison) -> str:
    """The last line: the verdict and what it was tested on (or why there is none), the effect, and the matches it
    rests on."""
    test = done.test
    verdict = done.verdict
    if verdict is NO_DIFFERENCE:
        head = f"no difference at margin {test.plan.margin:g} {test.unit}"
    elif verdict is not None:
        head = f"{verdict.value} on {test.unit}"
    else:
        better, worse = test.ratios()
        lean = "better" if better > worse else "worse"
        head = (f"undecided on {test.unit} (leaning {lean}: evidence {max(better, worse):+.2f} of the "
                f"{test.plan.upper:.2f} a verdict needs)" if test.deals else f"undecided on {test.unit}")
    clipped = (f"; {test.clipped} deal(s) beyond the test's bound counted at it" if test.clipped else "")
    return f"{head}: {effect_text(done)}; {done.used} matches used ({test.deals} deals){clipped}"
