"""memlib.bench: the quick benchmark runs end to end (a smoke test, not a timing test)."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from memlib import bench


def test_corpus_is_deterministic_and_realistic():
    a, b = bench.make_corpus(500, seed=5), bench.make_corpus(500, seed=5)
    assert a.texts == b.texts and a.queries == b.queries
    assert bench.make_corpus(500, seed=6).texts != a.texts
    lengths = sorted(map(len, a.tokens))
    assert 5 <= lengths[len(lengths) // 2] <= 40  # notes of a sentence or two
    assert all(q for q in a.query_tokens)  # every query has searchable words
    assert "500 docs" in repr(a)


@pytest.mark.slow
def test_quick_run_writes_results_report_and_charts(tmp_path):
    assert bench.main(["--quick", "--out", str(tmp_path), "--no-notebooks"]) == 0
    results = json.loads((tmp_path / "results.json").read_text())
    assert results["mode"] == "quick"
    medians = results["search"]["median_ms"]
    for engine in ("memlib BM25Index", "rank-bm25 BM25Okapi", "bm25s", "memlib TokenOverlap",
                   "SQLiteArchivalStore (index)"):
        assert all(v > 0 for v in medians[engine].values()), engine
    assert results["interleaved"]["total_s"]["memlib BM25Index"] > 0
    assert "rank-bm25 (re-index every round)" in results["interleaved"]["how"]
    assert results["context"]["late_median_us"] > 0
    # issue 18: the analyzer against the previous tokenizer, tantivy in both tables
    assert all(v > 0 for v in medians["memlib BM25Index (previous tokenizer)"].values())
    assert all(v > 0 for v in medians["tantivy"].values())
    assert "commit + reload" in results["interleaved"]["how"]["tantivy (commit + reload before every search)"]
    per_record = results["analyzer"]["us_per_record"]
    assert per_record["previous tokenizer"]["course facts"] > 0 and "analyzer 'stemmed'" in per_record
    assert results["import"]["import memlib"]["pulls_in_plotly_or_ipywidgets"] is False
    report = (tmp_path / "report.md").read_text()
    assert "### Top-10 search" in report and "### Targets (issue 8)" in report
    assert "### Analyzer cost per record" in report
    svg = ET.fromstring((tmp_path / "search.svg").read_text())  # well-formed SVG
    assert svg.tag.endswith("svg")
    assert "plotly" in (tmp_path / "search.html").read_text().lower()
    # meant to take well under a minute; generous here because CI machines may be busy
    assert results["seconds"] < 180, "the quick run is for CI: keep it short"


def test_bench_reports_missing_libraries_clearly(monkeypatch, capsys, tmp_path):
    def no_numpy(*args, **kwargs):
        raise ImportError("No module named 'numpy'")

    monkeypatch.setattr(bench, "run", no_numpy)
    assert bench.main(["--quick", "--out", str(tmp_path)]) == 2
    assert "pip install" in capsys.readouterr().err


def test_python_dash_m_memlib_bench_help():
    out = subprocess.run([sys.executable, "-m", "memlib", "bench", "--help"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert "--quick" in out.stdout


def test_update_readme_replaces_only_the_marked_section(tmp_path):
    results = {"command": "python -m memlib bench --quick", "seconds": 12.0, "mode": "quick",
               "machine": {"cpu": "cpu", "nproc": 2, "python": "3.11", "sqlite": "3.40", "platform": "linux",
                           "packages": {"numpy": "2"}, "loadavg_at_start": [1.0], "loadavg_at_end": [1.0]},
               "search": {"sizes": [10], "median_ms": {"memlib BM25Index": {10: 1.0}, "rank-bm25 BM25Okapi": {10: 60.0},
                                                       "bm25s": {10: 2.0}}},
               "interleaved": {"n_inserts": 10, "every": 10, "total_s": {"memlib BM25Index": 1.0,
                               "rank-bm25 (re-index every round)": 200.0, "bm25s (re-index every round)": 150.0},
                               "how": {"memlib BM25Index": "m", "rank-bm25 (re-index every round)": "e",
                                       "bm25s (re-index every round)": "e"}},
               "context": {"turns": 10, "probe": 1, "early_median_us": 1.0, "late_median_us": 1.2,
                           "early_mean_us": 1.0, "late_mean_us": 1.0, "ratio_median": 1.2,
                           "recall_add_early_us": 1.0, "recall_add_late_us": 1.0},
               "import": {"import memlib": {"median_s": 0.01, "pulls_in_plotly_or_ipywidgets": False}}}
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{bench._START}\nold\n{bench._END}\noutro\n")
    bench.update_readme(readme, results)
    text = readme.read_text()
    assert text.startswith("intro\n") and text.endswith("\noutro\n") and "old" not in text
    assert "| memlib BM25Index | 1.000 | 1.0x |" in text and "python -m memlib bench --quick" in text
    readme.write_text("no markers")
    with pytest.raises(ValueError, match="markers"):
        bench.update_readme(readme, results)


def test_search_on_chosen_engines_and_its_figure(tmp_path):
    only = ["memlib BM25Index", "rank-bm25 BM25Okapi"]
    out = bench.bench_search([200, 400], repeats=1, n_queries=5, folder=tmp_path, log=lambda line: None, only=only)
    assert sorted(out["median_ms"]) == sorted(only)
    assert all(set(by_n) == {200, 400} and all(ms > 0 for ms in by_n.values()) for by_n in out["median_ms"].values())
    fig = bench.search_figure(out)
    assert [t.name for t in fig.data] == only and list(fig.data[0].x) == [200, 400]
    with pytest.raises(ValueError, match="unknown engines"):
        bench.bench_search([200], 1, 5, tmp_path, log=lambda line: None, only=["elasticsearch"])


def test_quick_run_never_writes_the_committed_results(monkeypatch, tmp_path):
    """`--quick` without --out goes to a temporary folder; the full run keeps benchmarks/results."""
    import tempfile
    from pathlib import Path

    seen = []
    monkeypatch.setattr(bench, "run", lambda quick, out_dir, notebooks: seen.append(out_dir) or {})
    monkeypatch.chdir(tmp_path)
    assert bench.main(["--quick"]) == 0 and bench.main([]) == 0
    quick, full = seen
    assert quick == Path(tempfile.gettempdir()) / "memlib-bench-quick"
    assert full == Path("benchmarks") / "results"
