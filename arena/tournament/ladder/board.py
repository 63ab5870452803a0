"""The ladder's own standings: per entry its version, rating, matches, last match and status.

The usual leaderboard files (by player key ``NAME@vK``) are written too; this adds
what only a ladder has: which entries are still in placement, which left the field.
The order and the ranks are :func:`..leaderboard.ranking`'s, the rule the leaderboard
files and the report follow too: ranked entries first by mu-3σ, then those in placement,
then the replaced and retired ones, unranked, so the top of the list is always who is
really ranked, and the terminal and the report agree.
The terminal and Markdown boards show the current field (no replaced versions) unless asked
for everything; the JSON and CSV files always hold every version. Under the terminal and
Markdown boards, and in each new version's JSON row, is the paired view of a new version
against its previous one (:mod:`.paired`); the CSV, one row per version, has no room for it.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Mapping, Sequence

from ..confidence import interval_text
from ..evidence import DEFAULT_MARGIN, PairEvidence, sure_text, tier_text
from ..leaderboard import (AHEAD_LABEL, CONFIDENCE_NOTE, EXPOSURE_LABEL, INTERVAL_LABEL, LUCK_NOTE, PLACEMENT, RANKED,
                           REPLACED, RETIRED, UNRANKED_NOTE, Confidence, Leaderboard, column_notes, ranking_rule,
                           number_cell, player_parts, luck_cell, ranking, rounded, status_of)
from ..rating import DEFAULT_MODEL, Rating, RatingParams, exposure
from ..render import Table, csv_text
from ..render import write as write_board
from ..table import TEXT_WIDTH, notes
from .entries import ACTIVE, Entry, entries
from .kept import read
from ..store.ladder import LadderStore
from .paired import Paired, lines as paired_lines

JSON_NAME = "ladder.json"
TEXT_NAME = "ladder.txt"
CSV_NAME = "ladder.csv"
MARKDOWN_NAME = "ladder.md"
TEXT_HEADER: tuple[str, ...] = ("#", "bot", "version", EXPOSURE_LABEL, INTERVAL_LABEL, AHEAD_LABEL, "matches",
                                "luck", "last played (UTC)", "status")
"""Column titles of the terminal board, of ``ladder.md`` and of the report's ladder table: within
:data:`..table.TEXT_WIDTH` with names as long as the bundled bots' (90 columns; 93 for ``bench/ladder.py``'s 1,000
entries)."""
WIDE_HEADER: tuple[str, ...] = (*TEXT_HEADER[:4], "mu", "sigma", *TEXT_HEADER[4:])
"""Column titles of the wide terminal board (``--wide``): mu and sigma too."""
LEFT_TITLES = frozenset({"bot", "last played (UTC)", "status"})
"""Columns that read better left-aligned (name, time, status); numbers are right-aligned."""
CSV_COLUMNS: tuple[str, ...] = ("rank", "bot", "version", "exposure", "mu", "sigma", "matches", "last_played",
                                "status", "rank_low", "rank_high", "p_ahead_next", "tier", "next", "luck")
"""Column order of ``ladder.csv`` (the confidence columns last, as in ``leaderboard.csv``)."""
EMPTY = "(no bot entered yet: arena submit LADDER.yaml BOT_DIR)"
def note(model: str = DEFAULT_MODEL) -> str:
    """The line under the board: how it is ordered under ``model``, and what it lists unranked."""
    return f"#: {ranking_rule(model)}; {UNRANKED_NOTE}"
"""Under the terminal board and ``ladder.md``: what ``#`` and the number mean (the same words as the report's)."""


@dataclass(frozen=True)
class LadderRow:
    """One entry's line."""

    name: str
    version: int
    exposure: float
    """mu - 3 sigma, labelled ``mu-3σ`` (as on every board)."""
    mu: float
    sigma: float
    matches: int
    last_played: float | None
    """Unix time its last stored match finished; None before its first."""
    status: str
    """``ranked``, ``placement`` (fewer than ``placement_matches``), ``replaced`` or ``retired``."""
    rank: int | None = None
    """Place among the ranked entries (None: not ranked), as :func:`..leaderboard.ranking` gives it."""
    rank_interval: tuple[int, int] | None = None
    """95% interval of the rank among the ranked entries (:mod:`..confidence`); None when not ranked."""
    p_ahead_next: float | None = None
    """How sure, at every look, that the entry is ahead of the next ranked one (as on every board); None for
    the last, the unranked and a pair with too few deals together."""
    tier: int | None = None
    """The rank of the first entry of its tier (rows each shown at most the margin behind the one above); None
    unranked."""
    tier_shared: bool = False
    """Whether others share its tier (shown ``2=``)."""
    next: str | None = None
    """Its relation to the next ranked entry: ``ahead``, ``tier`` or ``open`` (as on every board); None for the
    last and the unranked."""
    luck: float | None = None
    """Points per match the cards gave it over expectation (:mod:`arena.luck`); None before a measured match."""


def rows(field: Sequence[Entry], ratings: Mapping[str, Rating], counts: Mapping[str, int],
         last: Mapping[str, float], placement: int, fresh: Rating, evidence: PairEvidence,
         margin: float = DEFAULT_MARGIN, luck: Mapping[str, float] | None = None) -> list[LadderRow]:
    """The board in the order of :func:`..leaderboard.ranking` (``fresh``: the rating of an entry without
    matches; ``evidence``: the pairs' deals, judged for the tiers and P(>next) as on every board; ``luck``:
    each entry's mean luck per measured match)."""
    out = {}
    for entry in field:
        rating = ratings.get(entry.key, fresh)
        played = counts.get(entry.key, 0)
        status = status_of(None if entry.status == ACTIVE else entry.status, played, placement)
        out[entry.key] = LadderRow(entry.name, entry.version, exposure(rating), float(rating.mu),
                                   float(rating.sigma), played, last.get(entry.key), status,
                                   luck=(luck or {}).get(entry.key))
    order = ranking({key: (row.exposure, row.status) for key, row in out.items()})
    sure = Confidence.of({key: ratings.get(key, fresh) for key in out},
                         [key for rank, key in order if rank is not None], evidence, margin)
    return [replace(out[key], rank=rank, rank_interval=sure.intervals.get(key), p_ahead_next=sure.ahead.get(key),
                    tier=sure.tiers.get(key), tier_shared=key in sure.shared, next=sure.next.get(key))
            for rank, key in sure.ranking(order)]


def when(stamp: float | None) -> str:
    return "-" if stamp is None else datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%d %H:%M")


def iso(stamp: float | None) -> str:
    """``2026-11-30T17:20:00Z`` ("" before the first match): unambiguous and sortable for other programs."""
    return "" if stamp is None else datetime.fromtimestamp(stamp, timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def current(board: Sequence[LadderRow]) -> list[LadderRow]:
    """The current field, in board order: every row but the replaced versions. A retired entry stays,
    as the last word on its name."""
    return [row for row in board if row.status != REPLACED]


def _cells(row: LadderRow) -> dict[str, str]:
    """Every cell of a row by column title."""
    return {"#": tier_text(row.rank, row.tier, row.tier_shared), "bot": row.name, "version": f"v{row.version}",
            EXPOSURE_LABEL: number_cell(row.exposure, 2), "mu": number_cell(row.mu, 2),
            "sigma": number_cell(row.sigma, 2), INTERVAL_LABEL: interval_text(row.rank_interval),
            AHEAD_LABEL: sure_text(row.p_ahead_next), "matches": str(row.matches), "luck": luck_cell(row.luck),
            "last played (UTC)": when(row.last_played), "status": row.status}


def _table(board: Sequence[LadderRow], wide: bool = False) -> Table:
    """The rows' cells, every column with ``wide``. A row's place is its own (replaced rows are never ranked),
    so it is the same whether or not the older versions are shown."""
    header = WIDE_HEADER if wide else TEXT_HEADER
    cells = [_cells(row) for row in board]
    return Table(header, [[row[title] for title in header] for row in cells],
                 frozenset(col for col, title in enumerate(header) if title in LEFT_TITLES))


def text(board: Sequence[LadderRow], hidden: int = 0, paired: Sequence[Paired] = (), model: str = DEFAULT_MODEL,
         wide: bool = False, width: int | None = None) -> str:
    """The rows given as aligned columns for a terminal (``wide``: every column); ``hidden``: how many older
    versions the caller left out, said in one line so nobody takes the list for everything; ``paired``: the new
    versions against their previous ones, a line each under the board; ``model``: the rating model the rows come
    from. Every line under the table is wrapped to ``width`` (None: the terminal's), a name never cut."""
    table = _table(board, wide)
    said = [note(model), *column_notes(table.header, any(row.tier_shared for row in board))] if board else []
    if hidden:
        said.append(f"({hidden} older version{'s' if hidden > 1 else ''} hidden: "
                    f"--all shows {'them' if hidden > 1 else 'it'})")
    elif not board:
        said.append(EMPTY)
    said += paired_lines(paired)
    return "\n".join(table.text() + notes(said, width)) + "\n"


def view(board: Sequence[LadderRow], everything: bool = False, paired: Sequence[Paired] = (),
         model: str = DEFAULT_MODEL, wide: bool = False, width: int | None = None) -> str:
    """:func:`text` of the current field (or, with ``everything``, of every row)."""
    shown = list(board) if everything else current(board)
    return text(shown, len(board) - len(shown), paired, model, wide, width)


def to_json(board: Sequence[LadderRow], paired: Sequence[Paired] = ()) -> str:
    """``ladder.json``: every row, floats rounded to 3 decimals; a version that replayed its previous one's
    tables has the line's numbers in ``paired`` (else null), so the file stays one list of rows."""
    by_key = {p.new: p.to_json() for p in paired}
    data = [{**asdict(r), "exposure": rounded(r.exposure), "mu": rounded(r.mu), "sigma": rounded(r.sigma),
             "p_ahead_next": rounded(r.p_ahead_next), "luck": rounded(r.luck),
             "paired": by_key.get(f"{r.name}@v{r.version}")}
            for r in board]
    return json.dumps(data, indent=2) + "\n"


def to_csv(board: Sequence[LadderRow]) -> str:
    """``ladder.csv``: every row, older versions too; rank empty for rows not ranked."""
    rows: list[Sequence[object]] = [CSV_COLUMNS]
    rows.extend(("" if r.rank is None else r.rank, r.name, r.version, rounded(r.exposure), rounded(r.mu),
                 rounded(r.sigma), r.matches, iso(r.last_played), r.status,
                 *(("", "") if r.rank_interval is None else r.rank_interval),
                 "" if r.p_ahead_next is None else rounded(r.p_ahead_next), "" if r.tier is None else r.tier,
                 r.next or "", "" if r.luck is None else rounded(r.luck))
                for r in board)
    return csv_text(rows)


def markdown(board: Sequence[LadderRow], paired: Sequence[Paired] = (), model: str = DEFAULT_MODEL) -> str:
    """``ladder.md``: the current field as the terminal shows it, the new versions against their previous
    ones, then the older versions in a section of their own, so the table on top is who plays now."""
    field, older = current(board), [r for r in board if r.status == REPLACED]
    count = {status: sum(r.status == status for r in field) for status in (RANKED, PLACEMENT, RETIRED)}
    lines = ["# Ladder", "", f"{count[RANKED]} ranked, {count[PLACEMENT]} in placement, {count[RETIRED]} retired. "
             f"{note(model)}.", "", *_table(field).markdown(), "", CONFIDENCE_NOTE + ".", "", LUCK_NOTE + "."]
    if not board:
        lines += ["", EMPTY]
    if paired:
        _, *said, reading = paired_lines(paired)
        lines += ["", *(f"- {line}" for line in said), "", reading[0].upper() + reading[1:] + "."]
    if older:
        lines += ["", "## Older versions", "", "Replaced by a newer version of the same name: no longer scheduled; "
                  "their matches and ratings stay.", "", *_table(older).markdown()]
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class LadderBoard:
    """A ladder's board as a :class:`..render.Board`: its rows (every version), the new versions against
    their previous ones, and the rating model the rows come from."""

    rows: Sequence[LadderRow]
    paired: Sequence[Paired] = ()
    model: str = DEFAULT_MODEL

    def files(self) -> dict[str, str]:
        """``ladder.json``, ``.csv``, ``.md`` and ``.txt`` (the current field, as :meth:`terminal` shows it, its
        notes wrapped to :data:`..table.TEXT_WIDTH` whatever the terminal of the run that wrote it)."""
        return {JSON_NAME: to_json(self.rows, self.paired), CSV_NAME: to_csv(self.rows),
                MARKDOWN_NAME: markdown(self.rows, self.paired, self.model), TEXT_NAME: self.terminal(width=TEXT_WIDTH)}

    def names(self) -> dict[str, str]:
        """Its board's file by format: a :class:`..render.Board`."""
        return {"md": MARKDOWN_NAME, "csv": CSV_NAME, "json": JSON_NAME}

    def terminal(self, everything: bool = False, wide: bool = False, width: int | None = None) -> str:
        """:func:`view`: the current field, or with ``everything`` every version; ``wide``: mu and sigma too."""
        return view(self.rows, everything, self.paired, self.model, wide, width)

    def table(self, everything: bool = False, wide: bool = False) -> Table:
        """The current field's cells (with ``everything``, every version's), as :meth:`terminal` draws them."""
        return _table(list(self.rows) if everything else current(self.rows), wide)

    @classmethod
    def of(cls, board: Leaderboard, last: Mapping[str, float]) -> "LadderBoard":
        """The ladder's board from the leaderboard of its player keys (``NAME@vK``), as the report rates it:
        the same ratings, order, intervals and tiers, an entry's name and version apart (``last``: when each
        key's last match finished). A key that is not a version (a bot of a tournament) is version 0."""
        rows = []
        for s in board.standings:
            name, version = player_parts(s.bot)
            rows.append(LadderRow(name, version, s.exposure, s.mu, s.sigma, s.matches, last.get(s.bot), s.status,
                                  s.rank, s.rank_interval, s.p_ahead_next, s.tier, s.tier_shared, s.next, s.luck))
        return cls(rows, model=board.model)


def write(board: Sequence[LadderRow], directory: Path, paired: Sequence[Paired] = (),
          model: str = DEFAULT_MODEL) -> None:
    """``ladder.json``, ``.csv``, ``.md`` and ``.txt`` beside the usual leaderboard files (:func:`..render.write`)."""
    write_board(LadderBoard(board, paired, model), directory)


def load(ladder: LadderStore, params: RatingParams, placement: int, margin: float = DEFAULT_MARGIN,
         evidence: StoredEvidence | None = None) -> list[LadderRow]:
    """The board of every entry ever made, from the ratings kept in the store (also while a run writes): the
    refresh of a running ladder; the files and ``arena leaderboard`` read it with the rest of the standings
    (:func:`..standings.ladder_board`), through the same :func:`rows`. ``evidence``: the pairs' deals read
    by an earlier load of the same store (a running ladder's refresh keeps one), else read whole."""
    kept = read(ladder, params)
    if evidence is None:
        evidence = stored_evidence(ladder)
    else:
        evidence.read(ladder)
    return rows(entries(ladder), kept.ratings, kept.matches, kept.last, placement, kept.model.fresh(),
                evidence.evidence, margin, evidence.luck())


class StoredEvidence:
    """A ladder's pairs' deal differences and its entries' luck read from its store, kept between reads: a
    refresh every few seconds of a ladder of 100,000 matches reads only the rows stored since the last
    (matches are only ever added, in any index order)."""

    def __init__(self) -> None:
        self.evidence = PairEvidence()
        self._through = -1  # every index up to this one is in
        self._above: set[int] = set()  # indices beyond it that are in
        self._luck: dict[str, list[float]] = {}  # key -> [sum, measured matches]
        self._luck_through = -1
        self._luck_above: set[int] = set()

    def read(self, ladder: LadderStore) -> PairEvidence:
        """The evidence of every match stored now: places and seats only, a few columns a row; and the luck of
        every measured one (:meth:`luck`)."""
        for index, match_id, bots, places, _ in ladder.matches_after(self._through):
            if index not in self._above:
                self.evidence.add_places(match_id, bots, places)
                self._above.add(index)
        self._through = _advance(self._through, self._above)
        for index, bots, luck in ladder.luck_after(self._luck_through):
            if index not in self._luck_above:
                for bot, value in zip(bots, luck):
                    tally = self._luck.setdefault(bot, [0.0, 0])
                    tally[0] += value
                    tally[1] += 1
                self._luck_above.add(index)
        self._luck_through = _advance(self._luck_through, self._luck_above)
        return self.evidence

    def luck(self) -> dict[str, float]:
        """Each entry's mean luck per measured match, as of the last :meth:`read`."""
        return {key: total / count for key, (total, count) in self._luck.items() if count}


def _advance(through: int, above: set[int]) -> int:
    """The highest index up to which every index is in, moving the contiguous ones out of ``above``."""
    while through + 1 in above:
        through += 1
        above.discard(through)
    return through


def stored_evidence(ladder: LadderStore) -> StoredEvidence:
    """Every pair's deal differences and every entry's luck over the stored matches, read whole: from the sums the
    store keeps with every match stored when they hold exactly the stored matches (a few rows a player, however
    many matches), else from the matches. For one look: a running ladder's refresh reads on with its own
    :class:`StoredEvidence`, from the rows stored since."""
    stored = StoredEvidence()
    sums = ladder.kept_sums()
    if sums is None:
        stored.read(ladder)
    else:
        stored.evidence = PairEvidence.of_sums(sums.pairs)
        stored._luck = {key: [total, count] for key, (total, count) in sums.luck.items()}
    return stored
