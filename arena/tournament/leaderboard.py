"""Leaderboards: per-bot standings and head-to-head counts, as text and as files.

Everything here is a pure function of the records, the voided matches and the ratings,
ordered deterministically, so two runs over the same results write byte-identical
files. (The timing columns come from the records too, but they measure how a run went:
two runs of one tournament agree on every column but those.) The rank intervals are drawn
from a fixed seed (:mod:`.confidence`), so they too are the same for the same ratings.
Voided matches count nowhere in the standings; every output lists them.

Which players are ranked, and in what order, is one rule (:func:`ranking`) that every board
follows: these files, a ladder's own board (:mod:`.ladder.board`) and the report
(:mod:`arena.site.data`), so the terminal and the web page never disagree about who is
first. The number they rank by is labelled :data:`EXPOSURE_LABEL` everywhere.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from ..match.faults import FaultKind
from ..match.runner import SeatStats
from ..evidence.claims import tiers
from .confidence import interval_text, rank_intervals, reconciled_intervals
from .evidence import BOARD_P, DEFAULT_MARGIN, PairEvidence, judged, sure_text, tier_text
from .rating import DEFAULT_MODEL, MODEL_LABELS, Rating, exposure, roster, schedule_order
from .records import MatchRecord, VoidRecord, is_replay
from .render import Table, csv_text, markdown_row, write
from .table import notes

FAULT_ORDER: tuple[str, ...] = tuple(kind.value for kind in FaultKind)
"""Known fault kinds in protocol order; faults are listed in this order, unknown kinds after, sorted."""

JSON_NAME = "leaderboard.json"
CSV_NAME = "leaderboard.csv"
MARKDOWN_NAME = "leaderboard.md"
HEAD_TO_HEAD_NAME = "head_to_head.csv"
VOIDED_NAME = "voided.csv"

STANDING_COLUMNS: tuple[str, ...] = ("rank", "bot", "exposure", "mu", "sigma", "matches", "wins",
                                     "average_place", "average_total", "forfeits", "faults", "voided",
                                     "mean_ms", "max_ms", "startup_ms", "status", "rank_low", "rank_high",
                                     "p_ahead_next", "tier", "next", "luck")
"""Column order of ``leaderboard.csv`` (the confidence columns last, so that readers of the older
columns by position still read them)."""
HEAD_TO_HEAD_COLUMNS: tuple[str, ...] = ("bot", "opponent", "shared", "ahead", "behind", "level")
"""Column order of ``head_to_head.csv``."""
VOIDED_COLUMNS: tuple[str, ...] = ("index", "match", "bots", "reason")
"""Column order of ``voided.csv`` (``bots``: the seating, seat 0 first, separated by ``;``)."""


RANKED = "ranked"
"""Status of a player that is ranked: every bot of a tournament; a ladder's active entry once placed."""
PLACEMENT = "placement"
"""An active ladder entry with fewer than ``placement_matches`` matches: listed, not ranked yet."""
REPLACED = "replaced"
"""A ladder version that a newer version of its name replaced: listed, never ranked again."""
RETIRED = "retired"
"""A ladder version taken out by ``arena retire``: listed, never ranked again."""
GROUPS = {RANKED: 0, PLACEMENT: 1}
"""Board order of the status groups; the versions that left the field (replaced, retired) come last, together."""
EXPOSURE_LABEL = "mu-3σ"
"""The title of mu - 3 sigma, the number every board ranks by, in every table (terminal, files, report)."""
RANKING_NOTE = "ranked by mu-3σ (conservative TrueSkill: mu minus 3 sigma), ties by name"
"""How a board rated by the default model is ordered (:func:`ranking_rule` for any model)."""


def ranking_rule(model: str = DEFAULT_MODEL) -> str:
    """How a board rated by ``model`` is ordered, in the words under it."""
    return RANKING_NOTE.replace("TrueSkill", MODEL_LABELS[model])


"""How every board is ordered, in the words every board uses."""
UNRANKED_NOTE = ("entries in placement and versions that left the field (replaced, retired) "
                 "are listed after the ranked ones, unranked")
"""What a ladder's board adds to :data:`RANKING_NOTE`."""


def status_of(left: str | None, matches: int, placement: int = 0) -> str:
    """A player's status: ``left`` (replaced or retired) for a ladder version out of the field, else
    ``placement`` until it has ``placement`` matches, else ``ranked``. A tournament passes no
    ``left`` and ``placement`` 0: all its bots are ranked."""
    if left:
        return left
    return PLACEMENT if matches < placement else RANKED


def player_parts(key: str) -> tuple[str, int]:
    """``("ann", 2)`` for the ladder player ``ann@v2``; ``(name, 0)`` for a tournament bot (``@`` is not
    allowed in a bot name), so versions sort by number (v2 before v10)."""
    name, sep, version = key.rpartition("@v")
    return (name, int(version)) if sep and name and version.isdigit() else (key, 0)


def ranking(players: Mapping[str, tuple[float, str]]) -> list[tuple[int | None, str]]:
    """The order and ranks of a board: ``players`` maps a player (bot name or ``NAME@vK``) to its
    (mu - 3 sigma, status); returns (rank, player) in board order.

    The rule: the ranked players first, by mu - 3 sigma descending, then name and version,
    numbered 1, 2, ...; then the ladder entries in placement; then the versions that left
    the field (replaced and retired together); these two groups ordered the same way,
    unranked (None). Every board (terminal, files, report) is ordered by this function.
    """
    def key(player: str) -> tuple[int, float, str, int]:
        exposure_, status = players[player]
        return (GROUPS.get(status, len(GROUPS)), -exposure_, *player_parts(player))

    out: list[tuple[int | None, str]] = []
    rank = 0
    for player in sorted(players, key=key):
        if players[player][1] == RANKED:
            rank += 1
            out.append((rank, player))
        else:
            out.append((None, player))
    return out


@dataclass(frozen=True)
class Standing:
    """One bot's line on the leaderboard."""

    rank: int | None
    """1-based place among the ranked players (:func:`ranking`); None for a player not ranked."""
    bot: str
    """Bot name."""
    exposure: float
    """Conservative skill estimate, mu - 3 sigma; what the board is sorted by."""
    mu: float
    """TrueSkill mean."""
    sigma: float
    """TrueSkill uncertainty."""
    matches: int
    """Matches the bot played (forfeited ones included)."""
    wins: int
    """Matches finished in place 1, shared first places included."""
    average_place: float | None
    """Mean final place; None when the bot played no match."""
    average_total: float | None
    """Mean final game total (lower is better in Cabo); None when the bot played no match."""
    faults: dict[str, int]
    """Fault count by kind, only kinds that occurred, in protocol order."""
    forfeits: int
    """Matches in which the bot was forfeited."""
    voided: int = 0
    """Voided matches the bot was seated in (counted in no other column)."""
    mean_ms: float | None = None
    """Mean time per decision, from sending ``act`` to reading the reply; None without decisions."""
    max_ms: float | None = None
    """Slowest decision; None without decisions."""
    startup_ms: float | None = None
    """Mean time from starting a process to reading its ``ready``, over the processes started for the
    bot (a process that serves several matches is counted once); None when none was timed."""
    status: str = RANKED
    """``ranked``; a ladder's entries also ``placement``, ``replaced`` or ``retired`` (:func:`status_of`)."""
    rank_interval: tuple[int, int] | None = None
    """95% interval of the rank among the ranked players (:func:`.confidence.rank_intervals`); None when not
    ranked."""
    p_ahead_next: float | None = None
    """How sure, at every look, that this player is ahead of the next ranked one (:func:`.evidence.sure_ahead`:
    the level at which ``--until settled`` would call the pair ordered); None for the last ranked player,
    one not ranked, and a pair with too few deals together."""
    tier: int | None = None
    """The rank of the first player of its tier: the run of rows each shown at most the margin behind the one above
    (:func:`.evidence.tiers`); its own rank when it shares a tier with nobody; None when not ranked."""
    tier_shared: bool = False
    """Whether others share its tier (the board shows ``2=``)."""
    next: str | None = None
    """Its relation to the next ranked row (:mod:`arena.evidence.claims`): ``ahead``, ``tier`` or ``open``; None
    for the last ranked row and a row not ranked."""
    luck: float | None = None
    """Points per match the cards gave it over expectation, over its measured matches (:mod:`arena.luck`;
    positive: more points than expected, worse luck in Cabo); None when none was measured."""


@dataclass(frozen=True)
class HeadToHead:
    """How one bot fared against another over the matches they shared."""

    bot: str
    """The bot this line is about."""
    opponent: str
    """The other bot."""
    shared: int
    """Matches both played."""
    ahead: int
    """Shared matches where ``bot`` placed strictly better (lower place) than ``opponent``."""
    behind: int
    """Shared matches where ``bot`` placed strictly worse than ``opponent``."""
    level: int
    """Shared matches where they had the same place."""


@dataclass(frozen=True)
class Leaderboard:
    """Everything the leaderboard outputs are rendered from."""

    standings: tuple[Standing, ...]
    """One line per bot, in rank order."""
    head_to_head: tuple[HeadToHead, ...]
    """One line per ordered pair of bots that shared a match, sorted by (bot, opponent)."""
    matches: int
    """Number of match records the board was built from."""
    voided: tuple[VoidRecord, ...] = ()
    """Voided matches, in schedule order: not rated, not in any count above."""
    model: str = DEFAULT_MODEL
    """The rating model that rated it (:data:`.rating.MODELS`)."""

    def files(self) -> dict[str, str]:
        """Its files (:func:`files`): a :class:`.render.Board`."""
        return files(self)

    def names(self) -> dict[str, str]:
        """Its standings files by format: a :class:`.render.Board`."""
        return {"md": MARKDOWN_NAME, "csv": CSV_NAME, "json": JSON_NAME}

    def terminal(self, everything: bool = False, wide: bool = False, width: int | None = None) -> str:
        """Its standings for a terminal (:func:`text`), every column when ``wide``; it keeps no rows apart."""
        return text(self, wide=wide, width=width)

    def table(self, everything: bool = False, wide: bool = False) -> Table:
        """The standings' cells (:func:`_table`), as the terminal draws them (``wide``: as ``leaderboard.md`` does)."""
        return _table(self, wide)

    def pair(self, bot: str, opponent: str) -> HeadToHead | None:
        """The head-to-head line of ``bot`` against ``opponent``, or None if they never met."""
        for line in self.head_to_head:
            if line.bot == bot and line.opponent == opponent:
                return line
        return None


class _Timing:
    """One bot's reply and start-up times, summed over its seats."""

    def __init__(self) -> None:
        self.decisions = 0
        self.think_ms = 0.0
        self.slowest = 0.0
        self.starts = 0
        self.start_ms = 0.0

    def add(self, stats: SeatStats) -> None:
        self.decisions += stats.decisions
        self.think_ms += stats.think_ms
        self.slowest = max(self.slowest, stats.max_ms)
        if stats.startup_ms is not None:
            self.starts += 1
            self.start_ms += stats.startup_ms

    def mean_ms(self) -> float | None:
        return self.think_ms / self.decisions if self.decisions else None

    def max_ms(self) -> float | None:
        return self.slowest if self.decisions else None

    def startup_ms(self) -> float | None:
        return self.start_ms / self.starts if self.starts else None


def _fault_key(kind: str) -> tuple[int, str]:
    return (FAULT_ORDER.index(kind), "") if kind in FAULT_ORDER else (len(FAULT_ORDER), kind)


@dataclass(frozen=True)
class Confidence:
    """The confidence columns of a board, from one set of claims: the ranked players in the order shown (the
    rating model's, with no row above one the deals show ahead of it), each one's relation to the next and how
    sure it is ahead of it, its tier, and its rank interval (the model's, widened to hold its shown rank and its
    tier's ranks), so that no column contradicts another."""

    order: tuple[str, ...]
    intervals: Mapping[str, tuple[int, int]]
    ahead: Mapping[str, float | None]
    next: Mapping[str, str]
    tiers: Mapping[str, int]
    shared: frozenset[str]
    """Players whose tier holds others too."""

    @classmethod
    def of(cls, ratings: Mapping[str, Rating], ranked: Sequence[str], evidence: PairEvidence,
           margin: float = DEFAULT_MARGIN) -> "Confidence":
        """Over the ``ranked`` players in the rating model's order only: a player in placement or out of the
        field competes for no rank, so it widens nobody's interval. ``evidence``: the deals of every pair,
        judged as ``--until settled`` judges them (:func:`.evidence.judged`, at :data:`.evidence.BOARD_P`)."""
        shown, calls = judged(evidence, ranked, BOARD_P, margin)
        tier = tiers(shown, calls)
        counts: dict[int, int] = {}
        for value in tier.values():
            counts[value] = counts.get(value, 0) + 1
        ahead: dict[str, float | None] = {call.upper: call.sure for call in calls}
        if shown:
            ahead[shown[-1]] = None
        intervals = reconciled_intervals(rank_intervals({name: ratings[name] for name in shown}), shown, tier)
        return cls(tuple(shown), intervals, ahead, {call.upper: call.relation for call in calls}, tier,
                   frozenset(n for n, t in tier.items() if counts[t] > 1))

    def ranking(self, order: Sequence[tuple[int | None, str]]) -> list[tuple[int | None, str]]:
        """:func:`ranking`'s (rank, player) list with its ranked players in the order shown."""
        return [(rank, name) for rank, name in enumerate(self.order, start=1)] + \
            [(rank, name) for rank, name in order if rank is None]


class Tally:
    """The counts of a board (matches, wins, places, totals, forfeits, faults, timings, head-to-head), added
    one record at a time in schedule order: :func:`build` adds every record, and the report keeps one
    between builds (with its ratings, :class:`arena.site.data.RatingHistory`) so that a rebuild adds only
    the new matches. The same records added in the same order give the same sums, to the last bit."""

    def __init__(self) -> None:
        self.matches = 0
        self.played: dict[str, int] = {}
        self.rated: dict[str, int] = {}  # a ladder's replays are played, never rated: they do not place
        self.wins: dict[str, int] = {}
        self.place_sum: dict[str, int] = {}
        self.total_sum: dict[str, int] = {}
        self.luck_sum: dict[str, float] = {}
        self.luck_count: dict[str, int] = {}
        self.forfeits: dict[str, int] = {}
        self.faults: dict[str, dict[str, int]] = {}
        self.pairs: dict[tuple[str, str], list[int]] = {}  # (bot, opponent) -> [shared, ahead, behind, level]
        self.timing: dict[str, _Timing] = {}
        self.evidence = PairEvidence()
        """Every pair's deal differences (a ladder's replays left out), which the tiers and P(>next) judge."""

    def _meet(self, name: str) -> None:
        if name not in self.played:
            self.played[name] = self.rated[name] = self.wins[name] = 0
            self.place_sum[name] = self.total_sum[name] = self.forfeits[name] = self.luck_count[name] = 0
            self.luck_sum[name] = 0.0
            self.faults[name] = {}
            self.timing[name] = _Timing()

    def add(self, record: MatchRecord) -> None:
        """Count one record (after every record before it in schedule order)."""
        self.matches += 1
        self.evidence.add(record)
        replay = is_replay(record.match_id)
        for bot in record.bots:
            self._meet(bot)
        for seat, bot in enumerate(record.bots):
            place = record.places[seat]
            self.played[bot] += 1
            self.rated[bot] += not replay
            self.wins[bot] += int(place == 1)
            self.place_sum[bot] += place
            self.total_sum[bot] += record.totals[seat]
            self.forfeits[bot] += int(bool(record.forfeited[seat]))
            if record.luck:
                self.luck_sum[bot] += record.luck[seat]
                self.luck_count[bot] += 1
            for other_seat, other in enumerate(record.bots):
                if other_seat == seat:
                    continue
                counts = self.pairs.setdefault((bot, other), [0, 0, 0, 0])
                other_place = record.places[other_seat]
                counts[0] += 1
                counts[1 if place < other_place else 2 if place > other_place else 3] += 1
        for seat, kind in record.faults:
            bot_faults = self.faults[record.bots[seat]]
            bot_faults[kind] = bot_faults.get(kind, 0) + 1
        for seat, stats in enumerate(record.stats):
            self.timing[record.bots[seat]].add(stats)

    def copy(self) -> "Tally":
        """A copy that later :meth:`add` calls to either leave the other alone."""
        other = Tally()
        other.matches = self.matches
        for name in ("played", "rated", "wins", "place_sum", "total_sum", "forfeits", "luck_sum", "luck_count"):
            setattr(other, name, dict(getattr(self, name)))
        other.faults = {bot: dict(kinds) for bot, kinds in self.faults.items()}
        other.pairs = {pair: list(counts) for pair, counts in self.pairs.items()}
        other.evidence = self.evidence.copy()
        for bot, timing in self.timing.items():
            other.timing[bot] = copied = _Timing()
            copied.__dict__.update(timing.__dict__)
        return other

    def board(self, ratings: Mapping[str, Rating], bots: Sequence[str],
              voided: Iterable[VoidRecord] = (), left: Mapping[str, str] | None = None,
              placement: int = 0, margin: float = DEFAULT_MARGIN, model: str = DEFAULT_MODEL) -> Leaderboard:
        """The board of what was added: see :func:`build`."""
        names = list(dict.fromkeys(bots))
        names += sorted(set(self.played) - set(names))
        missing = [name for name in names if name not in ratings]
        if missing:
            raise ValueError(f"no rating for bot(s): {', '.join(missing)}")
        zero = Tally()  # what a listed player without a match shows; this tally is left as it is
        for name in names:
            if name not in self.played:
                zero._meet(name)
        played = {**zero.played, **self.played}
        faults, timing = {**zero.faults, **self.faults}, {**zero.timing, **self.timing}
        wins, place_sum, total_sum = {**zero.wins, **self.wins}, {**zero.place_sum, **self.place_sum}, \
            {**zero.total_sum, **self.total_sum}
        forfeits, rated = {**zero.forfeits, **self.forfeits}, {**zero.rated, **self.rated}
        luck_sum, luck_count = {**zero.luck_sum, **self.luck_sum}, {**zero.luck_count, **self.luck_count}
        void = tuple(sorted(voided, key=lambda v: (v.index, v.match_id)))
        void_counts = {name: sum(name in v.bots for v in void) for name in names}

        status = {name: status_of((left or {}).get(name), rated[name], placement) for name in names}
        order = ranking({name: (exposure(ratings[name]), status[name]) for name in names})
        confidence = Confidence.of(ratings, [name for rank, name in order if rank is not None], self.evidence,
                                   margin)
        order = confidence.ranking(order)
        standings = tuple(
            Standing(
                rank=rank,
                bot=name,
                exposure=exposure(ratings[name]),
                mu=float(ratings[name].mu),
                sigma=float(ratings[name].sigma),
                matches=played[name],
                wins=wins[name],
                average_place=place_sum[name] / played[name] if played[name] else None,
                average_total=total_sum[name] / played[name] if played[name] else None,
                faults={kind: faults[name][kind] for kind in sorted(faults[name], key=_fault_key)},
                forfeits=forfeits[name],
                voided=void_counts[name],
                mean_ms=timing[name].mean_ms(),
                max_ms=timing[name].max_ms(),
                startup_ms=timing[name].startup_ms(),
                status=status[name],
                rank_interval=confidence.intervals.get(name),
                p_ahead_next=confidence.ahead.get(name),
                tier=confidence.tiers.get(name),
                tier_shared=name in confidence.shared,
                next=confidence.next.get(name),
                luck=luck_sum[name] / luck_count[name] if luck_count[name] else None,
            )
            for rank, name in order
        )
        head_to_head = tuple(HeadToHead(bot, other, *counts) for (bot, other), counts in sorted(self.pairs.items()))
        return Leaderboard(standings=standings, head_to_head=head_to_head, matches=self.matches, voided=void,
                           model=model)


def build(records: Iterable[MatchRecord], ratings: Mapping[str, Rating],
          bots: Sequence[str], voided: Iterable[VoidRecord] = (), left: Mapping[str, str] | None = None,
          placement: int = 0, margin: float = DEFAULT_MARGIN, model: str = DEFAULT_MODEL) -> Leaderboard:
    """Standings and head-to-head for ``bots`` plus any other bot the records name.

    ``ratings`` must hold every such bot (``rating.rate`` returns exactly those).
    ``voided`` matches are only counted per bot and listed. A ladder passes ``left`` (the
    status of each version out of the field) and its ``placement_matches``, so that its
    board follows :func:`ranking` as its own board and the report do. ``margin``: places per match within
    which two bots are shown in one tier (``settle: {margin}``).
    """
    ordered = schedule_order(records)
    names = roster(bots, ordered)
    missing = [name for name in names if name not in ratings]
    if missing:
        raise ValueError(f"no rating for bot(s): {', '.join(missing)}")
    tally = Tally()
    for record in ordered:
        tally.add(record)
    return tally.board(ratings, names, voided, left, placement, margin, model)


def faults_text(faults: Mapping[str, int], separator: str = " ") -> str:
    """Faults as ``timeout:2 illegal:1`` (``-`` when none), short enough for one column."""
    if not faults:
        return "-"
    return separator.join(f"{kind}:{count}" for kind, count in faults.items())


def number_cell(value: float | None, digits: int) -> str:
    """A table cell: ``value`` to ``digits`` decimals, ``-`` for none (the ladder's board prints the same)."""
    return "-" if value is None else f"{round(value, digits) + 0.0:.{digits}f}"  # + 0.0: never print -0.00


def luck_cell(value: float | None) -> str:
    """A luck cell, signed (``+2.1``: the cards gave 2.1 points more than expected), ``-`` when not measured."""
    return "-" if value is None else f"{round(value, 1) + 0.0:+.1f}"


def rounded(value: float | None) -> float | None:
    """A float as the JSON and CSV files hold it: 3 decimals, never ``-0.0``."""
    return None if value is None else round(value, 3) + 0.0


INTERVAL_LABEL = "95% rank"
"""The title of the rank interval column on every board."""
AHEAD_LABEL = "P(>next)"
"""The title of the sure-ahead-of-the-next-row column on every board."""
INTERVAL_NOTE = (f"{INTERVAL_LABEL}: the ranks the bot holds in 95% of draws from the rating model, reconciled with "
                 "the claims")
"""What the rank interval column means (docs/tournaments.md, "How sure is this ranking")."""
AHEAD_NOTE = (f"{AHEAD_LABEL}: the level at which the deals the row shared with the next one show it ahead, valid "
              "however often the board is looked at (blank below 0.5)")
"""What the sure-ahead column means."""
TIER_NOTE = ("2=: a tier, each row of it shown at most the margin behind the row above it (if behind at all) but "
             "not shown ahead")
"""What a rank such as ``2=`` means (printed on a terminal only under a board that shows one)."""
CONFIDENCE_NOTE = "; ".join((INTERVAL_NOTE, AHEAD_NOTE, TIER_NOTE))
"""The three confidence notes as one sentence: under the Markdown boards and on the report's leaderboard."""
TEXT_HEADER: tuple[str, ...] = ("rank", "bot", EXPOSURE_LABEL, "mu", "sigma", INTERVAL_LABEL, AHEAD_LABEL, "matches",
                                "wins", "avg place", "avg total", "luck", "forfeits", "ms/move", "max ms",
                                "start ms", "faults")
"""Column titles of the wide terminal table (``--wide``) and of the Markdown table, every column (a ladder's add
``status``: :func:`_table`)."""
TERMINAL_HEADER: tuple[str, ...] = ("rank", "bot", EXPOSURE_LABEL, INTERVAL_LABEL, AHEAD_LABEL, "matches", "wins",
                                    "avg place", "luck", "forfeits", "faults")
"""Column titles of the default terminal table: the columns a reader needs, within :data:`.table.TEXT_WIDTH` with
names as long as the bundled bots' (92 columns for the league; mu, sigma, avg total and the times are in the wide
table and the files); its faults cell is the count of every kind, the wide one names the kinds."""
LUCK_NOTE = ("luck: points per match the cards gave the bot over the expected cards (+: more points, worse "
             "luck; the referee's measure, docs/tournaments.md \"Luck and skill\")")
"""Under every board: what luck means."""
MOVE_NOTE = "ms/move: mean time per decision (act sent to reply read)"
MAX_MS_NOTE = "max ms: the slowest decision"
START_NOTE = "start ms: mean time from process start to ready"
FAULTS_NOTE = "faults: how many of any kind (--wide names the kinds)"
"""Under the default terminal table, whose faults cell is a count."""
TIMES_NOTE = "; ".join((LUCK_NOTE, MOVE_NOTE, MAX_MS_NOTE, START_NOTE))
"""Under the Markdown table: what luck and the timing columns measure."""
COLUMN_NOTES: dict[str, str] = {INTERVAL_LABEL: INTERVAL_NOTE, AHEAD_LABEL: AHEAD_NOTE, "luck": LUCK_NOTE,
                                "ms/move": MOVE_NOTE, "max ms": MAX_MS_NOTE, "start ms": START_NOTE}
"""The note under a terminal board for each column title that needs one (:func:`column_notes`)."""


def column_notes(header: Sequence[str], tier: bool = False, counted_faults: bool = False) -> list[str]:
    """The notes for the columns of ``header``, in its order, one a column: :data:`TIER_NOTE` first when ``tier``
    (a rank such as ``2=`` is shown), :data:`FAULTS_NOTE` for a faults column of counts (``counted_faults``)."""
    said = [TIER_NOTE] if tier else []
    said += [COLUMN_NOTES[title] for title in header if title in COLUMN_NOTES]
    return said + ([FAULTS_NOTE] if counted_faults and "faults" in header else [])


def rank_text(rank: int | None) -> str:
    """A rank as a table shows it: ``-`` for a player not ranked."""
    return "-" if rank is None else str(rank)


def standing_rank_text(s: Standing) -> str:
    """The rank cell of a standing: its tier (``2=`` when shared), ``-`` when not ranked."""
    return tier_text(s.rank, s.tier, s.tier_shared)


def _statuses(lb: Leaderboard) -> bool:
    """Whether the board needs a status column: only when somebody is not simply ranked (a ladder)."""
    return any(s.status != RANKED for s in lb.standings)


def _table(lb: Leaderboard, wide: bool = False) -> Table:
    """Its cells: with ``wide`` every column (:data:`TEXT_HEADER`), else the terminal's default ones
    (:data:`TERMINAL_HEADER`); a status column when somebody is not simply ranked. Bot, faults by kind and status
    read better left-aligned."""
    header = list(TEXT_HEADER if wide else TERMINAL_HEADER) + (["status"] if _statuses(lb) else [])
    left = {"bot", "status"} | ({"faults"} if wide else set())
    return Table(header, _rows(lb, header, wide), {col for col, title in enumerate(header) if title in left})


def _cells(s: Standing, kinds: bool) -> dict[str, str]:
    """Every cell of a standing by column title; ``kinds``: faults by kind (``timeout:2 illegal:1``), else their
    count."""
    return {"rank": standing_rank_text(s), "bot": s.bot, EXPOSURE_LABEL: number_cell(s.exposure, 2),
            "mu": number_cell(s.mu, 2), "sigma": number_cell(s.sigma, 2),
            INTERVAL_LABEL: interval_text(s.rank_interval), AHEAD_LABEL: sure_text(s.p_ahead_next),
            "matches": str(s.matches), "wins": str(s.wins),
            "avg place": number_cell(s.average_place, 2), "avg total": number_cell(s.average_total, 2),
            "luck": luck_cell(s.luck), "forfeits": str(s.forfeits), "ms/move": number_cell(s.mean_ms, 1),
            "max ms": number_cell(s.max_ms, 1), "start ms": number_cell(s.startup_ms, 1),
            "faults": faults_text(s.faults) if kinds else str(sum(s.faults.values())), "status": s.status}


def _rows(lb: Leaderboard, header: Sequence[str] = TEXT_HEADER, kinds: bool = True) -> list[list[str]]:
    """The cells of ``header``'s columns, a row per standing."""
    rows = []
    for s in lb.standings:
        cells = _cells(s, kinds)
        rows.append([cells[title] for title in header])
    return rows


def ranking_note(lb: Leaderboard) -> str:
    """The sentence under a board saying how it is ordered (with the unranked rows, if any)."""
    return ranking_rule(lb.model) + ("; " + UNRANKED_NOTE if _statuses(lb) else "")


def voided_summary(voided: Sequence[VoidRecord], limit: int = 10) -> str:
    """One line: how many matches were voided, which, and why ("" when none).

    Matches voided for the same reason share it: ``2 matches voided: c1/a+k/r0, c1/a+k/r1 (killed ...)``.
    At most ``limit`` ids are named per reason.
    """
    if not voided:
        return ""
    by_reason: dict[str, list[str]] = {}
    for void in voided:
        by_reason.setdefault(void.reason, []).append(void.match_id)
    parts = []
    for reason, ids in by_reason.items():
        more = f" and {len(ids) - limit} more" if len(ids) > limit else ""
        parts.append(f"{', '.join(ids[:limit])}{more} ({reason})")
    count = len(voided)
    return f"{count} match{'' if count == 1 else 'es'} voided: " + "; ".join(parts)


def text(lb: Leaderboard, voided: bool = True, wide: bool = False, width: int | None = None) -> str:
    """The standings as aligned columns for a terminal (names left, numbers right): the default columns, or with
    ``wide`` every column. Under them a note for each column that needs one, the number of matches and the
    ranking rule, every note wrapped to ``width`` (None: the terminal's, :func:`.table.terminal_width`), a name
    never cut; then, with ``voided`` and if there are any, the line of :func:`voided_summary`, whole (the
    line ``arena run`` prints too, match ids that a reader copies).
    """
    table = _table(lb, wide)
    said = column_notes(table.header, any(s.tier_shared for s in lb.standings), counted_faults=not wide)
    said.append(f"{lb.matches} matches; {ranking_note(lb)}")
    lines = table.text() + notes(said, width)
    if voided and lb.voided:
        lines.append(voided_summary(lb.voided))
    return "\n".join(lines) + "\n"


def standing_json(s: Standing) -> dict[str, Any]:
    """One standing as ``leaderboard.json`` holds it, floats rounded to 3 decimals: the machine row the report's
    table is made from too, so the file and the page never disagree."""
    return {"rank": s.rank, "bot": s.bot, "exposure": rounded(s.exposure), "mu": rounded(s.mu),
            "sigma": rounded(s.sigma), "matches": s.matches, "wins": s.wins,
            "average_place": rounded(s.average_place), "average_total": rounded(s.average_total),
            "faults": dict(s.faults), "forfeits": s.forfeits, "voided": s.voided,
            "mean_ms": rounded(s.mean_ms), "max_ms": rounded(s.max_ms), "startup_ms": rounded(s.startup_ms),
            "status": s.status, "rank_interval": None if s.rank_interval is None else list(s.rank_interval),
            "p_ahead_next": rounded(s.p_ahead_next), "tier": s.tier, "next": s.next, "luck": rounded(s.luck)}


def to_json(lb: Leaderboard) -> dict[str, Any]:
    """Machine-readable form of the board: floats rounded to 3 decimals."""
    return {
        "matches": lb.matches,
        "rating_model": lb.model,
        "standings": [standing_json(s) for s in lb.standings],
        "head_to_head": [
            {"bot": h.bot, "opponent": h.opponent, "shared": h.shared, "ahead": h.ahead,
             "behind": h.behind, "level": h.level}
            for h in lb.head_to_head
        ],
        "voided": [{"index": v.index, "match": v.match_id, "bots": list(v.bots), "reason": v.reason}
                   for v in lb.voided],
    }


def _csv_cell(value: float | None) -> object:
    return "" if value is None else rounded(value)


def standings_csv(lb: Leaderboard) -> str:
    """``leaderboard.csv``: a header row then one row per bot in board order (rank empty when not ranked)."""
    rows: list[Sequence[object]] = [STANDING_COLUMNS]
    rows.extend(("" if s.rank is None else s.rank, s.bot, _csv_cell(s.exposure), _csv_cell(s.mu),
                 _csv_cell(s.sigma), s.matches, s.wins, _csv_cell(s.average_place), _csv_cell(s.average_total),
                 s.forfeits, faults_text(s.faults, ";") if s.faults else "", s.voided, _csv_cell(s.mean_ms),
                 _csv_cell(s.max_ms), _csv_cell(s.startup_ms), s.status,
                 *(("", "") if s.rank_interval is None else s.rank_interval), _csv_cell(s.p_ahead_next),
                 "" if s.tier is None else s.tier, s.next or "", _csv_cell(s.luck))
                for s in lb.standings)
    return csv_text(rows)


def head_to_head_csv(lb: Leaderboard) -> str:
    """``head_to_head.csv``: one row per ordered pair of bots that met."""
    rows: list[Sequence[object]] = [HEAD_TO_HEAD_COLUMNS]
    rows.extend((h.bot, h.opponent, h.shared, h.ahead, h.behind, h.level) for h in lb.head_to_head)
    return csv_text(rows)


def voided_csv(lb: Leaderboard) -> str:
    """``voided.csv``: one row per voided match (only the header when there is none)."""
    rows: list[Sequence[object]] = [VOIDED_COLUMNS]
    rows.extend((v.index, v.match_id, ";".join(v.bots), v.reason) for v in lb.voided)
    return csv_text(rows)


def markdown(lb: Leaderboard) -> str:
    """``leaderboard.md``: the standings table, a head-to-head matrix in rank order, then any voided matches."""
    voids = f"; {len(lb.voided)} voided, not rated (listed at the end)" if lb.voided else ""
    lines = ["# Leaderboard", "", f"{lb.matches} matches{voids}; {ranking_note(lb)}.", "",
             *_table(lb, wide=True).markdown()]
    lines += ["", TIMES_NOTE, "", CONFIDENCE_NOTE]
    names = [s.bot for s in lb.standings]
    lookup = {(h.bot, h.opponent): h for h in lb.head_to_head}
    lines += ["", "## Head to head", "",
              "Row bot vs column bot: times the row bot finished strictly ahead / matches they shared "
              "(– never met).", ""]
    lines.append(markdown_row(["", *names]))
    lines.append("|---|" + "|".join("---:" for _ in names) + "|")
    for bot in names:
        cells = [bot]
        for opponent in names:
            line = lookup.get((bot, opponent))
            cells.append("·" if bot == opponent else "–" if line is None else f"{line.ahead}/{line.shared}")
        lines.append(markdown_row(cells))
    if lb.voided:
        lines += ["", "## Voided matches", "",
                  "Matches whose worker process was killed twice while they were in play: not rated, not "
                  "counted above, not played again on resume.", "", markdown_row(["match", "bots by seat", "reason"]),
                  "|---|---|---|"]
        lines.extend(markdown_row([v.match_id, ", ".join(v.bots), v.reason]) for v in lb.voided)
    return "\n".join(lines) + "\n"


def files(lb: Leaderboard) -> dict[str, str]:
    """The five leaderboard files by name."""
    return {
        JSON_NAME: json.dumps(to_json(lb), indent=2, sort_keys=True, ensure_ascii=False) + "\n",
        CSV_NAME: standings_csv(lb),
        MARKDOWN_NAME: markdown(lb),
        HEAD_TO_HEAD_NAME: head_to_head_csv(lb),
        VOIDED_NAME: voided_csv(lb),
    }


def write_files(lb: Leaderboard, directory: str | os.PathLike[str]) -> list[Path]:
    """Write the five leaderboard files into ``directory`` (created if missing); returns their paths."""
    return write(lb, directory)
