"""What the next start puts right after a server was killed in the middle of a check, at each moment of it."""

from __future__ import annotations

import time
from pathlib import Path

from arena.server.store import ServerDB
from arena.server.queue import STOPPED, recover
from arena.tournament.config import load_config
from arena.tournament.ladder.entries import enter
from arena.tournament.store import ResultStore

from .live import write_ladder


def upload(out: Path, folder: str, text: str) -> None:
    (out / "uploads" / folder / "bot").mkdir(parents=True)
    (out / "uploads" / folder / "bot" / "bot.yaml").write_text(text)


def started(db: ServerDB, sub_id: str, bot: str) -> None:
    db.add_submission(sub_id, bot, "ann")
    db.set_submission(sub_id, "checking", [], None, None)


def test_each_moment_of_a_check_cut_short(tmp_path):
    config = load_config(write_ladder(tmp_path))
    out = config.output
    db = ServerDB(out)
    store = ResultStore(out)
    try:
        enter(store.ladder, "old", "d1", "p", str(out / "uploads" / "old" / "bot"), False)
        enter(store.ladder, "back", "d3", "p", str(out / "uploads" / "back" / "bot"), False)
        time.sleep(0.01)
        # back: the check refused the new files and had put the previous upload back
        started(db, "s5", "back")
        upload(out, "back", "entered before")
        # old: a new version was being checked, the previous upload set aside
        started(db, "s1", "old")
        upload(out, "old", "new files")
        upload(out, ".prev-old", "old files")
        # new: a first version was being checked
        started(db, "s2", "new")
        upload(out, "new", "first files")
        # won: the check had entered it when the server died
        started(db, "s3", "won")
        upload(out, "won", "entered files")
        upload(out, ".prev-won", "older files")
        time.sleep(0.01)
        enter(store.ladder, "won", "d2", "p", str(out / "uploads" / "won" / "bot"), False)
        (out / ".incoming" / "upload-x").mkdir(parents=True)
        db.add_submission("s4", "queued-one", "ann")
    finally:
        store.close()

    recover(config, db)
    assert (out / "uploads" / "old" / "bot" / "bot.yaml").read_text() == "old files"
    assert not (out / "uploads" / "new").exists()
    assert (out / "uploads" / "won" / "bot" / "bot.yaml").read_text() == "entered files"
    assert (out / "uploads" / "back" / "bot" / "bot.yaml").read_text() == "entered before"
    assert sorted(p.name for p in (out / "uploads").iterdir()) == ["back", "old", "won"]
    assert not (out / ".incoming").exists()
    done = {sid: (db.submission(sid) or {}) for sid in ("s1", "s2", "s3", "s4", "s5")}
    assert {sid: (d["status"], d["exit"]) for sid, d in done.items()} == \
        {"s1": ("done", 1), "s2": ("done", 1), "s3": ("done", 0), "s4": ("done", 1), "s5": ("done", 1)}
    assert done["s1"]["message"] == STOPPED
    db.close()
