"""The ``arena`` command line: a thin layer over the library.

Every user error becomes a one-line :class:`click.ClickException`, never a traceback.
"""

from __future__ import annotations

import dataclasses
import json
import math
import secrets
import signal
import time
from pathlib import Path
from typing import Any

import click

from . import __version__
from .game import RuleError, make_rules, options_of, parse_option_args, preset_names
from .game.rules import MAX_PLAYERS, MIN_PLAYERS
from .match.link import TimeControl
from .bounds import (MAX_BANK_MS, MAX_CHECK_MATCHES, MAX_FAULTS, MAX_HOURS, MAX_MOVE_MS, MAX_RUN_MATCHES,
                     MAX_SELFPLAY_MATCHES, MAX_WORKERS, SEED_RANGE)
from .bots import BotConfigError, BotSpec, build_bot, load_bot
from .clierrors import ArenaGroup
from .compare.stats import MAX_POINTS_MARGIN, MIN_DEALS, PLACES_MARGIN, POINTS_MARGIN
from .match.faults import FAULT_POLICIES
from .kits import LANGUAGES, KitError, new_bot
from .game.replay import ReplayError, load_replay
from .sandbox import BACKEND_NAMES, Limits, SandboxError, get_backend, resolve_backend
from .selfplay import self_play


def _writable(path: Path, option: str) -> None:
    """Refuse, in one line naming ``option``, a file path this command could not write: its directory cannot be
    made, or it is not a file that can be opened for writing (a directory, a FIFO, a path under /proc)."""
    import os
    import stat as stat_

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() and not stat_.S_ISREG(path.stat().st_mode):
            raise click.ClickException(f"{option} {path}: not a regular file; give a file path to write the "
                                       "replay to")
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NONBLOCK, 0o644)
        os.close(fd)
    except OSError as exc:
        raise click.ClickException(f"{option} {path}: cannot write it: {exc.strerror or exc}; give a path in a "
                                   "directory you can write") from None


def _free_path(path: Path) -> Path:
    """``path``, or, when a file is there already, the first free ``NAME-2.EXT``, ``NAME-3.EXT``, ...: a default
    replay name repeats whenever a seed does, and the earlier match's replay must not be lost silently."""
    candidate, number = path, 2
    while candidate.exists() or candidate.is_symlink():
        candidate = path.with_name(f"{path.stem}-{number}{path.suffix}")
        number += 1
    return candidate


def _rules_from(preset: str, options: tuple[str, ...]) -> Any:
    try:
        return make_rules(preset, parse_option_args(options))
    except RuleError as exc:
        raise click.ClickException(str(exc)) from None


OPTION_HELP = "Rule option as key=value (repeatable); see `arena rules PRESET`."


@click.group(cls=ArenaGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Cabo Arena: run tournaments of Cabo-playing bots and rate them."""


OUTPUT_NOTE = "arena.output"
"""Where a command that read a tournament or ladder file keeps the line naming its output directory."""


@main.result_callback()
def _after(*_: Any, **__: Any) -> None:
    """After a command that succeeded: the line naming the output directory its file gave, if it read one (on
    stderr, after what it answered; a refusal stays one line)."""
    note = click.get_current_context().meta.get(OUTPUT_NOTE)
    if note:
        click.echo(note, err=True)


@main.command("rules")
@click.argument("preset", type=click.Choice(preset_names()))
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE", help=OPTION_HELP)
def rules_cmd(preset: str, options: tuple[str, ...]) -> None:
    """Print a rule preset: its options (with defaults) and its card values."""
    rules = _rules_from(preset, options)
    click.echo(f"preset: {preset} ({len(rules.deck)} cards, {MIN_PLAYERS}-{MAX_PLAYERS} players)")
    click.echo("options:")
    for opt in options_of(preset):
        value = rules.options[opt.name]
        mark = "" if value == opt.default else f" (default {_fmt(opt.default)})"
        click.echo(f"  {opt.name} = {_fmt(value)}{mark}  [{opt.allowed()}]  {opt.help}")
    click.echo("card values:")
    deck = rules.deck
    for rank in deck.ranks:
        cells = [f"{code}={rules.values[i]}" for i, code in enumerate(deck.codes) if code[0] == rank]
        click.echo("  " + "  ".join(cells))


def _fmt(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return str(value).lower()
    return str(value)


@main.command("selfplay")
@click.option("--rules", "preset", type=click.Choice(preset_names()), default="standard", show_default=True,
              help="Rule preset.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE", help=OPTION_HELP)
@click.option("--players", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=4, show_default=True,
              help="Players per match.")
@click.option("--matches", type=click.IntRange(1, MAX_SELFPLAY_MATCHES), default=100, show_default=True,
              help="Matches to play.")
@click.option("--seed", type=click.IntRange(*SEED_RANGE), default=1, show_default=True,
              help="Master seed; match i uses SEED/i.")
def selfplay_cmd(preset: str, options: tuple[str, ...], players: int, matches: int, seed: int) -> None:
    """Play random legal matches in-process and summarise them (an engine smoke run)."""
    rules = _rules_from(preset, options)
    start = time.perf_counter()
    summary = self_play(rules, players, matches, seed)
    elapsed = time.perf_counter() - start
    click.echo(f"{preset}: {summary.matches} random matches, {players} players, seed {seed}")
    click.echo(f"  decisions: {summary.decisions} ({summary.decisions / elapsed:,.0f}/s), "
               f"rounds: {summary.rounds} ({summary.rounds / summary.matches:.2f} per match)")
    click.echo("  match ends: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.reasons.items())))
    click.echo("  round ends: " + ", ".join(f"{k} {v}" for k, v in sorted(summary.round_ends.items())))
    avg = "  ".join(f"seat {s}: {p / summary.matches:.2f}" for s, p in enumerate(summary.place_sum))
    click.echo(f"  average place: {avg}")


def _load_bots(refs: tuple[str, ...], players: int | None, preset: str, sandbox: str = "none") -> list[BotSpec]:
    """Bots for the seats: the references in order, repeated to fill ``players`` seats, names made unique;
    a bot whose manifest does not support this preset and table size is refused before anything is built,
    and the others are built under ``sandbox``."""
    try:
        specs = [load_bot(ref) for ref in refs]
    except BotConfigError as exc:
        raise click.ClickException(str(exc)) from None
    count = players or len(specs)
    if not MIN_PLAYERS <= count <= MAX_PLAYERS:
        raise click.BadParameter(f"a match has {MIN_PLAYERS} to {MAX_PLAYERS} players, not {count}",
                                 param_hint="'--players' or BOT...")
    if len(specs) > count:
        raise click.BadParameter(f"{len(specs)} bots given for {count} seats", param_hint="'--players'")
    seats = [specs[i % len(specs)] for i in range(count)]
    for spec in specs:
        why = spec.supports.why_not(preset, count)
        if why:
            raise click.ClickException(f"bot {spec.name} ({spec.directory}) does not play this table: {why}; "
                                       "choose --rules and --players it supports")
    seen: dict[str, int] = {}
    unique = []
    for spec in seats:
        seen[spec.name] = seen.get(spec.name, 0) + 1
        unique.append(spec if seen[spec.name] == 1 else dataclasses.replace(spec, name=f"{spec.name}-{seen[spec.name]}"))
    for spec in {s.directory or s.name: s for s in seats}.values():
        try:
            build_bot(spec, get_backend(sandbox))
        except BotConfigError as exc:
            raise click.ClickException(str(exc)) from None
    return unique


def _sandbox(name: str) -> str:
    try:
        backend, why = resolve_backend(name)
    except SandboxError as exc:
        raise click.ClickException(str(exc)) from None
    return backend.name


SANDBOX_HELP = "Sandbox backend for bots: auto picks the strongest that works here."


@main.command("play")
@click.argument("bots", nargs=-1, required=True, metavar="BOT...")
@click.option("--rules", "preset", type=click.Choice(preset_names()), default="standard", show_default=True,
              help="Rule preset.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE", help=OPTION_HELP)
@click.option("--players", type=int, default=None, help="Seats (default: one per BOT; BOTs repeat to fill).")
@click.option("--seed", default=None, help="Match seed (any string or integer; default: a random one, printed).")
@click.option("--move-ms", type=click.IntRange(1, MAX_MOVE_MS), default=1000, show_default=True,
              help="Time per decision.")
@click.option("--startup-ms", type=click.IntRange(1, MAX_MOVE_MS), default=10000, show_default=True,
              help="Time to answer hello.")
@click.option("--bank-ms", type=click.IntRange(0, MAX_BANK_MS), default=None,
              help="Extra time per match for slow decisions.")
@click.option("--sandbox", type=click.Choice(BACKEND_NAMES), default="auto", show_default=True, help=SANDBOX_HELP)
@click.option("--fault-policy", type=click.Choice(FAULT_POLICIES), default="forfeit", show_default=True,
              help="forfeit: a faulting bot is replaced by the fallback policy and ranks last; "
                   "fallback: only the bad decision is replaced, forfeit after --max-faults.")
@click.option("--max-faults", type=click.IntRange(1, MAX_FAULTS), default=3, show_default=True, help="Faults before forfeit under fallback.")
@click.option("--log-bytes", type=click.IntRange(0, 16 * 1024 * 1024), default=65536, show_default=True,
              help="Bytes of each bot's stderr kept as its log (the end of it); 0 keeps none.")
@click.option("--replay", "replay_path", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Where to write the omniscient replay, replacing a file there (default: "
                   "replays/play-SEED.jsonl, or play-SEED-2.jsonl, ... when that file exists).")
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON.")
def play_cmd(bots: tuple[str, ...], preset: str, options: tuple[str, ...], players: int | None, seed: str | None,
             move_ms: int, startup_ms: int, bank_ms: int | None, sandbox: str, fault_policy: str,
             max_faults: int, log_bytes: int, replay_path: Path | None, as_json: bool) -> None:
    """Play one match between BOTs (bot directories or quoted command lines) and report it."""
    from .match.account import outcome_text
    from .match.runner import MatchJob, play_match

    rules = _rules_from(preset, options)
    backend = _sandbox(sandbox)
    specs = _load_bots(bots, players, preset, backend)
    if seed is None:  # a fixed default would let a bot that knows it recompute the deal (or, from the
        seed = str(secrets.randbelow(2**53))  # match id, look up a small one); 2**53: exact in JSON readers
    match_seed: int | str = int(seed) if seed.lstrip("-").isdigit() else seed
    from .match.seeds import play_match_id

    job = MatchJob(play_match_id(match_seed), rules, match_seed, tuple(specs),  # the id bots see: never the seed
                   TimeControl(move_ms, startup_ms, bank_ms), backend, limits=Limits(log_bytes=log_bytes),
                   fault_policy=fault_policy, max_faults=max_faults)
    default = Path("replays") / f"play-{seed}.jsonl"
    path = replay_path or _free_path(default)
    created = not path.exists()
    _writable(path, "--replay")  # before the match: a path that cannot be written must not cost one
    try:
        outcome = play_match(job)
    except BaseException:
        if created:
            path.unlink(missing_ok=True)  # the empty file the check made: nothing left behind
        raise
    try:
        path.write_text(outcome.replay_text())
    except OSError as exc:
        raise click.ClickException(f"--replay {path}: cannot write it: {exc.strerror or exc}") from None
    if as_json:
        click.echo(json.dumps({**outcome.to_json(), "replay": str(path)}, indent=2))
        return
    for line in outcome_text(outcome, preset):
        click.echo(line)
    moved = replay_path is None and path != default
    kept = f" ({default} was there already and is kept; --replay FILE chooses the file)" if moved else ""
    click.echo(f"replay: {path}{kept}")
    logged = [str(seat) for seat, log in enumerate(outcome.logs) if log]
    if logged:
        click.echo(f"logs (stderr) of seat {', '.join(logged)}: arena replay {path} --seat N shows seat N's "
                   "beside its moves")


def _error_rate(ctx: click.Context, param: click.Parameter, value: float) -> float:
    if not 0 < value < 0.5:  # nan fails this too
        raise click.BadParameter(f"{value} is not an error rate: give one above 0 and below 0.5 (0.05: one in twenty)")
    return value


@main.command("compare")
@click.argument("new", metavar="NEW")
@click.argument("old", metavar="OLD")
@click.option("--field", "field_refs", multiple=True, metavar="BOT",
              help="An opponent (repeatable; default: the bundled random, heuristic, js-greedy and c-random).")
@click.option("--rules", "preset", type=click.Choice(preset_names()), default="standard", show_default=True,
              help="Rule preset.")
@click.option("--option", "-o", "options", multiple=True, metavar="KEY=VALUE", help=OPTION_HELP)
@click.option("--seats", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS), default=4, show_default=True,
              help="Players per match.")
@click.option("--alpha", type=float, default=0.05, show_default=True, callback=_error_rate,
              help="Chance of calling NEW better when it is not.")
@click.option("--beta", type=float, default=0.05, show_default=True, callback=_error_rate,
              help="Chance of calling NEW not better when it is better by the margin.")
@click.option("--luck", type=click.Choice(["on", "off"]), default="on", show_default=True,
              help="on: test luck-corrected points (each total less what the cards gave it); off: test places.")
@click.option("--margin-points", type=float, default=None,
              help=f"The gain that matters, in luck-corrected points per match [default: {POINTS_MARGIN:g}].")
@click.option("--margin", type=float, default=None,
              help=f"With --luck off: the gain that matters, in places per match [default: {PLACES_MARGIN:g}].")
@click.option("--max-matches", type=click.IntRange(1, MAX_RUN_MATCHES), default=4000, show_default=True,
              help="Stop undecided after this many matches (two per deal).")
@click.option("--seed", default=None, help="Master seed of the deals (default: a random one, printed).")
@click.option("--sandbox", type=click.Choice(BACKEND_NAMES), default="auto", show_default=True, help=SANDBOX_HELP)
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None,
              help="Worker processes (default: the number of cores).")
def compare_cmd(new: str, old: str, field_refs: tuple[str, ...], preset: str, options: tuple[str, ...], seats: int,
                alpha: float, beta: float, luck: str, margin_points: float | None, margin: float | None,
                max_matches: int, seed: str | None, sandbox: str, workers: int | None) -> None:
    """Is NEW better than OLD? Play both on the same deals, seats and opponents until an SPRT answers.

    The question is fishtest's: is NEW better by at least the margin (H1), or not better (H0)? By default
    it is asked of luck-corrected points: each match total less what the cards gave the seat over the
    expected cards, which the referee measures. Exit status: 0 better, 4 not better, 5 undecided at
    --max-matches (1 and 2: errors). See docs/bots.md, "Is my new version better?".
    """
    import os

    from .compare.play import ArenaFailure, Setup, bundled_field
    from .compare.run import (EXIT_CODES, UNDECIDED_EXIT, beside_line, compare, forfeit_points, progress_line,
                              verdict_line)
    from .compare.stats import FORFEIT_POINTS, currency_of, new_test
    from .execute import PoolFailure

    corrected = luck == "on"
    if corrected and margin is not None:
        raise click.BadParameter(f"--margin is in places and sets the plain test (--luck off); the luck-corrected "
                                 f"test's margin is --margin-points POINTS (default {POINTS_MARGIN:g})",
                                 param_hint="'--margin'")
    if not corrected and margin_points is not None:
        raise click.BadParameter("--margin-points sets the luck-corrected test; with --luck off the margin is "
                                 f"--margin PLACES (default {PLACES_MARGIN:g})", param_hint="'--margin-points'")
    if corrected:
        margin = POINTS_MARGIN if margin_points is None else margin_points
        if not 0 < margin < MAX_POINTS_MARGIN:  # nan fails this too
            raise click.BadParameter(f"{margin} is not a margin in points per match: give one above 0 and below "
                                     f"{MAX_POINTS_MARGIN:g}", param_hint="'--margin-points'")
    else:
        margin = PLACES_MARGIN if margin is None else margin
        if not 0 < margin < seats - 1:  # nan fails this too
            raise click.BadParameter(f"{margin} is not a margin in places per match: give one above 0 and below "
                                     f"{seats - 1} (the most a {seats}-seat match can separate two places)",
                                     param_hint="'--margin'")
    if max_matches < 2 * MIN_DEALS:
        raise click.BadParameter(f"{max_matches} matches cannot end in a verdict: none comes before {MIN_DEALS} "
                                 f"deals ({2 * MIN_DEALS} matches)", param_hint="'--max-matches'")
    test = new_test(corrected, margin, alpha, beta)
    currency = currency_of(corrected)
    rules = _rules_from(preset, options)
    backend = _sandbox(sandbox)
    try:
        refs = list(field_refs) or [str(path) for path in bundled_field()]
        new_spec, old_spec, *field = [load_bot(ref) for ref in (new, old, *refs)]
    except BotConfigError as exc:
        raise click.ClickException(str(exc)) from None
    for role, spec in [("NEW", new_spec), ("OLD", old_spec)] + [("--field", spec) for spec in field]:
        why = spec.supports.why_not(preset, seats)
        if why:
            raise click.ClickException(f"{role} bot {spec.name} ({spec.directory}) does not play this table: {why}; "
                                       "choose --rules and --seats it supports")
    for spec in {s.directory or s.name: s for s in (new_spec, old_spec, *field)}.values():
        try:
            build_bot(spec, get_backend(backend))
        except BotConfigError as exc:
            raise click.ClickException(str(exc)) from None
    if seed is None:
        seed = str(secrets.randbelow(2**53))
    master: int | str = int(seed) if seed.lstrip("-").isdigit() else seed
    count = workers or os.cpu_count() or 1
    setup = Setup(new_spec, old_spec, tuple(field), rules, seats, master, backend)

    def say(line: str) -> None:
        click.echo(line, err=True)

    named = {"NEW": new_spec.name, "OLD": old_spec.name}
    if new_spec.name == old_spec.name:  # a copy edited in place of the original: which is which must be plain
        named = {"NEW": f"{new_spec.name} ({new_spec.directory or new})", "OLD": f"{old_spec.name} ({old_spec.directory or old})"}
        say(f"note: NEW and OLD have the same name, {new_spec.name}: NEW is {new_spec.directory or new}, "
            f"OLD is {old_spec.directory or old}")
    say(f"compare: NEW {named['NEW']} against OLD {named['OLD']}, {preset}, {seats} seats, field "
        f"{', '.join(s.name for s in field)}; seed {seed}; sandbox {backend}, {count} worker(s)")
    say(f"SPRT on {currency.name}: NEW better by {margin:g} {currency.unit} a match (H1) or not better (H0); "
        f"alpha {alpha:g}, beta {beta:g}")
    try:
        done = compare(setup, test, max_matches // 2, count, say, luck=corrected)
    except (ArenaFailure, PoolFailure) as exc:
        raise click.ClickException(str(exc)) from None
    except KeyboardInterrupt as exc:
        so_far = getattr(exc, "comparison", None)
        if so_far is not None and so_far.test.deals:
            click.echo(f"interrupted: {progress_line(so_far).strip()}")
        raise SystemExit(130)
    if done.dropped:
        click.echo(f"{len(done.dropped)} deal(s) not counted: {'; '.join(done.dropped[:3])}"
                   + (" ..." if len(done.dropped) > 3 else ""))
    if any(done.forfeits):
        lost = forfeit_points(done)
        counted = ("placed last" if not corrected else
                   f"a deal one side forfeited counts as a whole match lost by that side, {lost:g} points"
                   if lost == FORFEIT_POINTS else
                   f"a deal one side forfeited counts as {lost:.1f} points lost by that side, the largest gain played")
        click.echo(f"forfeited ({counted}): NEW in {done.forfeits[0]} match(es), OLD in {done.forfeits[1]}; "
                   "`arena play` with the same bots shows why")
    if done.test.deals:
        click.echo(beside_line(done))
    click.echo(verdict_line(done))
    raise SystemExit(UNDECIDED_EXIT if done.verdict is None else EXIT_CODES[done.verdict])


@main.group("bot")
def bot_group() -> None:
    """Tools for bot authors."""


def _raised_matches(spec: BotSpec, asked: int) -> str:
    """The line saying ``bot check`` plays more matches per preset than ``--matches`` asked for, or "": every
    table size the bot plays is played at least once (a bot that breaks at 5 seats must not check clean)."""
    from .authoring.check import plan
    from .bots.supports import seat_text

    tables = next(iter(plan(spec, asked).values()), [])
    if len(tables) <= asked:
        return ""
    sizes = seat_text(tuple(sorted({table.players for table in tables})))
    return f"--matches {asked}: raised to {len(tables)} per preset, one at each table size the bot plays ({sizes})"


@bot_group.command("check")
@click.argument("bot", metavar="BOT")
@click.option("--sandbox", type=click.Choice(BACKEND_NAMES), default="auto", show_default=True, help=SANDBOX_HELP)
@click.option("--move-ms", type=click.IntRange(1, MAX_MOVE_MS), default=1000, show_default=True,
              help="Time per decision.")
@click.option("--matches", type=click.IntRange(1, MAX_CHECK_MATCHES), default=3, show_default=True,
              help="Matches per preset, raised to one at each table size the bot plays when that is more "
                   "(4 for a bot that declares no seats: 2-5).")
@click.option("--opponent", type=click.Path(file_okay=False, exists=True, path_type=Path), default=None,
              help="Opponent bot directory (default: the bundled bots/random).")
def bot_check_cmd(bot: str, sandbox: str, move_ms: int, matches: int, opponent: Path | None) -> None:
    """Check BOT: matches against the random bot at the tables its manifest supports (by default
    both presets, several table sizes), then two matches on one process.

    Prints only what went wrong, each finding with its cause and remedy; exits with status
    0 only if there was none.
    """
    from .authoring.check import check_bot

    try:
        spec = load_bot(bot)
    except BotConfigError as exc:
        raise click.ClickException(str(exc)) from None
    backend = _sandbox(sandbox)
    click.echo(f"checking {spec.name} ({' '.join(spec.command)}) under sandbox {backend}")
    raised = _raised_matches(spec, matches)
    if raised:
        click.echo(raised)
    try:
        report = check_bot(spec, backend, TimeControl(move_ms=move_ms), matches, echo=click.echo,
                           opponent_dir=opponent)
    except BotConfigError as exc:
        raise click.ClickException(str(exc)) from None
    if not report.ok:
        raise SystemExit(1)


@bot_group.command("new")
@click.argument("directory", metavar="DIR", type=click.Path(path_type=Path))
@click.option("--lang", "language", type=click.Choice(LANGUAGES), default="python", show_default=True,
              help="Language of the starter kit.")
@click.option("--name", default=None, help="The bot's name (default: made from DIR's name).")
def bot_new_cmd(directory: Path, language: str, name: str | None) -> None:
    """Write a small, complete, commented bot into DIR (new or empty), ready for `arena bot check`."""
    try:
        final, files = new_bot(directory, language, name)
    except KitError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"created bot {final} ({language}) in {directory}: {', '.join(files)}")
    import shlex

    from .invoked import arena_command

    click.echo(f"next: {arena_command()} bot check {shlex.quote(str(directory))}   "
               "(README.md there says how to play and submit it)")


@bot_group.command("log")
@click.argument("results_dir", metavar="RESULTS_DIR|CONFIG", type=click.Path(path_type=Path))
@click.argument("bot", metavar="BOT")
@click.option("--match", "match_id", default=None, metavar="ID", help="Only this match (e.g. c1/a+b/r0).")
def bot_log_cmd(results_dir: Path, bot: str, match_id: str | None) -> None:
    """Print BOT's logs (the end of its stderr per match) from a tournament's RESULTS_DIR (a ladder's BOT:
    NAME for its newest version, or NAME@vK), or from the results the tournament or ladder file CONFIG names."""
    from .tournament.botlog import BotLogError, log_lines, resolve, select_logs
    from .tournament.store import ResultStore, StoreMismatch

    results_dir = _results_of(results_dir)
    try:
        store = ResultStore(results_dir, readonly=True)
    except (FileNotFoundError, StoreMismatch) as exc:
        raise click.ClickException(str(exc)) from None
    try:
        bot, which = resolve(store, bot)
        if which:
            click.echo(which)
        seats = select_logs(store, bot, match_id)
    except BotLogError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        store.close()
    if not seats:
        click.echo(f"{bot} has no stored match yet")
    for line in log_lines(seats):
        click.echo(line)


@main.command("replay")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@click.option("--seat", type=int, default=None, help="Show the match as this seat saw it (default: everything).")
@click.option("--log/--no-log", "log", default=None,
              help="Show the bots' logs (stderr) where the arena read them: with --seat only that seat's, "
                   "beside its moves (the default with --seat); without, every seat's.")
@click.option("--html", "html_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Instead, write the replay viewer for this match into this directory and print its address.")
@click.option("--transcript", "transcript_out", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Instead, write the JSON lines --seat was sent (hello first): `python bot.py < OUT` plays its part.")
@click.option("--feed", "feed_dir", type=click.Path(path_type=Path), default=None, metavar="BOT_DIR",
              help="Instead, send what --seat was sent to the bot BOT_DIR (a new version) and show the first decision "
                   "where its answer differs from the recorded one, or where it faults.")
@click.option("--sandbox", type=click.Choice(BACKEND_NAMES), default="auto", show_default=True,
              help="With --feed: the sandbox the bot runs under.")
@click.option("--luck", is_flag=True, default=False,
              help="Also show what each card the deck gave was worth to each seat over the expected card, and each "
                   "seat's luck over the match (omniscient only: it reads every hand and the deck).")
def replay_cmd(file: Path, seat: int | None, log: bool | None, html_dir: Path | None,
               transcript_out: Path | None = None, feed_dir: Path | None = None, sandbox: str = "auto",
               luck: bool = False) -> None:
    """Print a readable account of a replay FILE (.jsonl or .jsonl.gz), omniscient or as one seat saw it."""
    from .match.account import replay_text

    try:
        header, records = load_replay(file)  # bounded, checked: a ReplayError names the file and line
    except ReplayError as exc:
        raise click.ClickException(str(exc)) from None
    if seat is not None and not 0 <= seat < header["players"]:
        raise click.BadParameter(f"seat must be 0..{header['players'] - 1}", param_hint="'--seat'")
    if luck and (seat is not None or transcript_out is not None or feed_dir is not None or html_dir is not None):
        raise click.UsageError("--luck shows the omniscient account: it reads every hand and the deck, so it "
                               "goes with no --seat, --transcript, --feed or --html")
    if transcript_out is not None or feed_dir is not None:
        if transcript_out is not None and feed_dir is not None:
            raise click.UsageError("give --transcript OUT or --feed BOT_DIR, not both")
        if seat is None:
            raise click.UsageError(f"{'--transcript' if transcript_out else '--feed'} needs --seat N: "
                                   f"whose messages (0..{header['players'] - 1})")
        from .authoring.transcript import transcript
        from .match import protocol

        try:
            made = transcript(header, records, seat)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise click.ClickException(f"{file}: its actions do not rebuild a match here ({exc})") from None
        if transcript_out is not None:
            _writable(transcript_out, "--transcript")
            transcript_out.write_bytes(b"".join(protocol.encode(m) for m in made.messages))
            acts = len(made.recorded)
            click.echo(f"wrote {transcript_out}: the {len(made.messages)} lines seat {seat} "
                       f"({header['bots'][seat] if header.get('bots') else 'its bot'}) was sent, {acts} of them act")
            return
        assert feed_dir is not None
        _feed(file, header, seat, made, feed_dir, sandbox)
        return
    if html_dir is not None:
        from .site.viewer import TargetError, build_single

        try:
            page = build_single(file, html_dir)
        except TargetError as exc:
            raise click.ClickException(str(exc)) from None
        except ReplayError as exc:
            raise click.ClickException(str(exc)) from None
        except (ValueError, OSError) as exc:
            raise click.ClickException(f"{file}: cannot make its viewer: {exc}") from None
        click.echo(f"{page.resolve().as_uri()}#match=0&seat={'all' if seat is None else seat}")
        return
    from .match.luck_account import LuckReplayError

    try:
        lines = replay_text(header, records, seat, seat is not None if log is None else log, luck)
    except LuckReplayError as exc:
        raise click.ClickException(f"{file}: cannot measure its luck: {exc}") from None
    for line in lines:
        click.echo(line)


def _feed(file: Path, header: dict[str, Any], seat: int, made: Any, bot_dir: Path, sandbox: str) -> None:
    """``arena replay --feed``: the new version's answers against the recorded ones, the first difference shown."""
    from .authoring.transcript import feed, time_of

    def action_text(action: dict[str, Any]) -> str:
        return json.dumps(action, separators=(",", ":"))

    backend, _ = resolve_backend(_sandbox(sandbox))
    try:
        spec = load_bot(str(bot_dir))
        build_bot(spec, backend)
    except BotConfigError as exc:
        raise click.ClickException(str(exc)) from None
    same, difference = feed(spec, backend, made.messages, made.recorded, time_of(header))
    total = len(made.recorded)
    who = f"{spec.name} in seat {seat} of {file.name}"
    if difference is None:
        click.echo(f"{who}: all {total} decisions answered as recorded")
        return
    message = difference.message
    if difference.decision == 0:
        raise click.ClickException(f"{who}: did not start ({difference.fault[0]}: {difference.fault[1]})"
                                   if difference.fault else f"{who}: did not start")
    state = message["state"]
    legal = message["legal"]
    at = (f"decision {difference.decision} of {total} (round {state['round']}, turn {state['turn']}, "
          f"phase {state['phase']}, act id {message['id']})")
    recorded = f"{action_text(legal[difference.recorded])} (index {difference.recorded})"
    if made.by_fallback[difference.decision - 1]:
        recorded += ", chosen by the fallback policy: the recorded bot faulted here"
    click.echo(f"{who}: parted from the recording at its first decision" if same == 0 else
               f"{who}: the first {same} decision{'s' if same != 1 else ''} answered as recorded")
    if difference.fault is not None:
        click.echo(f"{at}: the bot faulted: {difference.fault[0]}: {difference.fault[1]}; recorded: {recorded}")
    else:
        assert difference.chosen is not None
        click.echo(f"{at}: recorded {recorded}; the bot chose {action_text(legal[difference.chosen])} "
                   f"(index {difference.chosen})")
    click.echo(f"  its state: {json.dumps(state, separators=(',', ':'))}")
    raise SystemExit(1)


def _finite(ctx: click.Context, param: click.Parameter, value: float | None) -> float | None:
    """Refuse nan, which passes every comparison of ``click.FloatRange`` (and would never end a run)."""
    if value is not None and not math.isfinite(value):
        raise click.BadParameter(f"{value} is not a number of hours; give one above 0 and at most {MAX_HOURS:g}")
    return value


def _refuse_directory(given: Path) -> None:
    """Refuse a directory given as the tournament file, in one line saying what to give instead: the file its
    stored tournament's last run was given, if it holds one, else a tournament file inside it."""
    from .tournament.driver import FILE_KEY
    from .tournament.store import ResultStore, StoreMismatch

    if not given.is_dir():
        return
    try:
        store = ResultStore(given, readonly=True)
    except (FileNotFoundError, StoreMismatch):
        files = sorted(p.name for p in given.glob("*.y*ml") if p.is_file())
        inside = f", such as one it holds: {', '.join(files[:5])}{', ...' if len(files) > 5 else ''}" if files else ""
        raise click.ClickException(f"{given} is a directory; give a tournament YAML file (docs/tournaments.md)"
                                   f"{inside}") from None
    try:
        made = store.meta(FILE_KEY)
    finally:
        store.close()
    resume = f"its tournament YAML file (arena run {made} resumes it)" if isinstance(made, str) and \
        Path(made).is_file() else "the tournament YAML file that made it, to resume it"
    raise click.ClickException(f"{given} is a directory holding a stored tournament; give {resume}, or see its "
                               f"leaderboard with arena leaderboard {given}")


@main.command("run")
@click.argument("config_file", metavar="CONFIG", type=click.Path(path_type=Path))
@click.option("--workers", type=click.IntRange(1, MAX_WORKERS), default=None, help="Worker processes (default: the config's, else the number of cores).")
@click.option("--dask", "dask", metavar="ADDRESS", default=None,
              help="Play on a Dask cluster: its scheduler's address (tcp://HOST:8786), or local:N to start N local "
                   "Dask workers (needs pip install 'cabo-arena[dask]'; see docs/cluster.md).")
@click.option("--accept-bot-changes", is_flag=True,
              help="Resume even though bots' files changed since stored matches were played (mixes versions).")
@click.option("--matches", "max_matches", type=click.IntRange(1, MAX_RUN_MATCHES), default=None,
              help="Stop once this run has stored this many matches (a ladder otherwise runs until Ctrl-C).")
@click.option("--hours", type=click.FloatRange(0, MAX_HOURS, min_open=True), default=None, callback=_finite,
              help="Start no match after this many hours; matches in play are finished and stored.")
@click.option("--report/--no-report", default=True, show_default=True,
              help="Write the web report (RESULTS/report/index.html) at the end, and every few minutes "
                   "while a ladder plays; the replay viewer's frames of each match are made as it is played "
                   "(--no-report: a later report makes them from the replays).")
@click.option("--until", "until", metavar="settled[=P]", default=None,
              help="Stop once every row of the board is shown ahead of the next or in its tier (at most the "
                   "settle margin behind it), all claims together true with chance at least P (default 0.95); "
                   "after the first cycle only tables seating pairs still open are played. Checked after whole "
                   "cycles (a ladder: after any table); or stop at cycles or --matches, whichever comes first; "
                   "the last line says which. See docs/tournaments.md.")
@click.option("--wide", is_flag=True,
              help="Print the board at the end with every column (as arena leaderboard --wide does).")
def run_cmd(config_file: Path, workers: int | None, accept_bot_changes: bool, max_matches: int | None,
            hours: float | None, report: bool, dask: str | None = None, until: str | None = None,
            wide: bool = False) -> None:
    """Run (or resume) the tournament described by CONFIG and print its leaderboard."""
    from . import cluster  # noqa: F401  registers the Dask executor that --dask and `executor: {dask: ...}` choose
    from .execute import DASK, PoolFailure, choose
    from .site.refresh import RunReport
    from .tournament.config import ConfigError, load_config
    from .tournament.driver import run_tournament, sigterm_stops
    from .tournament.ladder.lock import AlreadyRunning
    from .tournament.leaderboard import text, voided_summary
    from .tournament.settle import UntilError, parse_until
    from .tournament.store import StoreMismatch

    try:
        until_settled = None if until is None else parse_until(until)
    except UntilError as exc:
        raise click.BadParameter(str(exc), param_hint="'--until'") from None
    try:
        executor = None if dask is None else choose(DASK, dask)  # --dask ADDRESS: `executor: {dask: ADDRESS}`
    except ValueError as exc:
        raise click.ClickException(f"--dask {exc}") from None
    _refuse_directory(config_file)
    try:
        config = load_config(config_file)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        with sigterm_stops():
            summary = run_tournament(config, workers=workers, accept_bot_changes=accept_bot_changes,
                                     max_matches=max_matches, hours=hours, report=RunReport if report else None,
                                     executor=executor, until_settled=until_settled)
    except (StoreMismatch, BotConfigError, SandboxError, AlreadyRunning, PoolFailure) as exc:
        raise click.ClickException(str(exc)) from None
    own = config.kind.hooks.board_files  # a schedule kind's own board, shown instead of the leaderboard
    if own:  # as arena leaderboard prints it (its notes wrapped to this terminal, not to the file's width)
        click.echo(_stored_board(config.output)[1].terminal(wide=wide), nl=False)
    else:
        click.echo(text(summary.leaderboard, voided=False, wide=wide))
    own_files = "".join(f"{name}, " for name in own)
    site = ", report/" if report and (config.output / "report" / "index.html").is_file() else ""
    click.echo(f"results: {config.output} ({own_files}leaderboard.md, leaderboard.json, leaderboard.csv, "
               f"head_to_head.csv, voided.csv, results.sqlite, replays/{site})")
    if summary.leaderboard.voided:
        click.echo(voided_summary(summary.leaderboard.voided))  # what is not rated, and why
    if summary.settled:
        click.echo(summary.settled)  # the last line: settled, or where the run stopped instead
    if summary.interrupted:
        raise SystemExit(128 + (signal.SIGTERM if summary.terminated else signal.SIGINT))
    if summary.stopped:
        raise click.ClickException(summary.stopped)
    if summary.failed:
        raise click.ClickException(f"{summary.failed} match(es) failed inside the arena; run again to retry them")
    if summary.played and summary.timed_out == summary.played:
        raise click.ClickException(f"every match this run played ({summary.played}) had a seat forfeited on time, "
                                   f"so the board rates the clock, not the bots; raise time.move_ms (or "
                                   f"time.startup_ms) in {config_file} and run it into a new output directory")


@main.command("leaderboard")
@click.argument("output_dir", metavar="OUTPUT_DIR|CONFIG", type=click.Path(path_type=Path))
@click.option("--all", "show_all", is_flag=True, help="A ladder: show older (replaced) versions too.")
@click.option("--format", "form", type=click.Choice(("text", "md", "csv", "json")), default="text", show_default=True,
              help="text: the board for a terminal; md, csv, json: the content of the board's leaderboard.md, "
                   ".csv, .json (a ladder's ladder.md, .csv, .json), made now.")
@click.option("--wide", is_flag=True, help="text: every column (by default the columns that fit 100).")
def leaderboard_cmd(output_dir: Path, show_all: bool, form: str, wide: bool) -> None:
    """Print the leaderboard of a tournament OUTPUT_DIR (or of the tournament or ladder file CONFIG), also while
    it runs."""
    from .tournament.render import TEXT, formatted

    if form != TEXT and (wide or show_all):
        raise click.UsageError(f"{'--wide' if wide else '--all'} applies to --format text only")
    heading, board = _stored_board(_results_of(output_dir), show_all)
    if form == TEXT:
        click.echo(heading)
    click.echo(formatted(board, form, show_all, wide), nl=False)


def _stored_board(output_dir: Path, show_all: bool = False) -> tuple[str, Any]:
    """The board of the results in ``output_dir`` (a :class:`.tournament.render.Board`: a ladder's own, else the
    leaderboard) and the line that heads it on a terminal; ``show_all`` is refused for a tournament."""
    from .site.withhold import held_back, held_back_note
    from .tournament.kinds import reading
    from .tournament.ladder import paired
    from .tournament.ladder.board import LadderBoard
    from .tournament.render import Board
    from .tournament.schedules import ROUND_ROBIN
    from .tournament.standings import ladder_board as ladder_rows
    from .tournament.standings import read, standings
    from .tournament.store import ResultStore, StoreMismatch

    try:
        store = ResultStore(output_dir, readonly=True)
    except (FileNotFoundError, StoreMismatch) as exc:
        raise click.ClickException(str(exc)) from None
    try:
        ladder = reading(store).keeps_ratings
        if not ladder and show_all:
            schedule = str((store.meta("config") or {}).get("schedule", ROUND_ROBIN)).replace("_", "-")
            raise click.ClickException(f"--all applies to ladders only; {output_dir} is a {schedule} tournament")
        board: Board
        if ladder:  # its ratings are kept in the store: no record is read, however many
            results = read(store, records=False)
            voided = results.voided
            heading = f"ladder: {store.count()} matches played"
            held = held_back_note(held_back(store))  # this board counts them; the public one does not
            board = LadderBoard(ladder_rows(results), paired.read(store.ladder), results.params.model)
        else:
            results = read(store)
            voided = results.voided
            of = "" if results.total is None else f" of {results.total}"  # an open-ended schedule has no total
            heading = f"{len(results.records)}{of} matches finished"
            held = ""
            board = standings(results)
    finally:
        store.close()
    return heading + (f", {len(voided)} voided" if voided else "") + held, board


def _ladder(config_file: Path) -> Any:
    """The ladder file's configuration, or a one-line error; says which output directory it names."""
    from .tournament.config import ConfigError, load_config
    from .tournament.ladder.submit import Refused, require_ladder

    try:
        config = load_config(config_file)
        require_ladder(config)
    except (ConfigError, Refused) as exc:
        raise click.ClickException(str(exc)) from None
    _say_output(config, config_file)
    return config


def _say_output(config: Any, config_file: Path, now: bool = False) -> None:
    """The line naming the output directory the file gives, said once the command succeeded (``now``: at once,
    for a command that runs until stopped)."""
    line = f"{config.name}: results in {config.output} (from {config_file})"
    if now:
        click.echo(line, err=True)
    else:
        click.get_current_context().meta[OUTPUT_NOTE] = line


def _results_of(given: Path) -> Path:
    """A results directory, given as itself or as the tournament or ladder file that names it."""
    from .tournament.config import ConfigError, load_config

    if not given.is_file():
        return given
    try:
        config = load_config(given)
    except ConfigError as exc:
        raise click.ClickException(str(exc)) from None
    _say_output(config, given)
    return Path(config.output)


def _stored_ladder(config: Any) -> None:
    """Refuse (one line) a command that changes a ladder's store when there is none: it would create one."""
    from .tournament.store import DB_NAME

    if not (config.output / DB_NAME).is_file():
        raise click.ClickException(f"ladder {config.name}: nothing entered yet ({config.output} has no {DB_NAME})")


def _remote(server: str, token: str | None, call: Any) -> Any:
    """``call(client, arena.server.client)`` against ``server``; its failures as one line."""
    from .server import client as remote

    if not token:
        raise click.ClickException("no token: give --token TOKEN or set ARENA_TOKEN (the organiser gives you one)")
    from .server.archive import ArchiveRefused

    try:
        return call(remote.Client(server, token), remote)
    except (remote.ServerError, ArchiveRefused) as exc:  # refused by the server, or before it was sent
        raise click.ClickException(str(exc)) from None


@main.command("submit")
@click.argument("paths", nargs=-1, required=True, metavar="[LADDER] BOT_DIR")
@click.option("--name", default=None, help="Name in the ladder (default: the bot's own).")
@click.option("--server", default=None, metavar="URL",
              help="Submit to a submission server (http://HOST:PORT) instead of a LADDER file here.")
@click.option("--token", envvar="ARENA_TOKEN", default=None, help="Your token for --server (default: $ARENA_TOKEN).")
@click.pass_context
def submit_cmd(ctx: click.Context, paths: tuple[str, ...], name: str | None, server: str | None,
               token: str | None) -> None:
    """Check the bot in BOT_DIR and enter it into LADDER (a running ladder picks it up at its next table).

    With --server, LADDER is left out: the bot is uploaded to that ladder's server (docs/server.md).
    """
    from .tournament.ladder.submit import CheckFailed, Refused, outcome_line, submit

    want = 1 if server else 2
    if len(paths) != want:
        raise click.UsageError("give BOT_DIR only with --server" if server else "give LADDER and BOT_DIR "
                               "(or --server URL and BOT_DIR)")
    if not server and Path(paths[0]).is_dir() and Path(paths[1]).is_file():  # swapped: say the order, not a type
        raise click.UsageError(f"the ladder file comes first, then the bot directory: "
                               f"arena submit {paths[1]} {paths[0]}")
    param = next(p for p in ctx.command.params if p.name == "paths")
    bot_dir = click.Path(file_okay=False, exists=True, path_type=Path).convert(paths[-1], param, ctx)
    if server:
        raise SystemExit(_remote(server, token, lambda client, remote: remote.submit(
            client, bot_dir, name, click.echo, lambda line: click.echo(line, err=True))))
    config_file = Path(paths[0])
    config = _ladder(config_file)
    try:
        done = submit(config, str(bot_dir), name, echo=click.echo)
    except CheckFailed as exc:
        click.echo(str(exc), err=True)
        raise SystemExit(1)
    except (Refused, BotConfigError, SandboxError) as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(outcome_line(done))


@main.command("retire")
@click.argument("paths", nargs=-1, required=True, metavar="[LADDER] NAME")
@click.option("--server", default=None, metavar="URL", help="Retire through a submission server instead.")
@click.option("--token", envvar="ARENA_TOKEN", default=None, help="Your token for --server (default: $ARENA_TOKEN).")
def retire_cmd(paths: tuple[str, ...], server: str | None, token: str | None) -> None:
    """Stop scheduling NAME in LADDER; its matches and ratings stay."""
    from .tournament.ladder.entries import entries, retire, retired_line
    from .tournament.store import ResultStore, StoreMismatch

    if len(paths) != (1 if server else 2):
        raise click.UsageError("give NAME only with --server" if server else "give LADDER and NAME "
                               "(or --server URL and NAME)")
    name = paths[-1]
    if server:
        click.echo(_remote(server, token, lambda client, remote: remote.retire(client, name)))
        return
    config_file = Path(paths[0])
    config = _ladder(config_file)
    _stored_ladder(config)
    try:
        store = ResultStore(config.output)
    except StoreMismatch as exc:
        raise click.ClickException(str(exc)) from None
    try:
        if not any(e.name == name for e in entries(store.ladder)):
            raise click.ClickException(f"no bot named {name} in ladder {config.name}")
        versions = retire(store.ladder, name)
    finally:
        store.close()
    click.echo(retired_line(name, versions))


@main.group("author")
def author_cmd() -> None:
    """The authors who may submit to a ladder's server (`arena serve LADDER`), and their tokens."""


def _server_db(config_file: Path, config: Any = None) -> Any:
    """The ladder's ``server.sqlite`` (``config``: the file's, read already), or a one-line error."""
    from .server.store import AuthorError, ServerDB

    config = _ladder(config_file) if config is None else config
    try:
        return ServerDB(config.output)
    except AuthorError as exc:
        raise click.ClickException(str(exc)) from None


def _with_authors(config_file: Path, change: Any) -> Any:
    """``change(db)`` on the ladder's authors, closed after; its refusal as one line."""
    from .server.store import AuthorError

    db = _server_db(config_file)
    try:
        return change(db)
    except AuthorError as exc:
        raise click.ClickException(str(exc)) from None
    finally:
        db.close()


@author_cmd.command("add")
@click.argument("config_file", metavar="LADDER", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("name", metavar="NAME")
@click.option("--organiser", is_flag=True, help="This token sees every bot's logs and may retire any bot.")
def author_add_cmd(config_file: Path, name: str, organiser: bool) -> None:
    """Add the author NAME and print their token (once: only its hash is kept)."""
    token = _with_authors(config_file, lambda db: db.add_author(name, organiser))
    click.echo(f"added {'the organiser' if organiser else 'the author'} {name}; their token, shown this once:")
    click.echo(f"token: {token}")


@author_cmd.command("list")
@click.argument("config_file", metavar="LADDER", type=click.Path(dir_okay=False, path_type=Path))
def author_list_cmd(config_file: Path) -> None:
    """List the authors of LADDER's server: name, organiser or not, the bots they own, when added."""
    from .server.store import DB_NAME

    config = _ladder(config_file)
    if not (config.output / DB_NAME).is_file():  # a read creates nothing
        click.echo(f"no authors yet ({config.output} has no {DB_NAME}): `arena author add LADDER NAME` adds one")
        return
    db = _server_db(config_file, config)
    try:
        authors = db.authors()
    finally:
        db.close()
    if not authors:
        click.echo("no authors yet: `arena author add LADDER NAME` adds one")
    for author in authors:
        added = time.strftime("%Y-%m-%d %H:%M", time.gmtime(author.created))
        click.echo(f"{author.name}{' (organiser)' if author.organiser else ''}: "
                   f"bots {', '.join(author.bots) or 'none'}; added {added} UTC")


@author_cmd.command("token")
@click.argument("config_file", metavar="LADDER", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("name", metavar="NAME")
def author_token_cmd(config_file: Path, name: str) -> None:
    """Give the author NAME a new token (a lost one cannot be shown again); they keep their bots, the old token
    stops working."""
    token = _with_authors(config_file, lambda db: db.new_token(name))
    click.echo(f"a new token for {name} (the old one no longer works), shown this once:")
    click.echo(f"token: {token}")


@author_cmd.command("remove")
@click.argument("config_file", metavar="LADDER", type=click.Path(dir_okay=False, path_type=Path))
@click.argument("name", metavar="NAME")
def author_remove_cmd(config_file: Path, name: str) -> None:
    """Remove the author NAME: their token stops working; their bots stay in the ladder."""
    _with_authors(config_file, lambda db: db.remove_author(name))
    click.echo(f"removed {name}: their token no longer works; their bots stay in the ladder, theirs: an author "
               "added later under this name owns none of them")


@main.command("prune")
@click.argument("config_file", metavar="LADDER", type=click.Path(dir_okay=False, path_type=Path))
def prune_cmd(config_file: Path) -> None:
    """Delete the snapshot files of LADDER's replaced and retired versions; their matches, ratings and logs stay."""
    from .tournament.ladder.prune import prune, size_text
    from .tournament.store import ResultStore, StoreMismatch

    config = _ladder(config_file)
    _stored_ladder(config)
    try:
        store = ResultStore(config.output)
    except StoreMismatch as exc:
        raise click.ClickException(str(exc)) from None
    try:
        done = prune(store.ladder, config.output)
    finally:
        store.close()
    for key, size in done.removed:
        click.echo(f"removed the files of {key}: {size_text(size)}")
    for key, why in done.kept:
        click.echo(f"kept the files of {key}: {why}")
    if done.removed:
        count = len(done.removed)
        click.echo(f"freed {size_text(done.freed)} ({count} version{'s' if count > 1 else ''}); their entries, "
                   "matches, ratings, replays and logs stay")
    else:
        click.echo(f"ladder {config.name}: nothing removed" + ("" if done.kept else
                                                               ": no version out of the field still has files"))


def _report_error(results_dir: Path, exc: Exception) -> click.ClickException:
    """One line for a directory the report cannot be made from (or written to)."""
    from .site.build import ReportError
    from .tournament.standings import BoardError
    from .tournament.store import DB_NAME, StoreDamaged

    if isinstance(exc, (StoreDamaged, BoardError)):  # names the file already
        return click.ClickException(str(exc))
    if not (Path(results_dir) / DB_NAME).is_file():
        return click.ClickException(f"{results_dir} is not a results directory (no {DB_NAME} there); "
                                    "give the output directory of `arena run`")
    if isinstance(exc, ReportError):
        return click.ClickException(str(exc))
    if isinstance(exc, OSError) and exc.filename:
        return click.ClickException(f"cannot write the report: {exc.filename}: {exc.strerror or exc}; "
                                    "choose another output directory")
    return click.ClickException(f"{results_dir}: {exc}")


@main.command("report")
@click.argument("results_dir", metavar="RESULTS_DIR|CONFIG", type=click.Path(path_type=Path))
@click.option("--output", "-o", "out_dir", type=click.Path(file_okay=False, path_type=Path), default=None,
              help="Where to write the site (default: RESULTS_DIR/report); replaced as a whole.")
@click.option("--public", is_flag=True, help="For strangers: no line any bot wrote on stderr, in any page or replay.")
def report_cmd(results_dir: Path, out_dir: Path | None, public: bool) -> None:
    """Write the static report site of RESULTS_DIR (or of the tournament or ladder file CONFIG): leaderboard,
    ratings, head-to-head, faults, matches.

    It works offline, opened from disk or from any static web server.
    """
    from .site.build import ReportError, build_report
    from .tournament.store import StoreMismatch

    results_dir = _results_of(results_dir)
    try:
        out = build_report(results_dir, out_dir, say=lambda note: click.echo(f"note: {note}", err=True),
                           public=public)
    except (OSError, StoreMismatch, ReportError) as exc:
        raise _report_error(results_dir, exc) from None
    index = (out / "index.html").resolve()
    click.echo(f"report: {index}")
    click.echo(f"open: {index.as_uri()}")


@main.command("serve")
@click.argument("results_dir", metavar="RESULTS_DIR|LADDER", type=click.Path(path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=8000, show_default=True, help="TCP port (0: any free one).")
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (0.0.0.0: every interface).")
def serve_cmd(results_dir: Path, port: int, host: str) -> None:
    """Serve the report of RESULTS_DIR over HTTP (read-only), rebuilt as matches arrive; Ctrl-C stops.

    Given a ladder's YAML file instead, serve its report and its submission server (docs/server.md); given a
    tournament's, the report of the results it names.
    """
    from .site.build import ReportError
    from .site.listen import serve
    from .site.serve import LiveReport, create_app
    from .tournament.store import StoreMismatch

    if results_dir.suffix in (".yaml", ".yml") and not results_dir.is_dir():
        from .server.run import serve_ladder
        from .tournament.config import ConfigError, load_config
        from .tournament.ladder.submit import Refused, require_ladder

        try:
            config = load_config(results_dir)
        except ConfigError as exc:
            raise click.ClickException(str(exc)) from None
        _say_output(config, results_dir, now=True)
        try:
            require_ladder(config)
        except Refused:  # a tournament's file: the report of its results
            results_dir = config.output
        else:
            serve_ladder(config, host, port, say=lambda line: click.echo(line, err=True))
            return
    report = LiveReport(results_dir, say=lambda line: click.echo(line, err=True))
    try:
        report.build()
    except (OSError, StoreMismatch, ReportError) as exc:
        raise _report_error(results_dir, exc) from None
    serve(create_app(report), host, port, lambda url: f"serving {report.root} at {url} (Ctrl-C stops)")


if __name__ == "__main__":
    main()
