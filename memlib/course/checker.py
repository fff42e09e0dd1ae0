"""The grader's checker: a graded cell's check, run where the student's code cannot reach it.

When the grader reaches a graded cell, it does not run the cell in the
student's kernel. It starts this module in a process of its own (``python -m
memlib.course.checker``) and runs the cell's check there, on a stand-in for
the answer: calling the stand-in, or a method of it, sends the call to the
kernel (`memlib.course.serve`) and waits for the reply. Only plain data
crosses (`memlib.course.wire`), so whatever the student's code does to its own
interpreter (patched checks, forged replies, objects whose ``__eq__`` always
says yes) reaches the check as a value to validate or as an error. The
checker never imports or runs student code, and it computes every expected
value itself.

Two halves live here:

* `run_check` (the grader's side): finds the check and the answer in the
  released graded cell (`graded_call`), starts the checker process, and relays
  its requests to the kernel through an ``execute`` function the grader gives
  it, under the cell's time limit;
* `main` (the checker process): reads its start line, imports the check, runs
  it on a `Remote` stand-in and writes the outcome. It talks to the grader in
  JSON lines on its stdin and stdout; what the check prints is captured and
  returned as the cell's output.
"""

from __future__ import annotations

import ast
import importlib
import io
import json
import os
import secrets
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from queue import Empty, Queue
from typing import Any, Callable

from memlib.course import wire
from memlib.course.checking import Cases
from memlib.course.status import DIED, ERROR, FAILED, LOST, NOTEBOOK_TIMEOUT, PASSED, TIMEOUT
from memlib._util import parse_python

__all__ = ["GradedCall", "graded_call", "CheckOutcome", "run_check", "Remote", "main"]

#: Address space of a checker process, bytes: a check with its imports needs about 200 MB; the rest is room
#: for the values it decodes (each reply at most wire.MAX_CHARS and wire.MAX_ITEMS).
CHECKER_MEMORY = 1 * 2**30
#: The seed of this grading run's fresh cases (`memlib.course.checking.fresh_random`): drawn once per
#: grader process, given to its checkers only.
FRESH_SEED = secrets.randbits(63)
#: The line before what the answer printed while the check called it, in a graded cell's output.
PRINTED_HEADER = "[printed by your code while the check ran]"


# --------------------------------------------------------------------------- the graded cell


@dataclass(frozen=True)
class GradedCall:
    """``from <module> import <function>`` then ``<function>(<answer>)``: what a graded cell runs."""

    module: str
    function: str
    answer: str  # the answer expression's source, evaluated in the student's kernel


def graded_call(source: str) -> GradedCall:
    """Read a released graded cell; ValueError when it is not imports followed by one check call."""
    try:
        tree = parse_python(source)
    except SyntaxError as error:
        raise ValueError(f"the graded cell is not valid Python ({error.msg}, line {error.lineno})") from None
    imported: dict[str, str] = {}
    body = list(tree.body)
    while body and isinstance(body[0], ast.ImportFrom):
        node = body.pop(0)
        assert isinstance(node, ast.ImportFrom)
        for alias in node.names:
            imported[alias.asname or alias.name] = f"{'.' * node.level}{node.module or ''}:{alias.name}"
    shape = "imports, then one call `check(answer)` of an imported check with one argument"
    if len(body) != 1 or not isinstance(body[0], ast.Expr) or not isinstance(body[0].value, ast.Call):
        raise ValueError(f"the graded cell must be {shape}")
    call = body[0].value
    if not isinstance(call.func, ast.Name) or call.func.id not in imported or len(call.args) != 1 or call.keywords:
        raise ValueError(f"the graded cell must be {shape}")
    module, _, function = imported[call.func.id].partition(":")
    if module.startswith("."):
        raise ValueError("the graded cell imports its check relatively; import it by its full name")
    answer = ast.get_source_segment(source, call.args[0]) or ""
    return GradedCall(module, function, answer)


# --------------------------------------------------------------------------- the grader's side


@dataclass
class CheckOutcome:
    """What the checker said of one graded cell."""

    status: str  # one of memlib.course.status.CHECK: PASSED, FAILED, ERROR (nothing judged), TIMEOUT, DIED, ...
    message: str = ""  # the whole message, as the student's own check prints it
    what: str = ""  # a failed check: what is wrong ...
    hint: str = ""  # ... and where to look
    output: str = ""  # what the check printed
    references: tuple[str, ...] = ()
    calls: int = 0
    traceback: list[str] = field(default_factory=list)  # where the kernel was when it was stopped (a timeout)
    cases: Cases | None = None  # a failed check of an exercise with partial credit: how many cases were right


#: ``execute(code, seconds, respond=None) -> (status, stdout, traceback)``: `memlib.course.kernel_run.run_notebook`.
Execute = Callable[..., tuple[str, str, list[str]]]
# binds no name in the notebook: a name left there would hand the answer the kernel side of the grader
_SERVE = "__import__('memlib.course.serve').course.serve.{}"


def run_check(call: GradedCall, execute: Execute, *, support: list[Path], scratch: Path,
              seconds: float, language: str = "en", private_cases: Path | None = None) -> CheckOutcome:
    """Run `call`'s check in a checker process against the answer in the kernel `execute` reaches.

    Two executions in the kernel: one evaluates the answer, one loops over the
    checker's requests (each reply comes back in the prompt of the kernel's
    next ``input()``). `support` are the release's Python files (a check module
    may be one of them); `seconds` bounds the whole check; the check speaks `language`
    (the submission's, `memlib.course.lang`); `private_cases` is the instructor's folder of private case
    files (`memlib.course.checking.private_cases`), which only the checker process is told of.
    """
    deadline = time.monotonic() + seconds
    nonce = "\x1eMEMLIB-" + secrets.token_hex(12) + ":"
    left = lambda: max(0.5, deadline - time.monotonic())  # noqa: E731

    status, stdout, trace = execute(_SERVE.format(f"answer({nonce!r}, {call.answer!r})"), left())
    if status in LOST:
        return _lost(status, trace)
    at = stdout.rfind(nonce)
    first = _parsed(stdout[at + len(nonce):].split("\n", 1)[0]) if at >= 0 else {"fatal": "no-reply"}
    if "fatal" in first:
        return _lost(first["fatal"])
    checker = _start_checker(support, scratch, private_cases)
    lines: Queue = Queue()
    threading.Thread(target=_pump, args=(checker.stdout, lines), daemon=True).start()
    errors: list[str] = []
    threading.Thread(target=lambda: errors.append(checker.stderr.read()[-4000:]), daemon=True).start()  # type: ignore[union-attr]
    done: dict = {}
    calls = 0
    pending: str | None = None  # the checker's first request, sent when the kernel's loop first asks
    trace = []  # (the answer step went well: only the loop's traceback matters from here)

    def next_request() -> str:
        """The checker's next request, as the line the kernel reads; '' once the check is done."""
        nonlocal calls
        try:
            line = lines.get(timeout=max(0.05, deadline - time.monotonic()))
        except Empty:
            done.update(status=TIMEOUT, message=f"the check did not finish within its time limit of {seconds:.0f} s")
            return ""
        if line is None:
            detail = "".join(errors).strip().splitlines()[-1:] or ["no message"]
            done.update(status=ERROR, message=f"the checker stopped: {detail[0]}")
            return ""
        message = json.loads(line)
        if "done" in message:
            done.update(message["done"])
            return ""
        calls += 1
        return wire.dumps(message["request"])

    def respond(prompt: str) -> str:
        nonlocal pending
        if not prompt.startswith(nonce):
            return ""  # the answer itself called input(): it reads an empty line
        if pending is not None:  # the loop's first prompt only says it is ready
            request, pending = pending, None
            return request
        _forward(checker, prompt[len(nonce):])
        return next_request()

    try:
        _send(checker, {"module": call.module, "function": call.function, "answer": first, "language": language})
        pending = next_request()
        printed = ""
        if pending:
            status, printed, trace = execute(_SERVE.format(f"loop({nonce!r})"), left(), respond)
            lost = {"fatal": status if status in (TIMEOUT, DIED) else "no-reply"}
            while not done:  # the kernel stopped before the check finished: the checker fails what is left
                _send(checker, lost)
                next_request()
        output = str(done.get("output", ""))
        if printed.strip():  # the answer's own prints while the check called it, as a student expects to see them
            output += f"{PRINTED_HEADER}\n{printed.strip()}\n"
        status = done.get("status", ERROR)
        return CheckOutcome(status, done.get("message", ""), str(done.get("what", "")),
                            str(done.get("hint", "")), output, tuple(done.get("references", ())), calls,
                            trace if status in (TIMEOUT, DIED) else [],
                            Cases.from_list(done.get("cases")) if status == FAILED else None)
    finally:
        if checker.poll() is None:
            checker.kill()
        checker.wait()


def _start_checker(support: list[Path], scratch: Path, private_cases: Path | None = None) -> subprocess.Popen:
    """The checker process: the grader's Python and environment, the release's Python files importable."""
    scratch.mkdir(parents=True, exist_ok=True)
    for file in support:
        if file.suffix == ".py":
            (scratch / file.name).write_bytes(file.read_bytes())
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMLIB_")}
    env["PYTHONPATH"] = os.pathsep.join([str(scratch), *[p for p in sys.path if p and Path(p).is_dir()]])
    env["MEMLIB_STRICT_CHECKS"] = "1"
    env["MEMLIB_FRESH_SEED"] = str(FRESH_SEED)  # the checker's alone: the kernel never sees it
    if private_cases is not None:
        env["MEMLIB_PRIVATE_CASES"] = str(private_cases)  # so is this folder: no kernel can read it
    return subprocess.Popen([sys.executable, "-m", "memlib.course.checker", "--memory", str(CHECKER_MEMORY)],
                            cwd=str(scratch), env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, encoding="utf-8", errors="replace")


def _parsed(text: str) -> dict:
    try:
        reply = wire.loads(text)
    except wire.WireError:
        return {"fatal": "no-reply"}
    return reply if isinstance(reply, dict) else {"fatal": "no-reply"}


def _lost(reason: str, trace: list[str] | None = None) -> CheckOutcome:
    if reason == NOTEBOOK_TIMEOUT:
        return CheckOutcome(reason, "the notebook ran out of time")
    if reason == TIMEOUT:
        return CheckOutcome(TIMEOUT, "your answer did not return in time", traceback=list(trace or []))
    if reason == DIED:
        return CheckOutcome(DIED, "the kernel died while running your answer")
    return CheckOutcome(FAILED, "the kernel did not answer the grader (a cell may have changed its output)")


def _forward(process: subprocess.Popen, reply: str) -> None:
    """Pass the kernel's reply to the checker as it came, once its size is known to be bounded: the grader
    never parses it (the checker does, under its memory limit). One line: a line break would split it."""
    try:
        wire.check_size(reply)
        if "\n" in reply or "\r" in reply:
            raise wire.WireError("a reply of more than one line")
    except wire.WireError as error:
        _send(process, {"error": wire.encode_error(wire.WireError(f"your answer returned {error}"))})
        return
    try:
        assert process.stdin is not None
        process.stdin.write(reply + "\n")
        process.stdin.flush()
    except (BrokenPipeError, OSError):
        pass


def _pump(stream: Any, lines: Queue) -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _send(process: subprocess.Popen, message: dict) -> None:
    try:
        assert process.stdin is not None
        process.stdin.write(json.dumps(message) + "\n")
        process.stdin.flush()
    except (BrokenPipeError, OSError):
        pass


# --------------------------------------------------------------------------- the checker process


class KernelLost(BaseException):
    """The student's kernel stopped answering (a timeout, or it died).

    A BaseException, so that a check's ``except Exception`` (which turns the
    answer's own errors into "your answer crashed") lets it through to `main`,
    which reports the timeout or the death as such."""

    def __init__(self, message: str, status: str) -> None:
        super().__init__(message)
        self.status = status


class _Link:
    """The checker's line to the grader: one request out, one reply in."""

    def __init__(self, inbox: Any, outbox: Any) -> None:
        self.inbox, self.outbox = inbox, outbox
        self.references: list[str] = []  # reference implementations the kernel saw the answer call
        self.watch_for: list[str] = []  # the check's own list of them ("module:qualname")
        self.check_modules: list[str] = []  # modules whose code an answer has no business calling
        self.lost = ""
        self.status = ""

    def request(self, request: dict, args: tuple = ()) -> Any:
        if self.lost:
            raise KernelLost(self.lost, self.status)
        if "attribute" not in request:
            request = {**request, "references": self.watch_for, "modules": self.check_modules}
        self.outbox.write(json.dumps({"request": request}) + "\n")
        self.outbox.flush()
        line = self.inbox.readline()
        reply = wire.loads(line) if line else {"fatal": DIED}
        if not isinstance(reply, dict):
            raise wire.WireError("a reply that is not an object")
        if "fatal" in reply:
            self.status = reply["fatal"] if reply["fatal"] in (TIMEOUT, DIED) else FAILED
            self.lost = {TIMEOUT: "your answer did not return in time (the kernel was stopped)",
                         DIED: "the kernel died while running your answer"}.get(
                reply["fatal"], "the kernel stopped answering the grader")
            raise KernelLost(self.lost, self.status)
        for name in reply.get("references", []) or []:
            if isinstance(name, str) and name not in self.references:
                self.references.append(name)
        if "error" in reply:
            raise wire.decode_error(reply["error"])
        value = wire.decode(reply.get("ok"), self.remote)
        after = reply.get("after") or []
        if isinstance(after, list):
            for given, state in zip(args, after):
                _adopt(given, wire.decode(state, self.remote))
        return value

    def remote(self, data: dict) -> "Remote":
        kinds: dict[str, type[Remote]] = {"class": RemoteClass, "function": RemoteFunction}
        cls = kinds.get(str(data.get("kind")), Remote)
        return cls(self, data["id"], str(data.get("name", "?"))[:200])


def _adopt(given: Any, state: Any) -> None:
    """Let the checker's copy of an argument show what the student's code did to theirs.

    In the student's own kernel the check and the answer share one object; across the wire each side
    has a copy, so the checker's copy takes the state the kernel's copy ended with: a list or a dict
    in place, any value that crosses by its state (`wire.crosses_by_state`) attribute by attribute.
    """
    if type(state) is not type(given):
        return
    if type(given) is list:
        given[:] = state
    elif type(given) is dict:
        given.clear()
        given.update(state)
    elif wire.crosses_by_state(type(given)) and hasattr(given, "__dict__"):
        vars(given).clear()
        vars(given).update(vars(state))


class Remote:
    """The checker's stand-in for an object in the student's kernel.

    Reading an attribute asks the kernel; so do ``str()``, ``len()``, ``in``,
    ``[]``, ``float()``, ``int()`` and ``operator.index()``. Comparison is identity: an answer cannot lie through ``__eq__``.
    """

    __slots__ = ("__memlib_handle__", "_link", "_name")

    def __init__(self, link: _Link, ident: int, name: str) -> None:
        object.__setattr__(self, "__memlib_handle__", {"id": ident})
        object.__setattr__(self, "_link", link)
        object.__setattr__(self, "_name", name)

    def _ask(self, request: dict, args: tuple = ()) -> Any:
        return self._link.request({"target": self.__memlib_handle__["id"], **request}, args)

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__") and name not in ("__name__", "__qualname__", "__doc__"):
            raise AttributeError(name)
        if name in ("__name__", "__qualname__"):
            return self._name
        return self._ask({"attribute": name})

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("the grader does not change the student's objects")

    def _method(self, name: str, *args: Any) -> Any:
        return self._ask({"method": name, "args": wire.encode(list(args)), "kwargs": {}}, args)

    def __str__(self) -> str:
        text = self._method("__str__")
        if type(text) is not str:
            raise TypeError(f"__str__ returned {type(text).__name__}, not str")
        return text

    def __len__(self) -> int:
        size = self._method("__len__")
        if type(size) is not int or size < 0:
            raise TypeError(f"__len__ returned {size!r}, not a non-negative int")
        return size

    def __float__(self) -> float:
        return self._number("__float__", float)

    def __int__(self) -> int:
        return self._number("__int__", int)

    def __index__(self) -> int:
        return self._number("__index__", int)

    def _number(self, method: str, kind: type) -> Any:
        """float(x), int(x) and operator.index(x), answered by the object in the kernel, as in the kernel."""
        value = self._method(method)
        if type(value) is not kind:
            raise TypeError(f"{method} returned {type(value).__name__}, not {kind.__name__}")
        return value

    def __contains__(self, item: Any) -> bool:
        return bool(self._method("__contains__", item) is True)

    def __getitem__(self, key: Any) -> Any:
        return self._method("__getitem__", key)

    def __repr__(self) -> str:
        return f"<{self._name} in the student's kernel>"

    def __eq__(self, other: object) -> bool:
        return self is other

    def __hash__(self) -> int:
        return id(self)


class RemoteFunction(Remote):
    """A function (or bound method) in the student's kernel: calling it calls it there."""

    __slots__ = ()

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._ask({"method": None, "args": wire.encode(list(args)), "kwargs": wire.encode(dict(kwargs))}, args)


class RemoteClass(RemoteFunction):
    """A class in the student's kernel: calling it makes an instance there."""

    __slots__ = ()
    __memlib_class__ = True


def _limit_memory(argv: list[str]) -> None:
    """``--memory BYTES``: this process's address space, set before the check is imported."""
    if "--memory" in argv:
        import resource

        limit = int(argv[argv.index("--memory") + 1])
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))


def main() -> int:
    _limit_memory(sys.argv[1:])
    inbox, outbox = sys.stdin, os.fdopen(os.dup(1), "w", encoding="utf-8")
    quiet = os.open(os.devnull, os.O_WRONLY)
    os.dup2(quiet, 1)  # nothing but the protocol reaches the grader, even a write to the file descriptor
    captured = io.StringIO()
    sys.stdout = sys.stderr = captured  # what the check prints is the cell's output, not protocol
    link = _Link(inbox, outbox)
    outcome: dict[str, Any]
    try:
        start = json.loads(inbox.readline())
        from memlib.course.lang import use_language

        use_language(start.get("language", "en"))
        check = getattr(importlib.import_module(start["module"]), start["function"])
        if not callable(check) or not getattr(check, "grade_id", None):
            raise TypeError(f"{start['module']}.{start['function']} is not a check (no @graded)")
        link.watch_for = [str(r) for r in getattr(check, "references", ())]
        link.check_modules = sorted({"memlib.course.checks", str(getattr(check, "__module__", start["module"]))})
        first = start["answer"]
        if "error" in first:
            answer: Any = _Unavailable(wire.decode_error(first["error"]))
        else:
            answer = wire.decode(first.get("ok"), link.remote)
        from memlib.course.checking import CheckFailed

        try:
            check(answer)
            outcome = {"status": PASSED}
        except CheckFailed as failure:
            outcome = {"status": FAILED, "message": str(failure), "what": failure.what, "hint": failure.hint}
            if failure.cases is not None:
                outcome["cases"] = failure.cases.to_list()
        except KernelLost as lost:
            outcome = {"status": lost.status, "message": str(lost)}
    except Exception as error:  # the grader's problem (a missing check, a bug): say so, never a score
        outcome = {"status": ERROR, "message": f"{type(error).__name__}: {error}"}
    if link.references:
        from memlib.course.checking import reference_note

        print(reference_note(link.references))
    outcome.update(output=captured.getvalue()[-200_000:], references=link.references)
    outbox.write(json.dumps({"done": outcome}) + "\n")
    outbox.flush()
    return 0


class _Unavailable:
    """The answer expression itself raised in the kernel (e.g. the name is not defined): every use re-raises."""

    def __init__(self, error: BaseException) -> None:
        self._error = error

    def __getattr__(self, name: str) -> Any:
        raise self._error

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise self._error


if __name__ == "__main__":
    sys.exit(main())
