"""What the source reading (`memlib.course.grading.provenance`) flags by name: calls, attributes, modules
and magics that run code the source does not show, look a name up by a string, or reach around the kernel's
watch. Each family is here because an attack used it (tests/attack*); `tests/test_grade_provenance.py`
holds one cheat of each, and the honest answers of tests/alternatives that must raise no flag.
"""

from __future__ import annotations

import re

#: Calls and names that run code the source does not show, or reach around a watcher.
DYNAMIC_CALLS = {"exec", "eval", "compile", "__import__", "globals", "breakpoint", "vars", "locals"}
#: Calls that look a name up: with a name computed at run time, the reading cannot follow them.
LOOKUP_CALLS = {"getattr", "setattr", "delattr", "hasattr"}
#: ... of which these bind: ``setattr(Helper, "run", f)`` makes a method the reading never sees defined.
BINDING_CALLS = {"setattr", "delattr"}
#: operator's lookups by name: attrgetter("score") as a sort key is common; a dotted or computed name is not.
GETTER_FACTORIES = {"attrgetter", "methodcaller"}
DYNAMIC_ATTRIBUTES = {
    "setprofile", "settrace", "setprofile_all_threads", "settrace_all_threads", "_getframe", "f_back", "f_globals",
    "f_locals", "__code__", "__globals__", "__closure__", "__builtins__", "__wrapped__", "__subclasses__",
    "run_cell", "run_code", "ex", "ev", "system", "getoutput",
    "modules",  # sys.modules
    "__dict__", "__getattribute__",  # a name looked up by a key the reading cannot follow
    "user_ns", "user_global_ns", "user_module", "get_field",  # the same: IPython's namespace, string.Formatter
    "getprofile", "gettrace", "monitoring", "_current_frames", "__self__",  # the watch's own hook, other frames
    "tb_frame", "gi_frame", "cr_frame", "ag_frame",  # the frame of a traceback, a generator, a coroutine
    # a string evaluated as code: annotations, IPython's expressions, completions and files (its magics are
    # read as the magics they are, a magic named at run time is flagged)
    "get_type_hints", "ForwardRef", "user_expressions", "Completer", "attr_matches", "safe_execfile",
    "safe_run_module",
    # IPython hooks that rewrite a cell before it runs: the reading would see other code than the kernel
    "input_transformers_cleanup", "input_transformers_post", "input_transformer_manager", "ast_transformers",
    "register_magic_function", "register_magics",
    "FunctionType", "CodeType", "LambdaType", "MethodType", "ModuleType",  # types.*: code built at run time
    "__defaults__", "__kwdefaults__",  # a function's default arguments: another function reached by position
    "__mro__", "mro", "__bases__", "__base__",  # a class's bases walked at run time (Agent.step by position)
    "popen", "spawnl", "spawnlp", "spawnv", "spawnvp", "execv", "execl", "execvp", "execlp", "posix_spawn",
    "create_subprocess_exec", "create_subprocess_shell",  # os.* and asyncio.*: another process runs a string
}
#: Modules that run hidden code, reach around the watcher (profilers put aside, threads it does not see
#: start), or load code by a name in a string (pkgutil.resolve_name, pydoc.locate).
DYNAMIC_MODULES = {"importlib", "ctypes", "marshal", "gc", "inspect", "runpy", "imp", "pickle", "dill", "cloudpickle",
                    "code", "codeop", "builtins", "pkgutil", "pydoc", "cProfile", "profile", "_lsprof", "trace",
                    "threading", "_thread", "concurrent", "multiprocessing",
                    # another process runs what a string says; a stand-in object answers for a function
                    "subprocess", "pty", "unittest", "mock",
                    # code in a string run by the standard library: timeit's statements, a configuration's
                    # factories (logging.config), a debugger's or a doctest's commands
                    "timeit", "logging.config", "pdb", "bdb", "doctest", "shelve", "copyreg", "zipimport",
                    "logging.handlers", "rlcompleter", "IPython.lib.backgroundjobs"}  # (a thread runs a QueueListener's calls; eval)
#: Names of an otherwise harmless module that build code at run time (``from types import SimpleNamespace``
#: is fine; ``from types import FunctionType`` is not).
DYNAMIC_NAMES = {"types": {"FunctionType", "CodeType", "LambdaType", "MethodType", "ModuleType"},
                  "typing": {"get_type_hints", "ForwardRef"}}
HARMLESS_MAGICS = {"matplotlib", "pip", "load_ext autoreload", "autoreload"}
#: ``%config Class.trait = value`` with a literal value (IPython runs the argument as code: anything else hides it).
CONFIG_ARGUMENT = re.compile(r"^\s*([A-Za-z_][\w.]*\s*(=(?P<value>.*))?)?$", re.DOTALL)
#: A dotted name of memlib's code written in a string (code or an import run from a string is not read).
MEMLIB_PATH = re.compile(r"\bmemlib\.[A-Za-z_]")
#: IPython's output cache by name: ``Out[3]``, ``_oh``, ``_3`` hand a cell what an earlier cell showed (a reference's
#: object, if a release cell ended with one), by a number the reading cannot follow.
OUTPUT_CACHE = re.compile(r"Out|_oh|_[0-9]+")
#: A module's own names in the notebook's namespace: the kernel's code reads them (a `__name__` that is a str
#: subclass ran the student's code inside the watch's profile hook, where no call is seen).
MODULE_DUNDERS = {"__name__", "__file__", "__spec__", "__loader__", "__package__", "__builtins__", "__dict__"}
