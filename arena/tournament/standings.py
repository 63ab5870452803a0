"""The one path from a results store to its standings: what the files, ``arena leaderboard`` and the report show.

Three readers show a tournament's standings: the driver writes the leaderboard files when a
run ends (:func:`..driver.publish`), ``arena leaderboard`` prints them while it runs, and the
report (:mod:`arena.site.data`) draws them. Each used to gather the players, ratings and
statuses on its own, and a change to one (a ladder's entries listed before their first match,
a retired version shown as such) had to be made three times or the three disagreed. Now each
reads a store with :func:`read` and builds the board with :func:`standings`; a ladder's own
board (:func:`ladder_board`) is made from the same :class:`Results`, and ranked by the same
rule (:func:`.leaderboard.ranking`).

Who is listed, by which ratings and with what status is decided here, from the store alone:
the players a run bound it to (``meta``: bots, rating parameters, a ladder's placement) and a
ladder's entries; the driver writes those before it plays.
"""

from __future__ import annotations

from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterator, Mapping

from .evidence import DEFAULT_MARGIN, PairEvidence
from .kinds import reading
from .ladder.board import LadderRow, StoredEvidence, rows as board_rows, stored_evidence
from .ladder.kept import Kept, read as read_kept
from .leaderboard import Leaderboard, Tally, build
from .rating import Rating, RatingParamError, RatingParams, model_of, rate
from .records import MatchRecord, VoidRecord
from .store import LadderStore, ResultStore, StoreMismatch
from .store.ladder import ACTIVE, Entry

BOARD_ERRORS = (ArithmeticError, ValueError)
"""What a board's arithmetic raises on a degenerate input: ``OverflowError``, ``ZeroDivisionError`` and a rating
library's ``FloatingPointError`` are arithmetic errors; a math domain error and ``statistics.StatisticsError``
(a spread of 0) are ``ValueError``. Nothing broader: any other error is a fault of the arena's to be seen."""


class BoardError(StoreMismatch):
    """A board that could not be computed from what a store holds; the message names the store and says why.
    Nothing stored is changed. A :class:`StoreMismatch`, so every command that reports one reports this in one
    line too."""


@contextmanager
def computing_board(where: object) -> Iterator[None]:
    """Turn an arithmetic error of the board computed inside into one :class:`BoardError` naming ``where``."""
    try:
        yield
    except BOARD_ERRORS as exc:
        raise BoardError(f"{where}: the board could not be computed ({type(exc).__name__}: {exc})") from None


@dataclass
class Results:
    """What every board is built from, as one store holds it."""

    params: RatingParams
    """The tournament's rating parameters."""
    names: list[str]
    """Players listed even without a match: a tournament's bots, or every entry of a ladder (``NAME@vK``)."""
    records: list[MatchRecord] = field(default_factory=list)
    """Finished matches in schedule order (empty when read without them)."""
    voided: list[VoidRecord] = field(default_factory=list)
    """Voided matches in schedule order."""
    total: int | None = None
    """Matches in the schedule; None when it is open-ended."""
    ladder: bool = False
    entries: list[Entry] = field(default_factory=list)
    """A ladder's every version, by name then version."""
    left: dict[str, str] = field(default_factory=dict)
    """A ladder's versions out of the field, by player key: ``replaced`` or ``retired``."""
    placement: int = 0
    """A ladder's ``placement_matches``: an active entry with fewer matches is listed, not ranked."""
    kept: Kept | None = None
    """A ladder's ratings kept in the store (read with ``kept``), brought up to every stored match."""
    evidence: StoredEvidence | None = None
    """A ladder's pairs' deal differences and entries' luck over every stored match (read with ``kept``), for
    its own board."""
    margin: float = DEFAULT_MARGIN
    """Places per match within which bots are shown in one tier (``settle: {margin}``, kept in ``meta``)."""
    where: str = "the results"
    """The store read, as a message about its board names it."""


def read(store: ResultStore, records: bool = True, kept: bool = True) -> Results:
    """The :class:`Results` of ``store``; ``records``: read every finished match (a ladder's board needs none,
    however many); ``kept``: a ladder's kept ratings (the report rates every match itself)."""
    kind = reading(store)
    try:
        params = RatingParams(**(store.meta("rating") or {}))
    except RatingParamError as exc:  # out of today's range, as an older arena took it (the store checked the rest)
        raise BoardError(f"{store.path}: the board could not be computed: {exc}, as an earlier run stored it; run "
                         "the tournament file again, which stores its own rating parameters") from None
    entries = store.ladder.entries()
    settle = store.meta("settle")
    margin = settle.get("margin") if isinstance(settle, dict) else None
    return Results(params=params,
                   names=list(store.meta("bots") or []) + [e.key for e in entries],
                   records=store.records() if records else [],
                   voided=store.voided(),
                   total=store.meta("total"),
                   ladder=kind.keeps_ratings,
                   entries=entries,
                   left={e.key: e.status for e in entries if e.status != ACTIVE},
                   placement=kind.placement,
                   kept=read_kept(store.ladder, params) if kind.keeps_ratings and kept else None,
                   evidence=stored_evidence(store.ladder) if kind.keeps_ratings and kept else None,
                   margin=float(margin) if isinstance(margin, (int, float)) and margin > 0 else DEFAULT_MARGIN,
                   where=str(store.path))


def standings(results: Results, ratings: Mapping[str, Rating] | None = None,
              tally: Tally | None = None) -> Leaderboard:
    """The leaderboard of ``results``: every player of :attr:`Results.names` and of the records, ranked by
    :func:`.leaderboard.ranking`.

    ``ratings``: the players' ratings when the caller has them already (a run's fold that saw every
    match, the report's rating history); else a ladder's kept ratings, else rated here from the
    records. A listed player without a rating (a ladder entry yet to play) has a fresh one.
        ``tally``: the records counted already, in schedule order (the report keeps one between builds).
    An arithmetic error on the way is a :class:`BoardError` (:func:`computing_board`).
    """
    with computing_board(results.where):
        if ratings is None:
            ratings = results.kept.ratings if results.kept is not None else \
                rate(results.records, results.params, results.names)
        fresh = model_of(results.params).fresh()
        everyone = {**{name: fresh for name in results.names}, **ratings}
        if tally is not None:
            return tally.board(everyone, results.names, results.voided, results.left, results.placement,
                               results.margin, results.params.model)
        return build(results.records, everyone, results.names, results.voided, results.left, results.placement,
                     results.margin, results.params.model)


def ladder_board(results: Results) -> list[LadderRow]:
    """A ladder's own board (:mod:`.ladder.board`) of ``results`` read with its kept ratings."""
    if results.kept is None:
        raise ValueError("a ladder's board is made from its kept ratings: read the results with kept=True")
    kept = results.kept
    stored = results.evidence
    with computing_board(results.where):
        return board_rows(results.entries, kept.ratings, kept.matches, kept.last, results.placement,
                          kept.model.fresh(), stored.evidence if stored is not None else PairEvidence(),
                          results.margin, stored.luck() if stored is not None else None)
