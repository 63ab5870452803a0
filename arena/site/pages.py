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

from ..tournament.leaderboard import (AHEAD_LABEL, CONFIDENCE_NOTE, EXPOSURE_LABEL, INTERVAL_LABEL, UNRANKED_NOTE,
                                      ranking_rule)
from ..tournament.ladder.board import LadderBoard, note as ladder_note
from ..tournament.rating import DEFAULT_MODEL
from ..tournament.render import Board
from . import svg
from .data import LATEST_COLUMNS, compact
from .templating import Markup, faults_text, fmt, luck_cell, render, row_rank
from .withhold import until_played_out

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
    return json_block(value).replace("\\", "\\\\").replace("'", "\\'")


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


def progress_text(summary: dict[str, Any]) -> str:
    """How far the tournament is, as every page's header says it: ``12 of 40 matches, 1 voided, ...``."""
    total = summary["total"]
    progress = f"{summary['matches']}" + ("" if total is None else f" of {total}") + " matches"
    if summary["voided"]:
        progress += f", {summary['voided']} voided"
    if summary.get("withheld") and summary.get("public"):  # counted nowhere in a public report (data.public_view)
        progress += f", {summary['withheld']} more held back {until_played_out(summary['withheld'])}"
    elif summary.get("withheld"):
        progress += f", {summary['withheld']} withheld until their deals are played out"
    return progress


SUMMARY_JS = "data/summary.js"
"""What a bot page's header shows of how far the tournament is, and the report's version (:func:`summary_js`)."""


def summary_js(summary: dict[str, Any], version: str) -> str:
    """``data/summary.js``: the header facts that change with every match, for the bot pages, which leave them out
    so that a rebuild need not write again the page of a bot that did not play."""
    return script_json("ARENA_SUMMARY", {"version": version, "progress": progress_text(summary),
                                         "bots": summary["bots"]})


def _page(template: str, title: str, summary: dict[str, Any], version: str, depth: int = 0,
          scripts: Sequence[str] = (), shared: bool = False, **values: Any) -> str:
    """``template`` (which extends ``base.html``) rendered with the page frame's values and its own."""
    return render(template, title=title, summary=summary, version=version, up="../" * depth, nav=NAV,
                  progress=progress_text(summary), shared=shared,
                  scripts=[SUMMARY_JS, *scripts] if shared else list(scripts), **values)


LEADERBOARD_HEAD = (("rank", "rank", "num"), ("bot", "bot", "text"), ("mu", "mu ± 3σ", "num"),
                    ("exposure", EXPOSURE_LABEL, "num"), ("rank_interval", INTERVAL_LABEL, "num"),
                    ("p_ahead_next", AHEAD_LABEL, "num"), ("matches", "matches", "num"), ("wins", "wins", "num"),
                    ("average_place", "avg place", "num"), ("average_total", "avg total", "num"),
                    ("luck", "luck", "num"), ("forfeits", "forfeits", "num"), ("fault_count", "faults", "num"),
                    ("mean_ms", "ms/decision", "num"), ("max_ms", "max ms", "num"),
                    ("startup_ms", "start ms", "num"))


def leaderboard_table(rows: Sequence[dict[str, Any]], up: str = "") -> str:
    """The standings as a table that report.js sorts by any column (``data-v``: the value sorted by)."""
    return render("leaderboard_table.html", head=LEADERBOARD_HEAD, rows=rows, up=up)


def board_table(board: Board, everything: bool = False) -> str:
    """Any board's main table (:meth:`..render.Board.table`) as HTML: the cells a terminal shows."""
    return render("board_table.html", table=board.table(everything))


def index_page(rows: Sequence[dict[str, Any]], summary: dict[str, Any], version: str,
               ladder: LadderBoard | None = None) -> str:
    """The leaderboard: small however many matches were played (the match list is a page of its own).
    ``ladder``: a ladder's own board, its current field shown first as ``arena leaderboard`` prints it."""
    unranked = any(r["rank"] is None for r in rows)
    rule = ranking_rule(summary.get("model", DEFAULT_MODEL))
    order = rule[0].upper() + rule[1:] + ("; " + UNRANKED_NOTE if unranked else "")
    ranked = [r for r in rows if r["rank_interval"] is not None]
    shown = ranked[:svg.MAX_INTERVAL_ROWS]
    more = f" Only the best {len(shown)} of {len(ranked)} ranked bots are drawn." if len(shown) < len(ranked) else ""
    chart = svg.rank_intervals_chart(shown, len(ranked)) if ranked else ""
    field = Markup(board_table(ladder)) if ladder is not None else ""
    hidden = 0 if ladder is None else len(ladder.rows) - len(ladder.table().rows)
    return _page("index.html", "Leaderboard", summary, version, table=Markup(leaderboard_table(rows)), rows=rows,
                 order=order, confidence_note=CONFIDENCE_NOTE, ranked=ranked, more=more, chart=Markup(chart),
                 ladder=field, ladder_note=ladder_note(summary.get("model", DEFAULT_MODEL)), hidden=hidden)


def headtohead_page(matrix: dict[str, Any], summary: dict[str, Any], version: str) -> str:
    """The head-to-head heat map, with how to read it."""
    heat = Markup(svg.heat_map(matrix)) if matrix["bots"] else ""
    return _page("headtohead.html", "Head-to-head", summary, version, matrix=matrix, heat_map=heat)


def faults_page(faults: Sequence[dict[str, Any]], rows: Sequence[dict[str, Any]], summary: dict[str, Any],
                version: str, public: bool = False) -> str:
    """Fault counts per bot and kind, then the latest faults, each with the end of its bot's log (``public``:
    without it)."""
    return _page("faults.html", "Faults", summary, version, faults=faults, public=public,
                 kinds=sorted({kind for r in rows for kind in r["faults"]}), faulty=[r for r in rows if r["fault_count"]],
                 latest=list(reversed(faults[-FAULT_DETAILS:])))


MATCH_HEAD = (("index", "#"), ("id", "match"), ("bots", "bots (place, total)"), ("reason", "end"),
              ("decisions", "decisions"), ("seconds", "seconds"), ("faults", "faults"))


def matches_page(bots: Sequence[str], summary: dict[str, Any], version: str, chunks: Sequence[int] = ()) -> str:
    """The match list: rendered by report.js from its ``chunks`` (``data/matches-<k>.js``, loaded by this page
    only, so the leaderboard stays small; :mod:`.chunks`), filtered by bot, sorted by any column, a page at a
    time."""
    return _page("matches.html", "Matches", summary, version, scripts=[f"data/matches-{c}.js" for c in chunks],
                 bots=bots, head=MATCH_HEAD, chunks=chunks)


def bot_page(row: dict[str, Any], history: Sequence[Sequence[float]], faults: Sequence[dict[str, Any]],
             matches: Sequence[dict[str, Any]], summary: dict[str, Any], version: str,
             played: int | None = None, public: bool = False) -> str:
    """One bot: its standing, its rating chart, its latest faults with log tails, its latest matches (``matches``:
    at least its latest :data:`BOT_MATCHES`; ``played``: how many it has in all, by default ``len(matches)``;
    ``public``: the faults without log tails)."""
    bot = row["bot"]
    rank = row_rank(row) + (f' ({row["status"]})' if row.get("status") else "")
    facts = [("rank", rank), ("mu ± 3σ", f'{fmt(row["mu"])} ± {fmt(3 * row["sigma"])}'),
             (EXPOSURE_LABEL, fmt(row["exposure"])), ("matches", str(row["matches"])), ("wins", str(row["wins"])),
             ("average place", fmt(row["average_place"])), ("average total", fmt(row["average_total"])),
             ("luck (points per match over the expected cards)", luck_cell(row.get("luck"))),
             ("forfeits", str(row["forfeits"])), ("faults", faults_text(row["faults"])),
             ("voided matches", str(row["voided"])), ("ms per decision", fmt(row["mean_ms"], 1)),
             ("slowest decision (ms)", fmt(row["max_ms"], 1)), ("start-up (ms)", fmt(row["startup_ms"], 1))]
    latest_matches = list(reversed(matches[-BOT_MATCHES:]))
    return _page("bot.html", bot, summary, version, depth=1, shared=True, bot=bot, facts=facts,
                 history=history, chart=Markup(svg.rating_chart(bot, history)) if len(history) > 1 else "",
                 faults=faults, latest=list(reversed(faults[-BOT_FAULT_DETAILS:])), public=public, matches=matches,
                 latest_matches=latest_matches, latest_rows=Markup(json_block(compact(latest_matches, LATEST_COLUMNS))),
                 played=len(matches) if played is None else played, bot_hash=_hash(bot))


def json_block(value: Any) -> str:
    """``value`` as JSON safe inside ``<script type="application/json">``: no ``<``, ``>`` or ``&`` (so no
    ``</script>`` and no character reference), each as its escape. A data block runs nothing, so a page
    that forbids inline scripts still reads it."""
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=True)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _hash(text: str) -> str:
    """``text`` encoded for a URL fragment parameter."""
    return quote(text, safe="")


