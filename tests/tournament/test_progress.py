"""The progress line: what its ratings cover when matches are stored out of schedule order."""

from __future__ import annotations

import io
import re

from arena.tournament.progress import Progress
from arena.tournament.rating import RatingFold, RatingParams, exposure, rate
from arena.tournament.records import MatchRecord

BOTS = ["ann", "bob", "cid"]


def record(index: int, bots: tuple[str, ...], places: tuple[int, ...]) -> MatchRecord:
    return MatchRecord(index=index, match_id=f"m{index}", bots=bots, places=places,
                       totals=tuple(10 * p for p in places), forfeited=(False,) * len(bots), faults=())


# Match 0 (ann beats bob) is still in play while 1-5, where cid beats everyone, are stored.
EARLY = record(0, ("ann", "bob"), (1, 2))
LATER = [record(i, ("cid", "ann" if i % 2 else "bob"), (1, 2)) for i in range(1, 6)]


def shown(progress: Progress, fold: RatingFold) -> str:
    """The line the driver prints after a match is stored (a plain stream: one line per update)."""
    progress.update(fold.top(provisional=True), fold.ahead)
    return progress.stream.getvalue().splitlines()[-1]  # type: ignore[attr-defined]


def leaders(line: str) -> list[tuple[str, float]]:
    return [(name, float(value)) for name, value in re.findall(r"(\w+) (-?[0-9.]+)(?:,|$)", line.split(": ", 1)[1])]


def test_matches_stored_ahead_of_one_in_play_move_the_line_and_it_says_they_are_provisional() -> None:
    fold = RatingFold(RatingParams(), BOTS, expected=range(6))
    progress = Progress(6, 0, io.StringIO(), interval=0)
    lines = []
    for later in LATER:
        fold.add(later)
        lines.append(shown(progress, fold))
    assert fold.ahead == 5 and len({value for _, value in fold.top()}) == 1  # the exact ones: none rated yet
    # The exact ratings wait for match 0; the line shows the five stored matches, and says how.
    assert [f"  top, counting {i} match{'es' if i > 1 else ''} that finished before earlier ones (exact once those "
            "are in): " in line for i, line in enumerate(lines, 1)] == [True] * 5
    assert leaders(lines[-1])[0][0] == "cid"
    assert len({line.split(": ", 1)[1] for line in lines}) == 5  # it moves with every match, never frozen
    provisional = rate(LATER, RatingParams(), BOTS)  # the five stored ones, in the order they came
    assert leaders(lines[-1]) == [(n, round(exposure(provisional[n]), 1)) for n, _ in leaders(lines[-1])]


def test_once_the_early_match_is_in_the_line_shows_the_exact_schedule_order_ratings() -> None:
    fold = RatingFold(RatingParams(), BOTS, expected=range(6))
    progress = Progress(6, 0, io.StringIO(), interval=0)
    for later in LATER:
        fold.add(later)
        shown(progress, fold)
    fold.add(EARLY)
    line = shown(progress, fold)
    assert fold.ahead == 0 and "counting" not in line and "  top: " in line
    exact = rate([EARLY, *LATER], RatingParams(), BOTS)
    assert leaders(line) == [(n, round(exposure(exact[n]), 1)) for n, _ in sorted(
        exact.items(), key=lambda item: -exposure(item[1]))]


def test_in_order_the_line_is_exact_from_the_first_match() -> None:
    fold = RatingFold(RatingParams(), BOTS, expected=range(6))
    progress = Progress(6, 0, io.StringIO(), interval=0)
    fold.add(EARLY)
    line = shown(progress, fold)
    assert "counting" not in line and leaders(line)[0][0] == "ann"


def test_a_voided_early_match_ends_the_provisional_numbers() -> None:
    fold = RatingFold(RatingParams(), BOTS, expected=range(6))
    for later in LATER[:2]:
        fold.add(later)
    assert fold.ahead == 2
    fold.void(0)
    assert fold.ahead == 0 and fold.top(provisional=True) == fold.top()


def test_a_resumed_run_counts_stored_matches_that_still_wait() -> None:
    fold = RatingFold(RatingParams(), BOTS, records=LATER, expected=[0])  # stored by an earlier run, 0 never
    assert fold.ahead == 5 and fold.top() != fold.top(provisional=True)
    assert fold.top(provisional=True)[0][0] == "cid"
