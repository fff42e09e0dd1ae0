"""A timeline of two agents on one memory: the primary agent's sessions and the sleep-time runs.

`timeline_figure(events)` takes `memlib.workflow.TimelineEvent`s (from
`run_scenario` and `SleepTimeAgent.run`) and draws one row per agent: spans
(sessions, sleep-time runs) as horizontal bars on a time axis, single actions
(learn, confirm, supersede, block rewrite, ...) as markers with their text on
hover. A plain plotly Figure (no FigureWidget), using only what plotly 5.24
has. Nothing here changes memory or decides anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

__all__ = ["timeline_figure", "timeline_rows", "KIND_COLORS", "WHO_ORDER", "MIN_SPAN_MS"]

#: Rows top to bottom; agents not listed come after, in order of appearance.
WHO_ORDER = ("primary", "sleep-time")
KIND_COLORS = {
    # the two agents: Okabe and Ito's blue and reddish purple, apart under colour blindness too
    "session": "#0072b2", "sleep_run": "#cc79a7",
    "learn": "#8a8f98", "confirm": "#2e9e4f", "reject": "#d62728", "block_append": "#0072b2",
    "block_full": "#f08c00", "answer": "#1f3b73", "supersede": "#e39b2d", "block_rewrite": "#cc79a7",
    "pending_left": "#f08c00",
}
_OTHER = "#5b6577"


def timeline_rows(events: Sequence) -> list[str]:
    """The agents in `events`, in row order."""
    seen = [e.who for e in events]
    listed = [w for w in WHO_ORDER if w in seen]
    return listed + [w for w in dict.fromkeys(seen) if w not in listed]


def _check(events) -> list:
    if isinstance(events, (str, bytes)) or not hasattr(events, "__iter__"):
        raise TypeError("events must be a list of memlib.workflow.TimelineEvent")
    events = list(events)
    if not events:
        raise ValueError("events is empty; pass run.events from memlib.workflow.run_scenario")
    for e in events:
        if not all(hasattr(e, a) for a in ("who", "at", "kind", "what", "end")):
            raise TypeError(f"expected TimelineEvent items, got {type(e).__name__}")
    return events


#: Spans shorter than this are drawn this long, so a one-minute run stays visible.
MIN_SPAN_MS = 20 * 60 * 1000


def timeline_figure(events: Sequence, *, title: str = "Two agents, one memory", height: int = 400,
                    hide_hours: tuple[int, int] | None = (21, 8)):
    """Plotly figure: spans as thick lines, actions as markers, one row per agent (who).

    `hide_hours` (from, to) leaves those hours of every night off the time axis
    (plotly range breaks) so the working days sit side by side; None shows the
    whole clock. Nothing may happen inside the hidden hours.
    """
    import plotly.graph_objects as go

    events = _check(events)
    if hide_hours is not None:
        start, stop = hide_hours
        hidden = [e for e in events if (e.at.hour >= start or e.at.hour < stop)]
        if hidden:
            raise ValueError(f"{len(hidden)} event(s) fall in the hidden hours {start}:00-{stop}:00 "
                             f"(first: {hidden[0]!r}); pass hide_hours=None")
    rows = timeline_rows(events)
    fig = go.Figure()
    spans = [e for e in events if e.end is not None]
    for kind in dict.fromkeys(e.kind for e in spans):
        group = [e for e in spans if e.kind == kind]
        # A span is a thick line from start to end (bars with a date base vanish under range breaks);
        # None between spans keeps them apart in one trace.
        xs, ys, hover = [], [], []
        for e in group:
            end = max(e.end, e.at + timedelta(milliseconds=MIN_SPAN_MS))
            text = f"{e.at:%a %d %b %H:%M}-{e.end:%H:%M}<br>{e.what}"
            xs += [e.at.isoformat(), end.isoformat(), None]
            ys += [e.who, e.who, None]
            hover += [text, text, None]
        fig.add_trace(go.Scatter(x=xs, y=ys, mode="lines", name=kind.replace("_", " "), hovertext=hover,
                                 hoverinfo="text", opacity=0.35,
                                 line=dict(color=KIND_COLORS.get(kind, _OTHER), width=22)))
    points = [e for e in events if e.end is None]
    for kind in dict.fromkeys(e.kind for e in points):
        group = [e for e in points if e.kind == kind]
        fig.add_trace(go.Scatter(
            x=[e.at.isoformat() for e in group], y=[e.who for e in group], mode="markers",
            name=kind.replace("_", " "), marker=dict(color=KIND_COLORS.get(kind, _OTHER), size=9, symbol="diamond"),
            hovertext=[f"{e.at:%a %H:%M} {e.kind}: {e.what}" for e in group], hoverinfo="text",
        ))
    fig.update_layout(title=title, height=height, margin=dict(t=50, b=120, l=90),
                      xaxis=dict(type="date",
                                 title=f"time (nights from {hide_hours[0]}:00 to {hide_hours[1]}:00 left out)"
                                 if hide_hours else "time",
                                 rangebreaks=[dict(bounds=list(hide_hours), pattern="hour")] if hide_hours else []),
                      yaxis=dict(categoryorder="array", categoryarray=list(reversed(rows)), title="agent",
                                 range=[-0.6, len(rows) - 0.4]),
                      legend=dict(orientation="h", y=-0.33, yanchor="top"))  # below the axis title
    return fig
