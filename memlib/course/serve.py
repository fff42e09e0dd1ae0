"""The student's side of a graded call: run in their kernel, answer in plain data.

While grading, the grader does not run a graded cell's check in the
student's kernel. It sends the kernel small requests instead, each one an
``execute_request`` whose code calls this module: `answer` evaluates the
answer expression of the graded cell (``bm25_scores``, ``MySummarizer()``)
in the notebook's namespace and prints ``<nonce><json>``; `loop` then asks
for requests with ``input()``, and `handle` runs each one: a call of a method
of an answer (or of what an answer returned) with arguments rebuilt from
data, or an attribute read. Each reply travels in the prompt of the next
``input()``: a value copied as data (`memlib.course.wire`), a handle for an
object that stays here, or the error the call raised. An empty line ends the
loop.

Nothing here is trusted by the grader: this module runs in a kernel the
student controls, so the student may replace it, and the checker treats what
it prints as data to validate, never as a verdict. It keeps the handles'
objects alive between calls and notes, for the gradebook's review note, calls
from the student's code into reference implementations (evidence, not proof:
code in this kernel can turn the note off).
"""

from __future__ import annotations

import sys
import threading
import traceback
from typing import Any

from memlib.course import wire
from memlib.course.watch import UNWATCHED_THREAD, ReferenceWatch, is_library_file

__all__ = ["answer", "loop", "handle"]

_OBJECTS: dict[int, Any] = {}
#: The kernel's own threads: the grader's prelude imports this module before any cell of the notebook runs.
_KERNEL_THREADS = frozenset(sys._current_frames())
#: The kernel's threads that start after the prelude, by class: pyzmq's garbage collector of large messages
#: (seen under Colab's pins). Only these: a package's class is no proof (IPython's background jobs run what
#: a notebook hands them).
_LATE_KERNEL_THREADS = (("zmq.utils.garbage", "GarbageCollectorThread"),)


def _kernels(thread: threading.Thread) -> bool:
    """Whether `thread` is one the kernel starts late: its class exactly one of `_LATE_KERNEL_THREADS`, found
    by name in its module, its ``run`` not replaced on the instance."""
    cls = type(thread)
    module = sys.modules.get(cls.__module__)
    return ((cls.__module__, cls.__qualname__) in _LATE_KERNEL_THREADS and module is not None
            and vars(module).get(cls.__qualname__) is cls and "run" not in vars(thread))


def _notebook_threads() -> bool:
    """Whether a thread the notebook started is alive (besides the one running this)."""
    threads = {thread.ident: thread for thread in threading.enumerate()}
    others = set(sys._current_frames()) - _KERNEL_THREADS - {threading.get_ident()}
    return any(ident not in threads or not _kernels(threads[ident]) for ident in others)


def _handle(value: Any) -> dict:
    for key, held in _OBJECTS.items():
        if held is value:
            break
    else:
        key = len(_OBJECTS) + 1
        _OBJECTS[key] = value
    kind = "class" if isinstance(value, type) else "function" if callable(value) else "object"
    name = getattr(value, "__qualname__", None) if kind != "object" else type(value).__qualname__
    return {"$": "handle", "id": key, "kind": kind, "name": str(name or type(value).__qualname__)[:200]}


def _object(data: dict) -> Any:
    try:
        return _OBJECTS[data["id"]]
    except KeyError:
        raise wire.WireError(f"no object {data['id']} in this kernel") from None


def _student_frame(error: BaseException) -> tuple[str, int, str] | None:
    for frame in reversed(traceback.extract_tb(error.__traceback__)):
        if not is_library_file(frame.filename) and frame.filename != __file__:
            return (frame.name, frame.lineno or 0, (frame.line or "").strip())
    return None


def _sized(text: str) -> str:
    """`text`, or an error reply when the grader would refuse it as too large (said here, where it is cheap)."""
    try:
        wire.check_size(text)
    except wire.WireError as error:
        return wire.dumps({"error": wire.encode_error(wire.WireError(f"your answer returned {error}"))})
    return text


def _reply(nonce: str, message: dict) -> None:
    try:
        text = _sized(wire.dumps(message))
    except (TypeError, ValueError) as error:
        text = wire.dumps({"error": wire.encode_error(wire.WireError(f"the reply could not be written: {error}"))})
    sys.stdout.write("\n" + nonce + text + "\n")
    sys.stdout.flush()


_WATCHED: dict[tuple[str, ...], tuple[dict, dict]] = {}  # references -> (their codes, their classes)


class _Watch(ReferenceWatch):
    """Notices calls from the student's code into listed references or into any code of `modules`."""

    def __init__(self, codes: dict, classes: dict, modules: list[str]) -> None:
        super().__init__(())
        self.codes, self.classes, self.modules = codes, classes, modules

    def _profile(self, frame: Any, event: str, arg: Any) -> None:
        if event != "call":
            return
        code = frame.f_code
        # any code of a check module counts: a private helper there, or a function it returns, may be correct.
        # Nothing of the student's runs here (calls made inside a profile hook are not seen): `__name__` is
        # read only when it is a plain str
        module = frame.f_globals.get("__name__", "")
        module = module if type(module) is str else ""
        name = self.codes.get(code) or (f"{module}.{code.co_name} (the course's own code)"
                                        if _courses(module, self.modules) else None)
        if name and self._called_by_student(frame):
            self._note(name)

    def __enter__(self) -> "_Watch":
        self._boundary = sys._getframe(1).f_code  # `handle`, which calls the answer: the walk's end
        self._install()  # (the codes are resolved once per list of references, by _watch)
        return self


#: The course's code an answer is handed and may call: the checks' doubles (a recording summarizer, a
#: scripted decider). Any other of the course's code an answer calls is noted.
_HANDED = "memlib.course.doubles"


def _courses(module: str, modules: list[str]) -> bool:
    """Whether `module` is the course's code (the check's modules, or anything of memlib.course but the doubles)."""
    def under(name: str) -> bool:
        return module == name or module.startswith(name + ".")
    return any(under(m) for m in (*modules, "memlib.course")) and not under(_HANDED)


def _watch(references: list[str], modules: list[str]) -> _Watch:
    """A watch for `references` (resolved once per list) and for the `modules`
    (the check's own module and memlib's check package)."""
    key = tuple(references)
    if key not in _WATCHED:
        found = ReferenceWatch(references)
        found._resolve()
        _WATCHED[key] = found.codes, found.classes
    return _Watch(*_WATCHED[key], modules)


def answer(nonce: str, expression: str) -> None:
    """Evaluate the graded cell's answer `expression` in the notebook and reply with it (a handle, or data)."""
    from IPython import get_ipython

    shell = get_ipython()
    namespace = shell.user_ns if shell is not None else sys.modules["__main__"].__dict__
    try:
        value = eval(compile(expression, "<graded cell>", "eval"), namespace)
        _reply(nonce, {"ok": wire.encode(value, _handle)})
    except Exception as error:
        _reply(nonce, {"error": wire.encode_error(error, _student_frame(error))})


def loop(nonce: str) -> None:
    """Answer the checker's requests until it has no more: each reply goes back in the next ``input`` prompt."""
    reply: dict = {"ready": True}
    while True:
        try:
            text = _sized(wire.dumps(reply))
        except (TypeError, ValueError) as error:
            text = wire.dumps({"error": wire.encode_error(wire.WireError(f"the reply could not be written: {error}"))})
        request = input(nonce + text)
        if not request:
            return
        reply = handle(request)


def handle(request: str) -> dict:
    """One request from the checker: ``{"target": id, "method": name or null, "args": [...], "kwargs": {...}}``
    (a call) or ``{"target": id, "attribute": name}`` (an attribute read); the reply as data."""
    try:
        data = wire.loads(request)
        target = _object({"id": data["target"]})
        references = [str(r) for r in data.get("references", [])]
        modules = [str(m) for m in data.get("modules", [])]
    except (wire.WireError, KeyError, TypeError) as error:
        return {"error": wire.encode_error(error)}
    used: list[str] = []
    try:
        if "attribute" in data:
            value = getattr(target, str(data["attribute"]))
            after: list = []
        else:
            args = wire.decode(data.get("args", []), _object)
            kwargs = wire.decode(data.get("kwargs", {}), _object)
            function = target if data.get("method") is None else getattr(target, str(data["method"]))
            watch = _watch(references, modules)
            # an answer that is a reference (its class, a wrapper around it) runs with no student frame to see
            watch.inspect_answer([target, function])
            beside = _notebook_threads()
            with watch:
                value = function(*args, **kwargs)
            used = watch.used + ([UNWATCHED_THREAD] if beside or _notebook_threads() else [])
            # what the call did to the copies it was given (a check may look at them afterwards)
            after = [wire.encode(a, _handle) for a in args]
        return {"ok": wire.encode(value, _handle), "after": after, "references": used}
    except Exception as error:
        return {"error": wire.encode_error(error, _student_frame(error)), "references": used}
