"""``arena bot check``: what a bot author runs before submitting a bot.

It plays the bot at the tables its manifest supports (every preset and table size of the
game when it declares nothing; Cabo unless told another registered game) against the bundled
random bot (or an opponent of that game), then two matches on one process,
as tournaments do. It prints only what went wrong: one finding per kind of fault, each
with a line of cause and a line of remedy and the bot's last stderr lines. A bot that
never starts is that one finding: every other check would only fail the same way.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Callable, Sequence

from ..bots import BotConfigError, BotSpec, build_bot, load_bot
from ..bots import env as bot_env
from ..bots.supports import seat_text
from ..game.registry import DEFAULT_GAME, game_named
from ..game.seam import GameRules
from ..match.faults import FaultKind
from ..match.link import TimeControl
from ..match.runner import MatchJob, MatchOutcome, play_batch, play_match
from ..sandbox import get_backend
from .diagnosis import STDERR_LINES, Diagnosis, diagnose, stderr_tail

RANDOM_BOT = Path("bots") / "random"
"""The default opponent: the bundled random bot, looked up from the current directory, then beside the package."""
UNDECLARED_SIZES = (2, 3, 4, 5)
"""Table sizes played for a bot that declares none, those the game seats: each at least once, however few
matches per preset were asked for (a bot that breaks at 5 seats must not check clean)."""
WARNING = re.compile(r"\bwarn(ing)?\b", re.IGNORECASE)
"""A line of the bot's stderr that warns: shown with the results (a bot that says it plays a table badly)."""
WARNINGS_SHOWN = 5


def default_opponent() -> Path:
    """The bundled random bot of a checkout (or an editable install), else the one shipped in the package:
    an installed arena has no ``bots/`` folder."""
    for candidate in (Path.cwd() / RANDOM_BOT, Path(__file__).resolve().parents[2] / RANDOM_BOT):
        if candidate.is_dir():
            return candidate
    shipped = Path(str(resources.files("arena.kits").joinpath("opponent")))
    if (shipped / "bot.yaml").is_file():
        return shipped
    raise BotConfigError("the bundled random bot (bots/random) was not found: run from the repository root "
                         "or give an opponent bot directory with --opponent")


def _in_image(opponent: BotSpec, spec: BotSpec, sandbox: str) -> BotSpec:
    """Under docker every bot needs an image: an opponent that names none plays in the checked bot's,
    which runs that bot's language (the bundled random bot needs a ``python3`` at the host's path)."""
    if sandbox != "docker" or opponent.image is not None:
        return opponent
    if spec.image is None:
        raise BotConfigError(f"{spec.name}: the docker sandbox runs every bot in an image, and its bot.yaml names "
                             "none: set image: to an image on the engine with what the bot runs (docs/sandbox.md)")
    return dataclasses.replace(opponent, image=spec.image)


@dataclass(frozen=True)
class Table:
    """One check match: the preset, how many players, and the checked bot's seat."""

    preset: str
    players: int
    seat: int


@dataclass
class Finding:
    """One kind of fault, with where it first happened and how often."""

    diagnosis: Diagnosis
    where: str
    """Preset, table size, seat, round, decision and seed of the first one."""
    stderr: list[str]
    """The bot's last stderr lines at the first one (or the last lines a failed build printed)."""
    label: str = "stderr"
    """What the lines of ``stderr`` are, in front of each."""
    faults: int = 1
    matches: set[str] = field(default_factory=set)
    """Ids of the matches it happened in."""

    def lines(self, number: int, total_matches: int) -> list[str]:
        """A heading, the cause, the remedy and the stderr tail."""
        often = "" if self.faults == 1 else \
            f"{self.faults} times in {len(self.matches)} of {total_matches} matches; first: "
        return [f"finding {number}: {self.diagnosis.title} ({often}{self.where})",
                f"  cause: {self.diagnosis.cause}",
                f"  remedy: {self.diagnosis.remedy}",
                *(f"  {self.label}| {line}" for line in self.stderr)]


@dataclass
class CheckReport:
    """Result of checking one bot."""

    lines: list[str] = field(default_factory=list)
    """What to print."""
    findings: list[Finding] = field(default_factory=list)
    """What went wrong, one entry per kind."""
    matches: int = 0
    """Matches played."""
    stopped: str = ""
    """Why nothing more was checked after the first finding (a failed build, a bot that never started)."""
    warnings: dict[str, str] = field(default_factory=dict)
    """The bot's own warning lines (stderr lines that say warn/warning), each with the first table it wrote it at."""

    @property
    def ok(self) -> bool:
        """True if the bot committed no fault (and built)."""
        return not self.findings


def plan(spec: BotSpec, matches_per_preset: int, venue: GameRules | None = None,
         seats: Sequence[int] = (), game: str = DEFAULT_GAME) -> dict[str, list[Table]]:
    """The check matches per preset: every declared table size at least once, the bot's seat moving round.
    With ``venue`` (a ladder's rules) and its ``seats``: only those rules, at the sizes the bot plays of them."""
    supports = spec.supports
    if venue is not None:
        sizes: Sequence[int] = [n for n in sorted(set(seats)) if supports.plays(venue.preset, n)]
        count = max(matches_per_preset, len(sizes))
        return {venue.preset: [Table(venue.preset, sizes[i % len(sizes)], i % sizes[i % len(sizes)])
                               for i in range(count)]} if sizes else {}
    played = game_named(game)
    sizes = supports.table_sizes(game) if supports.seats else \
        tuple(n for n in UNDECLARED_SIZES if played.min_players <= n <= played.max_players) or (played.min_players,)
    if not sizes:
        return {}
    count = max(matches_per_preset, len(sizes))
    players = [sizes[i % len(sizes)] for i in range(count)]
    return {preset: [Table(preset, n, i % n) for i, n in enumerate(players)] for preset in supports.presets(game)}


def supports_line(spec: BotSpec, game: str = DEFAULT_GAME) -> str:
    """Where the tables come from: ``supports: standard, 2 seats (from bot.yaml)``."""
    if spec.supports.declared:
        return f"supports: {spec.supports.text(game)} (from bot.yaml)"
    source = "nothing declared in bot.yaml" if spec.directory else "a command line declares nothing"
    return f"supports: {spec.supports.text(game)} ({source})"


class _Checker:
    """Plays the check matches and turns the checked bot's faults into findings."""

    def __init__(self, spec: BotSpec, opponent: BotSpec, sandbox: str, time_control: TimeControl,
                 say: Callable[[str], None], report: CheckReport, venue: GameRules | None = None,
                 game: str = DEFAULT_GAME) -> None:
        self.spec, self.opponent, self.sandbox, self.time = spec, opponent, sandbox, time_control
        self.venue, self.game = venue, game
        self.say, self.report = say, report
        self.nonce = secrets.token_hex(8)  # fresh deals each check: a bot must not be able to know them in advance
        self.by_title: dict[str, Finding] = {}

    def seats(self, table: Table) -> tuple[BotSpec, ...]:
        others = [dataclasses.replace(self.opponent, name=f"{self.opponent.name}-{i}") for i in range(1, table.players)]
        return tuple(others[:table.seat] + [self.spec] + others[table.seat:])

    def job(self, table: Table, tag: str) -> MatchJob:
        rules = self.venue if self.venue is not None else game_named(self.game).make_rules(table.preset)
        return MatchJob(f"check-{tag}", rules, f"{self.nonce}/{tag}", self.seats(table),
                        time=self.time, sandbox=self.sandbox, game=self.game)

    def note(self, outcome: MatchOutcome, table: Table, never_started: bool = False, reuse: bool = False) -> bool:
        """Record the checked bot's faults in ``outcome``; True if it had none."""
        self.report.matches += 1
        mine = [f for f in outcome.faults if f.seat == table.seat]
        for fault in mine:
            diagnosis = diagnose(fault, never_started=never_started,
                                 reuse=reuse and fault.kind is FaultKind.STARTUP, move_ms=self.time.move_ms)
            known = self.by_title.get(diagnosis.title)
            if known is None:
                where = f"{table.preset}, {table.players} seats, seat {table.seat}"
                if not never_started:
                    where += f", round {fault.round}, decision {fault.decision}, seed {outcome.seed}"
                known = self.by_title[diagnosis.title] = Finding(diagnosis, where, stderr_tail(fault))
                self.report.findings.append(known)
            else:
                known.faults += 1
            known.matches.add(outcome.match_id)
        return not mine

    def warned(self, outcome: MatchOutcome, table: Table) -> None:
        """Keep the checked bot's warning lines of ``outcome`` (each once, with the first table that showed it)."""
        for line in outcome.logs[table.seat].splitlines():
            text = line.strip()[:300]
            if WARNING.search(text) and text not in self.report.warnings:
                self.report.warnings[text] = f"{table.preset}, {table.players} seats"

    def preset(self, preset: str, tables: list[Table], first: bool) -> bool:
        """Play one preset's matches and say how they went in one line; False if the bot never started."""
        clean = decisions = 0
        think = slowest = 0.0
        for index, table in enumerate(tables):
            outcome = play_match(self.job(table, f"{preset}-{index}"))
            if first and index == 0 and any(f.seat == table.seat and f.kind is FaultKind.STARTUP
                                             for f in outcome.faults):
                self.note(outcome, table, never_started=True)
                self.report.stopped = "the bot never started"
                return False
            clean += self.note(outcome, table)
            self.warned(outcome, table)
            stats = outcome.stats[table.seat]
            decisions += stats.decisions
            think += stats.think_ms
            slowest = max(slowest, stats.max_ms)
        sizes = seat_text(tuple(sorted({t.players for t in tables})))
        head = f"{preset}: {len(tables)} match{'es' if len(tables) > 1 else ''} at {sizes}: "
        if clean == len(tables):
            mean = think / decisions if decisions else 0.0
            self.say(head + f"ok (mean {mean:.1f} ms, max {slowest:.1f} ms per decision)")
        else:
            self.say(head + f"{len(tables) - clean} with faults (findings below)")
        return True

    def reuse(self, presets: tuple[str, ...], players: int) -> None:
        """Two matches on one process, as tournaments play them: ``over``, then a new ``hello``."""
        order = (presets[0], presets[1] if len(presets) > 1 else presets[0])
        tables = [Table(preset, players, 0) for preset in order]
        jobs = [self.job(table, f"reuse-{index}") for index, table in enumerate(tables)]
        head = f"reuse: one process, two matches ({order[0]}, then a new hello for {order[1]}): "
        batch = play_batch(jobs)
        try:
            first = next(batch)
            first_clean = self.note(first, tables[0])
            # A helper fallback is no protocol fault: the process goes on to the second match. Any other fault
            # replaces the process, so the second match would test nothing: it is not played, and the result
            # line counts only the matches that were.
            if any(f.seat == 0 and f.kind is not FaultKind.HELPER_FALLBACK for f in first.faults):
                self.say(head + "not tested: the first match ended in a fault, so the second was not played "
                              "(findings below)")
                return
            second = next(batch)
        finally:
            batch.close()
        second_clean = self.note(second, tables[1], reuse=True)
        if not any(f.seat == 0 and f.kind is FaultKind.STARTUP for f in second.faults):
            self.say(head + "ok" + ("" if first_clean and second_clean else
                                    ", but the matches had faults (findings below)"))
        else:
            self.say(head + "failed (findings below)")


def check_bot(spec: BotSpec, sandbox: str, time_control: TimeControl, matches_per_preset: int = 2,
              echo: Callable[[str], None] | None = None, opponent_dir: Path | None = None,
              venue: GameRules | None = None, seats: Sequence[int] = (), unsandboxed_builds: bool = True,
              game: str = DEFAULT_GAME) -> CheckReport:
    """Play the bot at the tables it supports against the bundled random bot and explain what went wrong;
    ``venue`` and ``seats``: only at the tables of a ladder it is submitted to (its rules and options);
    ``game``: the registered game they play (the opponent must play it too).

    The bot's install and build run under ``sandbox`` too; where that walls nothing in (``none``) a
    line says so, and without ``unsandboxed_builds`` (a ladder's submission) they are refused."""
    report = CheckReport()

    def say(line: str) -> None:
        report.lines.append(line)
        if echo:
            echo(line)

    opponent = load_bot(str(opponent_dir or default_opponent()))
    if opponent.name == spec.name:
        opponent = dataclasses.replace(opponent, name=f"{opponent.name}-opponent")
    tables = plan(spec, matches_per_preset, venue, seats, game)
    if not tables:
        raise BotConfigError(f"{spec.name} supports {spec.supports.text(game)}, and plays none of these tables: "
                             f"{venue.preset if venue else ''} at {seat_text(tuple(sorted(set(seats))))}")
    missing = sorted({f"{t.preset} at {t.players} seats" for ts in tables.values() for t in ts
                      if not opponent.supports.plays(t.preset, t.players)})
    if missing:
        raise BotConfigError(f"the opponent {opponent.name} does not play {', '.join(missing)}, which "
                             f"{spec.name} supports; choose another --opponent")
    say(supports_line(spec, game))
    backend = get_backend(sandbox)
    opponent = _in_image(opponent, spec, backend.name)
    build_bot(opponent, backend)
    checker = _Checker(spec, opponent, sandbox, time_control, say, report, venue, game)
    if not backend.contains_steps and (spec.build or bot_env.declared(spec)):
        say(f"note: the bot's install and build run unsandboxed, as the arena's user (sandbox {backend.name})")
    try:
        build_bot(spec, backend, allow_unsandboxed=unsandboxed_builds)
    except BotConfigError as exc:
        _build_finding(report, str(exc))
    else:
        for index, (preset, preset_tables) in enumerate(tables.items()):
            if not checker.preset(preset, preset_tables, first=index == 0):
                break
        else:
            first = next(iter(tables.values()))[0]
            checker.reuse(tuple(tables), first.players)
    for number, finding in enumerate(report.findings, 1):
        for line in finding.lines(number, report.matches):
            say(line)
    if report.warnings:
        say(f"the bot warned ({len(report.warnings)} line{'s' if len(report.warnings) > 1 else ''} of its stderr; "
            "not faults, but a bot that says it plays a table badly should not be entered at it):")
        for text, where in list(report.warnings.items())[:WARNINGS_SHOWN]:
            say(f"  warning| {text}   (first at {where})")
        if len(report.warnings) > WARNINGS_SHOWN:
            say(f"  ... and {len(report.warnings) - WARNINGS_SHOWN} more")
    say(_result(report))
    return report


def _build_finding(report: CheckReport, message: str) -> None:
    """A build that fails is the one finding: nothing can be played."""
    head, _, output = message.partition("\n")
    cause = (head.split(": ", 1)[-1] if head.startswith("bot ") else head).rstrip(":")
    tail = [line.strip() for line in output.splitlines() if line.strip()][-STDERR_LINES:]
    if cause.startswith("installing its") and bot_env.REFUSED_FETCH in cause:
        diagnosis = Diagnosis("its dependencies asked for an address the fetch may not reach",
                              f"{cause}: {tail[-1]}" if tail else cause,
                              "name only the package indexes and public addresses in the files that declare "
                              "them (docs/sandbox.md#the-fetch-gate), then check again")
    elif cause.startswith("installing its"):  # the dependencies the bot declares (arena.bots.env)
        diagnosis = Diagnosis("its dependencies did not install", f"{cause}: {tail[-1]}" if tail else cause,
                              "fix the file that declares them (a package or version that does not exist for "
                              "this interpreter, a missing lockfile), then check again")
    else:
        diagnosis = Diagnosis("the build failed", f"{cause}: {tail[-1]}" if tail else cause,
                              "run the build command by hand in the bot directory and fix what it prints; it must "
                              "work on a fresh copy of the directory")
    report.findings.append(Finding(diagnosis, "before any match", tail, label="output"))
    report.stopped = "the bot did not build"


def _result(report: CheckReport) -> str:
    if report.ok:
        warned = f", but {len(report.warnings)} warning line{'s' if len(report.warnings) > 1 else ''} (above)" \
            if report.warnings else ""
        return f"result: clean: no fault in {report.matches} matches{warned}"
    count = len(report.findings)
    if report.stopped:
        return f"result: {count} finding: nothing else was checked, since {report.stopped}"
    return f"result: {count} finding{'s' if count > 1 else ''}: fix {'them' if count > 1 else 'it'} before submitting"
