"""Uploads the server refuses before any check: hostile or wrong archives (400, nothing written), names that are
someone else's (403), unknown bots (404); the queue never sees them."""

from __future__ import annotations

import io
import tarfile

from arena.server.archive import pack

from .live import add_author, api, cli, copy_bot
from .test_queue import HeldCheck, served  # noqa: F401  the fixture

GZIP = {"Content-Type": "application/gzip"}


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
    due = time.monotonic() + 120
    while True:
        status, done, _ = api(url, token, "GET", f"/api/submissions/{queued['id']}")
        if status == 200 and done["status"] == "done" or time.monotonic() > due:
            break
        time.sleep(0.2)
    assert done["exit"] == 0 and done["message"] == "entered zed@v1", done
