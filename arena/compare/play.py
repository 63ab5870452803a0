"""Play the paired deals of ``arena compare``: deal ``k`` once with NEW in the seat and once with OLD.

Both matches of a deal have the same deal seed, the same seat for the version under test, the
same opponents in the same seats, and the same match id in ``hello``: the bundled bots (and most
bots) seed their randomness from the match id and seat, so the opponents draw the same random
numbers in both matches and differ only where NEW and OLD make the game differ. The seat turns
over the deals (deal ``k``: seat ``k mod seats``) and the opponents turn over the field, so every
seat and every field bot is met as often as the others. The table's cyclic order goes round its
neighbour-balanced design (:mod:`arena.tournament.schedules.balance`), a step each time the seat
and the field have both been round (``seats x field`` deals), so over ``seats x field x design``
deals the version under test sits directly after each field bot as often as directly before it.

The two matches of a deal are never in one batch: a batch reuses the opponents' processes, and
an opponent that had seen the deal once could play it differently the second time. NEW's
matches of a run of deals form one batch and OLD's matches of the same deals another, played on
the local executor's worker processes like a tournament's (:func:`arena.execute.local.run_jobs`),
so a bot that kills its worker costs its deal, never the comparison.

:func:`pairs` yields the deals strictly in deal order, whatever order the workers finish them
in: the test sees the same sequence, and so reaches the same verdict after the same number of
deals, with one worker or many. Seeds and ids come from the master seed through the same HMACs
as a tournament's (:func:`arena.tournament.schedule.deal_seed`), so a bot cannot recompute a
deal from what it is told.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Generator, Iterator, Sequence

from ..bots import BotConfigError, BotSpec
from ..execute import Done, Voided, WorkerLost
from ..execute.local import run_jobs
from ..execute.results import Batch, Play
from ..game.seam import GameRules
from ..match.link import TimeControl
from ..match.runner import MatchJob, MatchOutcome
from ..sandbox import Limits
from ..tournament.schedules.balance import block_order
from ..match.seeds import deal_seed, opaque_match_id

__all__ = ["ArenaFailure", "CHUNK_DEALS", "DEFAULT_FIELD", "Pair", "Setup", "bundled_field", "deal_jobs", "pairs",
           "table_of"]

DEFAULT_FIELD = ("random", "heuristic", "js-greedy", "c-random")
"""The bundled bots a comparison plays against unless ``--field`` names others: four styles, three languages."""

CHUNK_DEALS = 8
"""Deals per batch: bot processes serve this many matches in a row, and at most this many deals per
worker are played beyond the one that ends the test."""


@dataclass(frozen=True)
class Setup:
    """What every deal of a comparison shares."""

    new: BotSpec
    old: BotSpec
    field: tuple[BotSpec, ...]
    """The opponents, taken in turn (repeated when the table has more seats than the field has bots)."""
    rules: GameRules
    seats: int
    seed: int | str
    """Master seed of the deals and ids."""
    sandbox: str = "none"
    time: TimeControl = dataclasses.field(default_factory=TimeControl)
    limits: Limits = dataclasses.field(default_factory=Limits)

    def __post_init__(self) -> None:
        if not self.field:
            raise ValueError("a comparison needs at least one opponent in its field")
        if self.seats < 2:
            raise ValueError(f"a table of {self.seats} seat(s) has no opponent")


@dataclass(frozen=True)
class Pair:
    """One deal's two matches, or why the deal does not count."""

    deal: int
    seat: int
    """The seat NEW and OLD held."""
    new: MatchOutcome | None
    old: MatchOutcome | None
    dropped: str = ""
    """Why the deal does not count (a match of it was voided); empty when it does."""

    @property
    def place_diff(self) -> int:
        """NEW's place minus OLD's (negative: NEW placed better)."""
        assert self.new is not None and self.old is not None
        return self.new.places[self.seat] - self.old.places[self.seat]

    @property
    def points_diff(self) -> int:
        """NEW's total minus OLD's."""
        assert self.new is not None and self.old is not None
        return self.new.totals[self.seat] - self.old.totals[self.seat]

    @property
    def corrected_diff(self) -> float:
        """NEW's total less its luck, minus OLD's (:mod:`arena.luck`; a match not measured counts no luck)."""
        assert self.new is not None and self.old is not None
        return _corrected(self.new, self.seat) - _corrected(self.old, self.seat)

    def forfeits(self) -> tuple[bool, bool]:
        """Whether NEW, and OLD, were forfeited in their match of this deal."""
        return (self.new is not None and self.new.forfeited[self.seat],
                self.old is not None and self.old.forfeited[self.seat])


def _corrected(outcome: MatchOutcome, seat: int) -> float:
    """A seat's total less what the cards gave it over the expected cards."""
    return outcome.totals[seat] - (outcome.luck[seat] if outcome.luck else 0.0)


class ArenaFailure(RuntimeError):
    """The arena itself failed on a match (never a bot's fault): the comparison cannot go on."""


def bundled_field() -> list[Path]:
    """The directories of :data:`DEFAULT_FIELD` in ``bots/``, looked up from the current directory, then
    beside the package (a checkout or an editable install). An installed arena has no ``bots/``: its
    field is then the random opponent it ships (the one ``arena bot check`` plays against), in every
    seat, which the comparison's first line names."""
    for root in (Path.cwd(), Path(__file__).resolve().parents[2]):
        dirs = [root / "bots" / name for name in DEFAULT_FIELD]
        if all(d.is_dir() for d in dirs):
            return dirs
    shipped = Path(str(resources.files("arena.kits").joinpath("opponent")))
    if (shipped / "bot.yaml").is_file():
        return [shipped]
    names = ", ".join(f"bots/{name}" for name in DEFAULT_FIELD)
    raise BotConfigError(f"the bundled bots of the default field ({names}) were not found: run from the "
                         "repository root or name the opponents with --field BOT")


def table_of(setup: Setup, deal: int) -> tuple[int, tuple[BotSpec, ...]]:
    """The seat under test in ``deal`` and the opponents of the other seats, in seat order: the version under
    test and the opponents drawn for the deal (positions 0 and 1..) seated in the design's order of step
    ``deal // (seats x field)``, turned so that the version sits at seat ``deal mod seats``."""
    n = setup.seats
    seat = deal % n
    count = len(setup.field)
    drawn = [None, *(setup.field[(deal + j) % count] for j in range(n - 1))]
    order = block_order(n, deal // (n * count))
    start = (order.index(0) - seat) % n  # the position that takes seat 0
    around = [drawn[order[(start + k) % n]] for k in range(n)]
    return seat, tuple(spec for spec in around if spec is not None)


def _unique(specs: Sequence[BotSpec]) -> tuple[BotSpec, ...]:
    """The seats' bots with names made unique (``random``, ``random-2``), as ``arena play`` names them."""
    seen: dict[str, int] = {}
    out = []
    for spec in specs:
        seen[spec.name] = seen.get(spec.name, 0) + 1
        out.append(spec if seen[spec.name] == 1 else dataclasses.replace(spec, name=f"{spec.name}-{seen[spec.name]}"))
    return tuple(out)


def deal_jobs(setup: Setup, deal: int) -> tuple[MatchJob, MatchJob]:
    """The two matches of ``deal``: NEW's and OLD's, alike in all but the bot in the seat under test."""
    seat, opponents = table_of(setup, deal)
    seed = deal_seed(setup.seed, f"compare/{deal}")
    wire = opaque_match_id(setup.seed, f"compare/{deal}")
    jobs = []
    for tag, spec in (("new", setup.new), ("old", setup.old)):
        bots = list(opponents)
        bots.insert(seat, spec)
        jobs.append(MatchJob(f"d{deal}/{tag}", setup.rules, seed, _unique(bots), time=setup.time,
                             sandbox=setup.sandbox, limits=setup.limits, wire_id=wire))
    return jobs[0], jobs[1]


def _batches(setup: Setup, deals: int) -> Iterator[Batch]:
    """NEW's matches of a run of deals, then OLD's of the same deals.

    Match index ``2k`` is NEW's match of deal k, ``2k+1`` OLD's."""
    for start in range(0, deals, CHUNK_DEALS):
        chunk = [(deal, deal_jobs(setup, deal)) for deal in range(start, min(start + CHUNK_DEALS, deals))]
        yield [(2 * deal, jobs[0]) for deal, jobs in chunk]
        yield [(2 * deal + 1, jobs[1]) for deal, jobs in chunk]


def pairs(setup: Setup, deals: int, workers: int, play: Play | None = None) -> Generator[Pair | WorkerLost, None, None]:
    """Play up to ``deals`` deals on ``workers`` processes, yielding each deal's :class:`Pair` in deal order.

    A worker's death is passed on as it happens (a :class:`WorkerLost`, for the user). Closing the
    generator stops the workers and the bots they run. Raises :class:`ArenaFailure` when the arena
    fails on a match, and :class:`arena.execute.PoolFailure` when no worker can be kept alive.
    ``play`` replaces :func:`arena.match.runner.play_batch` (tests use fakes).
    """
    outcomes: dict[int, MatchOutcome | None] = {}
    voided: dict[int, str] = {}
    nxt = 0
    results = run_jobs(_batches(setup, deals), workers, play)
    try:
        for result in results:
            if isinstance(result, WorkerLost):
                yield result
                continue
            if isinstance(result, Voided):
                voided[result.index // 2] = f"{result.match_id} was voided: {result.reason}"
                outcomes[result.index] = None
            elif isinstance(result, Done):
                if result.outcome is None:
                    last = result.error.strip().splitlines()[-1:] or ["no detail"]
                    raise ArenaFailure(f"the arena failed on {'NEW' if result.index % 2 == 0 else 'OLD'}'s match of "
                                       f"deal {result.index // 2}: {last[0]}")
                outcomes[result.index] = result.outcome
            while 2 * nxt in outcomes and 2 * nxt + 1 in outcomes:
                seat, _ = table_of(setup, nxt)
                yield Pair(nxt, seat, outcomes.pop(2 * nxt), outcomes.pop(2 * nxt + 1), voided.pop(nxt, ""))
                nxt += 1
    finally:
        results.close()
