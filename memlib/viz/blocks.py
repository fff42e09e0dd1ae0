"""A figure of typed core memory: one bar per block, filled up to its limit (notebook 08).

`block_fill_bars` takes a `memlib.core_memory.CoreMemory`, a typed document
``{"blocks": [...]}`` or any object with ``to_document()`` (the exercise's
TypedCoreMemory) and returns a plain plotly figure: characters used against
each block's own limit, read-only blocks hatched, nearly full blocks in
orange and full ones in red. It draws; it does not edit or validate memory.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from memlib.viz.figures import SEGMENT_COLORS, TEMPLATE, _go

if TYPE_CHECKING:  # plotly is imported lazily at run time
    import plotly.graph_objects as go

__all__ = ["block_fill_bars", "block_rows", "NEARLY_FULL"]

#: Share of its limit from which a block is drawn as nearly full.
NEARLY_FULL = 0.8
_FULL_COLOR = "#d62728"
_NEARLY_COLOR = "#f08c00"


def block_rows(core_memory: Any) -> list[dict]:
    """The blocks as dicts with label, chars, limit, fill, read_only and description.

    Example:
        >>> block_rows({"blocks": [{"label": "human", "value": "Ada", "limit": 10}]})[0]["fill"]
        0.3
    """
    if hasattr(core_memory, "to_document"):
        document = core_memory.to_document()
    elif hasattr(core_memory, "to_dict"):
        document = core_memory.to_dict()
    else:
        document = core_memory
    if not isinstance(document, Mapping) or not isinstance(document.get("blocks"), list):
        raise TypeError(
            "block_fill_bars needs core memory with blocks: a CoreMemory, a {'blocks': [...]} document "
            f"or an object with to_document(); got {type(core_memory).__name__}"
        )
    rows = []
    for block in document["blocks"]:
        value, limit = str(block.get("value", "")), int(block.get("limit", 0) or 0)
        rows.append({
            "label": str(block.get("label", "?")), "chars": len(value), "limit": limit,
            "fill": len(value) / limit if limit else 0.0, "read_only": bool(block.get("read_only", False)),
            "description": str(block.get("description", "") or ""),
        })
    return rows


def block_fill_bars(core_memory: Any, *, title: str | None = None, height: int | None = None) -> "go.Figure":
    """Horizontal bars: each block's characters against its own limit (the grey part is free).

    Example:
        >>> from memlib.core_memory import CoreMemory
        >>> fig = block_fill_bars(CoreMemory.default(human="Name: Ada"))
        >>> list(fig.data[0].y), list(fig.data[0].x)
        (['persona', 'human'], [0, 9])
    """
    go = _go()
    rows = block_rows(core_memory)
    # "read-only" in words: a lock emoji draws as an empty box in fonts without emoji
    labels = [r["label"] + (" (read-only)" if r["read_only"] else "") for r in rows]
    colors = [_FULL_COLOR if r["fill"] >= 1 else _NEARLY_COLOR if r["fill"] >= NEARLY_FULL
              else SEGMENT_COLORS["core_memory"] for r in rows]
    hover = [f"{r['label']}: {r['chars']}/{r['limit']} characters ({r['fill']:.0%})"
             + (" · read-only" if r["read_only"] else "") + (f"<br>{r['description']}" if r["description"] else "")
             for r in rows]
    fig = go.Figure([
        go.Bar(y=labels, x=[r["chars"] for r in rows], orientation="h", name="used",
               marker=dict(color=colors, pattern=dict(shape=["/" if r["read_only"] else "" for r in rows])),
               hovertext=hover, hoverinfo="text"),
        go.Bar(y=labels, x=[max(r["limit"] - r["chars"], 0) for r in rows], orientation="h", name="free",
               marker=dict(color=SEGMENT_COLORS["free"]), hoverinfo="skip"),
    ])
    # keep the original labels as y values of the first trace for callers that read them
    fig.data[0].y = [r["label"] for r in rows]
    fig.data[1].y = [r["label"] for r in rows]
    # "used/limit (fill)" right of each whole bar, horizontal: text inside a short stacked bar
    # would be squeezed into unreadable vertical letters
    for r in rows:
        fig.add_annotation(x=max(r["limit"], r["chars"]), y=r["label"], text=f"{r['chars']}/{r['limit']} ({r['fill']:.0%})",
                           xanchor="left", xshift=4, showarrow=False, font=dict(size=12))
    longest = max([max(r["limit"], r["chars"]) for r in rows], default=1)
    fig.update_layout(
        template=TEMPLATE, barmode="stack", height=height or 120 + 40 * max(len(rows), 2),
        title=dict(text=title or "core memory blocks: characters used / limit", x=0.01),
        # room right of the longest bar for its "used/limit" label
        xaxis=dict(title=dict(text="characters"), range=[0, 1.3 * longest]),
        yaxis=dict(autorange="reversed", type="category",
                   ticktext=labels, tickvals=[r["label"] for r in rows]),
        legend=dict(orientation="h", y=-0.25), margin=dict(l=20, r=20, t=50, b=40),
    )
    return fig
