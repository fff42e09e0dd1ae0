"""The memory-rot figure of notebook 09: retrieval quality as stale records pile up.

`rot_figure(points, after)` draws the `RotPoint`s that
`memlib.consolidate.rot_curve` measures (recall@1 and MRR on questions about
facts that changed), and optionally the same measurement after consolidation as
dotted level lines in the matching colours. Nothing here measures.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from memlib.viz.figures import _go
from memlib.viz.lines import line_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from memlib.consolidate import RotPoint

__all__ = ["rot_figure"]


def rot_figure(points: Sequence["RotPoint"], after: "RotPoint | None" = None) -> "go.Figure":
    """recall@1 and MRR of the current facts against the number of stale records left in the store."""
    if not points:
        raise ValueError("points is empty; pass the list memlib.consolidate.rot_curve returned")
    x = [p.stale for p in points]
    fig = line_figure(x, {"recall@1": [p.recall_at_1 for p in points], "MRR": [p.mrr for p in points]},
                      title="Memory rot: stale records push the current fact down",
                      x_title="stale (superseded) records left in the store",
                      y_title="score on changed facts", y_range=(0, 1))
    if after is not None:
        # Dotted level lines as plain traces: add_hline is slow, and a legend entry reads better.
        ends = [min(x), max(x)]
        for curve, value in zip(fig.data[:2], (after.recall_at_1, after.mrr)):
            fig.add_trace(_go().Scatter(x=ends, y=[value] * 2, mode="lines", line=dict(color=curve.line.color, dash="dot"),
                                        name=f"{curve.name} after consolidation ({value:.2f})"))
    return fig
