"""The report's HTML pages, as strings: every page is complete without the network.

Pages are rendered here from the values of :mod:`.data`; the little JavaScript they use
(sorting, the match list, reloading when served live) is ``assets/report.js``. What that
script needs is embedded in the page or in a ``data/*.js`` file that sets a global, since
browsers refuse ``fetch()`` of ``file://`` pages. Every text from the results directory is
escaped: bot names are user input.
"""

from __future__ import annotations

import json
import re
from typing import Any, Sequence
from urllib.parse import quote

from ..tournament.confidence import interval_text
from ..tournament.evidence import sure_text, tier_text
from ..tournament.leaderboard import (AHEAD_LABEL, CONFIDENCE_NOTE, EXPOSURE_LABEL, INTERVAL_LABEL, UNRANKED_NOTE,
                                      ranking_rule)
from ..tournament.rating import DEFAULT_MODEL
from . import data, svg
from .svg import esc

FAULT_DETAILS = 500
"""faults.html details at most the latest this many faults (all are counted in its table)."""
BOT_FAULT_DETAILS = 100
"""A bot's page details at most its latest this many faults."""
BOT_MATCHES = 50
"""A bot's page lists its latest this many matches; the match list, filtered to it, has all."""

NAV = (("index.html", "Leaderboard"), ("headtohead.html", "Head-to-head"), ("faults.html", "Faults"),
       ("matches.html", "Matches"))


def script_json(name: str, value: Any) -> str:
    """``window.NAME = JSON.parse('value');`` as JavaScript that is also safe inside an HTML ``<script>``
    element. JSON in a string, not a JavaScript literal: a browser reads it about twice as fast, and a
    ladder's match list of 100,000 matches is 12 MB."""
    return f"window.{name} = JSON.parse('" + json_piece(value) + "');\n"


def json_piece(value: Any) -> str:
    """``value`` as :func:`script_json` writes it inside its string. Every escape is of one character, so the
    pieces of a list's items joined by commas in brackets are the list's own: :func:`script_json_list`."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    return text.replace("\\", "\\\\").replace("'", "\\'")


def script_json_list(name: str, pieces: Sequence[str]) -> str:
    """:func:`script_json` of a list whose items' :func:`json_piece` are ``pieces`` (kept between builds)."""
    return f"window.{name} = JSON.parse('[" + ",".join(pieces) + "]');\n"


def script_value(text: str, name: str) -> Any:
    """The value a script of :func:`script_json` sets (``text`` may go on after it)."""
    head = f"window.{name} = JSON.parse('"
    if not text.startswith(head):
        raise ValueError(f"not a script setting window.{name}")
    end = text.index("');\n", len(head))
    return json.loads(re.sub(r"\\(.)", r"\1", text[len(head):end]))


def fmt(value: float | None, digits: int = 2) -> str:
    """A number for a table cell; ``-`` for none."""
    return "-" if value is None else f"{round(value, digits) + 0.0:.{digits}f}"


def _v(value: Any) -> str:
    """The sort key of a cell, as a data attribute value (none sorts last)."""
    return "" if value is None else esc(value)


def progress_text(summary: dict[str, Any]) -> str:
    """How far the tournament is, as every page's header says it: ``12 of 40 matches, 1 voided, ...``."""
    total = summary["total"]
    progress = f"{summary['matches']}" + ("" if total is None else f" of {total}") + " matches"
    if summary["voided"]:
        progress += f", {summary['voided']} voided"
    if summary.get("withheld"):
        progress += f", {summary['withheld']} withheld until their deals are played out"
    return progress


SUMMARY_JS = "data/summary.js"
"""What a bot page's header shows of how far the tournament is, and the report's version (:func:`summary_js`)."""


def summary_js(summary: dict[str, Any], version: str) -> str:
    """``data/summary.js``: the header facts that change with every match, for the bot pages, which leave them out
    so that a rebuild need not write again the page of a bot that did not play."""
    return script_json("ARENA_SUMMARY", {"version": version, "progress": progress_text(summary),
                                         "bots": summary["bots"]})


def layout(title: str, body: str, summary: dict[str, Any], version: str, depth: int = 0,
           scripts: Sequence[str] = (), shared: bool = False) -> str:
    """A whole page: head, navigation, heading facts, ``body``; assets and links relative to ``depth``.
    ``shared``: the facts that change with every match (and the version) are filled in by report.js from
    :data:`SUMMARY_JS`, so the page changes only with what it shows itself (a bot page)."""
    up = "../" * depth
    nav = " ".join(f'<a href="{up}{href}">{label}</a>' for href, label in NAV)
    kind = "ladder" if summary["ladder"] else "tournament"
    if shared:
        scripts = [SUMMARY_JS, *scripts]
        meta, progress, bots = "", '<span data-summary="progress"></span>', '<span data-summary="bots"></span>'
    else:
        meta = f'<meta name="arena-version" content="{esc(version)}">'
        progress, bots = esc(progress_text(summary)), str(summary["bots"])
    extra = "".join(f'<script src="{up}{esc(src)}"></script>' for src in scripts)
    return (
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"{meta}<title>{esc(title)} · {esc(summary['name'])}</title>"
        f'<link rel="icon" href="data:,"><link rel="stylesheet" href="{up}assets/report.css"></head>\n'
        f'<body data-root="{esc(up)}"><header><nav>{nav}</nav>'
        f'<p class="facts">{kind} <b>{esc(summary["name"])}</b> · rules {esc(summary["preset"])} · '
        f'{progress} · {bots} bots</p></header>\n'
        f"<main><h1>{esc(title)}</h1>\n{body}</main>\n"
        f'{extra}<script src="{up}assets/report.js"></script></body></html>\n'
    )


def _bot_link(bot: str, page: str, up: str = "") -> str:
    return f'<a href="{up}bots/{esc(page)}.html">{esc(bot)}</a>'


def _faults_text(faults: dict[str, int]) -> str:
    return " ".join(f"{kind}:{count}" for kind, count in faults.items()) or "-"


LEADERBOARD_HEAD = (("rank", "rank", "num"), ("bot", "bot", "text"), ("mu", "mu ± 3σ", "num"),
                    ("exposure", EXPOSURE_LABEL, "num"), ("rank_interval", INTERVAL_LABEL, "num"),
                    ("p_ahead_next", AHEAD_LABEL, "num"), ("matches", "matches", "num"), ("wins", "wins", "num"),
                    ("average_place", "avg place", "num"), ("average_total", "avg total", "num"),
                    ("forfeits", "forfeits", "num"), ("fault_count", "faults", "num"),
                    ("mean_ms", "ms/decision", "num"), ("max_ms", "max ms", "num"),
                    ("startup_ms", "start ms", "num"))


def row_rank(row: dict[str, Any]) -> str:
    """A row's rank as every board shows it: its tier, ``2=`` when others share it."""
    return tier_text(row["rank"], row.get("tier"), bool(row.get("tier_shared")))


def leaderboard_table(rows: Sequence[dict[str, Any]], up: str = "") -> str:
    """The standings as a table that report.js sorts by any column (``data-v``: the value sorted by)."""
    head = "".join(f'<th data-type="{kind}" title="sort by {esc(label)}">{esc(label)}</th>'
                   for _, label, kind in LEADERBOARD_HEAD)
    lines = []
    for r in rows:
        cells = [
            (r["rank"], row_rank(r)),
            (r["bot"], _bot_link(r["bot"], r["page"], up)
             + (f' <span class="status">{esc(r["status"])}</span>' if r.get("status") else "")),
            (r["mu"], f'{fmt(r["mu"])} <span class="pm">± {fmt(3 * r["sigma"])}</span>'),
            (r["exposure"], fmt(r["exposure"])),
            (None if r["rank_interval"] is None else r["rank_interval"][0] * 100_000 + r["rank_interval"][1],
             interval_text(r["rank_interval"])),  # sorted by the best rank, then the worst
            (r["p_ahead_next"], sure_text(r["p_ahead_next"])),
            (r["matches"], str(r["matches"])),
            (r["wins"], str(r["wins"])),
            (r["average_place"], fmt(r["average_place"])),
            (r["average_total"], fmt(r["average_total"])),
            (r["forfeits"], str(r["forfeits"])),
            (r["fault_count"], f'<span title="{esc(_faults_text(r["faults"]))}">{r["fault_count"]}</span>'),
            (r["mean_ms"], fmt(r["mean_ms"], 1)),
            (r["max_ms"], fmt(r["max_ms"], 1)),
            (r["startup_ms"], fmt(r["startup_ms"], 1)),
        ]
        lines.append("<tr>" + "".join(f'<td data-v="{_v(v)}">{html}</td>' for v, html in cells) + "</tr>")
    return (f'<table class="board sortable"><thead><tr>{head}</tr></thead>\n<tbody>\n'
            + "\n".join(lines) + "\n</tbody></table>")


def index_page(rows: Sequence[dict[str, Any]], summary: dict[str, Any], version: str) -> str:
    """The leaderboard: small however many matches were played (the match list is a page of its own)."""
    unranked = any(r["rank"] is None for r in rows)
    rule = ranking_rule(summary.get("model", DEFAULT_MODEL))
    order = rule[0].upper() + rule[1:] + ("; " + UNRANKED_NOTE if unranked else "")
    note = (f'<p class="note">{esc(order)}. The mu ± 3σ column shows the spread. Click a column heading to '
            "sort. ms/decision: mean time from asking a bot to reading its reply; start ms: from starting its "
            f"process to its ready. {esc(CONFIDENCE_NOTE)}.</p>")
    empty = "" if rows else '<p class="empty">No bots yet.</p>'
    ranked = [r for r in rows if r["rank_interval"] is not None]
    chart = ""
    if ranked:
        shown = ranked[:svg.MAX_INTERVAL_ROWS]
        more = (f" Only the best {len(shown)} of {len(ranked)} ranked bots are drawn."
                if len(shown) < len(ranked) else "")
        chart = ("<h2>How sure is this ranking</h2>\n"
                 f'<p class="note">Each ranked bot\'s 95% rank interval (bar) and its rank on the board (dot): '
                 "where bars overlap, the rating model cannot yet tell those bots apart. A rank shown as 2= is "
                 "a tier: the deals those bots shared show them within the margin of each other."
                 f"{esc(more)}</p>\n"
                 f'<div class="scroll">{svg.rank_intervals_chart(shown, len(ranked))}</div>')
    return layout("Leaderboard", leaderboard_table(rows) + empty + note + chart, summary, version)


def headtohead_page(matrix: dict[str, Any], summary: dict[str, Any], version: str) -> str:
    """The head-to-head heat map, with how to read it."""
    if not matrix["bots"]:
        body = '<p class="empty">No matches yet.</p>'
    else:
        more = (f' Only the best {len(matrix["bots"])} bots are shown; {matrix["omitted"]} more are on their '
                "own pages." if matrix["omitted"] else "")
        body = ('<p class="note">Row bot against column bot: the share (percent) of the matches they shared in '
                "which the row bot finished ahead, a level finish counting half. Green: ahead, red: behind, "
                f"grey: never met. Hover a cell for the counts.{esc(more)}</p>\n"
                f'<div class="scroll">{svg.heat_map(matrix)}</div>')
    return layout("Head-to-head", body, summary, version)


def _fault_rows(faults: Sequence[dict[str, Any]], up: str = "", with_bot: bool = True, public: bool = False) -> str:
    """Each fault as a line that unfolds to the end of its bot's log (``public``: no log, not even its last line)."""
    items = []
    for f in faults:
        where = f"round {f['round']}, decision {f['decision']}" if f["round"] is not None else ""
        at = f"&amp;decision={f['decision']}" if isinstance(f["decision"], int) else ""  # the viewer finds its step
        key = f'{f["index"]}/{f["seat"]}/{esc(f["decision"])}/{esc(f["kind"])}'  # kept open across a live reload
        bot = f"{_bot_link(f['bot'], f['page'], up)} · " if with_bot else ""
        tail = (f"<pre>{esc(f['log_tail'])}</pre>" if f["log_tail"] else '<p class="empty">(nothing on stderr)</p>') \
            if not public else '<p class="empty">(a public report shows no log)</p>'
        # the line saying what went wrong ends a traceback: shown in the summary too, read first
        raised = (f'<code class="raised">{esc(f["exception"])}</code>'
                  if f.get("exception") and "\n" in f["log_tail"] and not public else "")
        items.append(
            f'<details class="fault"><summary data-key="{key}">'
            f'{bot}<b>{esc(f["kind"])}</b> in '
            f'<a href="{up}viewer.html#match={f["index"]}&amp;seat={f["seat"]}{at}">{esc(f["match"])}</a> '
            f'(seat {f["seat"]}{", " + esc(where) if where else ""}): {esc(f["detail"])}{raised}</summary>{tail}'
            '</details>')
    return "\n".join(items)


def faults_page(faults: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]], summary: dict[str, Any],
                version: str, public: bool = False) -> str:
    """Fault counts per bot and kind, then the latest faults, each with the end of its bot's log (``public``:
    without it)."""
    kinds = sorted({kind for r in rows for kind in r["faults"]})
    faulty = [r for r in rows if r["fault_count"]]
    if not faulty:
        return layout("Faults", '<p class="empty">No faults: every bot answered every request in time, '
                      "legally.</p>", summary, version)
    head = "".join(f'<th data-type="num">{esc(k)}</th>' for k in kinds)
    lines = []
    for r in faulty:
        cells = "".join(f'<td data-v="{r["faults"].get(k, 0)}">{r["faults"].get(k, 0)}</td>' for k in kinds)
        lines.append(f'<tr><td data-v="{esc(r["bot"])}">{_bot_link(r["bot"], r["page"])}</td>'
                     f'<td data-v="{r["fault_count"]}">{r["fault_count"]}</td>'
                     f'<td data-v="{r["forfeits"]}">{r["forfeits"]}</td>{cells}</tr>')
    table = (f'<table class="sortable byname"><thead><tr><th data-type="text">bot</th><th data-type="num">faults</th>'
             f'<th data-type="num">forfeits</th>{head}</tr></thead><tbody>{"".join(lines)}</tbody></table>')
    latest = list(reversed(faults[-FAULT_DETAILS:]))
    shown = (f"The latest {len(latest)} of {len(faults)} faults" if len(faults) > len(latest)
             else f"All {len(faults)} faults")
    said = ("A public report shows no bot's log" if public
            else "Each with the end of what its bot wrote on stderr")
    body = (table + f'<h2>{shown}, latest first</h2><p class="note">{said}; the match link opens the replay as '
            "that seat saw it.</p>\n" + _fault_rows(latest, public=public))
    return layout("Faults", body, summary, version)


MATCH_HEAD = (("index", "#"), ("id", "match"), ("bots", "bots (place, total)"), ("reason", "end"),
              ("decisions", "decisions"), ("seconds", "seconds"), ("faults", "faults"))


def matches_page(bots: Sequence[str], summary: dict[str, Any], version: str, chunks: Sequence[int] = ()) -> str:
    """The match list: rendered by report.js from its ``chunks`` (``data/matches-<k>.js``, loaded by this page
    only, so the leaderboard stays small; :mod:`.chunks`), filtered by bot, sorted by any column, a page at a
    time."""
    options = "".join(f'<option value="{esc(b)}">{esc(b)}</option>' for b in sorted(bots))
    head = "".join(f'<th data-key="{key}">{esc(label)}</th>' for key, label in MATCH_HEAD)
    body = (f'<p class="controls"><label>bot <select id="bot-filter"><option value="">all</option>{options}'
            '</select></label> <span id="match-count"></span> <span id="pager"></span></p>'
            f'<table id="matches" class="matches" data-chunks="{" ".join(str(c) for c in chunks)}">'
            f'<thead><tr>{head}</tr></thead><tbody></tbody></table>'
            '<noscript><p>The match list needs JavaScript.</p></noscript>'
            '<p class="note">A match opens in the replay viewer; a bot\'s name there opens it as that seat saw '
            "it.</p>")
    return layout("Matches", body, summary, version, scripts=[f"data/matches-{c}.js" for c in chunks])


def _match_rows(matches: Sequence[dict[str, Any]], bot: str, up: str) -> str:
    lines = []
    for m in matches:
        seats = ", ".join(
            (f'<a href="{up}viewer.html#match={m["index"]}&amp;seat={seat}"'
             f'{" class=self" if name == bot else ""}>{esc(name)}</a> ({m["places"][seat]}, {m["totals"][seat]}'
             f'{", forfeited" if m["forfeited"][seat] else ""})')
            for seat, name in enumerate(m["bots"]))
        lines.append(f'<tr><td>{m["index"]}</td><td><a href="{up}viewer.html#match={m["index"]}">{esc(m["id"])}'
                     f'</a></td><td>{seats}</td><td>{esc(m["reason"])}</td><td>{m["faults"]}</td></tr>')
    return ("<table class=\"matches\"><thead><tr><th>#</th><th>match</th><th>bots (place, total)</th><th>end</th><th>faults</th>"
            "</tr></thead><tbody>" + "".join(lines) + "</tbody></table>")


def bot_page(row: dict[str, Any], history: Sequence[Sequence[float]], faults: Sequence[dict[str, Any]],
             matches: Sequence[dict[str, Any]], summary: dict[str, Any], version: str,
             played: int | None = None, public: bool = False) -> str:
    """One bot: its standing, its rating chart, its latest faults with log tails, its latest matches (``matches``:
    at least its latest :data:`BOT_MATCHES`; ``played``: how many it has in all, by default ``len(matches)``;
    ``public``: the faults without log tails)."""
    up = "../"
    bot = row["bot"]
    rank = row_rank(row) + (f' ({row["status"]})' if row.get("status") else "")
    facts = [("rank", rank), ("mu ± 3σ", f'{fmt(row["mu"])} ± {fmt(3 * row["sigma"])}'),
             (EXPOSURE_LABEL, fmt(row["exposure"])), ("matches", str(row["matches"])), ("wins", str(row["wins"])),
             ("average place", fmt(row["average_place"])), ("average total", fmt(row["average_total"])),
             ("forfeits", str(row["forfeits"])), ("faults", _faults_text(row["faults"])),
             ("voided matches", str(row["voided"])), ("ms per decision", fmt(row["mean_ms"], 1)),
             ("slowest decision (ms)", fmt(row["max_ms"], 1)), ("start-up (ms)", fmt(row["startup_ms"], 1))]
    parts = ['<dl class="facts">' + "".join(f"<dt>{esc(k)}</dt><dd>{esc(v)}</dd>" for k, v in facts) + "</dl>",
             "<h2>Rating</h2>", svg.rating_chart(bot, history) if len(history) > 1 else
             '<p class="empty">No match yet.</p>']
    if faults:
        latest = list(reversed(faults[-BOT_FAULT_DETAILS:]))
        parts.append(f"<h2>Faults ({len(faults)}{', latest ' + str(len(latest)) if len(latest) < len(faults) else ''}"
                     ")</h2>" + _fault_rows(latest, up, with_bot=False, public=public))
    latest_matches = list(reversed(matches[-BOT_MATCHES:]))
    played = len(matches) if played is None else played
    parts.append(f'<h2>Matches</h2><p><a href="{up}matches.html#bot={esc(_hash(bot))}">all {played} '
                 f"matches of {esc(bot)}</a>" + (f"; the latest {len(latest_matches)}:" if matches else "") + "</p>")
    if matches:
        parts.append(_match_rows(latest_matches, bot, up))
    return layout(bot, "\n".join(parts), summary, version, depth=1, shared=True)


def _hash(text: str) -> str:
    """``text`` encoded for a URL fragment parameter."""
    return quote(text, safe="")


