"""``arena bot log``: a bot's logs across a tournament, read from its results database.

A bot author wants to read what the bot wrote in the matches it played: each match is
headed by its id, the seat and the place, so a log line can be matched to the replay
(``arena replay results/<name>/replays/NNNNNN.jsonl.gz --seat N`` shows it beside the
bot's moves).

In a ladder every version of a bot is a player of its own, ``NAME@vK``; a plain ``NAME``
means its newest version, and the output says which one that is (:func:`resolve`).
"""

from __future__ import annotations

from .ladder.entries import entries
from .records import SeatLogRecord
from .store import ResultStore

LISTED = 20
"""Most names listed in an error message before "and N more"."""


class BotLogError(Exception):
    """A bot or match that the results do not hold; the message (one line) lists what they do hold."""


def _listing(names: list[str]) -> str:
    more = f" and {len(names) - LISTED} more" if len(names) > LISTED else ""
    return ", ".join(names[:LISTED]) + more


def _stored_bots(store: ResultStore) -> list[str]:
    """The tournament's bots (a ladder's entries, played or not), and any other name a stored match has."""
    names = list(store.meta("bots") or [])
    names.extend(e.key for e in entries(store.ladder) if e.key not in names)
    for bots in store.seatings():
        names.extend(name for name in bots if name not in names)
    return names


def resolve(store: ResultStore, bot: str) -> tuple[str, str | None]:
    """The player ``bot`` names, and a line saying which one when that was a choice: in a ladder, a name
    without ``@vK`` is the name's newest version (the current one, or the last before it left)."""
    if "@" in bot:
        return bot, None
    versions = [e for e in entries(store.ladder) if e.name == bot]
    if not versions:
        return bot, None
    newest = versions[-1]  # entries come by name, then version
    others = ", ".join(e.key for e in versions[:-1])
    older = f"; older: {others} (name one as {bot}@vK)" if others else ""
    return newest.key, f"{bot}: the logs of {newest.key}, its newest version ({newest.status}){older}"


def select_logs(store: ResultStore, bot: str, match: str | None = None) -> list[SeatLogRecord]:
    """The seats ``bot`` held (only in ``match`` if given), with their logs; :class:`BotLogError` if none can be."""
    seats = store.bot_logs(bot)
    if not seats:
        known = _stored_bots(store)
        if bot not in known:
            raise BotLogError(f"no bot {bot!r} in {store.directory}; bots there: {_listing(known) or 'none'}")
    if match is None:
        return seats
    chosen = [s for s in seats if s.match_id == match]
    if chosen:
        return chosen
    theirs = _listing([s.match_id for s in seats]) or "none stored yet"
    seating = store.seating_of(match)
    if seating is not None:
        raise BotLogError(f"{bot} did not play {match} (its bots: {', '.join(seating)}); "
                          f"{bot}'s matches: {theirs}")
    raise BotLogError(f"no stored match {match!r} in {store.directory}; {bot}'s matches: {theirs}")


def log_lines(seats: list[SeatLogRecord]) -> list[str]:
    """Each seat's log under a heading with the match id, seat and place."""
    lines: list[str] = []
    for entry in seats:
        lines.append(f"== {entry.match_id}: seat {entry.seat} of {entry.players}, place {entry.place} "
                     f"(replay {entry.replay})")
        if entry.text is None:
            lines.append("(no log kept: this match was stored by an arena that kept no logs)")
        elif not entry.text:
            lines.append("(nothing on stderr)")
        else:
            lines.extend(entry.text.splitlines())
    return lines
