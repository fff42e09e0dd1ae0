"""benchmarks/: the harness runs end to end (a smoke test, not a timing test), and its README helper.

The scripts live outside the installed package, so they are imported by path.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from conftest import ROOT

pytestmark = pytest.mark.measure

BENCHMARKS = ROOT / "benchmarks"


def load_script(name: str):
    """benchmarks/<name>.py as a module (registered, so bench.py finds _readme_table)."""
    spec = importlib.util.spec_from_file_location(name, BENCHMARKS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


readme_table = load_script("_readme_table")
bench = load_script("bench")


def test_the_harness_is_not_part_of_the_package():
    assert importlib.util.find_spec("memlib.bench") is None
    from memlib.__main__ import SUBCOMMANDS

    assert "bench" not in SUBCOMMANDS


def test_reopen_times_opening_an_existing_store(tmp_path):
    lines = []
    out = bench.bench_reopen([1_000], runs=2, folder=tmp_path, log=lines.append)
    assert out["runs"] == 2 and len(out["each_s"][1_000]) == 2
    assert out["median_s"][1_000] > 0 and "1,000 records" in lines[0]
    from memlib.storage import SQLiteArchivalStore

    store = SQLiteArchivalStore(tmp_path / "reopen-1000.db", read_only=True)
    try:
        assert len(store) == 1_000  # the file really holds the records it reopened
    finally:
        store.close()


@pytest.mark.slow
def test_quick_run_writes_results_report_and_charts(tmp_path):
    assert bench.main(["--quick", "--out", str(tmp_path), "--no-notebooks"]) == 0
    results = bench.load_results(tmp_path / "results.json")  # size keys back to ints
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
    assert list(results["reopen"]["median_s"]) == [10_000] and results["reopen"]["median_s"][10_000] > 0
    report = (tmp_path / "report.md").read_text()
    assert "### Top-10 search" in report and "### Targets (issue 8)" in report
    assert "### Reopening a SQLiteArchivalStore" in report and "| 10,000 |" in report
    assert "### Analyzer cost per record" in report
    svg = ET.fromstring((tmp_path / "search.svg").read_text())  # well-formed SVG
    assert svg.tag.endswith("svg")
    assert "plotly" in (tmp_path / "search.html").read_text().lower()
    # (how long the quick run takes is printed by the benchmark, not asserted: a busy machine is no failure)
    assert results["seconds"] > 0


def test_bench_reports_missing_libraries_clearly(monkeypatch, capsys, tmp_path):
    def no_numpy(*args, **kwargs):
        raise ImportError("No module named 'numpy'")

    monkeypatch.setattr(bench, "run", no_numpy)
    assert bench.main(["--quick", "--out", str(tmp_path)]) == 2
    assert "pip install" in capsys.readouterr().err


def test_the_script_answers_help_from_the_repository_root():
    out = subprocess.run([sys.executable, "benchmarks/bench.py", "--help"], capture_output=True, text=True,
                         timeout=60, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "--quick" in out.stdout and "python benchmarks/bench.py" in out.stdout


def test_update_readme_replaces_only_the_marked_section(tmp_path):
    results = {"command": "python benchmarks/bench.py --quick", "seconds": 12.0, "mode": "quick",
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
               "reopen": {"sizes": [10], "runs": 3, "median_s": {10: 0.002}},
               "import": {"import memlib": {"median_s": 0.01, "pulls_in_plotly_or_ipywidgets": False}}}
    start, end = readme_table.markers("bench:results")
    readme = tmp_path / "README.md"
    readme.write_text(f"intro\n{start}\nold\n{end}\noutro\n")
    bench.update_readme(readme, results)
    text = readme.read_text()
    assert text.startswith(f"intro\n{start}\nCommand: ") and text.endswith(f"\n{end}\noutro\n")
    assert "old" not in text
    assert "| memlib BM25Index | 1.000 | 1.0x |" in text and "python benchmarks/bench.py --quick" in text
    assert "| 10 | 0.002 | 200.0 |" in text  # the reopen table: seconds, and ms per 1,000 records
    readme.write_text("no markers")
    with pytest.raises(ValueError, match="marker"):
        bench.update_readme(readme, results)
    assert readme.read_text() == "no markers"


def test_search_on_chosen_engines(tmp_path):
    only = ["memlib BM25Index", "bm25s", "SQLiteArchivalStore (index)"]
    out = bench.bench_search([200, 400], repeats=1, n_queries=5, folder=tmp_path, log=lambda line: None, only=only)
    assert sorted(out["median_ms"]) == sorted(only)
    assert all(set(by_n) == {200, 400} and all(ms > 0 for ms in by_n.values()) for by_n in out["median_ms"].values())
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


# -- benchmarks/_readme_table.py ---------------------------------------------------------


def test_replace_marked_section_keeps_everything_outside_the_markers(tmp_path):
    start, end = readme_table.markers("demo:table")
    assert (start, end) == ("<!-- demo:table:start -->", "<!-- demo:table:end -->")
    path = tmp_path / "README.md"
    path.write_text(f"# Title\n\nprose\n{start}\n| old |\n{end}\nmore prose\n", encoding="utf-8")
    readme_table.replace_marked_section(path, "demo:table", "| a | b |\n|---|---|\n| 1 | é |\n")
    assert path.read_text(encoding="utf-8") == (
        f"# Title\n\nprose\n{start}\n| a | b |\n|---|---|\n| 1 | é |\n{end}\nmore prose\n")
    readme_table.replace_marked_section(path, "demo:table", "| 2 |")  # again: idempotent in shape
    assert path.read_text(encoding="utf-8").count(start) == 1 and "| 1 |" not in path.read_text(encoding="utf-8")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]  # no scratch file left behind


@pytest.mark.parametrize("text, message", [
    ("no markers at all", "0 times"),
    ("<!-- t:start --> a <!-- t:start --> b <!-- t:end -->", "2 times"),
    ("<!-- t:end --> backwards <!-- t:start -->", "before"),
])
def test_replace_marked_section_refuses_bad_markers_and_changes_nothing(tmp_path, text, message):
    path = tmp_path / "README.md"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        readme_table.replace_marked_section(path, "t", "new")
    assert path.read_text(encoding="utf-8") == text


@pytest.mark.parametrize("name", ["", " t", "a--b"])
def test_marker_names_are_checked(name):
    with pytest.raises(ValueError, match="section name"):
        readme_table.markers(name)
