"""memlib.viz.rot: the memory-rot figure of notebook 09."""

from __future__ import annotations

import pytest

from memlib.consolidate import RotPoint
from memlib.viz import rot_figure

go = pytest.importorskip("plotly.graph_objects")


def test_rot_figure_with_and_without_consolidation():
    points = [RotPoint("clean", 10, 0, 0.5, 0.6, 0), RotPoint("+2 stale", 12, 2, 0.0, 0.3, 2)]
    fig = rot_figure(points, after=RotPoint("after", 9, 0, 0.5, 0.65, 0))
    assert [list(t.y) for t in fig.data][:2] == [[0.5, 0.0], [0.6, 0.3]]
    assert [list(t.x) for t in fig.data][:2] == [[0, 2], [0, 2]]
    assert len(fig.data) == 4 and "0.65" in fig.data[3].name
    # each dotted "after" line has its curve's colour
    assert [t.line.color for t in fig.data[2:]] == [t.line.color for t in fig.data[:2]]
    assert all(t.line.dash == "dot" for t in fig.data[2:])
    assert len(rot_figure(points).data) == 2


def test_rot_figure_needs_points():
    with pytest.raises(ValueError, match="empty"):
        rot_figure([])
