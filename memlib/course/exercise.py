"""The record of one graded exercise, kept next to its check.

Each check module of `memlib.course.checks` (``nbNN_<topic>.py``) states
an ``EXERCISE = Exercise(...)`` and decorates its check with
``@graded(EXERCISE)``: the record is the one place that names the graded
cell it checks (grade id, notebook, points), what the check is about and
which reference implementations it watches for, how that cell hands the
answer to the check (the answer expression of ``check(<answer>)``), what
mutation testing must run before the exercise cell, and which mutants of the
reference are equivalent and why. An exercise in steps, each with its own
exercise cell and graded cell, has one record per step, each naming its
exercise cell, and lists them as ``EXERCISES = (...)``. So a new graded
exercise is two files: its solution notebook and its check module.
`exercises()` finds every record; `tests/test_exercises.py` ties each graded
cell of the solution notebooks to exactly one of them.
"""

from __future__ import annotations

import importlib
import pkgutil
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping

__all__ = ["Exercise", "exercises", "EXERCISE_NAME"]

#: How an exercise is named in a notebook: a number with an optional letter ("2", "2b") or one capital
#: letter ("F"). The release finds ``### EXERCISE <name>: ...`` markers by it, and a stub's
#: ``NotImplementedError("Exercise <name>: ...")`` is recognised as unsolved by it.
EXERCISE_NAME = r"[0-9]+[a-z]?|[A-Z]"


@dataclass(frozen=True)
class Exercise:
    """One graded exercise: its graded cell, and what mutation testing needs to know."""

    grade_id: str
    notebook: str  # solutions/<notebook>.ipynb
    answer: str  # the graded cell's answer expression: ``check_summarizer(MySummarizer())`` -> "MySummarizer()"
    points: float
    description: str = ""  # what the check asks, in a line (default: the check's docstring)
    #: memlib's reference implementations of the exercise ("module:qualname"): their use is flagged for review
    references: tuple[str, ...] = ()
    setup: str = ""  # what earlier cells of the notebook define that the exercise cell uses
    setup_cells: tuple[str, ...] = ()  # ids of earlier solution cells to run first (after `setup`)
    #: id of the exercise cell, when the notebook has more than one (default: its only cell with solution regions)
    cell: str = ""
    #: phrases of the exercise's text that state the check's numbers and rules, built from the check's
    #: own constants; tests/test_exercises.py finds each one in the notebook, so text and check agree
    contract: tuple[str, ...] = ()
    #: True when the check counts its cases (`checking.Cases`) and a partly right answer earns the share of
    #: the points those cases give (the grader's ``--all-or-nothing`` turns it off); False: all or nothing
    partial_credit: bool = False
    #: kind of case -> how many cases it counts as in the partial-credit tally (a kind not named counts once);
    #: the check weighs its cases by it, and the contract says so
    case_weights: Mapping[str, int] = field(default_factory=dict)
    #: the least time in seconds the grader gives this check (more than its cell limit when the check calls
    #: the answer many times: 07's makes about 2,600 calls to the student's guard); 0: the cell limit
    check_seconds: float = 0.0
    #: "module:function" that reads an instructor's private case file for this check (``--private-cases DIR``
    #: gives ``DIR/<grade_id>.json``) and raises ValueError saying what is wrong; "": the check takes none
    private_cases: str = ""
    #: mutant description -> why it computes the same thing as the reference (read and judged by hand)
    equivalent: Mapping[str, str] = field(default_factory=dict)
    module: str = ""  # the check module (filled in by `exercises`)
    check: str = ""  # the check function's name in its module (filled in by `exercises`, from `@graded`)

    def answer_of(self, namespace: dict) -> Any:
        """What the graded cell passes to the check, in the namespace of the executed notebook cells."""
        return eval(compile(self.answer, "<graded cell>", "eval"), namespace)


def exercises(packages: Iterable[str] = ("memlib.course.checks",)) -> dict[str, Exercise]:
    """grade_id -> Exercise, from every ``nb*`` module of `packages` that defines ``EXERCISE`` or ``EXERCISES``."""
    found: dict[str, Exercise] = {}
    for package in packages:
        root = importlib.import_module(package)
        for info in sorted(pkgutil.iter_modules(root.__path__), key=lambda i: i.name):
            if not info.name.startswith("nb"):
                continue
            name = f"{package}.{info.name}"
            module = importlib.import_module(name)
            given = getattr(module, "EXERCISES", None) or (getattr(module, "EXERCISE", None),)
            records = [record for record in given if isinstance(record, Exercise)]
            if not records or len(records) != len(given):
                raise TypeError(f"{name} defines no EXERCISE = Exercise(...) record "
                                "(nor EXERCISES = (Exercise(...), ...) for an exercise in steps)")
            for record in records:
                if record.grade_id in found:
                    raise ValueError(f"grade_id {record.grade_id!r} has two records: "
                                     f"{found[record.grade_id].module} and {name}")
                check = _checked_by(record, module)
                found[record.grade_id] = Exercise(**{**record.__dict__, "module": name, "check": check})
    return found


def _checked_by(record: Exercise, module: Any) -> str:
    """The name of `module`'s function decorated ``@graded(record)``."""
    for name, value in vars(module).items():
        if getattr(value, "exercise", None) is record:
            return name
    raise TypeError(f"{module.__name__} has a record for {record.grade_id!r} but no check decorated "
                    f"@graded(<that record>)")
