"""ipywidgets explorers for the notebooks: ContextStepper, RetrievalExplorer, TraceViewer.

Each explorer keeps its state in plain Python and exposes its update logic as
methods (`step`, `reset`, `search`, `render_html`, ...), so tests and scripts
drive it without a browser. The widgets only call those methods and show the
result: HTML widgets for text and a plain plotly figure redrawn inside a
`widgets.Output` (no FigureWidget, which needs anywidget and breaks on Colab).
Only widgets and traits that exist in ipywidgets 7.7 (Colab) and 8 are used.
ipywidgets is imported when an explorer is built, never when memlib is.
"""

from __future__ import annotations

import html
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from memlib.archival import ArchivalRecord, Hit
from memlib.labels import label as _label
from memlib import retrieval
from memlib._util import check_positive_int, is_int, shorten
from memlib.retrieval import make_scorer, tokenize
from memlib.summarize import NoSummarizer
from memlib.viz.figures import (LINE_COLORS, SEGMENT_COLORS, TRUST_COLORS, context_bar, score_bars,
                                usage_bar)
from memlib.viz.replay import Snapshot, replay

__all__ = ["ContextStepper", "RetrievalExplorer", "TraceViewer", "Interrupt", "interrupts_of", "mark_terms", "figure_bundle",
           "SCORERS", "DISPLAY_MODE"]

# The scorer menu at import time; the explorer itself reads memlib.retrieval.SCORERS
# when it is built, so a scorer registered later shows up too.
SCORERS = tuple(retrieval.SCORERS)
EVENT_COLORS = {
    "append": SEGMENT_COLORS["messages"], "pressure": LINE_COLORS["warning"], "evict": "#6c757d",
    "summarize": SEGMENT_COLORS["summary"], "flush": LINE_COLORS["flush"], "core_edit": SEGMENT_COLORS["core_memory"],
    "tool_call": "#1f6f8b", "tool_result": "#1f6f8b", "heartbeat": "#8e6cc1", "send_message": "#2e9e4f",
}
_FONT = "font-family: system-ui, -apple-system, 'Segoe UI', sans-serif; font-size: 13px; line-height: 1.4;"


def _widgets():
    try:
        import ipywidgets
    except ImportError as exc:
        raise ImportError(
            "the memlib.viz explorers need ipywidgets: pip install 'ipywidgets>=7.7' and restart the "
            "kernel (the figure functions in memlib.viz work without it)"
        ) from exc
    return ipywidgets


def _esc(value) -> str:
    return html.escape(str(value), quote=True)


def _badge(kind: str) -> str:
    color = EVENT_COLORS.get(kind, "#5b6577")
    return (f'<span style="display:inline-block;min-width:86px;padding:0 6px;margin-right:6px;border-radius:3px;'
            f'background:{color};color:white;font-size:11px;text-align:center">{_esc(kind)}</span>')


def _check_turn(value, last: int, what: str) -> int:
    if not is_int(value) or not 0 <= value <= last:
        raise ValueError(f"{what} must be an int from 0 to {last}, got {value!r}")
    return value


class _Explorer:
    """Shared plumbing: the container, display, and redrawing a figure into an Output."""

    _container = None
    _out: Any = None  # the ipywidgets Output each explorer makes for its figure
    _figure = None

    @property
    def widget(self):
        """The ipywidgets container (a VBox); `display(explorer)` shows it too."""
        return self._container

    @property
    def figure(self):
        """The plotly figure currently shown."""
        return self._figure

    def _ipython_display_(self):
        from IPython.display import display

        display(self._container)

    def _show(self, fig) -> None:
        self._figure = fig
        try:
            from IPython import get_ipython
        except ImportError:  # pragma: no cover - ipywidgets depends on IPython
            return
        if get_ipython() is None:
            return  # plain Python (tests, scripts): keep the figure, there is nothing to draw into
        if _display_mode() == "capture":
            from IPython.display import clear_output, display

            with self._out:
                clear_output(wait=True)
                display(fig)
        else:
            # Setting the Output's state, rather than capturing a display into it,
            # is what nbclient / nbconvert handle without blocking (a second
            # capture in one cell stalls them until the cell timeout:
            # jupyter/nbclient#312), and the figure is in the saved widget state
            # from construction on, so a notebook executed headless shows it.
            self._out.outputs = ({"output_type": "display_data", "data": figure_bundle(fig), "metadata": {}},)


#: How explorers put figures into their Output: "auto" (capture on Colab, whose
#: own widget manager is built around it; set the Output's state elsewhere),
#: "capture" or "state". Change it if a front end shows no figure.
DISPLAY_MODE = "auto"


def _display_mode() -> str:
    if DISPLAY_MODE not in ("auto", "capture", "state"):
        raise ValueError(f"memlib.viz.widgets.DISPLAY_MODE must be 'auto', 'capture' or 'state', got {DISPLAY_MODE!r}")
    if DISPLAY_MODE != "auto":
        return DISPLAY_MODE
    import sys

    return "capture" if "google.colab" in sys.modules else "state"


def figure_bundle(fig) -> dict:
    """The display data of a figure: plotly's JSON mime type (rendered by JupyterLab's
    plotly extension, offline) and a text fallback. Same on plotly 5 and 7.
    """
    title = fig.layout.title.text or "plotly figure"
    return {"application/vnd.plotly.v1+json": json.loads(fig.to_json()),
            "text/plain": f"<plotly figure: {title}>"}


# -- ContextStepper -----------------------------------------------------------


class ContextStepper(_Explorer):
    """Step, play or reset through a conversation filling a MainContext.

    Shows the context bar (70 % / 100 % lines), the messages with evicted ones
    greyed and struck through, the current summary and the events of the last
    turn. Turn 0 is the empty context; `step()` appends the next message.
    Pass `window`, `summarizer` and MainContext's keyword arguments, or a fresh
    `context` (a MainContext of your own, e.g. a `memlib.course.flushing.FlushContext`).

    Example:
        >>> stepper = ContextStepper([("user", f"fact {i}: it rained on day {i}") for i in range(40)], window=300)
        >>> stepper.step(30).turn, len(stepper.evicted_ids) > 0
        (30, True)
    """

    def __init__(self, messages, window: int | None = None, summarizer=None, *, interval_ms: int = 800,
                 show_evicted: int = 8, context=None, **context_kwargs):
        w = _widgets()
        if context is not None:  # a ready MainContext (a subclass, say): it brings its own settings
            if window is not None or summarizer is not None or context_kwargs:
                raise TypeError("pass either a ready context or window, summarizer and MainContext's "
                                "keyword arguments, not both")
            self.history: list[Snapshot] = replay(messages, context=context)
        else:
            self.history = replay(messages, window=1024 if window is None else window, summarizer=summarizer,
                                  **context_kwargs)
        if len(self.history) < 2:
            raise ValueError("ContextStepper needs at least one message to step through")
        in_use = context.summarizer if context is not None else summarizer
        #: whether a flush writes a summary (False without a summarizer, or with NoSummarizer)
        self.summarizes = in_use is not None and not isinstance(in_use, NoSummarizer)
        self.position = 0
        self.show_evicted = show_evicted
        last = self.turns
        self._play = w.Play(value=0, min=0, max=last, step=1, interval=interval_ms, description=_label("play"))
        self._slider = w.IntSlider(value=0, min=0, max=last, description=_label("turn"))
        # linked in the browser, so playing does not wait on the kernel for each tick
        w.jslink((self._play, "value"), (self._slider, "value"))
        self._step_button = w.Button(description=_label("step"), tooltip=_label("step_tip"))
        self._reset_button = w.Button(description=_label("reset"), tooltip=_label("reset_tip"))
        self._status = w.HTML()
        self._out = w.Output()
        self._messages_html = w.HTML(layout=w.Layout(width="60%"))
        self._events_html = w.HTML(layout=w.Layout(width="40%"))
        self._slider.observe(self._on_slider, names="value")
        self._step_button.on_click(lambda _button: self.step())
        self._reset_button.on_click(lambda _button: self.reset())
        self._container = w.VBox([
            w.HBox([self._play, self._slider, self._step_button, self._reset_button]),
            self._status, self._out, w.HBox([self._messages_html, self._events_html]),
        ])
        self._render()

    # -- state ---------------------------------------------------------------
    @property
    def turns(self) -> int:
        """How many messages the conversation has (the last position)."""
        return len(self.history) - 1

    @property
    def state(self) -> Snapshot:
        """The snapshot at the current position."""
        return self.history[self.position]

    @property
    def done(self) -> bool:
        return self.position == self.turns

    @property
    def evicted_ids(self) -> list[int]:
        """Ids of every message evicted up to now, oldest first."""
        return [i for s in self.history[1:self.position + 1] for i in s.evicted]

    # -- moves ---------------------------------------------------------------
    def goto(self, turn: int) -> Snapshot:
        self.position = _check_turn(turn, self.turns, "turn")
        self._slider.value = self.position  # no change event when equal
        self._render()
        return self.state

    def step(self, n: int = 1) -> Snapshot:
        """Append the next `n` messages (stops at the end); returns the new state."""
        check_positive_int(n, "n")
        return self.goto(min(self.position + n, self.turns))

    def back(self, n: int = 1) -> Snapshot:
        return self.goto(max(self.position - n, 0))

    def reset(self) -> Snapshot:
        """Back to turn 0: only the system prompt and core memory."""
        return self.goto(0)

    def _on_slider(self, change) -> None:
        if change["new"] != self.position:
            self.goto(change["new"])

    # -- views ---------------------------------------------------------------
    def render_html(self) -> str:
        """The summary and the messages so far, evicted ones greyed (HTML, escaped)."""
        s = self.state
        seen = [h.message for h in self.history[1:self.position + 1] if h.message is not None]  # none at the start
        in_context = set(s.in_context)
        evicted = [m for m in seen if m.id not in in_context]
        # a long conversation scrolls inside the widget instead of stretching the page
        parts = [f'<div style="{_FONT}max-height:420px;overflow-y:auto">']
        if s.summary:
            parts.append(
                f'<div class="summary" style="border-left:4px solid {SEGMENT_COLORS["summary"]};'
                f'padding:4px 8px;margin-bottom:6px;background:#fdf6ec"><b>{_label("summary")}</b> '
                f'{_label("summary_tokens", tokens=s.segments["summary"])}'
                f'<div style="white-space:pre-wrap">{_esc(s.summary)}</div></div>')
        else:
            parts.append(f'<div class="summary" style="color:#888;margin-bottom:6px"><i>{_esc(self._no_summary())}</i></div>')
        hidden = len(evicted) - self.show_evicted
        if hidden > 0:
            parts.append(f'<div style="color:#999">{_label("older_evicted", hidden=hidden)}</div>')
        shown_evicted = set(m.id for m in evicted[max(hidden, 0):])
        for m in seen:
            if m.id in in_context:
                new = s.message is not None and m.id == s.message.id
                style = f"border-left:4px solid {SEGMENT_COLORS['messages']};padding-left:6px;"
                style += "background:#eaf3fb;" if new else ""
                cls = "msg in-context new" if new else "msg in-context"
            elif m.id in shown_evicted:
                style = "border-left:4px solid #ddd;padding-left:6px;color:#aaa;text-decoration:line-through;"
                cls = "msg evicted"
            else:
                continue
            parts.append(f'<div class="{cls}" style="{style}"><b>#{m.id} {_esc(m.role)}</b>: '
                         f'{_esc(shorten(m.content, 300))}</div>')
        if not seen:
            parts.append(f'<div style="color:#888"><i>{_label("no_messages")}</i></div>')
        parts.append("</div>")
        return "".join(parts)

    def events_html(self) -> str:
        """What the last turn did to the context (HTML, escaped)."""
        s = self.state
        parts = [f'<div style="{_FONT}"><b>{_label("events_of_turn", turn=s.turn)}</b>']
        if s.turn == 0:
            parts.append(f"<div>{_label('start_used', used=s.used)}</div>")
        for e in s.events:
            parts.append(f'<div class="event {_esc(e.kind)}">{_badge(e.kind)}{_esc(e.detail)}</div>')
        parts.append("</div>")
        return "".join(parts)

    def _no_summary(self) -> str:
        """What the summary box says while there is no summary."""
        if not self.summarizes:
            return _label("no_summarizer")
        if not any(h.flushed for h in self.history[1:self.position + 1]):
            return _label("no_summary_yet")
        return _label("summary_empty")

    def _title(self) -> str:
        s = self.state
        note = _label("flush_note") if s.flushed else (_label("pressure_note") if s.warned else "")
        return _label("stepper_title", turn=s.turn, turns=self.turns, used=s.used, window=s.window,
                      pressure=f"{s.pressure:.0%}", note=note)

    def _render(self) -> None:
        s = self.state
        self._show(context_bar(s, title=self._title()))
        flushes = sum(h.flushed for h in self.history[1:self.position + 1])
        status = _label("stepper_status_one" if flushes == 1 else "stepper_status", in_context=len(s.in_context),
                        evicted=len(self.evicted_ids), flushes=flushes)
        self._status.value = f'<div style="{_FONT}">{status}</div>'
        self._messages_html.value = self.render_html()
        self._events_html.value = self.events_html()

    def __repr__(self) -> str:
        s = self.state
        return (f"ContextStepper(turn {s.turn}/{self.turns}, {s.used}/{s.window} tokens, "
                f"{len(s.in_context)} in context, {len(self.evicted_ids)} evicted)")


# -- RetrievalExplorer --------------------------------------------------------

def mark_terms(text: str, terms: Iterable[str]) -> str:
    """`text` as escaped HTML with every word whose token is in `terms` wrapped in <mark>.

    Example:
        >>> mark_terms("Ines & her <cat> Biscuit", ["biscuit", "cat"])
        'Ines &amp; her &lt;<mark>cat</mark>&gt; <mark>Biscuit</mark>'
    """
    wanted = set(terms)
    out, pos = [], 0
    for start, end in retrieval.word_spans(text):
        if wanted.intersection(tokenize(text[start:end])):
            out.append(_esc(text[pos:start]))
            out.append(f"<mark>{_esc(text[start:end])}</mark>")
            pos = end
    out.append(_esc(text[pos:]))
    return "".join(out)


_RECORD_FIELDS = ("id", "text", "tags", "session_id", "turn_id", "source_url", "created_at", "trust")


def _records_of(source) -> dict[str, ArchivalRecord]:
    """Records by id, in order, from a store, records, dicts or plain texts."""
    if isinstance(source, (str, bytes, Mapping)):
        raise TypeError("pass an ArchivalStore or a list of records, dicts or texts, not a single "
                        f"{type(source).__name__}")
    records: dict[str, ArchivalRecord] = {}
    for i, item in enumerate(source, start=1):
        if isinstance(item, ArchivalRecord):
            record = item
        elif isinstance(item, Mapping):
            record = ArchivalRecord(**{k: item[k] for k in _RECORD_FIELDS if k in item})
        elif isinstance(item, str):
            record = ArchivalRecord(f"doc-{i:03d}", item)
        else:
            raise TypeError(f"cannot read an archival record from {type(item).__name__}; "
                            "pass ArchivalRecord objects, dicts with 'id' and 'text', or texts")
        if record.id in records:
            raise ValueError(f"record id {record.id!r} appears twice; ids must be unique")
        records[record.id] = record
    return records


def _queries_of(queries) -> list[str]:
    if queries is None:
        return []
    if isinstance(queries, str):
        return [queries]
    out = []
    for q in queries:
        if isinstance(q, Mapping):
            q = q.get("query", q.get("question", q.get("text")))
        elif not isinstance(q, str):
            q = getattr(q, "query", None) or getattr(q, "question", None) or getattr(q, "text", None)
        if not isinstance(q, str):
            raise TypeError("queries must be texts, or dicts / objects with a 'query', 'question' or 'text'")
        out.append(q)
    return out


def _scorer_name(name) -> str:
    """The registry name of a scorer name or alias ("bm25" -> "bm25-lucene")."""
    return retrieval.scorer_entry(name).name


class RetrievalExplorer(_Explorer):
    """Search archival records with a choice of scorer and k; see scores, matches and provenance.

    Score bars (coloured by trust) and a table of results: matched query
    terms are highlighted, each row shows id, session, turn, date, source and
    trust label, and untrusted rows are flagged in red.

    Example:
        >>> ex = RetrievalExplorer(["Ines prefers window seats", "the dentist is on 12 May"])
        >>> [h.record.id for h in ex.search("which seats does Ines like")]
        ['doc-001']
    """

    def __init__(self, store_or_records, queries=None, *, scorer: str = "bm25-lucene", k: int = 5,
                 query: str | None = None):
        w = _widgets()
        self.records = _records_of(store_or_records)
        if not self.records:
            raise ValueError("RetrievalExplorer needs at least one record to search")
        self.queries = _queries_of(queries)
        self.scorer_name = _scorer_name(scorer)
        self.k = self._check_k(k)
        self.query = query if query is not None else (self.queries[0] if self.queries else "")
        self.results: list[Hit] = []
        self.matched: dict[str, list[str]] = {}
        self._indexes: dict[str, object] = {}
        self._syncing = False
        self._text = w.Text(value=self.query, description=_label("query"), continuous_update=False,
                            placeholder=_label("query_placeholder"), layout=w.Layout(width="60%"))
        self._scorer = w.Dropdown(options=list(retrieval.SCORERS), value=self.scorer_name,
                                  description=_label("scorer"))
        self._k = w.IntSlider(value=self.k, min=1, max=max(self.k, min(len(self.records), 20)), description="k")
        self._examples = w.Dropdown(options=[""] + self.queries, value="", description=_label("examples"))
        self._out = w.Output()
        self._table = w.HTML()
        self._text.observe(lambda c: self._from_control(query=c["new"]), names="value")
        self._scorer.observe(lambda c: self._from_control(scorer=c["new"]), names="value")
        self._k.observe(lambda c: self._from_control(k=c["new"]), names="value")
        self._examples.observe(self._on_example, names="value")
        rows = [w.HBox([self._text, self._scorer]), w.HBox([self._k] + ([self._examples] if self.queries else []))]
        self._container = w.VBox(rows + [self._out, self._table])
        self.search()

    @staticmethod
    def _check_k(k) -> int:
        return check_positive_int(k, "k", "how many results to show")

    def _index(self, name: str):
        """One scorer per name, built on first use over every record."""
        if name not in self._indexes:
            index = make_scorer(name)
            for rid, record in self.records.items():
                index.add(rid, record.text)
            self._indexes[name] = index
        return self._indexes[name]

    def _from_control(self, **change) -> None:
        if not self._syncing:
            self.search(**change)

    def _on_example(self, change) -> None:
        if change["new"]:  # the blank first entry means "no example picked"
            self._from_control(query=change["new"])

    def search(self, query: str | None = None, *, scorer: str | None = None, k: int | None = None) -> list[Hit]:
        """Run the search (changing query, scorer or k if given) and redraw; returns the hits."""
        if query is not None:
            if not isinstance(query, str):
                raise TypeError(f"query must be a str, got {type(query).__name__}")
            self.query = query
        if scorer is not None:
            self.scorer_name = _scorer_name(scorer)
        if k is not None:
            self.k = self._check_k(k)
        self._sync_controls()
        index = self._index(self.scorer_name)
        ranked = index.search(self.query, k=self.k) if self.query.strip() else []
        self.results = [Hit(self.records[rid], score, rank) for rank, (rid, score) in enumerate(ranked)]
        self.matched = {h.record.id: index.matched_terms(self.query, h.record.id) for h in self.results}
        self._show(score_bars(self.results, title=_label("top_title", scorer=self.scorer_name, n=len(self.results),
                                                         query=repr(shorten(self.query, 60))),
                              xaxis_title=_label("score_axis", scorer=self.scorer_name)))
        self._table.value = self.render_html()
        return self.results

    def _sync_controls(self) -> None:
        # Set the controls to the state without each change firing a new search.
        self._syncing = True
        try:
            self._text.value = self.query
            self._scorer.value = self.scorer_name
            if self.k > self._k.max:
                self._k.max = self.k
            self._k.value = self.k
        finally:
            self._syncing = False

    def render_html(self) -> str:
        """The results table: marked terms, provenance, trust flags (HTML, escaped)."""
        head = (f'<div style="{_FONT}"><div style="margin:4px 0">'
                + _label("search_head", query=f"<b>{_esc(self.query)}</b>",
                         tokens=_esc(", ".join(tokenize(self.query)) or _label("no_tokens")),
                         scorer=_esc(self.scorer_name), n=len(self.results), total=len(self.records))
                + '</div>')
        if not self.results:
            hint = _label("type_query") if not self.query.strip() else _label("no_match")
            return head + f'<div class="no-results" style="color:#888"><i>{_esc(hint)}</i></div></div>'
        cell = "padding:4px 6px;border-bottom:1px solid #eee;vertical-align:top;text-align:left"
        rows = ['<table style="border-collapse:collapse;width:100%"><thead><tr>'
                + "".join(f'<th style="{cell}">{h}</th>' for h in
                          ("#", _label("col_score"), _label("col_record"), _label("col_provenance"),
                           _label("col_trust")))
                + "</tr></thead><tbody>"]
        for hit in self.results:
            r = hit.record
            terms = self.matched.get(r.id, [])
            flag = {"untrusted": "background:#fdecea;border-left:4px solid %s;" % TRUST_COLORS["untrusted"],
                    "trusted": "border-left:4px solid %s;" % TRUST_COLORS["trusted"]}.get(
                        r.trust, "border-left:4px solid %s;" % TRUST_COLORS["unverified"])
            label = "⚠ untrusted" if r.trust == "untrusted" else r.trust
            where = [f"<b>{_esc(r.id)}</b>",
                     _label("session_turn", session=_esc(r.session_id or '-'),
                            turn=_esc(r.turn_id if r.turn_id is not None else '-')),
                     _esc(r.created_at.strftime("%Y-%m-%d %H:%M"))]
            if r.source_url:
                url = r.source_url
                if url.startswith(("http://", "https://")):
                    where.append(f'<a href="{_esc(url)}" target="_blank" rel="noopener noreferrer">{_esc(shorten(url, 50))}</a>')
                else:  # never make a link of javascript: or other schemes
                    where.append(_esc(shorten(url, 50)))
            if r.tags:
                where.append(_label("tags") + _esc(", ".join(r.tags)))
            rows.append(
                f'<tr class="trust-{_esc(r.trust)}" style="{flag}">'
                f'<td style="{cell}">{hit.rank + 1}</td><td style="{cell}">{hit.score:.3f}</td>'
                # a long unbroken string (a hex payload) must wrap, not push provenance off screen
                f'<td style="{cell};overflow-wrap:anywhere">{mark_terms(r.text, terms)}'
                f'<div style="color:#777;font-size:11px">{_label("matched")}{_esc(", ".join(terms)) or "-"}</div></td>'
                f'<td style="{cell};font-size:11px">{"<br>".join(where)}</td>'
                f'<td style="{cell};color:{TRUST_COLORS.get(r.trust, "#333")};font-weight:bold" '
                f'class="trust {_esc(r.trust)}">{_esc(label)}</td></tr>')
        rows.append("</tbody></table></div>")
        return head + "".join(rows)

    def __repr__(self) -> str:
        return (f"RetrievalExplorer({len(self.records)} records, scorer={self.scorer_name!r}, k={self.k}, "
                f"query={shorten(self.query, 40)!r}, {len(self.results)} results)")


# -- TraceViewer --------------------------------------------------------------


@dataclass(frozen=True)
class Interrupt:
    """One frame of a TraceViewer: the user's message arriving, or one tool call and what followed.

    `spliced` are the messages this frame put into the prompt (the call and
    its result, or the user's message); `tokens_used`, `window` and
    `segments` describe the context at the end of the frame (None when the
    trace did not record them).
    """

    step: int
    index: int
    user_text: str
    events: tuple
    call: object = None
    result: object = None
    spliced: tuple = ()
    tokens_used: int | None = None
    window: int | None = None
    segments: dict | None = None

    @property
    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]

    def __repr__(self) -> str:
        what = "user message" if self.call is None else shorten(str(getattr(self.call, "name", self.call)), 40)
        return f"Interrupt(step {self.step}.{self.index}: {what}, {len(self.events)} events)"


def _traces_of(source) -> list:
    if hasattr(source, "traces") and not hasattr(source, "events"):
        traces = list(source.traces)  # an Agent
    elif hasattr(source, "events") and hasattr(source, "user_text"):
        traces = [source]  # one Trace
    elif isinstance(source, Iterable) and not isinstance(source, (str, bytes, Mapping)):
        traces = list(source)
    else:
        raise TypeError(f"TraceViewer takes an Agent, a Trace or a list of Traces, got {type(source).__name__}")
    for t in traces:
        if not (hasattr(t, "events") and hasattr(t, "user_text")):
            raise TypeError(f"TraceViewer takes Trace objects (from Agent.step), got {type(t).__name__}")
    if not traces:
        raise ValueError("nothing to show: run agent.step(...) at least once, then pass the agent or its traces")
    return traces


def interrupts_of(source) -> list[Interrupt]:
    """Cut traces into frames: the user's message arriving, then one frame per tool call."""
    frames: list[Interrupt] = []
    tokens = window = segments = None
    for trace in _traces_of(source):
        groups: list[list] = [[]]
        for event in trace.events:
            # a call's inner monologue opens its frame, just before the call itself
            after_thought = event.kind == "tool_call" and groups[-1] and groups[-1][-1].kind == "thought"
            if event.kind in ("thought", "tool_call") and groups[-1] and not after_thought:
                groups.append([])
            groups[-1].append(event)
        # frame 0 is the user's message arriving; a trace that starts with a call has none
        first = 1 if groups[0] and groups[0][0].kind in ("thought", "tool_call") else 0
        for index, events in enumerate(groups, start=first):
            call = result = None
            for e in events:
                if e.kind == "tool_call" and call is None:
                    call = e.call
                if e.kind == "tool_result" and result is None:
                    result = e.result
                if getattr(e, "tokens_used", None) is not None:
                    tokens, window = e.tokens_used, e.window
                # carried forward: a frame without context events keeps the last known state
                if getattr(e, "segments", None):
                    segments = dict(e.segments)
            spliced = tuple(e.message for e in events
                            if e.kind == "append" and getattr(e, "message", None) is not None)
            frames.append(Interrupt(getattr(trace, "step", 0), index, trace.user_text, tuple(events),
                                    call, result, spliced, tokens, window, segments))
    return frames


class TraceViewer(_Explorer):
    """The agent loop frame by frame: the user's message, each tool call, its result spliced into the prompt.

    Pass an Agent (all its steps so far), one Trace or a list of Traces.
    A step's first frame is the user's message arriving; then one frame per
    tool call, with the events it caused (appends, pressure, evictions,
    heartbeats, the message sent), and the context bar after it.

    Frames are numbered from 0, on screen as in `frames`, `goto` and the
    slider: `goto(1)` shows the frame the header calls "frame 1", which in a
    one-step trace is its first tool call.

    Example:
        >>> from memlib.agent import Agent, RulePolicy
        >>> from memlib.tools import MemorySystem
        >>> agent = Agent(RulePolicy(), MemorySystem.create(window=800))
        >>> viewer = TraceViewer(agent.step("My name is Ada."))
        >>> viewer.goto(1).call is not None, "frame 1/" in viewer._header.value
        (True, True)
    """

    def __init__(self, trace_or_agent_steps, *, warn_at: float = 0.7, flush_at: float = 1.0, evict_to: float = 0.5):
        w = _widgets()
        self.frames = interrupts_of(trace_or_agent_steps)
        self.policy = (warn_at, flush_at, evict_to)
        self.position = 0
        last = len(self.frames) - 1
        # frames are numbered from 0, on screen too: the slider, the header and goto agree
        self._slider = w.IntSlider(value=0, min=0, max=last, description=_label("frame"))
        self._back_button = w.Button(description=_label("back"))
        self._next_button = w.Button(description=_label("next_frame"), tooltip=_label("next_frame_tip"))
        self._reset_button = w.Button(description=_label("reset"))
        self._header = w.HTML()
        self._out = w.Output()
        self._body = w.HTML()
        self._slider.observe(self._on_slider, names="value")
        self._back_button.on_click(lambda _b: self.back())
        self._next_button.on_click(lambda _b: self.step())
        self._reset_button.on_click(lambda _b: self.reset())
        self._container = w.VBox([
            w.HBox([self._back_button, self._next_button, self._reset_button, self._slider]),
            self._header, self._out, self._body,
        ])
        self._render()

    @property
    def state(self) -> Interrupt:
        return self.frames[self.position]

    @property
    def done(self) -> bool:
        return self.position == len(self.frames) - 1

    def goto(self, frame: int) -> Interrupt:
        """Show frame `frame`: 0-based, as in `frames` and as the header and the slider number them."""
        self.position = _check_turn(frame, len(self.frames) - 1, "frame")
        self._slider.value = self.position
        self._render()
        return self.state

    def step(self, n: int = 1) -> Interrupt:
        """Move to the next frame (stops at the last); returns it."""
        check_positive_int(n, "n")
        return self.goto(min(self.position + n, len(self.frames) - 1))

    def back(self, n: int = 1) -> Interrupt:
        return self.goto(max(self.position - n, 0))

    def reset(self) -> Interrupt:
        return self.goto(0)

    def _on_slider(self, change) -> None:
        if change["new"] != self.position:
            self.goto(change["new"])

    def bar(self):
        """The context bar at the end of the current frame (by segment when the trace recorded it)."""
        f = self.state
        warn_at, flush_at, evict_to = self.policy
        title = (_label("after_user", step=f.step) if f.call is None else
                 _label("after_call", step=f.step, index=f.index))
        if f.segments and f.window:
            return context_bar(f.segments, f.window, warn_at=warn_at, flush_at=flush_at, evict_to=evict_to,
                               title=_label("bar_tokens", title=title, used=f.tokens_used, window=f.window))
        if f.tokens_used is not None and f.window:
            return usage_bar(f.tokens_used, f.window, warn_at=warn_at, flush_at=flush_at, evict_to=evict_to,
                             title=_label("bar_tokens", title=title, used=f.tokens_used, window=f.window))
        return usage_bar(0, 1, title=_label("no_main_context", title=title))

    def render_html(self) -> str:
        """The current frame as HTML (escaped): call, result, what entered the prompt, other events."""
        f = self.state
        in_step = [g for g in self.frames if g.step == f.step]
        calls = sum(1 for g in in_step if g.call is not None)
        parts = [f'<div style="{_FONT}">']
        if f.call is None:
            parts.append(f"<div><b>{_label('user_arrives')}</b>{_label('from_outside')}</div>")
        else:
            render = getattr(f.call, "render", None)
            text = render() if callable(render) else repr(f.call)
            thought = getattr(f.call, "thought", "")
            if thought:
                parts.append(f'<div class="thought"><b>{_label("inner_monologue")}</b> <i style="white-space:pre-wrap">'
                             f'{_esc(shorten(thought, 600))}</i></div>')
            parts.append(f'<div><b>{_label("tool_call_of", index=f.index, calls=calls)}</b> '
                         f'<code class="tool-call">{_esc(text)}</code></div>')
            if f.result is not None:
                ok = getattr(f.result, "ok", True)
                color = "#2e9e4f" if ok else LINE_COLORS["flush"]
                parts.append(f'<div class="tool-result"><b style="color:{color}">{_esc(getattr(f.result, "status", ""))}'
                             f'</b> <span style="white-space:pre-wrap">{_esc(getattr(f.result, "message", f.result))}'
                             f'</span></div>')
        if f.spliced:
            parts.append(f'<div style="margin-top:6px"><b>{_label("spliced")}</b></div>')
            for m in f.spliced:
                parts.append(f'<pre class="spliced" style="margin:2px 0;padding:4px 6px;background:#f4f6f8;'
                             f'white-space:pre-wrap">[{_esc(m.role)} #{m.id}] {_esc(shorten(m.content, 600))}</pre>')
        others = [e for e in f.events if e.kind not in ("thought", "tool_call", "tool_result", "append")]
        if others:
            parts.append(f'<div style="margin-top:6px"><b>{_label("then")}</b></div>')
            for e in others:
                parts.append(f'<div class="event {_esc(e.kind)}">{_badge(e.kind)}'
                             f'<span style="white-space:pre-wrap">{_esc(shorten(e.detail, 400))}</span></div>')
        parts.append("</div>")
        return "".join(parts)

    def _render(self) -> None:
        f = self.state
        steps = sorted({g.step for g in self.frames})
        self._header.value = (f'<div style="{_FONT}"><b>{_label("viewer_step", step=f.step)}</b>'
                              + _label("viewer_header", nth=steps.index(f.step) + 1, steps=len(steps),
                                            frame=self.position, last=len(self.frames) - 1)
                              + f'<i>{_esc(shorten(f.user_text, 200))}</i></div>')
        self._show(self.bar())
        self._body.value = self.render_html()

    def __repr__(self) -> str:
        return f"TraceViewer(frame {self.position}/{len(self.frames) - 1}: {self.state!r})"
