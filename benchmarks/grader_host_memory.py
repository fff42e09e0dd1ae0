"""Peak host memory of the grader and its checker processes for one submission (a notebook that prints 300 MB, an answer that returns 16,000,000 empty lists).

``python benchmarks/grader_host_memory.py flood|lists OUT_DIR`` writes a submission of notebook 01
that does the harm, grades it with the real grader (bubblewrap, -j 1, --keep-work), and prints the
grader's own peak resident memory (VmHWM), the largest peak of its checker processes (sampled from
/proc every 50 ms), and the largest file the kept work holds. The kernel's own memory is not counted:
it is the student's, inside the sandbox's limit.

- flood: 300 cells, each printing 1,000,000 characters (the per-cell cap);
- lists: an answer that returns 16,000,000 empty lists (about 48 MB of JSON).
"""

from __future__ import annotations

import copy
import json
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _submission(kind: str, folder: Path) -> Path:
    nb = json.loads((ROOT / "notebooks" / "01_context_window.ipynb").read_text(encoding="utf-8"))
    exercise = next(i for i, c in enumerate(nb["cells"]) if c.get("metadata", {}).get("memlib", {}).get("exercise"))
    if kind == "flood":
        flood = {"cell_type": "code", "source": "print('x' * 1_000_000)", "metadata": {}, "outputs": [],
                 "execution_count": None}
        nb["cells"][exercise + 1:exercise + 1] = [dict(copy.deepcopy(flood), id=f"flood{i}") for i in range(300)]
    else:
        nb["cells"][exercise]["source"] = ("def how_many_fit(messages, window, system_prompt='', reserve=0):\n"
                                           "    return [[] for _ in range(16_000_000)]")
    path = folder / "student" / "01_context_window.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(nb), encoding="utf-8")
    return path.parent


def _peak(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    return 0


def main(kind: str, out: Path) -> None:
    from memlib.course.grade import grade

    student = _submission(kind, out)
    checkers: dict[int, int] = {}
    stop = threading.Event()

    def sample() -> None:
        while not stop.is_set():
            for entry in os.scandir("/proc"):
                if not entry.name.isdigit():
                    continue
                try:
                    if b"memlib.course.checker" in Path(entry.path, "cmdline").read_bytes():
                        checkers[int(entry.name)] = max(checkers.get(int(entry.name), 0), _peak(int(entry.name)))
                except OSError:
                    continue
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    report = grade([student], ROOT / "notebooks", assignments=["01"], sandbox="bwrap", keep_work=out / "work",
                   timeout=900, cell_timeout=120)
    stop.set()
    sampler.join()
    largest = max((p.stat().st_size for p in (out / "work").rglob("*") if p.is_file()), default=0)
    print(json.dumps({
        "harm": kind, "seconds": round(time.monotonic() - started, 1),
        "grader_peak_mb": round(_peak(os.getpid()) / 2**20), "checker_peak_mb": round(max(checkers.values(), default=0) / 2**20),
        "largest_kept_file_mb": round(largest / 2**20, 1),
        "rows": [(r.grade_id, r.points, r.status, r.reason[:160]) for r in report.rows],
    }))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
