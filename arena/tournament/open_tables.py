"""Tables chosen for what is still open: ``--until settled`` on a schedule known in advance.

A round robin of 6 bots at tables of 4 seats a given pair at 6 of its 15 tables, so most of each
cycle plays pairs whose order the board already shows. Under ``--until settled`` the first cycle
(or a sampled schedule's first round of tables) is played whole, a balanced pass; every later unit
plays only the tables that seat the pairs still *undecided*: no claim either way (neither bot shown
at most the margin behind the other, :mod:`arena.evidence.claims`). The fewest tables that seat them
all are taken greedily (the table seating most of them, then the one played least, then the bots
that played least), and, so that every pair's count keeps growing, the least played table of the
least met pair whenever that pair has fewer than a quarter of the deals of the most met one. A unit
whose pairs are all decided (the board may still wait on its order) is played whole.

The tables keep their ids and deals (those of the cycle they are played in), so a unit is a part of
the cycle it stands for. Each table chosen is seated in the order of its size's balanced design that
most evens out who sat directly after whom so far (:func:`.schedules.balance.least_imbalanced`), so
identical programs still tie. The choice reads only the stored deals of earlier units, never ratings
or timing: the same file and seed choose the same tables whatever the number of workers, and a
resumed run chooses again what the first run chose (its stored matches are read unit by unit). The
matches of a unit's other tables are passed over, never stored: a later run with the rule off would
play them.

What the claims are about when table-mates vary: a pair's lead is the mean over the deals the two
shared, whoever else sat with them; with open tables those table-mates are no longer every other
bot equally often, so the claims are about the deals played, as they are on a sampled schedule.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Sequence

from ..evidence.claims import OPEN, Rules, call
from .evidence import PairEvidence
from .records import MatchRecord
from .schedules.balance import adjacent, least_imbalanced, rotated, seated
from .schedules.base import ScheduledMatch

LAG = 4
"""A pair met fewer than 1 / LAG times as often as the most met pair gets a table of its own."""

_CYCLE = re.compile(r"^c\d+/")
_ROTATION = re.compile(r"/r\d+$")


def table_key(match_id: str) -> str:
    """The table of a match, the same in every cycle: its id without the cycle and the rotation
    (``c3/a+b+c+d/r1`` -> ``a+b+c+d``; a sampled draw keeps its number, ``t2/a+b+c+d``)."""
    return _ROTATION.sub("", _CYCLE.sub("", match_id))


@dataclass
class OpenTables:
    """The choice of each unit's tables, from the deals stored before it."""

    evidence: PairEvidence
    rules: Rules
    reseat: bool = True
    """Seat each table chosen by :func:`.balance.least_imbalanced` (else as scheduled: ``seating: cyclic``)."""
    adjacency: Counter[tuple[str, str]] = field(default_factory=Counter)
    """How often each bot sat directly after another, over the stored matches."""
    plays: Counter[str] = field(default_factory=Counter)
    """Stored matches of each table."""

    def stored(self, record: MatchRecord) -> None:
        """Count a stored match's seating and table (the evidence is the gate's to add)."""
        self.adjacency.update(adjacent(record.bots))
        self.plays[table_key(record.match_id)] += 1

    def undecided(self, players: Sequence[str]) -> set[tuple[str, str]]:
        """The pairs of ``players`` (name order within a pair) with no claim either way."""
        out = set()
        for i, a in enumerate(players):
            for b in players[i + 1:]:
                if call(self.evidence.stats, a, b, self.rules, len(players)).relation == OPEN and \
                        call(self.evidence.stats, b, a, self.rules, len(players)).relation == OPEN:
                    out.add((a, b))
        return out

    def choose(self, unit: Sequence[ScheduledMatch]) -> tuple[list[ScheduledMatch], list[ScheduledMatch]]:
        """(the matches of ``unit`` to play, seated; those passed over)."""
        tables: dict[str, list[ScheduledMatch]] = {}
        for scheduled in unit:
            tables.setdefault(table_key(scheduled.match_id), []).append(scheduled)
        seats = {key: sorted(matches[0].bots) for key, matches in tables.items()}
        players = sorted({bot for bots in seats.values() for bot in bots})
        left = self.undecided(players)
        if not left:
            return list(unit), []
        pairs_at = {key: {(a, b) for i, a in enumerate(bots) for b in bots[i + 1:]} for key, bots in seats.items()}
        played_by = Counter({bot: sum(self.plays[key] for key, bots in seats.items() if bot in bots)
                             for bot in players})
        chosen: list[str] = []
        while left:
            best = min(tables, key=lambda key: (-len(pairs_at[key] & left), self.plays[key],
                                                sum(played_by[b] for b in seats[key]), key))
            if not pairs_at[best] & left:
                break
            chosen.append(best)
            left -= pairs_at[best]
        met = {pair: self.evidence.stats(*pair)[0] for pairs in pairs_at.values() for pair in pairs}
        least = min(met, key=lambda pair: (met[pair], pair))
        if LAG * met[least] < max(met.values()) and not any(least in pairs_at[key] for key in chosen):
            chosen.append(min((key for key in tables if least in pairs_at[key]),
                              key=lambda key: (self.plays[key], key)))
        keep = set(chosen)
        play = [self._seat(s, seats[table_key(s.match_id)]) for s in unit if table_key(s.match_id) in keep]
        return play, [s for s in unit if table_key(s.match_id) not in keep]

    def _seat(self, scheduled: ScheduledMatch, table: Sequence[str]) -> ScheduledMatch:
        """``scheduled`` in the seating of its table that evens out who sat after whom (its rotation kept)."""
        if not self.reseat:
            return scheduled
        order = seated(table, least_imbalanced(table, self.adjacency))
        return replace(scheduled, bots=rotated(order, scheduled.rotation))
