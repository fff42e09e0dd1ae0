"""memlib.viz.scaling: search latency against store size, as plotly and as SVG."""

from __future__ import annotations

import doctest
import xml.etree.ElementTree as ET

import pytest

import memlib.viz.scaling
from memlib.viz import search_latency_figure, search_latency_svg

go = pytest.importorskip("plotly.graph_objects")

SEARCH = {"sizes": [1_000, 10_000],
          "median_ms": {"memlib BM25Index": {1_000: 0.02, 10_000: 0.09},
                        "SQLiteArchivalStore (index) <on disk>": {1_000: 0.04, 10_000: 0.15},
                        "rank-bm25 BM25Okapi": {1_000: 0.4, 10_000: 35.0}}}


def test_doctests():
    result = doctest.testmod(memlib.viz.scaling)
    assert result.failed == 0 and result.attempted > 0


def test_figure_has_one_log_log_line_per_engine():
    fig = search_latency_figure(SEARCH)
    assert [t.name for t in fig.data] == list(SEARCH["median_ms"])
    assert list(fig.data[2].y) == [0.4, 35.0] and list(fig.data[2].x) == [1_000, 10_000]
    assert fig.layout.xaxis.type == fig.layout.yaxis.type == "log"
    assert fig.data[1].line.dash == "dash" and fig.data[0].line.dash is None  # the SQLite store is dashed
    assert "plotly" in fig.to_html(include_plotlyjs="cdn", full_html=True).lower()


def test_svg_is_well_formed_and_names_every_engine():
    svg = search_latency_svg(SEARCH)
    root = ET.fromstring(svg)  # well-formed, even with < > in an engine name
    assert root.tag.endswith("svg")
    labels = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
    assert all(name in labels for name in SEARCH["median_ms"])
    assert len(list(root.iter("{http://www.w3.org/2000/svg}polyline"))) == 3
    assert svg.count('stroke-dasharray="5,3"') == 2  # the SQLite line and its legend entry


@pytest.mark.parametrize("bad", [{}, {"sizes": [1], "median_ms": {}}, {"sizes": [1], "median_ms": {"a": {2: 1.0}}}])
def test_bad_input_says_what_is_expected(bad):
    with pytest.raises(ValueError):
        search_latency_figure(bad)
    with pytest.raises(ValueError):
        search_latency_svg(bad)
