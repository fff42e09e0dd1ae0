"""memlib's layering: no import cycles between its modules and no module over 800 lines.

Every import of a memlib module counts, at the top of a file or inside a function:
an import inside a function that only dodges a cycle still ties the two modules
together. The graph is read with `ast`, so nothing is imported to build it.
Importing `memlib.a.b` from outside the package `memlib.a` also runs
`memlib/a/__init__.py`, so that import is an edge to the package too.
The one lazy import memlib keeps on purpose, the optional PostgreSQL driver
(psycopg), is not a memlib module and so never enters the graph.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "memlib"
MAX_LINES = 800


@dataclass(frozen=True)
class Import:
    """One import statement of a memlib module: who imports what, and where."""

    importer: str
    imported: str
    path: Path
    line: int

    def __str__(self):
        return f"{self.path.relative_to(PACKAGE.parent)}:{self.line} ({self.importer} -> {self.imported})"


def module_files() -> dict[str, Path]:
    """Every memlib module by its dotted name (a package by its __init__.py)."""
    files = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        files[".".join(parts)] = path
    return files


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The longest prefix of a dotted name that is a memlib module, or None."""
    parts = name.split(".")
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def _targets(node: ast.AST, importer: str, is_package: bool, modules: dict[str, Path]) -> list[str]:
    """The memlib modules one import statement loads (each name of `from x import a, b` counted)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        assert isinstance(node, ast.ImportFrom)
        base = node.module or ""
        if node.level:
            # A relative import counts from the importer's package (a package is its own).
            package = importer.split(".") if is_package else importer.split(".")[:-1]
            package = package[:len(package) - (node.level - 1)]
            base = ".".join(package + ([base] if base else []))
        # `from pkg import name` loads pkg.name when that is a module, else pkg itself.
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base for alias in node.names]
    found = []
    for name in names:
        target = _resolve(name, modules)
        if target is None:
            continue
        found.append(target)
        # Importing a.b.c from outside the package a.b runs a.b's __init__ too.
        parts = target.split(".")
        for end in range(1, len(parts)):
            parent = ".".join(parts[:end])
            if parent in modules and not (importer == parent or importer.startswith(parent + ".")):
                found.append(parent)
    return found


def imports() -> list[Import]:
    """Every import of a memlib module by a memlib module, top-level and inside functions."""
    modules = module_files()
    found: set[Import] = set()
    for importer, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _targets(node, importer, path.name == "__init__.py", modules):
                    if target != importer:
                        found.add(Import(importer, target, path, node.lineno))
    return sorted(found, key=lambda e: (e.importer, e.line, e.imported))


def cycles(edges: list[Import]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan's algorithm), sorted."""
    graph: dict[str, set[str]] = {}
    for edge in edges:
        graph.setdefault(edge.importer, set()).add(edge.imported)
        graph.setdefault(edge.imported, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(components)


def line_counts() -> dict[str, int]:
    """Lines of every memlib .py file by module name (data files are not code)."""
    return {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in module_files().items()}


def describe(component: list[str], edges: list[Import]) -> str:
    """A cycle with the imports that close it, file:line each."""
    inside = set(component)
    closing = sorted((e for e in edges if e.importer in inside and e.imported in inside),
                     key=lambda e: (e.importer, e.line, e.imported))
    return " <-> ".join(component) + "\n" + "\n".join(f"    {edge}" for edge in closing)


def test_the_graph_sees_every_kind_of_import():
    # The reader itself must see what it claims: a top-level import, one inside a
    # function, a relative one and the package's __init__; else the tests below prove nothing.
    edges = {(e.importer, e.imported) for e in imports()}
    assert ("memlib.viz", "memlib.viz.figures") in edges            # top level, package __init__
    assert ("memlib.course.checks", "memlib.course.checking") in edges
    assert any(a == "memlib.__main__" for a, _ in edges)             # __main__ imports inside main()
    assert all(b.startswith("memlib") for _, b in edges)
    assert not any(b == "psycopg" or b.startswith("psycopg.") for _, b in edges)


def test_the_cycle_finder_finds_a_cycle_and_names_the_import():
    edges = [Import("memlib.a", "memlib.b", PACKAGE / "a.py", 3), Import("memlib.b", "memlib.c", PACKAGE / "b.py", 7),
             Import("memlib.c", "memlib.a", PACKAGE / "c.py", 12), Import("memlib.c", "memlib.d", PACKAGE / "c.py", 1)]
    assert cycles(edges) == [["memlib.a", "memlib.b", "memlib.c"]]
    assert "memlib/c.py:12 (memlib.c -> memlib.a)" in describe(cycles(edges)[0], edges)
    assert cycles(edges[:2]) == []


def test_no_import_cycles():
    edges = imports()
    found = cycles(edges)
    assert not found, "import cycles in memlib (the imports that close each):\n" + "\n".join(
        describe(component, edges) for component in found)


def test_no_module_over_800_lines():
    counts = line_counts()
    too_long = {name: n for name, n in counts.items() if n > MAX_LINES}
    assert not too_long, f"memlib modules over {MAX_LINES} lines: {too_long}"
