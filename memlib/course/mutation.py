"""Mutation testing of the graded checks: does each check reject a slightly wrong reference solution?

For every exercise, the reference solution is read from its solution
notebook (the ``### BEGIN SOLUTION`` regions of the exercise cell), mutated
one small change at a time at the AST level, and handed to the exercise's
check. A mutant the check accepts "survives"; a surviving mutant is either a
leak in the check (fix the check) or *equivalent* (it computes the same
thing, listed in `EQUIVALENT` with the reason). Operators:

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
import io
import json
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from memlib.course.checking import CheckFailed
from memlib.course.release import BEGIN_RE, END_RE

__all__ = ["Exercise", "Mutant", "Report", "EXERCISES", "EQUIVALENT", "mutants", "run", "main"]

ROOT = Path(__file__).resolve().parents[2]
#: Seconds a mutant may run inside its check before it counts as killed (an endless loop).
MUTANT_TIMEOUT_S = 20


@dataclass(frozen=True)
class Exercise:
    """Where an exercise's reference lives and how its check is called."""

    grade_id: str
    notebook: str  # solutions/<notebook>.ipynb
    check: str  # name in memlib.course.checks
    answer: Callable[[dict], Any]  # namespace of the executed cell -> what the graded cell passes
    setup: str = ""  # what earlier cells of the notebook define that the exercise cell uses
    setup_cells: tuple[str, ...] = ()  # ids of earlier solution cells to run first (after `setup`)


EXERCISES: dict[str, Exercise] = {e.grade_id: e for e in (
    Exercise("01-token-budget", "01_context_window", "check_token_budget", lambda ns: ns["how_many_fit"]),
    Exercise("02-summarizer", "02_eviction_summaries", "check_summarizer", lambda ns: ns["MySummarizer"]()),
    Exercise("03-bm25", "03_archival_bm25", "check_bm25", lambda ns: ns["bm25_scores"]),
    Exercise("04-page-fault", "04_memory_tools", "check_page_fault", lambda ns: ns["page_fault_calls"]),
    Exercise("05-policy", "05_who_decides", "check_policy", lambda ns: ns["MyDecider"],
             setup_cells=("05-24-solution-helpers",)),
    Exercise("06-citations", "06_citations", "check_citation_contract", lambda ns: ns["answer_with_citations"],
             setup="from memlib.citations import CitedAnswer, cite"),
    Exercise("07-guard", "07_memory_poisoning", "check_guard", lambda ns: ns["my_scan"],
             setup="from memlib import datasets\nfrom memlib.guard import Verdict, reveal\nnotes = datasets.load('poisoning')",
             setup_cells=("07-20-toolbox-code",)),
    Exercise("08-typed-core-memory", "08_typed_core_memory", "check_typed_core_memory",
             lambda ns: ns["TypedCoreMemory"],
             setup="import json\nimport jsonschema\nfrom memlib.datasets import load\nexamples = load('core_memory')"),
    Exercise("09-consolidation", "09_governed_memory", "check_consolidation", lambda ns: ns["consolidation_pass"]),
)}

_UNEXERCISED_RESERVE = ('not exercised, rather than equivalent: no scenario of the check holds more unsaved '
                        'statements under pressure than the cap leaves room for, so every reserve from 0 to 5 makes '
                        'the same calls (measured); grading the reserve needs a scenario whose saves alone exhaust '
                        'the cap')
_EMPTY_CORPUS = ('not exercised, rather than equivalent: the stub does not say what an empty corpus gives '
                 '(rank-bm25 itself raises), so the check does not ask')
_FAILED_RESULT_FREE = ('what follows a Failed result is free within the stub (a reply, not a loop or an exception): '
                       'without the branch the solution tries conversation_search after the failed archival search '
                       'and answers with the message that holds the answer, and replies to the failed core edit '
                       'as to any statement; independently written correct deciders do both')
_EXCERPT_LENGTH = ('how many characters of the matched words a reason quotes is free: the stub asks for a '
                   'readable reason, not its length')

#: (grade_id, mutant description) -> why the mutant computes the same thing as the reference.
#: Each was read and judged by hand; a new survivor is either a leak to fix in the check or a new entry here.
EQUIVALENT: dict[tuple[str, str], str] = {
    ('02-summarizer', 'drop: if score(candidates[i]) <= 0:     continue -> pass'):
        'which sentences fill the budget left over after the facts is free: the stub fixes the budget and the facts, not which small talk is dropped',
    ('02-summarizer', "negate: line[2:] if line.startswith('- ') else line -> line[2:] if not line.startswith('- ') else line"):
        "the line format of a summary is free; the previous summary's facts survive with or without the '- ' prefix stripped",
    ('02-summarizer', 'compare: score(candidates[i]) <= 0 -> score(candidates[i]) < 0'):
        'which sentences fill the budget left over after the facts is free: the stub fixes the budget and the facts, not which small talk is dropped',
    ('02-summarizer', 'drop: continue -> pass'):
        'which sentences fill the budget left over after the facts is free: the stub fixes the budget and the facts, not which small talk is dropped',
    ('02-summarizer', "compare: count('\\n'.join(('- ' + candidates[j] for j in trial))) <= max_tokens -> count('\\n'.join(('- ' + candidates[j] for j in trial))) < max_tokens"):
        'the contract is count(summary) <= max_tokens: a summary one token shorter than allowed also keeps it',
    ('02-summarizer', 'constant: 2 -> 3'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 2 -> 1'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 0 -> 1'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 0 -> -1'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 3 -> 4'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 3 -> 2'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 2 -> 3 (#2)'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 2 -> 1 (#2)'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 1 -> 2'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('02-summarizer', 'constant: 1 -> 0'):
        "a weight of the scoring heuristic: the heuristic is free (the check asks for at least half the reference's fact retention, not for this heuristic)",
    ('03-bm25', 'drop: if n_docs == 0:     return [] -> pass'): _EMPTY_CORPUS,
    ('03-bm25', 'return: return [] -> return None'): _EMPTY_CORPUS,
    ('03-bm25', 'drop: return [] -> pass'): _EMPTY_CORPUS,
    ('03-bm25', 'constant: 0 -> -1'): _EMPTY_CORPUS,
    ('03-bm25', 'constant: 0.0 -> 1.0'):
        'the floor of an empty vocabulary: only reached when every document is empty, where avgdl = 0 and BM25 (rank_bm25 too) is undefined',
    ('03-bm25', 'constant: 0.0 -> -1.0'):
        'the floor of an empty vocabulary: only reached when every document is empty, where avgdl = 0 and BM25 (rank_bm25 too) is undefined',
    ('06-citations', 'negate: terms - common or terms -> terms - common or not terms'):
        'differs only when every content word of the question is in more than a quarter of the records (then it crashes on len(False)); no question of the check, nor of the course, is like that',
    ('06-citations', 'swap-args: max(1, math.ceil(0.6 * len(informative))) -> max(math.ceil(0.6 * len(informative)), 1)'):
        'max is symmetric',
    ('06-citations', 'constant: 1 -> 0'):
        'the minimum of 1 needed word matters only when the question has no informative word, and then no record overlaps either (overlap > best_overlap = 0 is required anyway)',
    ('06-citations', 'constant: 0 -> -1'):
        'best_overlap starts the search; the required overlap is at least 1, so starting from 0 or -1 selects the same hit',
    ('06-citations', 'compare: sum((t in w for w in words_of.values())) > 0.25 * len(records) -> sum((t in w for w in words_of.values())) >= 0.25 * len(records)'):
        'a count of records is an integer and 0.25 x 10 records is 2.5: > and >= agree',
    ('06-citations', 'constant: 5 -> 6'):
        'how many search hits to consider is free: the supporting record is the first hit for every question of the check',
    ('06-citations', 'constant: 5 -> 4'):
        'how many search hits to consider is free: the supporting record is the first hit for every question of the check',
    ('06-citations', 'compare: overlap > best_overlap -> overlap >= best_overlap'):
        'which of two equally supported records to cite is free; no question of the check has a tie',
    ('06-citations', 'compare: len(t) > 1 -> len(t) >= 1'):
        "one-letter tokens are the possessive 's', in more than a quarter of the records, so they are excluded as common anyway",
    ('06-citations', 'constant: 1 -> 2 (#2)'):
        "the threshold is free within the contract: a question whose only informative word is the answer's ('Where is the allotment?') is covered; two-letter words are never the only evidence in the check's questions",
    ('06-citations', 'constant: 1 -> 0 (#2)'):
        'the minimum of 1 needed word matters only when the question has no informative word, and then no record overlaps either (overlap > best_overlap = 0 is required anyway)',
    ('08-typed-core-memory', "drop: if label not in self.blocks:     raise CoreMemoryError(f'no block {... -> pass"):
        'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
    ('08-typed-core-memory', "drop: if label not in self.blocks:     raise CoreMemoryError(f'no block {... -> pass (#2)"):
        'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
    ('08-typed-core-memory', "drop: if label not in self.blocks:     raise CoreMemoryError(f'no block {... -> pass (#3)"):
        'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
    ('08-typed-core-memory', 'negate: if block[\'description\']:     attributes += f\'\'\' description="{block... -> if not block[\'description\']:     attributes += f\'\'\' description="{b...'):
        "whether render() shows each block's description is free in the stub (its label, value, fill level and read-only flag are fixed)",
    ('08-typed-core-memory', 'drop: if block[\'description\']:     attributes += f\'\'\' description="{block... -> pass'):
        "whether render() shows each block's description is free in the stub (its label, value, fill level and read-only flag are fixed)",
    ('08-typed-core-memory', "drop: raise CoreMemoryError(f'no block {label!r}; known blocks: {list(sel... -> pass"):
        'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
    ('08-typed-core-memory', "drop: raise CoreMemoryError(f'no block {label!r}; known blocks: {list(sel... -> pass (#2)"):
        'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
    ('08-typed-core-memory', "drop: raise CoreMemoryError(f'no block {label!r}; known blocks: {list(sel... -> pass (#3)"):
        'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
    ('08-typed-core-memory', 'drop: attributes += f\'\'\' description="{block[\'description\']}"\'\'\' -> pass'):
        "whether render() shows each block's description is free in the stub (its label, value, fill level and read-only flag are fixed)",
    ('08-typed-core-memory', "swap-args: DESCRIPTIONS.get(label, f'The {label} section.') -> DESCRIPTIONS.get(f'The {label} section.', label)"):
        'any non-empty description is accepted: the stub fixes that persona and human have one, not its wording',

    ('09-consolidation', 'swap-args: overlap(record.id, best.id) -> overlap(best.id, record.id)'):
        'overlap is symmetric: shared words and union of two sets',
    ('09-consolidation', 'swap-args: overlap(record.id, old.id) -> overlap(old.id, record.id)'):
        'overlap is symmetric: shared words and union of two sets',
    ('09-consolidation', 'constant: 0.0 -> 1.0'):
        'the value for two records without a single word; every record the check uses has words',
    ('09-consolidation', 'constant: 0.0 -> -1.0'):
        'the value for two records without a single word; every record the check uses has words',
    ('09-consolidation', 'compare: score >= 0.1 -> score > 0.1'):
        'the thresholds are free (the check grades the decisions against the links on precision and recall); no pair of records scores exactly the threshold',
    ('09-consolidation', 'compare: score >= 0.2 -> score > 0.2'):
        'the thresholds are free (the check grades the decisions against the links on precision and recall); no pair of records scores exactly the threshold',
    ('09-consolidation', 'constant: 1 -> 2'):
        'a weight of the idf-weighted overlap: how similarity is computed is free; the check grades the decisions against the links on thresholds, not this formula',
    ('09-consolidation', 'constant: 1 -> 2 (#2)'):
        'a weight of the idf-weighted overlap: how similarity is computed is free; the check grades the decisions against the links on thresholds, not this formula',
    ('09-consolidation', 'constant: 1 -> 0 (#2)'):
        'a weight of the idf-weighted overlap: how similarity is computed is free; the check grades the decisions against the links on thresholds, not this formula',
    ('09-consolidation', 'constant: 0 -> 1'):
        'a weight of the idf-weighted overlap: how similarity is computed is free; the check grades the decisions against the links on thresholds, not this formula',
    ('09-consolidation', 'compare: end < record.valid_to -> end <= record.valid_to'):
        'expiring a record at the instant it already ends leaves valid_to as it was; the extra expire transition is true (its stated end came too)',
    ('05-policy', 'compare: view.calls_left >= 4 -> view.calls_left > 4'):
        _UNEXERCISED_RESERVE,
    ('05-policy', 'constant: 4 -> 5'):
        _UNEXERCISED_RESERVE,
    ('05-policy', 'constant: 4 -> 3'):
        _UNEXERCISED_RESERVE,
    ('05-policy', "drop: if last is not None and (not last.ok):     return reply(f'Sorry, a ... -> pass"):
        _FAILED_RESULT_FREE,
    ('05-policy', "drop: return reply(f'Sorry, a memory operation failed: {last.message}') -> pass"):
        _FAILED_RESULT_FREE,
    ('07-guard', 'constant: 40 -> 41'):
        _EXCERPT_LENGTH,
    ('07-guard', 'constant: 40 -> 39'):
        _EXCERPT_LENGTH,
    ('07-guard', 'constant: 40 -> 41 (#2)'):
        _EXCERPT_LENGTH,
    ('07-guard', 'constant: 40 -> 39 (#2)'):
        _EXCERPT_LENGTH,
}


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


def _solution_cells(exercise: Exercise, root: Path) -> list[tuple[str | None, str, str]]:
    """(id, cell type, source) of every cell of the exercise's solution notebook."""
    path = root / "solutions" / f"{exercise.notebook}.ipynb"
    if not path.exists():
        raise FileNotFoundError(f"{path} not found: mutation testing reads the solution notebooks of a "
                                "checkout; run it from one (python -m memlib.course.mutation)")
    nb = json.loads(path.read_text(encoding="utf-8"))
    return [(cell.get("id"), cell["cell_type"],
             "".join(cell["source"]) if isinstance(cell["source"], list) else cell["source"]) for cell in nb["cells"]]


def exercise_cell(exercise: Exercise, root: Path = ROOT) -> str:
    """The source of the exercise cell (the one with solution regions) of the solution notebook
    in the checkout at `root` (default: the one memlib runs from)."""
    for _, kind, source in _solution_cells(exercise, root):
        if kind == "code" and any(BEGIN_RE.match(line) for line in source.splitlines()):
            return source
    raise LookupError(f"solutions/{exercise.notebook}.ipynb has no exercise cell")


def setup_source(exercise: Exercise, root: Path = ROOT) -> str:
    """`exercise.setup`, then the source of each of its `setup_cells`, in order."""
    if not exercise.setup_cells:
        return exercise.setup
    by_id = {cell_id: source for cell_id, _, source in _solution_cells(exercise, root)}
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
    import memlib.course.checks as checks

    namespace = {} if namespace is None else namespace
    namespace.update({"__name__": "__mutant__", "_mut_state": {}})
    with contextlib.redirect_stdout(io.StringIO()):  # a setup cell's own printout is not the report's
        exec(compile(_HELPERS + setup_source(exercise), "<setup>", "exec"), namespace)
    check = getattr(checks, exercise.check)
    out = io.StringIO()
    try:
        with _time_limit(MUTANT_TIMEOUT_S), contextlib.redirect_stdout(out):
            exec(compile(source, "<mutant>", "exec"), namespace)
            check(exercise.answer(namespace))
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
        elif (grade_id, mutant.description) in EQUIVALENT:
            report.equivalent.append((mutant, EQUIVALENT[(grade_id, mutant.description)]))
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
    from memlib.course.grade import _Progress

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
