"""Plotly figures for the course: context bar, token timeline, score bars, recall@k.

Every builder is a pure function returning a plain `plotly.graph_objects.Figure`
(never a FigureWidget), so it renders the same in JupyterLab, Colab, a headless
nbconvert run and a test. plotly is imported on first use, not when memlib is.
Only attributes that exist in plotly 5.24 (Colab) and in current plotly are used.
Nothing here computes memory behaviour: `memlib.context` does, via `replay`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memlib import retrieval
from memlib._util import check_int_at_least, check_positive_int, is_number, shorten
from memlib.summarize import ExtractiveSummarizer
from memlib.viz.replay import Snapshot, replay

if TYPE_CHECKING:  # plotly is imported lazily at run time
    import plotly.graph_objects as go

__all__ = [
    "SEGMENTS", "SEGMENT_LABELS", "SEGMENT_COLORS", "TRUST_COLORS", "LINE_COLORS", "SCORER_COLORS",
    "context_bar", "usage_bar", "token_timeline", "eviction_comparison", "score_bars", "recall_at_k_curve",
]

SEGMENTS = ("system", "core_memory", "summary", "messages", "free")
SEGMENT_LABELS = {
    "system": "system prompt", "core_memory": "core memory", "summary": "summary",
    "messages": "messages", "free": "free",
}
# One colour per segment, the same in every figure and widget of the course. Core memory,
# summary and messages are Okabe and Ito's colour-blind-safe blue, bluish green and orange
# ("Color Universal Design", 2008), the system prompt a dark slate: every pair stays apart
# for a reader with deuteranopia or protanopia (tests/test_viz.py simulates it).
SEGMENT_COLORS = {
    "system": "#3b4150", "core_memory": "#009e73", "summary": "#e69f00",
    "messages": "#0072b2", "free": "#e6e9ee",
}
LINE_COLORS = {"warning": "#f08c00", "flush": "#d62728", "evict target": "#6c757d"}
TRUST_COLORS = {"trusted": "#2e9e4f", "unverified": "#8a8f98", "untrusted": "#d62728"}


def scorer_color(name: str) -> str | None:
    """A registered scorer's colour (memlib.retrieval.SCORERS; aliases too), else None."""
    try:
        return retrieval.scorer_entry(name).color
    except ValueError:
        return None


# The registered scorers' colours when this module was imported (see scorer_color).
SCORER_COLORS = {n: scorer_color(n) for n in retrieval.SCORER_NAMES}
# Fallback colours for curves whose name is not a known scorer.
PALETTE = ("#3a86c8", "#e39b2d", "#2e9e4f", "#d62728", "#8e6cc1", "#5b6577", "#17becf")
TEMPLATE = "plotly_white"


def _go():
    try:
        import plotly.graph_objects as go
    except ImportError as exc:  # pragma: no cover - plotly is a dependency
        raise ImportError("memlib.viz figures need plotly: pip install 'plotly>=5.24'") from exc
    return go


def _thresholds(window: int, warn_at: float | None, flush_at: float | None,
                evict_to: float | None) -> list[tuple[str, float, str, str]]:
    """(name, tokens, dash, label) for the lines of the paging policy (None: a profile without that line)."""
    lines = [
        ("evict target", evict_to, "dot", "evict target"),
        ("warning", warn_at, "dash", "warning"),
        ("flush", flush_at, "solid", "flush"),
    ]
    return [(name, at * window, dash, f"{at:.0%} {label}") for name, at, dash, label in lines if at is not None]


def _threshold_lines(fig, window, warn_at, flush_at, evict_to, *, vertical: bool,
                     xref: str = "x", yref: str = "y", annotate: bool = True) -> None:
    """Draw the policy lines as layout shapes (named, so tests and readers find them)."""
    for name, at, dash, label in _thresholds(window, warn_at, flush_at, evict_to):
        line = dict(color=LINE_COLORS[name], width=2 if name == "flush" else 1.5, dash=dash)
        if vertical:
            fig.add_shape(type="line", name=name, x0=at, x1=at, y0=0, y1=1,
                          xref=xref, yref=f"{yref} domain", line=line)
            if annotate:
                fig.add_annotation(x=at, y=1, xref=xref, yref=f"{yref} domain", text=label,
                                   showarrow=False, yanchor="bottom", font=dict(size=10, color=line["color"]))
        else:
            fig.add_shape(type="line", name=name, x0=0, x1=1, y0=at, y1=at,
                          xref=f"{xref} domain", yref=yref, line=line)
            if annotate:
                fig.add_annotation(x=0, y=at, xref=f"{xref} domain", yref=yref, text=label,
                                   showarrow=False, xanchor="left", yanchor="bottom",
                                   font=dict(size=10, color=line["color"]))


def _segments_of(obj, window: int | None) -> tuple[dict[str, int], int, dict[str, float | None]]:
    """Segments, window and policy thresholds from a MainContext, Snapshot or mapping."""
    policy: dict[str, float | None] = {"warn_at": 0.7, "flush_at": 1.0, "evict_to": 0.5}
    if isinstance(obj, Snapshot):
        segs, default_window = dict(obj.segments), obj.window
        policy = {"warn_at": obj.warn_at, "flush_at": obj.flush_at, "evict_to": obj.evict_to}
    elif callable(getattr(obj, "segments", None)):
        segs, default_window = dict(obj.segments()), obj.window
        policy = {k: getattr(obj, k, v) for k, v in policy.items()}
    elif isinstance(obj, Mapping):
        segs, default_window = dict(obj), None
    else:
        raise TypeError(
            f"context_bar needs a MainContext, a Snapshot or a dict of segment tokens, "
            f"got {type(obj).__name__}"
        )
    unknown = set(segs) - set(SEGMENTS)
    if unknown:
        raise ValueError(f"unknown segments {sorted(unknown)}; expected some of {list(SEGMENTS)}")
    for name, value in segs.items():
        check_int_at_least(value, 0, f"segment {name!r}", "a token count")
    if window is None:
        window = default_window
    if window is None:
        if "free" not in segs:
            raise ValueError("a dict without a 'free' segment needs window=...: the bar cannot guess the window")
        window = sum(segs.values())
    check_positive_int(window, "window", "a number of tokens")
    used = sum(v for k, v in segs.items() if k != "free")
    # free is always what the window leaves, so the bar's segments add up to the window
    segs = {k: segs.get(k, 0) for k in SEGMENTS[:-1]}
    segs["free"] = max(0, window - used)
    return segs, window, policy


def context_bar(ctx_or_segments, window: int | None = None, *, warn_at: float | None = None,
                flush_at: float | None = None, evict_to: float | None = None,
                title: str | None = None, height: int = 230) -> "go.Figure":
    """A stacked horizontal bar of the prompt by segment, with the paging lines.

    One bar trace per segment (system prompt, core memory, summary, messages,
    free), in that order, adding up to the window; vertical lines at the
    evict target (dotted), the warning (dashed) and the flush (solid).

    Example:
        >>> fig = context_bar({"system": 40, "messages": 500}, window=1000)
        >>> [t.x[0] for t in fig.data]
        [40, 0, 0, 500, 460]
    """
    segs, window, policy = _segments_of(ctx_or_segments, window)
    warn_at = policy["warn_at"] if warn_at is None else warn_at
    flush_at = policy["flush_at"] if flush_at is None else flush_at
    evict_to = policy["evict_to"] if evict_to is None else evict_to
    parts = [(SEGMENT_LABELS[name], SEGMENT_COLORS[name], segs[name]) for name in SEGMENTS]
    return _stacked_bar(parts, window, (warn_at, flush_at, evict_to), title=title, height=height)


def _stacked_bar(parts: list[tuple[str, str, int]], window: int,
                 policy: tuple[float | None, float | None, float | None], *,
                 title: str | None, height: int) -> "go.Figure":
    """One horizontal stacked bar from (label, colour, tokens) parts, with the policy lines."""
    go = _go()
    warn_at, flush_at, evict_to = policy
    used = sum(tokens for label, _, tokens in parts if label != SEGMENT_LABELS["free"])
    fig = go.Figure()
    for label, color, tokens in parts:
        fig.add_trace(go.Bar(
            x=[tokens], y=["prompt"], orientation="h", name=label,
            marker=dict(color=color, line=dict(width=0)),
            text=[f"{tokens}" if tokens >= window * 0.04 else ""], textposition="inside",
            hovertemplate=f"{label}: {tokens} tokens ({tokens / window:.0%})<extra></extra>",
        ))
    _threshold_lines(fig, window, warn_at, flush_at, evict_to, vertical=True)
    fig.update_layout(
        template=TEMPLATE, barmode="stack", height=height,
        title=dict(text=title or f"main context: {used} / {window} tokens ({used / window:.0%})", x=0.01),
        xaxis=dict(range=[0, max(window, used) * 1.02], title=dict(text=f"tokens (window: {window:,})")),
        yaxis=dict(showticklabels=False, title=dict(text="prompt")),
        legend=dict(orientation="h", y=-0.75, x=0, traceorder="normal"),
        margin=dict(l=50, r=20, t=60, b=20),
    )
    return fig


def usage_bar(used: int, window: int, *, warn_at: float = 0.7, flush_at: float = 1.0,
              evict_to: float = 0.5, title: str | None = None, height: int = 230) -> "go.Figure":
    """The context bar when only the total is known: "in use" and "free".

    For traces that recorded tokens used but not the split by segment.
    """
    for name, value in (("used", used), ("window", window)):
        check_int_at_least(value, 0, name, "a token count")
    check_positive_int(window, "window", "a number of tokens")
    parts = [("in use", SEGMENT_COLORS["messages"], used),
             (SEGMENT_LABELS["free"], SEGMENT_COLORS["free"], max(0, window - used))]
    return _stacked_bar(parts, window, (warn_at, flush_at, evict_to), title=title, height=height)


def _check_history(history) -> list[Snapshot]:
    if isinstance(history, (str, bytes)) or not isinstance(history, Sequence) or not history:
        raise ValueError("history must be a non-empty list of Snapshot; build one with memlib.viz.replay(messages, window=...)")
    if not all(isinstance(s, Snapshot) for s in history):
        raise TypeError("history must hold Snapshot objects from memlib.viz.replay(...)")
    return list(history)


def _timeline_traces(history: list[Snapshot], *, showlegend: bool = True, xaxis: str = "x", yaxis: str = "y") -> list:
    """Stacked token areas per segment, plus flush and warning markers."""
    go = _go()
    turns = [s.turn for s in history]
    traces = []
    for name in SEGMENTS[:-1]:
        traces.append(go.Scatter(
            x=turns, y=[s.segments[name] for s in history], name=SEGMENT_LABELS[name],
            mode="lines", stackgroup="tokens", legendgroup=name, showlegend=showlegend,
            line=dict(width=0.5, color=SEGMENT_COLORS[name]), fillcolor=SEGMENT_COLORS[name],
            hovertemplate=f"turn %{{x}}: {SEGMENT_LABELS[name]} %{{y}} tokens<extra></extra>",
            xaxis=xaxis, yaxis=yaxis,
        ))
    window = history[0].window
    flushes = [s for s in history if s.flushed]
    traces.append(go.Scatter(
        x=[s.turn for s in flushes], y=[s.flush_at * window for s in flushes],
        name="flush (eviction)", mode="markers", legendgroup="flush", showlegend=showlegend,
        marker=dict(symbol="x", size=10, color=LINE_COLORS["flush"]),
        hovertext=[f"turn {s.turn}: flush, evicted {len(s.evicted)} messages, "
                   f"prompt {s.used_before} -> {s.used} tokens" for s in flushes],
        hoverinfo="text", xaxis=xaxis, yaxis=yaxis,
    ))
    warnings = [s for s in history if s.warned]
    traces.append(go.Scatter(
        x=[s.turn for s in warnings], y=[s.used for s in warnings],
        name="pressure warning", mode="markers", legendgroup="warning", showlegend=showlegend,
        marker=dict(symbol="triangle-up", size=9, color=LINE_COLORS["warning"]),
        hovertext=[f"turn {s.turn}: memory pressure, {s.pressure:.0%} of the window" for s in warnings],
        hoverinfo="text", xaxis=xaxis, yaxis=yaxis,
    ))
    return traces


def token_timeline(history: Sequence[Snapshot], *, title: str | None = None, height: int = 380) -> "go.Figure":
    """Tokens in the prompt after every turn, stacked by segment, with flushes marked.

    `history` comes from `replay(messages, window=...)`. Flushes are red
    crosses on the 100 % line, pressure warnings orange triangles; the
    horizontal lines are the evict target, the warning and the flush.

    Example:
        >>> history = replay([("user", f"note {i}: the train left at {i} pm") for i in range(50)], window=300)
        >>> fig = token_timeline(history)
        >>> [t.name for t in fig.data][-2:]
        ['flush (eviction)', 'pressure warning']
    """
    go = _go()
    history = _check_history(history)
    first = history[0]
    fig = go.Figure(_timeline_traces(history))
    _threshold_lines(fig, first.window, first.warn_at, first.flush_at, first.evict_to, vertical=False)
    n_flush = sum(s.flushed for s in history)
    fig.update_layout(
        template=TEMPLATE, height=height, hovermode="closest",
        title=dict(text=title or f"tokens per turn ({n_flush} flushes)", x=0.01),
        xaxis=dict(title=dict(text="turn (messages appended)")),
        yaxis=dict(title=dict(text="tokens"), range=[0, first.window * 1.08]),
        legend=dict(orientation="h", y=-0.2, x=0),
        margin=dict(l=50, r=20, t=60, b=40),
    )
    return fig


def eviction_comparison(messages, summarizers: Mapping | None = None, window: int = 1024, *,
                        title: str | None = None, height: int = 420, **context_kwargs) -> "go.Figure":
    """The token timeline of one conversation under several summarizers, side by side.

    `summarizers` maps a panel name to a Summarizer (None means no summarizer);
    the default compares none with `ExtractiveSummarizer`. Extra keyword
    arguments go to `MainContext` (summary_tokens, warn_at, ...).

    Example:
        >>> from memlib.summarize import TruncatingSummarizer
        >>> msgs = [("user", f"note {i}: the train left at {i} pm") for i in range(50)]
        >>> fig = eviction_comparison(msgs, {"none": None, "truncating": TruncatingSummarizer()}, window=400)
        >>> [a.text.split("<br>")[0] for a in fig.layout.annotations[:2]]
        ['none', 'truncating']
    """
    go = _go()
    from plotly.subplots import make_subplots

    if summarizers is None:
        summarizers = {"no summarizer": None, "extractive summarizer": ExtractiveSummarizer()}
    if not isinstance(summarizers, Mapping) or not summarizers:
        raise ValueError("summarizers must be a non-empty dict {panel name: Summarizer or None}")
    messages = list(messages)
    histories = {name: replay(messages, window=window, summarizer=s, **context_kwargs)
                 for name, s in summarizers.items()}
    titles = []
    for name, history in histories.items():
        # two short lines per panel: side by side, one long line each would run into the next
        flushes, summary = sum(s.flushed for s in history), history[-1].segments["summary"]
        titles.append(f"{name}<br>{flushes} {'flush' if flushes == 1 else 'flushes'}, "
                      + (f"summary {summary} tokens" if summary else "no summary"))
    fig = make_subplots(rows=1, cols=len(histories), shared_yaxes=True,
                        subplot_titles=titles, horizontal_spacing=0.04)
    fig.update_annotations(font=dict(size=13))
    for col, history in enumerate(histories.values(), start=1):
        suffix = "" if col == 1 else str(col)
        for trace in _timeline_traces(history, showlegend=col == 1, xaxis=f"x{suffix}", yaxis=f"y{suffix}"):
            fig.add_trace(trace)
        first = history[0]
        _threshold_lines(fig, first.window, first.warn_at, first.flush_at, first.evict_to,
                         vertical=False, xref=f"x{suffix}", yref=f"y{suffix}", annotate=col == 1)
        fig.update_xaxes(title=dict(text="turn"), row=1, col=col)
    fig.update_yaxes(range=[0, window * 1.08], row=1, col=1, title=dict(text="tokens"))
    fig.update_layout(
        template=TEMPLATE, height=height, hovermode="closest",
        title=dict(text=title or f"eviction with and without a summarizer ({window}-token window)", x=0.01),
        legend=dict(orientation="h", y=-0.2, x=0), margin=dict(l=50, r=20, t=100, b=40),
    )
    return fig


def _bar_items(hits_or_pairs) -> list[tuple[str, float, str, str]]:
    """(label, score, colour, hover text) for Hits or (id, score) pairs."""
    items = []
    for item in hits_or_pairs:
        record = getattr(item, "record", None)
        if record is not None and hasattr(item, "score"):
            text = shorten(record.text, 90)
            where = f"{record.session_id or '-'}/{record.turn_id if record.turn_id is not None else '-'}"
            items.append((str(record.id), float(item.score), TRUST_COLORS.get(record.trust, PALETTE[0]),
                          f"{record.id} [{where}, {record.trust}]<br>{_hover_escape(text)}"))
        elif isinstance(item, (tuple, list)) and len(item) == 2:
            label, score = item
            if not is_number(score):
                raise TypeError(f"score of {label!r} must be a number, got {score!r}")
            items.append((str(label), float(score), PALETTE[0], f"{label}: {float(score):.3f}"))
        else:
            raise TypeError(
                f"score_bars takes archival Hits or (label, score) pairs, got {type(item).__name__}"
            )
    # plotly merges bars with the same category label: keep every row visible
    seen: dict[str, int] = {}
    out = []
    for label, score, color, hover in items:
        seen[label] = seen.get(label, 0) + 1
        out.append((label if seen[label] == 1 else f"{label} ({seen[label]})", score, color, hover))
    return out


def _hover_escape(text: str) -> str:
    # plotly hover text is HTML-ish: keep user text literal
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def score_bars(hits_or_pairs, *, title: str | None = None, height: int | None = None,
               xaxis_title: str = "score") -> "go.Figure":
    """Horizontal bars of retrieval scores, best at the top.

    Archival `Hit`s are coloured by trust label (green trusted, grey
    unverified, red untrusted); (label, score) pairs are plain blue. Negative
    scores (okapi idf on a small store) draw to the left of zero.

    Example:
        >>> fig = score_bars([("a", 2.5), ("b", 1.0)])
        >>> list(fig.data[0].y), list(fig.data[0].x)
        (['a', 'b'], [2.5, 1.0])
    """
    go = _go()
    items = _bar_items(hits_or_pairs)
    fig = go.Figure(go.Bar(
        x=[s for _, s, _, _ in items], y=[lab for lab, _, _, _ in items], orientation="h",
        name=xaxis_title, marker=dict(color=[c for _, _, c, _ in items]),
        text=[f"{s:.3f}" for _, s, _, _ in items], textposition="auto",
        hovertext=[h for _, _, _, h in items], hoverinfo="text",
    ))
    if not items:
        fig.add_annotation(text="no document matches the query", x=0.5, y=0.5, xref="paper",
                           yref="paper", showarrow=False, font=dict(size=14))
    fig.update_layout(
        template=TEMPLATE, height=height or 110 + 30 * max(len(items), 2),
        title=dict(text=title or f"top {len(items)} by {xaxis_title}", x=0.01),
        xaxis=dict(title=dict(text=xaxis_title), zeroline=True),
        yaxis=dict(autorange="reversed", type="category"),
        showlegend=False, margin=dict(l=20, r=20, t=50, b=40),
    )
    return fig


def recall_at_k_curve(curves: Mapping[str, Sequence[float]], ks: Sequence[int] | None = None, *,
                      title: str | None = None, metric: str = "recall", height: int = 360) -> "go.Figure":
    """recall@k (or any 0..1 metric at k) per method, one line each.

    `curves` maps a method name to its values at k = 1, 2, ... (or at `ks`).
    Registered scorer names (memlib.retrieval.SCORERS) keep their course colours.

    Example:
        >>> fig = recall_at_k_curve({"overlap": [0.2, 0.3], "bm25": [0.5, 0.7]})
        >>> [t.name for t in fig.data], list(fig.data[1].x)
        (['overlap', 'bm25'], [1, 2])
    """
    go = _go()
    if not isinstance(curves, Mapping) or not curves:
        raise ValueError("curves must be a non-empty dict {method name: [value at k=1, k=2, ...]}")
    fig = go.Figure()
    all_ks: set = set()
    for i, (name, values) in enumerate(curves.items()):
        values = list(values)
        xs = list(range(1, len(values) + 1)) if ks is None else list(ks)
        if len(xs) != len(values):
            raise ValueError(f"curve {name!r} has {len(values)} values but ks has {len(xs)}; give one value per k")
        bad = [v for v in values if not is_number(v) or not 0 <= v <= 1]
        if bad:
            raise ValueError(f"curve {name!r}: {metric}@k values must be numbers in [0, 1], got {bad[:3]}")
        all_ks.update(xs)
        fig.add_trace(go.Scatter(
            x=xs, y=[float(v) for v in values], name=str(name), mode="lines+markers",
            line=dict(color=scorer_color(str(name)) or PALETTE[i % len(PALETTE)], width=2),
            hovertemplate=f"{name}: {metric}@%{{x}} = %{{y:.2f}}<extra></extra>",
        ))
    fig.update_layout(
        template=TEMPLATE, height=height,
        title=dict(text=title or f"{metric}@k", x=0.01),
        # a tick at each k when there are few (k is an integer: no 1.5)
        xaxis=dict(title=dict(text="k"), tickmode="array", tickvals=sorted(all_ks)) if len(all_ks) <= 20
        else dict(title=dict(text="k")),
        yaxis=dict(title=dict(text=f"{metric}@k"), range=[0, 1.03], tickformat=".0%"),
        legend=dict(orientation="h", y=-0.2, x=0), margin=dict(l=50, r=20, t=50, b=40),
    )
    return fig
