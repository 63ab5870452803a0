"""Uploads the server refuses before any check: hostile or wrong archives (400, nothing written), names that are
someone else's (403), unknown bots (404); the queue never sees them."""

from __future__ import annotations

import io
import sqlite3
import tarfile
from pathlib import Path

from arena.server.archive import pack
from arena.tournament.ladder.submit import Refused

from .live import add_author, api, cli, copy_bot, wait_for
from .test_queue import HeldCheck, served  # noqa: F401  the fixture

GZIP = {"Content-Type": "application/gzip"}


def field_of(output: Path) -> list[tuple[str, str, str]]:
    """``(NAME@vK, source, status)`` of every entry of the ladder in ``output``, by key."""
    db = sqlite3.connect(output / "results.sqlite")
    try:
        return db.execute("SELECT name || '@v' || version, source, status FROM ladder_bots ORDER BY 1").fetchall()
    finally:
        db.close()


def tar_gz(*members: tuple[str, bytes | None, str | None]) -> bytes:
    """A tar.gz of ``(name, data, link target)`` members: a file when data is given, else a symlink."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as tar:
        for name, data, target in members:
            info = tarfile.TarInfo(name)
            if data is not None:
                info.size = len(data)
                tar.addfile(info, io.BytesIO(data))
            else:
                info.type, info.linkname = tarfile.SYMTYPE, target or ""
                tar.addfile(info)
    return buffer.getvalue()


def test_hostile_and_wrong_uploads_get_one_line_and_leave_nothing(served, tmp_path):
    check = HeldCheck()
    url, ladder = served(check=check, per_minute=100)
    token = add_author(ladder, "ann")
    manifest = b"name: evil\nlanguage: python\nrun: [\"{python}\", \"bot.py\"]\n"
    for body in [tar_gz(("bot.yaml", manifest, None), ("../evil", b"x", None)),
                 tar_gz(("bot.yaml", manifest, None), ("/tmp/evil", b"x", None)),
                 tar_gz(("bot.yaml", manifest, None), ("passwd", None, "/etc/passwd")),
                 tar_gz(("bot.py", b"print()", None)),  # no manifest
                 b"\x89PNG\r\n\x1a\n" + b"\0" * 100, b"\x1f\x8b" + b"\0" * 30]:
        status, answer, _ = api(url, token, "POST", "/api/bots", body, GZIP)
        assert status == 400 and set(answer) == {"error"} and "\n" not in answer["error"], answer
        assert str(tmp_path) not in answer["error"]  # the server's directories are nobody's business
    assert api(url, token, "POST", "/api/bots", b"", GZIP)[:2] == \
        (400, {"error": "the upload is empty: send the bot's files as a zip or tar.gz archive"})
    status, answer, _ = api(url, token, "POST", "/api/bots?name=../../x", pack(copy_bot(tmp_path, "ann")), GZIP)
    assert status == 400 and answer["error"].startswith("'../../x' is not a bot name")
    out = tmp_path / "out"
    assert check.started == [] and not (out / "uploads").exists() and not list((out / ".incoming").iterdir())
    assert not (tmp_path / "evil").exists() and not (tmp_path.parent / "evil").exists()


def test_names_are_their_first_author_s_and_the_organiser_s(served, tmp_path):
    url, ladder = served(check=HeldCheck())
    ann, bob, org = add_author(ladder, "ann"), add_author(ladder, "bob"), add_author(ladder, "org", organiser=True)
    home = tmp_path / "home"
    local = copy_bot(home, "loc")
    assert cli("submit", str(ladder), str(local))[0] == 0  # entered at the organiser's shell: nobody's upload
    status, answer, _ = api(url, ann, "POST", "/api/bots", pack(local), GZIP)
    assert (status, answer) == (403, {"error": "the name loc belongs to a bot the organiser entered; choose another "
                                               "name with --name"})
    assert api(url, ann, "POST", "/api/bots/loc/retire")[0] == 403
    assert api(url, ann, "GET", "/api/bots/loc/logs")[0] == 403
    assert api(url, org, "GET", "/api/bots/loc/logs")[:2] == (200, {"bot": "loc", "logs": []})

    assert api(url, ann, "POST", "/api/bots?name=mine", pack(copy_bot(home, "ann")), GZIP)[0] == 202
    assert api(url, bob, "POST", "/api/bots?name=mine", pack(copy_bot(home, "bob")), GZIP)[0] == 403
    assert api(url, bob, "GET", "/api/bots")[1] == {"bots": []}
    assert api(url, ann, "GET", "/api/bots/nobody/logs")[:2] == \
        (404, {"error": "no bot named nobody in ladder lad"})
    assert api(url, ann, "POST", "/api/bots/nobody/retire")[0] == 404
    assert api(url, ann, "GET", "/api/submissions/nothing")[0] == 404
    assert api(url, org, "POST", "/api/bots/loc/retire")[:2] == \
        (200, {"message": "retired loc@v1: no longer scheduled, history kept"})


def test_a_zip_is_taken_as_a_tar_gz_is(served, tmp_path):
    """A zip (as a browser's author makes one) is checked and entered like the packed tar.gz of the same files."""
    import time
    import zipfile

    url, ladder = served()
    token = add_author(ladder, "ann")
    packed = tarfile.open(fileobj=io.BytesIO(pack(copy_bot(tmp_path / "home", "zed"))), mode="r:gz")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member in packed.getmembers():
            if member.isfile():
                archive.writestr(f"zed/{member.name}", packed.extractfile(member).read())  # type: ignore[union-attr]
    status, queued, _ = api(url, token, "POST", "/api/bots", buffer.getvalue(), {"Content-Type": "application/zip"})
    assert status == 202, queued
    due = time.monotonic() + 600
    while True:
        status, done, _ = api(url, token, "GET", f"/api/submissions/{queued['id']}")
        if status == 200 and done["status"] == "done" or time.monotonic() > due:
            break
        time.sleep(0.2)
    assert done["exit"] == 0 and done["message"] == "entered zed@v1", done


def list_bot(ladder: Path, bot: Path, name: str | None = None) -> None:
    """The organiser lists ``bot`` in the ladder file's own field (``name``: under that name)."""
    text = ladder.read_text().replace("bots: []\n", "bots:\n")
    ladder.write_text(text + (f"  - {{name: {name}, path: {bot}}}\n" if name else f"  - {bot}\n"))


def test_a_name_of_the_files_own_field_is_refused_before_any_run(served, tmp_path):
    """From the moment the file lists a bot, its name is refused to every upload (the organiser's token too), and no
    claim is made on it; the file is read as it is now, not as the server started with it."""
    url, ladder = served(check=HeldCheck())
    ann, org = add_author(ladder, "ann"), add_author(ladder, "org", organiser=True)
    list_bot(ladder, copy_bot(tmp_path / "organiser", "house"))
    mine = pack(copy_bot(tmp_path / "ann", "house"))
    refused = {"error": "the name house belongs to the ladder's own field (ladder.yaml bots:); choose another name "
                        "with --name"}
    assert api(url, ann, "POST", "/api/bots", mine, GZIP)[:2] == (403, refused)
    assert api(url, org, "POST", "/api/bots", mine, GZIP)[:2] == (403, refused)
    assert api(url, ann, "POST", "/api/bots?name=house", pack(copy_bot(tmp_path / "ann", "other")), GZIP)[:2] == \
        (403, refused)
    assert cli("author", "list", str(ladder))[1].splitlines()[0].startswith("ann: bots none;")
    assert not (tmp_path / "out" / "results.sqlite").exists()


def wait_done(url: str, token: str, sub_id: str) -> dict[str, object]:
    """The submission once its check is over."""
    def done() -> dict[str, object] | None:
        status, sub, _ = api(url, token, "GET", f"/api/submissions/{sub_id}")
        return sub if status == 200 and sub["status"] == "done" else None
    return wait_for("the check to end", done, 600)


def test_a_run_refuses_a_name_of_the_field_that_an_authors_upload_holds(served, tmp_path):
    """An author entered ``house`` before the organiser listed a bot of that name: the run says so in one line and
    enters nothing, rather than play the upload as the organiser's bot; renamed in the file, the organiser's bot
    joins. The author keeps their own bot's logs; the organiser's bot's logs stay the organiser's."""
    url, ladder = served()
    ann = add_author(ladder, "ann")
    status, queued, _ = api(url, ann, "POST", "/api/bots", pack(copy_bot(tmp_path / "ann", "house")), GZIP)
    assert status == 202, queued
    assert wait_done(url, ann, queued["id"])["message"] == "entered house@v1"
    theirs, other = copy_bot(tmp_path / "organiser", "house"), copy_bot(tmp_path / "organiser", "cid")
    list_bot(ladder, other)
    list_bot(ladder, theirs)
    code, out, err = cli("run", str(ladder), "--matches", "2", "--no-report")
    upload = tmp_path / "out" / "uploads" / "house" / "bot"
    assert (code, err.strip()) == (1, (
        f"Error: ladder.yaml bots: house: the ladder's house is house@v1, an author's upload ({upload}; arena author "
        f"list shows whose), so the file's house ({theirs}) would never play; give the file's bot another name in "
        "ladder.yaml (- {name: NEW-NAME, path: ...}) or take it out of bots:, then run again")), out + err
    assert [key for key, *_ in field_of(tmp_path / "out")] == ["house@v1"]  # cid was not entered either
    assert api(url, ann, "GET", "/api/bots/house/logs")[0] == 200  # ann's own bot

    ladder.write_text(ladder.read_text().replace(f"  - {theirs}\n", ""))
    list_bot(ladder, theirs, "house-org")
    code, out, err = cli("run", str(ladder), "--matches", "2", "--no-report")
    assert code == 0 and "entered house-org@v1 from the file's bots" in err, out + err
    assert [key for key, *_ in field_of(tmp_path / "out")] == ["cid@v1", "house-org@v1", "house@v1"]


def test_an_authors_claim_on_a_name_the_file_then_lists_gives_no_hold_on_the_organisers_bot(served, tmp_path):
    """ann claimed ``house`` with an upload that was never entered; the organiser then lists a bot of that name and
    a run enters it: ann may neither read its logs nor retire it."""
    url, ladder = served(check=lambda *args, **kwargs: (_ for _ in ()).throw(Refused("refused for the test")))
    ann = add_author(ladder, "ann")
    status, queued, _ = api(url, ann, "POST", "/api/bots", pack(copy_bot(tmp_path / "ann", "house")), GZIP)
    assert status == 202 and wait_done(url, ann, queued["id"])["exit"] == 1
    list_bot(ladder, copy_bot(tmp_path / "organiser", "house"))
    list_bot(ladder, copy_bot(tmp_path / "organiser", "cid"))
    code, out, err = cli("run", str(ladder), "--matches", "2", "--no-report")
    assert code == 0, out + err
    assert api(url, ann, "GET", "/api/bots/house/logs")[:2] == (403, {"error": "the logs of house are its author's"})
    assert api(url, ann, "POST", "/api/bots/house/retire")[0] == 403
    assert [status for _, _, status in field_of(tmp_path / "out")] == ["active", "active"]
