"""A ladder's current ratings, kept in the store beside its matches.

A ladder runs for weeks, and its leaderboard must not replay 100,000 rating updates
each time somebody looks. So the driver writes the ratings a stored match changes in the
same transaction as the match: table ``ladder_ratings`` (per player mu, sigma, matches
rated, when its last one finished) and, in ``meta``, the index of the last match they
include. Matches are rated in index order. A match stored beyond the rated prefix (a run
was killed while an earlier match was still in play, and that one will never come) is
rated by whoever reads next, in the same order, so the kept numbers always equal a
recomputation from every stored match. The statements are the store's (:mod:`..store.ladder`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Iterator, Sequence

from ..rating import Rating, RatingModel, RatingParams, model_of, reads_scores, scores_of
from ..records import is_replay
from ..store.ladder import THROUGH, KeptRating, LadderStore

__all__ = ["THROUGH", "Kept", "finished_in", "kept_in", "read"]


@dataclass
class Kept:
    """Ratings, rated match counts and last finish times (replays included) per player key, through match
    ``through``."""

    model: RatingModel
    ratings: dict[str, Rating] = field(default_factory=dict)
    matches: dict[str, int] = field(default_factory=dict)
    last: dict[str, float] = field(default_factory=dict)
    through: int = -1
    """Index of the last match included; -1 before the first."""
    changed: set[str] = field(default_factory=set)
    """Players whose numbers differ from the table's (rated here, not saved yet)."""

    def rate(self, index: int, bots: Iterable[str], places: Iterable[int], finished: float,
             scores: Sequence[float] | None = None) -> None:
        """Apply one more match, the next in index order (``scores``: for a model that reads them)."""
        if index <= self.through:
            raise ValueError(f"match index {index} is rated already (through {self.through})")
        seated = tuple(bots)
        self.model.update(self.ratings, seated, tuple(places), scores)
        self.count(index, seated, finished)

    def count(self, index: int, bots: Iterable[str], finished: float) -> None:
        """Note a match whose update ``ratings`` already holds (a rating fold sharing the dict applied it)."""
        for key in bots:
            self.matches[key] = self.matches.get(key, 0) + 1
            self.last[key] = max(self.last.get(key, 0.0), finished)
            self.changed.add(key)
        self.through = max(self.through, index)

    def pass_over(self, index: int, bots: Iterable[str], finished: float) -> None:
        """Note a replay, the next match in index order: played (its bots' last match), never rated
        (:func:`..records.is_replay`), so no rating and no count of rated matches changes."""
        for key in bots:
            self.last[key] = max(self.last.get(key, 0.0), finished)
            self.ratings.setdefault(key, self.model.fresh())
            self.matches.setdefault(key, 0)
            self.changed.add(key)
        self.through = max(self.through, index)

    def save(self, ladder: LadderStore) -> None:
        """Write the changed players and the rated prefix; the caller holds the transaction, so they
        land together with the match that changed them."""
        ladder.save_ratings([KeptRating(key, float(self.ratings[key].mu), float(self.ratings[key].sigma),
                                                 self.matches[key], self.last[key]) for key in sorted(self.changed)],
                                     self.through)
        self.changed.clear()


def read(store: LadderStore, params: RatingParams) -> Kept:
    """The kept ratings, with every stored match beyond them rated on top (``changed`` names whom that
    touched: a writer saves them, a reader just shows them)."""
    kept = Kept(model_of(params))
    for row in store.kept_ratings():
        kept.ratings[row.key] = kept.model.rating(row.mu, row.sigma)
        kept.matches[row.key] = row.matches
        kept.last[row.key] = row.last_played
    kept.through = store.rated_through()
    for index, match_id, bots, places, finished, scores in _stored(store, kept.through, reads_scores(kept.model)):
        if is_replay(match_id):  # never rated (records.is_replay: why)
            kept.pass_over(index, bots, finished)
        else:
            kept.rate(index, bots, places, finished, scores)
    return kept


def _stored(store: LadderStore, through: int, scored: bool) -> Iterator[
        tuple[int, str, Sequence[str], Sequence[int], float, tuple[float, ...] | None]]:
    """Every stored match beyond ``through``: index, id, bots, places, when it finished, and its seats' scores
    (:func:`..rating.scores_of`) when ``scored``, read from the few columns each needs (damage: one line)."""
    if not scored:
        for index, match_id, bots, places, finished in store.matches_after(through):
            yield index, match_id, bots, places, finished, None
        return
    for record, finished in store.scored_after(through):
        yield record.index, record.match_id, record.bots, record.places, finished, scores_of(record)


def kept_in(directory: Path, params: RatingParams) -> tuple[dict[str, Rating], int]:
    """The ratings of a ladder's store and the last match index they include, read on a connection of
    its own (the schedule's start, without replaying every stored match)."""
    store = LadderStore.open(directory)
    try:
        kept = read(store, params)
        return kept.ratings, kept.through
    finally:
        store.close()


def finished_in(directory: Path) -> list[tuple[float, tuple[str, ...]]]:
    """When each stored match finished and who sat at it, in finishing order: the fairness floor's
    windows of a resumed ladder are rebuilt from it."""
    store = LadderStore.open(directory)
    try:
        return store.finished()
    finally:
        store.close()
