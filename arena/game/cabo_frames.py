"""Cabo's replay frames for the viewer: a match, step by step, omniscient and as each seat saw it.

The viewer's drawing of a Cabo table reads these; :mod:`arena.site.frames` asks each match's
game (:meth:`arena.game.seam.Game.frames`) for its frames, and Cabo's come from here.

The viewer draws what these frames hold: every seat's view of every step comes from
:func:`arena.game.observe.observe` and :func:`arena.game.observe.events_for`, the very functions
the arena uses to build what it sends a bot, called on the match rebuilt from the replay's
actions. So a seat's view can never show a card that seat's bot was not shown. What the viewer
works out itself is bookkeeping, not knowledge: fields carried forward from the step before,
a hand's value (the sum of its cards' ``values``), a seat's view written against the true hands
(a ``+`` is "the card there, as this seat was shown it") and names put in for seat marks.

Structure (JSON-able, short keys to keep a report's many replay files small)::

    {"format": FORMAT, "match": ..., "preset": ..., "players": n, "bots": [...], "seed": ..., "values": {code: value},
     "wire_id": ..., "rounds": [{"round", "scores", "totals", "sums", "caller", "moon", "resets",
     "ended"}], "result": {"totals", "places", "forfeited", "reason"}, "faults": [[seat, decision, step], ...],
     "steps": [step, ...], "slow": [[decision, step], ...]}

``result`` has ``luck`` too when the frames were made with it: each seat's luck over the match, in tenths
of a point, from the meter's exact sums (a step's ``lu`` is rounded on its own).

``values`` is every card's value under the match's rules, as bots are sent it in ``hello``.
``faults`` says at which step each fault of the replay is shown: the report numbers a fault by its
decision (actions applied before it), and a link to it opens that step.
``slow`` lists the match's slowest decisions (:data:`SLOWEST` at most, slowest first) and the step
that shows each; empty when the match has no stored times. ``move_ms`` is a decision's time limit as
``hello`` gave it (null when the replay does not say): a decision is marked slow against it at
:data:`NEAR` of it or more.

Each decision's time is not in the replay (a replayed match gives the same replay bytes, and a
time never repeats): the results store keeps it beside the match, and the caller passes it to
:func:`build_frames` as ``times``. Frames of a replay without stored times have none.

A step is the table at one moment. Its table fields (``r`` to ``ff`` below) are left out
when equal to the previous step's, so a reader carries them forward (the frames go with every
match of a report, and what repeats from step to step is most of their bytes)::

    k     kind: "deal" (after a deal), "play" (after an action; the answers of a simultaneous
          phase make one step, when the last is in), "end" (a round's last moment, before its cards are shown) or "reveal"
          (the round scored, every card shown)
    n     actions applied (the replay's decision number of the next action); absent when one more
          than the previous step's (the first step: 0)
    r, ph round number and phase (protocol names)
    tm    seat to move, or null in simultaneous phases / at the end
    w     seats asked at once (look_initial, claim), or []
    st, dl starter, dealer;  cabo  the caller or null
    h     every hand, omniscient, packed: two characters a slot (the card code, ``--`` for an
          empty slot), seats split by ``|`` (``"9S5S--4H|TH4D8C2S"``)
    d, dn, dk  discard top (or null), discard size, deck size
    held, hs, hf  the held card, its holder and where it came from (omniscient), or null
    lk    [seat, slot] the Rey looked at (phase rey), or null
    tot   running totals (before the round; after it in a "reveal" step);  ro  rounds finished
    ff    seats forfeited so far
    hl    [[seat, slot], ...] slots this step's public events touched (absent: none)
    v     per seat: [cells, held], what observe() gave that seat, or 0 when equal to that seat's
          view in the previous step. ``cells`` is every slot of every hand, seats split by ``|``,
          a character a slot: ``+`` the card this step's ``h`` has there (the seat was shown it),
          ``?`` a card it does not know (observe's ``"?"``), ``-`` an empty slot, or a card code
          where the seat was shown another card than ``h`` holds; or ``~`` then the slots that
          changed since the seat's last cells, each its hand, its slot (a digit each) and its cell
          (a slot one past a hand's end adds one). ``held``: null, 1 (the table's ``held``: the
          seat holds it and was shown it) or a card code. In a "reveal" step the hands are those of the
          round_over event the seat was sent.
    log   entries: [cls, text] shown in every view, or [cls, text, [text or null per seat]]:
          the omniscient text, then each seat's own (null: not shown to that seat; 1: the same
          as the omniscient text; -1-s: the same as seat s's). In every text a character
          U+E000 + s stands for seat s's name, ``<bot>@<s>`` (what a bot wrote never holds one:
          such a character is shown as U+FFFD). A text may be a number the reader writes out
          (only where that is exactly the text): in an ``rd`` entry 1, the start of this step's
          round ("Round <r>: <dl> deals, <st> starts; discard [<d>], deck <dk>"), or 2, the end of
          round ``rounds[ro - 1]`` ("Round <round> over (<ended>): <seat> <score, signed>, ...",
          then "; <moon> shot the moon" and "; reset to 50: <seats>" when so); in a ``slow``
          entry the decision, whose seat and ms are this step's next ``t`` entry marked slow
          ("<seat> took <ms, 1 decimal> ms for decision <decision>, one of the match's 5 slowest,
          well within its <move_ms> ms", or, at half of ``move_ms`` or more, "SLOW <seat> took
          <ms> ms for decision <decision>, over half its <move_ms> ms, one of the match's 5
          slowest"; without ``move_ms``, the first without its last clause)
    fb, fl  seats moved by the fallback policy / that faulted in this step (absent: none)
    lu    per seat, the luck of the cards the deck gave in this step (the deal's, a card drawn from the
          pile, a penalty card): what the referee's meter measured them to give the seat over the cards
          it could expect, in tenths of a point (positive: more points, worse), summed over the step's
          cards; absent when the deck gave none or the frames were made without the luck. Omniscient:
          a term reads every hand and the deck, so the viewer shows it in no seat's view
    t     [[seat, ms, slow], ...] the actions of this step that a bot chose, in order, each with the
          milliseconds it took from the arena's request to its reply; ``slow`` is 1 for one of the
          match's slowest decisions (see ``slow``), else 0 (absent: no stored times for them). A
          seat's view shows only that seat's own times: its bot was never told the others'.

A fault's line carries the end of the bot's stderr only when the replay holds no log of that
seat from that decision on: otherwise the seat's ``log|`` lines of the same step show it, once.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterable, Sequence

from .events import Event
from .observe import events_for, observe
from .replay import FALLBACK, hello_time
from .rules import make_rules
from .state import CLAIM, LOOK_INITIAL, REY, Match

FORMAT = "arena-viewer-frames/5"
"""2: each card's and hand's value (``values``, ``hv``) and the step of each fault (``faults``);
3: each decision's time (``t``, ``slow``); 4: smaller (``n`` and ``hv`` left to the reader, seat views
against the true hands and as changes, repeated seat texts and names as references); 5: the luck of the
cards (``lu``, ``result.luck``)."""

SEAT_MARK = 0xE000
"""A text's character ``chr(SEAT_MARK + s)`` is seat s's name (a private-use character: no engine text
holds one, and what a bot wrote has each replaced)."""
_MARKS = re.compile("[\ue000-\uf8ff]")

SLOWEST = 5
NEAR = 0.5
"""A decision that took this share of its time limit or more is slow against it: the viewer marks it."""
ROUND_START, ROUND_OVER = 1, 2
"""The numbers an ``rd`` entry's text may be (see ``log`` in the module's docstring)."""
"""How many of a match's slowest decisions are marked (``slow``), so that they are easy to find."""

_SIMULTANEOUS = (LOOK_INITIAL, CLAIM)


class _Chances:
    """Counts the cards the deck gives the rebuilt match (a :class:`..chance.ChanceWatcher`): the ``n``-th
    card's luck is the ``n``-th term the caller measured, so counting places each in its step."""

    def __init__(self) -> None:
        self.count = 0

    def drawn(self, match: Any, kind: str, seat: int, card: int) -> None:
        self.count += 1


class _Recorder(Match):
    """A match that calls ``hook`` at a round's last moment and just after it is scored:
    both happen inside one ``apply`` (the same action also deals the next round)."""

    hook: Callable[[str], None] | None = None

    def _end_round(self, ended: str) -> None:
        if self.hook is not None:
            self.hook("end")
        super()._end_round(ended)

    def _emit(self, public: dict[str, Any], *private: tuple[str, Any, int]) -> None:
        super()._emit(public, *private)
        if public["type"] == "round_over" and self.hook is not None:
            self.hook("reveal")


def build_frames(header: dict[str, Any], records: Iterable[dict[str, Any]],
                 times: Sequence[float | None] | None = None,
                 luck: Sequence[Sequence[float]] | None = None) -> dict[str, Any]:
    """The viewer's frames of a replay (see the module's docstring); ``times``: the milliseconds of each
    decision in order (None: not the bot's choice), as the results store keeps them, or None; ``luck``: per
    card the deck gave, in order, each seat's term as the referee's meter measured it (:mod:`arena.luck`),
    or None for frames without it. A ``ValueError`` if ``luck`` is not one term a seat for every card."""
    return _Builder(header, times, luck).run(list(records))


def _slowest(times: Sequence[float | None] | None) -> set[int]:
    """The decisions of the :data:`SLOWEST` longest times (the earlier of equal ones first)."""
    timed = [(-ms, number) for number, ms in enumerate(times or ()) if ms is not None]
    return {number for _, number in sorted(timed)[:SLOWEST]}


class _Builder:
    def __init__(self, header: dict[str, Any], times: Sequence[float | None] | None = None,
                 luck: Sequence[Sequence[float]] | None = None) -> None:
        self.header = header
        self.times: Sequence[float | None] = [t if isinstance(t, (int, float)) and not isinstance(t, bool)
                                              and 0 <= t < 1e9 else None for t in times or ()]
        """Per decision, its milliseconds or None (anything but a plain time counts as none)."""
        self.slowest = _slowest(self.times)
        self.move_ms: int | None = hello_time(header).get("move_ms") or None
        """The time limit of a decision, as hello gave it (None: a replay that does not say)."""
        self.timed: list[list[Any]] = []
        """[seat, ms, slow] of the bot-chosen actions since the last step."""
        self.slow: list[list[int]] = []
        """[decision, step] of each of the slowest decisions; [decision] while not yet placed."""
        rules = make_rules(header["rules"]["preset"], header["rules"]["options"])
        self.players = n = int(header["players"])
        self.names: list[str] = list(header.get("bots") or [f"seat{s}" for s in range(n)])
        self.luck = None if luck is None else [tuple(float(t) for t in terms) for terms in luck]
        if self.luck is not None and any(len(terms) != n for terms in self.luck):
            raise ValueError(f"the luck of {header.get('match')} is not one term a seat for every card")
        self.chances = _Chances()
        self.luck_mark = 0
        """How many of the cards the deck gave are in a step's ``lu`` already."""
        self.match = _Recorder(rules, n, header["seed"], watcher=self.chances)
        self.steps: list[dict[str, Any]] = []
        self.event_mark = 0
        self.pending: list[list[Any]] = []
        self.marks: dict[str, set[int]] = {"fb": set(), "fl": set()}
        self.forfeited: set[int] = set()
        self.last_table: dict[str, Any] = {}
        self.last_v: list[Any] = [None] * n
        self.last_n = -1
        self.last_cells: list[list[list[str]] | None] = [None] * n
        """Per seat, the cells of its view last written (what a change is written against)."""
        self.rounds: list[dict[str, Any]] = []
        self.faults: list[list[int]] = []
        """[seat, decision, step] of every fault placed in a step; [seat, decision] while not yet placed."""
        self.logged_from: dict[int, int] = {}
        """Per seat, the decision of its first log record: its stderr from there on is in the log lines."""

    def who(self, seat: int) -> str:
        """Seat ``seat``'s name in a text: its mark (see :data:`SEAT_MARK`)."""
        return chr(SEAT_MARK + int(seat))

    # ------------------------------------------------------------------ driving

    def run(self, records: list[dict[str, Any]]) -> dict[str, Any]:
        match = self.match
        self.snapshot("deal")
        match.hook = self.snapshot
        result: dict[str, Any] | None = None
        events = 0
        for record in records:
            if record.get("type") == "log" and isinstance(record.get("decision"), int):
                seat = int(record["seat"])
                self.logged_from[seat] = min(self.logged_from.get(seat, record["decision"]), record["decision"])
        for record in records:
            kind = record.get("type")
            if kind == "action":
                self.action_entry(record)
                self.time_entry(int(record["seat"]), len(match.history))
                phase, emitted, round_no = match.phase, len(match.events), match.round_no
                match.apply(record["seat"], record["action"])
                # An answer that leaves its simultaneous phase waiting for others makes no step of its own
                # (claims and passes show nothing until the window closes; the initial looks go together).
                answered = phase in _SIMULTANEOUS and match.phase == phase and (
                    phase == LOOK_INITIAL or len(match.events) == emitted)
                if not match.over and not answered:
                    self.snapshot("deal" if match.round_no != round_no else "play")
                else:  # no step of its own: its events follow its line in the next step's log
                    self.pending += self.event_entries(self.event_mark)
                    self.event_mark = len(match.events)
            elif kind == "fault":
                self.fault_entry(record)
            elif kind == "forfeit":
                self.forfeited.add(int(record["seat"]))
                self.pending.append(["forfeit", f"FORFEIT {self.who(record['seat'])} from decision "
                                     f"{record['decision']} on: the fallback policy plays its moves, and it "
                                     "ranks below every seat not forfeited"])
            elif kind == "log":
                self.log_entry(record)
            elif kind == "result":
                result = record
            elif kind in _EVENT_TYPES:  # a record type this viewer does not know is ignored
                events += 1
        if events and events != len(match.events):
            raise ValueError(f"replay of {self.header.get('match')}: the file has {events} events, its actions "
                             f"rebuild {len(match.events)}: the file does not match this engine")
        if result is None:  # format 1: no arena records
            assert match.result is not None, "the replay ends before the match does"
            result = {"totals": list(match.result.totals), "places": list(match.result.places),
                      "forfeited": [False] * self.players, "reason": match.result.reason}
        self.pending.append(["res", self.result_text(result)])
        self.flush_into(self.steps[-1])
        self.luck_into(self.steps[-1])
        self.write_short()
        shown = {k: result[k] for k in ("totals", "places", "forfeited", "reason")}
        if self.luck is not None:
            if len(self.luck) != self.chances.count:
                raise ValueError(f"the luck of {self.header.get('match')} has {len(self.luck)} cards' terms, its "
                                 f"actions deal {self.chances.count} cards")
            shown["luck"] = [_tenths(sum(terms[s] for terms in self.luck)) for s in range(self.players)]
        return {"format": FORMAT, "match": self.header.get("match"), "preset": self.header["rules"]["preset"],
                "deck": match.rules.deck.name, "players": self.players, "bots": self.names, "move_ms": self.move_ms,
                "values": match.rules.value_map(),
                "seed": self.header.get("seed"), "wire_id": self.header.get("wire_id"), "rounds": self.rounds,
                "result": shown,
                "faults": self.faults, "steps": self.steps,
                "slow": sorted(self.slow, key=lambda pair: (-(self.times[pair[0]] or 0), pair[0]))}

    def write_short(self) -> None:
        """Write each text a reader can write out from the step as its number (``log`` in the module's
        docstring), each only where it is exactly that text, and repeated seat texts as references."""
        table: dict[str, Any] = {}
        for index, step in enumerate(self.steps):
            table.update((key, step[key]) for key in ("r", "dl", "st", "d", "dk", "ro") if key in step)
            slow = iter([decision for decision, at in self.slow if at == index])
            flagged = iter([timed for timed in step.get("t", ()) if timed[2]])
            for entry in step["log"]:
                if entry[0] == "rd" and len(entry) == 2:
                    if isinstance(table["d"], str) and entry[1] == self.round_start_text(table["r"], table["dl"], table["st"], table["d"], table["dk"]):
                        entry[1] = ROUND_START
                    elif table["ro"] and entry[1] == self.round_over_text(self.rounds[table["ro"] - 1]):
                        entry[1] = ROUND_OVER
                elif entry[0] == "slow":
                    decision, (seat, ms, _) = next(slow), next(flagged)
                    if entry[1] == self.slow_text(seat, ms, decision) and (ms * 20) % 2 != 1:  # no half to round
                        entry[1] = decision
                if len(entry) > 2:
                    entry[2] = _refer(entry[2])

    def round_start_text(self, number: int, dealer: int, starter: int, discard: Any, deck: int) -> str:
        return f"Round {number}: {self.who(dealer)} deals, {self.who(starter)} starts; discard {_card(discard)}, deck {deck}"

    def round_over_text(self, r: dict[str, Any]) -> str:
        scores = ", ".join(f"{self.who(s)} {r['scores'][s]:+d}" for s in range(self.players))
        extra = (f"; {self.who(r['moon'])} shot the moon" if r.get("moon") is not None else "") + (
            f"; reset to 50: {', '.join(self.who(s) for s in r['resets'])}" if r.get("resets") else "")
        return f"Round {r['round']} over ({r['ended']}): {scores}{extra}"

    def near(self, ms: float) -> bool:
        """Slow against the time limit: at least :data:`NEAR` of it."""
        return self.move_ms is not None and ms >= NEAR * self.move_ms

    def slow_text(self, seat: int, ms: float, decision: int) -> str:
        """A line for one of the match's slowest decisions: ``SLOW`` only if it came near the limit."""
        if self.near(ms):
            return (f"SLOW {self.who(seat)} took {ms:.1f} ms for decision {decision}, over half its {self.move_ms} ms, "
                    f"one of the match's {SLOWEST} slowest")
        within = f", well within its {self.move_ms} ms" if self.move_ms is not None else ""
        return f"{self.who(seat)} took {ms:.1f} ms for decision {decision}, one of the match's {SLOWEST} slowest{within}"

    # ------------------------------------------------------------------ steps

    def snapshot(self, kind: str) -> None:
        match = self.match
        simultaneous = match.phase in _SIMULTANEOUS
        true = [[None if c is None else match.codes[c] for c in hand] for hand in match.hands]
        table: dict[str, Any] = {
            "r": match.round_no, "ph": match.phase,
            "tm": None if simultaneous or match.over or kind in ("end", "reveal") else match.to_move,
            "w": sorted(match.waiting) if simultaneous and kind in ("play", "deal") else [],
            "st": match.starter, "dl": match.dealer, "cabo": match.cabo,
            "h": _pack(true),
            "d": match.codes[match.discard[-1]] if match.discard else None, "dn": len(match.discard),
            "dk": len(match.deck),
            "held": None if match.held is None else match.codes[match.held],
            "hs": None if match.held is None else match.to_move, "hf": match.held_from,
            "lk": list(match.looked) if match.phase == REY and match.looked is not None else None,
            "tot": list(match.totals), "ro": len(match.rounds), "ff": sorted(self.forfeited),
        }
        step: dict[str, Any] = {"k": kind, "n": len(match.history)}
        if step["n"] == self.last_n + 1:
            del step["n"]
        self.last_n = len(match.history)
        step.update((key, value) for key, value in table.items() if self.last_table.get(key, _ABSENT) != value)
        self.last_table = table
        views: list[Any] = []
        for seat in range(self.players):
            view = self.seat_view(seat, kind)
            views.append(0 if view == self.last_v[seat] else self.written(seat, view, true, table["held"]))
            self.last_v[seat] = view
        step["v"] = views
        start = self.event_mark
        self.event_mark = len(match.events)
        for kind_name, seats in self.marks.items():
            if seats:
                step[kind_name] = sorted(seats)
        self.marks = {"fb": set(), "fl": set()}
        step["log"] = self.pending + self.event_entries(start)
        self.pending = []
        self.place_faults(len(self.steps))
        if self.timed:
            step["t"], self.timed = self.timed, []
        touched = self.touched(start)
        if touched:
            step["hl"] = touched
        self.luck_into(step)
        self.steps.append(step)

    def luck_into(self, step: dict[str, Any]) -> None:
        """The step's ``lu``: the luck of the cards the deck gave since the last step, per seat."""
        count = self.chances.count
        if self.luck is None or count == self.luck_mark:
            return
        if count > len(self.luck):
            raise ValueError(f"the luck of {self.header.get('match')} has {len(self.luck)} cards' terms, its "
                             f"actions deal more")
        given = self.luck[self.luck_mark:count]
        self.luck_mark = count
        before = step.get("lu") or [0] * self.players  # the last step takes the cards of the match's last action
        step["lu"] = [before[s] + _tenths(sum(terms[s] for terms in given)) for s in range(self.players)]

    def seat_view(self, seat: int, kind: str) -> tuple[list[list[Any]], Any]:
        """What ``seat`` was shown now: every hand (a card code, ``"?"`` or None a slot) and its held card."""
        state = observe(self.match, seat)
        hands: list[list[Any]] = state["hands"]
        if kind == "reveal":  # the round_over event the seat was sent shows every remaining card
            shown = events_for(self.match, seat, len(self.match.events) - 1)[0]
            assert shown["type"] == "round_over"
            hands = [_fill(hand, list(cards)) for hand, cards in zip(hands, shown["hands"])]
        return hands, state["held"]

    def written(self, seat: int, view: tuple[list[list[Any]], Any], true: list[list[str | None]],
                held: str | None) -> list[Any]:
        """A seat's view as the frames write it (see ``v`` in the module's docstring): its cells against the
        true hands, as the changes since its last cells when those are shorter."""
        hands, own = view
        cells = [[_cell(card, truth) for card, truth in zip(hand, list(row) + [None] * len(hand))]
                 for hand, row in zip(hands, true)]
        whole = "|".join("".join(hand) for hand in cells)
        before, self.last_cells[seat] = self.last_cells[seat], cells
        change = _change(before, cells)
        return ["~" + change if change is not None and len(change) < len(whole) else whole,
                1 if own is not None and own == held else own]

    def flush_into(self, step: dict[str, Any]) -> None:
        step["log"].extend(self.pending + self.event_entries(self.event_mark))
        self.event_mark = len(self.match.events)
        self.pending = []
        self.place_faults(len(self.steps) - 1)  # ``step`` is the last one
        if self.timed:
            step.setdefault("t", []).extend(self.timed)
            self.timed = []

    def place_faults(self, index: int) -> None:
        """The faults whose lines went into step ``index`` are shown there, and so are the slow decisions."""
        for fault in self.faults:
            if len(fault) == 2:
                fault.append(index)
        for slow in self.slow:
            if len(slow) == 1:
                slow.append(index)

    # ------------------------------------------------------------------ log entries

    def event_entries(self, start: int) -> list[list[Any]]:
        match = self.match
        seat_views = [events_for(match, seat, start) for seat in range(self.players)]
        out: list[list[Any]] = []
        for offset, event in enumerate(match.events[start:]):
            full = _full(event)
            if event.type == "round_over":
                self.rounds.append({key: full[key] for key in
                                    ("round", "scores", "totals", "sums", "moon", "resets", "ended")}
                                   | {"caller": full["seat"]})
            cls = _CLASS.get(event.type, "ev")
            text = self.describe(full)
            seen = [self.describe(view[offset]) for view in seat_views]
            out.append([cls, text] if all(s == text for s in seen) else [cls, text, [1 if s == text else s for s in seen]])
        return out

    def action_entry(self, record: dict[str, Any]) -> None:
        seat, action = int(record["seat"]), record["action"]
        if record.get("by") == FALLBACK:
            self.marks["fb"].add(seat)
            mine = f"the fallback policy chose {_action_text(action)} for you"
            others = f"{self.who(seat)} moved by the fallback policy"
            self.pending.append(["fb", f"{self.who(seat)}: the fallback policy chose {_action_text(action)}",
                                 [mine if s == seat else others for s in range(self.players)]])
        elif action.get("do") in ("claim", "pass"):  # shown to others only when the window resolves
            self.pending.append(["act", f"{self.who(seat)} answers: {_action_text(action)}",
                                 [f"you answer: {_action_text(action)}" if s == seat else None
                                  for s in range(self.players)]])

    def time_entry(self, seat: int, decision: int) -> None:
        """Note the stored time of ``decision`` (about to be applied) for the step that will show it; one of
        the slowest gets a log line too, so that the viewer's jump finds it."""
        ms = self.times[decision] if decision < len(self.times) else None
        if ms is None:
            return
        slow = decision in self.slowest
        self.timed.append([seat, ms, int(slow)])
        if slow:
            self.slow.append([decision])
            # Like the status line's times, shown in the omniscient view and in that seat's own view only.
            self.pending.append(["slow", self.slow_text(seat, ms, decision),
                                 [1 if s == seat else None for s in range(self.players)]])

    def fault_entry(self, record: dict[str, Any]) -> None:
        seat = int(record["seat"])
        self.marks["fl"].add(seat)
        self.faults.append([seat, int(record["decision"])])
        where = f"FAULT {self.who(seat)}, round {record['round']}, decision {record['decision']}: {_plain(record['kind'])}"
        logged = self.logged_from.get(seat, record["decision"] + 1) <= record["decision"]
        tail = [] if logged else [line for line in _plain(record.get("stderr", "")).splitlines() if line.strip()][-5:]
        full = "\n".join([f"{where}: {_plain(record.get('detail', ''))}"] + [f"  stderr| {line}" for line in tail])
        # Another bot's fault shows only its kind: its detail and stderr may name that bot's cards.
        self.pending.append(["fault", full, [full if s == seat else where for s in range(self.players)]])

    def log_entry(self, record: dict[str, Any]) -> None:
        seat = int(record["seat"])
        text = _plain(record.get("text", "")).rstrip("\n")
        if record.get("cut"):
            text = f"[{record['cut']} bytes cut]\n" + text
        if not text:
            return
        self.pending.append(["botlog", f"{self.who(seat)} log| " + text.replace("\n", "\n  "),
                             ["log| " + text.replace("\n", "\n  ") if s == seat else None
                              for s in range(self.players)]])

    def result_text(self, result: dict[str, Any]) -> str:
        places, totals, forfeited = result["places"], result["totals"], result["forfeited"]
        parts = [f"{places[s]}. {self.who(s)} {totals[s]}" + (" (forfeited)" if forfeited[s] else "")
                 for s in sorted(range(len(places)), key=lambda s: (places[s], s))]
        return f"Result ({_plain(result['reason'])}): " + ", ".join(parts)

    def touched(self, start: int) -> list[list[int]]:
        out: list[list[int]] = []
        for event in self.match.events[start:]:
            p = event.public
            kind, seat = p["type"], p.get("seat")
            if not isinstance(seat, int):
                continue
            if kind in ("swap", "claim", "penalty"):
                out.append([seat, p["slot"]])
            elif kind == "multi":
                out.extend([seat, s] for s in p["slots"])
            elif kind in ("peek", "spy", "look", "place"):
                out.append([p["target"], p["slot"]])
            elif kind == "blind_swap":
                out.extend([[seat, p["slot"]], [p["target"], p["their"]]])
            elif kind == "look_initial":
                out.extend([seat, s] for s in p["slots"])
        return out

    def describe(self, e: dict[str, Any]) -> str:
        """One line about an event, with only the fields present (a seat's copy lacks what it did not see)."""
        kind = e["type"]
        seat = e.get("seat")
        who = self.who(seat) if isinstance(seat, int) else ""
        card = _card(e.get("card"))
        if kind == "round_start":
            return self.round_start_text(e["round"], e["dealer"], e["starter"], e["discard"], e["deck"])
        if kind == "look_initial":
            cards = f": {', '.join(map(_card, e['cards']))}" if "cards" in e else ""
            return f"{who} looks at slots {e['slots'][0]} and {e['slots'][1]}{cards}"
        if kind == "draw":
            return f"{who} draws {card or 'a card'}"
        if kind == "take":
            return f"{who} takes {card} from the discard pile"
        if kind == "swap":
            return f"{who} puts {card or 'the held card'} into slot {e['slot']}, discarding {_card(e['discarded'])}"
        if kind == "multi":
            revealed = ", ".join(map(_card, e["revealed"]))
            if e["ok"]:
                return (f"{who} multi-swaps slots {_slots(e['slots'])} ({revealed}): a match; "
                        f"{card or 'the held card'} goes into slot {e['into']}")
            return f"{who} multi-swaps slots {_slots(e['slots'])} ({revealed}): no match, they go back; discards {card}"
        if kind == "discard":
            return f"{who} discards {card}"
        if kind == "peek":
            return f"{who} discards {_card(e['discarded'])} to peek at own slot {e['slot']}" + (f": {card}" if card else "")
        if kind == "spy":
            return (f"{who} discards {_card(e['discarded'])} to spy on {self.who(e['target'])} slot {e['slot']}"
                    + (f": {card}" if card else ""))
        if kind == "blind_swap":
            return (f"{who} discards {_card(e['discarded'])} to swap own slot {e['slot']} with "
                    f"{self.who(e['target'])} slot {e['their']}, unseen")
        if kind == "look":
            return (f"{who} shows {_card(e['rey'])} and looks at {self.who(e['target'])} slot {e['slot']}"
                    + (f": {card}" if card else ""))
        if kind == "place":
            return (f"{who} places {card} into {self.who(e['target'])} slot {e['slot']}, "
                    f"discarding {_card(e['discarded'])}")
        if kind == "cabo":
            return f"{who} calls CABO"
        if kind == "claim":
            return f"{who} claims slot {e['slot']} with {card}: " + ("right, discarded" if e["ok"] else "wrong, it goes back")
        if kind == "penalty":
            return f"{who} gets a penalty card in slot {e['slot']}" + (f" ({card})" if card else "")
        if kind == "reshuffle":
            return f"the discard pile is reshuffled into the deck ({e['deck']} cards)"
        if kind == "skip":
            return f"{who} cannot move and is skipped"
        if kind == "round_over":
            return self.round_over_text(e)
        if kind == "match_over":
            return f"Match over ({e['reason']}): totals {', '.join(map(str, e['totals']))}"
        rest = " ".join(f"{k}={v}" for k, v in e.items() if k not in ("type", "seat"))
        return f"{who} {kind} {rest}".strip()


_ABSENT = object()


def _tenths(points: float) -> int:
    """Points as the frames keep luck: whole tenths (what the viewer shows, 4.1 points)."""
    return int(round(points * 10))
_EVENT_TYPES = frozenset({"round_start", "look_initial", "draw", "take", "swap", "multi", "discard", "peek", "spy",
                          "blind_swap", "look", "place", "cabo", "claim", "penalty", "reshuffle", "skip", "round_over",
                          "match_over"})
"""The engine's event types (protocol.md, section 7): the file must hold as many as its actions rebuild."""

_CLASS = {"round_start": "rd", "round_over": "rd", "match_over": "rd", "cabo": "cabo", "claim": "claim",
          "penalty": "claim", "peek": "power", "spy": "power", "blind_swap": "power", "look": "power",
          "place": "power"}


def _full(event: Event) -> dict[str, Any]:
    out = dict(event.public)
    for name, value, _ in event.private:
        out[name] = value
    return out


def _fill(hand: list[Any], cards: list[str]) -> list[Any]:
    """A seat's hand of a scored round: its remaining cards, in slot order, into its occupied slots."""
    out, queue = [], iter(cards)
    for slot in hand:
        out.append(None if slot is None else next(queue))
    return out


def _plain(text: Any) -> str:
    """Text from outside the engine (what a bot wrote, a record's words) with no seat mark in it."""
    return _MARKS.sub("\ufffd", str(text))


def _cell(card: Any, truth: str | None) -> str:
    """One slot of a seat's view written against the true card there (see ``v`` in the module's docstring)."""
    if card is None:
        return "-"
    if card == "?":
        return "?"
    return "+" if card == truth else str(card)


def _change(before: list[list[str]] | None, after: list[list[str]]) -> str | None:
    """The cells of ``after`` that differ from ``before`` as (hand, slot, cell) triples, or None when they cannot
    be written so (no cells before, another number of hands, a hand that shrank, a number past 9)."""
    if before is None or len(before) != len(after) or len(after) > 10:
        return None
    out: list[str] = []
    for index, (old, new) in enumerate(zip(before, after)):
        if len(new) < len(old) or len(new) > 10:
            return None
        out.extend(f"{index}{slot}{cell}" for slot, cell in enumerate(new) if slot >= len(old) or old[slot] != cell)
    return "".join(out)


def _refer(seen: list[Any]) -> list[Any]:
    """Per-seat texts with each repeat of an earlier seat's text written as that seat's reference (-1-s)."""
    first: dict[str, int] = {}
    out: list[Any] = []
    for seat, text in enumerate(seen):
        if isinstance(text, str) and text in first:
            out.append(-1 - first[text])
            continue
        if isinstance(text, str):
            first[text] = seat
        out.append(text)
    return out


def _pack(hands: list[list[Any]]) -> str:
    """Hands as one string: two characters a slot (a card code, ``??`` face down, ``--`` empty), seats split by ``|``."""
    return "|".join("".join("--" if card is None else "??" if card == "?" else card for card in hand) for hand in hands)


def _card(code: Any) -> str:
    """A card in a log line: ``[7H]`` (the viewer draws it as a small card)."""
    return f"[{code}]" if isinstance(code, str) else ""


def _slots(slots: list[int]) -> str:
    return ", ".join(map(str, slots))


def _action_text(action: dict[str, Any]) -> str:
    rest = " ".join(f"{k} {v}" for k, v in action.items() if k != "do")
    return _plain(f"{action.get('do')}" + (f" ({rest})" if rest else ""))


