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

__all__ = ["ReferenceWatch", "is_library_file"]

_MEMLIB_DIR = str(Path(__file__).resolve().parents[1])
_LIBRARY_DIRS = tuple({str(Path(p).resolve()) for key in ("stdlib", "platstdlib", "purelib", "platlib")
                       if (p := sysconfig.get_paths().get(key))})


def is_library_file(filename: str) -> bool:
    """True for memlib's own files, the standard library and installed packages (not the student's code)."""
    if filename.startswith("<frozen"):
        return True
    if filename.startswith("<"):
        return False  # <ipython-input-...>, <string>, a mutant compiled from text
    return _under(filename, (_MEMLIB_DIR, *_LIBRARY_DIRS))


def _is_memlib_file(filename: str) -> bool:
    return not filename.startswith("<") and _under(filename, (_MEMLIB_DIR,))


def _under(filename: str, folders: tuple[str, ...]) -> bool:
    path = str(Path(filename).resolve())
    return any(path == d or path.startswith(d + os.sep) for d in folders)


class ReferenceWatch:
    """Notice, while a check runs, calls from the student's code into a reference implementation."""

    def __init__(self, references: Iterable[str]) -> None:
        self.references = tuple(references)
        self.codes: dict[Any, str] = {}
        self.classes: dict[type, str] = {}
        self.used: list[str] = []
        self._previous: tuple[Any, Any] | None = None  # the profilers put aside while the watch is on

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

    def _called_by_student(self, frame: Any) -> bool:
        """True when the code that called `frame` is the student's: not a library's, not the reference's own.

        A reference calling itself is not the student's call: a dataclass's generated
        ``__init__`` (file ``<string>``) calls its ``__post_init__`` whoever built it.
        """
        caller = frame.f_back
        # Past the standard library's and other packages' wrappers (functools.singledispatch, decorators,
        # operator and pydoc lookups) to the code that made the call. memlib's own code stops the walk: its
        # functions may call a reference for the student (the grader's handler, the course's helpers).
        while (caller is not None and caller.f_code not in self.codes
               and is_library_file(caller.f_code.co_filename) and not _is_memlib_file(caller.f_code.co_filename)):
            caller = caller.f_back
        return (caller is not None and caller.f_code not in self.codes
                and not is_library_file(caller.f_code.co_filename))

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code in self.codes and self._called_by_student(frame):
            self._note(self.codes[frame.f_code])

    def __enter__(self) -> "ReferenceWatch":
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
