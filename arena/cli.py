"""The ``arena`` command line: a thin layer over the library.

Every user error becomes a one-line :class:`click.ClickException`, never a traceback.
"""

from __future__ import annotations

import time
from typing import Any

import click

from . import __version__
from .game import RuleError, make_rules, options_of, parse_option_args, preset_names
from .game.rules import MAX_PLAYERS, MIN_PLAYERS
from .selfplay import self_play


def _rules_from(preset: str, options: tuple[str, ...]) -> Any:
    try:
        return make_rules(preset, parse_option_args(options))
    except RuleError as exc:
        raise click.ClickException(str(exc)) from None


OPTION_HELP = "Rule option as key=value (repeatable); see `arena rules PRESET`."


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="arena")
def main() -> None:
    """Cabo Arena: run tournaments of Cabo-playing bots and rate them."""


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
@click.option("--matches", type=click.IntRange(1), default=100, show_default=True, help="Matches to play.")
@click.option("--seed", type=int, default=1, show_default=True, help="Master seed; match i uses SEED/i.")
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
