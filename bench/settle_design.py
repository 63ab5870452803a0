"""Which stop rule to build for ``--until settled`` (issue 44): many cheap simulated runs, calibrated on real deals.

Why simulate: a run of the known-strength field under today's rule plays about 700 matches, and a false-settle
rate needs hundreds of runs per field, so designs are compared here on resampled real deals rather than played.

**The model.** Real deals first: the bots of known strength (``bots/known-p*``, the heuristic playing a uniformly
random legal action with probability p; lower p is stronger) play in-process, 4 seats, ``standard`` rules, the
arena's own balanced round robin and luck meter. A *deal* is a table of 4 under its 4 rotations (one deal seed,
every bot holds every seat's cards once); per deal and bot it keeps the mean place, mean match total and mean
luck-corrected total over the rotations. A pair's *paired difference* at a deal is B's mean minus A's (A's lead:
positive when A did better; places and points are both lower-is-better). A simulated run draws, for every table it
schedules, one deal of that table at random from the played pool, so a deal keeps its real joint distribution over
the four bots (the six pairs at a table are correlated, as they are in play). Bots that are equal by construction
(copies, or the same strength with its own random stream) have their values permuted at random within each drawn
deal: their mean difference is then exactly 0 in the model, not the pool's chance value. A model run's truth is
the pool: a pair's true lead is the mean of its paired difference over the tables holding both, each table equally.
The model is checked against real deals held out of the pool (the neighbouring pairs' per-deal mean and sd) and
against the real figure of today's rule on this field (``bench/fairness.py``: 718 matches to settle, mean of 30;
``--real N`` plays it again here, with this bench's order: the same 718 on the same 30 seeds).

Fields (4 seats): ``family`` (known-p0 ... known-p100, 6 bots, 15 tables); ``pair`` (copies a-p0 and b-p0 of
known-p0 among known-p20, known-p50, known-p100); ``twins`` (known-p20 and a twin of it drawing its random moves from
a stream of its own, among known-p0, known-p50, known-p100); ``equal`` (six copies of known-p0: every difference is
exactly 0); ``streams`` (six known-p20, each its own stream: equal strength, other moves); ``ladder`` (the streams'
deals with bot i made worse by exactly i * margin: every neighbour sits at the boundary of the margin, the worst
case for an indifference-zone claim, values kept within a deal's bounds).

**The rules**, each asked after every deal (``today-cycle``: after every cycle, as the arena asks today), order
the bots by the mean of their paired leads over all opponents (the arena ranks by TrueSkill; a different but
consistent order, chosen by the same data), and stop when every neighbouring pair of that order is decided:

* ``today``: :mod:`arena.tournament.evidence` as shipped: each pair's asymptotic confidence sequence at
  ``(1 - P) / 15``; *ordered* (interval above 0) or *within the margin* (interval inside (-margin, margin)).
* ``<multiplicity>-<evalue>[-adaptive][-points|-corrected][-minN]``: indifference-zone claims. For the neighbouring
  pair U above L the claim is "U is not worse than L by more than the margin", the one-sided null
  ``H(U,L): mean lead of U over L <= -margin`` rejected. The claim is true whenever the two are within the margin
  (either order is then right), so equal bots can only be settled truly; a false claim puts a bot above one that
  beats it by more than the margin.

  e-values: ``sprt``, Wald's likelihood ratio of a mean lead of 0 over a lead of minus the margin, normal, with the
  variance estimated from the deals and two deals of ``--prior-variance`` (:mod:`arena.evidence.sequential`: the
  arena's since this bench chose it); ``mix``, the mean of such ratios over alternatives ``--shifts`` margins above
  the null; ``gauss``, the one-sided (half-normal) mixture of Robbins over the running sum of ``lead + margin``,
  scaled by the running sd (never below ``--min-sd`` places), no claim before ``--min-deals`` deals of a pair: the
  e-value form of the sequence the arena ships, variance-adaptive, valid asymptotically (Waudby-Smith et al. 2024);
  ``bet``, the wealth ``prod(1 + lam (lead + margin))`` with a Kelly stake from the deals before (a prior of
  :data:`PRIOR_DEALS` deals of variance 1), at most ``--stake`` of what a deal can lose (a lead is at least -3
  places at 4 seats): a test supermartingale under the null for any distribution within the bounds (Ville), valid
  at every deal from the first, but it pays for the range: a run of zeros multiplies the wealth by at most
  ``1 + stake * margin / (3 - margin)`` a deal, and no bounded test can do better than ``3 / (3 - margin)``.

  multiplicity: ``union``, every claim at ``e >= 15 / (1 - P)``: valid whatever order is chosen, since at most one
  direction of each of the 15 pairs is a true null; ``holm``, Holm's step-down over the 5 neighbouring pairs of the
  current order, the j-th smallest e-value at least ``j / (1 - P)`` (Holm 1979 on the anytime p-values ``1 / e``;
  e-values as Vovk and Wang, "E-values: calibration, combination and applications", Ann. Statist. 2021): it is
  closed testing for a *fixed* family of 5, but here the family is chosen by the data, and far pairs that are never
  neighbours are not paid for, so its error is only measured, not proven (the ladder is where it shows);
  ``holmall``, Holm's step-down over all 15 pairs, each in the direction of the current order (far pairs are
  rejected first and lower the bar for the neighbours; the direction is still chosen by the data, so measured
  too); ``stakes``, a provably valid way to pay
  for neighbours only: a budget of 1 is split among the open neighbouring hypotheses of the current order, each
  account bets its own hypothesis (also while no longer a neighbour), a claim is made when an account reaches
  ``1 / (1 - P)``, and an account that stops being an open neighbour gives back ``min(balance, stake)``. The
  potential ``reserve + sum of true-null accounts + stakes of false-null accounts`` is a test supermartingale
  starting at 1 (a bet moves only true-null balances, as fair bets; funding and refunds move money between its terms
  or drop it), so by Ville's inequality a false claim at any stop has probability at most ``1 - P``.

  ``adaptive``: after one balanced cycle, each next unit is the fewest tables that seat every open neighbouring pair
  together (greedily: the table covering most open pairs, then the least played table, then the least played bots),
  plus a table for the least-met pair whenever it falls below a quarter of the most-met pair's deals (every pair's
  count keeps growing). ``points`` / ``corrected``: the same test on match totals or luck-corrected totals, the margin
  and ``--min-sd`` converted at the family's ratio of neighbouring gaps (points per place), printed.

Per rule and field: mean matches to settle (runs that settled; unsettled within ``--cap`` matches counted apart),
the share of runs that settled with a false claim (today's rule: an ordered pair whose lead is not above 0, or a
pair within the margin whose lead is not), and on the family the share whose settled order is the true one::

    settle-design: <rule> on <field>: matches to settle = M (se s), false settled = F (se f) over N runs

then a summary of which rules meet the issue's targets (family M <= 250 and F <= 0.05 on every field).

    .venv/bin/python bench/settle_design.py [--seeds 100] [--runs 400] [--only RULE,RULE] [--fields F,F]
        [--margin 0.25] [--p 0.95] [--stake 0.5] [--min-deals 20] [--pool 96] [--holdout 24] [--real 0]
        [--sweep RULE,RULE] [--sweep-margins 0.1,...] [--cache FILE]

About 4 minutes of real play for the pools (``--cache FILE`` keeps them for the next run) and 3 of simulation, one
process.

**Measured** (the defaults, P 0.95, margin 0.25 places; family 100 runs, other fields 400; se in brackets):

* The model is a little pessimistic: today's rule settles the family after 853 (30) matches in it, 741 (25) in 70
  played round robins (718 on the 30 seeds of ``bench/fairness.py``; medians 780 and 720); the neighbouring pairs'
  per-deal means and sds agree with held-out real deals within 0.06 and 0.03 places.
* The three choices of the issue, one at a time (family, matches to settle): today 853; indifference-zone claims
  alone 288 (``union-gauss``); Holm over the neighbours 231; tables chosen for open pairs 200 (``union``) and 178
  (``holm``). Most of the cost of today's rule was the proven equivalence, not the union bound.
* Below about 200 the floor of ``--min-deals`` decides: every neighbouring pair needs 20 deals (172 matches with
  adaptive tables, 6 identical bots: 172); at 10, ``union-gauss-adaptive-min10`` takes 156, in luck-corrected points
  128, with no false claim on the ladder above 0.010.
* Holm over the current neighbours is not safe when the order is chosen by the data: on the ladder it made false
  claims in 0.043 (0.010) of runs (0.058 with 10 least deals); the union over the 15 one-sided pairs 0.010,
  ``holmall`` 0.025. Pairs equal by construction can never be claimed falsely under the margin, so the ``pair``,
  ``twins`` and ``equal`` fields test only the separated bots: the ladder is the field that tests the claim.
* Bounded bets (``bet``, ``stakes``: valid from the first deal) pay for the range: 299-598 matches on the family and
  840-1108 on six identical bots, against 124-216 for the normal mixture.
* The arena's rule, chosen here (``union-sprt-adaptive-all-min10``: Wald's ratio, the union over the 15 pairs that
  closed testing gives, tables for every undecided pair, 10 deals least, prior variance 0.5; 60 family runs, 250
  of each other field): family 194 (se 5), every order true; twins 200 (5); equal 124; streams 1,061 (10); ladder
  460 (5); no false claim on any field (0.004 on the ladder at prior 1.0). ``gauss`` is cheaper on the family
  (158) and dearer on near-equal bots (streams 1,342); ``mix`` (1,2,4,8) in between (162; 1,317). Choosing tables
  for every undecided pair rather than the order's neighbours changed nothing measurable (the choice then needs
  no order, so a resumed run makes it again from its stored deals alone).
* Points against places: the same on the family (the floor decides), about half as many matches on near-equal
  bots (``streams``: 693 against 1346 for ``union-gauss-adaptive``); luck-corrected points gain little more over
  plain points here, since the rotations of a deal already share its cards.
"""

from __future__ import annotations

import argparse
import dataclasses
import itertools
import json
import math
import random
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.game import Match  # noqa: E402
from arena.game.rules import Rules  # noqa: E402
from arena.luck import shipped_model  # noqa: E402
from arena.luck.meter import Meter  # noqa: E402
from arena.match.seeds import opaque_match_id  # noqa: E402
from arena.tournament import evidence as ev  # noqa: E402
from arena.tournament.schedules.round_robin import round_robin  # noqa: E402
from tests.bots_examples.driver import BOTS, PolicySeat, play  # noqa: E402
from tests.bots_examples.measure import load_module  # noqa: E402

# The rule ``--until settled`` shipped before this bench's choice, kept here to compare against: a two-sided
# asymptotic confidence sequence per pair (Waudby-Smith et al. 2024) at (1 - P) / pairs.
TODAY_MIN_DEALS = 20
TODAY_MIN_SD = 0.25
TODAY_TARGET = 60


def today_alpha(p: float, players: int) -> float:
    return (1.0 - p) / max(1, players * (players - 1) // 2)


def today_half_width(deals: int, variance: float, alpha: float) -> float:
    if deals <= 0:
        return math.inf
    lam = -2.0 * math.log(alpha)
    rho2 = (lam + math.log(lam + 1.0)) / TODAY_TARGET
    spread = math.sqrt(max(variance, TODAY_MIN_SD ** 2))
    grown = deals * rho2 + 1.0
    return spread * math.sqrt(2.0 * grown / (deals * deals * rho2) * math.log(math.sqrt(grown) / alpha))


def today_settled(evidence: Any, order: Sequence[str], p: float, margin: float) -> bool:
    alpha = today_alpha(p, len(order))
    for upper, lower in zip(order, order[1:]):
        n, mean, variance = evidence.of(upper, lower)
        half = today_half_width(n, variance, alpha) if n >= TODAY_MIN_DEALS else math.inf
        if not (mean - half > 0 or abs(mean) + half < margin):
            return False
    return True


SEATS = 4
SPREAD = float(SEATS - 1)
"""The largest paired place difference at a deal: a lead lies within 3 places at 4 seats."""
PRESET = "standard"
PRIOR_DEALS = 10
"""Weight of the bet's variance prior, in deals (as ``arena compare``'s): a run of zeros must not stake everything."""
PRIOR_VARIANCE = 1.0
"""The variance (places squared) the bet's estimate starts from: about a paired place difference's."""
PRIOR_MEAN_DEALS = 2
"""Weight of the bet's prior mean lead of 0 (equal bots), in deals."""
CURRENCIES = ("places", "points", "corrected")
MATCHES_PER_DEAL = SEATS

Deal = tuple[tuple[float, float, float], ...]
"""One deal of a table: per bot (in the table's name order) its mean place, total and luck-corrected total."""
Pool = dict[str, list[Deal]]
"""Played deals by table key (its bots' names joined by ``+``, in name order)."""


@dataclass(frozen=True)
class FieldSpec:
    """A field to play: each player's strength p and random stream (None: the bot's own), and who is equal."""

    name: str
    label: str
    players: tuple[tuple[str, float, str | None], ...]
    equal: tuple[tuple[str, ...], ...]
    """Groups of players equal by construction: their values are permuted within each drawn deal."""
    pool_share: float
    """Cycles of real play for the pool, as a share of ``--pool`` (a field of 5 bots has a third of the tables, so as
    many cycles give it three times the deals per table)."""


FIELDS: dict[str, FieldSpec] = {
    "family": FieldSpec("family", "the known-strength family (6 bots)",
                        tuple((f"known-p{round(p * 100)}", p, None) for p in (0.0, 0.1, 0.2, 0.35, 0.5, 1.0)), (), 1.0),
    "pair": FieldSpec("pair", "an identical pair among separated bots",
                      (("a-p0", 0.0, None), ("b-p0", 0.0, None), ("known-p20", 0.2, None), ("known-p50", 0.5, None),
                       ("known-p100", 1.0, None)), (("a-p0", "b-p0"),), 1.0),
    "twins": FieldSpec("twins", "an equal-strength pair, own random streams, among separated bots",
                       (("known-p20", 0.2, None), ("twin-p20", 0.2, "twin"), ("known-p0", 0.0, None),
                        ("known-p50", 0.5, None), ("known-p100", 1.0, None)), (("known-p20", "twin-p20"),), 1.0),
    "equal": FieldSpec("equal", "an all-equal field (6 copies of known-p0)",
                       tuple((f"{c}-p0", 0.0, None) for c in "abcdef"), (tuple(f"{c}-p0" for c in "abcdef"),), 0.1),
    "streams": FieldSpec("streams", "an all-equal field of other moves (6 known-p20, own streams)",
                         tuple((f"{c}-p20", 0.2, c) for c in "abcdef"), (tuple(f"{c}-p20" for c in "abcdef"),), 0.5),
}
LADDER = "ladder"
"""The streams' deals with bot i worse by i margins: not played, made from the ``streams`` pool."""
FIELD_NAMES = ("family", "pair", "twins", "equal", "streams", LADDER)
FAMILY_TRUE = tuple(name for name, _, _ in FIELDS["family"].players)


# ---------------------------------------------------------------- real play


def _policy(module: Any, p: float, stream: str | None) -> Any:
    """The known-strength policy class of ``p``; with a ``stream``, one drawing its random moves from its own."""
    base = module.known_strength(p)
    if stream is None:
        return base

    class Streamed(base):  # type: ignore[misc, valid-type]
        def __init__(self, hello: dict[str, Any], params: dict[str, float] | None = None) -> None:
            super().__init__(hello, params)
            self.rng = random.Random(f"{stream}/{hello.get('match', '')}/{hello.get('seat', 0)}/{p}")

    return Streamed


def play_pool(spec: FieldSpec, cycles: int, master: int) -> Pool:
    """The first ``cycles`` cycles of ``spec``'s balanced round robin of seed ``master`` (each table goes round the
    seating design as in the arena), metered: every table's deals."""
    module = load_module("settle_design_heuristic_strategy", BOTS / "lib" / "heuristic_strategy.py")
    seats = {name: PolicySeat(_policy(module, p, stream)) for name, p, stream in spec.players}
    names = [name for name, _, _ in spec.players]
    pool: Pool = {}
    model = shipped_model()
    rotations: dict[str, list[tuple[tuple[str, ...], list[int], list[int], list[float]]]] = {}
    for scheduled in round_robin(names, [SEATS], cycles, master):
        meter = Meter(model, PRESET, SEATS)

        def watched(rules: Rules, n: int, s: int | str, meter: Meter = meter) -> Match:
            return Match(rules, n, s, watcher=meter)

        match = play([seats[bot] for bot in scheduled.bots], PRESET, scheduled.seed,
                     match_id=opaque_match_id(master, scheduled.match_id), copy_json=False, make_match=watched)
        assert match.result is not None
        table = "+".join(sorted(scheduled.bots))
        played = rotations.setdefault(table, [])
        played.append((scheduled.bots, list(match.result.places), list(match.result.totals), list(meter.luck)))
        if len(played) < SEATS:
            continue
        deal = []
        for bot in table.split("+"):
            at = [(bots.index(bot), places, totals, luck) for bots, places, totals, luck in played]
            deal.append((statistics.fmean(places[i] for i, places, _, _ in at),
                         statistics.fmean(totals[i] for i, _, totals, _ in at),
                         statistics.fmean(totals[i] - luck[i] for i, _, totals, luck in at)))
        pool.setdefault(table, []).append(tuple(deal))
        del rotations[table]
    return pool


def pools(names: Sequence[str], cycles: int, holdout: int, cache: Path | None) -> tuple[dict[str, Pool], Pool]:
    """Each field's pool (played, or read from ``cache`` when it holds the same sizes), the family's held-out deals."""
    key = {"cycles": cycles, "holdout": holdout, "fields": sorted(names), "seating": "balanced"}
    if cache is not None and cache.exists():
        data = json.loads(cache.read_text())
        if data.get("key") == key:
            def tupled(pool: dict[str, list[list[list[float]]]]) -> Pool:
                return {t: [tuple((a, b, c) for a, b, c in deal) for deal in deals] for t, deals in pool.items()}
            print(f"pools read from {cache}", flush=True)
            return {n: tupled(p) for n, p in data["pools"].items()}, tupled(data["holdout"])
    out: dict[str, Pool] = {}
    for name in names:
        spec = FIELDS[name]
        started = time.perf_counter()
        n = max(2, round(cycles * spec.pool_share))
        out[name] = play_pool(spec, n, 100_000 * (FIELD_NAMES.index(name) + 1))
        count = sum(len(d) for d in out[name].values())
        print(f"pool {name}: {n} round robins played, {count} deals, {count * SEATS} matches "
              f"({time.perf_counter() - started:.0f} s)", flush=True)
    held = play_pool(FIELDS["family"], holdout, 900_000) if holdout else {}
    if cache is not None:
        cache.write_text(json.dumps({"key": key, "pools": out, "holdout": held}))
    return out, held


# ---------------------------------------------------------------- the model


class World:
    """A field's deals to resample, in one currency, with its exchangeable bots and shifts (the ladder)."""

    def __init__(self, spec: FieldSpec, pool: Pool, currency: int, shift: Sequence[float] = (),
                 clip: float | None = None) -> None:
        self.names = sorted(name for name, _, _ in spec.players)
        self.k = len(self.names)
        index = {name: i for i, name in enumerate(self.names)}
        self.tables = [tuple(t) for t in itertools.combinations(range(self.k), SEATS)]
        self.pair_of = {(a, b): p for p, (a, b) in enumerate(itertools.combinations(range(self.k), 2))}
        self.pairs = list(self.pair_of)
        self.table_pairs = [[(i, j, self.pair_of[t[i], t[j]]) for i, j in itertools.combinations(range(SEATS), 2)]
                            for t in self.tables]
        self.shift = list(shift) or [0.0] * self.k
        self.clip = clip
        self.deals: list[list[tuple[float, ...]]] = []
        groups = [[index[n] for n in group] for group in spec.equal]
        self.swaps: list[list[list[int]]] = []
        for t in self.tables:
            key = "+".join(self.names[b] for b in t)
            self.deals.append([tuple(v[currency] for v in deal) for deal in pool[key]])
            self.swaps.append([[t.index(b) for b in g if b in t] for g in groups if sum(b in t for b in g) > 1])
        self.truth = self._truth()

    def values(self, table: int, rng: random.Random) -> list[float]:
        """One deal of ``table``: each seat's value (lower is better), equal bots' values permuted at random."""
        deal = self.deals[table]
        row = list(deal[rng.randrange(len(deal))])
        for positions in self.swaps[table]:
            got = [row[i] for i in positions]
            rng.shuffle(got)
            for i, v in zip(positions, got):
                row[i] = v
        return row

    def leads(self, table: int, row: Sequence[float]) -> list[tuple[int, float]]:
        """(pair, lead of its first bot over its second) for every pair at the table, shifted and clipped."""
        t = self.tables[table]
        out = []
        for i, j, pair in self.table_pairs[table]:
            x = (row[j] + self.shift[t[j]]) - (row[i] + self.shift[t[i]])
            if self.clip is not None:
                x = max(-self.clip, min(self.clip, x))
            out.append((pair, x))
        return out

    def _truth(self) -> list[float]:
        """Each pair's true lead: the exact mean over its tables (equally weighted), their deals and permutations."""
        sums = [0.0] * len(self.pairs)
        tables = [0] * len(self.pairs)
        for table, deals in enumerate(self.deals):
            per = [0.0] * len(self.pairs)
            count = 0
            for deal in deals:
                choices = [list(itertools.permutations(positions)) for positions in self.swaps[table]]
                for perm in itertools.product(*choices):
                    row = list(deal)
                    for positions, order in zip(self.swaps[table], perm):
                        for i, src in zip(positions, order):
                            row[i] = deal[src]
                    for pair, x in self.leads(table, row):
                        per[pair] += x
                    count += 1
            for _, _, pair in self.table_pairs[table]:
                sums[pair] += per[pair] / count
                tables[pair] += 1
        return [s / n for s, n in zip(sums, tables)]

    def lead(self, a: int, b: int) -> float:
        """The true lead of ``a`` over ``b``."""
        return self.truth[self.pair_of[a, b]] if a < b else -self.truth[self.pair_of[b, a]]


# ---------------------------------------------------------------- the rules


@dataclass(frozen=True)
class Rule:
    """One design: see the module docstring for the names."""

    name: str
    kind: str
    """``today``, ``union``, ``holm``, ``holmall`` or ``stakes``."""
    evalue: str = "gauss"
    adaptive: bool = False
    currency: int = 0
    min_deals: int = TODAY_MIN_DEALS
    cycle_looks: bool = False
    open_all: bool = False
    """``-all``: the tables are chosen for every pair not yet decided either way, not only the order's neighbours
    (what the arena does: the choice then needs no order, so a resumed run makes it again from its stored deals)."""


def parse_rule(name: str, min_deals: int) -> Rule:
    """A rule from its name: ``today-cycle``, ``today-deal``, ``KIND-EVALUE[-adaptive][-points|-corrected][-minN]``."""
    if name in ("today-cycle", "today-deal"):
        return Rule(name, "today", cycle_looks=name == "today-cycle")
    parts = name.split("-")
    if len(parts) < 2 or parts[0] not in ("union", "holm", "holmall", "stakes") or parts[1] not in ("gauss", "bet", "sprt", "mix"):
        raise ValueError(f"unknown rule {name!r}")
    if parts[0] == "stakes" and parts[1] != "bet":
        raise ValueError("stakes needs bet: its accounts move by one deal's factor at a time")
    rule = Rule(name, parts[0], parts[1], min_deals=min_deals if parts[1] != "bet" else 0)
    for part in parts[2:]:
        if part == "adaptive":
            rule = Rule(name, rule.kind, rule.evalue, True, rule.currency, rule.min_deals)
        elif part in CURRENCIES[1:]:
            if rule.evalue == "bet":
                raise ValueError("points have no bound a bet could stake against: use gauss")
            rule = Rule(name, rule.kind, rule.evalue, rule.adaptive, CURRENCIES.index(part), rule.min_deals)
        elif part == "all":
            rule = dataclasses.replace(rule, open_all=True)
        elif part.startswith("min") and part[3:].isdigit():
            rule = Rule(name, rule.kind, rule.evalue, rule.adaptive, rule.currency, int(part[3:]))
        else:
            raise ValueError(f"unknown part {part!r} of rule {name!r}")
    return rule


DEFAULT_RULES = ("today-cycle", "today-deal", "union-gauss", "holm-gauss", "holm-bet", "stakes-bet",
                 "union-gauss-adaptive", "holmall-gauss-adaptive", "holm-gauss-adaptive", "holm-bet-adaptive",
                 "stakes-bet-adaptive", "holm-gauss-adaptive-points", "holm-gauss-adaptive-corrected",
                 "union-gauss-adaptive-corrected", "union-gauss-adaptive-min10", "union-gauss-adaptive-corrected-min10",
                 "holm-gauss-adaptive-min10", "union-sprt-adaptive-all-min10", "union-mix-adaptive-all-min10")
SWEEP_RULES = ("union-gauss-adaptive", "union-gauss-adaptive-min10")
SWEEP_MARGINS = (0.1, 0.15, 0.2, 0.3, 0.4, 0.5)


@dataclass(frozen=True)
class Setting:
    """What every rule shares: the level, the margin (places), the bet's stake, the conversion to points."""

    p: float
    margin: float
    stake: float
    min_sd: float
    target: int
    per_place: tuple[float, float, float]
    """Units of each currency per place (1 for places): converts the margin and the least sd."""


def _rho2(alpha: float, target: int) -> float:
    """The mixture's rho^2, tightest at ``target`` deals for error ``alpha`` (evidence.py's choice)."""
    lam = -2.0 * math.log(alpha)
    return (lam + math.log(lam + 1.0)) / target


def gauss_log_e(n: int, total: float, var: float, rho2: float, min_sd2: float) -> float:
    """log of the one-sided normal-mixture e-value of ``n`` values summing to ``total`` (null: mean <= 0)."""
    z = total / math.sqrt(max(var, min_sd2))
    g = n * rho2 + 1.0
    tail = 0.5 * math.erfc(-math.sqrt(rho2) * z / math.sqrt(2.0 * g))
    if tail <= 0.0:
        return -math.inf
    return math.log(2.0) - 0.5 * math.log(g) + rho2 * z * z / (2.0 * g) + math.log(tail)


SPRT_PRIOR_DEALS = 2.0
SPRT_PRIOR_VARIANCE = 0.5
"""``sprt`` and ``mix``: the variance (places squared) the estimate starts from, as the arena's (``--prior-variance``)."""
MIX_SHIFTS: tuple[float, ...] = (1.0, 2.0, 4.0, 8.0)
"""``mix``: the alternatives, in margins above the null (``--shifts``)."""


def mix_log_e(n: int, lead: float, m2: float, margin: float, prior: float) -> float:
    """log of the mean of Wald's ratios of "the mean lead is -margin + s * margin" over "it is -margin", s in
    MIX_SHIFTS: a mixture of point alternatives, near-equal and far apart alike."""
    var = (max(m2, 0.0) + SPRT_PRIOR_DEALS * prior) / (n - 1 + SPRT_PRIOR_DEALS)
    mean = lead / n
    logs = [n * s * margin * (mean + margin - s * margin / 2.0) / var for s in MIX_SHIFTS]
    top = max(logs)
    return top + math.log(sum(math.exp(v - top) for v in logs) / len(logs))


def sprt_log_e(n: int, lead: float, m2: float, margin: float, prior: float) -> float:
    """log of the likelihood ratio of "the mean lead is 0" over "it is -margin" (normal, the variance regularised by
    SPRT_PRIOR_DEALS deals of ``prior``): Wald's statistic, an e-value against every mean <= -margin."""
    var = (max(m2, 0.0) + SPRT_PRIOR_DEALS * prior) / (n - 1 + SPRT_PRIOR_DEALS)
    return margin / var * (lead + n * margin / 2.0)


@dataclass
class Outcome:
    """One run: matches when it settled (None: not within the cap), a false claim, the order true."""

    matches: int | None
    false: bool = False
    order_true: bool = False


@dataclass
class State:
    """One run's evidence: per pair deals, sum and sum of squares of the lead; per direction the bet's log-wealth
    (and its running maximum), the stakes' accounts."""

    pairs: int
    n: list[int] = field(default_factory=list)
    s: list[float] = field(default_factory=list)
    ss: list[float] = field(default_factory=list)
    logw: list[float] = field(default_factory=list)
    best: list[float] = field(default_factory=list)
    account: list[float] = field(default_factory=list)
    stake: list[float] = field(default_factory=list)
    rejected: list[bool] = field(default_factory=list)
    reserve: float = 1.0

    def __post_init__(self) -> None:
        self.n = [0] * self.pairs
        self.s = [0.0] * self.pairs
        self.ss = [0.0] * self.pairs
        self.logw = [0.0] * (2 * self.pairs)
        self.best = [0.0] * (2 * self.pairs)
        self.account = [0.0] * (2 * self.pairs)
        self.stake = [0.0] * (2 * self.pairs)
        self.rejected = [False] * (2 * self.pairs)

    def variance(self, pair: int) -> float:
        n = self.n[pair]
        if n < 2:
            return 0.0
        mean = self.s[pair] / n
        return max(0.0, self.ss[pair] / n - mean * mean) * n / (n - 1)


def direction(world: World, upper: int, lower: int) -> tuple[int, float]:
    """(index of the hypothesis "upper is worse than lower by the margin or more", sign of upper's lead in the pair's
    stored lead): a pair's direction 0 claims its first bot, 1 its second."""
    if upper < lower:
        return 2 * world.pair_of[upper, lower], 1.0
    return 2 * world.pair_of[lower, upper] + 1, -1.0


class Run:
    """One simulated tournament under one rule."""

    def __init__(self, rule: Rule, world: World, setting: Setting, rng: random.Random) -> None:
        self.rule, self.world, self.setting, self.rng = rule, world, setting, rng
        self.state = State(len(world.pairs))
        unit = setting.per_place[rule.currency]
        self.margin = setting.margin * unit
        self.min_sd2 = (setting.min_sd * unit) ** 2
        self.alpha = 1.0 - setting.p
        neighbours = world.k - 1
        self.m = len(world.pairs) if rule.kind in ("union", "holmall") else neighbours
        self.rho2 = _rho2(self.alpha / self.m, setting.target)
        self.max_stake = setting.stake / (SPREAD - setting.margin) if rule.evalue == "bet" else 0.0
        self.table_count = [0] * len(world.tables)
        self.bot_count = [0] * world.k
        self.first_pass = len(world.tables)
        self.deals = 0

    # -- evidence

    def add(self, table: int) -> None:
        """Draw one deal of ``table`` and add every pair's lead (the bets staked before it is seen)."""
        st, world = self.state, self.world
        row = world.values(table, self.rng)
        bet = self.rule.evalue == "bet"
        for pair, x in world.leads(table, row):
            if bet:
                self._bet(pair, x)
            st.n[pair] += 1
            st.s[pair] += x
            st.ss[pair] += x * x
        self.table_count[table] += 1
        for b in world.tables[table]:
            self.bot_count[b] += 1
        self.deals += 1

    def _bet(self, pair: int, x: float) -> None:
        """Both directions' bets on this deal's lead ``x``, each staked from the deals before it (Kelly, capped)."""
        st = self.state
        n, s = st.n[pair], st.s[pair]
        var = (PRIOR_DEALS * PRIOR_VARIANCE + max(0, n - 1) * st.variance(pair)) / (PRIOR_DEALS + max(0, n - 1))
        for d, sign in ((2 * pair, 1.0), (2 * pair + 1, -1.0)):
            mean = (sign * s + n * self.margin) / (n + PRIOR_MEAN_DEALS) + self.margin * PRIOR_MEAN_DEALS / (
                n + PRIOR_MEAN_DEALS)
            if mean <= 0.0 or st.rejected[d]:
                continue
            lam = min(self.max_stake, mean / (var + mean * mean))
            factor = 1.0 + lam * (sign * x + self.margin)
            st.logw[d] += math.log(factor)
            if st.logw[d] > st.best[d]:
                st.best[d] = st.logw[d]
            if self.rule.kind == "stakes" and st.account[d] > 0.0:
                st.account[d] *= factor
                if st.account[d] >= 1.0 / self.alpha:
                    st.rejected[d] = True

    # -- the board

    def order(self) -> list[int]:
        """The bots by the mean of their leads over every opponent met (best first; ties by name)."""
        st, world = self.state, self.world
        score = [0.0] * world.k
        for pair, (a, b) in enumerate(world.pairs):
            if st.n[pair]:
                lead = st.s[pair] / st.n[pair]
                score[a] += lead
                score[b] -= lead
        return sorted(range(world.k), key=lambda b: (-score[b], b))

    def log_e(self, upper: int, lower: int) -> float:
        """log of the e-value against "upper is worse than lower by the margin or more"."""
        st = self.state
        d, sign = direction(self.world, upper, lower)
        pair = d // 2
        if self.rule.evalue == "bet":
            return st.best[d]
        n = st.n[pair]
        if n < max(1, self.rule.min_deals):
            return -math.inf
        if self.rule.evalue == "mix":
            return mix_log_e(n, sign * st.s[pair], st.ss[pair] - st.s[pair] ** 2 / n, self.margin,
                             SPRT_PRIOR_VARIANCE * self.setting.per_place[self.rule.currency] ** 2)
        if self.rule.evalue == "sprt":
            return sprt_log_e(n, sign * st.s[pair], st.ss[pair] - st.s[pair] ** 2 / n, self.margin,
                              SPRT_PRIOR_VARIANCE * self.setting.per_place[self.rule.currency] ** 2)
        return gauss_log_e(n, sign * st.s[pair] + n * self.margin, st.variance(pair), self.rho2, self.min_sd2)

    def judge(self, order: Sequence[int]) -> tuple[list[int], list[tuple[int, int, str]]]:
        """(the open neighbouring pairs, the claims: (upper, lower, what)) of this order."""
        neighbours = list(zip(order, order[1:]))
        if self.rule.kind == "today":
            return self._today(neighbours)
        if self.rule.kind == "stakes":
            self._fund(neighbours)
            done = [self.state.rejected[direction(self.world, u, lo)[0]] for u, lo in neighbours]
        elif self.rule.kind == "union":
            bound = math.log(self.m / self.alpha)
            done = [self.log_e(u, lo) >= bound for u, lo in neighbours]
        else:
            tested = neighbours if self.rule.kind == "holm" else \
                [(u, lo) for i, u in enumerate(order) for lo in order[i + 1:]]
            values = sorted(((self.log_e(u, lo), i) for i, (u, lo) in enumerate(tested)), reverse=True)
            rejected = [False] * len(tested)
            for step, (value, i) in enumerate(values):
                if value < math.log((len(tested) - step) / self.alpha):
                    break
                rejected[i] = True
            done = [rejected[tested.index(pair)] for pair in neighbours]
        open_pairs = [self.world.pair_of[min(u, lo), max(u, lo)] for (u, lo), ok in zip(neighbours, done) if not ok]
        claims = [(u, lo, "above") for (u, lo), ok in zip(neighbours, done) if ok]
        return open_pairs, claims

    def undecided(self) -> list[int]:
        """Every pair with no claim either way (neither bot shown at most the margin behind the other)."""
        bound = math.log(self.m / self.alpha)
        return [pair for pair, (a, b) in enumerate(self.world.pairs)
                if self.log_e(a, b) < bound and self.log_e(b, a) < bound]

    def _today(self, neighbours: Sequence[tuple[int, int]]) -> tuple[list[int], list[tuple[int, int, str]]]:
        """evidence.judge as shipped: ordered, within the margin, or open."""
        st = self.state
        alpha = today_alpha(self.setting.p, self.world.k)
        open_pairs, claims = [], []
        for u, lo in neighbours:
            d, sign = direction(self.world, u, lo)
            pair = d // 2
            n = st.n[pair]
            mean = sign * st.s[pair] / n if n else 0.0
            half = today_half_width(n, st.variance(pair), alpha) if n >= TODAY_MIN_DEALS else math.inf
            if mean - half > 0:
                claims.append((u, lo, "ordered"))
            elif abs(mean) + half < self.setting.margin:
                claims.append((u, lo, "within"))
            else:
                open_pairs.append(pair)
        return open_pairs, claims

    def _fund(self, neighbours: Sequence[tuple[int, int]]) -> None:
        """The stakes: refunds from accounts that are no longer open neighbours, then the reserve split among the open
        neighbours (none before the first balanced pass is in)."""
        st = self.state
        adjacent = {direction(self.world, u, lo)[0] for u, lo in neighbours}
        for d, stake in enumerate(st.stake):
            if stake > 0.0 and (d not in adjacent or st.rejected[d]):
                back = min(st.account[d], stake)
                st.account[d] -= back
                st.reserve += back
                st.stake[d] = 0.0
        if self.deals < self.first_pass:
            return
        open_d = [d for d in adjacent if not st.rejected[d]]
        if open_d and st.reserve > 0.0:
            share = st.reserve / len(open_d)
            for d in open_d:
                st.account[d] += share
                st.stake[d] += share
                if st.account[d] >= 1.0 / self.alpha:
                    st.rejected[d] = True
            st.reserve = 0.0

    # -- the schedule

    def next_unit(self, open_pairs: Sequence[int]) -> list[int]:
        """The fewest tables seating every open pair (greedy), and one for the least-met pair if it lags."""
        world = self.world
        left = set(open_pairs)
        unit: list[int] = []
        while left:
            best = max(range(len(world.tables)), key=lambda t: (
                sum(pair in left for _, _, pair in world.table_pairs[t]), -self.table_count[t] - unit.count(t),
                -sum(self.bot_count[b] for b in world.tables[t]), -t))
            unit.append(best)
            left -= {pair for _, _, pair in world.table_pairs[best]}
        counts = self.state.n
        least = min(range(len(world.pairs)), key=lambda p: (counts[p], p))
        if 4 * counts[least] < max(counts):
            unit.append(min((t for t in range(len(world.tables))
                             if any(pair == least for _, _, pair in world.table_pairs[t])),
                            key=lambda t: (self.table_count[t], t)))
        return unit

    def play(self, cap: int) -> Outcome:
        """Deals until settled or ``cap`` matches."""
        tables = len(self.world.tables)
        queue = list(range(tables))
        while self.deals * MATCHES_PER_DEAL < cap:
            if not queue:
                if self.rule.adaptive and self.deals >= self.first_pass:
                    undecided = self.undecided() if self.rule.open_all else self.judge(self.order())[0]
                    queue = self.next_unit(undecided) or list(range(tables))
                else:
                    queue = list(range(tables))
            self.add(queue.pop(0))
            if self.rule.cycle_looks and self.deals % tables:
                continue
            order = self.order()
            open_pairs, claims = self.judge(order)
            if not open_pairs:
                return Outcome(self.deals * MATCHES_PER_DEAL, self.false(claims), self.true_order(order))
        return Outcome(None)

    def false(self, claims: Sequence[tuple[int, int, str]]) -> bool:
        """Whether any claim is false against the model's truth (the ladder's boundary pairs count as false when their
        lead is within a thousandth of a place of the margin: its values are clipped to a deal's bounds)."""
        tolerance = 1e-3 * self.setting.per_place[self.rule.currency]
        for u, lo, what in claims:
            lead = self.world.lead(u, lo)
            if what == "ordered" and lead <= 0.0:
                return True
            if what == "within" and abs(lead) >= self.setting.margin:
                return True
            if what == "above" and lead <= -self.margin + tolerance:
                return True
        return False

    def true_order(self, order: Sequence[int]) -> bool:
        """Whether the family's settled order is its true one (other fields: always)."""
        names = [self.world.names[b] for b in order]
        return names == list(FAMILY_TRUE) if set(names) == set(FAMILY_TRUE) else True


# ---------------------------------------------------------------- the bench


def mean_se(values: Sequence[float]) -> tuple[float, float]:
    if not values:
        return math.nan, math.nan
    if len(values) == 1:
        return values[0], math.nan
    return statistics.fmean(values), statistics.stdev(values) / math.sqrt(len(values))


def share(hits: int, total: int) -> tuple[float, float]:
    p = hits / total if total else math.nan
    return p, math.sqrt(p * (1 - p) / total) if total else math.nan


def world_of(name: str, pool: dict[str, Pool], currency: int, setting: Setting) -> World:
    """The field's world in ``currency``; the ladder's bots shifted by their rank in margins of that currency."""
    if name == LADDER:
        unit = setting.per_place[currency]
        step = setting.margin * unit
        return World(FIELDS["streams"], pool["streams"], currency, [i * step for i in range(6)],
                     SPREAD if currency == 0 else None)
    return World(FIELDS[name], pool[name], currency, (), None)


def check_model(pool: Pool, held: Pool) -> tuple[float, float]:
    """Print the family's neighbouring pairs, real held-out deals against the model (the pool, resampled as a round
    robin draws it); return the points and corrected points per place (the ratio of the neighbouring gaps)."""
    world = World(FIELDS["family"], pool, 0)
    names = world.names
    index = {n: i for i, n in enumerate(names)}
    ratios: list[list[float]] = [[], [], []]
    for upper, lower in zip(FAMILY_TRUE, FAMILY_TRUE[1:]):
        a, b = index[upper], index[lower]
        cells = []
        for currency in range(3):
            def leads(source: Pool) -> list[float]:
                out: list[float] = []
                for table, deals in source.items():
                    bots = table.split("+")
                    if upper in bots and lower in bots:
                        out.extend(d[bots.index(lower)][currency] - d[bots.index(upper)][currency] for d in deals)
                return out
            model = World(FIELDS["family"], pool, currency)
            rng = random.Random(f"check/{upper}/{currency}")
            drawn = []
            for _ in range(4000):
                t = rng.choice([t for t, tb in enumerate(model.tables) if a in tb and b in tb])
                row = model.values(t, rng)
                drawn.append(dict((p, x) for p, x in model.leads(t, row))[model.pair_of[min(a, b), max(a, b)]]
                             * (1 if a < b else -1))
            real = leads(held)
            pooled = leads(pool)
            ratios[currency].append(statistics.fmean(pooled))
            if real:
                cells.append(f"{CURRENCIES[currency]} real {statistics.fmean(real):+.2f} sd "
                             f"{statistics.stdev(real):.2f}"
                             f" / model {statistics.fmean(drawn):+.2f} sd {statistics.stdev(drawn):.2f}")
            else:
                cells.append(f"{CURRENCIES[currency]} model {statistics.fmean(drawn):+.2f} sd "
                             f"{statistics.stdev(drawn):.2f}")
        print(f"model check {upper} over {lower}: " + "; ".join(cells), flush=True)
    per = [statistics.fmean(r) / statistics.fmean(ratios[0]) for r in ratios[1:]]
    print(f"model check: {len(next(iter(held.values()), []))} held-out real deals per table against "
          f"{len(next(iter(pool.values())))} in the pool; per place of the neighbouring gaps: {per[0]:.1f} points, "
          f"{per[1]:.1f} corrected points", flush=True)
    return per[0], per[1]


def real_today(runs: int, p: float, margin: float, cap: int) -> None:
    """Today's rule on played round robins of the family (the arena's schedule, a look at each cycle's end, the
    bench's order): the real figure the model's ``today-cycle`` should match."""
    module = load_module("settle_design_heuristic_strategy", BOTS / "lib" / "heuristic_strategy.py")
    spec = FIELDS["family"]
    seats = {name: PolicySeat(_policy(module, q, stream)) for name, q, stream in spec.players}
    names = sorted(seats)
    tables = len(list(itertools.combinations(names, SEATS)))
    begun = time.perf_counter()
    stops: list[float] = []
    for run in range(runs):
        master = 5000 + run
        evidence = ev.PairEvidence()
        played = 0
        for scheduled in round_robin(names, [SEATS], cap // (tables * SEATS) + 1, master):
            match = play([seats[bot] for bot in scheduled.bots], PRESET, scheduled.seed,
                         match_id=opaque_match_id(master, scheduled.match_id), copy_json=False)
            assert match.result is not None
            evidence.add_places(scheduled.match_id, scheduled.bots, match.result.places)
            played += 1
            if played % (tables * SEATS):
                continue
            score = dict.fromkeys(names, 0.0)
            for i, a in enumerate(names):
                for b in names[i + 1:]:
                    n, lead, _ = evidence.of(a, b)
                    score[a] += lead if n else 0.0
                    score[b] -= lead if n else 0.0
            order = sorted(names, key=lambda b: (-score[b], b))
            if today_settled(evidence, order, p, margin):
                stops.append(float(played))
                break
    m, se = mean_se(stops)
    print(f"real check: today's rule on {runs} played round robins of the family: matches to settle = {m:.0f} "
          f"(se {se:.0f}), {len(stops)} settled within {cap} matches ({time.perf_counter() - begun:.0f} s)", flush=True)


def main(argv: Sequence[str] | None = None) -> None:
    global SPRT_PRIOR_VARIANCE, MIX_SHIFTS
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seeds", type=int, default=100, help="runs of the known-strength family per rule (100)")
    parser.add_argument("--runs", type=int, default=400, help="runs of every other field per rule (400)")
    parser.add_argument("--only", default=",".join(DEFAULT_RULES), help="rules, comma separated")
    parser.add_argument("--fields", default=",".join(FIELD_NAMES), help="fields, comma separated")
    parser.add_argument("--p", type=float, default=0.95, help="the level P (0.95)")
    parser.add_argument("--margin", type=float, default=ev.DEFAULT_MARGIN, help="margin in places per match (0.25)")
    parser.add_argument("--stake", type=float, default=0.5, help="the bet's largest stake, share of a deal's "
                        "worst (0.5)")
    parser.add_argument("--min-deals", type=int, default=TODAY_MIN_DEALS, help="gauss: deals of a pair before a "
                        "claim (20)")
    parser.add_argument("--min-sd", type=float, default=TODAY_MIN_SD, help="gauss: least sd, places per match (0.25)")
    parser.add_argument("--target", type=int, default=30, help="gauss: deals at which the mixture is tightest (30)")
    parser.add_argument("--cap", type=int, default=4000, help="most matches of a run (4000)")
    parser.add_argument("--pool", type=int, default=96, help="cycles of the family played for its pool (96)")
    parser.add_argument("--holdout", type=int, default=24, help="cycles of the family held out to check (24)")
    parser.add_argument("--real", type=int, default=0, help="also play this many real round robins of the family "
                        "under today's rule, at cycle ends, as the model's check (0; 30 take about 4 minutes)")
    parser.add_argument("--sweep", default=",".join(SWEEP_RULES), help="rules run again at other margins (on the "
                        "family and the ladder)")
    parser.add_argument("--sweep-margins", default=",".join(map(str, SWEEP_MARGINS)), help="margins of the sweep")
    parser.add_argument("--prior-variance", type=float, default=SPRT_PRIOR_VARIANCE, help="sprt, mix: the variance "
                        "the estimate starts from, places squared (0.5, the arena's)")
    parser.add_argument("--shifts", default=",".join(f"{x:g}" for x in MIX_SHIFTS), help="mix: the alternatives, in "
                        "margins above the null (1,2,4,8)")
    parser.add_argument("--cache", type=Path, default=None, help="a file to keep the played pools in between runs")
    args = parser.parse_args(argv)
    SPRT_PRIOR_VARIANCE = args.prior_variance
    MIX_SHIFTS = tuple(float(x) for x in args.shifts.split(",") if x)
    try:
        rules = [parse_rule(name, args.min_deals) for name in args.only.split(",") if name]
    except ValueError as error:
        parser.error(str(error))
    fields = [f for f in args.fields.split(",") if f]
    if not set(fields) <= set(FIELD_NAMES) or min(args.seeds, args.runs, args.pool, args.cap) < 1 or \
            not 0.5 < args.p < 1 or not 0 < args.margin < SPREAD or not 0 < args.stake < 1:
        parser.error(f"--fields of {', '.join(FIELD_NAMES)}; counts at least 1; 0.5 < --p < 1; "
                     "0 < --margin < 3; 0 < --stake < 1")
    started = time.perf_counter()
    played = sorted({"streams" if f == LADDER else f for f in fields} | {"family"})
    pool, held = pools(played, args.pool, args.holdout, args.cache)
    points, corrected = check_model(pool["family"], held) if held else (25.0, 25.0)
    if args.real:
        real_today(args.real, args.p, args.margin, args.cap)
    setting = Setting(args.p, args.margin, args.stake, args.min_sd, args.target, (1.0, points, corrected))
    results: dict[tuple[str, str], tuple[float, float, int]] = {}
    for rule in rules:
        for name in fields:
            count = args.seeds if name == "family" else args.runs
            results[rule.name, name] = simulate(rule, name, pool, setting, count, args.cap, "settle-design")
    sweep = [parse_rule(name, args.min_deals) for name in args.sweep.split(",") if name]
    for margin in (float(m) for m in args.sweep_margins.split(",") if m):
        for rule in sweep:
            for name in ("family", LADDER) if LADDER in fields else ("family",):
                count = args.seeds if name == "family" else args.runs
                shifted = Setting(args.p, margin, args.stake, args.min_sd, args.target, setting.per_place)
                simulate(rule, name, pool, shifted, count, args.cap, f"settle-design sweep (margin {margin:g})")
    print(f"summary (P {args.p:g}, margin {args.margin:g} places, targets: family M <= 250, every field F <= 0.05):")
    for rule in rules:
        family = results.get((rule.name, "family"))
        worst = max((results[rule.name, n][1] for n in fields), default=math.nan)
        meets = family is not None and family[0] <= 250 and worst <= 0.05
        shown = f"{family[0]:.0f}" if family else "-"
        print(f"  {rule.name}: family M {shown}, worst F {worst:.3f}: "
              f"{'meets both' if meets else 'misses'}", flush=True)
    print(f"({time.perf_counter() - started:.0f} s)")


def simulate(rule: Rule, name: str, pool: dict[str, Pool], setting: Setting, count: int, cap: int,
             head: str) -> tuple[float, float, int]:
    """``count`` runs of ``rule`` on field ``name``: print its line; (mean matches, or inf when some run did not
    settle; false share; runs)."""
    world = world_of(name, pool, rule.currency, setting)
    begun = time.perf_counter()
    outcomes = [Run(rule, world, setting, random.Random(f"{name}/{run}")).play(cap) for run in range(count)]
    settled = [o.matches for o in outcomes if o.matches is not None]
    m, se = mean_se([float(x) for x in settled])
    f, fse = share(sum(o.false for o in outcomes), count)
    extra = f", order true in {sum(o.order_true and o.matches is not None for o in outcomes)}" \
        if name == "family" else ""
    unsettled = count - len(settled)
    print(f"{head}: {rule.name} on {name}: matches to settle = {m:.0f} (se {se:.0f}), false settled = "
          f"{f:.3f} (se {fse:.3f}) over {count} runs ({unsettled} not settled within {cap} matches"
          f"{extra}; median {statistics.median(settled) if settled else math.nan:.0f}; "
          f"{time.perf_counter() - begun:.1f} s)", flush=True)
    return (m if unsettled == 0 else math.inf), f, count


if __name__ == "__main__":
    main()
