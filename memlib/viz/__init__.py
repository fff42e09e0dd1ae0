"""Figures and explorers for the course notebooks.

`memlib.viz.figures` builds plain plotly figures (context bar, token timeline,
eviction comparison, score bars, recall@k); `memlib.viz.widgets` wraps them in
ipywidgets explorers (ContextStepper, RetrievalExplorer, TraceViewer);
`memlib.viz.replay` turns a conversation into per-turn snapshots. plotly and
ipywidgets are imported on first use, so `import memlib.viz` stays cheap and a
missing ipywidgets only matters to the explorers. Nothing here changes memory.

Example (in a notebook):
    >>> from memlib.viz import ContextStepper
    >>> stepper = ContextStepper([("user", f"note {i}: the bus left at {i} pm") for i in range(30)], window=300)
    >>> stepper.step(25).turn, len(stepper.evicted_ids) > 0
    (25, True)
    >>> display(stepper)                # doctest: +SKIP

If a front end shows an explorer without its figure, set
`memlib.viz.widgets.DISPLAY_MODE` to "capture" or "state" (see there).
"""

from memlib.viz.figures import (LINE_COLORS, SCORER_COLORS, SEGMENT_COLORS, SEGMENT_LABELS, SEGMENTS,
                                TRUST_COLORS, context_bar, eviction_comparison, recall_at_k_curve, usage_bar,
                                score_bars, token_timeline)
from memlib.viz.replay import Snapshot, as_message, replay
from memlib.viz.profiles import ProfileExplorer, profile_comparison, profile_histories, profile_state_rows
from memlib.viz.tables import html_table, table_html
from memlib.viz.widgets import (SCORERS, ContextStepper, Interrupt, RetrievalExplorer, TraceViewer,
                                interrupts_of, mark_terms)

__all__ = [
    "Snapshot", "replay", "as_message",
    "ContextStepper", "RetrievalExplorer", "TraceViewer", "Interrupt", "interrupts_of", "mark_terms", "SCORERS",
    "context_bar", "usage_bar", "token_timeline", "eviction_comparison", "score_bars", "recall_at_k_curve",
    "ProfileExplorer", "profile_comparison", "profile_histories", "profile_state_rows", "html_table", "table_html",
    "SEGMENTS", "SEGMENT_LABELS", "SEGMENT_COLORS", "TRUST_COLORS", "LINE_COLORS", "SCORER_COLORS",
]
