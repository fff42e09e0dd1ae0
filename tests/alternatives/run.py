"""Run every check on the alternative answers in this folder and report what it accepts.

The answers were written from the student notebooks alone, by authors who never read the
checks or the references, and committed before any check ran on them (see README.md here).
`correct_*.py` must be accepted, `wrong_*.py` rejected. Usage, from the repository root:

    python tests/alternatives/run.py            # a table per exercise and the totals
    python tests/alternatives/run.py 03-bm25    # one exercise, with each rejection's message

This is a report, not a test: it says where the checks disagree with independent authors.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: grade_id -> (the check in memlib.course.checks, the name the exercise defines, call it with an instance?)
EXERCISES = {
    "01-token-budget": ("check_token_budget", "how_many_fit", False),
    "02-summarizer": ("check_summarizer", "MySummarizer", True),
    "03-bm25": ("check_bm25", "bm25_scores", False),
    "05-page-fault": ("check_page_fault", "page_fault_calls", False),
    "02-flush": ("check_flush", "flush", False),
    "04-loop": ("check_loop", "MyAgent", False),
    "05-policy": ("check_policy", "MyDecider", False),
    "06-citations": ("check_citation_contract", "answer_with_citations", False),
    "07-guard": ("check_guard", "my_scan", False),
    "08-typed-core-memory": ("check_typed_core_memory", "TypedCoreMemory", False),
    "09-consolidation": ("check_consolidation", "consolidation_pass", False),
}


def _load(path: Path):
    spec = importlib.util.spec_from_file_location(f"alternative_{path.parent.name}_{path.stem}".replace("-", "_"), path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def judge(grade_id: str, path: Path) -> tuple[bool, str]:
    """(accepted, the first line of the check's message or of the error)."""
    from memlib.course import checks  # outside a kernel a failed check always raises

    check_name, name, instance = EXERCISES[grade_id]
    check = getattr(checks, check_name)
    try:
        answer = getattr(_load(path), name)
        answer = answer() if instance else answer
    except Exception as exc:  # the answer itself does not load: report it, it is not the check's fault
        return False, f"does not load: {type(exc).__name__}: {exc}"
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            check(answer)
    except AssertionError as exc:
        return False, str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    except Exception as exc:
        return False, f"check crashed: {type(exc).__name__}: {exc}"
    return True, ""


def main(argv: list[str]) -> int:
    wanted = argv or sorted(p.name for p in HERE.iterdir() if p.is_dir() and p.name in EXERCISES)
    totals = {"correct": [0, 0], "wrong": [0, 0]}
    for grade_id in wanted:
        print(f"## {grade_id}")
        for path in sorted((HERE / grade_id).glob("*.py")):
            kind = "correct" if path.stem.startswith("correct_") else "wrong"
            accepted, why = judge(grade_id, path)
            right = accepted == (kind == "correct")
            totals[kind][0] += right
            totals[kind][1] += 1
            verdict = "accepted" if accepted else "rejected"
            flag = "" if right else "   <-- disagrees"
            print(f"  {path.stem:45} {verdict}{flag}" + (f"\n      {why}" if why and (len(argv) or not right) else ""))
    print(f"\ncorrect answers accepted: {totals['correct'][0]}/{totals['correct'][1]}; "
          f"wrong answers rejected: {totals['wrong'][0]}/{totals['wrong'][1]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
