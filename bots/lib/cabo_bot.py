"""cabo_bot: a stdlib-only helper for Cabo Arena bots written in Python (protocol v1).

A minimal bot, ``bots/my-bot/bot.py`` (run as ``python3 bot.py``)::

    import os, sys
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
    import cabo_bot

    class Policy:
        name = "my-bot"                       # sent in "ready"
        def __init__(self, hello):            # a fresh policy for every match
            self.values = hello["values"]     # card code -> score value
        def act(self, state, legal, events):  # return an index into legal
            return 0

    cabo_bot.run(Policy)

``run`` does the protocol: it answers ``hello`` with ``ready``, calls
``policy.act(state, legal, events)`` for every ``act`` and replies with the index,
calls ``policy.update(events)`` and ``policy.over(result)`` when the policy has them,
accepts a new ``hello`` after ``over`` (new policy, fresh memory), ignores unknown
messages and returns at end of input. While it runs, ``print`` goes to stderr, so a
stray debug print cannot corrupt the protocol. If ``act`` raises or returns something
that is not a legal index (or the policy could not be made), the traceback goes to
stderr, then a line ``cabo-bot: fallback: <the error>``, and index 0 is sent (always
legal): the match goes on, and the arena counts the marker line as a ``helper_fallback``
fault (``arena bot check`` reports it), so the bug does not go unseen.

Also here: :func:`rank_of`, :func:`is_moon`, :func:`unseen_cards` (the cards a seat
has not seen, from which its unknown cards come) and :class:`Knowledge`, which
follows the public events to remember who knows which card in every slot.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False  # typing and traceback cost ~9 ms of start-up, paid again in every match
if TYPE_CHECKING:
    from typing import Any, Callable, Iterable

__all__ = ["run", "log", "rank_of", "is_moon", "unseen_cards", "Knowledge", "choose_index"]


def _trace() -> str:
    """The current exception's traceback (imported on first use: bots rarely need it)."""
    import traceback

    return traceback.format_exc()


FALLBACK_MARKER = "cabo-bot: fallback: "
"""Start of the stderr line written for every ``act`` answered with index 0 because the bot's
code failed; the arena counts these lines (docs/bots.md, "When your code raises")."""


def _fall_back(what: str) -> None:
    """Log the current exception's traceback, then the marker line naming ``what`` failed and the error."""
    import traceback

    error = (traceback.format_exception_only(*sys.exc_info()[:2])[-1].strip() or "an error").replace("\n", " ")
    log(traceback.format_exc().rstrip("\n"))
    log(f"{FALLBACK_MARKER}{what}: {error}; sent legal index 0")

PROTOCOL = 1


def log(*parts: Any) -> None:
    """Write a line to stderr (the bot's log; stdout is reserved for the protocol)."""
    print(*parts, file=sys.__stderr__, flush=True)


def rank_of(code: str) -> str:
    """Rank character of a card code (``"TH"`` -> ``"T"``, ``"RB"`` -> ``"R"``)."""
    return code[0]


def is_moon(codes: Iterable[str]) -> bool:
    """Standard's Shooting-the-Moon hand: exactly Q, Q, KS, KC and nothing else."""
    return sorted("Q" if c[0] == "Q" else c for c in codes) == ["KC", "KS", "Q", "Q"]


def unseen_cards(state: dict[str, Any], codes: Iterable[str]) -> list[str]:
    """Deck codes this seat cannot see anywhere: not in the discard pile, not a card it
    knows in a hand, not the card it holds. Every face-down card it does not know and
    every card of the draw pile is one of these."""
    seen: dict[str, int] = {}
    for code in state.get("discard") or ():
        seen[code] = seen.get(code, 0) + 1
    for hand in state.get("hands") or ():
        for code in hand:
            if code is not None and code != "?":
                seen[code] = seen.get(code, 0) + 1
    held = state.get("held")
    if held:
        seen[held] = seen.get(held, 0) + 1
    out = []
    for code in codes:
        if seen.get(code, 0) > 0:
            seen[code] -= 1
        else:
            out.append(code)
    return out


def choose_index(choice: Any, legal: list[Any]) -> int:
    """Turn a policy's answer (an index or one of the legal objects) into a valid index."""
    if isinstance(choice, bool):
        raise ValueError(f"policy returned a bool: {choice!r}")
    if isinstance(choice, int):
        if 0 <= choice < len(legal):
            return choice
        raise ValueError(f"index {choice} out of range 0..{len(legal) - 1}")
    if isinstance(choice, dict) and choice in legal:
        return legal.index(choice)
    raise ValueError(f"policy returned {choice!r}, not an index into legal")


class Knowledge:
    """Public bookkeeping of one round, rebuilt from events.

    For every seat and slot: ``knowers[s][i]`` is the set of seats that know the card
    there (``None`` for an empty slot) and ``dumped[s][i]`` is true when another seat
    that knew the card put it there with a blind swap (so it is probably high).
    Feed it every event list (``act`` and ``update``) with :meth:`update` and call
    :meth:`sync` with each ``state`` to repair it if a message was ever missed.
    """

    def __init__(self, hello: dict[str, Any]) -> None:
        self.seat: int = hello.get("seat", 0)
        self.players: int = hello.get("players", 2)
        self.values: dict[str, int] = dict(hello.get("values") or {})
        self.everyone = frozenset(range(self.players))
        self.knowers: list[list[frozenset[int] | None]] = []
        self.dumped: list[list[bool]] = []
        self.round = 0

    # -- events
    def update(self, events: Iterable[dict[str, Any]]) -> None:
        for event in events:
            try:
                self._event(event)
            except (IndexError, KeyError, TypeError, ValueError):
                pass  # repaired by the next sync()

    def _set(self, seat: int, slot: int, knowers: frozenset[int] | None, dumped: bool = False) -> None:
        self.knowers[seat][slot] = knowers
        self.dumped[seat][slot] = dumped

    def _add(self, seat: int, slot: int, who: int) -> None:
        current = self.knowers[seat][slot]
        if current is not None:
            self.knowers[seat][slot] = current | {who}

    def _event(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        seat: Any = e.get("seat")
        if kind == "round_start":
            self.round = e.get("round", self.round + 1)
            slots = e.get("slots") or [4] * self.players
            self.knowers = [[frozenset() for _ in range(n)] for n in slots]
            self.dumped = [[False] * n for n in slots]
        elif kind == "look_initial":
            for slot in e["slots"]:
                self._add(seat, slot, seat)
        elif kind == "swap":
            self._set(seat, e["slot"], frozenset({seat}) if e.get("from") == "deck" else self.everyone)
        elif kind == "multi":
            if e.get("ok"):
                for slot in e["slots"]:
                    self._set(seat, slot, None)
                self._set(seat, e["into"], frozenset({seat}) if e.get("from") == "deck" else self.everyone)
            else:
                for slot in e["slots"]:
                    self._set(seat, slot, self.everyone)
        elif kind in ("peek", "spy", "look"):
            self._add(e.get("target", seat), e["slot"], seat)
        elif kind == "blind_swap":
            mine, target, theirs = e["slot"], e["target"], e["their"]
            a, b = self.knowers[seat][mine], self.knowers[target][theirs]
            self._set(seat, mine, b)
            self._set(target, theirs, a, dumped=a is not None and seat in a)
        elif kind == "place":
            self._set(e["target"], e["slot"], self.everyone)
        elif kind == "claim":
            self._set(seat, e["slot"], None if e.get("ok") else self.everyone)
        elif kind == "penalty":
            slot = e["slot"]
            while len(self.knowers[seat]) <= slot:
                self.knowers[seat].append(None)
                self.dumped[seat].append(False)
            self._set(seat, slot, frozenset())

    # -- queries
    def sync(self, state: dict[str, Any]) -> None:
        """Make the slot layout match ``state`` (rebuild what a missed event broke)."""
        hands = state.get("hands") or []
        if len(self.knowers) != len(hands):
            self.knowers = [[] for _ in hands]
            self.dumped = [[] for _ in hands]
        me = state.get("seat", self.seat)
        for s, hand in enumerate(hands):
            row, dumped = self.knowers[s], self.dumped[s]
            if len(row) != len(hand):
                del row[len(hand):], dumped[len(hand):]
                while len(row) < len(hand):
                    row.append(frozenset())
                    dumped.append(False)
            for i, code in enumerate(hand):
                if code is None:
                    row[i] = None
                    dumped[i] = False
                    continue
                known = row[i] or frozenset()
                if code != "?":
                    known = known | {me}
                row[i] = known

    def occupied(self, seat: int) -> list[int]:
        """Occupied slots of ``seat`` as the events left them."""
        try:
            return [i for i, k in enumerate(self.knowers[seat]) if k is not None]
        except IndexError:
            return []

    def owner_knows(self, seat: int, slot: int) -> bool:
        try:
            k = self.knowers[seat][slot]
        except IndexError:
            return False
        return k is not None and seat in k

    def is_dumped(self, seat: int, slot: int) -> bool:
        try:
            return self.dumped[seat][slot]
        except IndexError:
            return False


def _write(out: Any, obj: dict[str, Any]) -> None:
    out.write(json.dumps(obj, separators=(",", ":")) + "\n")
    out.flush()


def _default_name() -> str:
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    return os.path.basename(os.path.dirname(os.path.abspath(path))) if path else "python-bot"


def run(policy_factory: Callable[[dict[str, Any]], Any], name: str | None = None,
        stdin: Any = None, stdout: Any = None) -> None:
    """Play protocol v1 on stdin/stdout until end of input.

    ``policy_factory(hello)`` (usually a class) makes one policy per match. The name in
    ``ready`` is ``name``, else the policy's ``name`` attribute, else the bot directory.
    """
    inp = stdin if stdin is not None else sys.stdin.buffer
    out = stdout if stdout is not None else sys.stdout
    saved_stdout = sys.stdout
    if stdout is None:
        sys.stdout = sys.stderr  # stray prints must not reach the protocol stream
    policy: Any = None
    try:
        for raw in inp:
            try:
                msg = json.loads(raw)
            except ValueError:
                log("cabo_bot: ignoring a line that is not JSON")
                continue
            if not isinstance(msg, dict):
                continue
            kind = msg.get("type")
            if kind == "hello":
                try:
                    policy = policy_factory(msg)
                except Exception:
                    log("cabo_bot: policy factory failed\n" + _trace())
                    policy = None
                bot_name = name or getattr(policy, "name", None) or getattr(policy_factory, "name", None)
                _write(out, {"type": "ready", "name": str(bot_name or _default_name())})
            elif kind == "act":
                legal = msg.get("legal") or []
                index = 0
                if policy is None:
                    log(f"{FALLBACK_MARKER}no policy (it could not be made at hello, see above); sent legal index 0")
                else:
                    try:
                        index = choose_index(policy.act(msg.get("state") or {}, legal, msg.get("events") or []), legal)
                    except Exception:
                        _fall_back("act")
                        index = 0
                _write(out, {"type": "action", "id": msg.get("id"), "index": index})
            elif kind == "update":
                if policy is not None and hasattr(policy, "update"):
                    try:
                        policy.update(msg.get("events") or [])
                    except Exception:
                        log("cabo_bot: update failed\n" + _trace())
            elif kind == "over":
                if policy is not None and hasattr(policy, "over"):
                    try:
                        policy.over(msg.get("result") or {})
                    except Exception:
                        log("cabo_bot: over failed\n" + _trace())
                policy = None
            # anything else: ignored, as the protocol requires
    except (BrokenPipeError, KeyboardInterrupt):
        pass
    finally:
        sys.stdout = saved_stdout
