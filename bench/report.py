"""The report of a large tournament: build time and what a browser loads.

A made-up store of ``--matches`` (10,000) matches among ``--bots`` (8) bots at tables of
2 and 3 (faults and logs included; see tests/site/synthetic.py), each match given the
replay of a real match with as many seats (from a short real tournament of the bundled bots;
its header renamed to this match and bots, the row given its seed), and the viewer's frames of it
stored with the match, as a run with a report stores them (``--no-frames``: none, so the report
makes them from the replays; ``--no-replays``: no replays either), is built into a report. Then
one more match is stored and the report rebuilt the way ``arena serve`` does (ratings, decoded
rows and what was made of them kept, the blocks, match list chunks and bot pages of the last
build that did not change linked): the first
build is made without the last match, whose deal is then not whole, so storing it shows its
deal's matches and their block is made again.
Printed: the time of each, and the sizes of index.html (what the issue caps at 2 MB,
with everything it loads at start), matches.html with the chunks of its match list, the largest
bot page, faults.html and the whole site (bytes on disk, no compression by a web server assumed).

``--public``: the report ``arena serve`` shows strangers, with no bot's log (the stored frames unpacked, their
log lines taken out, packed again: its cost over a normal build is the difference of the two runs' times).

``--league``: instead of all that, run the bundled league (``tournaments/league.yaml``, 200 matches at 4
seats, real bots under its sandbox) as a user does and print its report's bytes a match, the viewer's
replay blocks among them: what users run, and the figure the 4 KB target holds to (the made-up store's
tables are of 2 and 3 seats, whose frames are smaller).

Last line: ``report: N KB/match, cold build S s per 10k matches, rebuild T s`` (the targets: 4 KB,
10 s, 2 s): the whole site's bytes over the matches it shows, the first build's time scaled to
10,000 matches, and the rebuild's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import resource
import sqlite3
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.game.framepack import packed_frames  # noqa: E402
from arena.game.replay import load_replay  # noqa: E402
from arena.luck.replayed import replayed_terms  # noqa: E402
from arena.site import blocks  # noqa: E402
from arena.site.build import build_report  # noqa: E402
from arena.site.frames import FORMAT, frames_for_file  # noqa: E402
from arena.site.data import RatingHistory, RowCache  # noqa: E402
from tests.site.played import play  # noqa: E402
from tests.site.synthetic import put_back, synthetic_store  # noqa: E402


CORES = os.cpu_count() or 1


def cpu_seconds() -> float:
    """CPU time of this process and of its children that have ended (a build's workers end with it): what a
    build costs whatever else the machine runs, where its time in seconds depends on that."""
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def loaded_at_start(page: Path) -> int:
    """Bytes of ``page`` and of the local scripts and stylesheets it names (what opening it loads)."""
    text = page.read_text(encoding="utf-8")
    total = len(text.encode())
    for ref in re.findall(r'(?:src|href)="([^"#]+\.(?:js|css))"', text):
        total += (page.parent / ref).stat().st_size
    return total


def give_replays(results: Path, source: Path, upto: int | None = None, frames: bool = True) -> int:
    """Give every stored match (``upto``: of an index below it) the replay of a real match with as many
    seats (from ``source``), its header naming this match and its bots, and the row that replay's seed;
    returns how many. Every
    rotation of a made-up deal gets the same real deal, so the report shows it (it withholds a match
    while its deal has a rotation still to play). ``frames``: each match's viewer frames stored with it, as a
    run with a report stores them (made here, in a pool of processes, before the clock starts)."""
    real: dict[int, list[tuple[dict[str, Any], bytes]]] = {}
    for path in sorted((source / "replays").glob("*.jsonl.gz")):
        first, rest = gzip.decompress(path.read_bytes()).split(b"\n", 1)
        header = json.loads(first)
        real.setdefault(int(header["players"]), []).append((header, rest))
    db = sqlite3.connect(results / "results.sqlite")
    try:
        seeds = []
        chosen: dict[str, tuple[dict[str, Any], bytes]] = {}
        rows = db.execute("SELECT idx, match_id, seed, bots, replay FROM matches WHERE idx < ? ORDER BY idx",
                          (upto if upto is not None else 1 << 62,)).fetchall()
        for idx, match_id, seed, bots, replay in rows:
            names = json.loads(bots)
            header, rest = chosen.setdefault(seed, real[len(names)][idx % len(real[len(names)])])
            mine = {**header, "match": match_id, "bots": names}
            (results / replay).write_bytes(gzip.compress(json.dumps(mine).encode() + b"\n" + rest, 1, mtime=0))
            seeds.append((header["seed"], idx))
        with db:
            db.executemany("UPDATE matches SET seed = ? WHERE idx = ?", seeds)
        if frames:  # as a run with a report has them: made by the worker that played the match, stored with it
            paths = [str(results / replay) for _, _, _, _, replay in rows]
            with ProcessPoolExecutor(CORES) as pool:
                packed = list(pool.map(_packed, paths, chunksize=64))
            with db:
                db.executemany("INSERT OR REPLACE INTO frames VALUES (?, ?, ?, ?)",
                               [(row[0], *made) for row, made in zip(rows, packed) if made is not None])
        return len(rows)
    finally:
        db.close()


def _packed(path: str) -> tuple[str, str, bytes] | None:
    """The frames a worker would have made of the match of this replay file (none of its times are stored; the
    luck its meter would have measured, measured here again)."""
    header, records = load_replay(Path(path))
    return packed_frames(gzip.decompress(Path(path).read_bytes()), [], replayed_terms(header, records))


def hold_back(results: Path) -> tuple[Any, ...]:
    """Take the last stored match out of the store (its deal then has a rotation to play, so the report
    withholds the others), returning its row for :func:`put_back`."""
    db = sqlite3.connect(results / "results.sqlite")
    try:
        row = db.execute("SELECT * FROM matches ORDER BY idx DESC LIMIT 1").fetchone()
        with db:
            db.execute("DELETE FROM matches WHERE idx = ?", (row[0],))
        return tuple(row)
    finally:
        db.close()


def distinct(source: Path) -> str:
    """The bytes a match's frames take in a block when no two matches share a deal: the made-up matches
    above repeat a few dozen real ones (every rotation of a deal the same), which compress better."""
    paths = sorted((source / "replays").glob("*.jsonl.gz"))
    entries = [blocks.Entry.of(i, str(i), str(i), FORMAT, blocks.frames_line(frames_for_file(p))) for i, p in enumerate(paths)]
    size = len(blocks.encode(0, entries).encode())
    raw = sum(len(e.line.encode()) for e in entries)
    return (f"frames of {len(entries)} distinct real matches in one block: {size / len(entries) / 1024:.1f} KB/match "
            f"({raw / len(entries) / 1024:.1f} KB of JSON each before compression)")


PAGES: tuple[tuple[str, str, str], ...] = (
    ("index.html", "index.html", "document.querySelector('table.board tbody tr')"),
    ("matches.html", "matches.html", "/^\\d+ matches$/.test(document.getElementById('match-count').textContent)"),
    ("matches.html by seconds, page 50", "matches.html#sort=seconds&desc=1&page=50",
     "document.querySelectorAll('#matches tbody tr').length > 0"),
    ("headtohead.html", "headtohead.html", "document.readyState === 'complete'"),
    ("faults.html", "faults.html", "document.readyState === 'complete'"),
    ("largest bot page", "", "document.readyState === 'complete'"),
    ("viewer.html", "viewer.html", "window.ArenaViewer && window.ArenaViewer.state().steps > 0"),
)
"""What each page's usable means: the test the page passes once a person can use it."""


def time_to_usable(out: Path, pages: tuple[tuple[str, str, str], ...] = PAGES[:2]) -> str:
    """Best of three, in the system Chromium (when Playwright and Chromium are here): opening each page
    until it is usable (``pages``: by default index.html until the leaderboard's rows are there, and
    matches.html until its list is filled)."""
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "time to usable: not measured (no playwright)"
    if chromium is None:
        return "time to usable: not measured (no chromium)"
    largest = max((out / "bots").iterdir(), key=lambda p: p.stat().st_size)
    best = {name: float("inf") for name, _, _ in pages}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        for _ in range(3):
            for name, address, usable in pages:
                page = browser.new_page()  # a new page each time: no leftover of the one before
                start = time.perf_counter()
                page.goto((out / (address or f"bots/{largest.name}")).as_uri().replace("%23", "#"))
                page.wait_for_function(usable, timeout=120_000)
                best[name] = min(best[name], time.perf_counter() - start)
                page.close()
        browser.close()
    return "time to usable (Chromium, file://, best of 3): " + ", ".join(f"{n} {t:.2f} s" for n, t in best.items())


LEAGUE = Path(__file__).resolve().parents[1] / "tournaments" / "league.yaml"


def league() -> str:
    """Run the bundled league with its report (``arena run``, its own sandbox and bots) into a temporary
    folder, then the report's bytes over its matches, and the viewer's replay blocks' share."""
    import subprocess

    import yaml

    config = yaml.safe_load(LEAGUE.read_text())
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "league"
        config["output"] = str(out)
        config["bots"] = [str((LEAGUE.parent / bot).resolve()) for bot in config["bots"]]
        copy = Path(tmp) / "league.yaml"
        copy.write_text(yaml.safe_dump(config))
        arena = Path(sys.executable).with_name("arena")
        done = subprocess.run([str(arena), "run", str(copy)], capture_output=True, text=True, timeout=1800)
        if done.returncode != 0:
            raise SystemExit(f"the league did not run: {done.stderr.strip()[-400:]}")
        report = out / "report"
        files = [p for p in report.rglob("*") if p.is_file()]
        size = sum(p.stat().st_size for p in files)
        frames = sum(p.stat().st_size for p in (report / "replays").glob("b*.js"))
        matches = len(list((out / "replays").glob("*.jsonl.gz")))
    return (f"report (the bundled league, {config['seats']} seats, {matches} matches): {size / 1024 / matches:.1f} "
            f"KB/match ({size / 1024:.0f} KB in {len(files)} files), of it the viewer's replay blocks "
            f"{frames / 1024 / matches:.1f} KB/match (target 4 KB/match)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--no-replays", dest="replays", action="store_false",
                        help="no replay files: time the report without the viewer's frames")
    parser.add_argument("--replayed", type=int, default=None, metavar="N",
                        help="only the matches of an index below N get a replay file (a ladder of 100,000 in minutes)")
    parser.add_argument("--no-frames", dest="frames", action="store_false",
                        help="no frames stored with the matches: the report makes them from the replays, as for the "
                             "results of a run without a report (or of an older arena)")
    parser.add_argument("--ladder", action="store_true", help="the store of a ladder, not of a sampled tournament")
    parser.add_argument("--every-page", action="store_true",
                        help="time to usable of every kind of page (the viewer, a bot page, the last page of the "
                             "match list ...), not only index.html and matches.html")
    parser.add_argument("--public", action="store_true", help="a public build: no bot's log anywhere")
    parser.add_argument("--league", action="store_true",
                        help="instead: run the bundled league (tournaments/league.yaml, 4 seats) as a user does and "
                             "measure the report it writes, the figure the 4 KB a match target is held to")
    args = parser.parse_args()
    if args.league:
        print(league())
        return
    names = [f"bot{i:02d}" for i in range(args.bots)]
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        start = time.perf_counter()
        synthetic_store(results, args.matches, names, seats=(2, 3), faulty=names[-2:], ladder=args.ladder)
        real = play(Path(tmp) / "real", "standard") if args.replays else None
        linked = give_replays(results, real, args.replayed, args.frames) if real is not None else 0
        last = hold_back(results)
        print(f"store: {args.matches:,} matches among {args.bots} bots made in {time.perf_counter() - start:.1f} s"
              f" ({linked:,} with a real replay file)")
        start, cpu = time.perf_counter(), cpu_seconds()
        out = build_report(results, public=args.public)
        first, cpu = time.perf_counter() - start, cpu_seconds() - cpu
        kept, rows = RatingHistory(), RowCache()
        build_report(results, ratings=kept, rows=rows, public=args.public)  # as `arena serve` starts
        put_back(results, last)  # the last match of a deal is stored: its deal's matches are shown
        start = time.perf_counter()
        build_report(results, ratings=kept, rows=rows, public=args.public)
        again = time.perf_counter() - start
        print(f"build: {first:.2f} s ({cpu:.1f} s of CPU, this process and its workers: at best {cpu / CORES:.1f} s "
              f"on {CORES} idle cores); one match more, rebuilt as `arena serve` does: {again:.2f} s")
        index = out / "index.html"
        matches = out / "matches.html"
        bot_pages = sorted((out / "bots").iterdir(), key=lambda p: p.stat().st_size)
        files = [p for p in out.rglob("*") if p.is_file()]
        site = sum(p.stat().st_size for p in files)
        print(f"index.html {index.stat().st_size / 1024:.0f} KB; with its script and stylesheet "
              f"{loaded_at_start(index) / 1024:.0f} KB (cap 2048 KB)")
        print(f"matches.html with its match list chunks: {loaded_at_start(matches) / 1024:.0f} KB")
        print(f"largest bot page: {bot_pages[-1].name} {bot_pages[-1].stat().st_size / 1024:.0f} KB; "
              f"faults.html {(out / 'faults.html').stat().st_size / 1024:.0f} KB")
        print(f"whole site: {site / 1e6:.1f} MB in {len(files):,} files")
        print(time_to_usable(out, PAGES if args.every_page else PAGES[:2]))
        if real is not None:
            print(distinct(real))
        print(f"report{' (public)' if args.public else ''}: {site / 1024 / args.matches:.1f} KB/match, cold build "
              f"{first * 10_000 / args.matches:.1f} s per 10k matches, rebuild {again:.2f} s")


if __name__ == "__main__":
    main()
