"""Search latency against store size: one curve per engine, on log-log axes.

Draws the dict that `memlib.scaling.search_latency` (notebook 03) and
`benchmarks/bench.py` return ({"sizes", "median_ms": {engine: {size: ms}}}):
`search_latency_figure` as a plotly figure, `search_latency_svg` as plain SVG
text (for a README, where neither plotly nor a browser runs). Both use the same
colours, and dash the SQLite-backed stores. Nothing here measures.
"""

from __future__ import annotations

import html
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING

from memlib.viz.lines import line_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

__all__ = ["ENGINE_COLORS", "search_latency_figure", "search_latency_svg"]

#: Colours given to engines in the order they appear (enough for the harness's dozen).
ENGINE_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#7f7f7f",
                 "#17becf", "#bcbd22")
_TITLE = "Top-10 search latency vs records (median ms per query)"


def _series(search: Mapping) -> tuple[list[int], dict[str, list[float]]]:
    try:
        sizes, medians = list(search["sizes"]), search["median_ms"]
        series = {name: [by_n[n] for n in sizes] for name, by_n in medians.items()}
    except (KeyError, TypeError) as exc:
        raise ValueError("expected the dict search_latency returns: {'sizes': [...], "
                         "'median_ms': {engine: {size: ms}}}") from exc
    if not sizes or not series:
        raise ValueError("no measurements to draw: sizes and median_ms must not be empty")
    return sizes, series


def _dashed(name: str) -> bool:
    return name.startswith("SQLiteArchivalStore")


def search_latency_figure(search: Mapping) -> "go.Figure":
    """One line per engine, records on x and ms per query on y, both logarithmic.

    Example:
        >>> fig = search_latency_figure({"sizes": [10, 100], "median_ms": {"bm25": {10: 0.1, 100: 0.2}}})
        >>> fig.data[0].name, list(fig.data[0].x), fig.layout.xaxis.type
        ('bm25', [10, 100], 'log')
    """
    sizes, series = _series(search)
    colors = {name: ENGINE_COLORS[i % len(ENGINE_COLORS)] for i, name in enumerate(series)}
    fig = line_figure(sizes, series, title=_TITLE, x_title="records", y_title="ms per query", colors=colors,
                      log=True, height=420)
    for trace in fig.data:
        if _dashed(trace.name):
            trace.line.dash = "dash"
    return fig


def search_latency_svg(search: Mapping, width: int = 860, height: int = 440) -> str:
    """The same chart as a standalone SVG document (log-log, legend on the right)."""
    sizes, series = _series(search)
    values = [v for ys in series.values() for v in ys if v > 0]
    if not values:
        raise ValueError("every latency is zero; nothing to draw on a log scale")
    lo, hi = math.floor(math.log10(min(values))), math.ceil(math.log10(max(values)))
    hi = hi if hi > lo else lo + 1
    left, right, top, bottom = 70, 320, 40, 60  # the legend (engine names) on the right
    pw, ph = width - left - right, height - top - bottom
    xs = [math.log10(n) for n in sizes]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1

    def px(n):
        return left + (math.log10(n) - x0) / (x1 - x0) * pw

    def py(ms):
        return top + (hi - math.log10(ms)) / (hi - lo) * ph

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{width}" height="{height}" fill="white"/>',
           f'<text x="{left}" y="22" font-size="15">{_TITLE}</text>']
    for e in range(lo, hi + 1):
        y = py(10 ** e)
        out.append(f'<line x1="{left}" x2="{left + pw}" y1="{y:.1f}" y2="{y:.1f}" stroke="#ddd"/>')
        out.append(f'<text x="{left - 8}" y="{y + 4:.1f}" text-anchor="end">{10 ** e:g}</text>')
    for n in sizes:
        x = px(n)
        out.append(f'<line x1="{x:.1f}" x2="{x:.1f}" y1="{top}" y2="{top + ph}" stroke="#eee"/>')
        out.append(f'<text x="{x:.1f}" y="{top + ph + 18}" text-anchor="middle">{n:,}</text>')
    out.append(f'<text x="{left + pw / 2}" y="{height - 15}" text-anchor="middle">records in the store</text>')
    for k, (name, ys) in enumerate(series.items()):
        color = ENGINE_COLORS[k % len(ENGINE_COLORS)]
        points = [(px(n), py(v)) for n, v in zip(sizes, ys) if v > 0]
        dash = ' stroke-dasharray="5,3"' if _dashed(name) else ""
        out.append(f'<polyline points="{" ".join(f"{x:.1f},{y:.1f}" for x, y in points)}" fill="none" '
                   f'stroke="{color}" stroke-width="2"{dash}/>')
        out += [f'<circle cx="{x:.1f}" cy="{y:.1f}" r="3" fill="{color}"/>' for x, y in points]
        ly = top + 10 + 18 * k
        out.append(f'<line x1="{left + pw + 15}" x2="{left + pw + 35}" y1="{ly}" y2="{ly}" stroke="{color}" '
                   f'stroke-width="2"{dash}/>')
        out.append(f'<text x="{left + pw + 40}" y="{ly + 4}">{html.escape(name)}</text>')
    out.append("</svg>")
    return "\n".join(out)

