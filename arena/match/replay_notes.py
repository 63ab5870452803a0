"""The arena's records in a replay: faults, forfeits, fallback moves, the bots' logs and the final result.

The engine's replay shows the game; these records show what the bots did to the match,
so that a viewer shows the places the results database holds (forfeited seats last)
without recomputing them, and can tell a bot's own move from one the fallback policy
made for it. Everything here is about bots, never about hidden cards.
"""

from __future__ import annotations

from typing import Any, Sequence

from ..game.replay import FALLBACK
from .faults import Fault
from .seatlog import SeatLog

__all__ = ["FALLBACK", "fault_record", "forfeit_record", "log_records", "result_record"]


def fault_record(fault: Fault) -> dict[str, Any]:
    """A ``fault`` record: the fault as the results database stores it.

    Its stderr tail is bounded (see ``runner._Table.fault``) and is the bot's own output;
    a viewer showing one seat's perspective shows it only for that seat's faults.
    """
    return {"type": "fault", **fault.to_json()}


def forfeit_record(seat: int, bot: str, decision: int, round_no: int) -> dict[str, Any]:
    """A ``forfeit`` record: from ``decision`` on the fallback policy plays ``seat``, which ranks last."""
    return {"type": "forfeit", "seat": seat, "bot": bot, "decision": decision, "round": round_no}


def log_records(seat: int, log: SeatLog) -> list[dict[str, Any]]:
    """The ``log`` records of one seat: one per piece of its log, stamped with the decision at which
    it was read; the first says how many bytes were ``cut`` before it, when some were.

    A log is the bot's own output, so a viewer showing one seat's perspective shows only that seat's.
    """
    records: list[dict[str, Any]] = []
    for decision, text in log.pieces():
        record: dict[str, Any] = {"type": "log", "seat": seat, "decision": decision, "text": text}
        if log.cut and not records:
            record["cut"] = log.cut
        records.append(record)
    return records


def result_record(totals: Sequence[int], places: Sequence[int], forfeited: Sequence[bool],
                  reason: str) -> dict[str, Any]:
    """The ``result`` record: the match's outcome exactly as stored with the results."""
    return {"type": "result", "totals": list(totals), "places": list(places), "forfeited": list(forfeited),
            "reason": reason}

