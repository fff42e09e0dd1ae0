"""The checker process and its wire: graded cells checked outside the student's kernel.

The wire tests are pure; the others run a real kernel (no sandbox, for speed:
the sandboxed grader is exercised by the grading suites) and the real checker
process through `kernel_run.run_notebook`.
"""

from __future__ import annotations

import math
import re
from datetime import datetime, timezone
from pathlib import Path

import nbformat
import pytest

from memlib.course import checker, kernel_run, wire
from memlib.course.checking import is_exercise_stub
from memlib.course.sandbox import resolve

from conftest import ROOT

FIXTURE_CHECKS = Path(__file__).parent / "fixtures" / "course" / "solutions" / "fixture_checks.py"


# --------------------------------------------------------------------------- the wire


def test_plain_and_tagged_values_cross_unchanged() -> None:
    value = {"a": [1, 2.5, None, True, "x"], "t": (1, (2, "y")), "k": {1: "one", (2, 3): "pair"},
             "$": "not a tag", "when": datetime(2026, 1, 2, 3, 4, tzinfo=timezone.utc), "inf": math.inf}
    back = wire.decode(wire.loads(wire.dumps(wire.encode(value))))
    assert back == value
    assert type(back["t"]) is tuple and type(back["when"]) is datetime


def test_memlib_values_are_copied_and_rebuilt_with_their_own_validation() -> None:
    from memlib.agent import AgentView, ToolCall
    from memlib.guard import Verdict
    from memlib.messages import Message
    from memlib.tools import MemorySystem, ToolResult

    memory = MemorySystem.create(window=1024)
    memory.archival.insert("the boiler was serviced in May", tags=("home",))
    memory.context.append(Message.user("hello there", id=0))
    view = AgentView(Message.user("when was the boiler serviced?", id=1), memory,
                     ((ToolCall("archival_memory_search", {"query": "boiler"}),
                       ToolResult("OK", "1 record", heartbeat=True)),), ("alert",), 3)
    back = wire.decode(wire.loads(wire.dumps(wire.encode([view, Verdict(False, ["order"], "override")]))))
    got, verdict = back
    assert verdict == Verdict(False, ["order"], "override")
    assert got.user_text == view.user_text and got.calls == view.calls and got.calls_left == 3
    assert [r.text for r in got.memory.archival] == ["the boiler was serviced in May"]
    assert got.prompt == view.prompt  # the same main context, rendered the same way
    # their own validation runs on the receiving side
    bad = wire.encode(ToolResult("OK", "x"))
    bad["fields"]["status"] = "MAYBE"
    with pytest.raises(wire.WireError, match="not a valid ToolResult"):
        wire.decode(bad)


def test_a_probe_policy_and_trace_events_cross_as_data() -> None:
    from memlib.agent import Agent, ToolCall, TraceEvent
    from memlib.course.doubles import ProbePolicy
    from memlib.tools import MemorySystem

    search = ToolCall("archival_memory_search", {"query": "tea", "request_heartbeat": True})
    probe = ProbePolicy([search, ProbePolicy.RAISE, ProbePolicy.MALFORMED])
    trace = Agent(probe, MemorySystem.create(window=1024)).step("what tea?")
    back, events = wire.decode(wire.loads(wire.dumps(wire.encode([probe, trace.events]))))
    assert type(back) is ProbePolicy and back.script == probe.script and back.seen == probe.seen
    assert all(type(e) is TraceEvent for e in events) and events == trace.events
    assert [e.kind for e in events] == trace.kinds


@pytest.mark.parametrize("state, message", [
    ({"script": "raise", "seen": []}, "expected a list"),
    ({"script": ["explode"], "seen": []}, "only ToolCalls and its two markers"),
    ({"script": [["send_message", {}]], "seen": []}, "only ToolCalls"),
    ({"script": ["raise"], "seen": [[[], 1, []], [[], 1, []]]}, "more turns"),
    ({"script": ["raise"], "seen": [[[1], 1, []]]}, "call names, calls_left, alerts"),
    ({"script": ["raise"], "seen": [[[], "1", []]]}, "call names, calls_left, alerts"),
    ({"script": ["raise"]}, "expected a list"),
    (["raise"], "needs its script"),
])
def test_a_probe_policy_from_the_other_side_is_decoded_strictly(state, message) -> None:
    with pytest.raises(wire.WireError, match=message):
        wire.decode({"$": "state", "type": "memlib.course.doubles:ProbePolicy", "state": state})
def test_recall_stores_and_summarizers_cross_by_their_contents_and_come_back_adopted() -> None:
    from memlib.messages import Message
    from memlib.recall import RecallStore
    from memlib.course.doubles import RecordingSummarizer
    from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer

    at = datetime(2026, 3, 2, 9, 0)
    recall = RecallStore(page_size=3)
    recall.add(Message.user("Maeve lives in Lisbon.", id=4, timestamp=at))
    recorder = RecordingSummarizer(ExtractiveSummarizer(user_weight=2.0))
    recorder.summarize("- user: hi", (Message.tool("found", "c1", id=5, timestamp=at),), 30)
    back = wire.decode(wire.loads(wire.dumps(wire.encode([recall, recorder, NoSummarizer(), TruncatingSummarizer()]))))
    got_recall, got_recorder, none, truncating = back
    assert type(got_recall) is RecallStore and got_recall.page_size == 3 and got_recall.messages == recall.messages
    assert got_recall.conversation_search("Lisbon") == recall.messages  # rebuilt with add: searchable again
    assert got_recorder.calls == recorder.calls and got_recorder.calls[0].kind == "tuple"
    assert repr(got_recorder.inner) == repr(recorder.inner)
    assert type(none) is NoSummarizer and type(truncating) is TruncatingSummarizer
    # what the student's code did to its copies shows in the checker's own objects
    theirs = wire.decode(wire.encode(recall))
    theirs.add(Message.user("and works at the aquarium", id=6, timestamp=at))
    checker._adopt(recall, theirs)
    assert [m.id for m in recall.messages] == [4, 6]
    their_recorder = wire.decode(wire.encode(recorder))
    their_recorder.summarize("", [], 5)
    checker._adopt(recorder, their_recorder)
    assert len(recorder.calls) == 2 and recorder.calls[1].max_tokens == 5


def test_every_value_that_crosses_by_its_state_comes_back_adopted() -> None:
    """A probe policy and a core memory too (one rule, not a list of types): what the answer's kernel did to
    its copy is what a check then reads in its own, as when both share one object in the student's kernel."""
    from memlib.agent import Agent, ToolCall
    from memlib.core_memory import CoreMemory
    from memlib.course.doubles import ProbePolicy
    from memlib.tools import MemorySystem

    probe = ProbePolicy([ToolCall("send_message", {"message": "hi"})])
    theirs = wire.decode(wire.encode(probe))
    Agent(theirs, MemorySystem.create(window=1024)).step("hello")
    checker._adopt(probe, theirs)
    assert probe.remaining == 0 and len(probe.seen) == 1
    core = CoreMemory.default(human="")
    their_core = wire.decode(wire.encode(core))
    their_core.append("human", "Name: Maeve.")
    checker._adopt(core, their_core)
    assert core.to_dict() == their_core.to_dict() and "Maeve" in str(core.to_dict())
    assert wire.crosses_by_state(ProbePolicy) and not wire.crosses_by_state(ToolCall)  # a dataclass: as fields
    before = [1]
    checker._adopt(before, (2,))  # another type: left as it was
    assert before == [1]


def _state(spec: str, state) -> dict:
    return {"$": "state", "type": spec, "state": state}


_MESSAGE = {"$": "dataclass", "type": "memlib.messages:Message", "fields": {"role": "user", "content": "hi"}}


@pytest.mark.parametrize("data, message", [
    (_state("memlib.recall:RecallStore", {"page_size": 5}), "page_size and messages"),
    (_state("memlib.recall:RecallStore", {"page_size": 0, "messages": []}), "not a valid RecallStore"),
    (_state("memlib.recall:RecallStore", {"page_size": 5, "messages": [_MESSAGE]}), "with an id and a timestamp"),
    (_state("memlib.recall:RecallStore", {"page_size": 5, "messages": [{"role": "user"}]}), "with an id"),
    (_state("memlib.summarize:NoSummarizer", {"x": 1}), "has no state"),
    (_state("memlib.summarize:ExtractiveSummarizer", {"user_weight": "1", "assistant_weight": 0.4}), "as numbers"),
    (_state("memlib.summarize:ExtractiveSummarizer", {"user_weight": True, "assistant_weight": 0.4}), "as numbers"),
    (_state("memlib.summarize:ExtractiveSummarizer", {"user_weight": 1.0}), "two weights"),
    (_state("memlib.course.doubles:RecordingSummarizer", {"inner": None, "calls": []}), "wraps one of memlib's"),
    (_state("memlib.course.doubles:RecordingSummarizer",
            {"inner": _state("memlib.summarize:NoSummarizer", {}), "calls": [["", [], "5", "list"]]}),
     "a recorded call is"),
    (_state("memlib.course.doubles:RecordingSummarizer",
            {"inner": _state("memlib.summarize:NoSummarizer", {}), "calls": [["", ["text"], 5, "list"]]}),
     "not a valid RecordingSummarizer"),
    (_state("memlib.course.doubles:RecordingSummarizer", {"inner": _state("memlib.summarize:NoSummarizer", {})}),
     "its inner summarizer and its calls"),
])
def test_recall_and_summarizer_states_are_decoded_strictly(data, message) -> None:
    with pytest.raises(wire.WireError, match=message):
        wire.decode(data)


@pytest.mark.parametrize("data, message", [
    ({"$": "dataclass", "type": "os:system", "fields": {}}, "may cross"),
    ({"$": "state", "type": "subprocess:Popen", "state": {}}, "may cross"),
    ({"$": "nonsense"}, "unknown tag"),
    ({"$": "handle", "id": 1}, "handle where only data"),
    ({"$": "float", "repr": "__import__('os')"}, "not a float"),
    ({"$": "dataclass", "type": "memlib.agent:ToolCall", "fields": {"name": "x", "evil": 1}}, "no field"),
])
def test_decoding_refuses_what_is_not_plain_data(data, message) -> None:
    with pytest.raises(wire.WireError, match=message):
        wire.decode(data)


def test_decoding_refuses_deep_nesting_and_json_constants() -> None:
    deep: list = []
    for _ in range(wire.MAX_DEPTH + 5):
        deep = [deep]
    with pytest.raises(wire.WireError, match="levels deep"):
        wire.decode(deep)
    with pytest.raises(wire.WireError, match="NaN is not JSON"):
        wire.loads('{"x": NaN}')


def test_objects_that_lie_about_their_type_are_never_data() -> None:
    class Liar(int):
        def __eq__(self, other):
            return True

    class Text(str):
        def __eq__(self, other):
            return True

    # a number crosses as the number it is: its value, never its methods
    for handle in (None, lambda value: {"$": "handle", "id": 7}):
        sent = wire.decode(wire.encode(Liar(3), handle))
        assert type(sent) is int and sent == 3 and sent != 4
    with pytest.raises(wire.WireError, match="cannot be sent"):
        wire.encode(Text("x"))  # the checker side has no handles
    assert wire.encode(Text("x"), lambda value: {"$": "handle", "id": 7})["$"] == "handle"


def test_errors_cross_as_the_nearest_safe_class() -> None:
    class Mine(KeyError):
        pass

    error = wire.decode_error(wire.encode_error(Mine("missing"), ("answer", 3, "return d[k]")))
    assert isinstance(error, KeyError) and isinstance(error, wire.RemoteError)
    assert type(error).__name__ == "Mine" and error.frame == ("answer", 3, "return d[k]")
    stub = wire.decode_error(wire.encode_error(NotImplementedError("Exercise 2: write bm25_scores")))
    assert is_exercise_stub(stub)
    from memlib.core_memory import CoreMemoryError

    memlib_error = wire.decode_error(wire.encode_error(CoreMemoryError("block 'x' is full")))
    assert isinstance(memlib_error, CoreMemoryError)


# --------------------------------------------------------------------------- the graded cell


def test_graded_call_reads_the_check_and_the_answer_expression() -> None:
    call = checker.graded_call("from memlib.course.checks import check_summarizer\n\ncheck_summarizer(MySummarizer())")
    assert call == checker.GradedCall("memlib.course.checks", "check_summarizer", "MySummarizer()")


@pytest.mark.parametrize("source", [
    "check_add(add)",  # not imported
    "from m import check_add\ncheck_add(add, 2)",
    "from m import check_add\ncheck_add(answer=add)",
    "from m import check_add\nx = 1\ncheck_add(add)",
    "from m import check_add\ncheck_add(add",
    "from .m import check_add\ncheck_add(add)",
])
def test_graded_cells_of_another_shape_are_refused_with_the_shape_expected(source) -> None:
    with pytest.raises(ValueError, match="graded cell"):
        checker.graded_call(source)


# --------------------------------------------------------------------------- a real kernel


def _grade(cells: list[str], tmp_path: Path, seconds: float = 30) -> dict[int, checker.CheckOutcome]:
    """Run `cells` in a real kernel; every cell that calls a fixture check is checked by the checker."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(s) for s in cells]
    outcomes: dict[int, checker.CheckOutcome] = {}

    def hook(index: int):
        call = checker.graded_call(cells[index])

        def run(execute):
            outcome = checker.run_check(call, execute, support=[FIXTURE_CHECKS], scratch=tmp_path / f"c{index}",
                                        seconds=seconds)
            outcomes[index] = outcome
            return kernel_run.CellRun(index, kernel_run.OK if outcome.status == "passed" else kernel_run.ERROR)
        return run

    graded = {i: hook(i) for i, s in enumerate(cells) if s.startswith(("from fixture_checks", "from memlib.course.checks import check_"))}
    sandbox, _ = resolve("none")
    kernel_run.run_notebook(nb, sandbox, tmp_path / "job", [FIXTURE_CHECKS], cell_timeout=seconds, timeout=120,
                            instead=graded)
    return outcomes


CHECK_ADD = "from fixture_checks import check_add\n\ncheck_add(add)"
CHECK_WORDS = "from fixture_checks import check_words\n\ncheck_words(WordCounter)"


@pytest.mark.slow
def test_honest_answers_pass_and_patches_in_the_kernel_change_nothing(tmp_path: Path) -> None:
    outcomes = _grade([
        "def add(a, b):\n    print('adding', a, b)\n    return a + b",
        "class WordCounter:\n    def count(self, text):\n        return len(text.split())",
        CHECK_ADD, CHECK_WORDS,
        # the classic patches: they reach only the kernel's copy of the checks
        "import fixture_checks, sys, types\n"
        "fixture_checks.check_add = lambda answer: None\n"
        "sys.modules['fixture_checks'] = types.SimpleNamespace(check_add=lambda a: None)\n"
        "def add(a, b):\n    return 0",
        CHECK_ADD,
    ], tmp_path)
    assert outcomes[2].status == "passed" and "all checks for fixture-add" in outcomes[2].output
    assert f"{checker.PRINTED_HEADER}\nadding 2 3\nadding -1 1" in outcomes[2].output  # the answer's own prints
    assert outcomes[3].status == "passed" and outcomes[3].calls >= 2
    assert outcomes[5].status == "failed" and "add(2, 3)" in outcomes[5].message


@pytest.mark.slow
def test_lying_objects_missing_answers_and_input_calls_fail_with_a_reason(tmp_path: Path) -> None:
    outcomes = _grade([
        "class Liar(int):\n    def __eq__(self, other):\n        return True\n"
        "def add(a, b):\n    return Liar(0)",
        CHECK_ADD,
        "del add",
        CHECK_ADD,
        "def add(a, b):\n    input('a prompt')\n    return a + b",
        CHECK_ADD,
        "class WordCounter:\n    def count(self, text):\n        raise NotImplementedError('Exercise 2: count the words')",
        CHECK_WORDS,
    ], tmp_path)
    # the number crosses as its value: the lying __eq__ stays in the kernel
    assert outcomes[1].status == "failed" and "add(2, 3) is 0, expected 5" in outcomes[1].message
    assert outcomes[3].status == "failed" and "NameError" in outcomes[3].message
    assert outcomes[5].status == "passed"  # its input() read an empty line; the protocol went on
    assert outcomes[7].status == "failed" and "not solved yet" in outcomes[7].message


@pytest.mark.slow
def test_an_answer_that_hangs_or_kills_its_kernel_fails_and_the_checker_stops(tmp_path: Path) -> None:
    # 15 s, not 5: the check's time counts from before the checker process is up, which took over 5 s once on a
    # loaded CI machine (the timeout then came before the answer ran, with no traceback)
    hang = _grade(["def add(a, b):\n    while True:\n        pass", CHECK_ADD], tmp_path / "hang", seconds=15)
    assert hang[1].status == "timeout" and "time" in hang[1].message
    plain = re.sub(r"\x1b\[[0-9;]*m", "", "\n".join(hang[1].traceback))
    assert "while True" in plain, plain  # where it was stopped
    died = _grade(["import os\ndef add(a, b):\n    os._exit(3)", CHECK_ADD], tmp_path / "died", seconds=20)
    assert died[1].status == "died" and "died" in died[1].message


@pytest.mark.slow
def test_an_answer_that_calls_the_checks_own_code_is_noticed(tmp_path: Path) -> None:
    outcomes = _grade([
        "from memlib.course.checks._common import ordinal\n"
        "helper = ordinal  # taken at definition time, called during the check\n"
        "def add(a, b):\n    helper(1)\n    return a + b",
        CHECK_ADD,
        "def add(a, b):\n    return a + b",
        CHECK_ADD,
    ], tmp_path)
    assert outcomes[1].status == "passed"
    assert outcomes[1].references == ("memlib.course.checks._common.ordinal (the course's own code)",)
    assert "uses memlib's reference implementation" not in outcomes[3].output and outcomes[3].references == ()


@pytest.mark.slow
def test_the_loop_check_runs_the_students_agent_in_the_kernel_and_reads_its_trace(tmp_path: Path) -> None:
    from memlib.course import mutation

    check = "from memlib.course.checks import check_loop\n\ncheck_loop(MyAgent)"
    solution = mutation.exercise_cell(mutation.EXERCISES["04-loop"], ROOT)  # the checkout, not site-packages
    outcomes = _grade([
        solution, check,
        solution.replace("if heartbeats == self.max_heartbeats:", "if heartbeats > self.max_heartbeats:"), check,
        solution.replace("call = self.ask(trace, calls)", "call = self.ask(trace, [])"), check,
    ], tmp_path, seconds=120)
    assert outcomes[1].status == "passed", outcomes[1].message
    assert "PASS  all checks for 04-loop" in outcomes[1].output and outcomes[1].calls > 50
    assert outcomes[3].status == "failed" and "the cap allows 1 + 0" in outcomes[3].message
    assert outcomes[5].status == "failed" and "saw 0 earlier call(s) on its 2nd turn" in outcomes[5].message
def test_the_flush_check_sees_what_the_answer_did_to_recall_and_the_summarizer(tmp_path: Path) -> None:
    import inspect

    from memlib.course.checks import nb02_flush

    check = "from memlib.course.checks import check_flush\n\ncheck_flush(flush)"
    reference = inspect.getsource(nb02_flush.reference_flush).replace("def reference_flush", "def flush")
    outcomes = _grade([
        "from memlib.course.flushing import flush_units\n" + reference, check,
        reference.replace("for message in evicted:", "for message in evicted + evicted[:1]:"), check,
        reference.replace("new_summary = summarizer.summarize(summary, evicted, summary_tokens)",
                          "new_summary = summary\n    for m in evicted:\n"
                          "        new_summary = summarizer.summarize(new_summary, [m], summary_tokens)"), check,
    ], tmp_path, seconds=120)
    assert outcomes[1].status == "passed", outcomes[1].message
    assert outcomes[3].status == "failed" and re.search(r"recall got #\d+ twice", outcomes[3].message)
    assert outcomes[5].status == "failed" and "fold all evicted messages in one call" in outcomes[5].message
