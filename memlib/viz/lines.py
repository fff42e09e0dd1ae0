"""The course's line charts share one layout: `line_figure(x, {name: ys})`.

The experiment, rot and search-latency figures are all "a few named curves over
one x axis"; they build on this helper so their look (template, colours, margins,
legend, hover) is set in one place. A plain `plotly.graph_objects.Figure`, plotly
imported on first use, attributes that exist in plotly 5.24 (Colab) and current
plotly. Nothing here computes the numbers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memlib.viz.figures import PALETTE, TEMPLATE, _go

if TYPE_CHECKING:  # plotly is imported lazily at run time
    import plotly.graph_objects as go

__all__ = ["line_figure"]


def line_figure(x: Sequence, series: Mapping[str, Sequence[float]], *, title: str, x_title: str, y_title: str,
                colors: Mapping[str, str] | None = None, y_range: Sequence[float] | None = None,
                integer_x: bool = False, log: bool = False, height: int = 340) -> "go.Figure":
    """One line with markers per entry of `series` (name -> a y value for each x).

    `colors` picks a colour per name (others take the course palette in order);
    `integer_x` puts a tick on every whole x; `log` makes both axes logarithmic.

    Example:
        >>> fig = line_figure([0, 1], {"paging": [1.0, 0.9], "window": [1.0, 0.2]},
        ...                   title="t", x_title="level", y_title="accuracy")
        >>> [t.name for t in fig.data], list(fig.data[1].y)
        (['paging', 'window'], [1.0, 0.2])
    """
    go = _go()
    x = list(x)
    if not x or not isinstance(series, Mapping) or not series:
        raise ValueError("line_figure needs x values and a non-empty dict {curve name: [y for each x]}")
    fig = go.Figure()
    for i, (name, ys) in enumerate(series.items()):
        ys = list(ys)
        if len(ys) != len(x):
            raise ValueError(f"curve {name!r} has {len(ys)} values for {len(x)} x values; give one per x")
        color = (colors or {}).get(name) or PALETTE[i % len(PALETTE)]
        fig.add_trace(go.Scatter(x=x, y=ys, name=str(name), mode="lines+markers", line=dict(color=color, width=2)))
    fig.update_layout(template=TEMPLATE, title=dict(text=title, x=0.01), height=height, hovermode="closest",
                      xaxis_title=x_title, yaxis_title=y_title, margin=dict(l=60, r=20, t=50, b=40))
    if integer_x:
        fig.update_xaxes(dtick=1)
    if log:
        fig.update_xaxes(type="log")
        fig.update_yaxes(type="log")
    if y_range is not None:
        fig.update_yaxes(range=list(y_range))
    return fig
