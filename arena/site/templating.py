"""The report's page templates (``templates/*.html``, Jinja2) and the one environment that renders them.

Autoescaping is on for every template: a value from the results directory (a bot's name, a fault's
detail, a log's tail) is escaped wherever a template writes it, and only what the report's own code
made as HTML (:class:`Markup`: a chart, a link, a table it rendered) is written as it is. Values are
escaped as :func:`html.escape` does (``&#x27;``, ``&quot;``), the same as the charts' text, so a page
reads the same whichever of the two wrote a name.
"""

from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Any

import jinja2
from markupsafe import Markup

from ..tournament.confidence import interval_text
from ..tournament.evidence import sure_text, tier_text
from ..tournament.leaderboard import faults_text, luck_cell, number_cell

__all__ = ["Markup", "faults_text", "fmt", "luck_cell", "render", "row_rank"]


def _escaped(value: Any) -> Markup:
    """Every ``{{ value }}``: HTML the code made stays as it is, anything else is escaped."""
    if isinstance(value, Markup):
        return value
    if type(value) is int:  # most cells: a count, an index, a seat; digits need no escaping
        return Markup(int.__repr__(value))
    return Markup(escape(str(value), quote=True))


def fmt(value: float | None, digits: int = 2) -> str:
    """A number for a table cell, as every board prints it (``-`` for none)."""
    return number_cell(value, digits)


def _bot_link(bot: str, page: str, up: str = "") -> Markup:
    return Markup(f'<a href="{up}bots/{_escaped(page)}.html">{_escaped(bot)}</a>')


def row_rank(row: dict[str, Any]) -> str:
    """A row's rank as every board shows it: its tier, ``2=`` when others share it."""
    return tier_text(row["rank"], row.get("tier"), bool(row.get("tier_shared")))


_ENV = jinja2.Environment(loader=jinja2.FileSystemLoader(Path(__file__).with_name("templates")),
                          autoescape=True, finalize=_escaped, keep_trailing_newline=True, auto_reload=False,
                          undefined=jinja2.StrictUndefined)
_ENV.globals.update(fmt=fmt, bot_link=_bot_link, faults_text=faults_text, luck_cell=luck_cell, row_rank=row_rank,
                    interval_text=interval_text, sure_text=sure_text)
_ENV.filters["v"] = lambda value: "" if value is None else value  # a cell's sort key: none sorts last


def render(template: str, **values: Any) -> str:
    """``template`` rendered with ``values``."""
    return _ENV.get_template(template).render(**values)
