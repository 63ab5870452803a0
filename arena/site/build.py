"""Write the whole report site of a results directory, swapped in at once.

The site is written into a new directory beside the target, then exchanged with it (an
atomic ``renameat2(RENAME_EXCHANGE)`` on Linux, else two renames), so a web server serving
the target never serves half a site; the old one is removed afterwards. A directory that
is not an arena report is never replaced: the marker file says which are. The replay viewer
(:mod:`.viewer`) is written into the same new directory before the swap, its frames made in
other processes while the pages are written, with the matches the pages show and no other (a match whose deal is still to be played is withheld:
:mod:`.withhold`).

A rebuild by ``arena serve`` (which keeps its :class:`.data.RatingHistory` and :class:`.data.RowCache`)
writes again only what changed: the chunks of the match list (:mod:`.chunks`) and the bot pages
(:mod:`.linked`) that hold the same as in the report being replaced are hard-linked from it, so the
new site is the same bytes a first build writes, made in a fraction of the time.

A public build (``public=True``, what ``arena serve`` shows strangers) writes no line a bot wrote on
stderr anywhere: no log tail under a fault, no log line in the viewer's frames (:mod:`.public`); and its
board counts and rates only the deals played out (:func:`.data.public_view`).
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import os
import shutil
import tempfile
import time
from collections import Counter
from itertools import chain
from pathlib import Path
from typing import Any, Callable

from . import data, pages
from .chunks import MatchChunks
from .linked import LinkedFiles, Same
from .viewer import start_viewer

REPORT_DIR = "report"
"""The report's directory inside a results directory, by default."""
MARKER = ".arena-report"
"""A file in every report directory: only a directory holding it is replaced by a new build."""
ASSETS = Path(__file__).parent / "assets"
ASSET_FILES = ("report.css", "report.js")
PUBLIC_MARKER = ".arena-public"
"""A file in every public report (and in no other): a server for strangers serves a report only if it holds it
(:func:`is_public`), as a run's own report, written into ``OUTPUT/report`` every few minutes, shows the logs."""
VERSION_FILE = "version.json"
"""What a served page polls to learn that a newer report exists (its ``version``)."""


class ReportError(Exception):
    """The report cannot be written where asked; the message says why and what to do."""


def default_out(results_dir: Path) -> Path:
    return Path(results_dir) / REPORT_DIR


def write_site(snapshot: data.Snapshot, target: Path, ratings: data.RatingHistory | None = None,
               kept: data.RowCache | None = None, reuse: Path | None = None, public: bool = False) -> dict[str, Any]:
    """Every page and data file of ``snapshot`` into the (empty) directory ``target`` (``ratings``: see
    :func:`data.compute`; ``kept``: the row cache ``snapshot`` was read with, holding what earlier builds made
    of its rows; ``reuse``: the report being replaced, whose unchanged match list chunks and bot pages are linked;
    ``public``: no bot's log in any page, and nothing of a deal still in play: :func:`data.public_view`); returns
    what it wrote about."""
    if public:
        snapshot = data.public_view(snapshot)
    computed = data.compute(snapshot, ratings)
    rows = data.leaderboard_rows(computed.board)
    summary = data.summary(snapshot)
    version = data.version(snapshot)
    faults = data.fault_list(snapshot, None if kept is None else kept.faults)
    shown = data.shown_rows(snapshot)

    (target / "bots").mkdir(parents=True)
    (target / "data").mkdir()
    (target / "assets").mkdir()
    for name in ASSET_FILES:
        shutil.copyfile(ASSETS / name, target / "assets" / name)

    def write(relative: str, text: str) -> None:
        (target / relative).write_text(text, encoding="utf-8")

    write("index.html", pages.index_page(rows, summary, version, data.ladder_board(snapshot, computed.board)))
    write("headtohead.html", pages.headtohead_page(data.head_to_head(computed.board), summary, version))
    write("faults.html", pages.faults_page(faults, rows, summary, version, public))
    written = (MatchChunks() if kept is None else kept.chunks).write(shown, target, reuse)
    write("matches.html", pages.matches_page([r["bot"] for r in rows], summary, version, written))
    write(pages.SUMMARY_JS, pages.summary_js(summary, version))
    by_bot_faults: dict[str, list[dict[str, Any]]] = {}
    for fault in faults:
        by_bot_faults.setdefault(fault["bot"], []).append(fault)
    played, latest = _latest_matches(shown, pages.BOT_MATCHES)
    linked = LinkedFiles() if kept is None else kept.pages
    linked.begin()
    static = (summary["name"], summary["preset"], summary["ladder"], public)  # the header facts a bot page holds
    for row in rows:  # a bot page is written again only when what it shows changed: its bot played, mostly
        bot, path = row["bot"], f"bots/{row['page']}.html"
        history, own, mine = computed.history.get(bot, []), by_bot_faults.get(bot, []), latest.get(bot, [])
        key = (static, row, history, [Same(f) for f in own], [Same(m) for m in mine], played.get(bot, 0))
        if not linked.link(path, key, target, reuse):
            write(path, pages.bot_page(row, history, own, [data.match_entry(m) for m in mine], summary, version,
                                       played.get(bot, 0), public))
            linked.wrote(path, key, target)
    linked.done()
    write(VERSION_FILE, json.dumps({"version": version, "matches": summary["matches"]}) + "\n")
    write(MARKER, "an arena report: `arena report` replaces this directory as a whole\n")
    if public:
        write(PUBLIC_MARKER, "a public arena report: no line any bot wrote on stderr\n")
    return {"version": version, "matches": summary["matches"], "bots": len(rows)}


def is_public(report: Path) -> bool:
    """True if ``report`` is a whole report built public (:data:`PUBLIC_MARKER`)."""
    return (Path(report) / MARKER).is_file() and (Path(report) / PUBLIC_MARKER).is_file()


def _latest_matches(shown: list[dict[str, Any]], count: int) -> tuple[dict[str, int], dict[str, list[dict[str, Any]]]]:
    """How many of the ``shown`` rows each bot played, and the rows of its latest ``count`` (oldest first)."""
    played = Counter(chain.from_iterable(row["bots"] for row in shown))
    latest: dict[str, list[dict[str, Any]]] = {}
    left = {bot: min(n, count) for bot, n in played.items()}
    wanting = sum(left.values())
    for row in reversed(shown):
        if not wanting:
            break
        for bot in row["bots"]:
            if left[bot]:
                latest.setdefault(bot, []).append(row)
                left[bot] -= 1
                wanting -= 1
    return dict(played), {bot: entries[::-1] for bot, entries in latest.items()}


def _exchange(a: Path, b: Path) -> bool:
    """Swap two directories atomically (Linux ``renameat2``); False where that is not available."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        renameat2 = libc.renameat2
    except (OSError, AttributeError):
        return False
    at_fdcwd, exchange = -100, 2
    result = renameat2(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), exchange)
    return bool(result == 0)


def _swap_in(new: Path, out: Path) -> None:
    """Put the finished site ``new`` where ``out`` is, removing the old one."""
    if not out.exists():
        os.rename(new, out)
        return
    if _exchange(new, out):
        shutil.rmtree(new, ignore_errors=True)  # ``new`` now holds the old site
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.rename(out, old / "site")
    try:
        os.rename(new, out)
    except BaseException:  # a Ctrl-C between the two renames: the old site goes back, never no site
        os.rename(old / "site", out)
        shutil.rmtree(old, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


STALE_SECONDS = 3600.0
"""A half-written site left by a build that was killed is removed by a later build once this old."""


def remove_stale(out: Path, now: float | None = None) -> list[Path]:
    """Remove the temporary directories of killed builds of ``out`` (older than :data:`STALE_SECONDS`,
    so a build running beside this one is left alone); returns those removed."""
    now = time.time() if now is None else now
    removed = []
    for path in out.parent.glob(f".{out.name}.*-*"):
        if path.name.startswith((f".{out.name}.new-", f".{out.name}.old-")) and path.is_dir() \
                and not path.is_symlink() and now - path.stat().st_mtime > STALE_SECONDS:
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
    return removed


def check_target(out: Path) -> None:
    """Refuse to replace a directory that is not an earlier report (or empty)."""
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ReportError(f"{out} exists and is not a directory; choose another output directory")
    if out.is_dir() and not (out / MARKER).is_file() and any(out.iterdir()):
        raise ReportError(f"{out} is not empty and not an arena report; choose another output directory")


def build_report(results_dir: Path, out_dir: Path | None = None, ratings: data.RatingHistory | None = None,
                 say: Callable[[str], None] | None = None, rows: data.RowCache | None = None,
                 public: bool = False) -> Path:
    """Write the report of ``results_dir`` into ``out_dir`` (default ``results_dir/report``) as a whole,
    the replay viewer included; returns ``out_dir``. ``ratings``: kept by a caller that builds the
    same directory again and again (``arena serve``), so only new matches are rated; ``rows``, kept so too,
    so that only new rows are decoded. ``say`` is told
    of each match whose replay could not be read (the viewer lists it as unreadable; the rest is built).
    ``public``: a report for strangers, with no line any bot wrote on stderr (see the module's docstring).

    Raises ``FileNotFoundError`` (no results here), ``StoreMismatch`` or :class:`ReportError`.
    """
    results_dir = Path(results_dir)
    out = Path(out_dir) if out_dir is not None else default_out(results_dir)
    snapshot = data.read_snapshot(results_dir, rows)  # first: a directory without results gets that error
    check_target(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    remove_stale(out)
    new = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    try:
        os.chmod(new, 0o755)  # mkdtemp makes 0700; a report is meant to be read by others
        shown = {int(row["idx"]) for row in data.shown_rows(snapshot)}  # not what was stored since the snapshot
        viewer = start_viewer(results_dir, new, reuse=out if (out / MARKER).is_file() else None,  # blocks reused
                              shown=shown, say=say, rows=snapshot.rows, memo=None if rows is None else rows.viewer,
                              public=public)
        try:
            # while the viewer's frames are made in other processes
            write_site(snapshot, new, ratings, rows, out if (out / MARKER).is_file() else None, public)
            viewer.finish()
        finally:
            viewer.close()
        _swap_in(new, out)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    return out

