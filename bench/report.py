"""The report of a large tournament: build time and what a browser loads.

A made-up store of ``--matches`` (10,000) matches among ``--bots`` (8) bots at tables of
2 and 3 (faults and logs included; see tests/site/synthetic.py), each match given the
replay of a real match with as many seats (from a short real tournament of the bundled bots;
its header renamed to this match and bots, the row given its seed), so the viewer has real
replays to turn into frames (``--no-replays`` leaves them out), is
built into a report. Then one more match is stored and the report rebuilt the way
``arena serve`` does (ratings kept, replay scripts of the last build reused).
Printed: the time of each, and the sizes of index.html (what the issue caps at 2 MB,
with everything it loads at start), matches.html with data/matches.js, the largest bot
page, faults.html and the whole site (bytes on disk, no compression by a web server assumed).

Last line: ``report: N KB/match, cold build S s per 10k matches, rebuild T s`` (the targets: 4 KB,
10 s, 2 s): the whole site's bytes over the matches it shows, the first build's time scaled to
10,000 matches, and the rebuild's.
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import sqlite3
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.site import blocks  # noqa: E402
from arena.site.build import build_report  # noqa: E402
from arena.site.frames import FORMAT, frames_for_file  # noqa: E402
from arena.site.data import RatingHistory, RowCache  # noqa: E402
from tests.site.played import play  # noqa: E402
from tests.site.synthetic import add_match, synthetic_store  # noqa: E402


def loaded_at_start(page: Path) -> int:
    """Bytes of ``page`` and of the local scripts and stylesheets it names (what opening it loads)."""
    text = page.read_text(encoding="utf-8")
    total = len(text.encode())
    for ref in re.findall(r'(?:src|href)="([^"#]+\.(?:js|css))"', text):
        total += (page.parent / ref).stat().st_size
    return total


def give_replays(results: Path, source: Path) -> int:
    """Give every stored match the replay of a real match with as many seats (from ``source``), its
    header naming this match and its bots, and the row that replay's seed; returns how many. Every
    rotation of a made-up deal gets the same real deal, so the report shows it (it withholds a match
    while its deal has a rotation still to play)."""
    real: dict[int, list[tuple[dict[str, Any], bytes]]] = {}
    for path in sorted((source / "replays").glob("*.jsonl.gz")):
        first, rest = gzip.decompress(path.read_bytes()).split(b"\n", 1)
        header = json.loads(first)
        real.setdefault(int(header["players"]), []).append((header, rest))
    db = sqlite3.connect(results / "results.sqlite")
    try:
        seeds = []
        chosen: dict[str, tuple[dict[str, Any], bytes]] = {}
        rows = db.execute("SELECT idx, match_id, seed, bots, replay FROM matches ORDER BY idx").fetchall()
        for idx, match_id, seed, bots, replay in rows:
            names = json.loads(bots)
            header, rest = chosen.setdefault(seed, real[len(names)][idx % len(real[len(names)])])
            mine = {**header, "match": match_id, "bots": names}
            (results / replay).write_bytes(gzip.compress(json.dumps(mine).encode() + b"\n" + rest, 1, mtime=0))
            seeds.append((header["seed"], idx))
        with db:
            db.executemany("UPDATE matches SET seed = ? WHERE idx = ?", seeds)
        return len(rows)
    finally:
        db.close()


def distinct(source: Path) -> str:
    """The bytes a match's frames take in a block when no two matches share a deal: the made-up matches
    above repeat a few dozen real ones (every rotation of a deal the same), which compress better."""
    paths = sorted((source / "replays").glob("*.jsonl.gz"))
    entries = [blocks.Entry(i, str(i), str(i), FORMAT, blocks.frames_line(frames_for_file(p))) for i, p in enumerate(paths)]
    size = len(blocks.encode(0, entries).encode())
    raw = sum(len(e.line.encode()) for e in entries)
    return (f"frames of {len(entries)} distinct real matches in one block: {size / len(entries) / 1024:.1f} KB/match "
            f"({raw / len(entries) / 1024:.1f} KB of JSON each before compression)")


def time_to_usable(out: Path) -> str:
    """Best of three, in the system Chromium (when Playwright and Chromium are here): opening index.html
    until the leaderboard's rows are there, and matches.html until its list is filled."""
    import shutil

    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return "time to usable: not measured (no playwright)"
    if chromium is None:
        return "time to usable: not measured (no chromium)"
    best = {"index": float("inf"), "matches": float("inf")}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        page = browser.new_page()
        for _ in range(3):
            start = time.perf_counter()
            page.goto((out / "index.html").as_uri())
            page.wait_for_selector("table.board tbody tr")
            best["index"] = min(best["index"], time.perf_counter() - start)
            start = time.perf_counter()
            page.goto((out / "matches.html").as_uri())
            page.wait_for_function("/^\\d+ matches$/.test(document.getElementById('match-count').textContent)")
            best["matches"] = min(best["matches"], time.perf_counter() - start)
        browser.close()
    return (f"time to usable (Chromium, file://, best of 3): index.html {best['index']:.2f} s, "
            f"matches.html {best['matches']:.2f} s")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--matches", type=int, default=10_000)
    parser.add_argument("--bots", type=int, default=8)
    parser.add_argument("--no-replays", dest="replays", action="store_false",
                        help="no replay files: time the report without the viewer's frames")
    args = parser.parse_args()
    names = [f"bot{i:02d}" for i in range(args.bots)]
    with tempfile.TemporaryDirectory() as tmp:
        results = Path(tmp) / "results"
        start = time.perf_counter()
        synthetic_store(results, args.matches, names, seats=(2, 3), faulty=names[-2:])
        real = play(Path(tmp) / "real", "standard") if args.replays else None
        linked = give_replays(results, real) if real is not None else 0
        print(f"store: {args.matches:,} matches among {args.bots} bots made in {time.perf_counter() - start:.1f} s"
              f" ({linked:,} with a real replay file)")
        start = time.perf_counter()
        out = build_report(results)
        first = time.perf_counter() - start
        kept, rows = RatingHistory(), RowCache()
        build_report(results, ratings=kept, rows=rows)  # as `arena serve` starts
        add_match(results, args.matches + 10, names[:3], [1, 2, 3])
        start = time.perf_counter()
        build_report(results, ratings=kept, rows=rows)
        again = time.perf_counter() - start
        print(f"build: {first:.2f} s; one match more, rebuilt as `arena serve` does: {again:.2f} s")
        index = out / "index.html"
        matches = out / "matches.html"
        bot_pages = sorted((out / "bots").iterdir(), key=lambda p: p.stat().st_size)
        files = [p for p in out.rglob("*") if p.is_file()]
        site = sum(p.stat().st_size for p in files)
        print(f"index.html {index.stat().st_size / 1024:.0f} KB; with its script and stylesheet "
              f"{loaded_at_start(index) / 1024:.0f} KB (cap 2048 KB)")
        print(f"matches.html with data/matches.js: {loaded_at_start(matches) / 1024:.0f} KB")
        print(f"largest bot page: {bot_pages[-1].name} {bot_pages[-1].stat().st_size / 1024:.0f} KB; "
              f"faults.html {(out / 'faults.html').stat().st_size / 1024:.0f} KB")
        print(f"whole site: {site / 1e6:.1f} MB in {len(files):,} files")
        print(time_to_usable(out))
        if real is not None:
            print(distinct(real))
        print(f"report: {site / 1024 / (args.matches + 1):.1f} KB/match, cold build "
              f"{first * 10_000 / args.matches:.1f} s per 10k matches, rebuild {again:.2f} s")


if __name__ == "__main__":
    main()
