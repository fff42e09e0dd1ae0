"""The paging profiles side by side: one conversation, three policies (figure and explorer).

`profile_histories` replays a conversation once per profile of
`memlib.context.PROFILES`; `profile_comparison` draws the fill level per turn
for each (stacked by segment, so the summary's size shows), with eviction
marks and the profile's own lines; `ProfileExplorer` adds a turn slider and a
table of each profile's state at that turn. The paging itself is
`memlib.context`'s; nothing here decides anything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from memlib._util import check_positive_int
from memlib.context import PROFILES, PagingProfile
from memlib.viz.figures import LINE_COLORS, TEMPLATE, _go, _timeline_traces
from memlib.viz.replay import Snapshot, replay
from memlib.viz.tables import table_html
from memlib.viz.widgets import _check_turn, _Explorer, _widgets

if TYPE_CHECKING:  # plotly is imported lazily at run time
    import plotly.graph_objects as go

__all__ = ["profile_histories", "profile_comparison", "profile_state_rows", "ProfileExplorer"]

DEFAULT_PROFILES = ("paper", "memgpt", "letta")


def profile_histories(messages, window: int = 1024, profiles: Sequence = DEFAULT_PROFILES,
                      **context_kwargs) -> dict[str, list[Snapshot]]:
    """{profile name: replay snapshots} for the same messages under each profile.

    Extra keyword arguments go to every `MainContext` (summarizer, summary_tokens, ...).
    A summarizer object is shared, so it must not keep state between calls
    (memlib's summarizers do not).

    Example:
        >>> h = profile_histories([("user", f"note {i}: the tram left at {i} pm") for i in range(80)], window=300)
        >>> sorted(h), len(h["letta"])
        (['letta', 'memgpt', 'paper'], 81)
    """
    messages = list(messages)
    out: dict[str, list[Snapshot]] = {}
    for p in profiles:
        profile = PROFILES[p] if isinstance(p, str) and p in PROFILES else p
        if not isinstance(profile, PagingProfile):
            raise ValueError(f"unknown profile {p!r}; choose from {sorted(PROFILES)} or pass a PagingProfile")
        out[profile.name] = replay(messages, window=window, profile=profile, **context_kwargs)
    return out


def _profile_lines(profile: PagingProfile, window: int) -> list[tuple[str, float, str, str]]:
    """(colour key, tokens, dash, label) of the lines that belong to this profile."""
    lines = []
    if profile.warn_at is not None:
        lines.append(("warning", profile.warn_at * window, "dash", f"{profile.warn_at:.0%} warning"))
    if profile.trigger == "before_append":
        lines.append(("flush", profile.trigger_at * window, "solid", f"evict when the next message would pass {profile.trigger_at:.0%}"))
    else:
        lines.append(("flush", profile.trigger_at * window, "solid", f"evict once past {profile.trigger_at:.0%}"))
    target = profile.eviction.target_line(profile)
    if target is not None:
        share, label = target
        lines.append(("evict target", share * window, "dot", label))
    return lines


def _eviction_marks(history: list[Snapshot], profile: PagingProfile, *, xaxis: str, yaxis: str, showlegend: bool):
    go = _go()
    hits = [s for s in history if s.evicted]
    y = profile.trigger_at * history[0].window
    return go.Scatter(
        x=[s.turn for s in hits], y=[y] * len(hits), name="eviction", mode="markers",
        legendgroup="eviction", showlegend=showlegend, xaxis=xaxis, yaxis=yaxis,
        marker=dict(symbol="x", size=9, color=LINE_COLORS["flush"]),
        hovertext=[f"turn {s.turn}: evicted {len(s.evicted)} messages, summary {s.segments['summary']} tokens"
                   for s in hits], hoverinfo="text")


def profile_comparison(histories: Mapping[str, list[Snapshot]], *, upto: int | None = None,
                       title: str | None = None, height: int = 430) -> "go.Figure":
    """One panel per profile: tokens per turn by segment, eviction crosses, the profile's lines.

    `histories` comes from `profile_histories`; `upto` cuts every panel at that
    turn (the explorer's slider) while keeping the x axis of the whole run.

    Example:
        >>> h = profile_histories([("user", f"note {i}: the tram left at {i} pm") for i in range(80)], window=300)
        >>> fig = profile_comparison(h)
        >>> [a.text.split("<br>")[0] for a in fig.layout.annotations[:3]]
        ['<b>paper</b>', '<b>memgpt</b>', '<b>letta</b>']
    """
    go = _go()
    from plotly.subplots import make_subplots

    if not isinstance(histories, Mapping) or not histories:
        raise ValueError("histories must be a non-empty dict from profile_histories(messages, window=...)")
    last_turn = max(len(h) for h in histories.values()) - 1
    upto = last_turn if upto is None else _check_turn(upto, last_turn, "upto")
    titles = []
    for name, history in histories.items():
        shown = history[:upto + 1]
        n = sum(bool(s.evicted) for s in shown)
        # two short lines: at laptop width a panel is about 300 px, too narrow for one long title
        titles.append(f"<b>{name}</b><br>{n} evictions, summary {shown[-1].segments['summary']} tokens")
    fig = make_subplots(rows=1, cols=len(histories), shared_yaxes=True, subplot_titles=titles,
                        horizontal_spacing=0.05)
    fig.update_annotations(font_size=13)  # only the subplot titles exist yet
    window = next(iter(histories.values()))[0].window
    for col, (name, history) in enumerate(histories.items(), start=1):
        profile = PROFILES.get(name)
        shown = history[:upto + 1]
        suffix = "" if col == 1 else str(col)
        xa, ya = f"x{suffix}", f"y{suffix}"
        # the segment areas only: this figure draws its own, profile-specific marks
        for trace in _timeline_traces(shown, showlegend=col == 1, xaxis=xa, yaxis=ya)[:-2]:
            fig.add_trace(trace)
        if profile is not None:
            fig.add_trace(_eviction_marks(shown, profile, xaxis=xa, yaxis=ya, showlegend=col == 1))
            for key, at, dash, label in _profile_lines(profile, window):
                fig.add_shape(type="line", name=key, x0=0, x1=1, y0=at, y1=at, xref=f"{xa} domain", yref=ya,
                              line=dict(color=LINE_COLORS[key], width=1.5, dash=dash))
                # a white backing keeps the label readable where it crosses the filled areas
                fig.add_annotation(x=0, y=at, xref=f"{xa} domain", yref=ya, text=label, showarrow=False,
                                   xanchor="left", yanchor="bottom", bgcolor="rgba(255,255,255,0.8)",
                                   font=dict(size=9, color=LINE_COLORS[key]))
        fig.update_xaxes(range=[0, last_turn], title=dict(text="turn"), row=1, col=col)
    fig.update_yaxes(range=[0, window * 1.08], row=1, col=1, title=dict(text="tokens"))
    fig.update_layout(
        template=TEMPLATE, height=height, hovermode="closest",
        title=dict(text=title or (f"one conversation, three paging profiles ({window}-token window)"
                                  + ("" if upto == last_turn else f", up to turn {upto} of {last_turn}")), x=0.01),
        legend=dict(orientation="h", y=-0.2, x=0), margin=dict(l=50, r=20, t=110, b=40),
    )
    return fig


def profile_state_rows(histories: Mapping[str, list[Snapshot]], turn: int) -> list[dict]:
    """Each profile's state at `turn`: tokens, messages in the window, evicted so far, summary, warnings."""
    rows = []
    for name, history in histories.items():
        t = _check_turn(turn, len(history) - 1, "turn")
        s, seen = history[t], history[1:t + 1]
        rows.append({
            "profile": name, "tokens used": s.used, "fill": f"{s.pressure:.0%}",
            "messages in window": len(s.in_context), "evicted so far": sum(len(h.evicted) for h in seen),
            "evictions": sum(bool(h.evicted) for h in seen), "warnings": sum(h.warned for h in seen),
            "summary tokens": s.segments["summary"],
        })
    return rows


class ProfileExplorer(_Explorer):
    """A turn slider over one conversation replayed under each paging profile.

    Example:
        >>> ex = ProfileExplorer([("user", f"note {i}: the tram left at {i} pm") for i in range(80)], window=300)
        >>> ex.goto(60)[0]["profile"], ex.position
        ('paper', 60)
    """

    def __init__(self, messages, window: int = 1024, profiles: Sequence = DEFAULT_PROFILES, **context_kwargs):
        w = _widgets()
        self.histories = profile_histories(messages, window=window, profiles=profiles, **context_kwargs)
        self.turns = max(len(h) for h in self.histories.values()) - 1
        if self.turns < 1:
            raise ValueError("ProfileExplorer needs at least one message")
        self.position = self.turns
        self._slider = w.IntSlider(value=self.turns, min=0, max=self.turns, description="turn",
                                   continuous_update=False, layout=w.Layout(width="60%"))
        self._back_button = w.Button(description="◀ back", tooltip="one turn back")
        self._step_button = w.Button(description="step ▶", tooltip="one turn forward")
        self._table = w.HTML()
        self._out = w.Output()
        self._slider.observe(lambda change: self.goto(change["new"]) if change["new"] != self.position else None,
                             names="value")
        self._back_button.on_click(lambda _button: self.back())
        self._step_button.on_click(lambda _button: self.step())
        self._container = w.VBox([w.HBox([self._slider, self._back_button, self._step_button]),
                                  self._out, self._table])
        self._render()

    def goto(self, turn: int) -> list[dict]:
        """Move every panel to `turn`; returns the state rows shown under the figure."""
        self.position = _check_turn(turn, self.turns, "turn")
        self._slider.value = self.position
        self._render()
        return profile_state_rows(self.histories, self.position)

    def step(self, n: int = 1) -> list[dict]:
        """`n` turns forward (stops at the end)."""
        check_positive_int(n, "n")
        return self.goto(min(self.position + n, self.turns))

    def back(self, n: int = 1) -> list[dict]:
        """`n` turns back (stops at turn 0)."""
        check_positive_int(n, "n")
        return self.goto(max(self.position - n, 0))

    def _render(self) -> None:
        self._show(profile_comparison(self.histories, upto=self.position))
        self._table.value = table_html(profile_state_rows(self.histories, self.position))

    def __repr__(self) -> str:
        return f"ProfileExplorer(turn {self.position}/{self.turns}, profiles {list(self.histories)})"
