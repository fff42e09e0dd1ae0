"""The memory tools: schemas and their MemGPT/Letta profiles, every tool's happy path, bad input,
and dispatch that never raises (fuzzed)."""

import collections.abc
import json
import os
import random
from datetime import datetime, timedelta, timezone

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memlib.context import MainContext
from memlib.core_memory import Block, CoreMemory
from memlib.messages import Message
from memlib.tools import (
    MAX_ARG_CHARS,
    MAX_PAUSE_HEARTBEATS,
    TOOL_NAMES,
    TOOL_SCHEMAS,
    TOOLS,
    MemorySystem,
    ToolResult,
    dispatch,
    memgpt_return,
    tool_schemas,
)


class Clock:
    """A clock that ticks one minute per call, for reproducible timestamps."""

    def __init__(self, start=datetime(2026, 1, 5, 9, 0)):
        self.now = start

    def __call__(self):
        self.now += timedelta(minutes=1)
        return self.now


@pytest.fixture
def memory():
    return MemorySystem.create(window=2048, clock=Clock())


def state(memory):
    """Everything a tool could change (ids and the prompt included), for before/after comparisons."""
    ctx = memory.context
    return (memory.core.to_json(), [r.to_dict() for r in memory.archival], memory.archival.next_id,
            [m.to_dict() for m in memory.recall], list(memory.outbox), len(ctx.events), ctx.render(), ctx.used)


# -- schemas ------------------------------------------------------------------------


def test_seven_memgpt_tools_in_function_calling_format():
    assert TOOL_NAMES == (
        "core_memory_append", "core_memory_replace", "archival_memory_insert", "archival_memory_search",
        "conversation_search", "conversation_search_date", "send_message",
    )
    for schema in TOOL_SCHEMAS:
        assert schema["type"] == "function"
        fn = schema["function"]
        assert set(fn) == {"name", "description", "parameters"}
        jsonschema.Draft202012Validator.check_schema(fn["parameters"])
        props = fn["parameters"]["properties"]
        assert ("request_heartbeat" in props) == (fn["name"] != "send_message")
        assert fn["parameters"]["additionalProperties"] is False


def test_core_tools_accept_label_and_name():
    for name in ("core_memory_append", "core_memory_replace"):
        props = TOOLS[name].schema()["function"]["parameters"]["properties"]
        assert {"label", "name"} <= set(props)


def test_schema_parameters_match_memgpt_signatures():
    params = {s["function"]["name"]: s["function"]["parameters"] for s in TOOL_SCHEMAS}
    assert params["core_memory_replace"]["required"] == ["old_content", "new_content"]
    assert params["archival_memory_search"]["properties"]["page"]["type"] == "integer"
    assert params["conversation_search_date"]["required"] == ["start_date", "end_date"]
    assert params["send_message"]["required"] == ["message"]


def test_tool_result_repr_and_content():
    result = ToolResult("OK", "archived as [arc-000001]\nmore", heartbeat=True)
    assert repr(result) == "ToolResult(OK: archived as [arc-000001], heartbeat)"
    assert json.loads(result.to_content()) == {"status": "OK", "message": "archived as [arc-000001]\nmore"}
    with pytest.raises(ValueError):
        ToolResult("Maybe", "x")
    with pytest.raises(TypeError):
        ToolResult("OK", None)


# -- MemorySystem --------------------------------------------------------------------


def test_memory_system_shares_context_stores():
    memory = MemorySystem.create(window=1024)
    assert memory.core is memory.context.core_memory and memory.recall is memory.context.recall
    assert "MemorySystem(CoreMemory([persona 0/2000, human 0/2000]" in repr(memory)


def test_memory_system_without_context_records_into_recall():
    memory = MemorySystem(clock=Clock())
    assert memory.append_message(Message.user("hello")) == []
    assert memory.recall.messages[0].timestamp == datetime(2026, 1, 5, 9, 1)
    assert memory.recall.messages[0].session_id == "s1"


@pytest.mark.parametrize(
    "kwargs, error",
    [
        (dict(core="persona"), TypeError),
        (dict(archival=[]), TypeError),
        (dict(recall={}), TypeError),
        (dict(context="ctx"), TypeError),
        (dict(session_id=3), TypeError),
        (dict(context=MainContext(window=1024), core=CoreMemory.default()), None),
    ],
)
def test_memory_system_rejects_bad_input(kwargs, error):
    if error is None:  # a context without core memory adopts the given one
        memory = MemorySystem(**kwargs)
        assert memory.context.core_memory is memory.core
        return
    with pytest.raises(error):
        MemorySystem(**kwargs)


def test_memory_system_refuses_two_different_cores():
    context = MainContext(window=1024, core_memory=CoreMemory.default())
    with pytest.raises(ValueError, match="different"):
        MemorySystem(context=context, core=CoreMemory.default())


# -- happy paths ---------------------------------------------------------------------


def test_core_memory_append_and_replace(memory):
    result = dispatch("core_memory_append", {"label": "human", "content": "Name: Ada"}, memory)
    assert result.status == "OK" and result.heartbeat is False
    assert "9/2000" in result.message
    result = dispatch(
        "core_memory_replace",
        {"name": "human", "old_content": "Ada", "new_content": "Ada Lovelace", "request_heartbeat": True},
        memory,
    )
    assert result.ok and result.heartbeat is True
    assert memory.core.get("human").value == "Name: Ada Lovelace"
    assert dispatch("core_memory_replace", {"label": "human", "old_content": "Name: Ada Lovelace", "new_content": ""},
                    memory).ok
    assert memory.core.get("human").value == ""


def test_core_edit_updates_the_context_count(memory):
    before = memory.context.segments()["core_memory"]
    dispatch("core_memory_append", {"label": "human", "content": "Name: Ada, a mathematician"}, memory)
    assert memory.context.segments()["core_memory"] > before


def test_archival_insert_carries_provenance(memory):
    memory.turn_id = 14
    result = dispatch("archival_memory_insert", {"content": "The user's sister is called Maya"}, memory)
    assert result.message == "archived as [arc-000001 · session s1 turn 14]"
    (record,) = result.records
    assert (record.session_id, record.turn_id) == ("s1", 14)


def test_archival_search_pages_of_five(memory):
    for i in range(12):
        memory.archival.insert(f"note {i} about the garden")
    first = dispatch("archival_memory_search", {"query": "garden"}, memory)
    assert first.message.startswith(
        "12 archival records match 'garden'; page 1 of 3 (results 1-5); "
        "call archival_memory_search again with page=1 for more:"
    )
    assert len(first.records) == 5 and first.message.count("\n") == 5
    last = dispatch("archival_memory_search", {"query": "garden", "page": 2}, memory)
    assert "page 3 of 3 (results 11-12):" in last.message and "page=3" not in last.message
    assert len(last.records) == 2
    past = dispatch("archival_memory_search", {"query": "garden", "page": 3}, memory)
    assert past.status == "Failed" and "page=0 to page=2" in past.message


def test_archival_search_result_lines_have_ids_and_provenance(memory):
    memory.archival.insert("The user's sister is called Maya", session_id="s2", turn_id=14)
    result = dispatch("archival_memory_search", {"query": "sister"}, memory)
    assert "1. [arc-000001 · session s2 turn 14] (score" in result.message
    assert result.message.startswith("1 archival record matches 'sister'; page 1 of 1 (result 1):")


def test_search_with_no_match_is_ok_and_says_what_to_try(memory):
    result = dispatch("archival_memory_search", {"query": "zebra"}, memory)
    assert result.ok and "no archival records match 'zebra'; try other words" == result.message


def test_conversation_search_finds_an_evicted_message():
    memory = MemorySystem.create(window=300, clock=Clock())
    memory.append_message(Message.user("I have a dentist appointment on Friday at 9"))
    for i in range(40):
        memory.append_message(Message.user(f"filler message number {i} about the weather today"))
    assert all("dentist" not in m.content for m in memory.context.messages)
    result = dispatch("conversation_search", {"query": "dentist"}, memory)
    assert result.ok and "[msg #0 · session s1 · 2026-01-05 09:01] user: I have a dentist" in result.message
    assert result.records[0].id == 0


def test_conversation_search_leaves_out_the_message_being_answered():
    # MemGPT writes a turn's messages to recall storage after the turn's calls ran: a search
    # made while answering a message never finds that message itself
    memory = MemorySystem.create(window=2000, clock=Clock())
    memory.append_message(Message.user("I have a dentist appointment on Friday at 9"))
    memory.append_message(Message.user("What did I tell you about the dentist?"))
    asking = memory.recall.messages[-1]
    memory.turn_id = asking.id  # what the agent loop sets while it handles this message
    for tool, args in (("conversation_search", {"query": "dentist"}),
                       ("conversation_search_date", {"start_date": "2026-01-05", "end_date": "2026-01-05"})):
        result = dispatch(tool, args, memory)
        assert [m.id for m in result.records] == [memory.recall.messages[0].id], (tool, result.message)
        assert "What did I tell you" not in result.message and "1 message" in result.message
    memory.turn_id = None  # outside a turn every message is searchable
    assert len(dispatch("conversation_search", {"query": "dentist"}, memory).records) == 2


def test_conversation_search_hides_tool_bookkeeping(memory):
    memory.append_message(Message.assistant("archival_memory_search(query='dentist')", tool_call_id="c1",
                                            name="archival_memory_search"))
    memory.append_message(Message.tool('{"status": "OK", "message": "no dentist"}', "c1"))
    memory.append_message(Message.assistant("Your dentist is on Friday", tool_call_id="c2", name="send_message"))
    result = dispatch("conversation_search", {"query": "dentist"}, memory)
    assert len(result.records) == 1 and result.records[0].content == "Your dentist is on Friday"


def test_conversation_search_date(memory):
    for i in range(7):
        memory.append_message(Message.user(f"message {i}", timestamp=datetime(2026, 1, 1 + i, 12)))
    result = dispatch("conversation_search_date", {"start_date": "2026-01-02", "end_date": "2026-01-04"}, memory)
    assert result.message.startswith("3 messages were sent from 2026-01-02 to 2026-01-04; page 1 of 1")
    assert [m.content for m in result.records] == ["message 1", "message 2", "message 3"]
    none = dispatch("conversation_search_date", {"start_date": "2025-01-01", "end_date": "2025-01-02"}, memory)
    assert none.ok and "try a wider date range" in none.message


def test_send_message_goes_to_the_outbox(memory):
    result = dispatch("send_message", {"message": "Hello Ada"}, memory)
    assert result.ok and result.heartbeat is False and memory.outbox == ["Hello Ada"]


def test_arguments_as_json_text(memory):
    assert dispatch("archival_memory_insert", '{"content": "The sky is blue"}', memory).ok
    assert dispatch("archival_memory_search", b'{"query": "sky"}', memory).ok


# -- bad input ----------------------------------------------------------------------

HUGE = "x" * (MAX_ARG_CHARS + 1)
BAD_CALLS = [
    ("no_such_tool", {}, "unknown tool 'no_such_tool'; the tools are core_memory_append"),
    (None, {}, "unknown tool None"),
    (42, {}, "unknown tool 42"),
    ("core_memory_append", {"label": "human"}, "missing 'content'; call it as core_memory_append(label, content"),
    ("core_memory_append", {"content": "x"}, "missing 'label'"),
    ("core_memory_append", {"label": "pets", "content": "x"}, "no block 'pets' in core memory; known blocks"),
    ("core_memory_append", {"label": "human", "content": ""}, "content is empty"),
    ("core_memory_append", {"label": "human", "content": 5}, "content must be a string, got 5 (int)"),
    ("core_memory_append", {"label": "human", "content": None}, "content must be a string"),
    ("core_memory_append", {"label": "human", "content": "x", "colour": "red"}, "has no argument(s) 'colour'"),
    ("core_memory_append", {"label": "human", "name": "persona", "content": "x"}, "got both label"),
    ("core_memory_append", {"label": "human", "content": "x" * 2001}, "over its limit"),
    ("core_memory_append", {"label": "human", "content": HUGE}, "over the 20,000 limit"),
    ("core_memory_append", {"label": "human", "content": "bad \ud800 text"}, "lone surrogates"),
    ("core_memory_append", {"label": "rules", "content": "x"}, "read-only"),
    ("core_memory_append", {"label": "human", "content": "x", "request_heartbeat": "yes"},
     "request_heartbeat must be a boolean"),
    ("core_memory_replace", {"label": "human", "old_content": "", "new_content": "x"}, "old_content is empty"),
    ("core_memory_replace", {"label": "human", "old_content": "Bob", "new_content": "x"},
     "old_content 'Bob' not found in block 'human'; copy the exact text from core memory or use core_memory_append"),
    ("core_memory_replace", {"label": "human", "old_content": "Ada"}, "missing 'new_content'"),
    ("core_memory_replace", {"label": "human", "old_content": "Ada", "new_content": "x" * 2000}, "over its limit"),
    ("archival_memory_insert", {}, "missing 'content'"),
    ("archival_memory_insert", {"content": "   "}, "text is empty"),
    ("archival_memory_insert", {"content": ["a"]}, "content must be a string"),
    ("archival_memory_insert", {"content": HUGE}, "over the 20,000 limit"),
    ("archival_memory_search", {"query": ""}, "query is empty"),
    ("archival_memory_search", {"query": "x", "page": -1}, "page must be 0 or more"),
    ("archival_memory_search", {"query": "x", "page": "1"}, "page must be an integer"),
    ("archival_memory_search", {"query": "x", "page": 1.0}, "page must be an integer"),
    ("archival_memory_search", {"query": "x", "page": True}, "page must be an integer"),
    ("conversation_search", {"query": 3}, "query must be a string"),
    ("conversation_search", {"query": "  "}, "query is empty"),
    ("conversation_search", {"query": "x", "page": -3}, "page must be 0 or more"),
    ("conversation_search_date", {"start_date": "yesterday", "end_date": "2026-01-01"},
     "start_date must be a date written YYYY-MM-DD"),
    ("conversation_search_date", {"start_date": "2026-01-01", "end_date": "2026-02-30"}, "end_date must be a date"),
    ("conversation_search_date", {"start_date": "2026-02-01", "end_date": "2026-01-01"}, "swap them"),
    ("conversation_search_date", {"start_date": "2026-01-01"}, "missing 'end_date'"),
    ("send_message", {}, "missing 'message'"),
    ("send_message", {"message": ""}, "message is empty"),
    ("send_message", {"message": "hi", "request_heartbeat": True}, "has no argument(s) 'request_heartbeat'"),
]


@pytest.mark.parametrize("name, arguments, expected", BAD_CALLS)
def test_bad_calls_fail_with_guidance_and_change_nothing(name, arguments, expected):
    memory = MemorySystem.create(window=2048, clock=Clock(),
                                 core=CoreMemory([Block("human", "Name: Ada Ada"), Block("rules", "Be kind", read_only=True)]))
    memory.core.replace("human", "Name: Ada Ada", "Name: Ada")
    before = state(memory)
    result = dispatch(name, arguments, memory)
    assert result.status == "Failed"
    assert expected in result.message
    assert result.heartbeat is True  # a failure hands control back so the agent can fix the call
    assert state(memory) == before


@pytest.mark.parametrize(
    "arguments, expected",
    [
        ("{not json", "not valid JSON"),
        ("[1, 2]", "must be a JSON object"),
        (b"\xff\xfe", "not valid UTF-8"),
        (42, "must be a JSON object"),
        ({1: "x"}, "argument names must be strings"),
        ("[" * 100_000, "characters long"),
    ],
)
def test_malformed_arguments(memory, arguments, expected):
    result = dispatch("archival_memory_search", arguments, memory)
    assert result.status == "Failed" and expected in result.message


def test_dispatch_without_a_memory_system():
    result = dispatch("send_message", {"message": "hi"}, memory=None)
    assert result.status == "Failed" and "MemorySystem.create()" in result.message


def test_core_edit_too_big_for_the_window_is_rolled_back():
    memory = MemorySystem.create(window=300)
    before = memory.core.to_json()
    result = dispatch("core_memory_append", {"label": "human", "content": "word " * 390}, memory)
    assert result.status == "Failed" and "edit undone" in result.message
    assert memory.core.to_json() == before
    assert memory.context.used <= memory.context.window


# -- property: dispatch never raises -------------------------------------------------

values = st.one_of(
    st.text(max_size=30), st.integers(-3, 5), st.booleans(), st.none(), st.floats(allow_nan=True),
    st.lists(st.integers(), max_size=2), st.sampled_from(["human", "persona", "2026-01-02", "", "Ada"]),
)
keys = st.sampled_from(["label", "name", "content", "old_content", "new_content", "query", "page",
                        "start_date", "end_date", "message", "request_heartbeat", "extra"])
arguments = st.one_of(st.dictionaries(keys, values, max_size=5), st.text(max_size=40), st.none(), st.integers())
names = st.one_of(st.sampled_from(TOOL_NAMES), st.text(max_size=10), st.none(), st.integers())


def _as_schema_args(args):
    args = dict(args)
    if "name" in args and "label" not in args:
        args["label"] = args.pop("name")
    return args


@settings(max_examples=400, deadline=None)
@given(name=names, args=arguments)
def test_dispatch_never_raises(name, args):
    memory = _FUZZ_MEMORY  # shared on purpose: state piles up across examples, as in a long session
    result = dispatch(name, args, memory)
    assert isinstance(result, ToolResult) and result.status in ("OK", "Failed")
    assert isinstance(result.message, str) and result.message
    if result.ok and isinstance(args, dict):
        # Anything dispatch accepts also satisfies the published schema.
        schema = TOOLS[name].schema()["function"]["parameters"]
        checked = {k: v for k, v in args.items() if k != "name"} if "label" in args else args
        jsonschema.validate(_as_schema_args(checked), schema)
    for block in memory.core:
        assert block.chars <= block.limit


_FUZZ_MEMORY = MemorySystem.create(window=1024, clock=Clock())
_FUZZ_MEMORY.archival.insert("Ada likes tea")
_FUZZ_MEMORY.append_message(Message.user("hello Ada"))


# -- results that do not fit (issue 14) -------------------------------------------------


def test_a_tool_result_too_large_for_the_window_is_cut_with_a_note_in_the_loop():
    from memlib.agent import Agent, ScriptedPolicy
    from memlib.tools import RESULT_CHAR_LIMIT, result_message

    memory = MemorySystem.create(window=256, clock=Clock())
    for i in range(12):
        memory.archival.insert(f"garden fact {i}: " + "the tomatoes need water every morning " * 7)
    agent = Agent(ScriptedPolicy([("archival_memory_search", {"query": "garden tomatoes water",
                                                               "request_heartbeat": True}),
                                  ("send_message", {"message": "done"})]), memory)
    trace = agent.step("what about the garden?")  # the page is bigger than the whole window
    assert trace.reply == "done"
    tool_messages = [m for m in memory.recall if m.role == "tool"]
    first = json.loads(tool_messages[0].content)
    assert first["status"] == "OK" and "[cut to" in first["message"]
    assert memory.context.used <= memory.context.window
    long = ToolResult("OK", "x" * 10_000)
    assert len(json.loads(result_message(long, "c1").content)["message"]) < RESULT_CHAR_LIMIT + 80


# -- dispatch fuzzing ---------------------------------------------------------
# Seeded: thousands of hostile calls, and nothing escapes. Every call comes back as a
# ToolResult; none says "failed unexpectedly"; a Failed call changes nothing (no core
# edit, no archival record, no burnt id, no context event); and no result echoes more
# than a short prefix of any input.

CALLS = int(os.environ.get("MEMLIB_FUZZ_CALLS", "3000"))
SEED = int(os.environ.get("MEMLIB_FUZZ_SEED", "14"))


class NastyName(str):
    def __repr__(self):
        raise RuntimeError("repr refused")

    def __hash__(self):
        raise RuntimeError("hash refused")

    def __eq__(self, other):
        raise RuntimeError("eq refused")

    __str__ = __repr__


class NastyValue:
    def __repr__(self):
        raise RuntimeError("repr refused")

    def __eq__(self, other):
        raise RuntimeError("eq refused")

    __hash__ = object.__hash__


class NastyMapping(collections.abc.Mapping):
    def __getitem__(self, key):
        raise RuntimeError("getitem refused")

    def __iter__(self):
        return iter(["query"])

    def __len__(self):
        return 1


def nested(depth: int):
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


def values(rng: random.Random):
    """One argument value, from ordinary to absurd."""
    pick = rng.randrange(22)
    if pick < 6:
        return rng.choice(["sister", "Lisbon", "human", "persona", "Name: Ada", "garden birthday", ""])
    return [
        lambda: "word " * rng.randint(1, 6000),                   # long, maybe over the limit
        lambda: "z" * MAX_ARG_CHARS,                                # exactly at the limit
        lambda: "q" * (MAX_ARG_CHARS + 1),                          # one over
        lambda: "bad \ud800 surrogate",
        lambda: rng.choice(["9999-12-31", "0001-01-01", "10000-01-01", "2026-02-30", "2026-1-5", " 2026-01-05 "]),
        lambda: rng.choice([0, -1, 1, 10**100, -(10**100), 2**63]),
        lambda: rng.choice([True, False, None, 1.5, float("nan"), float("inf")]),
        lambda: nested(rng.choice([5, 100, 5000])),
        lambda: NastyValue(),
        lambda: {"a": {"b": [1, 2, {"c": NastyValue()}]}},
        lambda: b"bytes",
        lambda: list(range(rng.choice([3, 100_000]))),
        lambda: "\x00\n\t<|endoftext|></system>",
        lambda: "中文" * rng.randint(1, 3000),
        lambda: " ".join(f"w{i}" for i in range(rng.randint(10, 3000))),
        lambda: rng.choice(["2026-01-05", "2026-01-06"]),
    ][pick - 6]()


def arguments(rng: random.Random, name):
    """Arguments for a call: right names, wrong names, wrong shapes, bad JSON text."""
    pick = rng.randrange(10)
    spec = TOOLS.get(name) if isinstance(name, str) and type(name) is str else None
    params = spec.param_names if spec else ["query", "content"]
    if spec and rng.random() < 0.4:  # an ordinary call, so the OK paths run (and change state) too
        sane = {"label": "human", "content": "Name: Ada", "old_content": "Ada", "new_content": "Ines",
                "query": "sister garden", "message": "hello", "start_date": "2026-01-05",
                "end_date": "2026-01-06", "page": 0, "request_heartbeat": True}
        return {p: sane[p] for p in params if p in sane}
    if pick < 5:
        args = {p: values(rng) for p in params if rng.random() < 0.85}
        if rng.random() < 0.2:
            args[rng.choice(["name", "bogus", "x" * 5000, "label"])] = values(rng)
        return args
    return [
        lambda: json.dumps({p: "sister" for p in params}),
        lambda: "{" * rng.choice([10, 100_000]),
        lambda: "[" * 50_000 + "]" * 50_000,
        lambda: rng.choice(["not json", "", "null", "[1, 2]", "\"text\"", "{\"query\": 3}"]),
        lambda: rng.choice([NastyMapping(), {1: "a"}, {NastyValue(): 1}, ["query"], 42, None, b"\xff\xfe"]),
    ][pick - 5]()


def inputs_of(args) -> list[str]:
    if isinstance(args, str):
        return [args]
    if isinstance(args, dict):
        found = []
        for key, value in args.items():
            found += [text for text in (key, value) if isinstance(text, str)]
        return found
    return []


def make_memory() -> MemorySystem:
    clock = iter(datetime(2026, 1, 5, 9, 0) + timedelta(minutes=i) for i in range(10**7))
    memory = MemorySystem.create(window=1024, clock=lambda: next(clock))
    memory.archival.insert("My sister Ines moved to Lisbon; her birthday is in the garden season")
    # A message whose timestamp carries a time zone: date search must still work.
    memory.append_message(Message.user("the garden party", timestamp=datetime(2026, 1, 5, 23, 30,
                                                                                tzinfo=timezone(timedelta(hours=-5)))))
    return memory


def test_dispatch_fuzz_nothing_escapes():
    rng = random.Random(SEED)
    memory = make_memory()
    names = list(TOOL_NAMES) * 3 + ["nope", "", "send_message ", NastyName("x"), None, 3, b"send_message",
                                    "x" * 100_000]
    outcomes = {"OK": 0, "Failed": 0}
    for i in range(CALLS):
        if i % 500 == 499:
            memory = make_memory()  # keep the stores small enough to stay fast
        name = rng.choice(names)
        args = arguments(rng, name)
        before = state(memory)
        result = dispatch(name, args, memory)
        assert isinstance(result, ToolResult)
        assert "unexpectedly" not in result.message, (i, result.message)
        outcomes[result.status] += 1
        if not result.ok:
            assert state(memory) == before, (i, name if type(name) is str else type(name), result.message)
        for text in inputs_of(args):
            if len(text) > 400:
                assert text[:400] not in result.message, f"call {i} echoed a long input"
        assert len(result.message) <= 4000
    print(f"dispatch fuzz: {CALLS} calls, seed {SEED}: {outcomes}")
    assert outcomes["OK"] > CALLS // 10 and outcomes["Failed"] > CALLS // 4  # both paths were exercised


def test_date_search_with_time_zones_and_extreme_days():
    memory = make_memory()
    result = dispatch("conversation_search_date", {"start_date": "2026-01-06", "end_date": "2026-01-06"}, memory)
    assert result.ok and "1 message was sent" in result.message  # 23:30 at UTC-5 is 04:30 UTC next day
    result = dispatch("conversation_search_date", {"start_date": "0001-01-01", "end_date": "9999-12-31"}, memory)
    assert result.ok and "1 message was sent" in result.message
    result = dispatch("conversation_search_date", {"start_date": "2026-01-05", "end_date": "10000-01-01"}, memory)
    assert result.status == "Failed" and "YYYY-MM-DD" in result.message


def test_a_name_whose_repr_raises_is_a_plain_failure():
    result = dispatch(NastyName("no_such_tool"), {}, make_memory())
    assert result.status == "Failed" and result.message.startswith("unknown tool <NastyName")
    # Its text is what counts: a str subclass naming a real tool runs that tool.
    assert dispatch(NastyName("send_message"), {"message": "hi"}, make_memory()).ok


def test_failed_insert_burns_no_id():
    memory = make_memory()
    before = memory.archival.next_id
    assert dispatch("archival_memory_insert", {"content": "   "}, memory).status == "Failed"
    assert memory.archival.next_id == before
    assert dispatch("archival_memory_insert", {"content": "a fact"}, memory).message.startswith(
        f"archived as [arc-{before:06d}")


# -- tool profiles: MemGPT 0.3.25's and the last Letta server's surfaces, pinned to the fact sheet --


def surface(profile):
    return {f["function"]["name"]: f["function"]["parameters"] for f in tool_schemas(profile)}


def signature(params):
    return list(params["properties"]), params["required"]


def test_memgpt_03_surface():
    tools = surface("memgpt-0.3")
    assert sorted(tools) == sorted([
        "send_message", "pause_heartbeats", "conversation_search", "conversation_search_date",
        "archival_memory_insert", "archival_memory_search", "core_memory_append", "core_memory_replace"])
    assert signature(tools["send_message"]) == (["message"], ["message"])
    assert signature(tools["pause_heartbeats"]) == (["minutes"], ["minutes"])
    assert signature(tools["core_memory_append"]) == (["name", "content", "request_heartbeat"],
                                                      ["name", "content", "request_heartbeat"])
    assert signature(tools["core_memory_replace"])[0] == ["name", "old_content", "new_content", "request_heartbeat"]
    # page has a default (0), so it is optional; request_heartbeat is required everywhere it appears
    assert signature(tools["conversation_search_date"]) == (
        ["start_date", "end_date", "page", "request_heartbeat"], ["start_date", "end_date", "request_heartbeat"])
    for name, params in tools.items():
        has = "request_heartbeat" in params["properties"]
        assert has == (name not in ("send_message", "pause_heartbeats")), name
        assert has == ("request_heartbeat" in params["required"]), name
        if has:
            assert params["properties"]["request_heartbeat"]["type"] == "boolean"
    assert MAX_PAUSE_HEARTBEATS == 360


def test_letta_surface():
    tools = surface("letta")
    assert "conversation_search_date" not in tools and "pause_heartbeats" not in tools
    assert signature(tools["core_memory_append"]) == (["label", "content"], ["label", "content"])
    assert signature(tools["memory_replace"]) == (["label", "old_string", "new_string"],
                                                  ["label", "old_string", "new_string"])
    assert signature(tools["memory_insert"]) == (["label", "new_string", "insert_line"], ["label", "new_string"])
    assert signature(tools["memory_rethink"]) == (["label", "new_memory"], ["label", "new_memory"])
    assert signature(tools["memory_finish_edits"]) == ([], [])
    assert signature(tools["archival_memory_insert"]) == (["content", "tags"], ["content"])
    assert signature(tools["archival_memory_search"]) == (
        ["query", "tags", "tag_match_mode", "top_k", "start_datetime", "end_datetime"], ["query"])
    assert tools["archival_memory_search"]["properties"]["tag_match_mode"]["enum"] == ["any", "all"]
    # Letta's query is optional (function_sets/base.py: query: Optional[str] = None)
    assert signature(tools["conversation_search"]) == (["query", "roles", "limit", "start_date", "end_date"], [])
    assert not any("request_heartbeat" in p["properties"] for p in tools.values())


def test_memlib_surface_is_today_s_and_a_fresh_copy():
    a = tool_schemas("memlib")
    assert a == TOOL_SCHEMAS and a is not TOOL_SCHEMAS
    a[0]["function"]["name"] = "changed"
    assert TOOL_SCHEMAS[0]["function"]["name"] != "changed"
    memory_tools = [f["function"]["name"] for f in TOOL_SCHEMAS if f["function"]["name"] != "send_message"]
    assert len(memory_tools) == 6  # six memory tools, plus send_message


def test_unknown_profile_is_named():
    with pytest.raises(ValueError, match="unknown tool profile 'memgpt'; choose one of memlib, memgpt-0.3, letta"):
        tool_schemas("memgpt")


def test_memgpt_envelope():
    text = memgpt_return(ToolResult("Failed", "Content not found"), datetime(2024, 5, 1, 14, 5))
    assert json.loads(text) == {"status": "Failed", "message": "Content not found", "time": "2024-05-01 02:05:00 PM"}
    with pytest.raises(TypeError):
        memgpt_return({"status": "OK"})
