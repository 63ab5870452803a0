"""The replay viewer of a report: ``viewer.html``, its assets and one script per stored match.

Each match's frames (:mod:`arena.site.frames`) go into ``replays/<idx>.js`` as
``window.ARENA_REPLAY = {...}``: a page opened from ``file://`` may not ``fetch()``, but it
may add a ``<script>`` tag, so the viewer loads the match named in its URL on demand.
Matches never change once stored, so a rebuild writes only the scripts that are missing.
A match whose deal is still to be played gets no script and no line in the list
(:mod:`.withhold`); a report passes the matches its pages show, so the two agree.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any, Callable, Collection

from ..game.replay import ReplayError
from .frames import FORMATS, frames_for_file, frames_of, read_replay_file
from .pages import script_json
from .withhold import withheld_in

ASSETS = Path(__file__).parent / "assets"
VIEWER_FILES = ("viewer.html", "viewer.css", "viewer.js")
REPLAYS = "replays"
INDEX = "index.js"
SINGLE_MARKER = ".arena-replay-viewer"
"""A file in every directory :func:`build_single` wrote: only such a directory (or an empty one) is written again."""


class TargetError(Exception):
    """The directory asked for holds something else (a report, anyone's files); the message says what to do."""


def replay_script(frames: dict[str, Any]) -> str:
    """The script that hands one match's frames to the viewer."""
    text = json.dumps(frames, separators=(",", ":"), ensure_ascii=False)
    # Inside <script>, "</" could end the element when inlined; keep the file safe either way.
    return "window.ARENA_REPLAY = " + text.replace("</", "<\\/") + ";\n"


def write_assets(out_dir: Path) -> None:
    """Copy ``viewer.html`` and its stylesheet and script into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in VIEWER_FILES:
        shutil.copyfile(ASSETS / name, out_dir / name)


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def build_viewer(results_dir: Path, out_dir: Path, reuse: Path | None = None,
                 shown: Collection[int] | None = None, say: Callable[[str], None] | None = None) -> list[str]:
    """Write the viewer and a replay script for every stored match of ``results_dir`` into ``out_dir``
    (``shown``: only for the matches of these indices; None: for every one whose deal is whole).

    A match whose script exists in ``out_dir`` is not rebuilt (matches never change once
    stored), nor one whose script ``reuse`` (an earlier build of the same results, e.g. the
    report being replaced) holds for the same match and deal: that one is linked or copied.
    The match list (``replays/index.js``) is written every time.

    A replay that cannot be read (damaged, cut short, too large) does not stop the build: its
    match is listed with ``unreadable`` (why, the path relative to ``results_dir``), which the
    viewer shows instead of the match, and the same line is passed to ``say`` and returned.
    """
    from ..tournament.store import ResultStore  # the store pulls in the tournament machinery

    results_dir, out_dir = Path(results_dir), Path(out_dir)
    write_assets(out_dir)
    replays = out_dir / REPLAYS
    replays.mkdir(parents=True, exist_ok=True)
    store = ResultStore(results_dir, readonly=True)
    try:
        rows = list(store.rows())
        if shown is None:
            hidden = withheld_in(store, rows)
            shown = {int(row["idx"]) for row in rows if int(row["idx"]) not in hidden}
        return _build(results_dir, replays, rows, shown, reuse, say, store.decision_times)
    finally:
        store.close()


def _build(results_dir: Path, replays: Path, rows: list[dict[str, Any]], shown: Collection[int],
           reuse: Path | None, say: Callable[[str], None] | None,
           times_of: Callable[[int], list[float | None] | None]) -> list[str]:
    """The scripts and the list of :func:`build_viewer`; ``times_of`` gives a match's stored decision times."""
    listing: list[dict[str, Any]] = []
    notes: list[str] = []
    for row in rows:
        idx = int(row["idx"])
        if idx not in shown:
            continue
        listing.append({"idx": idx, "match": row["match_id"], "bots": row["bots"], "totals": row["totals"],
                        "places": row["places"], "forfeited": row["forfeited"], "ms": _timing(row.get("stats"))})
        target = replays / f"{idx}.js"
        if target.exists() or not row.get("replay"):
            continue
        if reuse is not None and _reused(Path(reuse) / REPLAYS / target.name, target, row):
            continue
        source = results_dir / str(row["replay"])
        if not source.is_file():
            continue
        try:
            if not _in_replays(results_dir, source):  # only the store's own replay files are read
                raise ReplayError(f"{row['replay']}: not a file of the results directory's replays/")
            frames = frames_for_file(source, times_of(idx))
        except ReplayError as exc:  # one bad file costs its own match's viewer, not the report
            why = str(exc).replace(str(source), str(row["replay"]))
            listing[-1]["unreadable"] = why
            notes.append(f"match {idx} ({row['match_id']}): replay unreadable: {why}; the report shows the rest")
            if say is not None:
                say(notes[-1])
            continue
        frames["idx"] = idx
        _write_atomically(target, replay_script(frames))
    _write_atomically(replays / INDEX, script_json("ARENA_MATCHES", listing))
    return notes


def _timing(stats: Any) -> list[list[float] | None] | None:
    """Per seat, [mean, slowest] milliseconds a decision of this match, as stored with its row (None for a
    seat that decided nothing); None when the row has no timings. Replays hold no times: they are the
    same bytes each time a match is played again, and a time never is (each decision's time is in the
    store's ``decision_times``, shown at its step)."""
    if not isinstance(stats, list) or not stats:
        return None
    return [[round(s["think_ms"] / s["decisions"], 1), round(s["max_ms"], 1)] if s["decisions"] else None
            for s in stats]


def _in_replays(results_dir: Path, source: Path) -> bool:
    """True if ``source`` is inside ``results_dir/replays`` (after resolving ``..`` and links)."""
    base = (results_dir / "replays").resolve()
    return base in source.resolve().parents


def _reused(old: Path, target: Path, row: dict[str, Any]) -> bool:
    """Link (or copy) an earlier build's script of this match into place, if it is this match's."""
    try:
        with old.open(encoding="utf-8") as handle:
            head = handle.read(8192)
    except OSError:
        return False
    if not any(f'"format":"{known}"' in head for known in FORMATS):  # an older arena's frames: made anew
        return False
    for key in ("match", "seed"):  # the same index in another tournament is another match
        if f'"{key}":' + json.dumps(row[key + "_id" if key == "match" else key], ensure_ascii=False) not in head:
            return False
    try:
        os.link(old, target)
    except OSError:
        shutil.copyfile(old, target)
    return True


def check_single_target(out_dir: Path) -> None:
    """Refuse a directory that :func:`build_single` did not make and that is not empty: a tournament's
    report (its viewer would lose its matches and its pages would link a single match) or anyone's files."""
    from .build import MARKER  # the report's marker (build imports this module)

    if out_dir.is_symlink() or (out_dir.exists() and not out_dir.is_dir()):
        raise TargetError(f"{out_dir} exists and is not a directory; give a new or empty directory")
    if out_dir.is_dir() and not (out_dir / SINGLE_MARKER).is_file() and any(out_dir.iterdir()):
        what = ("a tournament's report" if (out_dir / MARKER).is_file()
                else "files that arena replay --html did not write")
        raise TargetError(f"{out_dir} holds {what}; give a new or empty directory (or one an earlier "
                          "arena replay --html wrote)")


def build_single(replay: Path, out_dir: Path, idx: int = 0) -> Path:
    """A viewer for one replay file (``arena play``'s): ``out_dir/viewer.html`` showing it as match ``idx``.

    ``out_dir`` must be new, empty or an earlier such viewer (:class:`TargetError` otherwise); the page
    has no report to go back to, so its match list says so and it shows no link to one.
    Returns the page's path; open it with ``#match=<idx>``.
    """
    out_dir = Path(out_dir)
    check_single_target(out_dir)
    header, records = read_replay_file(Path(replay))
    frames = frames_of(Path(replay), header, records)  # a file that cannot be shown writes nothing
    write_assets(out_dir)
    (out_dir / SINGLE_MARKER).write_text("written by arena replay --html: it writes this directory again\n",
                                         encoding="utf-8")
    replays = out_dir / REPLAYS
    replays.mkdir(parents=True, exist_ok=True)
    frames["idx"] = idx
    _write_atomically(replays / f"{idx}.js", replay_script(frames))
    result = frames["result"]
    listing = [{"idx": idx, "match": frames["match"], "bots": frames["bots"], "totals": result["totals"],
                "places": result["places"], "forfeited": result["forfeited"]}]
    _write_atomically(replays / INDEX, script_json("ARENA_MATCHES", listing) + "window.ARENA_REPORT = false;\n")
    return out_dir / "viewer.html"
