"""Mutation testing of the graded checks: does each check reject a slightly wrong reference solution?

For every exercise, the reference solution is read from its solution
notebook (the ``### BEGIN SOLUTION`` regions of the exercise cell), mutated
one small change at a time at the AST level, and handed to the exercise's
check. A mutant the check accepts "survives"; a surviving mutant is either a
leak in the check (fix the check) or *equivalent* (it computes the same
thing, listed with the reason in the exercise's record, next to its check). Operators:

* ``compare``: a comparison flipped (``<`` to ``<=``, ``==`` to ``!=``, ``in`` to ``not in`` ...)
* ``constant``: an integer or float constant off by one
* ``binop``: an arithmetic operator swapped (``+``/``-``, ``*``/``/``)
* ``swap-args``: the first two positional arguments of a call swapped
* ``drop``: a statement removed
* ``negate``: an ``if``/``while`` condition or a boolean operand negated
* ``return``: a returned value replaced by None
* ``mutate-input``: the function computes the same result but changes a list or dict it was given
* ``keep-state``: the function remembers its first result and returns it again for any input of the
  same size (state kept at module level or on the instance)

``python -m memlib.course.mutation [GRADE_ID ...]`` prints the report (kill
rate per check, survivors, equivalents), with the grader's progress bar on
stderr (``--quiet``: none). The test suite runs the same
(``tests/test_mutation.py``). This module does not change any notebook and
does not grade students.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import importlib
import io
import json
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from memlib.course.checking import CheckFailed
from memlib.course.exercise import Exercise, exercises
from memlib.course.release import BEGIN_RE, END_RE

__all__ = ["Exercise", "Mutant", "Report", "EXERCISES", "EQUIVALENT", "mutants", "run", "main"]

ROOT = Path(__file__).resolve().parents[2]
#: Seconds a mutant may run inside its check before it counts as killed (an endless loop).
MUTANT_TIMEOUT_S = 20


#: grade_id -> the exercise's record, kept next to its check (`memlib.course.exercise`).
EXERCISES: dict[str, Exercise] = exercises()
#: (grade_id, mutant description) -> why the mutant computes the same thing as the reference, from the records.
#: Each was read and judged by hand; a new survivor is either a leak to fix in the check or a new entry there.
EQUIVALENT: dict[tuple[str, str], str] = {
    (e.grade_id, description): why for e in EXERCISES.values() for description, why in e.equivalent.items()}


@dataclass(frozen=True)
class Mutant:
    grade_id: str
    operator: str
    description: str  # stable across edits elsewhere in the notebook: operator, before -> after, occurrence
    source: str

    def __repr__(self) -> str:
        return f"Mutant({self.grade_id}: {self.description})"


@dataclass
class Report:
    grade_id: str
    killed: list[tuple[Mutant, str]] = field(default_factory=list)
    survived: list[Mutant] = field(default_factory=list)
    equivalent: list[tuple[Mutant, str]] = field(default_factory=list)
    reference_passes: bool = True

    @property
    def total(self) -> int:
        return len(self.killed) + len(self.survived) + len(self.equivalent)

    @property
    def kill_rate(self) -> float:
        """Killed / non-equivalent mutants."""
        live = len(self.killed) + len(self.survived)
        return len(self.killed) / live if live else 1.0

    def render(self) -> str:
        lines = [f"{self.grade_id}: {len(self.killed)}/{len(self.killed) + len(self.survived)} non-equivalent "
                 f"mutants killed ({self.kill_rate:.0%}); {len(self.equivalent)} equivalent; "
                 f"reference {'passes' if self.reference_passes else 'FAILS'}"]
        lines += [f"  SURVIVED    {m.description}" for m in self.survived]
        lines += [f"  equivalent  {m.description}  -- {why}" for m, why in self.equivalent]
        return "\n".join(lines)


def _solution_cells(exercise: Exercise, root: Path | None) -> list[tuple[str | None, str, str, str | None]]:
    """(id, cell type, source, grade_id or None) of every cell of the exercise's solution notebook."""
    path = (root or ROOT) / "solutions" / f"{exercise.notebook}.ipynb"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: mutation testing reads the solution notebooks of a "
                                "checkout; run it from one (python -m memlib.course.mutation)")
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(cell.get("id"), cell["cell_type"],
             "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"],
             (cell.get("metadata", {}).get("memlib") or {}).get("grade_id")) for cell in nb["cells"]]


def exercise_cell(exercise: Exercise, root: Path | None = None) -> str:
    """The source of the exercise cell of the solution notebook in the checkout at `root` (default:
    the one memlib runs from): `exercise.cell` when the record names it, else the last cell with
    solution regions before the exercise's graded cell (a notebook may hold several exercises),
    else the first one."""
    found: list[str] = []
    for ident, kind, source, grade_id in _solution_cells(exercise, root):
        has_solution = kind == "code" and any(BEGIN_RE.match(line) for line in source.splitlines())
        if exercise.cell:
            if ident == exercise.cell and has_solution:
                return source
            continue
        if grade_id == exercise.grade_id and found:
            return found[-1]
        if has_solution:
            found.append(source)
    if exercise.cell:
        raise LookupError(f"solutions/{exercise.notebook}.ipynb has no exercise cell {exercise.cell!r} "
                          "(a code cell with solution regions)")
    if found:
        return found[0]
    raise LookupError(f"solutions/{exercise.notebook}.ipynb has no exercise cell")


def setup_source(exercise: Exercise, root: Path | None = None) -> str:
    """`exercise.setup`, then the source of each of its `setup_cells`, in order."""
    if not exercise.setup_cells:
        return exercise.setup
    by_id = {cell_id: source for cell_id, _, source, _ in _solution_cells(exercise, root)}
    missing = [c for c in exercise.setup_cells if c not in by_id]
    if missing:
        raise LookupError(f"solutions/{exercise.notebook}.ipynb has no cell {missing[0]!r}")
    return "\n".join([exercise.setup, *(by_id[c] for c in exercise.setup_cells)])


def _solution_lines(source: str) -> set[int]:
    lines, inside = set(), False
    for number, line in enumerate(source.splitlines(), start=1):
        if BEGIN_RE.match(line):
            inside = True
        elif END_RE.match(line):
            inside = False
        elif inside:
            lines.add(number)
    return lines


_COMPARE_SWAPS: dict[type[ast.cmpop], list[type[ast.cmpop]]]
_COMPARE_SWAPS = {ast.Lt: [ast.LtE, ast.Gt], ast.LtE: [ast.Lt, ast.GtE], ast.Gt: [ast.GtE, ast.Lt],
                  ast.GtE: [ast.Gt, ast.LtE], ast.Eq: [ast.NotEq], ast.NotEq: [ast.Eq], ast.In: [ast.NotIn],
                  ast.NotIn: [ast.In], ast.Is: [ast.IsNot], ast.IsNot: [ast.Is]}
_BINOP_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Mult,
                ast.Mod: ast.FloorDiv}

# Injected into every mutant's namespace: change a list or dict in place, keep the result.
_HELPERS = '''
def _mut_change_input(value):
    if isinstance(value, list):
        value.append(value[-1] if value else None)
    elif isinstance(value, dict):
        value["__mutated__"] = True
    else:
        return
    _mut_state["changed an input"] = True
'''


def _short(node: ast.AST) -> str:
    text = ast.unparse(node).replace("\n", " ")
    return text if len(text) <= 70 else text[:67] + "..."


def _sites(tree: ast.Module, lines: set[int]) -> Iterator[tuple[str, ast.AST, Callable[..., Any] | None]]:
    """(operator, node, how to mutate a copy of it) for every mutation site inside the solution lines."""
    for node in ast.walk(tree):
        if getattr(node, "lineno", None) not in lines:
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                for new in _COMPARE_SWAPS.get(type(op), []):
                    yield "compare", node, (lambda n, i=i, new=new: n.ops.__setitem__(i, new()))
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and not isinstance(node.value, bool):
            for delta in (1, -1):
                yield "constant", node, (lambda n, d=delta: setattr(n, "value", n.value + d))
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINOP_SWAPS:
            yield "binop", node, (lambda n: setattr(n, "op", _BINOP_SWAPS[type(n.op)]()))
        elif isinstance(node, ast.Call) and len(node.args) >= 2 and not any(isinstance(a, ast.Starred) for a in node.args[:2]):
            yield "swap-args", node, (lambda n: n.args.__setitem__(slice(0, 2), [n.args[1], n.args[0]]))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
            yield "negate", node, (lambda n: setattr(n, "test", ast.UnaryOp(ast.Not(), n.test)))
        elif isinstance(node, ast.BoolOp):
            for i in range(len(node.values)):
                yield "negate", node, (lambda n, i=i: n.values.__setitem__(i, ast.UnaryOp(ast.Not(), n.values[i])))
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            yield "return", node, (lambda n: setattr(n, "value", ast.Constant(None)))
        if isinstance(node, ast.stmt) and not isinstance(node, ast.FunctionDef) and not (
                isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)):
            yield "drop", node, None  # handled by the caller: replace the statement by `pass`


def _functions(tree: ast.Module, lines: set[int]) -> Iterator[ast.FunctionDef]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and any(getattr(s, "lineno", 0) in lines for s in node.body):
            yield node


def _replace_statement(tree: ast.AST, target: ast.AST, new: list[ast.stmt]) -> bool:
    for parent in ast.walk(tree):
        for name in ("body", "orelse", "finalbody", "handlers"):
            block = getattr(parent, name, None)
            if isinstance(block, list) and target in block:
                at = block.index(target)
                block[at:at + 1] = new
                if not block:
                    block.append(ast.Pass())
                return True
    return False


def mutants(exercise: Exercise) -> list[Mutant]:
    """Every mutant of the exercise's reference, in a stable order."""
    source = exercise_cell(exercise)
    lines = _solution_lines(source)
    tree = ast.parse(source)
    found: list[Mutant] = []
    seen: dict[str, int] = {}

    def add(operator: str, before: str, after: str, mutated: ast.Module) -> None:
        key = f"{operator}: {before} -> {after}"
        seen[key] = seen.get(key, 0) + 1
        description = key if seen[key] == 1 else f"{key} (#{seen[key]})"
        found.append(Mutant(exercise.grade_id, operator, description, ast.unparse(ast.fix_missing_locations(mutated))))

    sites = list(_sites(tree, lines))
    for index, (operator, node, change) in enumerate(sites):
        mutated = copy.deepcopy(tree)
        twin = _nth_same(mutated, tree, node)
        before = _short(twin)
        if change is None:  # "drop"
            if not _replace_statement(mutated, twin, [ast.Pass()]):
                continue
            add(operator, before, "pass", mutated)
            continue
        change(twin)
        add(operator, before, _short(twin), mutated)
    # whole-function mutants: in-place mutation of inputs, state kept across calls
    for function in _functions(tree, lines):
        params = [a.arg for a in function.args.args if a.arg not in ("self", "cls")]
        for param in params:
            mutated = copy.deepcopy(tree)
            twin = _nth_same(mutated, tree, function)
            for ret in [n for n in ast.walk(twin) if isinstance(n, ast.Return) and n.value is not None]:
                assert ret.value is not None  # kept by the filter above
                _replace_statement(twin, ret, ast.parse(
                    f"_mut_result = {ast.unparse(ret.value)}\n_mut_change_input({param})\nreturn _mut_result").body)
            add("mutate-input", f"{function.name}({param})", f"{param} changed in place", mutated)
        if params and any(isinstance(n, ast.Return) and n.value is not None for n in ast.walk(function)):
            mutated = copy.deepcopy(tree)
            twin = _nth_same(mutated, tree, function)
            key = f"len({params[0]}) if hasattr({params[0]}, '__len__') else {params[0]}"
            for ret in [n for n in ast.walk(twin) if isinstance(n, ast.Return) and n.value is not None]:
                assert ret.value is not None  # kept by the filter above
                _replace_statement(twin, ret, ast.parse(
                    f"_mut_state.setdefault(('{function.name}', {key}), {ast.unparse(ret.value)})\n"
                    f"return _mut_state[('{function.name}', {key})]").body)
            add("keep-state", f"{function.name}", f"remembers its result per len({params[0]})", mutated)
    return found


def _nth_same(mutated: ast.Module, original: ast.Module, node: ast.AST) -> ast.AST:
    """The node of `mutated` at the same walk position as `node` in `original`."""
    for a, b in zip(ast.walk(original), ast.walk(mutated)):
        if a is node:
            return b
    raise LookupError(node)


@contextlib.contextmanager
def _time_limit(seconds: int) -> Iterator[None]:
    def stop(signum, frame):
        raise TimeoutError(f"the mutant ran for more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def _changed_an_input(exercise: Exercise, mutant: Mutant) -> bool:
    namespace: dict[str, Any] = {}
    verdict(exercise, mutant.source, namespace)
    return bool(namespace["_mut_state"].get("changed an input"))


def verdict(exercise: Exercise, source: str, namespace: dict | None = None) -> str | None:
    """None when the check accepts `source` as the exercise answer, else why it was rejected."""
    namespace = {} if namespace is None else namespace
    namespace.update({"__name__": "__mutant__", "_mut_state": {}})
    with contextlib.redirect_stdout(io.StringIO()):  # a setup cell's own printout is not the report's
        exec(compile(_HELPERS + setup_source(exercise), "<setup>", "exec"), namespace)
    check = getattr(importlib.import_module(exercise.module or "memlib.course.checks"), exercise.check)
    out = io.StringIO()
    try:
        with _time_limit(MUTANT_TIMEOUT_S), contextlib.redirect_stdout(out):
            exec(compile(source, "<mutant>", "exec"), namespace)
            check(exercise.answer_of(namespace))
    except CheckFailed as failure:
        return failure.what
    except Exception as error:  # the mutant does not even build (or the check broke)
        return f"{type(error).__name__}: {error}"
    return None


def run(grade_id: str, progress: Callable[[int, int, Mutant], None] | None = None) -> Report:
    """Mutate the reference of `grade_id` and run its check on every mutant.

    `progress(done, total, mutant)` is called after each mutant's verdict.
    """
    exercise = EXERCISES[grade_id]
    report = Report(grade_id)
    report.reference_passes = verdict(exercise, exercise_cell(exercise)) is None
    found = mutants(exercise)
    for done, mutant in enumerate(found, 1):
        if progress is not None:
            progress(done - 1, len(found), mutant)
        reason = verdict(exercise, mutant.source)
        if reason is not None:
            report.killed.append((mutant, reason))
        elif mutant.operator == "mutate-input" and not _changed_an_input(exercise, mutant):
            report.equivalent.append((mutant, "the check never passes a list or dict there: nothing to change"))
        elif mutant.description in exercise.equivalent:
            report.equivalent.append((mutant, exercise.equivalent[mutant.description]))
        else:
            report.survived.append(mutant)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m memlib.course.mutation", description=__doc__.splitlines()[0])
    parser.add_argument("grade_ids", nargs="*", help=f"default: all of {', '.join(EXERCISES)}")
    parser.add_argument("--quiet", action="store_true", help="no progress on stderr (the report alone)")
    args = parser.parse_args(argv)
    unknown = [g for g in args.grade_ids if g not in EXERCISES]
    if unknown:
        parser.error(f"unknown grade_id {unknown[0]!r}; known: {', '.join(EXERCISES)}")
    # The grader's progress bar: redrawn per mutant on a terminal; elsewhere (a log) one line per check.
    from memlib.course.grading.report import _Progress

    bar = None if args.quiet else _Progress()
    survivors = 0
    grade_ids = args.grade_ids or list(EXERCISES)
    for number, grade_id in enumerate(grade_ids, 1):
        where = f"check {number}/{len(grade_ids)} {grade_id}"

        def show(done: int, total: int, mutant: Mutant, where: str = where) -> None:
            if bar is not None and bar.tty:
                bar.show(done, total, f"{where}: {mutant.description}")

        report = run(grade_id, progress=show)
        if bar is not None:
            bar.show(report.total, report.total, f"{where}: {len(report.killed)} killed, "
                                                 f"{len(report.equivalent)} equivalent, {len(report.survived)} survived")
        print(report.render(), flush=True)
        survivors += len(report.survived) + (not report.reference_passes)
    return 1 if survivors else 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
