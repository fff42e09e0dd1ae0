"""Provenance: what a graded answer is made of, read from the notebook's source, outside the kernel.

The grader reads the student's notebook before any of it runs. This stage
parses the code cells (IPython magics turned into Python first) and follows,
from the names a graded cell's answer expression reads, every top-level
binding that can reach them: definitions, assignments, imports. When that
closure reaches code the student did not write for the exercise, the
gradebook row carries a review flag that names it:

* the checks' own code (``memlib.course.checks``: references, private
  helpers, answer keys such as 07's ``EXCUSED_ATTACKS``), the grader's
  (``memlib.course.serve``, ``checker``, ``wire``);
* a library implementation that a check lists as the exercise's reference
  (``memlib.guard.scan`` for 07, ``rank_bm25``, ``ExtractiveSummarizer``);
* a held-out data split (``datasets.load("poisoning_heldout")``).

An import of the checks' code or of a reference anywhere in a student's cell
(inside a function or a class body too, where the reading of top-level
bindings does not look) is flagged as well, for the exercises it concerns; a
name imported from one of memlib's modules counts as the object it is, so a
re-export (``memlib.scanner.scan`` is ``memlib.guard.scan``) is the reference.
The code of magics that run Python (``%time``, ``%timeit``, ``%prun``,
``%%time``, ...) is read as the cell's code.

And, for every graded row of the notebook, code that hides what it does from
a reading like this one: ``exec``/``eval``/``compile``, ``__import__`` and
``importlib``, profile and trace hooks, frame and code-object surgery,
``sys.modules``, ``sys.path``, run-time IPython (``run_cell``, ``%run``),
``vars()``/``locals()``, ``getattr`` with a name computed at run time (with a
constant name it is read as the dotted name it spells), IPython's input and AST
transformers (they make the kernel run other code than this reading sees), a
Python file named in the code, a held-out split's name, and imports of a
module that is neither installed nor released (one the notebook wrote itself).

The reading is bounded: a notebook whose student code is larger than
`READ_LIMIT_CHARS` (or a cell larger than `CELL_READ_LIMIT_CHARS`) is not
parsed past that point (parsing costs the grader about half a gigabyte per
megabyte of such code) and is flagged for a person to read instead; the
closure over bindings is indexed by name, so its cost grows with the code's
size, not with its square.

Why here and not in the kernel: the kernel runs the student's code, which can
switch off or dodge anything watching it from inside (a profile hook, a
thread, a file name). The notebook's source is what the grader holds before
the kernel starts, so nothing the student's code does at run time changes
what is found. The release's own cells (exact copies, such as the cell that
imports a reference for ``use_or_reference``) are not the student's and raise
no flag themselves, but their bindings count when an answer reads them.

This is evidence for a person, not a verdict: it changes no points.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
import sys
from dataclasses import dataclass, field
from typing import Iterable

from memlib.course.checker import graded_call
from memlib.course.grading.cellcode import TRANSFORM_LINE_CHARS, NotTransformed, parse_cell as _parse
from memlib.course.grading.flagged import (BINDING_CALLS, CONFIG_ARGUMENT, DYNAMIC_ATTRIBUTES, DYNAMIC_CALLS,
                                           DYNAMIC_MODULES, DYNAMIC_NAMES, GETTER_FACTORIES, HARMLESS_MAGICS,
                                           LOOKUP_CALLS, MEMLIB_PATH, MODULE_DUNDERS, OUTPUT_CACHE)
from memlib.course.grading.inert import CELL_READ_LIMIT_CHARS, READ_LIMIT_CHARS
from memlib.course.grading.model import Assignment, _cell_grade_id
from memlib.course.kernel_run import is_skipped
from memlib._util import parse_python

__all__ = ["Finding", "notebook_findings", "review_flags", "GRADER_MODULES", "CHECK_PACKAGE", "READ_LIMIT_CHARS",
           "CELL_READ_LIMIT_CHARS"]

CHECK_PACKAGE = "memlib.course.checks"
#: The course's own package: the checks, the grader, the kernel's watch, the exercises' records. No answer has
#: business reaching it, beyond the names the notebooks' own cells use (STUDENT_FACING) and the checks.
GRADER_MODULES = ("memlib.course",)
STUDENT_FACING = {"memlib.course.quiz.show_quiz", "memlib.course.fallback.environment_report",
                  "memlib.course.checking.keep_going_after_failures"}
#: Library code that is an exercise's answer, beyond what the checks list as references.
ALWAYS_REFERENCES = ("rank_bm25",)


@dataclass(frozen=True)
class Finding:
    """One thing seen in the source: what it is, and the cell where it is (first line)."""

    what: str
    cell: str

    def text(self) -> str:
        return f"{self.what} (cell starting {self.cell!r})"


@dataclass
class _Binding:
    """Everything one top-level statement binds, what it reads, and where it is."""

    names: set[str]
    reads: set[str] = field(default_factory=set)  # dotted names: "scan", "memlib.guard.scan", "_ref"
    strings: set[str] = field(default_factory=set)
    imports: dict[str, str] = field(default_factory=dict)  # bound name -> module path it imports
    aliases: dict[str, str] = field(default_factory=dict)  # name -> the dotted name it was set to (x = a.b)
    cell: str = ""
    student: bool = True
    position: int = 0  # the index of its cell in the notebook


def _dotted(node: ast.AST) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        return ".".join([node.id, *reversed(parts)])
    return None


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp,
           ast.GeneratorExp)


def _locals(scope: ast.AST) -> set[str]:
    """Names local to a function, lambda or comprehension: its parameters and what its own body stores."""
    names: set[str] = set()
    if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        arguments = scope.args
        for arg in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                    *([arguments.vararg] if arguments.vararg else []), *([arguments.kwarg] if arguments.kwarg else [])]:
            names.add(arg.arg)
    declared_global: set[str] = set()

    def visit(node: ast.AST) -> None:
        if node is not scope and isinstance(node, _SCOPES):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names.add(node.name)
            return
        if isinstance(node, (ast.Global, ast.Nonlocal)):
            declared_global.update(node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, ast.ClassDef) and node is not scope:
            names.add(node.name)
            return
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
        for child in ast.iter_child_nodes(node):
            visit(child)

    for child in ast.iter_child_nodes(scope):
        visit(child)
    return names - declared_global


def _reads(node: ast.AST, hidden: frozenset[str] = frozenset()) -> tuple[set[str], set[str]]:
    """Dotted names read (not those local to a function or comprehension inside) and string constants."""
    reads: set[str] = set()
    strings: set[str] = set()
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
        # defaults and decorators run where the function is defined, not inside it
        outer = [*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None),
                 *getattr(node, "decorator_list", [])]
        for expression in outer:
            more, texts = _reads(expression, hidden)
            reads |= more
            strings |= texts
    if isinstance(node, _SCOPES):
        hidden = hidden | _locals(node)
    if isinstance(node, ast.ClassDef):
        # super().step inside `class MyAgent(Agent)` reads Agent.step
        bases = [b for b in (_dotted(base) for base in node.bases) if b]
        for sub in ast.walk(node):
            if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Call)
                    and isinstance(sub.value.func, ast.Name) and sub.value.func.id == "super"):
                reads.update(f"{base}.{sub.attr}" for base in bases if base.split(".")[0] not in hidden)
    if isinstance(node, (ast.Attribute, ast.Name)) and isinstance(getattr(node, "ctx", None), ast.Load):
        dotted = _dotted(node)
        if dotted and dotted.split(".")[0] not in hidden:
            reads.add(dotted)
    elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "getattr"
          and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
        # getattr(Agent, "step") reads Agent.step, as the dotted name would
        owner = _dotted(node.args[0])
        if owner and owner.split(".")[0] not in hidden:
            reads.add(f"{owner}.{node.args[1].value}")
    elif isinstance(node, ast.Call) and _attrgetter_path(node.func) and len(node.args) == 1:
        # operator.attrgetter("checks.nb01.f")(memlib.course) reads memlib.course.checks.nb01.f
        owner = _dotted(node.args[0])
        if owner and owner.split(".")[0] not in hidden:
            reads.add(f"{owner}.{_attrgetter_path(node.func)}")
    elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
        strings.add(node.value)
    for child in ast.iter_child_nodes(node):
        more, texts = _reads(child, hidden)
        reads |= more
        strings |= texts
    return reads, strings


def _attrgetter_path(node: ast.AST) -> str:
    """"a.b" for ``attrgetter("a.b")`` or ``operator.attrgetter("a.b")``; "" for anything else."""
    if (isinstance(node, ast.Call) and (_dotted(node.func) or "").split(".")[-1] == "attrgetter"
            and len(node.args) == 1 and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)):
        return node.args[0].value
    return ""


def _alias(statement: ast.stmt) -> tuple[str, str] | None:
    """(name, dotted) for ``name = dotted.name``: a second name for a module, class or function."""
    if (isinstance(statement, ast.Assign) and len(statement.targets) == 1
            and isinstance(statement.targets[0], ast.Name) and _dotted(statement.value)):
        return statement.targets[0].id, str(_dotted(statement.value))
    return None


def _bound(node: ast.AST) -> tuple[set[str], dict[str, str]]:
    """Top-level names a statement binds (anywhere in it, for compound statements) and its imports.

    A function's or class's own body binds its locals, not the notebook's names: only its name counts."""
    names: set[str] = set()
    imports: dict[str, str] = {}

    def visit(sub: ast.AST) -> None:
        if isinstance(sub, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(sub.name)
            return
        if isinstance(sub, (ast.Lambda, ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
            return
        if isinstance(sub, ast.Import):
            for alias in sub.names:
                imports[alias.asname or alias.name.split(".")[0]] = (alias.name if alias.asname
                                                                      else alias.name.split(".")[0])
        elif isinstance(sub, ast.ImportFrom) and sub.level == 0 and sub.module:
            for alias in sub.names:
                imports[alias.asname or alias.name] = f"{sub.module}.{alias.name}"
        elif isinstance(sub, ast.Name) and isinstance(sub.ctx, ast.Store):
            names.add(sub.id)
        elif isinstance(sub, (ast.Subscript, ast.Attribute)) and isinstance(sub.ctx, (ast.Store, ast.Del)):
            names.update(_base_name(sub))  # table[key] = ..., obj.attr = ...: the statement changes table, obj
        elif isinstance(sub, ast.Expr) and isinstance(sub.value, ast.Call) and isinstance(sub.value.func, ast.Attribute):
            names.update(_base_name(sub.value.func))  # table.update(...), dispatcher.register(...): the same
        for child in ast.iter_child_nodes(sub):
            visit(child)

    visit(node)
    return names | set(imports), imports


def _base_name(node: ast.AST) -> set[str]:
    """The top-level name an attribute or subscript chain starts from (``a`` of ``a.b[c].d``), if any."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return {node.id} if isinstance(node, ast.Name) else set()


def _first_line(source: str) -> str:
    for line in source.splitlines():
        if line.strip():
            return line.strip()[:60]
    return ""


def _code_cells(nb: dict, graded_ids: set[str]) -> list[dict]:
    """The code cells the grader runs before and between the graded ones: not graded, not skipped.

    A graded cell of the release is put back from the release, so the student's copy is not read;
    a cell with any other grade id is the student's and runs like any other.
    A skipped cell (``nbval-skip``, such as the Colab setup cell) never runs under the grader, so
    nothing in it can make an answer; it is not read (an older release's setup cell differs from
    today's only in what it would install, and must not flag every student who kept it).
    """
    def skipped(cell: dict) -> bool:
        source = cell.get("source", "")
        return is_skipped({**cell, "source": "".join(source) if isinstance(source, list) else str(source)})

    return [c for c in nb.get("cells", [])
            if c.get("cell_type") == "code" and _cell_grade_id(c) not in graded_ids and not skipped(c)]


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _bindings(cells: list[dict], release_sources: set[str], positions: list[int]
              ) -> tuple[list[_Binding], list[ast.Module | None], list[Finding]]:
    """The top-level bindings of `cells`, each student cell's tree (None for the release's own cells and
    for what cannot be parsed), and what was too large to read."""
    found: list[_Binding] = []
    trees: list[ast.Module | None] = []
    unread: list[Finding] = []
    budget = READ_LIMIT_CHARS
    for cell, position in zip(cells, positions):
        source = _source(cell)
        student = source.strip() not in release_sources
        if student and (len(source) > CELL_READ_LIMIT_CHARS or len(source) > budget):
            unread.append(Finding(f"a code cell of {len(source):,} characters that the grader did not read "
                                  f"(it reads {CELL_READ_LIMIT_CHARS:,} per cell and {READ_LIMIT_CHARS:,} per "
                                  "notebook): read it yourself", _first_line(source[:2000])))
            trees.append(None)
            continue
        if student:
            budget -= len(source)
        try:
            tree = _parse(source)
            read = [(_bound(statement), _reads(statement), _alias(statement)) for statement in tree.body]
        except (SyntaxError, ValueError):  # not Python: it fails in the kernel too
            trees.append(None)
            continue
        except (RecursionError, SystemError, MemoryError):  # nested deeper than the reading goes
            if student:
                unread.append(Finding("a code cell nested too deeply for the grader to read (the kernel runs it): "
                                      "read it yourself", _first_line(source[:2000])))
            trees.append(None)
            continue
        except NotTransformed:
            if student:
                unread.append(Finding(f"a code cell with IPython syntax and a line over {TRANSFORM_LINE_CHARS:,} "
                                      "characters that the grader did not read: read it yourself",
                                      _first_line(source[:2000])))
            trees.append(None)
            continue
        trees.append(tree if student else None)
        for (names, imports), (reads, strings), alias in read:
            found.append(_Binding(names, reads, strings, imports, dict([alias]) if alias else {},
                                  _first_line(source), student, position))
    return found, trees, unread


def _qualified(dotted: str, imports: dict[str, str]) -> str | None:
    head, _, rest = dotted.partition(".")
    if head in imports:
        return imports[head] + (f".{rest}" if rest else "")
    return None


def _library_references(assignment: Assignment) -> dict[str, set[str]]:
    """grade_id -> dotted names of library code its check lists as references (functions and classes)."""
    found: dict[str, set[str]] = {}
    for graded in assignment.graded:
        names = found.setdefault(graded.grade_id, set(ALWAYS_REFERENCES))
        try:
            call = graded_call(graded.source)
            check = getattr(importlib.import_module(call.module), call.function)
        except Exception:  # a check the grader cannot import: its checker reports that as a grader error
            continue
        for spec in getattr(check, "references", ()) or ():
            module, _, qualname = str(spec).partition(":")
            # a method (Agent.step) is found only when read as such (Agent.step, super().step in a subclass):
            # subclassing Agent, as exercise L asks, reads memlib.agent.Agent, which is not under it
            names.add(f"{module}.{qualname}")
    return found


#: Words that name a split kept for measuring, never for tuning (held-out and independent authors).
_MEASURING = ("heldout", "independent", "third_author", "fourth_author", "chinese", "codeswitch")


def _heldout_splits() -> set[str]:
    from memlib import datasets

    return {name for name in datasets.names() if any(word in name for word in _MEASURING)}


def _under(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


def _answer_findings(names: set[str], bindings: list[_Binding], references: set[str],
                     heldout: set[str]) -> list[Finding]:
    """What the closure of `names` over `bindings` reaches that is not the student's own work."""
    imports: dict[str, str] = {}
    aliases: dict[str, str] = {}
    binding_of: dict[str, list[_Binding]] = {}
    for binding in bindings:
        imports.update(binding.imports)
        aliases.update(binding.aliases)
        for name in binding.names:
            binding_of.setdefault(name, []).append(binding)
    findings: list[Finding] = []
    seen_names: set[str] = set()
    seen_bindings: set[int] = set()
    todo = list(names)
    while todo:
        name = todo.pop()
        if name in seen_names:
            continue
        seen_names.add(name)
        for binding in binding_of.get(name, ()):
            # a binding's reads are the same whichever of its names leads to it: judged on the first visit only
            # (a statement binding thousands of names must not multiply the work)
            first_visit = id(binding) not in seen_bindings
            seen_bindings.add(id(binding))
            reached = set(binding.reads) if first_visit else set()
            if name in binding.imports:
                reached.add(name)
            for dotted in reached:
                qualified = _qualified(dotted, binding.imports) or _qualified(dotted, imports)
                if qualified is None:
                    todo.append(dotted.split(".")[0])
                    qualified = _through_aliases(dotted, aliases, imports)
                    if qualified is None:
                        continue
                what = _judge(qualified, references)
                if what:
                    findings.append(Finding(what, binding.cell))
            if first_visit:
                for split in sorted(s for s in heldout if any(s in text for text in binding.strings)):
                    findings.append(Finding(f"the answer reads the held-out split {split!r}", binding.cell))
    return _unique(findings)


def _through_aliases(dotted: str, aliases: dict[str, str], imports: dict[str, str]) -> str | None:
    """`dotted` with its first name replaced by what it was set to, until an import qualifies it:
    ``_G.scan`` after ``_G = memlib.guard`` is memlib.guard.scan."""
    seen: set[str] = set()
    while True:
        head, _, rest = dotted.partition(".")
        if head in seen or head not in aliases:
            return None
        seen.add(head)
        dotted = aliases[head] + (f".{rest}" if rest else "")
        qualified = _qualified(dotted, imports)
        if qualified is not None:
            return qualified


def _judge(qualified: str, references: set[str]) -> str:
    if _under(qualified, CHECK_PACKAGE):
        return f"the answer uses {qualified}, the checks' own code"
    if _grader_code(qualified):
        return f"the answer uses {qualified}, the grader's own code"
    canonical = _canonical(qualified)
    for reference in sorted(references):
        if _under(qualified, reference):
            return f"the answer uses {reference}, a reference implementation of the exercise"
        if _under(canonical, _canonical(reference)):
            return f"the answer uses {reference}, a reference implementation of the exercise (as {qualified})"
    return ""


def _canonical(qualified: str) -> str:
    """`qualified` as the object it names, when it is a function or class of memlib (a re-export is its origin).

    Only memlib's own modules are imported here, never a module a student names.
    """
    if not _under(qualified, "memlib") or qualified in _CANONICAL:
        return _CANONICAL.get(qualified, qualified)
    parts = qualified.split(".")
    found = qualified
    for cut in range(len(parts) - 1, 0, -1):
        module_name = ".".join(parts[:cut])
        try:
            if importlib.util.find_spec(module_name) is None:
                continue
            value: object = importlib.import_module(module_name)
            for attribute in parts[cut:]:
                value = getattr(value, attribute)
        except (ImportError, AttributeError, ValueError):
            continue
        module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
        if isinstance(module, str) and isinstance(name, str):
            found = f"{module}.{name}"
        break
    _CANONICAL[qualified] = found
    return found


_CANONICAL: dict[str, str] = {}


def _imports_anywhere(tree: ast.Module) -> list[str]:
    """Every module path and imported name of `tree`, at any depth (function and class bodies too)."""
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found += [f"{node.module}.{alias.name}" for alias in node.names]
    return found


def _import_findings(trees: list[ast.Module | None], cells: list[dict], references_of: dict[str, set[str]]
                     ) -> dict[str, list[Finding]]:
    """grade_id -> imports of the checks' code or of its references anywhere in a student's cell."""
    found: dict[str, list[Finding]] = {}
    for cell, tree in zip(cells, trees):
        if tree is None:
            continue
        head = _first_line(_source(cell))
        for qualified in _imports_anywhere(tree):
            for grade_id, references in references_of.items():
                what = _judge(qualified, references)
                if what:
                    found.setdefault(grade_id, []).append(Finding(what.replace("the answer uses", "the notebook imports"),
                                                                  head))
    return found


#: Hexadecimal runs as long as a short hash: fingerprints of texts, the form a table of answers takes.
_FINGERPRINT = re.compile(r"(?<![0-9A-Za-z])[0-9a-fA-F]{10,64}(?![0-9A-Za-z])")
#: This many fingerprints written out in a notebook's code read as a lookup table of answers (attacks 5 and 6:
#: 07's guard as the sha1 of every injection of the installed splits). Honest answers hold none.
FINGERPRINT_TABLE = 20


def _fingerprint_findings(trees: list[ast.Module | None], cells: list[dict]) -> list[Finding]:
    counted, head = 0, ""
    for cell, tree in zip(cells, trees):
        if tree is None:
            continue
        strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)]
        found = sum(len(_FINGERPRINT.findall(text)) for text in strings)
        if found and not head:
            head = _first_line(_source(cell))
        counted += found
    if counted < FINGERPRINT_TABLE:
        return []
    return [Finding(f"the notebook writes out {counted} hexadecimal fingerprints, the form a lookup table of "
                    "answers takes", head)]


def _dynamic_findings(trees: list[ast.Module | None], cells: list[dict], bindings: list[_Binding],
                      holders: set[str]) -> list[Finding]:
    """Code in the student's own cells that hides what it runs or reaches around a watcher; `bindings` give the
    notebook's imports, `holders` the modules, packages and classes that hold a reference implementation."""
    memlib_names = _memlib_names(bindings)
    imports = {name: path for b in bindings for name, path in b.imports.items()}
    findings: list[Finding] = _fingerprint_findings(trees, cells)
    for cell, tree in zip(cells, trees):
        if tree is None:
            continue
        head = _first_line(_source(cell))
        called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
        # a holder is used by name where it is an attribute's owner, called, a base class or an annotation
        used = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)} | called
        used |= {id(base) for node in ast.walk(tree) if isinstance(node, ast.ClassDef) for base in node.bases}
        used |= {id(sub) for node in ast.walk(tree) for annotation in _annotations(node)
                 for sub in ast.walk(annotation)}
        inner = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Attribute)}
        imported = set(imports) | memlib_names
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                      and node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            what = ""
            dotted = _dotted(node) if isinstance(node, ast.Attribute) and id(node) not in inner else None
            qualified = _qualified(dotted, imports) or dotted if dotted else None
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in DYNAMIC_CALLS:
                what = f"{node.func.id}()"
            elif (isinstance(node, ast.Name) and node.id in DYNAMIC_CALLS | LOOKUP_CALLS
                  and isinstance(node.ctx, ast.Load) and id(node) not in called):
                what = f"{node.id} passed or bound as a value (what it looks up is not in the source)"
            elif (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                  and node.attr not in _NAMEDTUPLE_API and (_dotted(node.value) or "").split(".")[0] in memlib_names):
                what = f"memlib's internals ({_dotted(node) or node.attr}), which no exercise asks for"
            elif (isinstance(node, (ast.Name, ast.Attribute)) and isinstance(node.ctx, ast.Load)
                  and id(node) not in used and _qualified(_dotted(node) or "", imports) in holders):
                # ``module = memlib.summarize`` or ``base = Agent`` in a helper: what is later taken from it by the
                # local name is not in the source
                what = f"{_qualified(_dotted(node) or '', imports)} handled as a value (it holds a reference)"
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in LOOKUP_CALLS
                  and len(node.args) >= 2 and not isinstance(node.args[1], ast.Constant)):
                what = f"{node.func.id}() with a name computed at run time"
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in LOOKUP_CALLS
                  and len(node.args) >= 2 and isinstance(node.args[1], ast.Constant)
                  and node.args[1].value in DYNAMIC_ATTRIBUTES):
                what = f".{node.args[1].value} (by {node.func.id}())"  # getattr(sys, "modules") is sys.modules
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in BINDING_CALLS:
                what = f"{node.func.id}() (it binds what the reading does not follow)"
            elif isinstance(node, ast.Name) and node.id.startswith("_memlib"):
                what = f"the grader's own name {node.id}"
            elif isinstance(node, ast.Name) and node.id in MODULE_DUNDERS and not isinstance(node.ctx, ast.Load):
                what = f"{node.id} rebound (the kernel's code reads it)"
            elif isinstance(node, ast.Name) and OUTPUT_CACHE.fullmatch(node.id):
                what = f"IPython's output cache ({node.id}): what an earlier cell showed, by its number"
            elif (isinstance(node, ast.Call) and (_dotted(node.func) or "").split(".")[-1] in GETTER_FACTORIES
                  and any(not isinstance(a, ast.Constant) or "." in str(a.value) for a in node.args[:1])):
                what = f"{(_dotted(node.func) or '').split('.')[-1]}() with a dotted or computed name"
            elif isinstance(node, ast.Attribute) and node.attr in DYNAMIC_ATTRIBUTES:
                what = f".{node.attr}"
            elif qualified and (_grader_code(qualified) or _under(qualified, CHECK_PACKAGE)
                                and not qualified.rsplit(".", 1)[-1].startswith("check_")):
                what = f"the course's grading code ({qualified}), which no exercise asks for"
            elif qualified and any(_under(qualified, module) for module in DYNAMIC_MODULES if "." in module):
                what = qualified
            elif (dotted and isinstance(node, ast.Attribute) and not isinstance(node.ctx, ast.Load)
                  and dotted.split(".")[0] in imported):
                # ``memlib.guard.scan = ...``, ``os.path.abspath = ...``: what runs is not what the source shows
                what = f"{dotted} changed (an attribute of an imported module or class)"
            elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
                  and MEMLIB_PATH.search(node.value)):
                what = f"memlib's code named in a string ({node.value.strip()[:60]!r}): what a string runs is not read"
            elif isinstance(node, ast.Attribute) and node.attr == "path" and _dotted(node.value) == "sys":
                what = "sys.path"
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and len(node.value) < 200:
                text = node.value.strip()
                if text.endswith(".py") and " " not in text:
                    what = f"a Python file named in the code ({text!r})"
                elif any(word in text for word in ("heldout", "held_out")):
                    what = f"a held-out split's name ({text!r})"
            elif (isinstance(node, ast.Call) and isinstance(node.func, (ast.Name, ast.Attribute))
                  and (node.func.id if isinstance(node.func, ast.Name) else node.func.attr) == "load"
                  and node.args and not isinstance(node.args[0], ast.Constant)):
                what = "a data set loaded by a name computed at run time"
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                modules = ([a.name for a in node.names] if isinstance(node, ast.Import)
                           else [node.module or ""] if node.level == 0 else ["(a relative import)"])
                for module in modules:
                    top = module.split(".")[0]
                    names = {a.name for a in node.names} if isinstance(node, ast.ImportFrom) else set()
                    private = sorted(n for n in names if n.startswith("_") and not n.startswith("__"))
                    full = [module] + [f"{module}.{name}" for name in sorted(names)]
                    if any(_under(m, d) for m in full for d in DYNAMIC_MODULES):
                        what = f"import {module}"
                    elif top == "memlib" and private:
                        what = f"memlib's internals (from {module} import {', '.join(private)})"
                    elif top == "memlib" and "*" in names:
                        what = f"from {module} import * (the names it binds are not followed)"
                    elif names & DYNAMIC_NAMES.get(module, set()):
                        what = f"from {module} import {', '.join(sorted(names & DYNAMIC_NAMES[module]))}"
                    elif module and not module.startswith("(") and _not_installed(top):
                        what = f"import {module} (a module neither installed nor released)"
                    elif module.startswith("("):
                        what = "a relative import"
            elif isinstance(node, ast.Call) and _magic(node):
                what = _magic(node)
            if what:
                findings.append(Finding(f"the notebook uses {what}", head))
    return _unique(findings)


#: A named tuple's public methods start with an underscore (Verdict._replace is no internal).
_NAMEDTUPLE_API = {"_make", "_replace", "_asdict", "_fields", "_field_defaults"}


def _memlib_names(bindings: list[_Binding]) -> set[str]:
    """The notebook's names for memlib's modules and objects: bound by an import (``import memlib.saves as s``:
    s), in the student's cells or the release's, or by a second name for one (``_S = s``)."""
    names = {"memlib"} | {name for b in bindings for name, path in b.imports.items() if _under(path, "memlib")}
    for _ in range(3):  # chains of second names: _T = _S = s
        names |= {name for b in bindings for name, dotted in b.aliases.items() if dotted.split(".")[0] in names}
    return names


def _magic(node: ast.Call) -> str:
    """'%run', '%load', ... when `node` is IPython's call for a magic that runs code from elsewhere."""
    if not (isinstance(node.func, ast.Attribute) and node.func.attr in ("run_line_magic", "run_cell_magic", "magic")):
        return ""
    if node.func.attr == "magic" and _dotted(getattr(node.func.value, "func", None) or node.func.value) != "get_ipython":
        return ""  # some other object's .magic(): only IPython's older spelling of run_line_magic counts
    if not node.args or not isinstance(node.args[0], ast.Constant):
        return "a magic named at run time"
    name = str(node.args[0].value)
    argument = str(node.args[1].value) if len(node.args) > 1 and isinstance(node.args[1], ast.Constant) else ""
    if name in HARMLESS_MAGICS or f"{name} {argument}".strip() in HARMLESS_MAGICS:
        return ""
    if name == "config" and _literal_config(argument):
        return ""
    return f"%{name}"


def _literal_config(argument: str) -> bool:
    """True for ``%config Class.trait`` or ``Class.trait = <a literal>`` (IPython runs any other value as code)."""
    match = CONFIG_ARGUMENT.match(argument)
    if match is None:
        return False
    if match.group("value") is None:
        return True
    try:
        ast.literal_eval(match.group("value").strip())
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return False
    return True


def _grader_code(qualified: str) -> bool:
    """`qualified` is the course's grading package, other than what its notebooks hand students and the checks
    (a check's own use is judged with the exercise's references)."""
    return (any(_under(qualified, m) for m in GRADER_MODULES) and qualified not in STUDENT_FACING
            and not _under(qualified, CHECK_PACKAGE))


def _annotations(node: ast.AST) -> list[ast.expr]:
    """The type annotations `node` carries itself (a function's arguments and return, an annotated name)."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        arguments = node.args
        every = [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs,
                 *([arguments.vararg] if arguments.vararg else []), *([arguments.kwarg] if arguments.kwarg else [])]
        return [a.annotation for a in every if a.annotation is not None] + ([node.returns] if node.returns else [])
    if isinstance(node, ast.AnnAssign):
        return [node.annotation]
    return []


_INSTALLED: dict[str, bool] = {}


def _not_installed(top: str) -> bool:
    if top not in _INSTALLED:
        try:
            _INSTALLED[top] = top in sys.builtin_module_names or importlib.util.find_spec(top) is not None
        except (ImportError, ValueError):
            _INSTALLED[top] = False
    return not _INSTALLED[top]


def _unique(findings: list[Finding]) -> list[Finding]:
    return list(dict.fromkeys(findings))  # in order, once each


def notebook_findings(nb: dict, assignment: Assignment, support_modules: Iterable[str] = ()
                      ) -> dict[str, list[Finding]]:
    """grade_id -> what its answer reaches that is not the student's own work, plus what the notebook hides.

    `nb` is the student's notebook as the grader read it (never run);
    `support_modules` are the release's own Python files (their imports are the course's).
    """
    release_sources = {str(c.get("source", "")).strip() for c in assignment.nb.cells if c.get("cell_type") == "code"}
    for module in support_modules:
        _INSTALLED[module] = True
    cells = _code_cells(nb, {graded.grade_id for graded in assignment.graded})
    index_of = {id(cell): i for i, cell in enumerate(nb.get("cells", []))}
    bindings, trees, unread = _bindings(cells, release_sources, [index_of[id(cell)] for cell in cells])
    references_of = _library_references(assignment)
    heldout = _heldout_splits()
    # the modules and classes that hold a reference (memlib.summarize, memlib.agent.Agent for Agent.step)
    holders = {".".join(ref.split(".")[:cut]) for refs in references_of.values() for ref in refs
               if _under(ref, "memlib") for cut in range(1, ref.count(".") + 1)}
    everywhere = unread + _dynamic_findings(trees, cells, bindings, holders)
    imported = _import_findings(trees, cells, references_of)
    found: dict[str, list[Finding]] = {}
    for graded in assignment.graded:
        try:
            expression = parse_python(graded_call(graded.source).answer, mode="eval")
        except (ValueError, SyntaxError):
            continue
        names = {node.id for node in ast.walk(expression) if isinstance(node, ast.Name)}
        # In Run All order only what runs before the check makes its answer: a cell after it (the
        # release's next demo binding a name the student's helper also has) is not read for this check.
        check_at = next((i for i, cell in enumerate(nb.get("cells", []))
                         if cell.get("cell_type") == "code" and _cell_grade_id(cell) == graded.grade_id), None)
        before = [b for b in bindings if check_at is None or b.position < check_at]
        own = _answer_findings(names, before, references_of.get(graded.grade_id, set()), heldout)
        seen = _unique(own + imported.get(graded.grade_id, []) + everywhere)
        if seen:
            found[graded.grade_id] = seen
    return found


def review_flags(findings: dict[str, list[Finding]], limit: int = 4) -> dict[str, list[str]]:
    """grade_id -> one review note naming what was seen (the first `limit` findings, and how many more)."""
    notes: dict[str, list[str]] = {}
    for grade_id, seen in findings.items():
        if not seen:
            continue
        # one note, one part of the reason: the findings are joined without the reason's "; "
        shown = ", also ".join(f.text() for f in seen[:limit])
        more = f", and {len(seen) - limit} more" if len(seen) > limit else ""
        notes[grade_id] = [f"review: read from the notebook's source: {shown}{more}"]
    return notes
