"""Seeded fuzzing of `dispatch`: thousands of hostile calls, nothing escapes.

Every call must come back as a ToolResult; none may say "failed unexpectedly";
a Failed call changes nothing (no core edit, no archival record, no burnt id,
no context event); and no result echoes more than a short prefix of any input.
"""

from __future__ import annotations

import collections.abc
import json
import os
import random
from datetime import datetime, timedelta, timezone

from memlib.messages import Message
from memlib.tools import MAX_ARG_CHARS, TOOL_NAMES, TOOLS, MemorySystem, ToolResult, dispatch

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


def state(memory: MemorySystem):
    ctx = memory.context
    return (memory.core.to_json(), [r.to_dict() for r in memory.archival], memory.archival.next_id,
            [m.to_dict() for m in memory.recall], list(memory.outbox), len(ctx.events), ctx.render(), ctx.used)


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
