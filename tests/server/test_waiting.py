"""Before its first match a ladder's server does not look broken: ``/`` says it is waiting and links to the
authors' page; once a report exists, ``/`` is the report's leaderboard."""

from __future__ import annotations

import urllib.request

from arena.server.app import PUBLIC_DIR
from arena.tournament.ladder.lock import run_lock

from .test_queue import served  # noqa: F401  the fixture: the app under uvicorn in this process


def get(url: str) -> tuple[int, str, str]:
    with urllib.request.urlopen(url, timeout=10) as answer:
        return answer.status, answer.headers.get("Content-Type", ""), answer.read().decode()


def test_the_root_says_the_ladder_is_waiting_until_its_report_exists(served, tmp_path):  # noqa: F811
    url, ladder = served()
    for path in ("/", "/index.html"):
        status, kind, text = get(url + path)
        assert status == 200 and kind.startswith("text/html")
        assert "<h1>Ladder lad</h1>" in text and "waiting for its first match" not in text
        assert ("No match has been played yet, and none is being played: the organiser starts play with "
                f"<code>arena run {ladder.name}</code>.") in text  # the server alone plays nothing
        assert '<a href="submit.html">submit a bot</a>' in text
    with run_lock(tmp_path / "out"):  # as an arena run of the ladder holds it
        text = get(url + "/")[2]
        assert "The ladder is running and waiting for its first match" in text and "No match" not in text
    report = tmp_path / "out" / PUBLIC_DIR  # what the server serves: its public build of the report
    report.mkdir(parents=True)
    (report / "index.html").write_text("<!DOCTYPE html><title>the leaderboard</title>\n")
    (report / ".arena-report").write_text("")
    status, _, text = get(url + "/")
    assert status == 200 and "the leaderboard" in text and "waiting" not in text
