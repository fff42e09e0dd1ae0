"""Every docstring example in memlib runs as a test: one case per module that has examples.

Each module's examples run in a copy of that module's own globals, with doctest's default
(exact) output matching; an example that needs a file, a server or a kernel carries
`# doctest: +SKIP`. New modules join by themselves (the list is walked from the package).
"""

import doctest
import importlib
import pkgutil
import types

import pytest

import memlib

def memlib_modules() -> list[str]:
    return ["memlib"] + sorted(info.name for info in pkgutil.walk_packages(memlib.__path__, "memlib."))


def docstring_examples(module: types.ModuleType) -> list[doctest.DocTest]:
    return [test for test in doctest.DocTestFinder().find(module, module.__name__) if test.examples]


def runs_an_example(module: types.ModuleType) -> bool:
    """Whether at least one example is not marked +SKIP (memlib.llm's all need a model server)."""
    return any(not example.options.get(doctest.SKIP)
               for test in docstring_examples(module) for example in test.examples)


def run_examples(module: types.ModuleType) -> tuple[doctest.TestResults, str]:
    """Run the module's examples; the runner's report of every failure, as text."""
    runner = doctest.DocTestRunner(optionflags=0)
    report: list[str] = []
    for test in docstring_examples(module):
        runner.run(test, out=report.append)
    return runner.summarize(verbose=False), "".join(report)


WITH_EXAMPLES = [name for name in memlib_modules()
                 if runs_an_example(importlib.import_module(name))]


@pytest.mark.parametrize("module_name", WITH_EXAMPLES)
def test_docstring_examples(module_name):
    result, report = run_examples(importlib.import_module(module_name))
    assert result.attempted > 0
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples in {module_name} failed:\n{report}"


def test_a_wrong_example_fails():
    module = types.ModuleType("memlib_example_probe", '>>> 1 + 1\n3\n>>> 2 * 2\n4\n')
    result, report = run_examples(module)
    assert (result.attempted, result.failed) == (2, 1)
    assert "Expected:\n    3\nGot:\n    2" in report


def test_the_walk_finds_the_modules():
    assert {"memlib.agent", "memlib.archival", "memlib.recall", "memlib.viz.widgets",
            "memlib.course.fallback"} <= set(WITH_EXAMPLES)
