"""Which code is the student's, and which calls from it reach memlib's reference implementations.

A check names the references of its exercise ("module:qualname"); while it runs, `ReferenceWatch` notes
every call into one of them whose caller is the student's code (`is_library_file` tells memlib's own
files, the standard library and installed packages from the student's). In the student's kernel the
check's own watch does this; under the grader, the kernel's side (`memlib.course.serve`) watches each
call the checker asks for. What is noted is evidence for the gradebook, never a verdict.
"""

from __future__ import annotations

import importlib
import os
import sys
import sysconfig
import threading
from pathlib import Path
from typing import Any, Iterable

__all__ = ["ReferenceWatch", "is_library_file", "notebook_namespace", "UNWATCHED_THREAD"]

_MEMLIB_DIR = str(Path(__file__).resolve().parents[1])
_LIBRARY_DIRS = tuple({str(Path(p).resolve()) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                       if (p := sysconfig.get_paths().get(key))})


def is_library_file(filename: str) -> bool:
    """True for memlib's own files, the standard library and installed packages (not the student's code)."""
    if filename.startswith("<frozen ") and filename.endswith(">"):
        # a module frozen into the interpreter (<frozen os>); a cell may be given any name (ipykernel takes
        # its code's file name from IPYKERNEL_CELL_NAME), so the name must be a loaded module that was frozen
        spec = getattr(sys.modules.get(filename[len("<frozen "):-1]), "__spec__", None)
        return getattr(spec, "origin", None) == "frozen"
    if filename.startswith("<"):
        return False  # <ipython-input-...>, <string>, a mutant compiled from text
    return _under(filename, (_MEMLIB_DIR, *_LIBRARY_DIRS))


def _under(filename: str, folders: tuple[str, ...]) -> bool:
    path = str(Path(filename).resolve())
    return any(path == d or path.startswith(d + os.sep) for d in folders)


#: What the kernel's side notes, beside the references' names, when the notebook had a thread of its own
#: running while the check called the answer: calls made there are not seen (a profiler is set per thread).
UNWATCHED_THREAD = "(a thread the notebook started was running, and calls made there are not watched)"


def notebook_namespace() -> dict | None:
    """The namespace a notebook's cells run in (IPython's user namespace), or None outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return shell.user_ns if shell is not None else None


class ReferenceWatch:
    """Notice, while a check runs, calls from the student's code into a reference implementation."""

    def __init__(self, references: Iterable[str], notebook: dict | None = None) -> None:
        self.references = tuple(references)
        #: the notebook's namespace: code whose globals it is is the student's, whatever its file is called
        self.notebook = notebook if notebook is not None else notebook_namespace()
        self.codes: dict[Any, str] = {}
        self.classes: dict[type, str] = {}
        self.used: list[str] = []
        self._previous: tuple[Any, Any] | None = None  # the profilers put aside while the watch is on
        self._boundary: Any = None  # the code of the frame that switched the watch on (`__enter__`)

    def _note(self, name: str) -> None:
        if name not in self.used:
            self.used.append(name)

    def inspect_answer(self, args: Iterable[Any]) -> None:
        """Note an answer that *is* a reference: its function, its class, a subclass or an instance."""
        for answer in args:
            self._inspect_function(answer)
            self._inspect_class(answer if isinstance(answer, type) else type(answer))
            if not isinstance(answer, type):
                # what the answer holds: a reference object built when its cell ran, a wrapped reference in __init__
                try:
                    held = list(vars(answer).values()) if hasattr(answer, "__dict__") else []
                except Exception:
                    held = []
                for value in held[:200]:
                    self._inspect_function(value)
                    self._inspect_class(type(value))

    def _inspect_class(self, cls: Any) -> None:
        """Note a class that is, or derives from, a reference; and a reference among its own attributes."""
        for base in getattr(cls, "__mro__", ()):
            if base in self.classes:
                self._note(self.classes[base])
            elif getattr(base, "__module__", "builtins") != "builtins" and not is_library_file(
                    getattr(sys.modules.get(base.__module__), "__file__", None) or ""):
                # the student's own class: a method that is a reference in a wrapper (partialmethod, ...)
                for value in list(vars(base).values()):
                    self._inspect_function(value)

    def _inspect_function(self, value: Any) -> None:
        """Note `value` when it is a reference, also inside wrappers (bound method, partial, staticmethod)."""
        try:  # a student's object may answer any attribute, or raise anything when asked
            for _ in range(8):
                code = getattr(value, "__code__", None)
                if code is not None and code in self.codes:
                    self._note(self.codes[code])
                    return
                inner = next((getattr(value, name) for name in ("_mock_wraps", "__func__", "func", "__wrapped__",
                                                            "__partialmethod__")
                              if getattr(value, name, None) is not None), None)
                if inner is None or inner is value:
                    return
                value = inner
        except Exception:
            return

    def _resolve(self) -> None:
        for spec in self.references:
            module_name, _, qualname = spec.partition(":")
            try:
                target: Any = importlib.import_module(module_name)
                for part in qualname.split("."):
                    target = getattr(target, part)
            except (ImportError, AttributeError):
                continue
            if isinstance(target, type):
                self.classes[target] = spec.replace(":", ".")
            functions = ([v for v in vars(target).values()] if isinstance(target, type) else [target])
            for function in functions:
                function = getattr(function, "__func__", function)
                code = getattr(function, "__code__", None)
                if code is not None:
                    self.codes[code] = spec.replace(":", ".")

    def is_students(self, frame: Any) -> bool:
        """Whether `frame` runs the student's code: code of the notebook's namespace, or outside the libraries."""
        return frame.f_globals is self.notebook or not is_library_file(frame.f_code.co_filename)

    def _called_by_student(self, frame: Any) -> bool:
        """True when the code that called `frame` is the student's: not a library's, not the reference's own.

        A reference calling itself is not the student's call: a dataclass's generated
        ``__init__`` (file ``<string>``) calls its ``__post_init__`` whoever built it.
        """
        caller = frame.f_back
        # Past all library code (functools.singledispatch, decorators, operator and pydoc lookups, memlib's
        # public code: a timer that calls what it was handed, an archival store that searches with a
        # reference's index; the course's own helpers handed a reference) to the code that made the call: an
        # answer that reaches a reference through them reaches it all the same. The walk ends at the frame
        # that switched the watch on (the check's wrapper in the student's kernel, whose check computes what
        # is expected with the references; the grader's handler that calls the answer: an answer that *is*
        # a reference is noted by `inspect_answer`).
        while caller is not None and caller.f_code not in self.codes:
            if caller.f_code is self._boundary:
                return False
            if self.is_students(caller):
                return True
            caller = caller.f_back
        return False

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in self.codes and self._called_by_student(frame):
            self._note(self.codes[frame.f_code])

    def __enter__(self) -> "ReferenceWatch":
        self._boundary = sys._getframe(1).f_code  # the code that switched the watch on: the walk's end
        self._resolve()
        if self.codes:  # nothing to watch for: no hook, no cost
            self._install()
        return self

    def _install(self) -> None:
        """Watch this thread and every thread started while the watch is on. A profiler the student's code
        set (cProfile, sys.setprofile) is put aside until the watch ends: it must not switch the watch off."""
        self._previous = sys.getprofile(), threading.getprofile()
        sys.setprofile(self._profile)
        threading.setprofile(self._profile)

    def __exit__(self, *exc: Any) -> None:
        if self._previous is None:
            return
        before, threads_before = self._previous
        if before is None or callable(before):
            sys.setprofile(before)
        elif callable(getattr(before, "enable", None)):
            before.enable()  # cProfile's profiler hooks in from C: sys.setprofile cannot hand it back
        else:
            sys.setprofile(None)
        threading.setprofile(threads_before)
