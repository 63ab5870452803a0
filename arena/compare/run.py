"""The comparison as the command runs it: pairs in, the test updated, progress and the verdict out.

Kept apart from the click glue so that it can be driven with a fake ``play`` in tests, and apart
from :mod:`.stats` (the question, no playing) and :mod:`.play` (no statistics there).

Every line says a sign in words (NEW ``scores 3.1 fewer`` points, ``finishes 0.20 places ahead``),
never as a bare ``+`` or ``-`` that could be read from either side, and the interval of the tested
currency is read with the test's own variance (:meth:`arena.evidence.sequential.Sprt.interval`), so
that at the default error rates it always agrees with the verdict beside it: after ``better`` its
lower end is above 0, after ``not better`` its upper end is below the margin.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from ..evidence.sequential import Answer, Running, Sprt
from ..execute import WorkerLost
from ..execute.results import Play
from .play import Pair, Setup, pairs
from .stats import CORRECTED, FORFEIT_POINTS, PLACES, POINTS, VERDICTS, Currency, currency_of, number

__all__ = ["EXIT_CODES", "Comparison", "PROGRESS_DEALS", "UNDECIDED_EXIT", "WIDTH", "beside_line", "compare",
           "forfeit_points", "progress_line", "verdict_line"]

EXIT_CODES = {Answer.H1: 0, Answer.H0: 4}
"""The exit status of each verdict: 0 better, 4 not better (1 and 2 stay the errors of every command)."""
UNDECIDED_EXIT = 5
"""The exit status when ``--max-matches`` came first."""
PROGRESS_DEALS = 8
"""A progress line every this many deals."""
WIDTH = 100
"""The most characters a progress line has."""


@dataclass
class Comparison:
    """Where a comparison stands: the test, the gains it reports, and what did not count."""

    test: Sprt
    luck: bool = True
    """The test is of luck-corrected points (else of places)."""
    places: Running = field(default_factory=Running)
    points: Running = field(default_factory=Running)
    corrected: Running = field(default_factory=Running)
    """OLD minus NEW per counted deal (positive: NEW did better), as played: places, points, luck-corrected points
    (reported whichever is tested)."""
    played: int = 0
    """Matches played, those beyond the deciding deal included."""
    dropped: list[str] = field(default_factory=list)
    """Why each dropped deal does not count."""
    forfeits: list[int] = field(default_factory=lambda: [0, 0])
    """Matches in which NEW, and OLD, were forfeited."""
    largest: float = 0.0
    """The largest luck-corrected gain either way in a deal without a forfeit."""

    @property
    def verdict(self) -> Answer | None:
        return self.test.answer

    @property
    def used(self) -> int:
        """Matches the verdict rests on: two per counted deal."""
        return 2 * self.test.deals

    @property
    def currency(self) -> Currency:
        return currency_of(self.luck)


def compare(setup: Setup, test: Sprt, max_deals: int, workers: int, say: Callable[[str], None],
            play: Play | None = None, luck: bool = True) -> Comparison:
    """Play deals in order until ``test`` (:func:`.stats.new_test`) answers or ``max_deals`` deals have been played;
    ``say`` gets the progress lines. ``luck``: the test is of luck-corrected points, else of places. A
    KeyboardInterrupt stops the workers and propagates, with the comparison so far in its ``comparison`` attribute."""
    done = Comparison(test, luck)
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
            if item.deal % PROGRESS_DEALS == PROGRESS_DEALS - 1 and done.test.deals:
                say(progress_line(done))
    except KeyboardInterrupt as exc:
        exc.comparison = done  # type: ignore[attr-defined]
        raise
    finally:
        source.close()
    return done


def forfeit_points(done: Comparison) -> float:
    """What a deal one side forfeited counts against that side on points: :data:`.stats.FORFEIT_POINTS`, or the
    largest gain played so far in the comparison when that is more (a crash never counts as less than a deal
    played)."""
    return max(FORFEIT_POINTS, done.largest)


def _count(done: Comparison, pair: Pair) -> None:
    done.played += 2
    if pair.dropped:
        done.dropped.append(f"deal {pair.deal}: {pair.dropped}")
        return
    forfeits = pair.forfeits()
    for side, lost in enumerate(forfeits):
        done.forfeits[side] += lost
    places, points, corrected = -pair.place_diff, -pair.points_diff, -pair.corrected_diff
    done.places.add(places)
    done.points.add(points)
    done.corrected.add(corrected)
    if not done.luck:
        done.test.add(float(places))  # the referee places a forfeited seat below every other
    elif forfeits[0] != forfeits[1]:
        # a forfeited seat is played out by the fallback policy: its points are not its bot's, so the deal counts
        # as a whole match lost by the side that forfeited
        loss = forfeit_points(done)
        done.test.add(-loss if forfeits[0] else loss)
    elif forfeits[0]:
        done.test.add(0.0)
    else:
        done.largest = max(done.largest, abs(corrected))
        done.test.add(corrected)


def _bounds(test: Sprt, of: str = "of ") -> str:
    return f"LLR {test.llr + 0.0:+.2f} {of}[{test.plan.lower:+.2f}, {test.plan.upper:+.2f}]"


def progress_line(done: Comparison) -> str:
    """``  64 deals: NEW 3.1 fewer corrected points a match [0.4, 5.8]; LLR +1.12 of [-2.94, +2.94]``: the tested
    gain with its interval and the log-likelihood ratio between the bounds that end the test, in at most
    :data:`WIDTH` characters (shorter forms when the numbers are long)."""
    test, cur = done.test, done.currency
    low, high = test.interval()
    mean = test.gains.mean
    forms = [f"{test.deals:>4} deals: NEW {cur.amount(mean, low, high, verb=False, name=cur.short)}; {_bounds(test)}",
             f"{test.deals} deals: NEW {cur.amount(mean, low, high, verb=False, name=cur.unit)}; {_bounds(test)}"]
    d = cur.digits
    word, shown = (cur.better, (mean, low, high)) if round(mean, d) >= 0 else (cur.worse, (-mean, -high, -low))
    forms.append(f"{test.deals} deals: {number(shown[0], d)} {word} [{number(shown[1], d)}, {number(shown[2], d)}]; "
                 f"{_bounds(test, of='')}")
    return next((line for line in forms if len(line) <= WIDTH), forms[-1][:WIDTH])


def beside_line(done: Comparison) -> str:
    """What was not tested, reported beside the test (an estimate, not a verdict): plain points and places, or with
    ``--luck off`` points and luck-corrected points."""
    shown = (POINTS, PLACES) if done.luck else (POINTS, CORRECTED)
    parts = []
    for cur in shown:
        tally = {"points": done.points, "places": done.places}.get(cur.name, done.corrected)
        parts.append(cur.amount(tally.mean, *tally.interval(), verb=False))
    return f"{'plain' if done.luck else 'untested'}: NEW {', '.join(parts)} (95%, not tested)"


def verdict_line(done: Comparison) -> str:
    """The last line, read at a glance: the verdict, the tested gain with its 95% interval, the log-likelihood ratio
    with its bounds, margin and error rates, and the matches it rests on."""
    test, cur, plan = done.test, done.currency, done.test.plan
    verdict = done.verdict
    head = VERDICTS[verdict] if verdict is not None else "undecided"
    if not test.deals:
        return f"{head}: no deal counted; {done.played} matches played"
    low, high = test.interval()
    line = (f"{head}: NEW {cur.amount(test.gains.mean, low, high)} (95%); {_bounds(test)}, margin "
            f"{plan.margin:g} {cur.unit}, alpha {plan.alpha:g}, beta {plan.beta:g}; {done.used} matches "
            f"({test.deals} deals)")
    if (verdict is Answer.H1 and low <= 0) or (verdict is Answer.H0 and high >= plan.margin):
        line += ("; the interval is read once, at the stop, and at error rates this loose the test can stop where "
                 "it disagrees")
    return line
