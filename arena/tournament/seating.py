"""Which bots may sit at which tables of a tournament, from what each bot supports.

A bot's manifest may limit it to some rule presets and table sizes. The schedule then
draws each size's tables only among the bots that play it; a field that cannot fill a
size, or a bot that would play no table at all, is refused before anything runs,
because a half-empty schedule would rate bots on matches nobody meant to skip.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..bots.spec import BotSpec
from ..bots.supports import seat_text


def restricted_sizes(bots: Sequence[BotSpec], preset: str, seats: Sequence[int]) -> dict[str, tuple[int, ...]]:
    """Bot name -> the sizes of ``seats`` it plays under ``preset``, for bots that do not play all of them.

    Bots that play every size are left out, so a field that declares nothing gives ``{}``
    and the schedule (and fingerprint) of tournaments from before ``supports`` is unchanged.
    """
    sizes = tuple(sorted(set(seats)))
    out: dict[str, tuple[int, ...]] = {}
    for bot in bots:
        played = tuple(n for n in sizes if bot.supports.plays(preset, n))
        if played != sizes:
            out[bot.name] = played
    return out


def refusal(bots: Sequence[BotSpec], preset: str, seats: Sequence[int]) -> str | None:
    """Why the field cannot play this tournament, in one line, or None if every table size can be filled."""
    sizes = tuple(sorted(set(seats)))
    played = restricted_sizes(bots, preset, sizes)
    for n in sizes:
        able = [b.name for b in bots if n in played.get(b.name, sizes)]
        if len(able) < n:
            unable = ", ".join(f"{b.name}: {b.supports.short()}" for b in bots if b.name not in able)
            who = f" ({', '.join(able)})" if able else ""
            return (f"no table of {n} seats can be filled: only {len(able)} bot{'' if len(able) == 1 else 's'} "
                    f"support {n} seats under {preset} rules{who}; the others declare {unable}; drop {n} from "
                    "seats or add bots that play it")
    idle = [b for b in bots if not played.get(b.name, sizes)]
    if idle:
        what = ", ".join(f"{b.name} (supports {b.supports.text()})" for b in idle)
        return (f"{what} would play no match: this tournament plays {preset} at {seat_text(sizes)}; "
                f"remove {'it' if len(idle) == 1 else 'them'} or change rules or seats")
    return None
