"""Command line: `python -m memlib demo | release | grade | validate | model` (and `--version`).

`demo` lives here: the lesson's scenario as a deterministic terminal trace
(facts written to core and archival memory, the context filled until it
evicts, an evicted fact answered from archival memory with a citation, an
evicted turn found by conversation_search). The other subcommands belong to
other modules and are imported only when asked for, so a missing optional
part never breaks `demo`.

`release` and `grade` need the `memlib[course]` extra (nbformat, nbval). Without
it they print one line naming the extra and exit 2; their `--help` prints the help,
a note naming the extra, and exits 0.
`grade merge` and `grade items` read gradebooks only and need no extra.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import re
import sys
import types
from collections.abc import Callable
from datetime import datetime

from memlib import __version__

__all__ = ["main", "run_demo", "build_parser", "SUBCOMMANDS"]

#: Subcommands implemented elsewhere: name -> (module whose `main(argv)` runs it, help).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "release": ("memlib.course.release_all", "generate the student notebooks from solutions/ (and notebooks/<lang>/ "
                "from i18n/<lang>/)"),
    "grade": ("memlib.course.grade", "grade submitted notebooks into a gradebook "
              "(`grade merge` joins shards, `grade items` analyses the checks, `grade export` writes an "
              "LMS file, `grade override` records an instructor's points, `grade score` the points of written "
              "answers, `grade feedback` writes the students' feedback files)"),
    "validate": ("memlib.course.validate", "grade one notebook as the grader will, before you hand it in"),
    "model": ("memlib.local_model", "a local model, offline, as the decider: "
              "`model serve` starts it, `model check` runs three agent steps"),
}

#: `python -m memlib grade <tool>`: tools that read gradebooks (no notebooks run, no extra needed).
#: (A submission folder with one of these names is passed as ./merge, ./items, ./export, ./override, ./feedback,
#: ./score.)
GRADE_TOOLS: dict[str, str] = {
    "merge": "memlib.course.shards",
    "items": "memlib.course.item_analysis",
    "export": "memlib.course.export",
    "override": "memlib.course.overrides",
    "feedback": "memlib.course.feedback_export",
    "score": "memlib.course.written",
}

#: Subcommand -> (the extra that provides its dependencies, the modules it needs from it).
EXTRAS: dict[str, tuple[str, tuple[str, ...]]] = {
    "release": ("course", ("nbformat",)),
    "grade": ("course", ("nbformat", "nbval")),
    "validate": ("course", ("nbformat",)),
}

DEMO_WINDOW = 700
DEMO_SETUP = ["You are Sam, a patient study buddy.", "My name is Ada."]
DEMO_FACTS = [
    "Remember that my sister Maya is allergic to peanuts.",
    "My bike is a green Brompton.",
    "Remember that my thesis draft is due on 12 March.",
]
DEMO_ASIDE = "I have a dentist appointment on Friday at 9."
DEMO_FILLER = [f"Study log {i}: read section {i} of the paging chapter and took notes." for i in range(1, 31)]
DEMO_FACT_QUESTION = "What is my sister allergic to?"
DEMO_CONVERSATION_QUESTION = "What did I tell you about the dentist?"

# Kinds of trace event worth a full printout during the filler turns.
_NOTABLE = {"pressure", "evict", "flush", "summarize", "core_edit"}

#: Terms of the trace explained once, under the first trace line that uses them (a reader
#: new to MemGPT meets them there): (what finds the term in a line, the explanation, filled
#: in with what the pattern's groups matched).
_EXPLAINED = (
    (re.compile(r"heartbeat"), "(heartbeat: the tool call asks for another turn of the agent, so it can act "
                               "on the result before the user speaks)"),
    (re.compile(r"#(\d+)\.\.#(\d+)"), "(#{0}..#{1}: the messages numbered {0} to {1}; each message gets the "
                                     "next number when it arrives)"),
)


def run_demo(write: Callable[[str], None] = print) -> int:
    """Play the lesson's scenario with a RulePolicy agent and write the trace line by line."""
    # Loaded when the demo runs, as each command's module is when asked for: `--version`
    # and the other commands' `--help` do not load the agent stack.
    from memlib._util import TickClock
    from memlib.agent import Agent
    from memlib.policies import RulePolicy
    from memlib.citations import CITATION_PATTERN, Citation, CitedAnswer, strip_citations, verify
    from memlib.tools import MemorySystem

    # one minute a tick from a fixed start: timestamps (and so the output) never vary
    memory = MemorySystem.create(window=DEMO_WINDOW, clock=TickClock(datetime(2026, 1, 5, 9, 0)))
    agent = Agent(RulePolicy(), memory, max_heartbeats=5)
    context = memory.context
    assert context is not None  # MemorySystem.create always builds a main context

    def meter() -> str:
        return f"[context {context.used}/{context.window} tokens, {context.pressure:.0%}]"

    def section(title: str) -> None:
        write("")
        write(f"== {title} ==")

    unexplained = list(_EXPLAINED)

    def say(text: str) -> None:
        """Write a rendered trace; under the first line that uses a term of `_EXPLAINED`, its explanation."""
        for line in text.splitlines():
            write(line)
            for term in list(unexplained):
                found = term[0].search(line)
                if found:
                    write(" " * 15 + term[1].format(*found.groups()))
                    unexplained.remove(term)

    write("memlib demo: an agent that pages its memory (MemGPT's virtual context)")
    write(f"main context {DEMO_WINDOW} tokens; policy RulePolicy; no summarizer.")
    write("At 70% full the agent gets a memory-pressure warning. At 100% a flush evicts the oldest")
    write("messages from the prompt until it is down to 50%. Every message went into recall storage")
    write("when it arrived, so the evicted ones are still there (conversation_search finds them).")

    section("1. Core memory: persona and user facts")
    for text in DEMO_SETUP:
        say(agent.step(text).render(compact=True))
    write("core memory is now (always in the prompt):")
    for line in memory.core.render().splitlines():
        write(f"  {line}")

    section("2. Archival memory: three facts")
    for text in DEMO_FACTS:
        say(agent.step(text).render(compact=True))
    fact_message = next(m for m in memory.recall if m.content == DEMO_FACTS[0])
    write(f"archival memory holds {len(memory.archival)} records; {meter()}")

    section("3. Filling the context until it evicts")
    # Study logs until both the archived fact and the aside have left the
    # window, so the questions below must page them back in (bounded, and
    # still deterministic if a prompt or a token count changes).
    def show(trace) -> None:
        """Routine turns on one line; anything with paging or memory work in full."""
        routine = all(c.name == "send_message" for c in trace.tool_calls) and not (_NOTABLE & set(trace.kinds))
        if routine:
            write(f"step {trace.step} · user: {trace.user_text} -> {trace.reply}  {meter()}")
        else:
            say(trace.render(compact=True))

    show(agent.step(DEMO_ASIDE))
    aside_message = next(m for m in memory.recall if m.content == DEMO_ASIDE)
    for text in DEMO_FILLER:
        show(agent.step(text))
        in_view = {m.id for m in context.messages}
        if fact_message.id not in in_view and aside_message.id not in in_view:
            break
    in_view = {m.id for m in context.messages}
    for message in (fact_message, aside_message):
        in_context = message.id in in_view
        where = "still in main context" if in_context else "evicted from main context, kept in recall storage"
        write(f"message #{message.id} {message.content!r}: {where}")

    section("4. A follow-up about an evicted fact, answered from archival memory")
    trace = agent.step(DEMO_FACT_QUESTION)
    say(trace.render(compact=True))
    reply = trace.reply or ""
    cited = [memory.archival.get(i) for i in CITATION_PATTERN.findall(reply) if i in memory.archival]
    answer = CitedAnswer(strip_citations(reply), tuple(Citation.from_record(r) for r in cited))
    problems = verify(answer, memory.archival)
    write("citation check (memlib.citations.verify): " + ("OK, the cited record supports the answer"
                                                          if not problems else "; ".join(problems)))

    section("5. conversation_search pages an evicted turn back in")
    say(agent.step(DEMO_CONVERSATION_QUESTION).render(compact=True))

    section("Done")
    ids = [m.id for m in memory.recall]
    kept = "every message is still in recall storage" if ids == list(range(len(ids))) else "MESSAGES MISSING"
    write(
        f"{len(agent.traces)} steps; main context {context.used}/{context.window} tokens with "
        f"{len(context.messages)} messages in view; recall storage {len(memory.recall)} messages "
        f"({kept}); archival memory {len(memory.archival)} records."
    )
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m memlib",
        description="memlib: the memory system behind 'Virtual context, hands-on'.",
    )
    parser.add_argument("--version", action="version", version=f"memlib {__version__}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("demo", help="print the lesson's scenario as a terminal trace",
                        description="Print the lesson's scenario as a deterministic terminal trace.")
    for name, (module, help_text) in SUBCOMMANDS.items():
        # Only listed here for --help; the arguments are parsed by the module itself.
        commands.add_parser(name, help=f"{help_text} (see {module})", add_help=False)
    return parser


def _missing_extra(name: str) -> str | None:
    """The one line to print when `name` needs an extra that is not installed, else None."""
    extra, modules = EXTRAS.get(name, ("", ()))
    missing = [m for m in modules if importlib.util.find_spec(m) is None]
    if not missing:
        return None
    return (f"python -m memlib {name} needs the '{extra}' extra ({', '.join(missing)} not installed): "
            f"pip install 'memlib[{extra}]'")


class _StandIn(types.ModuleType):
    """Takes the place of a missing module while only `--help` runs: importing works, using it fails."""

    def __getattr__(self, attribute: str):
        raise ModuleNotFoundError(f"{self.__name__} is not installed", name=self.__name__)


def _help_without_extra(name: str, argv: list[str], line: str) -> int:
    """`--help` of a subcommand whose extra is missing: its own argparse help, then what running it needs.

    Asking for help is not an error, so the note goes to stdout with the help and the exit code is 0.

    The module imports its dependencies at the top, so stand-ins fill in for
    them until argparse has printed the help; then they and the memlib modules
    imported meanwhile are removed again, so nothing later uses a stand-in.
    """
    _, modules = EXTRAS[name]
    before = set(sys.modules)
    replaced = {m: sys.modules.get(m) for m in modules if importlib.util.find_spec(m) is None}
    sys.modules.update({m: _StandIn(m) for m in replaced})
    try:
        return _run(name, SUBCOMMANDS[name][0], argv)
    except SystemExit as done:  # argparse leaves after printing the help
        return done.code if isinstance(done.code, int) else 0
    finally:
        for module in set(sys.modules) - before:
            if module.startswith("memlib."):
                del sys.modules[module]
        for module, previous in replaced.items():
            if previous is None:
                sys.modules.pop(module, None)
            else:
                sys.modules[module] = previous
        print(f"\nTo run it: {line}")


def _delegate(name: str, argv: list[str]) -> int:
    module_name, _ = SUBCOMMANDS[name]
    if name == "grade" and argv and argv[0] in GRADE_TOOLS:
        return _run(f"grade {argv[0]}", GRADE_TOOLS[argv[0]], argv[1:])
    line = _missing_extra(name)
    if line is not None:
        if "-h" in argv or "--help" in argv:
            return _help_without_extra(name, argv, line)
        print(line, file=sys.stderr)
        return 2
    return _run(name, module_name, argv)


def _run(name: str, module_name: str, argv: list[str]) -> int:
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        # Only "this part of memlib is not there" is expected; a missing
        # dependency inside an existing module is a real error and propagates.
        if exc.name is None or not module_name.startswith(exc.name):
            raise
        print(
            f"python -m memlib {name}: not available in this installation ({module_name} is missing). "
            "Update memlib, or run the tests to see which parts are built.",
            file=sys.stderr,
        )
        return 2
    entry = getattr(module, "main", None)
    if not callable(entry):
        print(f"python -m memlib {name}: {module_name} has no main(argv) function.", file=sys.stderr)
        return 2
    return int(entry(argv) or 0)


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in SUBCOMMANDS:
        return _delegate(argv[0], argv[1:])
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command == "demo":
        # The trace uses "·" and "…"; never die on a console that cannot print them.
        if hasattr(sys.stdout, "reconfigure"):
            sys.stdout.reconfigure(errors="replace")
        return run_demo()
    parser.print_help(sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
