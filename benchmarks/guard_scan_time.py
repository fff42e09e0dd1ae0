"""Time memlib.guard.scan on hostile and ordinary inputs (median of 5 runs each).

Run from the repository root: python benchmarks/guard_scan_time.py
Not a timed test: the figures depend on the machine; benchmarks/README.md records one run.
"""

from __future__ import annotations

import statistics
import time

from memlib import datasets
from memlib.guard import MAX_SCAN_CHARS, scan


def median_ms(text: str, runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        scan(text)
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


def main() -> None:
    notes = [n.text for n in datasets.load("poisoning") + datasets.load("poisoning_heldout")]
    dense = "\n".join(notes)
    cases = {
        "1 MB of poisoning notes (over the limit: untrusted by length)": (dense * 2)[:1_000_000],
        "1 MB of 'a'": "a" * 1_000_000,
        f"{MAX_SCAN_CHARS:,} chars of poisoning notes (read in full)": dense[:MAX_SCAN_CHARS],
        f"{MAX_SCAN_CHARS:,} chars of 'ab ' (adversarial)": ("ab " * MAX_SCAN_CHARS)[:MAX_SCAN_CHARS],
        f"{MAX_SCAN_CHARS:,} spaces (adversarial)": " " * MAX_SCAN_CHARS,
        f"{MAX_SCAN_CHARS:,} chars of 'a@' (adversarial)": ("a@" * MAX_SCAN_CHARS)[:MAX_SCAN_CHARS],
    }
    for name, text in cases.items():
        print(f"{median_ms(text):9.2f} ms  {name}")
    start = time.perf_counter()
    for text in notes:
        scan(text)
    per_note = (time.perf_counter() - start) * 1000 / len(notes)
    print(f"{per_note:9.2f} ms  per note, mean over the {len(notes)} notes of both poisoning splits")


if __name__ == "__main__":
    main()
