"""The replay viewer of a report: ``viewer.html``, its assets and the matches' frames in blocks.

Each match's frames (:mod:`arena.site.frames`) go, compressed, into the block file of its
index (:mod:`.blocks`: ``replays/b<k>.js``, :data:`.blocks.BLOCK` matches a file); the viewer
loads the block of the match named in its URL on demand. A public build's blocks hold no bot's log
(:mod:`.public`: their frames are stripped as the block is written, and their header says so, so that
a build of the other kind neither links nor keeps them). Matches never change once stored, so
a rebuild links an earlier build's blocks that still hold the same matches and writes only
the blocks that gained one, keeping the frames of the others. Frames are made in a pool of
processes when there are many. A match whose deal is still to be played is in no block and
has no line in the list (:mod:`.withhold`); a report passes the matches its pages show, so
the two agree.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import multiprocessing
import os
import shutil
import signal
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection

from ..game import framepack
from ..game.replay import ReplayError
from . import blocks
from .frames import FORMATS, frames_for_file, frames_of, read_replay_file
from .pages import json_piece, script_json, script_json_list, script_value
from .public import public_entry
from .withhold import withheld_in

ASSETS = Path(__file__).parent / "assets"
VIEWER_FILES = ("viewer.html", "viewer.css", "viewer.js")
REPLAYS = "replays"
INDEX = "index.js"
LIST_FIELDS = ("idx", "match", "bots", "totals", "places", "forfeited", "ms", "unreadable")
"""What ``replays/index.js`` says of each match shown, in this order, as an array (a ladder's list of 100,000
matches is read at every visit: no key is written 100,000 times): ``forfeited`` is 0 when no seat forfeited,
``ms`` null without timings, and ``unreadable`` (why its replay cannot be shown) only when it cannot."""
SINGLE_MARKER = ".arena-replay-viewer"
"""A file in every directory :func:`build_single` wrote: only such a directory (or an empty one) is written again."""


class TargetError(Exception):
    """The directory asked for holds something else (a report, anyone's files); the message says what to do."""


def write_assets(out_dir: Path) -> None:
    """Copy ``viewer.html`` and its stylesheet and script into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name in VIEWER_FILES:
        shutil.copyfile(ASSETS / name, out_dir / name)


def _write_packing(replays: Path) -> None:
    """Write ``replays/packing.js`` (:data:`blocks.PACKING_FILE`) unless it holds this arena's packing already (a
    rebuild writes nothing that did not change)."""
    path, text = replays / blocks.PACKING_FILE, blocks.packing_script()
    try:
        if path.read_text(encoding="utf-8") == text:
            return
    except (OSError, UnicodeDecodeError):
        pass
    _write_atomically(path, text)


def _write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    os.replace(tmp, path)


def build_viewer(results_dir: Path, out_dir: Path, reuse: Path | None = None,
                 shown: Collection[int] | None = None, say: Callable[[str], None] | None = None,
                 rows: list[dict[str, Any]] | None = None, public: bool = False) -> list[str]:
    """Write the viewer and the blocks of frames of every stored match of ``results_dir`` into ``out_dir``
    (``shown``: only for the matches of these indices; None: for every one whose deal is whole;
    ``rows``: the store's rows, when the caller has read them already).

    A block that ``out_dir`` holds with the same matches is not rebuilt (matches never change once
    stored); one that ``reuse`` (an earlier build of the same results, e.g. the report being
    replaced) holds with the same matches and deals is linked or copied; of any other, the frames
    of the matches an earlier block holds are kept, the others made. The match list
    (``replays/index.js``) is written every time.

    A replay that cannot be read (damaged, cut short, too large) does not stop the build: its
    match is listed with ``unreadable`` (why, the path relative to ``results_dir``), which the
    viewer shows instead of the match, and the same line is passed to ``say`` and returned.
    """
    making = start_viewer(results_dir, out_dir, reuse, shown, say, rows, public=public)
    try:
        return making.finish()
    finally:
        making.close()


class ViewerMemo:
    """What a viewer build made of the rows, kept between builds by ``arena serve`` (with its row cache, which
    hands out the same object for a row it did not read again), so that a rebuild does not make it again for
    every match: each shown match's entry in the match list with its JSON, and, of each block that could not
    be linked, which of its matches have a replay file (a replay is written before its match is stored, and
    not after: looked at again only when the block's rows change)."""

    def __init__(self) -> None:
        self.entries: dict[int, tuple[dict[str, Any], list[Any], str]] = {}  # idx -> (row, entry, JSON)
        # block -> its rows, and those of them with a replay file
        self.present: dict[int, tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]] = {}


def start_viewer(results_dir: Path, out_dir: Path, reuse: Path | None = None,
                 shown: Collection[int] | None = None, say: Callable[[str], None] | None = None,
                 rows: list[dict[str, Any]] | None = None, memo: ViewerMemo | None = None,
                 public: bool = False) -> ViewerBuild:
    """:func:`build_viewer`, begun: the blocks to make are being made (in workers, when there are many)
    while the caller does other work (the report writes its pages); :meth:`ViewerBuild.finish` waits for
    them and writes the match list, :meth:`ViewerBuild.close` stops what is left (always call it).
    ``memo``: kept from an earlier build of the same results (:class:`ViewerMemo`); ``public``: frames without
    any bot's log (:mod:`.public`)."""
    from ..tournament.store import ResultStore  # the store pulls in the tournament machinery

    results_dir, out_dir = Path(results_dir), Path(out_dir)
    write_assets(out_dir)
    replays = out_dir / REPLAYS
    replays.mkdir(parents=True, exist_ok=True)
    _write_packing(replays)
    store = ResultStore(results_dir, readonly=True)
    try:
        rows = list(store.rows()) if rows is None else rows
        if shown is None:
            hidden = withheld_in(store, rows)
            shown = {int(row["idx"]) for row in rows if int(row["idx"]) not in hidden}
        listing, tasks = _plan(results_dir, replays, rows, shown, reuse, store.decision_times, memo,
                               store.packed_frames, public)
    finally:
        store.close()
    return ViewerBuild(replays, listing, tasks, say, memo)


@dataclass
class BlockTask:
    """One block to write: the frames it keeps from an earlier block or has from the store (packed when their
    match was played), and the matches whose frames are to be made, each as (idx, match id, seed, replay path
    relative to ``results_dir``, decision times); ``public``: written without any bot's log."""

    block: int
    path: str
    results_dir: str
    kept: list[blocks.Entry]
    todo: list[tuple[int, str, str, str, list[float | None] | None]]
    public: bool = False


def _plan(results_dir: Path, replays: Path, rows: list[dict[str, Any]], shown: Collection[int],
          reuse: Path | None, times_of: Callable[[int], list[float | None] | None], memo: ViewerMemo | None = None,
          packed_of: Callable[[Collection[int]], dict[int, tuple[str, str, bytes]]] = lambda indices: {},
          public: bool = False) -> tuple[list[list[Any]], list[BlockTask]]:
    """The match list of :func:`build_viewer` and the blocks to write (those linked from an earlier build are
    linked here); ``times_of`` gives a match's stored decision times; ``memo``: see :class:`ViewerMemo`;
    ``packed_of`` the stored frames of matches (frames format, packing, bytes) by index; ``public``: see
    :func:`start_viewer`."""
    listing: list[list[Any]] = []
    wanted: dict[int, dict[int, dict[str, Any]]] = {}  # block -> idx -> row, the matches with a replay to show
    entries: dict[int, tuple[dict[str, Any], list[Any], str]] = {}
    for row in rows:
        idx = int(row["idx"])
        if idx not in shown:
            continue
        known = None if memo is None else memo.entries.get(idx)
        if known is None or known[0] is not row:
            entry = _listed(idx, row["match_id"], row["bots"], row["totals"], row["places"], row["forfeited"],
                            _timing(row.get("stats")))
            known = (row, entry, "" if memo is None else json_piece(entry))
        entries[idx] = known
        listing.append(known[1])
        if row.get("replay"):
            wanted.setdefault(blocks.block_of(idx), {})[idx] = row
    tasks: list[BlockTask] = []
    present: dict[int, tuple[list[dict[str, Any]], dict[int, dict[str, Any]]]] = {}
    for block, members in sorted(wanted.items()):
        name = blocks.block_name(block)
        if not _linked(replays / name, members, public=public) and not (
                reuse is not None and _linked(Path(reuse) / REPLAYS / name, members, public=public)):
            # the block changed, or a replay file is gone: only the matches whose file is there (looked at only now:
            # a stat of every replay would be a tenth of a rebuild)
            before = None if memo is None else memo.present.get(block)
            if before is not None and len(before[0]) == len(members) and all(
                    a is b for a, b in zip(before[0], members.values())):
                present[block] = before
                members = before[1]
            else:
                checked = {idx: row for idx, row in members.items() if (results_dir / str(row["replay"])).is_file()}
                present[block] = (list(members.values()), checked)
                members = checked
        if not members or _linked(replays / name, members, public=public) or (
                reuse is not None and _linked(Path(reuse) / REPLAYS / name, members, replays / name, public)):
            continue
        kept = _old_entries(replays / name, reuse, members, public)
        made = {e.idx for e in kept}
        kept += _stored(packed_of([idx for idx in members if idx not in made]), members)
        made = {e.idx for e in kept}
        tasks.append(BlockTask(block, str(replays / name), str(results_dir), kept,
                               [(idx, str(row["match_id"]), str(row["seed"]), str(row["replay"]), times_of(idx))
                                for idx, row in members.items() if idx not in made], public))
    if memo is not None:
        memo.entries, memo.present = entries, present
    return listing, tasks


def _stored(packed: dict[int, tuple[str, str, bytes]], members: dict[int, dict[str, Any]]) -> list[blocks.Entry]:
    """The entries of the matches whose frames the store holds, packed as this arena packs them (others, packed
    by another version's dictionary or in another frames format, are made anew from their replays)."""
    packing = framepack.packing()
    return [blocks.Entry(idx, _deal(members[idx]), frames_format, data)
            for idx, (frames_format, how, data) in sorted(packed.items())
            if idx in members and how == packing and frames_format in FORMATS]


POOL_FROM = 48
"""Fewer matches to make frames of than this are made in this process: starting workers costs more."""
PUBLIC_COST = 12
"""Taking the logs out of a match's frames (:mod:`.public`) costs about this share of making them."""


class ViewerBuild:
    """The blocks of a viewer being written (:func:`start_viewer`): in a pool of processes, one per core, when
    there are many frames to make, so that they are made while the report writes its pages."""

    def __init__(self, replays: Path, listing: list[list[Any]], tasks: list[BlockTask],
                 say: Callable[[str], None] | None, memo: ViewerMemo | None = None) -> None:
        self.replays, self.listing, self.tasks, self.say, self.memo = replays, listing, tasks, say, memo
        making = sum(len(task.todo) for task in tasks)
        making += sum(len(task.kept) for task in tasks if task.public) // PUBLIC_COST  # the logs taken out
        workers = min(os.cpu_count() or 1, len(tasks), making // POOL_FROM + 1)
        self.pool: ProcessPoolExecutor | None = None
        self.futures: list[tuple[BlockTask, Future[list[tuple[int, str]]]]] = []
        if workers > 1:
            # Spawned, not forked: ``arena serve`` builds while its threads serve.
            self.pool = ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"),
                                            initializer=_die_with_parent, initargs=(os.getpid(),))
            for task in sorted(tasks, key=lambda t: -len(t.todo)):  # the longest first: the workers end together
                self.futures.append((task, self.pool.submit(make_block, task)))

    def finish(self) -> list[str]:
        """Wait for the blocks, then write the match list (a match whose replay cannot be read is marked so);
        returns the notes about those, each also passed to ``say``."""
        results = [self._result(task, future) for task, future in self.futures] if self.pool is not None \
            else map(make_block, self.tasks)
        unreadable = sorted(pair for result in results for pair in result)
        listed = {m[0]: m for m in self.listing}
        notes = []
        for idx, why in unreadable:  # one bad file costs its own match's viewer, not the report
            notes.append(f"match {idx} ({listed[idx][1]}): replay unreadable: {why}; the report shows the rest")
            if self.say is not None:
                self.say(notes[-1])
        bad = dict(unreadable)
        listing = [[*m, bad[m[0]]] if m[0] in bad else m for m in self.listing] \
            if bad else self.listing  # a copy: the entries may be kept for the next build (ViewerMemo)
        if self.memo is None:
            text = script_json("ARENA_MATCHES", listing)
        else:  # the JSON of each entry kept, made again only for the unreadable ones
            entries = self.memo.entries
            text = script_json_list("ARENA_MATCHES", [json_piece(m) if m[0] in bad else entries[m[0]][2]
                                                      for m in listing])
        _write_atomically(self.replays / INDEX, text)
        return notes

    @staticmethod
    def _result(task: BlockTask, future: Future[list[tuple[int, str]]]) -> list[tuple[int, str]]:
        """What a worker made of ``task``; made here if the pool could not (a worker killed, or unable to
        start: a script that builds a report when imported, without ``if __name__ == "__main__"``)."""
        try:
            return future.result()
        except BrokenProcessPool:
            return make_block(task)

    def close(self) -> None:
        """Stop the workers (at once if the build was interrupted)."""
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
            self.pool = None


def make_block(task: BlockTask) -> list[tuple[int, str]]:
    """Make the frames of a block's new matches and write the block (run in a worker when there are many);
    returns (idx, why) of each match whose replay cannot be shown, its path relative to the results directory."""
    entries = list(task.kept)
    unreadable: list[tuple[int, str]] = []
    for idx, match_id, seed, replay, times in task.todo:
        try:
            frames_format, line = _frames(Path(task.results_dir), replay, times)
        except ReplayError as exc:
            unreadable.append((idx, str(exc)))
            continue
        entries.append(blocks.Entry.of(idx, match_id, seed, frames_format, line))
    if task.public:
        entries = [public_entry(entry) for entry in entries]
    if entries:
        _write_atomically(Path(task.path), blocks.encode(task.block, entries, task.public))
    return unreadable


def _deal(row: dict[str, Any]) -> str:
    """The deal key of a stored match (:func:`blocks.deal_key`)."""
    return blocks.deal_key(str(row["match_id"]), str(row["seed"]))


def _keys(members: dict[int, dict[str, Any]]) -> list[tuple[int, str]]:
    return [(idx, _deal(row)) for idx, row in sorted(members.items())]


def _linked(old: Path, members: dict[int, dict[str, Any]], target: Path | None = None, public: bool = False) -> bool:
    """True if the block ``old`` holds exactly ``members`` (same matches and deals, frames this arena
    writes, public as asked); then, given a ``target``, it is linked (or copied) there."""
    try:
        head = blocks.read_head(old)
    except blocks.BlockError:
        return False
    if blocks.is_public(head) != public or head.get("packing") != framepack.packing():
        return False
    try:
        listed = blocks.listed(head)
    except blocks.BlockError:
        return False
    if [k[:2] for k in listed] != _keys(members) or any(k[2] not in FORMATS for k in listed):
        return False
    if target is not None:
        try:
            os.link(old, target)
        except OSError:
            shutil.copyfile(old, target)
    return True


def _old_entries(here: Path, reuse: Path | None, members: dict[int, dict[str, Any]],
                 public: bool = False) -> list[blocks.Entry]:
    """The lines of an earlier build's block (this directory's, else ``reuse``'s) that are still right: one of
    ``members``, the same match and deal, frames in a format this arena writes (an older arena's are made anew),
    from a block as public as asked (a public block's frames lack the logs a report for the organiser shows)."""
    for path in (here, None if reuse is None else Path(reuse) / REPLAYS / here.name):
        if path is None or not path.is_file():
            continue
        try:
            if blocks.is_public(blocks.read_head(path)) != public:
                continue
            old = blocks.read_block(path)
        except blocks.BlockError:
            continue
        return [e for e in old if e.idx in members and e.format in FORMATS and e.deal == _deal(members[e.idx])]
    return []


def _die_with_parent(parent: int) -> None:
    """Have the kernel kill this worker when the build that started it ends, however it ends: a background
    build that a run stops is killed (:mod:`.refresh`), and its workers must not go on making frames (left to
    themselves, they may wait for their next task for ever)."""
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):  # not Linux: a killed build may leave its workers waiting
        return
    if os.getppid() != parent:  # the build died before this line
        os._exit(1)


def _frames(results_dir: Path, replay: str, times: list[float | None] | None) -> tuple[str, str]:
    """One match's frames format and frames as a block's line; a :class:`ReplayError` naming the replay by its
    path relative to ``results_dir`` when it cannot be shown."""
    source = results_dir / replay
    try:
        if not _in_replays(results_dir, source):  # only the store's own replay files are read
            raise ReplayError(f"{replay}: not a file of the results directory's replays/")
        frames = frames_for_file(source, times)
    except ReplayError as exc:
        raise ReplayError(str(exc).replace(str(source), replay)) from None
    return str(frames["format"]), blocks.frames_line(frames)


def _listed(idx: int, match: Any, bots: Any, totals: Any, places: Any, forfeited: Any, ms: Any) -> list[Any]:
    """A match's entry in ``replays/index.js`` (:data:`LIST_FIELDS`)."""
    return [idx, match, bots, totals, places, forfeited if any(forfeited) else 0, ms]


def match_list(text: str) -> list[dict[str, Any]]:
    """The matches ``replays/index.js`` lists (its ``text``), each as a dict of :data:`LIST_FIELDS` (as the viewer
    reads them; ``forfeited`` written out)."""
    out = []
    for entry in script_value(text, "ARENA_MATCHES"):
        listed = dict(zip(LIST_FIELDS, entry))
        listed["forfeited"] = listed["forfeited"] or [False] * len(listed["bots"])
        out.append(listed)
    return out


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
    _write_packing(replays)
    entry = blocks.Entry.of(idx, str(frames["match"]), str(frames.get("seed")), str(frames["format"]),
                            blocks.frames_line(frames))
    _write_atomically(replays / blocks.block_name(blocks.block_of(idx)), blocks.encode(blocks.block_of(idx), [entry]))
    result = frames["result"]
    listing = [_listed(idx, frames["match"], frames["bots"], result["totals"], result["places"], result["forfeited"],
                       None)]
    _write_atomically(replays / INDEX, script_json("ARENA_MATCHES", listing) + "window.ARENA_REPORT = false;\n")
    return out_dir / "viewer.html"
