"""``arena bot check``: what a bot author runs before submitting a bot."""

from __future__ import annotations

import dataclasses
import secrets
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .bot import TimeControl
from .bots import BotConfigError, BotSpec, build_bot, load_bot
from .game import make_rules
from .report import fault_lines
from .runner import MatchJob, play_batch, play_match

RANDOM_BOT = Path("bots") / "random"
"""The default opponent: the bundled random bot, looked up from the current directory, then beside the package."""


def default_opponent() -> Path:
    """Where the bundled random bot is, for a checkout or an editable install."""
    for candidate in (Path.cwd() / RANDOM_BOT, Path(__file__).resolve().parent.parent / RANDOM_BOT):
        if candidate.is_dir():
            return candidate
    raise BotConfigError("the bundled random bot (bots/random) was not found: run from the repository root "
                         "or give an opponent bot directory with --opponent")


@dataclass
class CheckReport:
    """Result of checking one bot."""

    lines: list[str] = field(default_factory=list)
    """What to print."""
    ok: bool = True
    """False if any match had a fault of the checked bot."""


def check_bot(spec: BotSpec, sandbox: str, time_control: TimeControl, matches_per_preset: int = 2,
              echo: Callable[[str], None] | None = None, opponent_dir: Path | None = None) -> CheckReport:
    """Play the bot against the bundled random bot under both presets and explain every fault."""
    report = CheckReport()

    def say(line: str) -> None:
        report.lines.append(line)
        if echo:
            echo(line)

    build_bot(spec)
    opponent = load_bot(str(opponent_dir or default_opponent()))
    if opponent.name == spec.name:
        opponent = dataclasses.replace(opponent, name=f"{opponent.name}-opponent")
    build_bot(opponent)
    nonce = secrets.token_hex(8)  # fresh deals each check: a bot must not be able to know them in advance
    for preset in ("standard", "espanola"):
        for index in range(matches_per_preset):
            players = 2 + index % 3
            seats = [spec] + [dataclasses.replace(opponent, name=f"{opponent.name}-{i}") for i in range(1, players)]
            seat = index % players
            seats[0], seats[seat] = seats[seat], seats[0]
            job = MatchJob(f"check-{preset}-{index}", make_rules(preset), f"{nonce}/{preset}/{index}", tuple(seats),
                           time=time_control, sandbox=sandbox)
            outcome = play_match(job)
            mine = [f for f in outcome.faults if f.seat == seat]
            stats = outcome.stats[seat]
            mean = stats.think_ms / stats.decisions if stats.decisions else 0.0
            verdict = "ok" if not mine else f"{len(mine)} fault(s)"
            say(f"{preset} match {index + 1}: seat {seat} of {players}, place {outcome.places[seat]}, "
                f"{stats.decisions} decisions, mean {mean:.1f} ms, max {stats.max_ms:.1f} ms, sandbox {outcome.sandbox}, "
                f"seed {job.seed}: {verdict}")
            if mine:
                report.ok = False
                for line in fault_lines(dataclasses.replace(outcome, faults=tuple(mine)))[1:]:
                    say(line)
    # Tournaments let one process play several matches: over, then a new hello.
    pair = (spec, dataclasses.replace(opponent, name=f"{opponent.name}-1"))
    jobs = [MatchJob(f"check-reuse-{index}", make_rules(preset), f"{nonce}/reuse/{index}", pair,
                     time=time_control, sandbox=sandbox) for index, preset in enumerate(("standard", "espanola"))]
    reused = [(outcome, [f for f in outcome.faults if f.seat == 0]) for outcome in play_batch(jobs)]
    clean = not any(faults for _, faults in reused)
    say("reuse: one process, two matches (standard, then a new hello for espanola): "
        + ("ok" if clean else "fault(s): the bot must accept a new hello after over"))
    for outcome, faults in reused:
        if faults:
            report.ok = False
            for line in fault_lines(dataclasses.replace(outcome, faults=tuple(faults)))[1:]:
                say(line)
    say("result: " + ("clean: no fault in any match" if report.ok else "FAULTS: fix them before submitting"))
    return report
