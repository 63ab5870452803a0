"""How sure a ranking is by the rating model: a 95% interval for each rank, and the posterior chance one bot is ahead.

The boards show the rank intervals. Their ``P(>next)`` and tiers, and ``--until settled``, come from
the pairs' deals instead (:mod:`.evidence`), judged so that they hold however often they are looked
at; :func:`p_ahead` and :func:`settled` here are the posterior's figure for one look, which the
benches still measure as the rule ``--until settled`` used before (it stopped "settled" on identical
bots in most runs when asked after every cycle).

Both are read from the rating model's posteriors: every model (:mod:`.rating.model`) keeps, for every
bot, a normal belief about its skill (mean mu, spread sigma) given every match it played. The chance that A's skill is
above B's is then exact for two independent normals, and a rank interval follows from drawing
every bot's skill from its belief many times and ranking each draw.

Why the posteriors and not a bootstrap over matches: the posteriors are what the board already
ranks by, they need no second pass over the matches (a running ladder's board is rewritten every
few seconds from its kept ratings, without reading the matches), and a bootstrap over matches of a rating that
depends on match order (both models are online updates) measures the spread of the update, not of
the skill. Whether the posteriors are honest about their spread is an empirical question, so it is
measured: ``bench/calibration.py`` plays bots of known strength and counts how often the 95% rank
interval holds the true rank (docs/tournaments.md, "How sure is this ranking", gives the figure).

Everything here is deterministic: the draws come from a fixed seed, the bots are drawn in name
order, so the same ratings (the same store) always give the same intervals.
"""

from __future__ import annotations

import math
import random
from statistics import NormalDist
from typing import Callable, Mapping, Sequence

from .rating import Rating, exposure, p_ahead

SAMPLES = 4000
"""Draws of the whole field behind each rank interval. An interval end is the rank at which the
estimated tail mass crosses 2.5%; with 4000 draws that estimate has a standard error of
sqrt(0.025 * 0.975 / 4000) = 0.25 percentage points, so an end can only differ from the exact one
when a rank's tail mass lies within about half a point of 2.5%: rare, and then either answer is
fair. More draws cost time on every board refresh and buy nothing a reader could see."""
DRAW_BUDGET = 200_000
"""Skills drawn at most per board (draws times players), so that a large ladder's board still takes a
fraction of a second to make in pure Python (a ladder rewrites its board every few seconds while it
runs): up to 50 ranked players get :data:`SAMPLES` draws, more get fewer."""
MIN_SAMPLES = 200
"""The fewest draws however large the field: the 2.5% tail is then 5 draws, so a very large ladder's interval
ends may be a rank off the exact ones (still the same on every run)."""

SEED = 22
"""Seed of the draws: the same ratings give the same intervals, run after run."""
LEVEL = 0.95
"""Coverage of the rank intervals."""
WIDEN = 0.75
"""Every sigma is scaled by this for the boards' intervals: TrueSkill's posteriors are wider than the truth needs.
Measured (``bench/calibration.py --matches 8,20,60``, 20 seeds, both rule sets, 720 cases): at 1 the intervals held the
true rank in 100% of cases, 4.5, 3.15 and 2.1 ranks wide of 6 after 8, 20 and 60 matches (standard); at 0.75 in
99.4%, 4.1, 2.6 and 1.8 wide, never below 96.7% at any count; at 0.6 in 98.9%, but 95.8% after 20 matches, too near
the 93% an honest interval must keep."""
TINY = 1e-300
"""Drawn instead of a uniform 0.0, whose normal inverse is minus infinity."""


def samples_for(players: int) -> int:
    """Draws for a field of ``players``: :data:`SAMPLES` within :data:`DRAW_BUDGET`, never below
    :data:`MIN_SAMPLES`."""
    return max(MIN_SAMPLES, min(SAMPLES, DRAW_BUDGET // max(players, 1)))


def board_order(ratings: Mapping[str, Rating]) -> list[str]:
    """The players in the order a board ranks them: mu - 3 sigma descending, then name
    (as :func:`.leaderboard.ranking` orders ranked players)."""
    return sorted(ratings, key=lambda name: (-exposure(ratings[name]), name))


def ahead_of_next(ratings: Mapping[str, Rating],
                  order: Sequence[str] | None = None) -> dict[str, float | None]:
    """For each player in ``order`` (default :func:`board_order`), :func:`p_ahead` of it against the next
    one; None for the last."""
    names = list(order) if order is not None else board_order(ratings)
    out: dict[str, float | None] = {}
    for here, below in zip(names, names[1:] + [None]):
        out[here] = None if below is None else p_ahead(ratings[here], ratings[below])
    return out


def settled(ratings: Mapping[str, Rating], p: float,
            order: Sequence[str] | None = None) -> bool:
    """True when every adjacent pair of the ranked order (``order``, default :func:`board_order`) is
    ordered with posterior probability at least ``p``. A field of fewer than two is settled. A test for one
    look: the rule ``--until settled`` used before :mod:`.evidence`, kept for the benches that measure it."""
    return all(value is None or value >= p for value in ahead_of_next(ratings, order).values())


def rank_intervals(ratings: Mapping[str, Rating], level: float = LEVEL, samples: int | None = None,
                   seed: int = SEED, widen: float = WIDEN) -> dict[str, tuple[int, int]]:
    """A ``level`` interval (lowest, highest rank; 1 is best) for each player's rank among ``ratings``.

    Each draw takes every player's skill from N(mu, (widen * sigma)^2) and ranks the draw (ties,
    which have probability zero, by name); a player's interval runs from its best to its worst
    rank once the best and the worst (1 - level) / 2 of its draws are left out. ``widen`` scales
    every sigma: 1 is the posterior itself, as the boards use it; the calibration bench tries
    others. ``samples``: draws (default :func:`samples_for` the field)."""
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    samples = samples_for(len(ratings)) if samples is None else samples
    if samples < 1:
        raise ValueError(f"samples must be at least 1, got {samples!r}")
    names = sorted(ratings)
    if not names:
        return {}
    if len(names) == 1:
        return {names[0]: (1, 1)}
    uniform = random.Random(seed).random
    # A skill drawn through the inverse of its normal CDF: normal draws as random.gauss makes them, about
    # four times faster (the inverse is C code), which a board of a thousand players notices.
    skill = [_inverse(float(ratings[n].mu), widen * float(ratings[n].sigma)) for n in names]
    ranks: list[list[int]] = [[] for _ in names]  # each player's rank (1 is best) in each draw
    players = range(len(names))
    for _ in range(samples):
        draw = [-inverse(uniform() or TINY) for inverse in skill]
        for rank, player in enumerate(sorted(players, key=draw.__getitem__), start=1):  # stable: ties by name
            ranks[player].append(rank)
    tail = math.floor((1.0 - level) / 2.0 * samples)  # draws each end may leave out
    out = {}
    for name, drawn in zip(names, ranks):
        drawn.sort()
        out[name] = (drawn[tail], drawn[samples - 1 - tail])
    return out


def reconciled_intervals(intervals: Mapping[str, tuple[int, int]], shown: Sequence[str],
                         tier: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    """The rating model's ``intervals`` made to agree with the board: each holds the rank its row is shown at
    (the board may move a row the deals show ahead), and every row of a tier holds all of its tier's ranks
    (a tier does not order its rows), so two rows of one tier always have overlapping intervals."""
    spans: dict[int, tuple[int, int]] = {}
    for rank, name in enumerate(shown, start=1):
        low, high = spans.get(tier.get(name, rank), (rank, rank))
        spans[tier.get(name, rank)] = (min(low, rank), max(high, rank))
    out = {}
    for rank, name in enumerate(shown, start=1):
        low, high = intervals.get(name, (rank, rank))
        first, last = spans[tier.get(name, rank)]
        out[name] = (min(low, rank, first), max(high, rank, last))
    return out


def _inverse(mu: float, sigma: float) -> Callable[[float], float]:
    """The inverse CDF of N(mu, sigma^2), which draws a skill from a uniform; a belief with no spread left (a model
    may give sigma 0, as :func:`.rating.p_ahead` allows) always draws mu, where ``NormalDist`` refuses it."""
    if sigma == 0:
        return lambda uniform: mu
    return NormalDist(mu, sigma).inv_cdf


def interval_text(interval: tuple[int, int] | None) -> str:
    """A rank interval as a board shows it: ``2-4``, ``1-1`` when it is sure of one rank, ``-`` for none."""
    if interval is None:
        return "-"
    return f"{interval[0]}-{interval[1]}"
