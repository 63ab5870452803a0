"""Plain-text accounts of match outcomes and replays, for the command line (``arena play``, ``arena replay``).

An "account", not a "report": the report is the web site (:mod:`arena.site`).
"""

from __future__ import annotations

from typing import Any, Iterable

from ..game.registry import DEFAULT_GAME
from .luck_account import LuckLines, measured
from .replay_notes import FALLBACK
from .runner import MatchOutcome
from .seatlog import cut_marker


def outcome_text(outcome: MatchOutcome, preset: str) -> list[str]:
    """Per-round scores, final standings and faults of one match."""
    names = [f"{name}@{seat}" for seat, name in enumerate(outcome.bots)]
    width = max(8, *(len(n) for n in names))
    lines = [f"match {outcome.match_id}: {preset}, {len(names)} players, seed {outcome.seed}, "
             f"sandbox {outcome.sandbox}, {outcome.decisions} decisions in {outcome.seconds:.2f} s"]
    lines.append("round  " + "  ".join(n.rjust(width) for n in names))
    for number, scores in enumerate(outcome.rounds, 1):
        lines.append(f"{number:>5}  " + "  ".join(str(s).rjust(width) for s in scores))
    lines.append("total  " + "  ".join(str(t).rjust(width) for t in outcome.totals))
    lines.append(f"ended: {outcome.reason}")
    lines.append("standings:")
    for seat in sorted(range(len(names)), key=lambda s: (outcome.places[s], s)):
        mark = "  (forfeited)" if outcome.forfeited[seat] else ""
        lines.append(f"  {outcome.places[seat]}. {names[seat]}  total {outcome.totals[seat]}{mark}")
    if outcome.luck:
        lines.append("luck (points the cards gave over the expected cards, +: worse; arena replay --luck: card by "
                     "card): " + ", ".join(f"{name} {value:+.1f}" for name, value in zip(names, outcome.luck)))
    lines.extend(fault_lines(outcome))
    return lines


def fault_lines(outcome: MatchOutcome) -> list[str]:
    """One paragraph per fault: who, what, and the bot's last stderr lines."""
    if not outcome.faults:
        return ["faults: none"]
    lines = [f"faults: {len(outcome.faults)}"]
    for fault in outcome.faults:
        lines.append(f"  seat {fault.seat} ({fault.bot}), round {fault.round}, decision {fault.decision}: "
                     f"{fault.kind.value}: {fault.detail}")
        tail = [line for line in fault.stderr.splitlines() if line.strip()][-5:]
        lines.extend(f"    stderr| {line}" for line in tail)
    return lines


def replay_text(header: dict[str, Any], records: Iterable[dict[str, Any]], seat: int | None,
                log: bool = False, luck: bool = False) -> list[str]:
    """A readable account of a replay, omniscient (``seat`` None) or as one seat saw it.

    Faults, forfeits, fallback moves and the final places are shown in both views: they
    are facts about bots, not cards. A seat's view shows the detail and stderr only of its
    own faults, since another bot's reply or log may well name that bot's cards. With
    ``log``, the bots' logs are shown where the arena read them (a seat's view: only its
    own, beside its own moves, so its author can see what it wrote at each decision).

    A replay of another game than Cabo (its header names it) shows its events as they are,
    and a seat's view none of them: only the game knows what each seat saw of them.

    With ``luck`` (omniscient only), what the cards gave each seat over the expected card, card by card
    (:mod:`.luck_account`); a replay it cannot measure raises :class:`.luck_account.LuckReplayError`.
    """
    cabo = header.get("game", DEFAULT_GAME) == DEFAULT_GAME
    names = header.get("bots") or [f"seat{s}" for s in range(header["players"])]
    records = list(records)
    if luck and seat is not None:
        raise ValueError("the luck reads every hand and the deck: it is shown in the omniscient account only")
    meter = LuckLines(measured(header, records), names) if luck else None
    who = "everything (omniscient)" if seat is None else f"seat {seat} ({names[seat]})"
    told = header.get("wire_id")
    game = "" if cabo else f"{header['game']} "
    lines = [f"replay of {header.get('match', '?')}: {game}{header['rules']['preset']}, {header['players']} players, "
             f"seed {header['seed']}; showing {who}"
             + (f"; bots were told match id {told}" if told and told != header.get("match") else "")]
    for record in records:
        kind = record["type"]
        if kind == "action":
            lines.extend(_action_lines(record, names, seat, log))
        elif kind == "log":
            lines.extend(_log_lines(record, names, seat) if log else ())
        elif kind == "fault":
            lines.extend(_fault_lines(record, names, seat))
        elif kind == "forfeit":
            lines.append(f"!! forfeit: {_who(record['seat'], names)} from decision {record['decision']} on: the "
                         "fallback policy plays its moves, and it ranks below every seat not forfeited")
        elif kind == "result":
            lines.extend(_result_lines(record, names))
        elif cabo:
            lines.append(_event_line(_as_seen(record, seat), names))
        elif seat is None:
            lines.append(_plain_event_line(record, names))
        if meter is not None:
            lines.extend(meter.at(record))
    return lines


def _who(seat: int, names: list[str]) -> str:
    return f"{names[seat]}@{seat}"


def _action_lines(record: dict[str, Any], names: list[str], seat: int | None, own: bool = False) -> list[str]:
    """Every action in the omniscient view; in a seat's view the moves made for a bot by the fallback,
    and with ``own`` the seat's own moves too (the decisions its log is about)."""
    fallback = record.get("by") == FALLBACK
    if seat is None:
        return [f"    > seat {record['seat']} chose {_compact(record['action'])}"
                + ("  [by the fallback policy]" if fallback else "")]
    if record["seat"] == seat and fallback:
        return [f"    > the fallback policy chose {_compact(record['action'])} for you"]
    if record["seat"] == seat and own:
        return [f"    > you chose {_compact(record['action'])}"]
    if not fallback:
        return []
    return [f"    > {_who(record['seat'], names)} moved by the fallback policy"]


def _log_lines(record: dict[str, Any], names: list[str], seat: int | None) -> list[str]:
    """A piece of a bot's log: in a seat's view only the seat's own (another bot's may name its cards)."""
    if seat is not None and record["seat"] != seat:
        return []
    prefix = "     log| " if seat is not None else f"     log {_who(record['seat'], names)}| "
    text = (cut_marker(record["cut"]) if record.get("cut") else "") + str(record.get("text", ""))
    return [prefix + line for line in text.splitlines()]


def _fault_lines(record: dict[str, Any], names: list[str], seat: int | None) -> list[str]:
    where = f"!! fault: {_who(record['seat'], names)}, round {record['round']}, decision {record['decision']}: " \
            f"{record['kind']}"
    if seat is not None and seat != record["seat"]:
        return [where]
    tail = [line for line in str(record.get("stderr", "")).splitlines() if line.strip()][-5:]
    return [f"{where}: {record['detail']}"] + [f"     stderr| {line}" for line in tail]


def _result_lines(record: dict[str, Any], names: list[str]) -> list[str]:
    places, totals, forfeited = record["places"], record["totals"], record["forfeited"]
    lines = [f"== result ({record['reason']}): places {places} totals {totals}"
             + (" (forfeited seats rank last)" if any(forfeited) else "")]
    for s in sorted(range(len(places)), key=lambda s: (places[s], s)):
        lines.append(f"  {places[s]}. {_who(s, names)}  total {totals[s]}" + ("  (forfeited)" if forfeited[s] else ""))
    return lines


def _as_seen(record: dict[str, Any], seat: int | None) -> dict[str, Any]:
    seen = record.get("seen", {})
    return {k: v for k, v in record.items()
            if k != "seen" and (seat is None or k not in seen or seat in seen[k])}


def _event_line(event: dict[str, Any], names: list[str]) -> str:
    """A Cabo event: the round's and match's ends in full, the others as they are."""
    kind = event["type"]
    if kind == "round_start":
        return (f"== round {event['round']}: dealer {event['dealer']}, starter {event['starter']}, "
                f"discard {event['discard']}, deck {event['deck']}")
    if kind == "round_over":
        return (f"== round {event['round']} over ({event['ended']}): hands {event['hands']} sums {event['sums']} "
                f"scores {event['scores']} totals {event['totals']}"
                + (f" moon {event['moon']}" if event.get("moon") is not None else "")
                + (f" resets {event['resets']}" if event.get("resets") else ""))
    if kind == "match_over":
        return f"== match over ({event['reason']}): totals {event['totals']} places by total {event['places']}"
    return _plain_event_line(event, names)


def _plain_event_line(event: dict[str, Any], names: list[str]) -> str:
    """An event as it is: who, its type, its other fields."""
    kind, actor = event["type"], event.get("seat")
    who = f"{names[actor]}@{actor}" if isinstance(actor, int) and 0 <= actor < len(names) else "-"
    rest = {k: v for k, v in event.items() if k not in ("type", "seat")}
    return f"  {who:>14} {kind:<12} {_compact(rest)}"


def _compact(value: dict[str, Any]) -> str:
    return " ".join(f"{k}={v}" for k, v in value.items()) if value else ""
