"""Figures of notebook 10's experiments: accuracy of both readers per level or distance.

`kv_figure(result)` draws a `memlib.experiments.KVResult` (nested key-value
retrieval, accuracy per nesting level), `multisession_figure(result)` a
`MultiSessionResult` (accuracy per session distance). Both read the result's
`table()` and `settings` and draw with `line_figure`; the experiments
themselves run in `memlib.experiments`, which draws nothing.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from memlib.viz.lines import line_figure

if TYPE_CHECKING:
    import plotly.graph_objects as go

    from memlib.experiments import KVResult, MultiSessionResult

__all__ = ["kv_figure", "multisession_figure"]

_ACCURACY_RANGE = (-0.03, 1.05)  # a little room so curves at 0 and 1 stay visible


def kv_figure(result: "KVResult") -> "go.Figure":
    """Accuracy per nesting level: the paging agent against the fixed window."""
    rows = result.table()
    s = result.settings
    return line_figure(
        [r["level"] for r in rows],
        {"paging agent (archival_memory_search)": [r["paging_accuracy"] for r in rows],
         f"fixed window ({s.get('window')} tokens)": [r["window_accuracy"] for r in rows]},
        title=f"Nested key-value retrieval ({s.get('n_pairs')} pairs, {s.get('trials')} tasks per level)",
        x_title="nesting level (extra lookups)", y_title="accuracy", integer_x=True, y_range=_ACCURACY_RANGE)


def multisession_figure(result: "MultiSessionResult") -> "go.Figure":
    """Accuracy per session distance: the paging agent against the summary-only baseline."""
    rows = result.table()
    return line_figure(
        [r["distance"] for r in rows],
        {"paging agent (context + recall + archival search)": [r["paging_accuracy"] for r in rows],
         "summary only (context + summary)": [r["baseline_accuracy"] for r in rows]},
        title=f"Multi-session recall (window {result.settings.get('window')} tokens)",
        x_title="sessions between the answer and the question", y_title="accuracy", integer_x=True,
        y_range=_ACCURACY_RANGE)
