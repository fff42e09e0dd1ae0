"""Figures for notebook 05: how deciders compare on accuracy and cost, and how slips degrade them.

Pure builders: they take rows already measured (`SessionsRun.row()`, the
rows of `fallible_sweep`) and return a plain plotly Figure. They measure
nothing themselves and import plotly on first use.
"""

from __future__ import annotations

import math
import re
from typing import Mapping, Sequence

__all__ = ["decider_comparison", "fallible_curve", "markdown_table"]

_ACCURACY_COLOR = "#2f6db5"
_COST_COLOR = "#c8553d"


def _go():
    import plotly.graph_objects as go

    return go


def _subplots(**kwargs):
    from plotly.subplots import make_subplots

    return make_subplots(**kwargs)


def decider_comparison(rows: Sequence[Mapping], *, title: str | None = None, height: int = 340):
    """Two bar panels per decider: accuracy on the early-session questions, and memory calls per answer.

    `rows` are `SessionsRun.row()` dicts (keys "decider", "accuracy", "calls per answer").
    A decider that answered nothing has no cost bar (its cost is infinite) and says so.
    """
    rows = list(rows)
    if not rows:
        raise ValueError("rows is empty; pass SessionsRun.row() for each decider to compare")
    for row in rows:
        missing = {"decider", "accuracy", "calls per answer"} - set(row)
        if missing:
            raise ValueError(f"row {row!r} lacks {sorted(missing)}; use SessionsRun.row()")
    go = _go()
    names = [str(r["decider"]) for r in rows]
    accuracy = [r["accuracy"] for r in rows]
    costs = [r["calls per answer"] for r in rows]
    shown = [c if math.isfinite(c) else None for c in costs]
    fig = _subplots(rows=1, cols=2, subplot_titles=("accuracy on early-session questions",
                                                    "memory calls per correct answer"))
    fig.add_trace(go.Bar(x=names, y=accuracy, marker_color=_ACCURACY_COLOR, name="accuracy",
                         text=[f"{a:.0%}" for a in accuracy], textposition="outside"), row=1, col=1)
    fig.add_trace(go.Bar(x=names, y=shown, marker_color=_COST_COLOR, name="calls per answer",
                         text=[f"{c:.1f}" if math.isfinite(c) else "no answer" for c in costs],
                         textposition="outside"), row=1, col=2)
    top = max([c for c in shown if c is not None] or [1.0])
    fig.update_yaxes(range=[0, 1.15], tickformat=".0%", row=1, col=1)
    fig.update_yaxes(range=[0, top * 1.3], row=1, col=2)
    fig.update_layout(title=title, height=height, showlegend=False, margin=dict(t=60 if title else 40, b=40))
    return fig


def fallible_curve(rows: Sequence[Mapping], *, title: str | None = None, height: int = 340):
    """Accuracy (left axis) and memory calls per correct answer (right axis) against the slip probability.

    `rows` are the rows of `fallible_sweep` (keys "p", "accuracy", "calls per answer").
    """
    rows = sorted(rows, key=lambda r: r["p"])
    if not rows:
        raise ValueError("rows is empty; pass the rows of fallible_sweep(...)")
    go = _go()
    x = [r["p"] for r in rows]
    costs = [r["calls per answer"] if math.isfinite(r["calls per answer"]) else None for r in rows]
    fig = go.Figure([
        go.Scatter(x=x, y=[r["accuracy"] for r in rows], mode="lines+markers", name="accuracy",
                   line_color=_ACCURACY_COLOR),
        go.Scatter(x=x, y=costs, mode="lines+markers", name="memory calls per correct answer",
                   line_color=_COST_COLOR, line_dash="dash", yaxis="y2"),
    ])
    fig.update_layout(
        title=title, height=height, margin=dict(t=60 if title else 30, b=40),
        xaxis=dict(title="probability of each slip per opportunity", tickformat=".0%"),
        yaxis=dict(title="accuracy", range=[0, 1.05], tickformat=".0%"),
        yaxis2=dict(title="calls per correct answer", overlaying="y", side="right", rangemode="tozero"),
        legend=dict(orientation="h", y=-0.25),
    )
    return fig


def markdown_table(rows: Sequence[Mapping], columns: Sequence[str] | None = None) -> str:
    """Rows of dicts as a Markdown table (display it with IPython.display.Markdown).

    Floats between 0 and 1 in an "accuracy" column show as percentages; other
    floats with two decimals; infinity as "no answer".
    """
    rows = list(rows)
    if not rows:
        raise ValueError("rows is empty: nothing to tabulate")
    columns = list(columns or rows[0].keys())

    def cell(key: str, value) -> str:
        if isinstance(value, float):
            if not math.isfinite(value):
                return "no answer"
            return f"{value:.0%}" if key == "accuracy" else f"{value:.2f}"
        # Markdown is live in a notebook: a note's link or image would be fetched, so text is inert.
        return re.sub(r"([\\`*_\[\]<>!|])", r"\\\1", str(value))

    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(cell(c, row.get(c, "")) for c in columns) + " |" for row in rows]
    return "\n".join(lines)
