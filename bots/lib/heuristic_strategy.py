"""A heuristic Cabo player for both presets (``standard`` and ``espanola``).

Use it in-process::

    policy = HeuristicPolicy(hello)          # hello: the protocol's hello object
    index = policy.act(state, legal, events) # index into legal
    policy.update(events)                    # events of an "update" message

How it plays, in short:

* Every card it does not know is estimated from the cards it has not seen (hello's
  ``values`` minus the discard pile, the cards it knows in hands and the card it
  holds). Opponents' cards that their owner knows are estimated lower (players keep
  low cards; calibrated per opponent against the cards seen later), and a
  card an opponent dumped on someone with a blind swap is estimated higher.
* A held card is scored against every legal use: swap into a slot (gain = the slot's
  estimate minus the card, plus a bonus for turning an unknown slot into a known
  one), multi-swap of known equal cards, powers (peek own unknowns, spy opponents'
  unknowns, blind-swap a known high card for an opponent's known low or unknown card,
  Rey look + place), or a plain discard. Drawing is chosen over taking the discard by
  the expected score of the drawn card over the unseen cards.
* Cabo is called when the estimated chance of having the lowest hand is high
  (normal approximation over the unknown cards); always at once under
  ``cabo_bonus: literal``.
* Pairs (espanola): claims only cards it knows to match; never guesses.
* Shooting the Moon (standard): never breaks its own Q-Q-KS-KC hand (and calls
  Cabo with it), breaks an opponent's known one when it can, and never completes
  one for an opponent with a blind swap.

Decisions take well under a millisecond.

``known_strength(p)`` is the same player diluted: with probability ``p`` it plays a uniformly
random legal action instead, drawn from a generator seeded by the match id and seat alone: a
replayed match is the same, and two strengths in the same seat of the same match draw the same
numbers, so where p = 0.1 plays at random p = 0.2 does too (as for any bot seeded by the match
id, ``arena compare`` then sees them differ only where their strengths make them). A family of them (the ``known-p*`` bots) has a true order known by construction, for
testing a rating scheme, a stop rule or ``arena compare``.
"""

from __future__ import annotations

import math
import os
import random
import sys
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # cabo_bot beside it, however it was loaded

from cabo_bot import Knowledge, is_moon, unseen_cards  # noqa: E402

NEG = -1e9

# Tunable parameters (values in card points).
DEFAULTS: dict[str, float] = {
    "know_own": 0.8,       # worth of knowing one more of my own cards
    "peek": 1.6,           # worth of peeking at one of my unknown cards
    "spy": 0.6,            # worth of seeing an opponent's unknown card
    "take_margin": 0.3,    # take the discard only if it beats drawing by this much
    "keep_shift": 0.4,     # prior: owner-known cards lie this fraction towards the low half
    "keep_prior_n": 8.0,   # weight of that prior (in decisions) against observed cards
    "dump_shift": 0.5,     # dumped cards lie this fraction towards the high half
    "opp_improve": 0.8,    # how much an opponent lowers its hand in its last turn
    "call_p": 0.85,        # standard: call Cabo at this chance of being lowest
    "call_p_esp": 0.5,     # espanola (modifier): call at this chance of being strictly lowest
    "esp_low": 2.0,        # espanola: always call with a known hand this low
    "relax_at": 0.5,       # the call thresholds fall to 20% when this fraction of the turn limit is played
    "opp_w": 0.25,         # worth of raising an opponent's hand by one point
    "leader_w": 0.35,      # extra worth when that opponent is the leader
    "moon_eff": -30.0,     # my hand's effective total when it is a known moon
    "moon_break": 40.0,    # worth of breaking an opponent's known moon
}

POWERS = {
    "standard": {"7": "peek", "8": "peek", "9": "spy", "T": "spy", "J": "blind_swap", "Q": "blind_swap"},
    "espanola": {"S": "spy", "C": "blind_swap", "R": "look"},
}


# Nodes and weights (summing to 1) of 5-point Gauss-Hermite quadrature for a standard normal.
_GAUSS_HERMITE = ((0.0, 0.5333333333333333), (1.3556261799742659, 0.2220759220056126),
                  (-1.3556261799742659, 0.2220759220056126), (2.8569700138728056, 0.0112574113277207),
                  (-2.8569700138728056, 0.0112574113277207))


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


class _Ctx:
    """Everything one decision needs, computed once per act."""

    __slots__ = ("memo", "base", "unseen", "ranks", "pool", "mean", "var", "est", "codes", "unknown", "totals",
                 "vars", "final", "leader", "top", "weights")
    memo: dict[Any, Any]            # per-decision cache
    base: float                     # my hand's effective total now
    unseen: list[str]               # codes I have not seen
    ranks: dict[str, int]           # rank -> count among the unseen
    pool: list[int]                 # sorted values of the unseen
    mean: float                     # mean of the unseen values
    var: float                      # their variance
    est: list[list[float | None]]   # per seat and slot: value or estimate (None: empty)
    codes: list[list[str | None]]   # per seat and slot: the code if I know it
    unknown: list[int]              # per seat: cards I do not know
    totals: list[float]             # per seat: estimated hand total
    vars: list[float]               # per seat: variance of that total
    final: bool                     # Cabo was called: no more turns after this one
    leader: int | None              # the opponent most worth hurting
    top: str | None                 # top of the discard pile
    weights: dict[int, float]       # opponent -> worth of raising its hand by one point


class HeuristicPolicy:
    name = "heuristic"

    def __init__(self, hello: dict[str, Any], params: dict[str, float] | None = None) -> None:
        self.p = dict(DEFAULTS)
        if params:
            self.p.update(params)
        self.me: int = hello.get("seat", 0)
        self.n: int = hello.get("players", 2)
        self.values: dict[str, int] = dict(hello.get("values") or {})
        self.codes = list(self.values)
        rules = hello.get("rules") or {}
        self.preset: str = rules.get("preset", "standard")
        self.options: dict[str, Any] = dict(rules.get("options") or {})
        self.standard = self.preset == "standard"
        self.powers = POWERS.get(self.preset, {})
        self.literal = not self.standard and self.options.get("cabo_bonus") == "literal"
        self.multi_from_discard = self.standard and self.options.get("multi_swap_from_discard", True)
        self.pairs = not self.standard and self.options.get("pairs", True)
        all_values = list(self.values.values()) or [0]
        self.deck_mean = sum(all_values) / len(all_values)
        self.know = Knowledge(hello)
        # Calibration of opponents' owner-known cards: while such a card is unknown to
        # me, each decision adds (1, unseen mean) to pending[(seat, slot)]; when the
        # card shows (swapped out, claimed, spied, revealed at the round's end) the
        # difference between its value and those means goes into dev_sum[seat].
        self.pending: dict[tuple[int, int], list[float]] = {}
        self.dev_sum = [0.0] * self.n
        self.dev_n = [0.0] * self.n

    # ------------------------------------------------------------------ protocol
    def update(self, events: list[dict[str, Any]]) -> None:
        for event in events:
            try:
                self._calibrate(event)
            except (IndexError, KeyError, TypeError, ValueError):
                pass
            self.know.update((event,))

    def _settle(self, seat: Any, slot: Any, code: Any) -> None:
        record = self.pending.pop((seat, slot), None)
        if record is not None and code in self.values and 0 <= seat < self.n:
            self.dev_sum[seat] += record[0] * self.values[code] - record[1]
            self.dev_n[seat] += record[0]

    def _calibrate(self, e: dict[str, Any]) -> None:
        kind = e.get("type")
        if kind == "round_start":
            self.pending.clear()
        elif kind == "swap":
            self._settle(e["seat"], e["slot"], e.get("discarded"))
        elif kind == "multi":
            for slot, code in zip(e["slots"], e.get("revealed") or ()):
                self._settle(e["seat"], slot, code)
        elif kind == "place":
            self._settle(e["target"], e["slot"], e.get("discarded"))
        elif kind == "claim":
            self._settle(e["seat"], e["slot"], e.get("card"))
        elif kind in ("spy", "peek", "look"):
            if e.get("seat") == self.me and "card" in e:
                self._settle(e.get("target", self.me), e["slot"], e["card"])
        elif kind == "blind_swap":
            self.pending.pop((e["seat"], e["slot"]), None)
            self.pending.pop((e["target"], e["their"]), None)
        elif kind == "round_over":
            for seat, codes in enumerate(e.get("hands") or ()):
                slots = self.know.occupied(seat)
                if len(slots) == len(codes):
                    for slot, code in zip(slots, codes):
                        self._settle(seat, slot, code)
            self.pending.clear()

    def over(self, result: dict[str, Any]) -> None:
        pass

    def act(self, state: dict[str, Any], legal: list[dict[str, Any]], events: list[dict[str, Any]]) -> int:
        self.update(events)
        self.know.sync(state)
        if len(legal) <= 1:
            return 0
        phase = state.get("phase")
        kinds = {a.get("do") for a in legal}
        if phase == "look_initial" or kinds == {"look_initial"}:
            return 0
        ctx = self._context(state)
        if "pass" in kinds:
            return self._claim(state, legal, ctx)
        if kinds & {"draw", "take", "cabo"}:
            return self._turn(state, legal, ctx)
        if phase == "rey" or kinds == {"place", "discard"}:
            return self._rey(state, legal, ctx)
        held = state.get("held")
        if held is None or held not in self.values:
            return 0
        from_deck = state.get("held_from") != "discard"
        best, best_i = NEG, 0
        plain = not self.pairs  # a blind swap's _score is then its _blind_value, taken directly (a Jack or Queen
        my_risk = self._moon_risk(ctx) if plain else False  # held offers every pair of slots)
        risks: dict[int, bool] = {}
        for i, action in enumerate(legal):
            if plain and action.get("do") == "blind_swap":
                seat = action["seat"]
                risk = risks.get(seat)
                if risk is None:
                    risk = risks[seat] = self._moon_risk(ctx, seat)
                score = self._blind_gain(ctx, action["slot"], seat, action["their"], my_risk, risk)
            else:
                score = self._score(action, ctx, held, from_deck)
            if score > best:
                best, best_i = score, i
        return best_i

    # ------------------------------------------------------------------ estimates
    def _context(self, state: dict[str, Any]) -> _Ctx:
        p, me, values = self.p, self.me, self.values
        ctx = _Ctx()
        ctx.memo = {}
        ctx.unseen = unseen_cards(state, self.codes) or list(self.codes)
        pool = sorted(values[c] for c in ctx.unseen) or [0]
        ctx.ranks = {}
        for c in ctx.unseen:
            ctx.ranks[c[0]] = ctx.ranks.get(c[0], 0) + 1
        ctx.pool = pool
        mean = sum(pool) / len(pool)
        ctx.mean = mean
        ctx.var = max(1.0, sum((v - mean) ** 2 for v in pool) / len(pool))
        half = len(pool) // 2
        low = sum(pool[: max(1, half)]) / max(1, half)
        high = sum(pool[half:]) / max(1, len(pool) - half)
        dumped_est = mean + p["dump_shift"] * (high - mean)
        prior_dev = p["keep_shift"] * (low - mean)
        lo, hi = pool[0], pool[-1]
        hands = state.get("hands") or []
        ctx.est, ctx.codes, ctx.unknown, ctx.totals, ctx.vars = [], [], [], [], []
        for s, hand in enumerate(hands):
            kept = None
            if s != me and s < self.n:
                dev = (self.dev_sum[s] + p["keep_prior_n"] * prior_dev) / (self.dev_n[s] + p["keep_prior_n"])
                kept = min(hi, max(lo, mean + dev))
            est_row: list[float | None] = []
            code_row: list[str | None] = []
            unknown, var = 0, 0.0
            for i, code in enumerate(hand):
                if code is None:
                    est_row.append(None)
                    code_row.append(None)
                    continue
                if code != "?" and code in values:
                    est_row.append(float(values[code]))
                    code_row.append(code)
                    continue
                code_row.append(None)
                unknown += 1
                if self.know.is_dumped(s, i):
                    est_row.append(dumped_est)
                    var += ctx.var
                elif kept is not None and self.know.owner_knows(s, i):
                    est_row.append(kept)
                    var += 0.7 * ctx.var
                    record = self.pending.get((s, i))
                    if record is None:
                        self.pending[(s, i)] = [1.0, mean]
                    else:
                        record[0] += 1.0
                        record[1] += mean
                else:
                    est_row.append(mean)
                    var += ctx.var
            ctx.est.append(est_row)
            ctx.codes.append(code_row)
            ctx.unknown.append(unknown)
            ctx.totals.append(sum(v for v in est_row if v is not None))
            ctx.vars.append(var)
        cabo = state.get("cabo")
        ctx.final = cabo is not None  # my last turn of the round (or I called)
        totals = state.get("totals") or [0] * len(hands)
        opponents = [s for s in range(len(hands)) if s != me]
        if cabo is not None and cabo != me:
            ctx.leader = cabo
        elif opponents:
            ctx.leader = min(opponents, key=lambda s: (totals[s] if s < len(totals) else 0) + ctx.totals[s])
        else:
            ctx.leader = None
        ctx.weights = {}
        for s in opponents:
            if len(hands) == 2:
                ctx.weights[s] = p["opp_w"] + p["leader_w"] + 0.2
            else:
                ctx.weights[s] = p["opp_w"] + (p["leader_w"] if s == ctx.leader else 0.0)
        discard = state.get("discard") or []
        ctx.top = discard[-1] if discard else None
        ctx.base = self._eff(me, ctx, {}) if me < len(ctx.est) else 0.0
        return ctx

    def _eff(self, seat: int, ctx: _Ctx, changes: dict[int, tuple[float, str | None] | None]) -> float:
        """Effective total of ``seat``'s hand after ``changes`` (slot -> (value, code or None) or None = emptied).

        A known Shooting-the-Moon hand counts as ``moon_eff`` for me and is flagged
        for opponents by :meth:`_opp_moon`."""
        total, codes, all_known, count = 0.0, [], True, 0
        est_row, code_row = ctx.est[seat], ctx.codes[seat]
        for i, v in enumerate(est_row):
            c = code_row[i]
            if i in changes:
                ch = changes[i]
                if ch is None:
                    continue
                v, c = ch
            elif v is None:
                continue
            count += 1
            total += v
            if c is None:
                all_known = False
            else:
                codes.append(c)
        if self.standard and seat == self.me and all_known and count == 4 and is_moon(codes):
            return self.p["moon_eff"]
        return total

    def _moon_risk(self, ctx: _Ctx, seat: int | None = None) -> bool:
        """Could one card change make or break a known moon in ``seat``'s hand (standard)?"""
        if not self.standard:
            return False
        seat = self.me if seat is None else seat
        key = ("moon", seat)
        risk = ctx.memo.get(key)
        if risk is None:
            codes = [c for c, v in zip(ctx.codes[seat], ctx.est[seat]) if v is not None]
            risk = len(codes) == 4 and sum(
                1 for c in codes if c is not None and (c[0] == "Q" or c in ("KS", "KC"))) >= 3
            ctx.memo[key] = risk
        return risk

    def _opp_moon(self, seat: int, ctx: _Ctx, changes: dict[int, str | None]) -> bool:
        """Would ``seat``'s hand be a moon I know of, after ``changes`` (slot -> code or None = unknown)?"""
        if not self.standard:
            return False
        codes = []
        for i, c in enumerate(ctx.codes[seat]):
            if ctx.est[seat][i] is None:
                continue
            if i in changes:
                c = changes[i]
            if c is None:
                return False
            codes.append(c)
        return len(codes) == 4 and is_moon(codes)

    # ------------------------------------------------------------------ scoring a held card
    def _claim_bonus(self, ctx: _Ctx, landed: str | None, changes: dict[int, str | None] | None = None) -> float:
        """Espanola pairs: what I gain by claiming, right after ``landed`` lands on the
        discard, a known card of mine of the same rank (``landed`` None: an unknown card,
        averaged over the unseen cards). ``changes``: my slots after the action."""
        if not self.pairs:
            return 0.0
        best: dict[str, float] = {}
        for i, code in enumerate(ctx.codes[self.me]):
            if changes and i in changes:
                code = changes[i]
            if code is not None and code in self.values:
                best[code[0]] = max(best.get(code[0], 0.0), float(self.values[code]))
        if not best:
            return 0.0
        if landed is not None:
            return best.get(landed[0], 0.0)
        return sum(ctx.ranks.get(r, 0) * v for r, v in best.items()) / max(1, len(ctx.unseen))

    def _score(self, action: dict[str, Any], ctx: _Ctx, held: str, from_deck: bool) -> float:
        score = self._score_plain(action, ctx, held, from_deck)
        if self.pairs and score > NEG / 2:
            do = action.get("do")
            if do == "swap":
                slot = action["slot"]
                score += self._claim_bonus(ctx, ctx.codes[self.me][slot], {slot: held})
            elif do in ("discard", "spy"):
                score += self._claim_bonus(ctx, held)
            elif do == "blind_swap":
                score += self._claim_bonus(ctx, held, {action["slot"]: ctx.codes[action["seat"]][action["their"]]})
        return score

    def _score_plain(self, action: dict[str, Any], ctx: _Ctx, held: str, from_deck: bool) -> float:
        do = action.get("do")
        me, p = self.me, self.p
        w = float(self.values.get(held, ctx.mean))
        mine = ctx.est[me]
        info = 0.0 if ctx.final else p["know_own"]
        if do == "swap":
            slot = action["slot"]
            if mine[slot] is None:
                return NEG
            gain = ctx.base - self._eff(me, ctx, {slot: (w, held)})
            if ctx.codes[me][slot] is None:
                gain += info
            else:
                gain -= 0.05  # on a tie, a discard keeps the held card private
            return gain
        if do == "multi":
            slots = action["slots"]
            known = [ctx.codes[me][i] for i in slots]
            if any(c is None for c in known) or len({self.values[c] for c in known}) != 1:
                return NEG
            if action["into"] != min(slots):
                return NEG + 1  # same outcome as another 'into'; keep one
            changes: dict[int, tuple[float, str | None] | None] = {i: None for i in slots}
            changes[action["into"]] = (w, held)
            return ctx.base - self._eff(me, ctx, changes) + 0.3 * (len(slots) - 1)
        if do == "discard":
            return 0.0
        if do == "peek":
            return self._peek_value(ctx, action["slot"])
        if do == "spy":
            if action["seat"] == me:
                return self._peek_value(ctx, action["slot"])
            return self._spy_value(ctx, action["seat"], action["slot"])
        if do == "blind_swap":
            return self._blind_value(ctx, action["slot"], action["seat"], action["their"])
        if do == "look":
            return self._look_value(ctx, w, action["seat"], action["slot"])
        return NEG

    def _peek_value(self, ctx: _Ctx, slot: int) -> float:
        if ctx.est[self.me][slot] is None or ctx.codes[self.me][slot] is not None:
            return -0.1
        return 0.0 if ctx.final else self.p["peek"]

    def _spy_value(self, ctx: _Ctx, seat: int, slot: int) -> float:
        if ctx.est[seat][slot] is None or ctx.codes[seat][slot] is not None or ctx.final:
            return -0.1
        value = self.p["spy"] * (1.5 if seat == ctx.leader else 1.0)
        if self.know.owner_knows(seat, slot):
            value += 0.2  # a card they keep: a good blind-swap target once known
        return value

    def _blind_value(self, ctx: _Ctx, slot: int, seat: int, their: int) -> float:
        return self._blind_gain(ctx, slot, seat, their, self._moon_risk(ctx), self._moon_risk(ctx, seat))

    def _blind_gain(self, ctx: _Ctx, slot: int, seat: int, their: int, my_risk: bool, their_risk: bool) -> float:
        """:meth:`_blind_value`, the two moon risks given: weighing a drawn Jack or Queen tries every pair of
        slots, the hottest loop of a game, and the risks are the same for all of a seat's."""
        me = self.me
        a, b = ctx.est[me][slot], ctx.est[seat][their]
        if a is None or b is None:
            return NEG
        a_code, b_code = ctx.codes[me][slot], ctx.codes[seat][their]
        if my_risk:
            gain = ctx.base - self._eff(me, ctx, {slot: (b, b_code)})
        else:
            gain = a - b
        gain += ctx.weights.get(seat, 0.3) * (a - b)
        if not ctx.final:
            if a_code is None and b_code is not None:
                gain += self.p["know_own"]
            elif a_code is not None and b_code is None:
                gain -= 0.5 * self.p["know_own"]
        if their_risk:
            if self._opp_moon(seat, ctx, {}):
                gain += self.p["moon_break"]
            elif a_code is not None and self._opp_moon(seat, ctx, {their: a_code}):
                gain -= self.p["moon_break"]
        return gain

    def _look_value(self, ctx: _Ctx, r: float, seat: int, slot: int) -> float:
        """Espanola Rey: look at (seat, slot), then place the Rey there or discard it."""
        est = ctx.est[seat][slot]
        if est is None:
            return NEG
        known = ctx.codes[seat][slot] is not None
        rey_claim = self._claim_bonus(ctx, "R") if self.pairs else 0.0  # discarding the Rey lands a Rey
        if seat == self.me:
            if known:
                return max(est - r, rey_claim) - 0.2  # a plain swap places it without showing the Rey
            peek = (0.0 if ctx.final else self.p["peek"]) + rey_claim
            info = 0.0 if ctx.final else self.p["know_own"]
            shift = est - ctx.mean
            return sum(max(v + shift - r + info, peek) for v in ctx.pool) / len(ctx.pool)
        weight = ctx.weights.get(seat, 0.3)
        if known:
            return max(weight * (r - est), rey_claim) - 0.05
        spy = (0.0 if ctx.final else self.p["spy"]) + rey_claim
        shift = est - ctx.mean
        return sum(max(weight * (r - v - shift), spy) for v in ctx.pool) / len(ctx.pool)

    def _best_held(self, ctx: _Ctx, held: str, from_deck: bool) -> float:
        """Best score of holding ``held``, over the actions the engine would offer."""
        me = self.me
        slots = [i for i, v in enumerate(ctx.est[me]) if v is not None]
        best = NEG
        top = ctx.memo.get("swap_top")
        if top is None:
            top = NEG
            if not self.pairs and not self._moon_risk(ctx):
                # Swap gain is linear here: the slot's estimate (+ info if unknown) minus the card.
                info = 0.0 if ctx.final else self.p["know_own"]
                for i in slots:
                    top = max(top, (ctx.est[me][i] or 0.0) + (info if ctx.codes[me][i] is None else -0.05))
            ctx.memo["swap_top"] = top
        if top > NEG:
            best = top - float(self.values.get(held, ctx.mean))
        else:
            for i in slots:
                best = max(best, self._score({"do": "swap", "slot": i}, ctx, held, from_deck))
        if self.standard and (from_deck or self.multi_from_discard):
            groups: dict[int, list[int]] = {}
            for i in slots:
                c = ctx.codes[me][i]
                if c is not None:
                    groups.setdefault(self.values[c], []).append(i)
            for group in groups.values():
                if len(group) >= 2:
                    best = max(best, self._score({"do": "multi", "slots": group, "into": group[0]}, ctx, held, from_deck))
        if not from_deck:
            return best
        best = max(best, self._score({"do": "discard"}, ctx, held, from_deck))
        power = self.powers.get(held[0])
        if power is None:
            return best
        key = (power, held[0] if self.pairs else "", self.values[held] if power == "look" else 0)
        value = ctx.memo.get(key)
        if value is None:
            value = NEG
            others = [(s, i) for s in range(len(ctx.est)) if s != me for i, v in enumerate(ctx.est[s]) if v is not None]
            if power == "peek":
                options = [{"do": "peek", "slot": i} for i in slots]
            elif power == "spy":
                options = [{"do": "spy", "seat": s, "slot": i} for s, i in others]
                if not self.standard:
                    options += [{"do": "spy", "seat": me, "slot": i} for i in slots]
            elif power == "blind_swap" and not self.pairs:  # each option's _score is its _blind_value
                options = []
                my_risk = self._moon_risk(ctx)
                for s, i in others:
                    their_risk = self._moon_risk(ctx, s)
                    for m in slots:
                        gain = self._blind_gain(ctx, m, s, i, my_risk, their_risk)
                        if gain > value:
                            value = gain
            elif power == "blind_swap":
                options = [{"do": "blind_swap", "slot": m, "seat": s, "their": i} for m in slots for s, i in others]
            else:
                options = [{"do": "look", "seat": me, "slot": i} for i in slots]
                options += [{"do": "look", "seat": s, "slot": i} for s, i in others]
            for option in options:
                value = max(value, self._score(option, ctx, held, from_deck))
            ctx.memo[key] = value
        return max(best, value)

    # ------------------------------------------------------------------ phases
    def _turn(self, state: dict[str, Any], legal: list[dict[str, Any]], ctx: _Ctx) -> int:
        index = {a.get("do"): i for i, a in enumerate(legal)}
        if "cabo" in index and self._should_call(state, ctx):
            return index["cabo"]
        draw_score = NEG
        if "draw" in index:
            draw_score = self._draw_value(ctx)
        if "take" in index and ctx.top in self.values:
            take_score = self._best_held(ctx, ctx.top, from_deck=False) - 0.1
            if take_score > max(draw_score, 0.0) + self.p["take_margin"] or "draw" not in index:
                return index["take"]
        if "draw" in index:
            return index["draw"]
        return index.get("cabo", 0)

    def _draw_value(self, ctx: _Ctx) -> float:
        """Expected best score of a card drawn from the pile (drawn from the unseen cards)."""
        counts: dict[tuple[int, str | None], int] = {}
        reps: dict[tuple[int, str | None], str] = {}
        for code in ctx.unseen:  # one representative per (value, power) class
            key = (self.values[code], self.powers.get(code[0]))
            if key in counts:
                counts[key] += 1
            else:
                counts[key] = 1
                reps[key] = code
        if not counts:
            return 0.0
        total = sum(counts.values())
        return sum(n * self._best_held(ctx, reps[k], from_deck=True) for k, n in counts.items()) / total

    def _should_call(self, state: dict[str, Any], ctx: _Ctx) -> bool:
        if self.literal:
            return True
        me, p = self.me, self.p
        mine = ctx.base
        if self.standard and mine == p["moon_eff"]:
            return True
        prob = self._lowest_chance(ctx, mine)
        # Long rounds lower the bar, so that rounds end before the turn limit.
        limit = self.options.get("max_turns_per_round") or 400
        turn = state.get("turn") or 0
        relax = 1.0 - 0.8 * min(1.0, turn / max(1.0, p["relax_at"] * limit))
        if self.standard:
            # Failing costs the hand + 5; winning saves the hand.
            return prob >= p["call_p"] * relax and prob * max(mine, 0.0) >= (1 - prob) * 5.0 - 1e-9
        # espanola: a failed call costs nothing but the rest of the round
        if ctx.unknown[me] == 0 and mine <= p["esp_low"]:
            return True
        return prob >= p["call_p_esp"] * relax

    def _lowest_chance(self, ctx: _Ctx, mine: float) -> float:
        """Chance that my hand ends lowest (standard: ties count; espanola: strictly).

        Each hand is normal around its estimate; the comparisons share my own hand, so
        the chance is integrated over my hand's value (5-point Gauss-Hermite)."""
        me, p = self.me, self.p
        sd_me = math.sqrt(ctx.vars[me])
        edge = 0.5 if self.standard else -0.5
        opponents = []
        for s in range(len(ctx.est)):
            if s == me or self._opp_moon(s, ctx, {}):
                continue  # nothing changes a moon's 50 points
            improve = p["opp_improve"] if ctx.unknown[s] or ctx.totals[s] > 0 else 0.0
            opponents.append((ctx.totals[s] - improve + edge, math.sqrt(ctx.vars[s] + 0.25)))
        total = 0.0
        for x, weight in _GAUSS_HERMITE:
            value = mine + x * sd_me
            prob = weight
            for mean, sd in opponents:
                prob *= _phi((mean - value) / sd)
            total += prob
        return total

    def _rey(self, state: dict[str, Any], legal: list[dict[str, Any]], ctx: _Ctx) -> int:
        index = {a.get("do"): i for i, a in enumerate(legal)}
        looked = state.get("looked") or {}
        held = state.get("held")
        seat, slot = looked.get("seat"), looked.get("slot")
        if "place" not in index or held not in self.values or seat is None or slot is None:
            return index.get("discard", 0)
        try:
            est = ctx.est[seat][slot]
        except (IndexError, TypeError):
            return index.get("discard", 0)
        if est is None:
            return index.get("discard", 0)
        r = float(self.values[held])
        looked_code = ctx.codes[seat][slot]
        if seat == self.me:
            place = est - r + self._claim_bonus(ctx, looked_code, {slot: held})
        else:
            place = ctx.weights.get(seat, 0.3) * (r - est) + self._claim_bonus(ctx, looked_code)
        discard = self._claim_bonus(ctx, held)
        return index["place"] if place > discard + 0.01 else index.get("discard", 0)

    def _claim(self, state: dict[str, Any], legal: list[dict[str, Any]], ctx: _Ctx) -> int:
        top = ctx.top
        best, best_i = 0.0, next((i for i, a in enumerate(legal) if a.get("do") == "pass"), 0)
        if top is None:
            return best_i
        for i, action in enumerate(legal):
            if action.get("do") != "claim":
                continue
            slot: Any = action.get("slot")
            try:
                code = ctx.codes[self.me][slot]
            except (IndexError, TypeError):
                continue
            if code is None or code[0] != top[0]:
                continue  # never claim a card it does not know
            value = self.values.get(code, 0)
            if value > best:
                best, best_i = value, i
        return best_i


def known_strength(p: float) -> type[HeuristicPolicy]:
    """The heuristic policy that plays a uniformly random legal action with probability ``p``."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be from 0 to 1, not {p}")

    class Diluted(HeuristicPolicy):
        name = f"known-p{round(p * 100)}"

        def __init__(self, hello: dict[str, Any], params: dict[str, float] | None = None) -> None:
            super().__init__(hello, params)
            self.rng = random.Random(f"{hello.get('match', '')}/{hello.get('seat', 0)}")

        def act(self, state: dict[str, Any], legal: list[dict[str, Any]], events: list[dict[str, Any]]) -> int:
            if len(legal) > 1 and self.rng.random() < p:
                self.update(events)  # keep its knowledge of the table, as a full decision would
                self.know.sync(state)
                return self.rng.randrange(len(legal))
            return super().act(state, legal, events)

    return Diluted
