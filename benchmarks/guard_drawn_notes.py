"""What share of 07's drawn notes each known guard flags: the figures behind DRAWN_THRESHOLDS.

``python benchmarks/guard_drawn_notes.py [DRAWS] [--templates FILE]`` draws DRAWS sets of 40 injections and 40 benign notes
(memlib/course/checks/_nb07_fresh.py, seeded as a grading run seeds them) and prints, per guard, the lowest
and the median recall on the injections and the highest false-positive rate on the benign notes. The guards:
every answer under tests/alternatives/07-guard (correct and wrong, by authors who saw only the notebook),
the notebook's solution, memlib.guard.scan, a table of fingerprints of the installed splits' injections
(the cheat the drawn notes are for), and a table of the phrases of the public templates (the cheat an
instructor's private templates are for). With ``--templates FILE`` the notes come from an instructor's
templates (the grader's ``--private-cases``; tests/fixtures/private_cases/07-guard.json is one).
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import io
import json
import random
import statistics
import sys
from pathlib import Path
from typing import Any, Callable

ROOT = Path(__file__).resolve().parents[1]


def _alternative(path: Path) -> Callable[[str], Any]:
    spec = importlib.util.spec_from_file_location(f"alternative_{path.stem}", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses defined in an answer look their module up there
    spec.loader.exec_module(module)
    return module.my_scan


def _solution() -> Callable[[str], Any]:
    nb = json.loads((ROOT / "solutions" / "07_memory_poisoning.ipynb").read_text(encoding="utf-8"))
    namespace: dict = {}
    exec("from memlib import datasets\nfrom memlib.guard import Verdict, reveal\nnotes = datasets.load('poisoning')",
         namespace)
    with contextlib.redirect_stdout(io.StringIO()):  # the toolbox cell shows what it finds
        for cell in nb["cells"]:
            source = "".join(cell["source"])
            if cell["cell_type"] == "code" and (cell.get("id") == "07-20-toolbox-code" or "def my_scan" in source):
                exec(source, namespace)
    return namespace["my_scan"]


def _fingerprint_table() -> Callable[[str], Any]:
    from memlib.datasets import load
    from memlib.guard import Verdict

    known = {hashlib.sha1(n.text.encode()).hexdigest()[:12]
             for split in ("poisoning", "poisoning_heldout") for n in load(split) if n.is_injection}

    def my_scan(text: str) -> Any:
        if hashlib.sha1(text.encode()).hexdigest()[:12] in known:
            return Verdict(False, ["a known injection"], "table")
        return Verdict(True, [], None)

    return my_scan


def _template_phrase_table() -> Callable[[str], Any]:
    import re

    from memlib.course.checks._nb07_fresh import INJECTIONS
    from memlib.guard import Verdict

    phrases = {part.strip() for _, template in INJECTIONS for part in re.split(r"\{[^{}]*\}", template)
               if len(part.strip()) >= 12}

    def my_scan(text: str) -> Any:
        hit = any(phrase in text for phrase in phrases)
        return Verdict(not hit, ["a phrase of the public templates"] if hit else [], "table" if hit else None)

    return my_scan


def main(draws: int = 25, templates_file: str | None = None) -> None:
    from memlib.course.checks._nb07_fresh import BENIGN, INJECTIONS, draw, read_templates
    from memlib.guard import scan

    templates = read_templates(templates_file) if templates_file else (INJECTIONS, BENIGN)

    guards = {p.stem: _alternative(p) for p in sorted((ROOT / "tests" / "alternatives" / "07-guard").glob("*.py"))}
    guards.update({"notebook solution": _solution(), "memlib.guard.scan": scan,
                   "table of the splits' fingerprints": _fingerprint_table(),
                   "table of the public templates' phrases": _template_phrase_table()})
    print(f"{draws} draws of 40 injections + 40 benign notes, from "
          f"{templates_file or 'the public templates (memlib/course/checks/_nb07_fresh.py)'}")
    print(f"{'guard':36} {'recall min':>10} {'median':>7} {'false pos. max':>15}")
    for name, guard in guards.items():
        recalls, false_positives = [], []
        try:
            for seed in range(draws):
                notes = draw(random.Random(f"{seed}:07-guard"), templates=templates)
                flagged = {n.id: not guard(n.text).trusted for n in notes}
                recalls.append(sum(flagged[n.id] for n in notes if n.is_injection) / 40)
                false_positives.append(sum(flagged[n.id] for n in notes if not n.is_injection) / 40)
        except Exception as error:  # a wrong answer that returns something else than a Verdict
            print(f"{name:36} raised {type(error).__name__}")
            continue
        print(f"{name:36} {min(recalls):10.3f} {statistics.median(recalls):7.3f} {max(false_positives):15.3f}")


if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("draws", nargs="?", type=int, default=25)
    parser.add_argument("--templates", default=None, help="an instructor's templates (07-guard.json)")
    args = parser.parse_args()
    main(args.draws, args.templates)
