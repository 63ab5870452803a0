"""The report site as written: every page there, everything local and escaped, links to the viewer,
the match list's data file, the swap that replaces a report as a whole, and ``arena report``."""

from __future__ import annotations

import json
import os
import re
import time
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from arena.cli import main
from arena.site import build, data, pages, svg
from arena.site.build import ReportError, build_report

from .played import play
from .synthetic import synthetic_store

HOSTILE = '<script>alert("x")</script>'
NAMES = ["alpha", HOSTILE, "o'neil", "foo@v2", 'q"uote&amp']


class Tags(HTMLParser):
    """Every start tag with its attributes, and the text, of a page."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))

    def handle_data(self, text):
        self.text.append(text)


def parse(path: Path) -> Tags:
    parser = Tags()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    results = tmp_path_factory.mktemp("site") / "results"
    synthetic_store(results, 200, NAMES, faulty=[HOSTILE, "alpha"], voided=1)
    return results, build_report(results)


def test_every_page_is_written(site):
    results, out = site
    assert out == results / "report"
    for name in ("index.html", "headtohead.html", "faults.html", "matches.html", "data/matches-0.js",
                 "assets/report.css", "assets/report.js", "version.json", build.MARKER):
        assert (out / name).is_file(), name
    assert sorted(p.name for p in (out / "bots").iterdir()) == sorted(f"{data.safe_name(n)}.html" for n in NAMES)
    assert not [p for p in results.iterdir() if p.name.startswith(".report")]  # no temp directory left


def test_bot_names_are_text_everywhere(site):
    _, out = site
    for path in out.rglob("*"):
        if path.suffix in (".html", ".js", ".json") and path.parent.name not in ("assets", "replays") \
                and not path.name.startswith("viewer."):  # the viewer's files are tested with the viewer
            text = path.read_text(encoding="utf-8")
            assert "<script>alert" not in text, path
            assert 'q"uote' not in text.replace('\\"', ""), path  # the quote is escaped, in HTML and in JSON
    index = parse(out / "index.html")
    assert HOSTILE in "".join(index.text) and 'q"uote&amp' in "".join(index.text)  # shown as written
    for path in [p for p in out.glob("*.html") if p.name != "viewer.html"] + list(out.glob("bots/*.html")):
        tags = [attrs for tag, attrs in parse(path).tags if tag == "script"]
        scripts = [attrs for attrs in tags if attrs.get("type") != "application/json"]  # a data block runs nothing
        assert scripts and all(attrs.get("src") for attrs in scripts), path  # no inline script at all
        assert all(re.fullmatch(r"(\.\./)?(assets|data)/[a-z]+(-[0-9]+)?\.js", str(a["src"])) for a in scripts), path
        if len(tags) > len(scripts):
            assert HOSTILE in str(latest_rows(path)), path  # a bot's name in a data block: as written, no markup


def test_nothing_is_fetched_from_the_network(site):
    _, out = site
    for path in out.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".js", ".css"):
            text = path.read_text(encoding="utf-8").replace('xmlns="http://www.w3.org/2000/svg"', "")
            assert not re.search(r"https?://|(src|href)=\"//|@import|url\(", text), path


def test_inline_svg_is_well_formed(site):
    _, out = site
    for path in [out / "headtohead.html", *sorted((out / "bots").iterdir())]:
        charts = re.findall(r"<svg.*?</svg>", path.read_text(encoding="utf-8"), re.S)
        assert len(charts) == 1, path
        root = ET.fromstring(charts[0])
        assert root.tag.endswith("svg")
    heat = ET.fromstring(re.findall(r"<svg.*?</svg>", (out / "headtohead.html").read_text(), re.S)[0])
    labels = {"".join(t.itertext()) for t in heat.iter("{http://www.w3.org/2000/svg}text")}
    assert set(NAMES) <= labels  # names read back exactly, once unescaped


def test_leaderboard_page_is_small_and_sortable(site):
    results, out = site
    index = parse(out / "index.html")
    table = [attrs for tag, attrs in index.tags if tag == "table"]
    assert table and "sortable" in str(table[0]["class"])
    assert len([1 for tag, _ in index.tags if tag == "tr"]) == len(NAMES) + 1
    text = (out / "index.html").read_text()
    assert "m17/" not in text and "ARENA_MATCH_LIST" not in text  # the match list is elsewhere
    assert (out / "index.html").stat().st_size < 20_000
    rows = data.leaderboard_rows(data.compute(data.read_snapshot(results)).board)
    cells = [attrs.get("data-v") for tag, attrs in index.tags if tag == "td"]
    assert cells[:4] == ["1", rows[0]["bot"], str(rows[0]["mu"]), str(rows[0]["exposure"])]


def test_match_list_data_file_holds_every_match(site):
    results, out = site
    text = (out / "data" / "matches-0.js").read_text()
    assert text.startswith("window.ARENA_MATCH_LIST_0 = ") and text.endswith(";\n")
    packed = pages.script_value(text, "ARENA_MATCH_LIST_0")
    assert packed == data.compact(data.match_list(data.read_snapshot(results)), data.MATCH_COLUMNS)
    page = parse(out / "matches.html")
    assert [a["src"] for t, a in page.tags if t == "script"] == ["data/matches-0.js", "assets/report.js"]
    assert [a["data-chunks"] for t, a in page.tags if t == "table"] == ["0"]
    options = [a["value"] for t, a in page.tags if t == "option"]
    assert options == [""] + sorted(NAMES)
    js = (out / "assets" / "report.js").read_text()
    assert 'viewer.html#match=" + index' in js and '"&seat=" + seat' in js and "innerHTML" not in js


def latest_rows(page: Path) -> dict[str, Any]:
    """A bot page's latest matches: the JSON data block report.js draws its table from."""
    text = page.read_text()
    start = text.index('<script type="application/json" id="latest-rows">') + len(
        '<script type="application/json" id="latest-rows">')
    block = text[start:text.index("</script>", start)]
    assert "<" not in block and "&" not in block  # nothing a browser would read as markup or a reference
    return json.loads(block)


def test_bot_pages_list_their_latest_matches_for_the_viewer_links(site):
    """Each bot page holds its latest matches, newest first, as the match list has them (report.js draws each as
    the match list's row: the match and each seat open the viewer; a browser test follows them)."""
    results, out = site
    snapshot = data.read_snapshot(results)
    listed = {entry["index"]: entry for entry in data.match_list(snapshot)}
    for name in NAMES:
        page = out / "bots" / f"{data.safe_name(name)}.html"
        links = [str(a["href"]) for t, a in parse(page).tags if t == "a"]
        mine = [r for r in snapshot.rows if name in r["bots"] and r["idx"] in listed][-pages.BOT_MATCHES:]
        rows = latest_rows(page)
        assert rows["columns"] == list(data.LATEST_COLUMNS)
        assert rows["rows"] == [[listed[r["idx"]][c] for c in data.LATEST_COLUMNS] for r in reversed(mine)]
        assert [t for t, a in parse(page).tags if t == "table" and a.get("id") == "latest"]
        assert any(link.startswith("../matches.html#bot=") for link in links)
        assert "../index.html" in links and "../assets/report.css" in [a.get("href") for t, a in parse(page).tags]


def test_faults_pages_show_each_fault_with_its_log(site):
    results, out = site
    faults = data.fault_list(data.read_snapshot(results))
    text = (out / "faults.html").read_text()
    assert text.count('<details class="fault">') == min(len(faults), pages.FAULT_DETAILS)
    assert "FAULT-MARKER &lt;b&gt;&quot;bad&quot;&lt;/b&gt; &amp; &#x27;quoted&#x27;" in text
    for fault in faults[-5:]:  # opening the step of that fault: the viewer maps the decision to it
        assert (f'viewer.html#match={fault["index"]}&amp;seat={fault["seat"]}&amp;decision={fault["decision"]}"'
                in text)
    # the line saying what went wrong, first: in the summary, seen before the box is opened
    assert ('<code class="raised">FAULT-MARKER &lt;b&gt;&quot;bad&quot;&lt;/b&gt; &amp; &#x27;quoted&#x27;</code>'
            "</summary>") in text
    alpha = (out / "bots" / "alpha.html").read_text()
    assert alpha.count('<details class="fault">') == sum(f["bot"] == "alpha" for f in faults)
    assert (out / "bots" / "foo@v2.html").read_text().count('<details class="fault">') == 0


def test_script_json_cannot_close_the_script():
    text = pages.script_json("X", {"a": "</script><script>alert(1)</script>", "b": "\u2028&"})
    assert "</" not in text and "<" not in text and "\u2028" not in text and "&" not in text
    assert pages.script_value(text, "X") == {"a": "</script><script>alert(1)</script>", "b": "\u2028&"}
    quoted = {"q": "it's a \\ back'slash\\'); x", "n": "line\nbreak"}
    assert pages.script_value(pages.script_json("Y", quoted), "Y") == quoted


def test_rating_chart_is_thinned_and_escaped():
    history = [[i, 25 + i / 1000, 8 - i / 2000] for i in range(10_000)]
    chart = svg.rating_chart(HOSTILE, history)
    assert len(chart) < 40_000 and "<script>" not in chart
    root = ET.fromstring(chart)
    line = root.find("{http://www.w3.org/2000/svg}polyline")
    assert line is not None and len(str(line.get("points")).split()) == svg.MAX_POINTS
    assert svg.thin(history)[0] == history[0] and svg.thin(history)[-1] == history[-1]


def test_both_presets_make_a_report(tmp_path):
    for preset in ("standard", "espanola"):
        results = play(tmp_path / preset, preset)
        out = build_report(results)
        text = (out / "index.html").read_text()
        board = json.loads((results / "leaderboard.json").read_text())["standings"]
        assert f"rules {preset}" in text
        for standing in board:
            assert f'bots/{standing["bot"]}.html' in text
            assert f'data-v="{round(standing["exposure"], 3)}"' in text


def test_a_rebuild_replaces_the_report_as_a_whole(tmp_path):
    results = tmp_path / "r"
    synthetic_store(results, 30, ["a", "b", "c"], voided=0)
    out = build_report(results)
    (out / "stale.html").write_text("old")
    version = json.loads((out / "version.json").read_text())["version"]
    out2 = build_report(results)
    assert out2 == out and not (out / "stale.html").exists()
    assert json.loads((out / "version.json").read_text())["version"] == version
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r"] and sorted(
        p.name for p in results.iterdir() if p.name.startswith(".")) == []


def test_a_failed_build_leaves_the_last_report(tmp_path, monkeypatch):
    results = tmp_path / "r"
    synthetic_store(results, 30, ["a", "b"], voided=0)
    out = build_report(results)
    before = (out / "index.html").read_text()

    def broken(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(pages, "faults_page", broken)
    with pytest.raises(RuntimeError):
        build_report(results)
    assert (out / "index.html").read_text() == before
    assert not [p for p in results.iterdir() if p.name.startswith(".report")]


def test_the_swap_works_without_an_atomic_exchange(tmp_path, monkeypatch):
    results = tmp_path / "r"
    synthetic_store(results, 10, ["a", "b"], voided=0)
    out = build_report(results)
    (out / "stale.html").write_text("old")
    monkeypatch.setattr(build, "_exchange", lambda a, b: False)
    build_report(results)
    assert (out / "index.html").is_file() and not (out / "stale.html").exists()
    assert sorted(p.name for p in results.iterdir() if p.name.startswith(".")) == []


def test_a_ctrl_c_between_the_two_renames_puts_the_old_report_back(tmp_path, monkeypatch):
    """Without an atomic exchange the old site is moved aside before the new one moves in: stopped
    between the two, the old one must come back rather than leave no report at all."""
    results = tmp_path / "r"
    synthetic_store(results, 10, ["a", "b"], voided=0)
    out = build_report(results)
    (out / "mine.html").write_text("the report before")
    monkeypatch.setattr(build, "_exchange", lambda a, b: False)
    rename = os.rename

    def interrupted(src, dst):
        if Path(src).name.startswith(".report.new-"):
            raise KeyboardInterrupt  # the new site was about to move in
        rename(src, dst)

    monkeypatch.setattr(build.os, "rename", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_report(results)
    assert (out / "mine.html").read_text() == "the report before" and (out / "index.html").is_file()
    assert [p.name for p in results.iterdir() if p.name.startswith(".report.")] == []


def test_a_directory_that_is_not_a_report_is_never_replaced(tmp_path):
    results = tmp_path / "r"
    synthetic_store(results, 10, ["a", "b"], voided=0)
    precious = tmp_path / "home"
    precious.mkdir()
    (precious / "thesis.tex").write_text("years of work")
    with pytest.raises(ReportError, match="not an arena report"):
        build_report(results, precious)
    assert (precious / "thesis.tex").read_text() == "years of work"
    (tmp_path / "file").write_text("x")
    with pytest.raises(ReportError, match="not a directory"):
        build_report(results, tmp_path / "file")
    empty = tmp_path / "empty"
    empty.mkdir()
    assert (build_report(results, empty) / "index.html").is_file()


def test_report_command(tmp_path):
    results = tmp_path / "r"
    synthetic_store(results, 10, ["a", "b"], voided=0)
    done = CliRunner().invoke(main, ["report", str(results)])
    assert done.exit_code == 0, done.output
    index = (results / "report" / "index.html").resolve()
    assert done.output.splitlines() == [f"report: {index}", f"open: {index.as_uri()}"]
    done = CliRunner().invoke(main, ["report", str(results), "-o", str(tmp_path / "site")])
    assert done.exit_code == 0 and (tmp_path / "site" / "index.html").is_file()
    for bad in (tmp_path / "nowhere", tmp_path):
        done = CliRunner().invoke(main, ["report", str(bad)])
        assert done.exit_code == 1 and done.output.count("\n") == 1, done.output
        assert "is not a results directory" in done.output and "Traceback" not in done.output
    done = CliRunner().invoke(main, ["report", str(results), "-o", str(tmp_path)])
    assert done.exit_code == 1 and done.output.count("\n") == 1 and "not an arena report" in done.output


def test_a_ladder_report_names_every_version(tmp_path):
    results = tmp_path / "ladder"
    synthetic_store(results, 60, ["ace@v1", "ace@v2", "bee@v1"], voided=0, ladder=True)
    out = build_report(results)
    text = (out / "index.html").read_text()
    facts = text.split('<p class="facts">', 1)[1].split("</p>", 1)[0]
    assert "ladder <b>synthetic standard</b>" in facts and "60 matches ·" in facts and " of " not in facts  # open-ended
    for name in ("ace@v1", "ace@v2", "bee@v1"):
        assert (out / "bots" / f"{name}.html").is_file() and f'href="bots/{name}.html"' in text


def test_report_command_says_when_it_cannot_write(tmp_path):
    results = tmp_path / "r"
    synthetic_store(results, 5, ["a", "b"], voided=0)
    (tmp_path / "plain").write_text("a file, not a directory")
    done = CliRunner().invoke(main, ["report", str(results), "-o", str(tmp_path / "plain" / "site")])
    assert done.exit_code == 1 and done.output.count("\n") == 1, done.output
    assert "cannot write the report" in done.output and "Traceback" not in done.output


def test_a_killed_builds_leftovers_are_removed_later(tmp_path):
    results = tmp_path / "r"
    synthetic_store(results, 5, ["a", "b"], voided=0)
    old, fresh = results / ".report.new-abc123", results / ".report.new-def456"
    for path in (old, fresh):
        (path / "bots").mkdir(parents=True)
        (path / "index.html").write_text("half")
    os.utime(old, (time.time() - 2 * build.STALE_SECONDS,) * 2)
    build_report(results)
    assert not old.exists() and fresh.exists()  # a build running beside this one is left alone


def test_a_ladders_report_marks_the_versions_that_left_the_field(tmp_path):
    from click.testing import CliRunner

    from arena.cli import main
    from arena.site.build import build_report
    from tests.tournament.test_ladder import copy_bot, run, write_ladder

    ann = copy_bot(tmp_path, "ann")
    path = write_ladder(tmp_path, [ann, copy_bot(tmp_path, "bob"), copy_bot(tmp_path, "cy")])
    run(path, 4)
    (ann / "bot.py").write_text((ann / "bot.py").read_text() + "\n# v2\n")
    assert CliRunner().invoke(main, ["submit", str(path), str(ann)]).exit_code == 0
    assert CliRunner().invoke(main, ["retire", str(path), "cy"]).exit_code == 0
    run(path, 2)
    index = (build_report(tmp_path / "out") / "index.html").read_text()
    row = {name: line for line in index.splitlines() for name in ("ann@v1", "ann@v2", "bob@v1", "cy@v1")
           if f">{name}</a>" in line}
    assert '<span class="status">replaced</span>' in row["ann@v1"]
    assert '<span class="status">retired</span>' in row["cy@v1"]
    assert "status" not in row["bob@v1"]
    # the current field first, cell for cell as `arena leaderboard` prints it from the ratings the ladder kept
    from arena.tournament.ladder.board import LadderBoard
    from arena.tournament.standings import ladder_board, read
    from arena.tournament.store import ResultStore

    drawn = index.split('<table class="board drawn">', 1)[1].split("</table>", 1)[0]
    cells = [re.findall(r"<td[^>]*>(.*?)</td>", line) for line in drawn.split("<tr>")[2:]]
    store = ResultStore(tmp_path / "out", readonly=True)
    try:
        kept = LadderBoard(ladder_board(read(store)))
    finally:
        store.close()
    assert cells == [list(r) for r in kept.table().rows]
    assert sorted(r[1:3] for r in cells) == [["ann", "v2"], ["bob", "v1"], ["cy", "v1"]]
    assert "ann" in [r[1] for r in cells] and ["ann", "v1"] not in [r[1:3] for r in cells]  # replaced: below
    assert "1 older version below" in index


def test_the_leaderboard_page_shows_how_sure_the_ranking_is(site):
    """Each row's rank interval and P(ahead of the next), and one chart of every ranked bot's interval, names
    read back exactly."""
    results, out = site
    rows = data.leaderboard_rows(data.compute(data.read_snapshot(results)).board)
    text = (out / "index.html").read_text(encoding="utf-8")
    index = parse(out / "index.html")
    heads = [attrs.get("title") for tag, attrs in index.tags if tag == "th"]
    assert heads[4:6] == ["sort by 95% rank", "sort by P(>next)"]
    cells = [attrs.get("data-v") for tag, attrs in index.tags if tag == "td"]
    width = len(pages.LEADERBOARD_HEAD)
    for i, row in enumerate(rows):
        low, high = row["rank_interval"]
        assert cells[i * width + 4] == str(low * 100_000 + high)
        assert cells[i * width + 5] == ("" if row["p_ahead_next"] is None else str(row["p_ahead_next"]))
    assert rows[-1]["p_ahead_next"] is None and all(r["p_ahead_next"] is not None for r in rows[:-1])
    charts = re.findall(r'<svg[^>]*class="chart intervals".*?</svg>', text, re.S)
    assert len(charts) == 1
    chart = ET.fromstring(charts[0])
    svg_ns = "{http://www.w3.org/2000/svg}"
    assert len(list(chart.iter(svg_ns + "circle"))) == len(rows)  # one dot per ranked bot
    names = [("".join(t.itertext())) for t in chart.iter(svg_ns + "text") if t.get("class") == "name"]
    assert names == [r["bot"] for r in rows]  # board order, hostile names read back exactly
