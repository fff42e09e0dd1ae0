"""memlib.viz.experiments and memlib.viz.lines: the experiment figures and their shared layout."""

from __future__ import annotations

import doctest

import pytest

import memlib.viz.lines
from memlib.experiments import KVResult, KVTrial, MultiSessionResult, RecallProbe
from memlib.viz import kv_figure, line_figure, multisession_figure

go = pytest.importorskip("plotly.graph_objects")


def test_doctests():
    result = doctest.testmod(memlib.viz.lines)
    assert result.failed == 0 and result.attempted > 0


def test_kv_figure_draws_accuracy_per_level_for_both_readers():
    trials = [KVTrial(0, "a", "a", "a", 50, 2), KVTrial(0, None, "a", "a", 50, 2), KVTrial(2, None, "b", "b", 40, 6)]
    fig = kv_figure(KVResult(trials, {"window": 512, "n_pairs": 140, "trials": 2}))
    paging, window = fig.data
    assert list(paging.x) == [0, 2] and list(paging.y) == [1.0, 1.0]
    assert list(window.y) == [0.5, 0.0] and window.name == "fixed window (512 tokens)"
    assert "140 pairs" in fig.layout.title.text and fig.layout.xaxis.dtick == 1
    assert paging.line.color != window.line.color


def test_multisession_figure_draws_accuracy_per_distance():
    probes = [RecallProbe("q1", "c02", 0, True, True, "main context"),
              RecallProbe("q1", "c03", 1, False, True, "conversation_search"),
              RecallProbe("q2", "c03", 1, False, False, None)]
    fig = multisession_figure(MultiSessionResult(probes, {"window": 300}))
    paging, baseline = fig.data
    assert list(baseline.x) == [0, 1] and list(baseline.y) == [1.0, 0.0] and list(paging.y) == [1.0, 0.5]
    assert "window 300 tokens" in fig.layout.title.text


def test_line_figure_options_and_bad_input():
    fig = line_figure([10, 100], {"a": [1, 2], "b": [3, 4]}, title="t", x_title="x", y_title="y",
                      colors={"b": "#000000"}, log=True, y_range=(0, 5))
    assert fig.data[1].line.color == "#000000" and fig.data[0].line.color != "#000000"
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"
    assert fig.layout.xaxis.title.text == "x" and list(fig.layout.yaxis.range) == [0, 5]
    with pytest.raises(ValueError, match="one per x"):
        line_figure([1, 2], {"a": [1]}, title="t", x_title="x", y_title="y")
    with pytest.raises(ValueError, match="non-empty"):
        line_figure([1], {}, title="t", x_title="x", y_title="y")
