"""Copies of the reference: an answer that is the published solution up to names, comments and layout.

The course publishes its solution notebooks (``solutions/NN_topic.ipynb``). The
answer to an exercise there is the code between ``### BEGIN SOLUTION`` and
``### END SOLUTION`` in the exercise cells that come before the exercise's
graded cell (after the previous graded cell): the release turns exactly those
cells into stubs. When the grader is given that folder (``--solutions``), it
compares each top-level statement of the solution that holds such a region
(the function or class the student had to complete) with every top-level
statement of the student's code cells, after both are put in a normal form:

* parsed with `ast` (so comments, blank lines, line breaks, quotes and
  parentheses no longer count), IPython's magics turned into Python first;
* docstrings and other bare string statements dropped, type annotations of
  arguments and return values dropped;
* every name local to a function, lambda or comprehension (its arguments,
  what its body assigns, its exception and loop variables) renamed to
  ``_v0``, ``_v1``, ... in the order it first appears, and the statement's
  own name (``def how_many_fit``) to ``_top``: a copy with other names is
  the same form.

A match is a review flag on the exercise's gradebook row, never a change of
points: two honest answers can meet on a short solution, which is why a
solution whose regions are tiny (fewer than `MIN_NODES` syntax nodes) is not
compared at all. A blank stub never matches (it raises where the solution
computes). What this does not see: a copy rewritten beyond names and layout
(another loop, reordered statements, ``x += 1`` for ``x = x + 1``).
"""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from pathlib import Path

from memlib.course.grading.cellcode import NotTransformed, _python
from memlib.course.grading.inert import CELL_READ_LIMIT_CHARS
from memlib.course.grading.model import Assignment, GradeSetupError
from memlib.course.grading.provenance import _SCOPES, _code_cells, _first_line, _locals
from memlib.course.release import BEGIN_RE, END_RE, _grade_meta
from memlib._util import parse_python

__all__ = ["Reference", "COPY_FLAG", "MIN_NODES", "normal_form", "read_references", "library_references",
           "references_of", "copy_flags"]

#: The words every copy flag starts with (the item report counts rows that carry them).
COPY_FLAG = "review: matches the published reference"
#: A solution region with fewer syntax nodes than this is too short to tell a copy from an honest answer.
MIN_NODES = 20


@dataclass(frozen=True)
class Reference:
    """One statement of a solution that holds a solution region, in normal form."""

    grade_id: str
    label: str  # "def how_many_fit", "class MySummarizer"
    form: str
    notebook: str  # the solution notebook's file name, or memlib's reference ("module:qualname")


# --------------------------------------------------------------------------- the normal form


class _Canonical(ast.NodeTransformer):
    """Renames the locals of every scope in order of first appearance; drops docstrings and annotations."""

    def __init__(self, top_names: set[str]) -> None:
        self.scopes: list[tuple[set[str], dict[str, str]]] = [(set(top_names), {})]
        self.count = 0

    def _rename(self, name: str) -> str:
        for depth in range(len(self.scopes) - 1, -1, -1):
            local, mapping = self.scopes[depth]
            if name in local:
                if name not in mapping:
                    mapping[name] = "_top" if depth == 0 else f"_v{self.count}"
                    self.count += depth != 0
                return mapping[name]
        return name

    def _scoped(self, node: ast.AST) -> ast.AST:
        self.scopes.append((_locals(node), {}))
        try:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                node.args = self.visit(node.args)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                node.body = _without_strings([self.visit(s) for s in node.body])
            elif isinstance(node, ast.Lambda):
                node.body = self.visit(node.body)
            elif isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
                # a comprehension: its generators first (they bind), then what it builds
                node.generators = [self.visit(g) for g in node.generators]
                for name in ("elt", "key", "value"):
                    if hasattr(node, name):
                        setattr(node, name, self.visit(getattr(node, name)))
        finally:
            self.scopes.pop()
        return node

    def visit_FunctionDef(self, node: ast.FunctionDef) -> ast.AST:
        node.decorator_list = [self.visit(d) for d in node.decorator_list]
        node.returns = None
        node.name = self._rename(node.name)
        return self._scoped(node)

    visit_AsyncFunctionDef = visit_FunctionDef  # type: ignore[assignment]

    def visit_Lambda(self, node: ast.Lambda) -> ast.AST:
        return self._scoped(node)

    def visit_ListComp(self, node: ast.AST) -> ast.AST:
        return self._scoped(node)

    visit_SetComp = visit_DictComp = visit_GeneratorExp = visit_ListComp

    def visit_ClassDef(self, node: ast.ClassDef) -> ast.AST:
        node.name = self._rename(node.name)
        self.generic_visit(node)
        node.body = _without_strings(node.body)
        return node

    def visit_arg(self, node: ast.arg) -> ast.AST:
        node.arg = self._rename(node.arg)
        node.annotation = None
        return node

    def visit_Name(self, node: ast.Name) -> ast.AST:
        node.id = self._rename(node.id)
        return node

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> ast.AST:
        if node.name:
            node.name = self._rename(node.name)
        self.generic_visit(node)
        return node


def _without_strings(body: list[ast.stmt]) -> list[ast.stmt]:
    kept = [s for s in body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant)
                                    and isinstance(s.value.value, str))]
    return kept or [ast.Pass()]


def normal_form(statement: ast.stmt) -> str:
    """`statement` (a top-level statement, not changed) with names, docstrings and layout made canonical."""
    tree = parse_python(ast.unparse(statement))  # a fresh copy to transform
    node = tree.body[0]
    own = {node.name} if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) else set()
    node = _Canonical(own).visit(node)
    return ast.dump(node, annotate_fields=False)


def _size(nodes: list[ast.stmt]) -> int:
    return sum(1 for statement in nodes for _ in ast.walk(statement))


# --------------------------------------------------------------------------- the references


def _text(source: object) -> str:
    return "".join(source) if isinstance(source, list) else str(source or "")


def _regions(source: str) -> list[tuple[int, int]]:
    """(first, last) line numbers (from 1) of each solution region's content."""
    spans, start = [], None
    for number, line in enumerate(source.splitlines(), start=1):
        if BEGIN_RE.match(line):
            start = number + 1
        elif END_RE.match(line) and start is not None:
            spans.append((start, number - 1))
            start = None
    return spans


def references_of(solution: dict, notebook: str = "") -> list[Reference]:
    """The references of one solution notebook: for each graded cell, the statements of its exercise cells."""
    found: list[Reference] = []
    pending: list[str] = []
    for cell in solution.get("cells", []):
        source = _text(cell.get("source", ""))
        meta = _grade_meta(cell)
        if meta is not None:
            grade_id = str(meta.get("grade_id"))
            for exercise in pending:
                found += _statements(grade_id, exercise, notebook)
            pending = []
        elif cell.get("cell_type") == "code" and _regions(source):
            pending.append(source)
    return found


def _statements(grade_id: str, source: str, notebook: str) -> list[Reference]:
    try:
        tree = parse_python(source)
    except SyntaxError:
        return []
    spans = _regions(source)
    found = []
    for statement in tree.body:
        inside = [node for node in ast.walk(statement) if isinstance(node, ast.stmt) and node is not statement
                  and any(first <= node.lineno and (node.end_lineno or node.lineno) <= last for first, last in spans)]
        outermost = [n for n in inside if not any(n is not o and n in ast.walk(o) for o in inside)]
        if not outermost or _size(outermost) < MIN_NODES:
            continue
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            kind = {"FunctionDef": "def", "AsyncFunctionDef": "async def", "ClassDef": "class"}[type(statement).__name__]
            label = f"{kind} {statement.name}"
        else:
            label = _first_line(ast.unparse(statement))
        found.append(Reference(grade_id, label, normal_form(statement), notebook))
    return found


def library_references(assignments: list[Assignment]) -> dict[str, list[Reference]]:
    """grade_id -> memlib's own reference implementations of its exercise (its record's `references`), in normal
    form: memlib ships to students, so a copy of a reference's text is a copy too. A class gives its methods."""
    import importlib
    import inspect
    import textwrap

    from memlib.course.exercise import exercises

    records = exercises()
    found: dict[str, list[Reference]] = {}
    for graded in (g for a in assignments for g in a.graded):
        record = records.get(graded.grade_id)
        for spec in record.references if record is not None else ():
            module_name, _, qualname = spec.partition(":")
            try:
                target: object = importlib.import_module(module_name)
                for part in qualname.split("."):
                    target = getattr(target, part)
                tree = parse_python(textwrap.dedent(inspect.getsource(target)))  # type: ignore[arg-type]
            except (ImportError, AttributeError, OSError, TypeError, SyntaxError):
                continue  # not Python source (a registry, a C type): nothing to compare
            statements = [node for top in tree.body
                          for node in ([top] + [n for n in getattr(top, "body", []) if isinstance(top, ast.ClassDef)])
                          if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
            for statement in statements:
                if _size([statement]) >= MIN_NODES:
                    found.setdefault(graded.grade_id, []).append(Reference(
                        graded.grade_id, f"def {statement.name}", normal_form(statement), f"{module_name}:{qualname}"))
    return found


def read_references(solutions: str | Path, assignments: list[Assignment]) -> dict[str, list[Reference]]:
    """grade_id -> its references, from the solution notebooks in `solutions` named as the released ones.

    Raises `GradeSetupError` when the folder is missing, holds no solution of any released notebook,
    or a solution cannot be read; a released notebook without a solution is simply not compared.
    """
    folder = Path(solutions)
    if not folder.is_dir():
        raise GradeSetupError(f"--solutions {str(folder)!r} is not a folder; pass the course's solutions/ folder")
    found: dict[str, list[Reference]] = {}
    read = 0
    for assignment in assignments:
        path = folder / assignment.name
        if not path.is_file():
            continue
        try:
            solution = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(solution, dict):
                raise ValueError("not a notebook")
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise GradeSetupError(f"cannot read the solution {path}: {error}") from None
        read += 1
        graded = {g.grade_id for g in assignment.graded}
        for reference in references_of(solution, assignment.name):
            if reference.grade_id in graded:
                found.setdefault(reference.grade_id, []).append(reference)
    if not read:
        names = ", ".join(a.name for a in assignments) or "none"
        raise GradeSetupError(f"--solutions {str(folder)!r} holds no solution of the released notebooks ({names})")
    return found


# --------------------------------------------------------------------------- a submission


def _student_forms(nb: dict, graded_ids: set[str]) -> dict[str, str]:
    """Normal form -> the first line of the cell it is in, for every top-level statement of the code cells."""
    forms: dict[str, str] = {}
    for cell in _code_cells(nb, graded_ids):
        source = _text(cell.get("source", ""))
        if len(source) > CELL_READ_LIMIT_CHARS:  # not parsed on the host (grading.inert)
            continue
        try:
            tree = parse_python(_python(source))
        except (SyntaxError, ValueError, RecursionError, SystemError, MemoryError, NotTransformed):
            continue  # not read here: the provenance reading flags what it cannot read
        # top-level statements, and the methods of top-level classes (a copy of a reference's method, 04's step)
        for statement in tree.body + [n for top in tree.body if isinstance(top, ast.ClassDef) for n in top.body
                                      if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]:
            try:
                forms.setdefault(normal_form(statement), _first_line(source))
            except (SyntaxError, ValueError, RecursionError):
                continue
    return forms


def copy_flags(nb: dict, assignment: Assignment, references: dict[str, list[Reference]]) -> dict[str, list[str]]:
    """grade_id -> one review note when the notebook holds a statement of that exercise's reference."""
    wanted = [r for g in assignment.graded for r in references.get(g.grade_id, [])]
    if not wanted:
        return {}
    forms = _student_forms(nb, {graded.grade_id for graded in assignment.graded})
    notes: dict[str, list[str]] = {}
    for reference in wanted:
        cell = forms.get(reference.form)
        if cell is None:
            continue
        where = (f"solutions/{reference.notebook}" if reference.notebook.endswith(".ipynb")
                 else f"memlib's {reference.notebook}")
        notes.setdefault(reference.grade_id, []).append(
            f"{COPY_FLAG} ({reference.label} of {where}, up to names, comments, "
            f"docstrings and layout; cell starting {cell!r})")
    return notes
