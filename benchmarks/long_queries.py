"""Long queries through the tools: what one huge search call costs at 100k records.

An agent (or a fuzzer) may send a query as long as the tools accept
(MAX_ARG_CHARS characters). This times `dispatch("archival_memory_search", ...)`
and `dispatch("conversation_search", ...)` over 100,000 archival records /
recall messages of `memlib.scaling.make_corpus`, for a short query, a 2,000- and
a 20,000-character one (words drawn from the corpus, so most of them match), and
prints a markdown table for benchmarks/README.md. Medians of `--repeats` calls.

    python benchmarks/long_queries.py                 # 100,000 records
    python benchmarks/long_queries.py --records 10000
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)

    import memlib
    from memlib.archival import ArchivalStore
    from memlib.scaling import make_corpus
    from memlib.messages import Message
    from memlib.recall import RecallStore
    from memlib.tools import MAX_ARG_CHARS, MemorySystem, dispatch

    corpus = make_corpus(args.records, seed=1)
    archival, recall = ArchivalStore(), RecallStore()
    for text in corpus.texts:
        archival.insert(text)
        recall.add(Message.user(text))
    memory = MemorySystem(archival=archival, recall=recall)
    rng = random.Random(7)
    words = " ".join(corpus.texts[rng.randrange(len(corpus.texts))] for _ in range(4000)).split()

    def query(chars: int) -> str:
        start = rng.randrange(len(words) // 2)
        text = " ".join(words[start:start + chars])
        return text[:chars]

    queries = {"short (3 words)": corpus.queries[0], "2,000 characters": query(2_000),
               "20,000 characters": query(MAX_ARG_CHARS)}
    print(f"memlib {memlib.__version__} from {memlib.__file__}; {args.records:,} records; "
          f"median of {args.repeats}", file=sys.stderr)
    print("| query | archival_memory_search (s) | conversation_search (s) |")
    print("|---|---:|---:|")
    for label, text in queries.items():
        row = []
        for tool in ("archival_memory_search", "conversation_search"):
            times = []
            for _ in range(args.repeats):
                started = time.perf_counter()
                result = dispatch(tool, {"query": text}, memory)
                times.append(time.perf_counter() - started)
            assert result.ok, result.message
            row.append(f"{statistics.median(times):.3f}")
        print(f"| {label} | {' | '.join(row)} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
