"""What the report pages show, as plain JSON-able values computed from a results directory.

Everything here is a pure function of one :class:`Snapshot` (read from the store in one
read transaction, so a run writing meanwhile never gives a page half a match), so it is
tested apart from any browser, and the pages only lay it out.

A match whose deal is still to be played under another rotation (:mod:`.withhold`) is
rated and counted, but nothing that shows its cards, its seed or its log is made of it:
the match list and the fault list leave it out until its deal is whole. A public report
(:func:`public_view`) leaves it out of everything, its board and charts included.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field, replace
from itertools import chain
from pathlib import Path
from typing import Any, Sequence

from ..tournament.evidence import DEFAULT_MARGIN
from ..tournament.ladder.board import LadderBoard
from ..tournament.leaderboard import RANKED, Leaderboard, Tally, standing_json
from ..tournament.rating import Rating, RatingFold, RatingParams, model_of, reads_scores, schedule_order, scores_of
from ..tournament.records import MatchRecord, VoidRecord, is_replay, record_of_row
from ..tournament.standings import Results, read, standings
from ..tournament.store import DB_NAME, ResultStore, decode_match
from .withhold import withheld_in

LOG_TAIL_CHARS = 2000
"""A fault shows at most this much of the end of its bot's log: enough to see what it said last."""
LOG_TAIL_LINES = 25
"""... and at most this many lines of it."""
MAX_HEAD_TO_HEAD = 40
"""The heat map shows the best this many bots: a ladder of 1,000 would make a million cells."""
DIGITS = 3
"""Decimals kept of every rating and timing: more is noise, and bytes in every page."""


@dataclass
class Snapshot:
    """One consistent read of a results directory: what every page is made from."""

    directory: Path
    name: str
    preset: str
    ladder: bool
    total: int | None
    names: list[str]
    params: RatingParams
    records: list[MatchRecord]
    rows: list[dict[str, Any]]
    voided: list[VoidRecord]
    logs: dict[tuple[int, int], str] = field(default_factory=dict)
    """The log of each seat that faulted, by (match index, seat); other logs are not read."""
    status: dict[str, str] = field(default_factory=dict)
    """A ladder's versions that left the field, by player key: ``replaced`` or ``retired``."""
    placement: int = 0
    """A ladder's ``placement_matches``: an active entry with fewer matches is listed, not ranked."""
    margin: float = DEFAULT_MARGIN
    """Places per match within which bots share a tier (``settle: {margin}``, kept in the store)."""
    withheld: set[int] = field(default_factory=set)
    """Indices of the stored matches whose deal has a rotation still to play: rated, never shown."""
    shown: list[dict[str, Any]] | None = field(default=None, repr=False, compare=False)
    """:func:`shown_rows`, once asked for."""
    public: bool = False
    """Made by :func:`public_view`: ``records`` and ``rows`` are those of the whole deals only."""


class RowCache:
    """The store's rows, decoded and checked as :meth:`ResultStore.rows` does, with their records and the logs
    of their faulted seats: kept between builds by ``arena serve``, so that a rebuild reads and decodes only
    the rows that are new or changed (reading and decoding every row is most of a rebuild's time).

    A stored match is never changed, only added (and, by hand, deleted): a row is known by its index, id
    and finish time. The rows up to the highest index read last time are taken as they were when their
    count and the sums of their indices and finish times are the same (one aggregate query); otherwise
    every row's key is read again and the rows whose key changed are decoded again.
    """

    def __init__(self) -> None:
        self.kept: dict[int, tuple[tuple[Any, ...], dict[str, Any], MatchRecord]] = {}
        self.logs: dict[tuple[int, int], str] = {}
        self.sums: tuple[Any, ...] | None = None  # :meth:`_sums` of the rows in ``kept``
        from .chunks import MatchChunks  # both build on this module
        from .linked import LinkedFiles
        from .viewer import ViewerMemo

        self.chunks = MatchChunks()
        """The match list's chunks written from these rows, so that a rebuild links those that did not change."""
        self.viewer = ViewerMemo()
        """The viewer's match list entries made of these rows, and which of them have a replay file."""
        self.faults: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
        """The fault list's entries made of these rows (:func:`fault_list`)."""
        self.pages = LinkedFiles()
        """The bot pages written, with what each was made from, so that a rebuild links those that did not change."""

    def read(self, store: ResultStore) -> tuple[list[dict[str, Any]], list[MatchRecord]]:
        """Every finished match of ``store`` in schedule order: its row and its record."""
        top = next(reversed(self.kept), -1)
        same = self.sums is not None and self._sums(store, top) == self.sums
        if same:
            known = self.kept
            names, cursor = store.raw_rows(after=top)
        else:
            keys = store.row_keys()
            known = {idx: kept for idx, kept in self.kept.items()
                     if keys.get(idx) == (kept[1]["match_id"], kept[1]["finished_at"])}
            names, cursor = store.raw_rows()
        at = names.index("idx")
        luck = store.luck(after=top if same else None)
        added: dict[int, tuple[tuple[Any, ...], dict[str, Any], MatchRecord]] = {}
        for values in cursor:
            if values[at] in known:
                continue
            row = decode_match(store.path, dict(zip(names, values)))
            added[values[at]] = (values, row, record_of_row(row, luck.get(values[at], ())))
        if same:
            kept = {**known, **added} if added else known
        else:
            kept = dict(sorted({**known, **added}.items()))
        self.logs = {key: text for key, text in self.logs.items() if key[0] in kept and key[0] not in added}
        self.kept = kept
        self.sums = self._sums(store, next(reversed(kept), -1))
        return [row for _, row, _ in kept.values()], [record for _, _, record in kept.values()]

    @staticmethod
    def _sums(store: ResultStore, top: int) -> tuple[Any, ...]:
        """Count, sum of indices and of finish times of the rows up to index ``top``, as SQLite adds them."""
        return store.sums_through(top)

    def log_tails(self, store: ResultStore, rows: Sequence[dict[str, Any]]) -> dict[tuple[int, int], str]:
        """The end of the log of each seat that faulted, by (match index, seat) (other logs are not read),
        read from ``store`` only for the rows that are new since the last call."""
        if store.keeps_logs():
            for row in rows:
                for fault in row["faults"]:
                    key = (int(row["idx"]), int(fault["seat"]))
                    if key not in self.logs:
                        found = store.log(*key)
                        self.logs[key] = "" if found is None else found[-4 * LOG_TAIL_CHARS:]
        return dict(self.logs)


def read_snapshot(directory: Path, cache: RowCache | None = None) -> Snapshot:
    """Read everything the report needs from ``directory`` in one read transaction (``cache``: the rows
    decoded by an earlier build of the same directory).

    Raises ``FileNotFoundError`` (no results.sqlite) or ``StoreMismatch`` like :class:`ResultStore`.
    """
    store = ResultStore(directory, readonly=True)
    try:
        with store.reading():  # one snapshot: rows, records and voided agree even while a run writes
            cache = cache or RowCache()
            rows, records = cache.read(store)
            results = read(store, records=False, kept=False)  # rated here, with each bot's history
            config = store.meta("config") or {}
            rules = config.get("rules") or {}
            preset = str(rules.get("preset", "standard")) if isinstance(rules, dict) else str(rules)
            logs = cache.log_tails(store, rows)
            return Snapshot(
                directory=Path(directory),
                name=str(config.get("name") or Path(directory).resolve().name),
                preset=preset,
                ladder=results.ladder,
                total=results.total,
                names=results.names,  # a ladder's: every entry, played or not
                params=results.params,
                records=records,
                rows=rows,
                voided=results.voided,
                logs=logs,
                status=results.left,
                placement=results.placement,
                margin=results.margin,
                withheld=withheld_in(store, rows),
            )
    finally:
        store.close()


def _round(value: float | None) -> float | None:
    return None if value is None else round(float(value), DIGITS) + 0.0


def safe_name(bot: str) -> str:
    """A file name for ``bot``'s page: its own name when that is plainly safe, else a cleaned one
    with a hash of the real name, so that two names never share a page."""
    cleaned = re.sub(r"[^a-z0-9_.@-]", "_", bot)[:64]
    if cleaned == bot and not bot.startswith("."):
        return bot
    return f"{cleaned.lstrip('.') or 'bot'}-{hashlib.sha256(bot.encode()).hexdigest()[:10]}"


@dataclass
class Computed:
    """The leaderboard and each bot's rating after each of its matches, from one pass of the ratings."""

    board: Leaderboard
    history: dict[str, list[list[float]]]


CHECKPOINT = 256
""":class:`RatingHistory` keeps its state every this many matches, to go back to when a match arrives
out of schedule order (workers finish out of order)."""
TALLIES = 4
"""Only the last this many checkpoints keep a copy of the board's counts (a ladder's head-to-head may hold
tens of thousands of pairs); going back further counts the matches before it again."""


class RatingHistory:
    """Ratings in schedule order (as :class:`RatingFold` applies them: each match with
    :meth:`RatingModel.update`), with each bot's (matches played, mu, sigma) after each of its matches.

    Kept between builds by ``arena serve``: a rebuild rates only the matches after the longest
    prefix of the schedule that did not change, from the last checkpoint before it, so a report of
    10,000 matches is not rated from scratch whenever one more arrives.
    """

    def __init__(self, params: RatingParams | None = None) -> None:
        self.reset(params or RatingParams())

    def reset(self, params: RatingParams) -> None:
        """Forget everything rated: start again with ``params``."""
        self.params = params
        self.model = model_of(params)
        self.applied: list[tuple[int, str]] = []
        self.ordered: list[MatchRecord] = []  # what ``applied`` names: a rebuild's records are these, then more
        self.ratings: dict[str, Rating] = {}
        self.played: dict[str, int] = {}
        self.history: dict[str, list[list[float]]] = {}
        self.tally = Tally()  # the board's counts of the same matches, kept and rewound with the ratings
        self.checkpoints: list[tuple[int, dict[str, Rating], dict[str, int], Tally | None]] = \
            [(0, {}, {}, Tally())]

    def _point(self, bot: str) -> list[float]:
        rating = self.ratings[bot]
        return [self.played[bot], _round(rating.mu) or 0.0, _round(rating.sigma) or 0.0]

    def _rewind(self, keep: int) -> None:
        """Back to the last checkpoint at or before ``keep`` applied matches."""
        while self.checkpoints[-1][0] > keep:
            self.checkpoints.pop()
        count, ratings, played, tally = self.checkpoints[-1]
        self.applied = self.applied[:count]
        self.ratings, self.played = dict(ratings), dict(played)
        if tally is None:  # counted again: a match arrived before the last few checkpoints
            tally = Tally()
            for record in self.ordered[:count]:
                tally.add(record)
        self.tally = tally.copy()
        self.history = {bot: points[:played[bot] + 1] for bot, points in self.history.items() if bot in played}

    def update(self, records: Sequence[MatchRecord]) -> None:
        """Bring the ratings up to ``records`` (all finished matches, any order)."""
        if self.params.method != "match":
            self._fold(records)
            return
        ordered, same = self._order(records)  # the first ``same`` are those applied last time: their keys agree
        same = min(same, len(self.applied))
        for mine, theirs in zip(self.applied[same:], ordered[same:]):
            if mine != (theirs.index, theirs.match_id):
                break
            same += 1
        if same < len(self.applied):
            self._rewind(same)
        self.ordered = ordered
        for record in ordered[len(self.applied):]:
            self.tally.add(record)
            if is_replay(record.match_id):  # played, never rated (records.is_replay: why)
                self.applied.append((record.index, record.match_id))
                continue
            for bot in record.bots:
                if bot not in self.ratings:
                    self.ratings[bot] = self.model.fresh()
                    self.played[bot] = 0
                    self.history[bot] = [self._point(bot)]
            self.model.update(self.ratings, record.bots, record.places,
                              scores_of(record) if reads_scores(self.model) else None)
            for bot in record.bots:
                self.played[bot] += 1
                self.history[bot].append(self._point(bot))
            self.applied.append((record.index, record.match_id))
            if len(self.applied) % CHECKPOINT == 0:
                recent = len(self.applied) > len(ordered) - TALLIES * CHECKPOINT  # a copy only where one is kept
                self.checkpoints.append((len(self.applied), dict(self.ratings), dict(self.played),
                                         self.tally.copy() if recent else None))
                if len(self.checkpoints) > TALLIES:  # a ladder's head-to-head counts are large: few copies
                    old = self.checkpoints[-TALLIES - 1]
                    self.checkpoints[-TALLIES - 1] = (old[0], old[1], old[2], None)

    def _order(self, records: Sequence[MatchRecord]) -> tuple[list[MatchRecord], int]:
        """:func:`schedule_order` of ``records``, which checks and sorts every one of them, and how many of them
        lead it as they led it last time. A rebuild's records (a :class:`RowCache` keeps the same objects for
        the rows it read before) start with the ones ordered last time, so only those after them are checked
        and sorted, unless one of those falls before them."""
        same = 0
        for mine, theirs in zip(self.ordered, records):
            if mine is not theirs:
                break
            same += 1
        if not same:
            return schedule_order(records), 0
        later = schedule_order(records[same:])
        last = self.ordered[same - 1]
        if later and (later[0].index, later[0].match_id) <= (last.index, last.match_id):
            ordered = schedule_order(records)
            return ordered, next((i for i, (a, b) in enumerate(zip(self.ordered, ordered)) if a is not b),
                                 min(len(self.ordered), len(ordered)))
        return self.ordered[:same] + later, same

    def _fold(self, records: Sequence[MatchRecord]) -> None:
        """Rate every record again with :class:`RatingFold`, for a method that rates a deal's rotations
        together (the last deal's changes as its rotations come in, so no checkpoint would hold): each
        bot's point after a match is its rating once that match's deal is rated."""
        self.reset(self.params)

        for record in schedule_order(records):
            self.tally.add(record)

        def rated(record: MatchRecord) -> None:
            for bot in record.bots:
                self.played[bot] += 1
                self.history[bot].append(self._point(bot))

        fold = RatingFold(self.params, [], expected=[r.index for r in records], on_rate=rated)
        self.ratings = fold.ratings
        for record in schedule_order(records):
            for bot in record.bots:
                if bot not in self.played:
                    self.ratings[bot] = self.model.fresh()
                    self.played[bot] = 0
                    self.history[bot] = [self._point(bot)]
            fold.add(record)
        self.ratings = dict(fold.ratings)

    def result(self, names: Sequence[str]) -> tuple[dict[str, Rating], dict[str, list[list[float]]]]:
        """Every bot's rating and history: those of ``names`` without a match at the start."""
        ratings = dict(self.ratings)
        history = {bot: list(points) for bot, points in self.history.items()}  # later updates leave it be
        for name in names:
            if name not in ratings:
                ratings[name] = self.model.fresh()
                history[name] = [[0, _round(ratings[name].mu) or 0.0, _round(ratings[name].sigma) or 0.0]]
        return ratings, history


def compute(snapshot: Snapshot, ratings: RatingHistory | None = None) -> Computed:
    """Rate every match (schedule order), keeping each bot's rating after each of its matches, and
    build the leaderboard from the final ratings by the one standings path the files and ``arena
    leaderboard`` take (:func:`..tournament.standings.standings`), ranked by the rule every board follows
    (:func:`..tournament.leaderboard.ranking`). ``ratings``: kept from an earlier build (of the same
    results directory), brought up to date (started again if its parameters differ)."""
    if ratings is None:
        ratings = RatingHistory(snapshot.params)
    elif ratings.params != snapshot.params:
        ratings.reset(snapshot.params)
    ratings.update(snapshot.records)
    final, history = ratings.result(snapshot.names)
    board = standings(Results(snapshot.params, snapshot.names, snapshot.records, snapshot.voided,
                              left=snapshot.status, placement=snapshot.placement, margin=snapshot.margin,
                              where=str(snapshot.directory / DB_NAME)),
                      final, ratings.tally)
    return Computed(board, {s.bot: history[s.bot] for s in board.standings})


def leaderboard_rows(board: Leaderboard) -> list[dict[str, Any]]:
    """One dict per bot in board order: its row of ``leaderboard.json`` (:func:`..leaderboard.standing_json`),
    with its page, its faults in all, whether it shares its tier, and its status only when not ranked (a
    ladder's entries: ``placement``, ``replaced``, ``retired``); ``rank`` is None for a player not ranked."""
    return [{**standing_json(s), "status": "" if s.status == RANKED else s.status, "page": safe_name(s.bot),
             "fault_count": sum(s.faults.values()), "tier_shared": s.tier_shared} for s in board.standings]


def ladder_board(snapshot: Snapshot, board: Leaderboard) -> LadderBoard | None:
    """A ladder's own board (entries by name and version, when each last played) from the report's
    leaderboard of ``snapshot``, drawn by the same :class:`..render.Table` as ``arena leaderboard``; None for
    a tournament."""
    if not snapshot.ladder:
        return None
    last: dict[str, float] = {}
    for row in snapshot.rows:
        for bot in row["bots"]:
            last[bot] = max(last.get(bot, 0.0), float(row["finished_at"]))
    return LadderBoard.of(board, last)


def head_to_head(board: Leaderboard, limit: int = MAX_HEAD_TO_HEAD) -> dict[str, Any]:
    """The matrix of the best ``limit`` bots in rank order: ``cells[i][j]`` is how ``bots[i]`` fared
    against ``bots[j]`` as {shared, ahead, behind, level} (None: they never met, or i == j);
    ``omitted`` counts the bots left out."""
    bots = [s.bot for s in board.standings[:limit]]
    pairs = {(h.bot, h.opponent): h for h in board.head_to_head}
    cells: list[list[dict[str, int] | None]] = []
    for bot in bots:
        line: list[dict[str, int] | None] = []
        for other in bots:
            pair = pairs.get((bot, other))
            line.append(None if pair is None or bot == other else
                        {"shared": pair.shared, "ahead": pair.ahead, "behind": pair.behind, "level": pair.level})
        cells.append(line)
    return {"bots": bots, "pages": [safe_name(b) for b in bots], "cells": cells,
            "omitted": len(board.standings) - len(bots)}


def score(cell: dict[str, int]) -> float:
    """Share of the shared matches a bot finished ahead, a level one counting half: the heat map's colour."""
    return (cell["ahead"] + cell["level"] / 2) / cell["shared"] if cell["shared"] else 0.5


def log_tail(text: str, chars: int = LOG_TAIL_CHARS, lines: int = LOG_TAIL_LINES) -> str:
    """The end of a log: its last ``lines`` lines, at most ``chars`` characters."""
    tail = text[-chars:]
    return "\n".join(tail.splitlines()[-lines:])


_RAISED = re.compile(r"^(?:Uncaught )?[A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Fault)\b(?::.*)?$")
"""A line that names an exception: ``KeyError: 'hel'``, ``TypeError: x is not a function``."""


def exception_line(text: str) -> str:
    """The line of a bot's stderr that says what went wrong, to show before the rest: after a Python
    traceback the first unindented line that follows it, else the last line naming an exception (as
    JavaScript's ``TypeError: ...`` above its stack), else the last line; empty for no text.

    A traceback's exception line is its last line, at the bottom of a long tail: read first, it
    tells the author what the rest is about."""
    lines = [line.rstrip() for line in text.splitlines() if line.strip()]
    if not lines:
        return ""
    heads = [i for i, line in enumerate(lines) if line.startswith("Traceback (most recent call last)")]
    if heads:
        after = [line for line in lines[heads[-1] + 1:] if not line[0].isspace()]
        if after:
            return after[0]
    named = [line for line in lines if _RAISED.match(line.strip())]
    return (named[-1] if named else lines[-1]).strip()


def shown_rows(snapshot: Snapshot) -> list[dict[str, Any]]:
    """The stored matches the report shows: those whose deal is whole (:mod:`.withhold`)."""
    if snapshot.shown is None:
        hidden = snapshot.withheld
        snapshot.shown = [row for row in snapshot.rows if row["idx"] not in hidden] if hidden else list(snapshot.rows)
    return snapshot.shown


def public_view(snapshot: Snapshot) -> Snapshot:
    """``snapshot`` as a public report shows it: only the matches whose deal is whole, so its board (ratings,
    counts, luck), charts and head-to-head say nothing of a deal still in play, whose cards an author's bot may
    have yet to be dealt; ``withheld`` still counts the others, for the line that says how many wait."""
    hidden = snapshot.withheld
    return replace(snapshot, records=[r for r in snapshot.records if r.index not in hidden],
                   rows=shown_rows(snapshot), shown=None, public=True)


def fault_list(snapshot: Snapshot, kept: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]] | None = None
               ) -> list[dict[str, Any]]:
    """Every fault in schedule order: who, where, what, and the end of what the bot wrote on stderr
    (what it wrote up to the fault when the arena kept that, else the end of its log of the match).
    A withheld match's faults are left out: a log may show the bot's cards, a link opens the replay.
    ``kept``: each match's faults as made by an earlier call, by index with the row they were made of
    (:class:`RowCache` keeps it): made again only for a row that is not the same object; updated."""
    out: list[dict[str, Any]] = []
    made: dict[int, tuple[dict[str, Any], list[dict[str, Any]]]] = {}
    for row in shown_rows(snapshot):
        if not row["faults"]:
            continue
        known = None if kept is None else kept.get(int(row["idx"]))
        if known is None or known[0] is not row:
            known = (row, _faults_of(snapshot, row))
        made[int(row["idx"])] = known
        out += known[1]
    if kept is not None:
        kept.clear()
        kept.update(made)
    return out


def _faults_of(snapshot: Snapshot, row: dict[str, Any]) -> list[dict[str, Any]]:
    """The faults of one match, as :func:`fault_list` lists them."""
    out = []
    for fault in row["faults"]:
        seat = int(fault["seat"])
        own = str(fault.get("stderr") or "")
        text = own or snapshot.logs.get((int(row["idx"]), seat), "")
        out.append({"bot": row["bots"][seat], "page": safe_name(row["bots"][seat]), "index": row["idx"],
                    "match": row["match_id"], "seat": seat, "kind": fault["kind"],
                    "detail": str(fault.get("detail") or ""), "round": fault.get("round"),
                    "decision": fault.get("decision"), "log_tail": log_tail(text),
                    "exception": exception_line(log_tail(text))})
    return out


MATCH_COLUMNS: tuple[str, ...] = ("index", "id", "bots", "places", "totals", "forfeited", "reason",
                                  "decisions", "seconds", "faults", "finished_at")
"""The fields of a match in the match list, in the order its chunks (``data/matches-<k>.js``) store them."""


def match_entry(row: dict[str, Any]) -> dict[str, Any]:
    """One stored match as the match list shows it."""
    return {"index": row["idx"], "id": row["match_id"], "bots": list(row["bots"]), "places": list(row["places"]),
            "totals": list(row["totals"]), "forfeited": forfeited_entry(row["forfeited"]),
            "reason": row["reason"], "decisions": row["decisions"], "seconds": _round(row["seconds"]),
            "faults": len(row["faults"]), "finished_at": round(float(row["finished_at"]), 1)}


def forfeited_entry(forfeited: Sequence[Any]) -> list[bool] | int:
    """Which seats forfeited, as a match list keeps it: 0 when none did (nearly every match: the list of
    falses was about 6% of a list's bytes)."""
    flags = [bool(f) for f in forfeited]
    return flags if any(flags) else 0


LATEST_COLUMNS: tuple[str, ...] = ("index", "id", "bots", "places", "totals", "forfeited", "reason", "faults")
"""The fields of a bot page's latest matches (:func:`match_entry`'s, those its table shows)."""


def match_list(snapshot: Snapshot) -> list[dict[str, Any]]:
    """Every finished match in schedule order, as the match list shows it, the withheld ones left out."""
    return [match_entry(row) for row in shown_rows(snapshot)]


def compact(items: Sequence[dict[str, Any]], columns: Sequence[str]) -> dict[str, Any]:
    """Dicts as one list of columns and one list per item: the same data in about half the bytes."""
    return {"columns": list(columns), "rows": [[item[c] for c in columns] for item in items]}


def summary(snapshot: Snapshot) -> dict[str, Any]:
    """The heading facts: what tournament, how far it is (``withheld``: matches stored but not shown yet)."""
    return {"name": snapshot.name, "preset": snapshot.preset, "ladder": snapshot.ladder,
            "matches": len(snapshot.records), "total": snapshot.total, "voided": len(snapshot.voided),
            "withheld": len(snapshot.withheld), "public": snapshot.public, "model": snapshot.params.model,
            "bots": len(set(chain.from_iterable(r.bots for r in snapshot.records)) | set(snapshot.names))}


def version(snapshot: Snapshot) -> str:
    """A short digest of what the report shows, so a served page can tell that a newer one exists."""
    digest = hashlib.sha256()
    digest.update(json.dumps([len(snapshot.rows), len(snapshot.voided), snapshot.names,  # entries, retirements
                              sorted(snapshot.status.items())]).encode())
    for row in snapshot.rows:
        digest.update(f"{row['idx']},{row['finished_at']};".encode())
    for void in snapshot.voided:
        digest.update(f"v{void.index};".encode())
    return digest.hexdigest()[:16]

