"""The ladder at scale: picking a table, storing a match, printing the leaderboard.

1. Matchmaking: a synthetic field of ``--bots`` (1,000) bots of hidden strengths, tables
   of 2, 3 and 4 seats, results made up from the strengths and fed back out of order
   (``--in-flight`` matches in play), twenty bots submitted and ten retired along the
   way, until ``--matches`` (100,000) matches were handed out. Timed: each call that
   draws a table (the field read, the fairness floor, the pick, queueing the rotations).
2. Storing: those matches go into a real ladder store (rows and each seat's luck inserted
   in bulk, the kept ratings those of the run, the kept pair and luck sums counted as a
   ladder run's start counts them), then ``--store-samples`` more are stored the way the
   driver stores them: rated, replay file written, row, luck, kept ratings and kept sums in
   one transaction.
3. Leaderboard: ``arena leaderboard`` on that store as a new process (interpreter start
   included), best of ``--board-runs`` (5), alternated with ``arena --version`` (the start
   every command pays: the interpreter and the CLI's imports); then its phases, timed in one
   more process that makes the board step by step as the command does. ``--only
   leaderboard`` runs parts 1-3 alone; ``--store DIR`` keeps the ladder store in DIR, and
   reuses it (parts 1 and 2 skipped) when DIR holds one already.
4. A short real run: the bundled bots on a ladder, to show the whole path works, and its
   kept ratings checked against a recomputation.
5. Throughput beside a round robin: the same four bundled bots at tables of 4 under
   ``bwrap`` on 2 workers, ``--throughput-matches`` (120) matches as a round robin and as
   a ladder, alternated, each run in a fresh output directory; the best of
   ``--throughput-runs`` (3) of each counts, since timings on a shared machine swing.
   Timed over their play (the pool's start to its last result: a ladder runs for weeks,
   its start once), and over the whole run, which adds about a second for a ladder
   building its snapshots in a fresh directory. ``--only throughput`` runs this part alone.

Last lines: ``ladder: arena leaderboard of B bots / M matches as a new process = Z s (best of N)``
(target <= 1 s), ``ladder: pick X us, store Y ms, leaderboard Z s`` (targets: pick <= 1000 us,
store <= 2 ms, leaderboard <= 1 s), then ``ladder: throughput ladder/round-robin = R``
(target >= 0.8).
"""

from __future__ import annotations

import argparse
import dataclasses
import gzip
import io
import json
import os
import random
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Iterable, Iterator

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.bots import BotSpec  # noqa: E402
from arena.execute import local  # noqa: E402
from arena.match.runner import MatchOutcome, SeatStats  # noqa: E402
from arena.tournament.config import load_config  # noqa: E402
from arena.tournament.driver import run_tournament  # noqa: E402
from arena.tournament.ladder.entries import ACTIVE, Entry  # noqa: E402
from arena.tournament.ladder.kept import Kept, read  # noqa: E402
from arena.tournament.rating import RatingFold, RatingParams, model_of, rate  # noqa: E402
from arena.tournament.records import MatchRecord, record_of  # noqa: E402
from arena.tournament.schedules.base import ScheduledMatch  # noqa: E402
from arena.tournament.ladder.matchmaking import LadderSchedule  # noqa: E402
from arena.tournament.store import ResultStore  # noqa: E402

SEATS = (2, 3, 4)
PLACEMENT = 5
LUCK_MODEL = "1@0123456789abcdef"
"""The value function a made-up match's luck is said to come from (arena.luck.model_label's form)."""


def made_up_luck(rng: random.Random, seats: int) -> tuple[float, ...]:
    """Each seat's luck, rounded as the runner stores it (arena.luck.LUCK_DIGITS)."""
    return tuple(round(rng.gauss(0, 3), 3) for _ in range(seats))


class Field:
    """The synthetic field: who is active, and each bot's hidden strength."""

    def __init__(self, bots: int, rng: random.Random) -> None:
        self.rng = rng
        self._active: list[Entry] | None = None
        self.entries: list[Entry] = []
        self.strength: dict[str, float] = {}
        for _ in range(bots):
            self.submit()

    def submit(self) -> None:
        name = f"bot{len(self.entries):04d}"
        entry = Entry(name, 1, "d" * 64, f"/snapshots/{name}", f"/authors/{name}", time.time(), ACTIVE)
        self.entries.append(entry)
        self.strength[entry.key] = self.rng.gauss(0, 1)
        self._active = None

    def retire(self) -> None:
        index = self.rng.randrange(len(self.entries))
        self.entries[index] = dataclasses.replace(self.entries[index], status="retired")
        self._active = None

    def active(self) -> list[Entry]:
        """The same list until the field changes, as the store's reader gives it to a running ladder."""
        if self._active is None:
            self._active = [e for e in self.entries if e.status == ACTIVE]
        return self._active

    def result(self, match: ScheduledMatch) -> MatchRecord:
        order = sorted(match.bots, key=lambda b: -(self.strength[b] + self.rng.gauss(0, 1)))
        places = tuple(order.index(b) + 1 for b in match.bots)
        return MatchRecord(match.index, match.match_id, match.bots, places, tuple(p * 7 for p in places),
                           (False,) * len(places), ())


def matchmaking(args: argparse.Namespace) -> tuple[list[float], list[float], list[tuple[ScheduledMatch, MatchRecord]],
                                                     Field, LadderSchedule]:
    """Hand out ``args.matches`` matches. Returns the seconds of every call that drew a table, less the
    time its rating fold took to rate the results that came back (timed apart, per match), and the matches."""
    rng = random.Random(1)
    field = Field(args.bots, rng)
    schedule = LadderSchedule(field.active, lambda e: BotSpec(name=e.key, command=("x",)), SEATS, "standard", 1,
                              RatingParams(), PLACEMENT)
    schedule.resume(set(), [])
    rating: list[float] = []
    add = schedule._fold.add

    def timed(record: MatchRecord) -> None:
        start = time.perf_counter()
        add(record)
        rating.append(time.perf_counter() - start)

    schedule._fold.add = timed  # type: ignore[method-assign]
    picks: list[float] = []
    played: list[tuple[ScheduledMatch, MatchRecord]] = []
    in_play: list[ScheduledMatch] = []
    handed = 0
    while handed < args.matches:
        if handed and handed % (args.matches // 20) == 0 and len(field.entries) < args.bots + 20:
            field.submit()
            if len(field.entries) % 2:
                field.retire()
        drawing = not schedule._queue
        rated = len(rating)
        start = time.perf_counter()
        batch = schedule.next_batch()
        took = time.perf_counter() - start - sum(rating[rated:])
        if batch:
            if drawing:
                picks.append(took)
            in_play.append(batch[0])
            handed += 1
        if in_play and (len(in_play) >= args.in_flight or not batch):
            match = in_play.pop(rng.randrange(len(in_play)))
            record = field.result(match)
            schedule.finished(match, record)
            played.append((match, record))
    for match in in_play:
        record = field.result(match)
        schedule.finished(match, record)
        played.append((match, record))
    return picks, rating, played, field, schedule


def outcome_of(match: ScheduledMatch, record: MatchRecord, replay: bytes, rng: random.Random) -> MatchOutcome:
    seats = len(match.bots)
    return MatchOutcome(match.match_id, match.seed, match.bots, record.totals, record.places, record.forfeited, (),
                        "target", ((0,) * seats,), 40 * seats, 0.05, 0.04,
                        tuple(SeatStats(40, 12.0, 1.5, 20.0) for _ in range(seats)), "none", replay,
                        tuple("" for _ in range(seats)), luck=made_up_luck(rng, seats), luck_model=LUCK_MODEL)


def build_store(directory: Path, field: Field, played: list[tuple[ScheduledMatch, MatchRecord]],
                replay: bytes) -> None:
    """A ladder store holding ``played`` as the driver would have left it (kept ratings, luck and kept sums
    included)."""
    store = ResultStore(directory)
    rng = random.Random(2)
    try:
        store.claim("bench", {"name": "bench", "schedule": "ladder"}, None)
        store.set_meta("rating", RatingParams().stored())
        store.set_meta("ladder", {"placement_matches": PLACEMENT})
        with store.transaction():  # rows made up as the driver would have stored them
            store._db.executemany("INSERT INTO ladder_bots VALUES (?, ?, ?, ?, ?, ?, ?)",
                                  [tuple(e.__dict__.values()) for e in field.entries])
            rows = []
            for match, record in played:
                stats = json.dumps([{"decisions": 40, "think_ms": 12.0, "max_ms": 1.5, "startup_ms": 20.0}] *
                                   len(match.bots))
                rows.append((match.index, match.match_id, match.seed, 1, match.rotation, json.dumps(match.bots),
                             json.dumps(record.places), json.dumps(record.totals), json.dumps(record.forfeited),
                             "target", "[[0]]", "[]", 40, 0.05, stats, "none", f"replays/{match.index:06d}.jsonl.gz",
                             time.time()))
            store._db.executemany(f"INSERT INTO matches VALUES ({', '.join('?' * 18)})", rows)
            store._db.executemany("INSERT INTO luck VALUES (?, ?, ?)", [
                (match.index, LUCK_MODEL, json.dumps(made_up_luck(rng, len(match.bots)))) for match, _ in played])
            kept = Kept(model_of(RatingParams()))
            fold = RatingFold(RatingParams(), [], [r for _, r in played], on_rate=lambda r: kept.count(
                r.index, r.bots, time.time()))
            kept.ratings = fold.ratings
            kept.save(store.ladder)
        store.ladder.keep_sums()  # as a ladder run's start counts the matches it finds
    finally:
        store.close()


def storing(directory: Path, schedule: LadderSchedule, field: Field, samples: int, replay: bytes) -> list[float]:
    """Seconds to store each of ``samples`` more matches as the driver does."""
    store = ResultStore(directory)
    try:
        kept = read(store.ladder, RatingParams())
        fold = RatingFold(RatingParams(), [], initial=kept.ratings, after=kept.through,
                          on_rate=lambda r: kept.count(r.index, r.bots, time.time()))
        kept.ratings = fold.ratings
        rng = random.Random(3)
        times = []
        for _ in range(samples):
            batch = schedule.next_batch()
            while not batch:
                batch = schedule.next_batch()
            match = batch[0]
            record = field.result(match)
            outcome = outcome_of(match, record, replay, rng)
            start = time.perf_counter()
            fold.expect([match.index])
            fold.add(record_of(match, outcome))
            store.record(match, outcome, time.time(), kept.save)
            times.append(time.perf_counter() - start)
            schedule.finished(match, record)
        return times
    finally:
        store.close()


def leaderboard(directory: Path, runs: int) -> tuple[float, float, str]:
    """Best of ``runs`` wall times of ``arena leaderboard DIRECTORY`` as a user runs it (a new process), and of
    ``arena --version`` alternated with it (a new process that starts the interpreter and imports the CLI, and
    does nothing more: what every command pays), and the board's first line."""
    board, start_only, first = float("inf"), float("inf"), ""
    for _ in range(runs):
        for command in (["leaderboard", str(directory)], ["--version"]):
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "arena.cli", *command], cwd=ROOT, capture_output=True,
                                  text=True, check=True)
            took = time.perf_counter() - start
            if command[0] == "leaderboard":
                board, first = min(board, took), done.stdout.splitlines()[0]
            else:
                start_only = min(start_only, took)
    return board, start_only, first


PHASES = r"""
import sys, time
start = time.perf_counter()
marks = []
def mark(name):
    global start
    now = time.perf_counter()
    marks.append((name, now - start))
    start = now
import arena.cli
mark("import arena.cli (what the arena command imports before it runs one)")
from arena.site.withhold import held_back
from arena.tournament.confidence import rank_intervals
from arena.tournament.kinds import reading
from arena.tournament.ladder import board as ladder_board, kept as ladder_kept, paired
from arena.tournament.standings import ladder_board as ladder_rows, read
from arena.tournament.store import ResultStore
mark("import the leaderboard's own modules")
store = ResultStore(sys.argv[1], readonly=True)
ladder = reading(store).keeps_ratings
mark("open the store")
results = read(store, records=False)
store.count()
mark("read the standings (entries, kept ratings, the pairs' deals, luck)")
held_back(store)
mark("count the matches held back")
rows = ladder_rows(results)
mark("the board's rows (ranking, rank intervals, tiers, P(>next))")
replays = paired.read(store.ladder)
mark("the new versions against their previous ones (replays)")
ladder_board.LadderBoard(rows, replays, results.params.model).terminal()
mark("render")
print("\n".join(f"{seconds * 1000:.0f}\t{name}" for name, seconds in marks))
# the parts of the reads above, each timed again on its own
read(store, records=False, kept=False)
mark("  of the standings: entries, meta, voided")
ladder_kept.read(store.ladder, results.params)
mark("  of the standings: kept ratings")
if hasattr(ladder_board, "stored_evidence"):  # guarded: the phases are also timed on other versions of the arena
    ladder_board.stored_evidence(store.ladder)
    mark("  of the standings: the pairs' deals and luck, as the board reads them")
if hasattr(store.ladder, "kept_sums"):
    store.ladder.kept_sums()
    mark("  (the kept pair and luck sums alone: tables ladder_pairs, ladder_luck)")
ranked = [row for row in rows if row.rank is not None]
rank_intervals({f"{row.name}@v{row.version}": results.kept.ratings[f"{row.name}@v{row.version}"] for row in ranked})
mark(f"  of the board's rows: rank intervals of {len(ranked)} ranked bots")
print("\n".join(f"{seconds * 1000:.0f}\t{name}" for name, seconds in marks if name.startswith("  ")))
"""
"""Makes the board step by step as ``arena leaderboard`` does (arena/cli.py), timing each step; then times parts of
the first steps again alone. Prints ``milliseconds<TAB>phase`` lines."""


def phases(directory: Path) -> list[tuple[float, str]]:
    """The leaderboard's phases in a new process: (seconds, name), the interpreter's own start first."""
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - start
    done = subprocess.run([sys.executable, "-c", PHASES, str(directory)], cwd=ROOT, capture_output=True, text=True,
                          check=True, env={**os.environ, "PYTHONPATH": str(ROOT)})
    out = [(bare, "start the interpreter (python -c pass)")]
    for line in done.stdout.splitlines():
        ms, _, name = line.partition("\t")
        out.append((float(ms) / 1000, name))
    return out


def stored_size(directory: Path) -> tuple[int, int]:
    """Entries and stored matches of the ladder store in ``directory``."""
    db = sqlite3.connect(f"file:{directory / 'results.sqlite'}?mode=ro", uri=True)
    try:
        return (int(db.execute("SELECT COUNT(*) FROM ladder_bots").fetchone()[0]),
                int(db.execute("SELECT COUNT(*) FROM matches").fetchone()[0]))
    finally:
        db.close()


def time_leaderboard(directory: Path, runs: int) -> tuple[float, str]:
    """Prints the leaderboard's time and its phases; returns the time and the figure's line."""
    board_s, start_s, first = leaderboard(directory, runs)
    bots, matches = stored_size(directory)
    print(f"arena leaderboard (a new process, best of {runs}): {board_s:.2f} s; arena --version beside it "
          f"{start_s:.2f} s, so the board's own work is {board_s - start_s:.2f} s ({board_s / start_s:.1f}x the "
          f"start); it says '{first}'")
    print("its phases (one more process, each step as the command makes it):")
    for seconds, name in phases(directory):
        print(f"  {seconds * 1000:6.0f} ms  {name}")
    return board_s, (f"ladder: arena leaderboard of {bots:,} bots / {matches:,} matches as a new process = "
                     f"{board_s:.2f} s (best of {runs})")


def real_run(directory: Path) -> str:
    """A short ladder of the bundled bots: matches per second, and whether its kept ratings are exact."""
    lines = ["name: bench-ladder", "schedule: ladder", "seats: [2, 3, 4]", "seed: 1", "sandbox: none", "workers: 2",
             f"output: {directory / 'out'}", "bots:"] + [f"  - {ROOT / 'bots' / b}" for b in
                                                          ("random", "heuristic", "c-random", "js-greedy")]
    path = directory / "ladder.yaml"
    path.write_text("\n".join(lines) + "\n")
    start = time.perf_counter()
    summary = run_tournament(load_config(path), out=io.StringIO(), max_matches=60)
    seconds = time.perf_counter() - start
    db = sqlite3.connect(directory / "out" / "results.sqlite")
    kept = {p: (mu, sigma) for p, mu, sigma in db.execute("SELECT player, mu, sigma FROM ladder_ratings")}
    db.close()
    store = ResultStore(directory / "out", readonly=True)
    again = {k: (r.mu, r.sigma) for k, r in rate(store.records(), RatingParams(), []).items()}
    store.close()
    return (f"real run: {summary.played} matches of the bundled bots in {seconds:.1f} s (2 workers, sandbox none), "
            f"kept ratings {'equal' if kept == again else 'DIFFER FROM'} a recomputation")


THROUGHPUT_BOTS = ("random", "heuristic", "js-greedy", "c-random")


def timed_run(directory: Path, ladder: bool, matches: int, sandbox: str) -> tuple[int, float, float, list[int], int]:
    """One run of the four bundled bots at tables of 4 on 2 workers in a fresh ``directory``: a ladder
    stopped after ``matches``, or a round robin of ``matches`` (cycles of 4 rotations). Returns the matches
    stored, the seconds the whole run took, the seconds of its play (from the pool's start to its last
    result: without what comes before, such as building a ladder's snapshots, or the board after), the
    length of each batch handed out, and the bot processes started (seats whose process started for that
    match: a process kept from an earlier match or batch has no start-up time)."""
    kind = ["schedule: ladder", "seats: [4]"] if ladder else ["seats: 4", f"cycles: {max(1, matches // 4)}"]
    lines = ["name: bench-throughput", *kind, "seed: 7", f"sandbox: {sandbox}", "workers: 2",
             f"output: {directory / 'out'}", "bots:"] + [f"  - {ROOT / 'bots' / b}" for b in THROUGHPUT_BOTS]
    path = directory / "tournament.yaml"
    path.write_text("\n".join(lines) + "\n")
    marks: list[float] = []
    lengths: list[int] = []
    starts = [0]
    pool = local.run_jobs

    def timed_pool(batches: Iterable[list[Any]], *args: Any, **kwargs: Any) -> Iterator[Any]:
        def counted() -> Iterator[list[Any]]:
            for batch in batches:
                if batch:
                    lengths.append(len(batch))
                yield batch
        marks.append(time.perf_counter())
        for result in pool(counted(), *args, **kwargs):
            yield result
            marks[1:] = [time.perf_counter()]
            outcome = getattr(result, "outcome", None)
            starts[0] += sum(s.startup_ms is not None for s in outcome.stats) if outcome is not None else 0

    local.run_jobs = timed_pool  # type: ignore[assignment]
    try:
        start = time.perf_counter()
        summary = run_tournament(load_config(path), out=io.StringIO(), max_matches=matches if ladder else None)
        whole = time.perf_counter() - start
    finally:
        local.run_jobs = pool
    return summary.played, whole, marks[-1] - marks[0], lengths, starts[0]


def throughput(matches: int, runs: int, sandbox: str) -> float:
    """Matches per second of a round robin and of a ladder on the same field, alternated, best of ``runs``
    each, over their play and over the whole run; prints both and returns ladder / round robin over their play
    (throughput: what a ladder that runs for weeks gets; the whole run adds its start, the ladder's building
    its snapshots in a fresh directory included)."""
    best = {"round robin": (0.0, 0.0), "ladder": (0.0, 0.0)}
    ratios: list[float] = []  # ladder / the round robin just before it, over their play
    for _ in range(runs):
        rates: list[float] = []
        for name in best:
            with tempfile.TemporaryDirectory() as tmp:
                played, whole, play, lengths, starts = timed_run(Path(tmp), name == "ladder", matches, sandbox)
            print(f"  {name}: {played} matches in {play:.2f} s of play, {played / play:.1f} matches/s "
                  f"({whole:.2f} s for the whole run, {played / whole:.1f} matches/s); {len(lengths)} batches of "
                  f"{min(lengths)}-{max(lengths)} matches, {starts} bot processes started", flush=True)
            best[name] = (max(best[name][0], played / play), max(best[name][1], played / whole))
            rates.append(played / play)
        ratios.append(rates[1] / rates[0])
    robin, ladder = best["round robin"], best["ladder"]
    print(f"throughput ({', '.join(THROUGHPUT_BOTS)} at tables of 4, sandbox {sandbox}, 2 workers, {matches} "
          f"matches, round robin and ladder alternated, best of {runs} each): round robin {robin[0]:.1f} "
          f"matches/s, ladder {ladder[0]:.1f} matches/s over their play; over the whole run {robin[1]:.1f} and "
          f"{ladder[1]:.1f} (ladder/round-robin {ladder[1] / robin[1]:.2f}); the median of the run-by-run "
          f"ratios over their play: {statistics.median(ratios):.2f}")
    return ladder[0] / robin[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--bots", type=int, default=1000)
    parser.add_argument("--matches", type=int, default=100_000)
    parser.add_argument("--in-flight", type=int, default=8, help="matches in play at once (results out of order)")
    parser.add_argument("--store-samples", type=int, default=300)
    parser.add_argument("--throughput-matches", type=int, default=120)
    parser.add_argument("--throughput-runs", type=int, default=3)
    parser.add_argument("--sandbox", default="bwrap", help="the throughput part's sandbox (default bwrap)")
    parser.add_argument("--board-runs", type=int, default=5, help="new processes timed for the leaderboard")
    parser.add_argument("--only", choices=["throughput", "leaderboard"], help="run this part alone (leaderboard: "
                        "with the matchmaking and the store it reads)")
    parser.add_argument("--store", type=Path, help="keep the ladder store in this directory; reuse it (no "
                        "matchmaking, no storing) when it holds one already")
    args = parser.parse_args()
    if args.only == "throughput":
        ratio = throughput(args.throughput_matches, args.throughput_runs, args.sandbox)
        print(f"ladder: throughput ladder/round-robin = {ratio:.2f}")
        return
    if args.store is not None and (args.store / "results.sqlite").is_file():
        print(f"the ladder store in {args.store}, as an earlier run of this bench left it")
        print(time_leaderboard(args.store, args.board_runs)[1])
        return
    buffer = io.BytesIO()
    with gzip.GzipFile(fileobj=buffer, mode="wb", mtime=0) as out:
        out.write(b'{"type": "header"}\n' + b'{"type": "move", "seat": 0, "action": "draw"}\n' * 200)
    replay = buffer.getvalue()

    start = time.perf_counter()
    picks, rating, played, field, schedule = matchmaking(args)
    print(f"matchmaking: {len(played):,} matches at {len(picks):,} tables for {len(field.entries):,} bots "
          f"({len(field.active()):,} active) in {time.perf_counter() - start:.1f} s, "
          f"{len(schedule.floor.windows)} fairness windows")
    pick_us = statistics.mean(picks) * 1e6
    print(f"pick a table: mean {pick_us:.0f} us, median {statistics.median(picks) * 1e6:.0f} us, "
          f"99th percentile {sorted(picks)[int(len(picks) * 0.99)] * 1e6:.0f} us (rating updates not included)")
    print(f"the matchmaker's own rating fold: mean {statistics.mean(rating) * 1e6:.0f} us per match (trueskill; "
          "the driver rates each match once more for the store, counted in 'store')")
    with tempfile.TemporaryDirectory() as tmp:
        store_dir = args.store or Path(tmp) / "ladder"
        build_store(store_dir, field, played, replay)
        times = storing(store_dir, schedule, field, args.store_samples, replay)
        store_ms = statistics.median(times) * 1e3
        print(f"store a match (rate, replay file, row, luck, kept ratings and kept sums in one transaction) into a "
              f"store of {len(played):,}: median {store_ms:.2f} ms, mean {statistics.mean(times) * 1e3:.2f} ms "
              f"over {len(times)}")
        board_s, figure = time_leaderboard(store_dir, args.board_runs)
        if args.only == "leaderboard":
            print(figure)
            return
        print(real_run(Path(tmp)))
    ratio = throughput(args.throughput_matches, args.throughput_runs, args.sandbox)
    print(figure)
    print(f"ladder: pick {pick_us:.0f} us, store {store_ms:.2f} ms, leaderboard {board_s:.2f} s")
    print(f"ladder: throughput ladder/round-robin = {ratio:.2f}")


if __name__ == "__main__":
    main()
