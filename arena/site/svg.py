"""Charts as inline SVG strings drawn in Python: no chart library, nothing fetched at view time.

Every text that comes from a results directory (bot names above all) goes through
:func:`esc`; numbers are formatted here, never taken as text.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any, Sequence

from .data import score

MAX_POINTS = 400
"""A chart draws at most this many points: a bot with 10,000 matches still gives a small page."""


def esc(text: object) -> str:
    """Text safe in SVG/HTML content and in quoted attributes."""
    return escape(str(text), quote=True)


def _n(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def thin(points: Sequence[Sequence[float]], limit: int = MAX_POINTS) -> list[Sequence[float]]:
    """At most ``limit`` points, evenly spaced, always keeping the first and the last."""
    if len(points) <= limit:
        return list(points)
    step = (len(points) - 1) / (limit - 1)
    return [points[round(i * step)] for i in range(limit)]


def _ticks(low: float, high: float, count: int = 6) -> list[float]:
    """Round numbers between ``low`` and ``high`` for axis labels."""
    span = high - low
    if span <= 0:
        return [low]
    raw = span / count
    magnitude = 10 ** math.floor(math.log10(raw))
    step = next(m * magnitude for m in (1, 2, 5, 10) if m * magnitude >= raw)
    first = -(-low // step) * step
    ticks = []
    value = first
    while value <= high + 1e-9:
        ticks.append(round(value, 6) + 0.0)
        value += step
    return ticks


def rating_chart(bot: str, history: Sequence[Sequence[float]], width: int = 640, height: int = 260) -> str:
    """``bot``'s mu (line) and mu ± 3 sigma (band) against matches played, from ``[[played, mu, sigma], ...]``."""
    points = thin(history)
    left, right, top, bottom = 48, 12, 24, 34
    plot_w, plot_h = width - left - right, height - top - bottom
    lows = [p[1] - 3 * p[2] for p in points]
    highs = [p[1] + 3 * p[2] for p in points]
    y_low, y_high = min(lows), max(highs)
    if y_high - y_low < 1:
        y_low, y_high = y_low - 0.5, y_high + 0.5
    x_high = max(float(points[-1][0]), 1.0)

    def x(played: float) -> float:
        return left + plot_w * played / x_high

    def y(value: float) -> float:
        return top + plot_h * (y_high - value) / (y_high - y_low)

    band = " ".join(f"{_n(x(p[0]))},{_n(y(h))}" for p, h in zip(points, highs))
    band += " " + " ".join(f"{_n(x(p[0]))},{_n(y(lo))}" for p, lo in reversed(list(zip(points, lows))))
    line = " ".join(f"{_n(x(p[0]))},{_n(y(p[1]))}" for p in points)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-label="rating of {esc(bot)}">',
             f"<title>rating of {esc(bot)}: mu and mu ± 3σ after each match</title>"]
    for tick in _ticks(y_low, y_high):
        parts.append(f'<line class="grid" x1="{left}" x2="{width - right}" y1="{_n(y(tick))}" y2="{_n(y(tick))}"/>'
                     f'<text class="tick" x="{left - 4}" y="{_n(y(tick) + 4)}" text-anchor="end">{_n(tick)}</text>')
    for tick in _ticks(0, x_high):
        if tick == int(tick):
            parts.append(f'<text class="tick" x="{_n(x(tick))}" y="{height - bottom + 16}" '
                         f'text-anchor="middle">{int(tick)}</text>')
    parts.append(f'<polygon class="band" points="{band}"/>')
    parts.append(f'<polyline class="mu" points="{line}"/>')
    last = points[-1]
    parts.append(f'<text class="label" x="{left}" y="14">mu {_n(last[1])} ± 3σ ({_n(3 * last[2])}) after '
                 f'{int(last[0])} matches</text>')
    parts.append(f'<text class="axis" x="{left + plot_w / 2:.0f}" y="{height - 4}" text-anchor="middle">'
                 "matches played</text>")
    parts.append("</svg>")
    return "".join(parts)


def _colour(value: float) -> str:
    """Red (always behind) through pale yellow (even) to green (always ahead)."""
    value = min(max(value, 0.0), 1.0)
    if value < 0.5:
        t = value / 0.5
        rgb = (214 + (250 - 214) * t, 69 + (240 - 69) * t, 65 + (190 - 65) * t)
    else:
        t = (value - 0.5) / 0.5
        rgb = (250 + (39 - 250) * t, 240 + (158 - 240) * t, 190 + (82 - 190) * t)
    return "#" + "".join(f"{round(c):02x}" for c in rgb)


def heat_map(matrix: dict[str, Any], prefix: str = "bots/") -> str:
    """The head-to-head matrix of :func:`data.head_to_head`: row bot against column bot, coloured by the
    share of shared matches the row bot finished ahead (a level one counting half)."""
    bots: list[str] = matrix["bots"]
    pages: list[str] = matrix["pages"]
    cell = 30
    label = min(max((len(b) for b in bots), default=4) * 7 + 12, 220)
    size = len(bots) * cell
    width, height = label + size + 8, label + size + 8
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="heat" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-label="head-to-head heat map">']
    for i, (bot, page) in enumerate(zip(bots, pages)):
        cy = label + i * cell + cell / 2 + 4
        parts.append(f'<a href="{esc(prefix + page)}.html"><text class="name" x="{label - 6}" y="{_n(cy)}" '
                     f'text-anchor="end">{esc(bot)}</text></a>')
        cx = label + i * cell + cell / 2 + 4
        parts.append(f'<a href="{esc(prefix + page)}.html"><text class="name" x="{_n(cx)}" y="{label - 6}" '
                     f'transform="rotate(-60 {_n(cx)} {label - 6})">{esc(bot)}</text></a>')
    for i, row in enumerate(matrix["cells"]):
        for j, value in enumerate(row):
            x, y = label + j * cell, label + i * cell
            if value is None:
                parts.append(f'<rect class="none" x="{x}" y="{y}" width="{cell - 1}" height="{cell - 1}"/>')
                continue
            share = score(value)
            tip = (f"{bots[i]} vs {bots[j]}: ahead {value['ahead']}, behind {value['behind']}, "
                   f"level {value['level']} of {value['shared']} shared")
            parts.append(f'<rect x="{x}" y="{y}" width="{cell - 1}" height="{cell - 1}" fill="{_colour(share)}">'
                         f"<title>{esc(tip)}</title></rect>"
                         f'<text class="share" x="{x + cell / 2 - 0.5}" y="{y + cell / 2 + 4}" '
                         f'text-anchor="middle">{round(share * 100)}</text>')
    parts.append("</svg>")
    return "".join(parts)


MAX_INTERVAL_ROWS = 40
"""The rank interval chart draws the best this many ranked bots: a ladder of 1,000 would make a page of bars."""


def rank_intervals_chart(rows: Sequence[dict[str, Any]], ranked: int, prefix: str = "bots/") -> str:
    """One line per ranked bot of :func:`data.leaderboard_rows` (board order): its 95% rank interval as a bar over
    the ranks 1 .. ``ranked``, its board rank as a dot, hover for the numbers."""
    line, label = 20, min(max((len(r["bot"]) for r in rows), default=4) * 7 + 12, 220)
    top, bottom, right = 8, 30, 16
    plot_w = max(360, min(40 * ranked, 640))
    width, height = label + plot_w + right, top + line * len(rows) + bottom
    step = plot_w / max(ranked, 1)

    def x(rank: float) -> float:
        return label + step * (rank - 0.5)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" class="chart intervals" viewBox="0 0 {width} {height}" '
             f'width="{width}" height="{height}" role="img" aria-label="95% rank interval of each ranked bot">',
             "<title>95% rank interval (bar) and board rank (dot) of each ranked bot</title>"]
    ticks = [t for t in _ticks(1, ranked, min(ranked, 10)) if t == int(t)] if ranked > 1 else [1.0]
    for tick in ticks:
        parts.append(f'<line class="grid" x1="{_n(x(tick))}" x2="{_n(x(tick))}" y1="{top}" '
                     f'y2="{top + line * len(rows)}"/><text class="tick" x="{_n(x(tick))}" '
                     f'y="{top + line * len(rows) + 14}" text-anchor="middle">{int(tick)}</text>')
    for i, r in enumerate(rows):
        low, high = r["rank_interval"]
        cy = top + line * i + line / 2
        p = r["p_ahead_next"]
        tip = (f"{r['bot']}: rank {r['rank']}, 95% interval {low}-{high}"
               + ("" if p is None else f", sure ahead of the next {p:.3f}"))
        parts.append(f'<a href="{esc(prefix + r["page"])}.html"><text class="name" x="{label - 6}" y="{_n(cy + 4)}" '
                     f'text-anchor="end">{esc(r["bot"])}</text></a>')
        parts.append(f'<g><title>{esc(tip)}</title>'
                     f'<rect class="band" x="{_n(x(low) - step * 0.4)}" y="{_n(cy - 5)}" '
                     f'width="{_n(x(high) - x(low) + step * 0.8)}" height="10" rx="3"/>'
                     f'<circle class="rank" cx="{_n(x(r["rank"]))}" cy="{_n(cy)}" r="4"/></g>')
    parts.append(f'<text class="axis" x="{label + plot_w / 2:.0f}" y="{height - 2}" text-anchor="middle">'
                 "rank (1 is best)</text>")
    parts.append("</svg>")
    return "".join(parts)
