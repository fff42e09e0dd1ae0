"""A notebook cell's code as the kernel runs it, for the grader's reading (`memlib.course.grading.provenance`).

IPython turns magics into calls (``%time f()`` into ``get_ipython().run_line_magic('time', 'f()')``); the
reading parses what the kernel runs, with the code of the magics that run Python read in place.
"""

from __future__ import annotations

import ast
import re
from typing import Callable, cast

from memlib._util import parse_python

__all__ = ["parse_cell", "NotTransformed", "TRANSFORM_LINE_CHARS"]

#: Line magics whose argument is Python that runs in the notebook: read as code.
_CODE_MAGICS = {"time", "timeit", "prun"}

#: Cell magics that run their body as Python in the notebook: the body is read as the cell.
_PYTHON_CELL_MAGICS = ("%%time", "%%timeit", "%%capture", "%%prun")


#: IPython's transformer tokenizes the cell, and on Python 3.12 each token keeps its whole line: a cell that needs
#: it and has a line longer than this is not transformed but flagged (its memory grows with the line's square).
TRANSFORM_LINE_CHARS = 4_000


class NotTransformed(Exception):
    """A cell with IPython syntax that the reading does not turn into Python (see TRANSFORM_LINE_CHARS)."""


def _python(source: str) -> str:
    """The cell as the kernel runs it: IPython's magics turned into calls."""
    source = _cleaned(source)
    first, _, body = source.lstrip().partition("\n")
    if first.split(" ")[0] in _PYTHON_CELL_MAGICS:
        # the first line runs too: %%timeit's setup, %%prun's statement
        code = code_in(first.split(" ", 1)[1] if " " in first else "")
        source = f"{code}\n{body}" if code else body
    try:
        parse_python(source)
        return source  # plain Python: IPython leaves it as it is
    except (SyntaxError, ValueError):
        pass  # (too deep: RecursionError goes to the caller, which says so)
    if max(map(len, source.splitlines()), default=0) > TRANSFORM_LINE_CHARS:
        raise NotTransformed
    source = _one_line_forms(source)
    try:
        from IPython.core.inputtransformer2 import TransformerManager

        return TransformerManager().transform_cell(source)
    except Exception:  # IPython missing or a cell it cannot transform: read it as plain Python
        return source


def _cleaned(source: str) -> str:
    """IPython's clean-up of every cell, Python or not: prompts (``>>> ``, ``In [1]: ``) stripped at line starts,
    even inside a string, and a common indent removed. The reading must see what the kernel runs."""
    try:
        from IPython.core.inputtransformer2 import TransformerManager
    except ImportError:  # no IPython: no kernel either
        return source
    lines = (source if source.endswith("\n") else source + "\n").splitlines(keepends=True)
    for transform in TransformerManager().cleanup_transforms:
        lines = cast(Callable[[list[str]], list[str]], transform)(lines)
    return "".join(lines)


def code_in(argument: str) -> str | None:
    """The Python in a magic's argument, after its options (``-n1 -r1``, ``-s cumulative``): the code starts right
    after the last leading option or after that option's value. Two parses at most, whatever the line's length."""
    words = list(re.finditer(r"\S+", argument))
    at = 0
    while at < len(words) and words[at].group().startswith("-"):
        at += 1
        if at + 1 < len(words) and not words[at].group().startswith("-") and words[at + 1].group().startswith("-"):
            at += 1  # the option's value, another option after it
    for start in words[at:at + 2]:
        try:
            parse_python(argument[start.start():])
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        return argument[start.start():]
    return None


def _one_line_forms(source: str) -> str:
    """A one-line cell as IPython runs it when it is no Python: ``time CODE`` is ``%time CODE`` (automagic),
    and ``/f x``, ``,f a b``, ``;f a b`` call f (auto-call escapes, on in every kernel). Only one-line cells:
    IPython applies these to no other."""
    line = source.strip()
    if "\n" in line or not line:
        return source
    if line[0] in "/,;":
        return f"%autocall {line}"  # read as a magic the reading names: the call's code is not in the source
    word = line.split(None, 1)[0]
    return f"%{line}" if word in _line_magics() else source


_LINE_MAGICS: set[str] = set()


def _line_magics() -> set[str]:
    """The names of IPython's own line magics (what automagic turns a cell's first word into)."""
    if not _LINE_MAGICS:
        try:
            import inspect

            from IPython.core import magics

            for _, kind in inspect.getmembers(magics, inspect.isclass):
                table = getattr(kind, "magics", None)
                _LINE_MAGICS.update(table.get("line", {}) if isinstance(table, dict) else ())
        except ImportError:  # no IPython: no kernel to run such a cell either
            pass
    return _LINE_MAGICS


class _ReadMagics(ast.NodeTransformer):
    """Put the code of ``%time CODE`` (IPython's ``run_line_magic('time', 'CODE')``) where the call is."""

    @staticmethod
    def _code(node: ast.AST) -> str | None:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr == "run_line_magic" and len(node.args) >= 2):
            return None
        name, argument = node.args[0], node.args[1]
        if (isinstance(name, ast.Constant) and name.value in _CODE_MAGICS
                and isinstance(argument, ast.Constant) and isinstance(argument.value, str)):
            return code_in(argument.value)
        return None

    def visit_Expr(self, node: ast.Expr) -> ast.AST | list[ast.stmt]:
        code = self._code(node.value)
        if code is not None:
            try:
                return [self.visit(statement) for statement in parse_python(code).body]
            except (SyntaxError, ValueError):
                return node
        return self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> ast.AST:
        code = self._code(node)
        if code is not None:
            try:
                return self.visit(parse_python(code, mode="eval").body)
            except (SyntaxError, ValueError):
                return node
        return self.generic_visit(node)


def parse_cell(source: str) -> ast.Module:
    """The cell's code as the kernel runs it, with the code of magics that run Python read in place."""
    return ast.fix_missing_locations(_ReadMagics().visit(parse_python(_python(source))))
