"""Play one match between bot processes: a self-contained, picklable job.

:class:`MatchJob` goes in (rules, seed, bots, limits), :class:`MatchOutcome`
comes out (result, faults, timings, compressed omniscient replay). Nothing here
writes files, so a job can run in any worker process or on another machine and
only the driver stores results.
"""

from __future__ import annotations

import dataclasses
import gzip
import time
from dataclasses import dataclass, field
from typing import Any, Generator, Sequence

from ..bots import BotConfigError, BotSpec
from ..bots.buildlock import bot_lock
from ..bots.launch import launch_spec
from ..game.registry import DEFAULT_GAME, game_named
from ..game.framepack import packed_frames
from ..game.replay import Notes
from ..game.seam import GameRules, GameState
from ..luck import LUCK_DIGITS, metered_match, model_label
from ..luck.meter import Meter
from ..sandbox import Backend, Limits, SandboxError, resolve_backend
from . import protocol
from .faults import FAULT_POLICIES, BotFault, Fault, FaultKind
from .helpermark import MarkerScan
from .link import BotLink, TimeControl, collect_ready, collect_replies
from .replay_notes import FALLBACK, fault_record, forfeit_record, log_records, result_record
from .seatlog import SeatLog
from .spare import LOCAL, Held, Spare

_LEGAL_JSON: dict[Any, bytes] = {}
"""Encoded legal lists by ``Match.legal_keyed`` key: most of every act line, encoded once per process."""
_LEGAL_JSON_MAX = 2048


@dataclass(frozen=True)
class MatchJob:
    """Everything needed to play one match, and nothing that only one machine has."""

    match_id: str
    """Stable id, e.g. ``t-0042``, for results and replays; sent to bots in ``hello`` unless ``wire_id`` is set."""
    rules: GameRules
    """Preset and options."""
    seed: int | str
    """Seed of every chance event of the match."""
    bots: tuple[BotSpec, ...]
    """Bot of each seat, seat order."""
    time: TimeControl = field(default_factory=TimeControl)
    """Time limits."""
    sandbox: str = "auto"
    """Sandbox backend name."""
    limits: Limits = field(default_factory=Limits)
    """Resource limits per bot process."""
    fault_policy: str = "forfeit"
    """``forfeit`` or ``fallback``."""
    max_faults: int = 3
    """Under ``fallback``: faults after which the seat is forfeited anyway."""
    private: tuple[str, ...] = ()
    """Directories bots must not read (results with replays of finished deals, configurations)."""
    wire_id: str | None = None
    """The match id bots get in ``hello``, when it must differ from ``match_id``: a tournament's ids
    name the bots at the table, so by default its bots get an opaque one instead."""
    game: str = DEFAULT_GAME
    """The game's name in :mod:`arena.game.registry`: a name, not the game, so the job stays picklable."""
    frames: bool = False
    """Make the viewer's frames of the match too (:attr:`MatchOutcome.frames`): a tournament that will have a
    report asks for them, so that its report copies them instead of rebuilding every match."""
    luck: bool = True
    """Measure each seat's luck with the referee's meter (:mod:`arena.luck`) as the match is played: what the
    cards gave it over expectation (:attr:`MatchOutcome.luck`); a game without a value function is unmetered."""
    per_process: int = 0
    """The most matches one bot process may serve (``matches_per_process``): a process kept from an earlier
    batch (:mod:`.spare`) is taken only within it; 0: none is taken."""

    def __post_init__(self) -> None:
        if self.fault_policy not in FAULT_POLICIES:
            raise ValueError(f"fault policy {self.fault_policy!r}: expected one of {', '.join(FAULT_POLICIES)}")

    @property
    def hello_id(self) -> str:
        """The match id sent to the bots."""
        return self.match_id if self.wire_id is None else self.wire_id


@dataclass(frozen=True)
class SeatStats:
    """Timing of one seat's bot."""

    decisions: int
    """Decisions asked of the bot and answered or timed out."""
    think_ms: float
    """Total time from writing ``act`` to reading the reply."""
    max_ms: float
    """Slowest reply."""
    startup_ms: float | None = None
    """From starting the bot's process to reading its ``ready``; None when the process was not
    started for this match (reused from an earlier match of a batch) or never answered."""


def stats_json(stats: SeatStats) -> dict[str, Any]:
    """One seat's timing as stored and printed: milliseconds rounded to microseconds."""
    startup = None if stats.startup_ms is None else round(stats.startup_ms, 3)
    return {"decisions": stats.decisions, "think_ms": round(stats.think_ms, 3), "max_ms": round(stats.max_ms, 3),
            "startup_ms": startup}


def stats_of_json(data: dict[str, Any]) -> SeatStats:
    """The inverse of :func:`stats_json`; timing stored before start-ups were timed has no ``startup_ms``."""
    return SeatStats(int(data["decisions"]), float(data["think_ms"]), float(data["max_ms"]), data.get("startup_ms"))


@dataclass(frozen=True)
class MatchOutcome:
    """What a finished match produced."""

    match_id: str
    seed: int | str
    bots: tuple[str, ...]
    """Bot name per seat."""
    totals: tuple[int, ...]
    """Final game totals per seat."""
    places: tuple[int, ...]
    """Final places: forfeited seats rank below every seat without a forfeit."""
    forfeited: tuple[bool, ...]
    """Seats whose bot was forfeited (played out by the fallback policy)."""
    faults: tuple[Fault, ...]
    """Every fault, in order."""
    reason: str
    """How the game ended."""
    rounds: tuple[tuple[int, ...], ...]
    """Round scores per round."""
    decisions: int
    """Actions applied."""
    seconds: float
    """Wall time of the whole match, process start-up included."""
    play_seconds: float
    """Wall time of the decision loop alone (no start-up, no shutdown)."""
    stats: tuple[SeatStats, ...]
    """Per-seat timing."""
    sandbox: str
    """Backend that ran the bots."""
    replay: bytes = field(repr=False)
    """gzip-compressed omniscient replay (JSON lines)."""
    logs: tuple[str, ...] = field(default=(), repr=False)
    """Per seat, the end of what its bot wrote on stderr during this match (``limits.log_bytes``
    at most, after a cut marker when more was written); see :mod:`arena.match.seatlog`."""
    decision_ms: tuple[float | None, ...] = field(default=(), repr=False)
    """Per decision, in order (one per action applied, so ``decisions`` long at most), the milliseconds
    from sending ``act`` to reading the reply, to 0.1 ms; None where the bot did not choose (the
    fallback policy did). Kept here, not in the replay: a replayed match gives the same replay bytes,
    and times never repeat. Empty in an outcome from before times were kept."""
    luck: tuple[float, ...] = ()
    """Per seat, the points the cards gave it over expectation (positive: more points than expected, worse in
    Cabo), summed over every card of the match (:mod:`arena.luck`); empty when the match was not measured."""
    luck_model: str = ""
    """The value function that measured :attr:`luck` (:func:`arena.luck.model_label`); empty when not measured."""
    frames: tuple[str, str, bytes] | None = field(default=None, repr=False)
    """The viewer's frames of the match when the job asked for them: (frames format, packing, packed bytes),
    made from :attr:`replay` and :attr:`decision_ms` as a report would make them (:mod:`arena.game.framepack`);
    None when not asked for, or when they could not be made (a report then makes them from the replay)."""

    def replay_text(self) -> str:
        return gzip.decompress(self.replay).decode()

    def to_json(self) -> dict[str, Any]:
        return {
            "match": self.match_id, "seed": self.seed, "bots": list(self.bots), "totals": list(self.totals),
            "places": list(self.places), "forfeited": list(self.forfeited), "reason": self.reason,
            "rounds": [list(r) for r in self.rounds], "decisions": self.decisions,
            "seconds": round(self.seconds, 4), "play_seconds": round(self.play_seconds, 4), "sandbox": self.sandbox,
            "faults": [f.to_json() for f in self.faults],
            "stats": [stats_json(s) for s in self.stats],
            "logs": list(self.logs),
            **({"luck": [round(v, LUCK_DIGITS) for v in self.luck], "luck_model": self.luck_model} if self.luck else {}),
        }


def final_places(totals: tuple[int, ...], forfeited: tuple[bool, ...], game: str = DEFAULT_GAME) -> tuple[int, ...]:
    """Places by total (as ``game`` ranks totals), every forfeited seat below every seat that was not."""
    places = game_named(game).places
    clean = [t for t, f in zip(totals, forfeited) if not f]
    lost = [t for t, f in zip(totals, forfeited) if f]
    clean_places, lost_places = places(clean), places(lost)
    out, ci, li = [], 0, 0
    for f in forfeited:
        if f:
            out.append(len(clean) + lost_places[li])
            li += 1
        else:
            out.append(clean_places[ci])
            ci += 1
    return tuple(out)


class _Table:
    """The running match: engine, links, faults. One instance per :func:`play_match`."""

    def __init__(self, job: MatchJob, carried: Sequence[BotLink | None] = (), serves: Sequence[int] = ()) -> None:
        self.job = job
        self.players = len(job.bots)
        self.game = game_named(job.game)
        metered = metered_match(job.game, job.rules, self.players, job.seed) if job.luck else None
        self.meter: Meter | None = metered[1] if metered else None
        self.match: GameState = metered[0] if metered else self.game.new_match(job.rules, self.players, job.seed)
        self.links: list[BotLink | None] = list(carried) or [None] * self.players
        self.serves = list(serves) or [1] * self.players
        """Per seat, matches a process started now may serve (this one included): its CPU allowance."""
        self.forfeited = [False] * self.players
        self.fault_count = [0] * self.players
        self.faults: list[Fault] = []
        self.notes: list[dict[str, Any]] = []
        """Replay records of faults and forfeits, in the order they happened."""
        self.fallback_moves: list[int] = []
        """Decision numbers of the actions the fallback policy chose."""
        self.reply_ms: dict[int, float] = {}
        """Decision number -> milliseconds its bot took to choose it (:attr:`MatchOutcome.decision_ms`)."""
        self.cursor = [0] * self.players
        self.request_id = 0
        self.logs = [SeatLog(job.limits.log_bytes) for _ in range(self.players)]
        """Per seat, what its bot wrote on stderr during this match."""
        self.marks = [MarkerScan() for _ in range(self.players)]
        """Per seat, the helper fallback lines in its stderr (:mod:`arena.match.helpermark`)."""

    # ------------------------------------------------------------ logs
    def take_log(self, seat: int, link: BotLink | None) -> None:
        """Move the stderr the arena has read from ``link`` into the seat's log, stamped with the decision now."""
        if link is not None:
            news = link.new_stderr()
            if news is not None:
                self.logs[seat].add(len(self.match.history), *news)
                self.marks[seat].add(len(self.match.history), self.match.round_no, *news)

    # ------------------------------------------------------------ faults
    def fault(self, seat: int, fault: BotFault) -> None:
        link = self.links[seat]
        tail = link.stderr_tail() if link else ""
        self.take_log(seat, link)
        recorded = Fault(seat, self.job.bots[seat].name, fault.kind, fault.detail, tail[-2000:],
                         self.match.round_no, len(self.match.history))
        self.faults.append(recorded)
        self.notes.append(fault_record(recorded))
        self.fault_count[seat] += 1
        if self.job.fault_policy == "forfeit" or fault.fatal or self.fault_count[seat] >= self.job.max_faults:
            self.forfeit(seat)

    def helper_fallbacks(self) -> None:
        """One ``helper_fallback`` fault per seat whose stderr had fallback lines, at the first of them.

        Recorded when the match is over (the count is known then) and never counted towards
        ``max_faults`` or a forfeit: the helper's move was legal and the match went on.
        """
        for seat, scan in enumerate(self.marks):
            seen = scan.sighting
            if seen is None:
                continue
            times = "once" if seen.count == 1 else f"{seen.count} times"
            detail = (f"the bot's code failed and its helper played legal index 0 instead, {times} in this match "
                      "(its stderr says why, on lines starting 'cabo-bot: fallback:')")
            recorded = Fault(seat, self.job.bots[seat].name, FaultKind.HELPER_FALLBACK, detail,
                             seen.context[-2000:], seen.round, seen.decision)
            self.faults.append(recorded)
            self.notes.append(fault_record(recorded))
        self.faults.sort(key=lambda fault: fault.decision)  # stable: the others are in order already

    def forfeit(self, seat: int) -> None:
        if not self.forfeited[seat]:
            self.notes.append(forfeit_record(seat, self.job.bots[seat].name, len(self.match.history),
                                             self.match.round_no))
        self.forfeited[seat] = True
        link, self.links[seat] = self.links[seat], None
        if link is not None:
            link.kill()
            self.take_log(seat, link)  # the last of its stderr, read as it was killed

    # ------------------------------------------------------------ phases
    def start(self, backend_name: str) -> str:
        backend, why = resolve_backend(backend_name)
        fresh = [spec.directory for spec, link in zip(self.job.bots, self.links) if link is None]
        with bot_lock(fresh, exclusive=False):  # another arena's build of these bots waits, and they for it
            self._start(backend)
        return backend.name

    def _start(self, backend: Backend) -> None:
        """Start the bots that have no process yet, then hello every bot and read every ready."""
        for seat, spec in enumerate(self.job.bots):
            if self.links[seat] is not None:
                continue  # a process kept from an earlier match of a batch: it gets a new hello
            limits = self.job.limits
            if self.serves[seat] > 1:  # cpu_seconds is an allowance per match
                limits = dataclasses.replace(limits, cpu_seconds=limits.cpu_seconds * self.serves[seat])
            try:
                process = backend.start(launch_spec(spec, limits, self.job.private))
            except (SandboxError, OSError, BotConfigError) as exc:
                self.fault(seat, BotFault(FaultKind.STARTUP, f"could not start {list(spec.command)}: {exc}"))
                continue
            self.links[seat] = BotLink(spec.name, process, self.job.time)
        tc = self.job.time
        for seat in range(self.players):  # every bot starts its clock at once, then each is read
            link = self.links[seat]
            if link is None:
                continue
            try:
                link.send_hello(protocol.hello(self.job.hello_id, seat, self.players, self.job.rules,
                                               tc.move_ms, tc.startup_ms, tc.bank_ms, self.job.game))
            except BotFault as fault:
                self.fault(seat, fault)
        waiting = {seat: link for seat, link in enumerate(self.links) if link is not None}
        for seat, failure in sorted(collect_ready(waiting).items()):
            self.fault(seat, failure)
        for seat, link in enumerate(self.links):
            self.take_log(seat, link)

    def decide(self) -> None:
        """Ask every seat that must act now (all at once), then apply their choices."""
        match, game = self.match, self.game
        asked = match.asked()
        legal = {seat: match.legal_keyed(seat) for seat in asked}
        waiting: dict[int, tuple[BotLink, list[dict[str, Any]]]] = {}
        for seat in asked:
            link = self.links[seat]
            if link is None:
                continue
            self.request_id += 1
            key, actions = legal[seat]
            encoded = _LEGAL_JSON.get(key)
            if encoded is None:
                if len(_LEGAL_JSON) >= _LEGAL_JSON_MAX:
                    _LEGAL_JSON.clear()
                encoded = _LEGAL_JSON[key] = protocol.encode_value(actions)
            try:
                link.request(self.request_id, protocol.act_line(self.request_id, game.observe(match, seat),
                                                                self.new_events(seat), encoded))
                waiting[seat] = (link, actions)
            except BotFault as fault:
                self.fault(seat, fault)
        choices: dict[int, int] = {}
        for seat, answer in collect_replies(waiting).items():
            if isinstance(answer, BotFault):
                self.fault(seat, answer)
            else:
                choices[seat] = answer
        for seat, (link, _) in waiting.items():
            if link.process.stderr_total != link.log_mark:  # inline: this runs for every decision
                self.take_log(seat, link)
        for seat in asked:
            index = choices.get(seat)
            if index is None:
                index = game.fallback(legal[seat][1])
                self.fallback_moves.append(len(match.history))
            else:
                self.reply_ms[len(match.history)] = round(waiting[seat][0].last_ms, 1)
            match.apply_legal(seat, index)

    def new_events(self, seat: int) -> list[dict[str, Any]]:
        events = self.game.events_for(self.match, seat, self.cursor[seat])
        self.cursor[seat] = len(self.match.events)
        return events

    def notify_round_end(self, since: int) -> None:
        if not self.game.round_ended(self.match, since):
            return
        for seat, link in enumerate(self.links):
            if link is None:
                continue
            try:
                link.notify(protocol.update(self.new_events(seat)))
            except BotFault as fault:
                self.fault(seat, fault)

    def finish(self, outcome: dict[str, Any], keep: Sequence[bool]) -> list[BotLink | None]:
        """Send ``over``; then close every bot but those ``keep`` names (per seat) and fit for another match.

        Fit: no fault in this match (a late reply to a timed-out request must never be
        read as an answer in the next match) and the process still running. A seat's log
        ends here: for a kept process with what it had written when ``over`` was sent, for
        the others with everything up to their exit.
        """
        kept: list[BotLink | None] = [None] * self.players
        for seat, link in enumerate(self.links):
            if link is None:
                continue
            try:
                link.notify(protocol.over({**outcome, "seat": seat}))
            except BotFault:
                continue  # the match is over; a bot that will not listen is simply closed
            if keep[seat] and not self.fault_count[seat] and link.process.alive():
                kept[seat] = link
        ending = [link for link in self.links if link is not None and link not in kept]
        for link in ending:  # every bot sees EOF now and exits in parallel with the others
            link.end_input()
        for link in ending:
            link.close()
        for seat, link in enumerate(self.links):
            if link is not None and link in kept:
                link.process.drain_stderr()
            self.take_log(seat, link)
            self.logs[seat].close(len(self.match.history))
        return kept

    def kill_all(self, spare: Sequence[BotLink | None] = ()) -> None:
        for link in self.links:
            if link is not None and link not in spare:
                link.kill()


def play_match(job: MatchJob) -> MatchOutcome:
    """Play ``job`` to the end and return its outcome; bots never outlive this call."""
    return _play(job, (), keep=[False] * len(job.bots), serves=[1] * len(job.bots))[0]


def play_batch(jobs: Sequence[MatchJob], spare: Spare | None = None) -> Generator[MatchOutcome, None, None]:
    """Play ``jobs`` in order, each bot's process serving every later match of its bot in the batch.

    From one match to the next a bot may sit in another seat and face other bots: it gets
    ``over`` and then a new ``hello``, as the protocol allows. No two jobs may share a
    deal (seed), so a process never sees a deal twice (the rotations of a table share
    one). A bot whose process faulted or exited gets a fresh process; a process whose bot
    plays no later match of the batch is closed after its last one. Outcomes are the same
    as playing each job alone for any bot that starts afresh on ``hello``, as the protocol
    asks. Closing the iterator early kills the processes it holds.

    ``spare`` (a worker's, :mod:`.spare`): the batch first takes the kept processes that may serve it
    instead of starting new ones, and, once its last match is played, the processes of that match
    are kept there for a later batch instead of closed.
    """
    seeds = [job.seed for job in jobs]
    if len(set(seeds)) != len(seeds):
        raise ValueError("a batch must not play one deal twice: a process would see it twice")
    held: dict[BotLink, Held] = {}  # with a spare: every process of the batch and what a later one must know
    if spare is not None:
        held = {h.link: h for h in spare.take(jobs).values()}
    warm: dict[BotSpec, BotLink] = {h.spec: link for link, h in held.items()}
    try:
        for number, job in enumerate(jobs):
            later = [set(other.bots) for other in jobs[number + 1:]]
            serves = [1 + sum(spec in bots for bots in later) for spec in job.bots]
            last = spare is not None and number == len(jobs) - 1 and job.per_process > 0  # else none is taken
            carried = [warm.pop(spec, None) for spec in job.bots]
            # At the batch's end, a process is kept only if it may serve another match: else it is closed, and
            # its log runs to its exit, as a process that ends with its match always has
            again = [last and (len(held[link].seen) if link is not None and link in held else 0) + 1 < job.per_process
                     for link in carried]
            outcome, kept = _play(job, carried, keep=[a or n > 1 for a, n in zip(again, serves)], serves=serves)
            for seat, (spec, link) in enumerate(zip(job.bots, kept)):
                if link is not None and spec in warm:
                    link.kill()  # the same bot in two seats of one match: one warm process is enough
                elif link is not None:
                    warm[spec] = link
                    if spare is not None:
                        if link is not carried[seat]:  # started for this match: its allowance is set now
                            held[link] = Held(spec, link, job.limits.cpu_seconds * max(1, serves[seat]),
                                              outcome.sandbox in LOCAL)
                        held[link].seen.add(job.seed)
            if last and spare is not None:
                spare.keep(held[link] for link in warm.values())
                warm.clear()
            yield outcome
    finally:
        for link in warm.values():
            link.kill()


def _play(job: MatchJob, carried: Sequence[BotLink | None], keep: Sequence[bool],
          serves: Sequence[int]) -> tuple[MatchOutcome, list[BotLink | None]]:
    """One match on the ``carried`` processes (new ones where None); returns the processes kept."""
    started = time.perf_counter()
    table = _Table(job, carried, serves)
    links_used: list[BotLink | None] = []
    kept: list[BotLink | None] = []
    try:
        backend = table.start(job.sandbox)
        links_used = list(table.links)
        match = table.match
        loop_start = time.perf_counter()
        while not match.over:
            since = len(match.events)
            table.decide()
            table.notify_round_end(since)
        play_seconds = time.perf_counter() - loop_start
        result = table.game.result(match)
        forfeited = tuple(table.forfeited)
        final = final_places(result.totals, forfeited, job.game)
        kept = table.finish({"totals": list(result.totals), "places": list(final), "reason": result.reason,
                             "forfeited": list(forfeited)}, keep)
        table.helper_fallbacks()
    finally:
        table.kill_all(spare=kept)
    stats = tuple(SeatStats(l.decisions, l.think_ms, l.max_ms, l.startup_ms) if l else SeatStats(0, 0.0, 0.0)
                  for l in links_used)
    meta = {"match": job.match_id, "wire_id": job.hello_id, "bots": [b.name for b in job.bots],
            "time": protocol.time_limits(job.time.move_ms, job.time.startup_ms, job.time.bank_ms)}  # as hello said
    # A seat's log pieces go before the faults noted at the same decision: they were written before them.
    logs = [record for seat, log in enumerate(table.logs) for record in log_records(seat, log)]
    notes = Notes(logs + table.notes, dict.fromkeys(table.fallback_moves, FALLBACK),
                  (result_record(result.totals, final, forfeited, result.reason),))
    text = table.game.replay_bytes(match, meta, notes)
    # Level 6: half the time of gzip's default 9 for about 6% more bytes (docs/performance.md).
    replay = gzip.compress(text, compresslevel=6, mtime=0)
    decision_ms = tuple(table.reply_ms.get(number) for number in range(len(match.history)))
    terms = table.meter.terms() if table.meter else None  # each card's luck, for the viewer's frames
    return MatchOutcome(
        match_id=job.match_id, seed=job.seed, bots=tuple(b.name for b in job.bots), totals=result.totals,
        places=final, forfeited=forfeited, faults=tuple(table.faults), reason=result.reason,
        rounds=result.rounds, decisions=len(match.history),
        seconds=time.perf_counter() - started, play_seconds=play_seconds, stats=stats, sandbox=backend, replay=replay,
        logs=tuple(log.text() for log in table.logs),
        decision_ms=decision_ms, frames=packed_frames(text, decision_ms, terms) if job.frames else None,
        luck=() if table.meter is None else tuple(round(v, LUCK_DIGITS) for v in table.meter.luck),
        luck_model="" if table.meter is None else model_label(table.meter.model),
    ), kept
