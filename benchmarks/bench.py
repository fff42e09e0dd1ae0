"""Benchmarks: memlib against what a practitioner would otherwise use, in one run.

`python benchmarks/bench.py` (full) or `python benchmarks/bench.py --quick` (a CI
smoke run, about a minute), from the repository root, measures on the synthetic
notes of `memlib.scaling.make_corpus`:

- top-10 search latency at 1k / 10k / 100k records: memlib `BM25Index` (with the
  default analyzer and with the tokenizer it replaced), `rank_bm25.BM25Okapi.get_top_n`,
  bm25s, SQLite FTS5 `bm25()`, tantivy, memlib `TokenOverlap`, and
  `SQLiteArchivalStore` (index and FTS5-candidate modes);
- reopening a `SQLiteArchivalStore` file of 10k and 100k records;
- the agent's pattern: inserts with a search after every 10 (rank-bm25 and bm25s
  must re-index to see new records, tantivy must commit and reload: all counted);
- the analyzer's cost per record, against the previous tokenizer;
- `MainContext.append` cost early and late in a long conversation;
- `import memlib` time in a fresh interpreter; optionally, executing every
  solution notebook.

Every figure is a median over repeats, and every ratio compares numbers from the
same run. Results go to a directory as JSON, a markdown table, an SVG chart and
a plotly HTML chart (both drawn by `memlib.viz.scaling`); `--readme` rewrites a
README's results section. This script lives outside the installed package
because it needs numpy, bm25s and optionally tantivy, which memlib does not
declare (`pip install -r requirements-test.txt`). It does not assert targets
(benchmarks are not tests); it reports them, and `tests/test_bench.py` only
smoke-tests the quick run.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from _readme_table import replace_marked_section
from memlib.scaling import ENGINES as SCALING_ENGINES
from memlib.retrieval import BM25Index
from memlib.scaling import Corpus, make_corpus, make_vocabulary, scorer_engine, search_latency, time_each
from memlib.viz.scaling import search_latency_figure, search_latency_svg

__all__ = ["main", "run", "bench_search", "bench_reopen", "bench_interleaved", "bench_analyzer",
           "bench_context", "bench_import", "bench_notebooks", "report", "update_readme", "load_results"]

HERE = Path(__file__).resolve().parent
COMMAND = "python benchmarks/bench.py"
README_SECTION = "bench:results"  # the README markers: <!-- bench:results:start --> ... <!-- bench:results:end -->


# ---------------------------------------------------------------------------
# engines: build once, then one callable per query


_PREVIOUS_WORD = None


def previous_tokenize(text: str) -> list[str]:
    """The tokenizer memlib had before its analyzer (no stemming, no CJK bigrams), for comparison."""
    import re

    from memlib.retrieval import STOPWORDS

    global _PREVIOUS_WORD
    if _PREVIOUS_WORD is None:
        _PREVIOUS_WORD = re.compile(r"[^\W_]+")
    return [t for t in _PREVIOUS_WORD.findall(text.lower()) if t not in STOPWORDS]


def _build_archival_store(corpus: Corpus):
    from memlib.archival import ArchivalRecord, ArchivalStore

    store = ArchivalStore()
    for i, text in enumerate(corpus.texts):
        store.add_record(ArchivalRecord(f"doc-{i}", text))
    return lambda q: store.search(q, top_k=10)


def _bm25s_index(tokens: list[list[str]]):
    import bm25s

    retriever = bm25s.BM25(method="lucene")
    retriever.index(tokens, show_progress=False)
    return retriever


def _bm25s_search(retriever, query_tokens: list[str], n_docs: int):
    if not query_tokens:
        return None
    return retriever.retrieve([query_tokens], k=min(10, n_docs), show_progress=False, n_threads=1)


def _build_bm25s(corpus: Corpus):
    from memlib.retrieval import tokenize

    retriever = _bm25s_index(corpus.tokens)
    n = len(corpus.texts)
    return lambda q: _bm25s_search(retriever, tokenize(q), n)


def _fts5_match(query: str) -> str:
    from memlib.retrieval import tokenize

    return " OR ".join(f'"{t}"' for t in dict.fromkeys(tokenize(query)))


def _build_fts5(corpus: Corpus):
    import sqlite3

    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE VIRTUAL TABLE docs USING fts5(text)")
    with conn:
        # memlib's tokens (stems), so FTS5 matches the same terms as every other engine
        conn.executemany("INSERT INTO docs(rowid, text) VALUES (?, ?)",
                         ((i, " ".join(t)) for i, t in enumerate(corpus.tokens)))
    sql = "SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT 10"
    return lambda q: conn.execute(sql, (_fts5_match(q),)).fetchall()


def _tantivy_index():
    """An in-RAM tantivy index over pre-analyzed text (whitespace tokenizer), one writer thread."""
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("body", stored=False, tokenizer_name="whitespace")
    builder.add_integer_field("id", stored=True, indexed=False)
    schema = builder.build()
    index = tantivy.Index(schema)
    # one indexing thread, like every other engine here (the machine has 2 cores)
    return tantivy, schema, index, index.writer(heap_size=15_000_000, num_threads=1)


def _tantivy_search(tantivy, schema, searcher, query: str) -> list[int]:
    from memlib.retrieval import tokenize

    terms = dict.fromkeys(tokenize(query))
    if not terms:
        return []
    q = tantivy.Query.boolean_query(
        [(tantivy.Occur.Should, tantivy.Query.term_query(schema, "body", t)) for t in terms])
    # the ids, as every other engine returns them
    return [searcher.doc(addr)["id"][0] for _, addr in searcher.search(q, 10).hits]


def _build_tantivy(corpus: Corpus):
    tantivy, schema, index, writer = _tantivy_index()
    for i, tokens in enumerate(corpus.tokens):
        writer.add_document(tantivy.Document(id=i, body=" ".join(tokens)))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    searcher = index.searcher()
    return lambda q: _tantivy_search(tantivy, schema, searcher, q)


def _build_sqlite_store(corpus: Corpus, folder: Path, candidates: str):
    """A SQLiteArchivalStore holding the corpus, written once per size and reopened per mode."""
    path = folder / f"store-{len(corpus.texts)}.db"
    if not path.exists():
        _write_store(path, corpus)
    from memlib.storage import SQLiteArchivalStore

    store = SQLiteArchivalStore(path, candidates=candidates)
    return lambda q: store.search(q, top_k=10)


def _write_store(path: Path, corpus: Corpus) -> None:
    """A new SQLite archival file holding every note of `corpus`, written in one transaction."""
    from memlib.archival import ArchivalRecord
    from memlib.storage import SQLiteArchivalStore

    store = SQLiteArchivalStore(path)
    try:
        store.add_records(ArchivalRecord(f"doc-{i}", t) for i, t in enumerate(corpus.texts))
    finally:
        store.close()


ENGINES = {
    "memlib BM25Index": SCALING_ENGINES["memlib BM25Index"],
    "memlib BM25Index (previous tokenizer)": scorer_engine(lambda: BM25Index(analyzer=previous_tokenize)),
    # the ids ArchivalStore hands its index: strings, not small ints
    "memlib BM25Index (string ids)": scorer_engine(BM25Index, lambda i: f"arc-{i + 1:06d}"),
    "rank-bm25 BM25Okapi": SCALING_ENGINES["rank-bm25 BM25Okapi"],
    "bm25s": _build_bm25s,
    "SQLite FTS5 bm25()": _build_fts5,
    "tantivy": _build_tantivy,
    "memlib TokenOverlap": SCALING_ENGINES["memlib TokenOverlap"],
}


# ---------------------------------------------------------------------------
# the workloads


def bench_search(sizes: list[int], repeats: int, n_queries: int, folder: Path, log,
                 only: list[str] | None = None) -> dict:
    """Median top-10 latency per engine and store size; `only` picks some engines by name."""
    from memlib.storage import fts5_available

    engines = dict(ENGINES)
    # the store layer (string ids, records, Hit objects) in memory, then on SQLite
    engines["memlib ArchivalStore (in memory)"] = _build_archival_store
    engines["SQLiteArchivalStore (index)"] = lambda c: _build_sqlite_store(c, folder, "index")
    if fts5_available():
        engines["SQLiteArchivalStore (FTS5 candidates)"] = lambda c: _build_sqlite_store(c, folder, "fts5")
    else:
        engines.pop("SQLite FTS5 bm25()")
    try:
        import tantivy  # noqa: F401  (a benchmark anchor, never a memlib dependency)
    except ImportError:
        engines.pop("tantivy")
        log("  tantivy not installed: skipped (pip install tantivy)")
    if only is not None:
        unknown = set(only) - set(engines)
        if unknown:
            raise ValueError(f"unknown engines {sorted(unknown)}; choose from {sorted(engines)}")
        engines = {name: build for name, build in engines.items() if name in only}

    def repeats_for(name: str, n: int) -> int:
        # rank-bm25, TokenOverlap and the in-memory store are linear in the corpus: fewer repeats at 100k
        fast = name.startswith(("memlib BM25", "bm25s", "SQLite", "tantivy"))
        return repeats if n <= 10_000 or fast else 1

    return search_latency(sizes, engines, repeats=repeats_for, n_queries=n_queries, log=log)


def bench_reopen(sizes: list[int], runs: int, folder: Path, log) -> dict:
    """Seconds to open an existing SQLite archival file: `SQLiteArchivalStore(path)`, median of `runs`.

    Each file is written once (one `add_records` transaction), closed, then opened
    and closed `runs` times; the OS has the file cached after the write, so this
    is the cost of loading it into a store (reading rows, building the index), not
    of a cold disk.
    """
    from memlib.retrieval import BM25Index
    from memlib.storage import SQLiteArchivalStore

    out: dict = {"sizes": sizes, "runs": runs, "median_s": {}, "each_s": {}, "by_record_s": {}}
    for n in sizes:
        path = folder / f"reopen-{n}.db"
        corpus = make_corpus(n, n_queries=1)
        _write_store(path, corpus)
        times, by_record = [], []
        for _ in range(runs):
            gc.collect()
            t = time.perf_counter()
            store = SQLiteArchivalStore(path)
            times.append(time.perf_counter() - t)
            store.close()
            del store
            # The alternative, in the same run: the index built from the text record by
            # record (analysing each text, as a reopen did before the tokens were kept).
            gc.collect()
            t = time.perf_counter()
            index = BM25Index()
            for i, text in enumerate(corpus.texts):
                index.add(i, text)
            by_record.append(time.perf_counter() - t)
            del index
        out["median_s"][n] = statistics.median(times)
        out["each_s"][n] = [round(x, 4) for x in times]
        out["by_record_s"][n] = statistics.median(by_record)
        log(f"reopen a SQLiteArchivalStore of {n:,} records: {out['median_s'][n]:.3f} s "
            f"(median of {runs}: {out['each_s'][n]}); indexing the text record by record alone: "
            f"{out['by_record_s'][n]:.3f} s")
    return out


def bench_interleaved(n_inserts: int, every: int, sample_points: int, folder: Path, log) -> dict:
    """n_inserts inserts with a search after every `every`; seconds for the whole run.

    memlib, SQLiteArchivalStore and FTS5 run the whole workload. rank-bm25 and bm25s
    cannot add to an index, so each search round re-indexes everything inserted so
    far; their round cost grows linearly with n, and the total is estimated from
    `sample_points` rounds measured at evenly spaced sizes (trapezoid rule), openly.
    """
    import sqlite3

    from memlib.retrieval import BM25Index, tokenize
    from memlib.storage import SQLiteArchivalStore, fts5_available

    corpus = make_corpus(n_inserts, seed=2, n_queries=max(1, n_inserts // every))
    queries = corpus.queries
    rounds = n_inserts // every
    out: dict = {"n_inserts": n_inserts, "every": every, "rounds": rounds, "total_s": {}, "how": {}}

    def one_total(make) -> float:
        add, search = make()
        gc.collect()
        t = time.perf_counter()
        for r in range(rounds):
            for i in range(r * every, (r + 1) * every):
                add(i)
            search(queries[r])
        return time.perf_counter() - t

    def full_run(name, make, repeats=1):
        totals = [one_total(make) for _ in range(repeats)]
        out["total_s"][name] = statistics.median(totals)
        out["how"][name] = f"measured: the whole workload{f', median of {repeats} runs' if repeats > 1 else ''}"
        log(f"  {name:<40} {out['total_s'][name]:9.3f} s")
        return totals

    def memlib_index():
        index = BM25Index()
        return (lambda i: index.add(i, corpus.texts[i])), (lambda q: index.search(q, k=10))

    log(f"interleaved: {n_inserts:,} inserts, a top-10 search after every {every}")
    memlib_totals = full_run("memlib BM25Index", memlib_index, repeats=3)
    for sync in ("FULL", "NORMAL"):
        path = folder / f"interleaved-{sync}.db"
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        store = SQLiteArchivalStore(path, synchronous=sync)
        full_run(f"SQLiteArchivalStore (synchronous={sync})",
                 lambda: ((lambda i: store.insert(corpus.texts[i])), (lambda q: store.search(q, top_k=10))))
        store.close()
    if fts5_available():
        def fts5_memory():
            conn = sqlite3.connect(":memory:", isolation_level=None)
            conn.execute("CREATE VIRTUAL TABLE docs USING fts5(text)")
            sql = "SELECT rowid, bm25(docs) FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT 10"
            # memlib's tokens, analysed inside the timed insert (as memlib pays for it)
            return ((lambda i: conn.execute("INSERT INTO docs(rowid, text) VALUES (?, ?)",
                                            (i, " ".join(tokenize(corpus.texts[i]))))),
                    (lambda q: conn.execute(sql, (_fts5_match(q),)).fetchall()))

        full_run("SQLite FTS5 bm25() (in memory)", fts5_memory, repeats=3)

    try:
        import tantivy  # noqa: F401
    except ImportError:
        log("  tantivy not installed: skipped (pip install tantivy)")
    else:
        def tantivy_live():
            tv, schema, index, writer = _tantivy_index()
            held = {"searcher": None}

            def add(i):
                writer.add_document(tv.Document(id=i, body=" ".join(tokenize(corpus.texts[i]))))

            def search(q):
                # new documents are invisible until a commit and a reader reload
                t = time.perf_counter()
                writer.commit()
                index.reload()
                held["searcher"] = index.searcher()
                commit_s[0] += time.perf_counter() - t
                return _tantivy_search(tv, schema, held["searcher"], q)

            return add, search

        commit_s = [0.0]
        totals = full_run("tantivy (commit + reload before every search)", tantivy_live, repeats=3)
        out["tantivy_commit_share"] = commit_s[0] / sum(totals)
        out["how"]["tantivy (commit + reload before every search)"] += (
            f"; commit + reload are {out['tantivy_commit_share']:.0%} of it")

    from rank_bm25 import BM25Okapi

    def rank_round(n, q):
        bm25 = BM25Okapi(corpus.tokens[:n])
        return bm25.get_top_n(corpus.query_tokens[q], list(range(n)), n=10)

    def bm25s_round(n, q):
        return _bm25s_search(_bm25s_index(corpus.tokens[:n]), corpus.query_tokens[q], n)

    for name, one_round in (("rank-bm25 (re-index every round)", rank_round),
                            ("bm25s (re-index every round)", bm25s_round)):
        points = sorted({max(1, round(rounds * k / (sample_points - 1))) for k in range(sample_points)})
        per_round = {}
        for r in points:
            n = r * every
            samples = []
            for rep in range(3):
                gc.collect()
                t = time.perf_counter()
                one_round(n, (r - 1 + rep) % len(queries))
                samples.append(time.perf_counter() - t)
            per_round[r] = statistics.median(samples)
            # memlib's whole run again, between the sampled rounds: whatever load the
            # machine has then weighs on both sides of the ratio alike
            memlib_totals.append(one_total(memlib_index))
        # trapezoid over rounds 1..rounds (per-round cost is linear in n, so this is close)
        total = 0.0
        for a, b in zip(points, points[1:]):
            total += (per_round[a] + per_round[b]) / 2 * (b - a)
        total += per_round[points[0]]
        out["total_s"][name] = total
        out["how"][name] = (f"estimated: {len(points)} of {rounds} rounds measured (re-index + search "
                            f"at n = {points[0] * every:,} ... {points[-1] * every:,}), integrated")
        out.setdefault("round_s", {})[name] = {r * every: s for r, s in per_round.items()}
        log(f"  {name:<40} {total:9.3f} s   ({out['how'][name]})")
    out["total_s"]["memlib BM25Index"] = statistics.median(memlib_totals)
    out["how"]["memlib BM25Index"] = (f"measured: the whole workload, median of {len(memlib_totals)} runs "
                                      "spread between the sampled rounds below")
    log(f"  {'memlib BM25Index (all runs)':<40} {out['total_s']['memlib BM25Index']:9.3f} s")
    return out


def bench_analyzer(n_records: int, repeats: int, log) -> dict:
    """Microseconds per record to turn text into tokens: the previous tokenizer and each analyzer.

    Two corpora: synthetic notes (`make_corpus`, made-up words, so the stem cache
    hits less than on real text) and the course's facts (real English). "cold" is
    the default analyzer's first pass with its stem cache emptied (every distinct
    word stemmed once); the other rows are medians over warm passes.
    """
    from memlib import datasets
    from memlib.analyzer import ANALYZERS, DEFAULT_ANALYZER, _stem_cache

    corpora = {"synthetic notes": make_corpus(n_records, n_queries=1).texts,
               "course facts": [r.text for r in datasets.load("facts")]}
    rows = {"previous tokenizer": previous_tokenize, **{f"analyzer {n!r}": a for n, a in ANALYZERS.items()}}
    out: dict = {"us_per_record": {}, "records": {k: len(v) for k, v in corpora.items()},
                 "default": DEFAULT_ANALYZER.name}
    for corpus_name, texts in corpora.items():
        _stem_cache.clear()
        t = time.perf_counter()
        for text in texts:
            DEFAULT_ANALYZER(text)
        out["us_per_record"].setdefault(f"analyzer {DEFAULT_ANALYZER.name!r}, cold stem cache", {})[corpus_name] = (
            (time.perf_counter() - t) / len(texts) * 1e6)
        for name, fn in rows.items():
            per_pass = []
            for _ in range(repeats):
                gc.collect()
                t = time.perf_counter()
                for text in texts:
                    fn(text)
                per_pass.append((time.perf_counter() - t) / len(texts) * 1e6)
            out["us_per_record"].setdefault(name, {})[corpus_name] = statistics.median(per_pass)
        log(f"analyzer on {corpus_name} ({len(texts):,} records): " + ", ".join(
            f"{name} {v[corpus_name]:.1f} us" for name, v in out["us_per_record"].items()))
    return out


def bench_context(turns: int, probe: int, log, repeats: int = 3) -> dict:
    """Per-append cost of MainContext around turn `probe` and around turn `turns`.

    The conversation is replayed `repeats` times with a fresh context; each figure is
    the median over the 100 appends around that turn, then the median over repeats
    (a burst of other work on the machine then spoils at most one repeat).
    """
    import random

    from memlib.context import MainContext
    from memlib.messages import Message
    from memlib.recall import RecallStore

    rng = random.Random(3)
    words = make_vocabulary(5000, rng)
    texts = [" ".join(rng.choices(words, k=rng.randint(8, 40))) for _ in range(turns + 60)]

    def timed(sink, wrap) -> list[float]:
        # the messages are made before the clock runs: only the append is timed
        return time_each(sink, [wrap(i, text) for i, text in enumerate(texts)], repeats=1)

    def around(samples, turn):
        lo = max(0, turn - 50)
        return samples[lo:lo + 100]

    stats: dict[str, list[float]] = {}
    flushes = 0
    for _ in range(repeats):
        ctx = MainContext(window=4096)
        times = timed(ctx.append, lambda i, text: Message.user(text) if i % 2 else Message.assistant(text))
        flushes = sum(1 for e in ctx.events if e.kind == "flush")
        # Diagnosis: the part of an append that recall storage costs (its BM25 index
        # grows with every message), measured alone on the same texts.
        recall = RecallStore()
        recall_times = timed(recall.add, lambda i, text: Message.user(text))
        for key, value in (
            ("early_median_us", statistics.median(around(times, probe))),
            ("late_median_us", statistics.median(around(times, turns))),
            ("early_mean_us", statistics.fmean(around(times, probe))),
            ("late_mean_us", statistics.fmean(around(times, turns))),
            ("recall_add_early_us", statistics.median(around(recall_times, probe))),
            ("recall_add_late_us", statistics.median(around(recall_times, turns))),
            ("ratio_median", statistics.median(around(times, turns)) / statistics.median(around(times, probe))),
        ):
            stats.setdefault(key, []).append(value)
    out = {key: statistics.median(values) * (1 if key == "ratio_median" else 1e6) for key, values in stats.items()}
    out.update(turns=turns, probe=probe, flushes=flushes, repeats=repeats,
               ratio_median_each=[round(r, 3) for r in stats["ratio_median"]])
    log(f"MainContext.append: turn {probe}: {out['early_median_us']:.1f} us, turn {turns:,}: "
        f"{out['late_median_us']:.1f} us (x{out['ratio_median']:.2f}, repeats {out['ratio_median_each']}; "
        f"{flushes} flushes); RecallStore.add alone {out['recall_add_early_us']:.1f} -> "
        f"{out['recall_add_late_us']:.1f} us")
    return out


def bench_import(runs: int, log) -> dict:
    """Seconds to import memlib in a fresh interpreter (and every non-viz module)."""
    code = ("import time, sys; t = time.perf_counter(); import {mods}; "
            "print(time.perf_counter() - t, int('plotly' in sys.modules), int('ipywidgets' in sys.modules))")
    import pkgutil

    import memlib

    modules = sorted(f"memlib.{m.name}" for m in pkgutil.iter_modules(memlib.__path__)
                     if not m.name.startswith("_") and m.name not in ("viz", "course"))
    out = {"modules": modules}
    for label, mods in (("import memlib", "memlib"), ("import every memlib module but viz", ", ".join(modules))):
        samples, heavy = [], []
        for _ in range(runs):
            res = subprocess.run([sys.executable, "-c", code.format(mods=mods)], capture_output=True, text=True)
            if res.returncode != 0:
                out[label] = {"error": res.stderr.strip().splitlines()[-1] if res.stderr else "failed"}
                break
            seconds, plotly, widgets = res.stdout.split()
            samples.append(float(seconds))
            heavy.append(bool(int(plotly) or int(widgets)))
        else:
            out[label] = {"median_s": statistics.median(samples), "pulls_in_plotly_or_ipywidgets": any(heavy)}
            log(f"{label}: {out[label]['median_s'] * 1e3:.0f} ms (median of {runs} fresh interpreters)")
    return out


def bench_notebooks(root: Path, log) -> dict:
    """Seconds to execute each notebook under solutions/ (if the folder exists)."""
    folder = root / "solutions"
    notebooks = sorted(folder.glob("*.ipynb")) if folder.is_dir() else []
    if not notebooks:
        log("notebooks: no solutions/ folder here, skipped")
        return {"skipped": "no solutions/*.ipynb under " + str(root)}
    import nbformat
    from nbclient import NotebookClient

    out = {"seconds": {}}
    for path in notebooks:
        nb = nbformat.read(path, as_version=4)
        t = time.perf_counter()
        try:
            NotebookClient(nb, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(folder)}}).execute()
            out["seconds"][path.name] = time.perf_counter() - t
        except Exception as exc:  # report, keep going: a benchmark, not a test
            out["seconds"][path.name] = None
            out.setdefault("errors", {})[path.name] = f"{type(exc).__name__}: {str(exc)[:200]}"
        log(f"  {path.name}: {out['seconds'][path.name]}")
    done = [s for s in out["seconds"].values() if s is not None]
    out["total_s"] = sum(done)
    log(f"notebooks: {len(done)}/{len(notebooks)} executed in {out['total_s']:.1f} s")
    return out


# ---------------------------------------------------------------------------
# machine, report, charts


def machine() -> dict:
    cpu = platform.processor() or "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    import sqlite3
    from importlib import metadata

    versions = {}
    for pkg in ("memlib", "numpy", "rank-bm25", "bm25s", "tantivy", "snowballstemmer", "plotly"):
        try:
            versions[pkg] = metadata.version(pkg)
        except metadata.PackageNotFoundError:
            versions[pkg] = "not installed"
    try:
        load = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        load = None
    return {"cpu": cpu, "nproc": os.cpu_count(), "python": platform.python_version(),
            "platform": platform.platform(), "sqlite": sqlite3.sqlite_version, "packages": versions,
            # other work on the machine slows every engine; recorded so readers can judge noise
            "loadavg_at_start": load}


def _fmt_ms(ms: float) -> str:
    return f"{ms:.3f}" if ms < 1 else f"{ms:.2f}" if ms < 100 else f"{ms:.0f}"


def report(results: dict) -> str:
    """The results as markdown tables, with the targets of issue 8 checked."""
    lines = []
    s = results["search"]
    sizes = s["sizes"]
    med = s["median_ms"]
    base = med["memlib BM25Index"]
    lines += ["### Top-10 search, median latency per query (ms)", "",
              "| engine | " + " | ".join(f"{n:,} records" for n in sizes) + f" | x memlib at {sizes[-1]:,} |",
              "|---|" + "---:|" * (len(sizes) + 1)]
    for name, by_n in med.items():
        cells = [_fmt_ms(by_n[n]) for n in sizes]
        ratio = by_n[sizes[-1]] / base[sizes[-1]]
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ratio:.1f}x |" if ratio >= 0.1 else
                     f"| {name} | " + " | ".join(cells) + f" | {ratio:.3f}x (1/{1 / ratio:.0f}) |")
    r = results.get("reopen")
    if r:
        lines += ["", f"### Reopening a SQLiteArchivalStore (`SQLiteArchivalStore(path)` on an existing file, "
                  f"median of {r['runs']})", "",
                  "| records | seconds | ms per 1,000 records | indexing the text record by record instead | x |",
                  "|---:|---:|---:|---:|---:|"]
        for n, seconds in r["median_s"].items():
            alone = r.get("by_record_s", {}).get(n)
            other = f"{alone:.3f} s | {alone / seconds:.1f}x" if alone else "- | -"
            lines.append(f"| {n:,} | {seconds:.3f} | {seconds / n * 1e6:.1f} | {other} |")
    i = results["interleaved"]
    lines += ["", f"### Agent pattern: {i['n_inserts']:,} inserts, a top-10 search after every {i['every']}", "",
              "| engine | total (s) | x memlib | how |", "|---|---:|---:|---|"]
    base_i = i["total_s"]["memlib BM25Index"]
    for name, total in i["total_s"].items():
        lines.append(f"| {name} | {total:.3f} | {total / base_i:.1f}x | {i['how'][name]} |")
    a = results.get("analyzer")
    if a:
        names = list(a["records"])
        prev = a["us_per_record"]["previous tokenizer"]
        lines += ["", "### Analyzer cost per record (us, median of warm passes; x the previous tokenizer)", "",
                  "| analyzer | " + " | ".join(f"{k} ({a['records'][k]:,})" for k in names) + " |",
                  "|---|" + "---:|" * len(names)]
        for name, by in a["us_per_record"].items():
            lines.append(f"| {name} | " + " | ".join(f"{by[k]:.1f} ({by[k] / prev[k]:.1f}x)" for k in names) + " |")
    c = results["context"]
    lines += ["", f"### MainContext.append (window 4,096 tokens, flushes included; median of "
              f"{c.get('repeats', 1)} replays)", "",
              f"| | turn {c['probe']} | turn {c['turns']:,} | ratio |", "|---|---:|---:|---:|",
              f"| median per append (us) | {c['early_median_us']:.1f} | {c['late_median_us']:.1f} | {c['ratio_median']:.2f} |",
              f"| mean per append (us) | {c['early_mean_us']:.1f} | {c['late_mean_us']:.1f} | "
              f"{c['late_mean_us'] / c['early_mean_us']:.2f} |",
              f"| of which RecallStore.add alone, median (us) | {c['recall_add_early_us']:.1f} | "
              f"{c['recall_add_late_us']:.1f} | {c['recall_add_late_us'] / c['recall_add_early_us']:.2f} |"]
    imp = results["import"]
    lines += ["", "### Import time (fresh interpreter, median)", ""]
    for label in ("import memlib", "import every memlib module but viz"):
        r = imp.get(label, {})
        if "median_s" in r:
            lines.append(f"- `{label}`: {r['median_s'] * 1e3:.0f} ms"
                         f"{' (pulls in plotly/ipywidgets!)' if r['pulls_in_plotly_or_ipywidgets'] else ''}")
        else:
            lines.append(f"- `{label}`: failed ({r.get('error')})")
    nb = results.get("notebooks")
    if nb and "total_s" in nb:
        lines += ["", f"### Solution notebooks: {nb['total_s']:.1f} s to execute all "
                  f"({len([v for v in nb['seconds'].values() if v is not None])} notebooks)"]
    elif nb:
        lines += ["", f"Solution notebooks: {nb.get('skipped')}"]
    lines += ["", "### Targets (issue 8)", ""]
    if results.get("mode") == "quick":
        lines += ["Quick run: the targets are stated for 100,000 records and 10,000 interleaved inserts; "
                  "at these smaller sizes the ratios are smaller (they grow with size).", ""]
    lines += ["| target | measured | met |", "|---|---|---|"]
    for target, measured, ok in targets(results):
        lines.append(f"| {target} | {measured} | {'yes' if ok else '**no**'} |")
    return "\n".join(lines)


def targets(results: dict) -> list[tuple[str, str, bool]]:
    s = results["search"]
    n = max(s["sizes"])
    med = {k: v[n] for k, v in s["median_ms"].items()}
    ours = med["memlib BM25Index"]
    rows = [
        (f"memlib search median at {n:,} <= 5 ms", f"{ours:.3f} ms", ours <= 5),
        (f"memlib search median at {n:,} < 1 ms with the default analyzer (issue 18)", f"{ours:.3f} ms", ours < 1),
        (f">= 50x faster than rank-bm25 at {n:,}", f"{med['rank-bm25 BM25Okapi'] / ours:.0f}x",
         med["rank-bm25 BM25Okapi"] / ours >= 50),
        (f"no slower than bm25s at {n:,}", f"{med['bm25s'] / ours:.1f}x", med["bm25s"] >= ours),
    ]
    i = results["interleaved"]["total_s"]
    base = i["memlib BM25Index"]
    for name in ("rank-bm25 (re-index every round)", "bm25s (re-index every round)"):
        rows.append((f"interleaved >= 100x faster than {name.split(' ')[0]}", f"{i[name] / base:.0f}x",
                     i[name] / base >= 100))
    c = results["context"]
    rows.append((f"append at turn {c['turns']:,} within 1.5x of turn {c['probe']}", f"{c['ratio_median']:.2f}x",
                 c["ratio_median"] <= 1.5))
    r = results["import"].get("import memlib", {})
    if "median_s" in r:
        rows.append(("import memlib < 0.5 s", f"{r['median_s'] * 1e3:.0f} ms", r["median_s"] < 0.5))
    return rows


# ---------------------------------------------------------------------------
# entry point


# A workload in a fresh interpreter: this script is imported from its folder (argv[1]).
_CHILD = """
import json, sys
sys.path.insert(0, sys.argv[1])
import bench
name, kwargs = sys.argv[2], json.loads(sys.argv[3])
if "folder" in kwargs:
    kwargs["folder"] = bench.Path(kwargs["folder"])
out = getattr(bench, name)(log=lambda line: print(line, file=sys.stderr, flush=True), **kwargs)
print(json.dumps(out, default=str))
"""


def _int_keys(obj):
    """JSON made the size keys strings; make them ints again."""
    if isinstance(obj, dict):
        return {int(k) if isinstance(k, str) and k.isdigit() else k: _int_keys(v) for k, v in obj.items()}
    return obj


def _isolated(name: str, log, **kwargs) -> dict:
    """Run `bench.<name>(**kwargs)` in a fresh interpreter; its log lines stream through."""
    proc = subprocess.Popen([sys.executable, "-c", _CHILD, str(HERE), name, json.dumps(kwargs)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    lines = []
    for line in proc.stderr:  # progress, as it happens
        lines.append(line.rstrip("\n"))
        log(lines[-1])
    out = proc.stdout.read()
    if proc.wait() != 0:
        tail = "\n".join(lines[-5:])
        if "ModuleNotFoundError" in tail or "ImportError" in tail:
            raise ImportError(tail.splitlines()[-1])
        raise RuntimeError(f"benchmark {name} failed in its subprocess:\n{tail}")
    return _int_keys(json.loads(out))


def run(quick: bool, out_dir: Path, notebooks: bool, log=print) -> dict:
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    results: dict = {"mode": "quick" if quick else "full", "machine": machine(),
                     "command": COMMAND + (" --quick" if quick else "")}
    log(f"benchmarks/bench.py ({results['mode']}) on {results['machine']['cpu']}, {results['machine']['nproc']} CPUs")
    with tempfile.TemporaryDirectory(prefix="memlib-bench-") as tmp:
        folder = str(tmp)
        # Each workload runs in a fresh interpreter: a process that has just built and
        # freed 100k-record indexes allocates more slowly (fragmented memory), which
        # measured up to 3x on the short memlib runs that follow.
        if quick:
            results["search"] = _isolated("bench_search", log, sizes=[1_000, 10_000], repeats=2, n_queries=30,
                                          folder=folder)
            results["interleaved"] = _isolated("bench_interleaved", log, n_inserts=1_000, every=10,
                                               sample_points=4, folder=folder)
            results["context"] = _isolated("bench_context", log, turns=1_000, probe=100)
            results["analyzer"] = _isolated("bench_analyzer", log, n_records=2_000, repeats=2)
            results["reopen"] = _isolated("bench_reopen", log, sizes=[10_000], runs=3, folder=folder)
            results["import"] = bench_import(runs=3, log=log)
        else:
            results["search"] = _isolated("bench_search", log, sizes=[1_000, 10_000, 100_000], repeats=5,
                                          n_queries=100, folder=folder)
            results["interleaved"] = _isolated("bench_interleaved", log, n_inserts=10_000, every=10,
                                               sample_points=11, folder=folder)
            results["context"] = _isolated("bench_context", log, turns=10_000, probe=100)
            results["analyzer"] = _isolated("bench_analyzer", log, n_records=10_000, repeats=5)
            results["reopen"] = _isolated("bench_reopen", log, sizes=[10_000, 100_000], runs=3, folder=folder)
            results["import"] = bench_import(runs=7, log=log)
    if notebooks:
        results["notebooks"] = bench_notebooks(Path.cwd(), log)
    results["seconds"] = time.perf_counter() - started
    try:
        results["machine"]["loadavg_at_end"] = [round(x, 2) for x in os.getloadavg()]
    except (OSError, AttributeError):
        pass
    text = report(results)
    (out_dir / "results.json").write_text(json.dumps(results, indent=2, default=str))
    (out_dir / "report.md").write_text(text + "\n")
    (out_dir / "search.svg").write_text(search_latency_svg(results["search"]))
    (out_dir / "search.html").write_text(
        search_latency_figure(results["search"]).to_html(include_plotlyjs="cdn", full_html=True))
    log("")
    log(text)
    log(f"\n{results['mode']} run took {results['seconds']:.0f} s; results in {out_dir}/")
    return results


def load_results(path: Path) -> dict:
    """A results.json read back, with the size keys JSON turned into strings made ints again."""
    return _int_keys(json.loads(Path(path).read_text()))


def update_readme(path: Path, results: dict) -> None:
    """Replace the text between the bench markers in `path` with this run's tables."""
    m = results["machine"]
    pkgs = ", ".join(f"{k} {v}" for k, v in m["packages"].items())
    body = "\n".join([
        f"Command: `{results['command']}` ({results['seconds']:.0f} s). Machine: {m['cpu']}, "
        f"{m['nproc']} CPUs, Python {m['python']}, SQLite {m['sqlite']}, {pkgs}; {m['platform']}. "
        f"Load average at start / end: {m.get('loadavg_at_start')} / {m.get('loadavg_at_end')} "
        "(other jobs were sharing the machine: compare ratios within this run, not absolute "
        "times across runs).",
        "",
        report(results),
    ])
    replace_marked_section(path, README_SECTION, body)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for CI (under a minute)")
    parser.add_argument("--out", type=Path, default=None,
                        help="where to write results.json, report.md, search.svg, search.html "
                             "(default: benchmarks/results, relative to the current directory, for the "
                             "full run; a folder under the system's temporary directory for --quick, "
                             "so a smoke run never overwrites the committed results)")
    parser.add_argument("--notebooks", action=argparse.BooleanOptionalAction, default=None,
                        help="also time executing solutions/*.ipynb (default: on for the full run)")
    parser.add_argument("--readme", type=Path, default=None,
                        help="also rewrite the results section of this README (between bench markers), "
                             "e.g. benchmarks/README.md")
    args = parser.parse_args(argv)
    notebooks = (not args.quick) if args.notebooks is None else args.notebooks
    if args.out is None:
        args.out = Path(tempfile.gettempdir()) / "memlib-bench-quick" if args.quick else Path("benchmarks") / "results"
    try:
        results = run(args.quick, args.out, notebooks)
        if args.readme:
            update_readme(args.readme, results)
    except ImportError as exc:
        print(f"benchmarks/bench.py needs the comparison libraries: {exc}. "
              "Install them with: pip install -r requirements-test.txt (numpy, bm25s, tantivy)", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
