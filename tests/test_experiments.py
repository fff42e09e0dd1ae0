"""Tests for memlib.experiments: nested key-value retrieval and multi-session recall."""

from __future__ import annotations

import random
from datetime import datetime

import pytest

from memlib.agent import Agent
from memlib.archival import ArchivalStore
from memlib.context import MainContext
from memlib.datasets import ConversationQuestion, Turn
from memlib.experiments import (
    KVPagingPolicy, KVTask, WindowReader, kv_line, make_kv_task, make_kv_tasks, phrase_in, run_multisession,
    run_nested_kv,
)
from memlib.tools import MemorySystem


# -- tasks ------------------------------------------------------------------------------


def test_task_shape_and_chain():
    task = make_kv_task(3, n_pairs=20, rng=7)
    pairs = dict(task.pairs)
    assert len(task.pairs) == 20 and len(pairs) == 20            # keys unique
    # every UUID is fresh, except the chain links, which are a value and then a key
    assert len({v for _, v in task.pairs} | set(pairs)) == 40 - task.level
    key = task.start_key
    for _ in range(task.level + 1):
        key = pairs[key]
    assert key == task.answer and task.answer not in pairs
    assert list(task.chain) == [task.start_key, *[pairs[k] for k in task.chain[:-1]]]
    assert task.start_key in task.question


def test_tasks_are_seeded():
    a = make_kv_tasks((0, 2), trials=3, n_pairs=10, seed=4)
    b = make_kv_tasks((0, 2), trials=3, n_pairs=10, seed=4)
    c = make_kv_tasks((0, 2), trials=3, n_pairs=10, seed=5)
    assert a == b and a != c
    assert [t.level for t in a] == [0, 0, 0, 2, 2, 2]
    # uuids come from the seeded generator: the same as uuid.UUID(int=getrandbits(128))
    import uuid
    rng = random.Random(4)
    assert a[0].start_key == str(uuid.UUID(int=rng.getrandbits(128)))


def test_a_trial_hides_one_chain_per_level_in_shared_pairs():
    tasks = make_kv_tasks((0, 1, 4), trials=2, n_pairs=20, seed=0)
    first_trial = [t for t in tasks if t.pairs is tasks[0].pairs]
    assert [t.level for t in first_trial] == [0, 1, 4]
    pairs = dict(tasks[0].pairs)
    for task in first_trial:  # every chain resolves inside the shared pairs
        key = task.start_key
        for _ in range(task.level + 1):
            key = pairs[key]
        assert key == task.answer
    assert len({id(t.pairs) for t in tasks}) == 2


def test_bad_task_input():
    with pytest.raises(ValueError, match="level"):
        make_kv_task(-1)
    with pytest.raises(ValueError, match="n_pairs"):
        make_kv_task(4, n_pairs=3)
    with pytest.raises(ValueError, match="trials"):
        make_kv_tasks(trials=0)
    with pytest.raises(ValueError, match="n_pairs must be an int >= 15"):
        make_kv_tasks((0, 1, 2, 3, 4), trials=1, n_pairs=14)
    with pytest.raises(ValueError, match="repeat"):
        make_kv_tasks((1, 1))
    with pytest.raises(ValueError, match="empty"):
        make_kv_tasks(())
    with pytest.raises(ValueError, match="level"):
        make_kv_tasks((0, -2))
    with pytest.raises(ValueError, match="window"):
        WindowReader(window=10)
    with pytest.raises(ValueError, match="max_pages"):
        KVPagingPolicy(max_pages=0)
    with pytest.raises(ValueError, match="UUID"):
        KVPagingPolicy.start_key("no key here")


# -- a hand-checked tiny case -------------------------------------------------------------

K = [f"00000000-0000-0000-0000-00000000000{i}" for i in range(8)]


def tiny_task(order):
    """Chain K0 -> K1 -> K2 -> K3 (level 2) plus one unrelated pair, in the given prompt order."""
    pairs = {0: (K[0], K[1]), 1: (K[1], K[2]), 2: (K[2], K[3]), 3: (K[4], K[5])}
    return KVTask(tuple(pairs[i] for i in order), K[0], K[3], 2, (K[0], K[1], K[2], K[3]))


def one_token_per_char(text):
    return len(text)


def test_window_reader_by_hand():
    task = tiny_task([0, 1, 2, 3])
    line = len(kv_line(K[0], K[1]) + ",\n")
    fixed = len(WindowReader.INSTRUCTION) + len("}\n" + task.question)
    # room for exactly two pairs: it reaches K2, a key it cannot see, and answers K2 (wrong)
    reader = WindowReader(window=fixed + 2 * line, counter=one_token_per_char)
    assert list(reader.visible(task)) == [K[0], K[1]]
    assert reader.answer(task) == K[2]
    # room for all pairs: right
    assert WindowReader(window=fixed + 4 * line, counter=one_token_per_char).answer(task) == K[3]
    # the start key is cut off: no answer at all
    assert WindowReader(window=fixed + 2 * line, counter=one_token_per_char).answer(tiny_task([3, 2, 1, 0])) is None


def _agent_for(task, page_size=5, decoys=0):  # noqa: D401 - a tiny archive for the hand-checked chain
    archival = ArchivalStore(page_size=page_size)
    for i in range(decoys):  # records that mention K1 as a *value*: they rank with the key's own record
        archival.insert(kv_line(f"decoy-{i}", K[1]))
    for key, value in task.pairs:
        archival.insert(kv_line(key, value))
    return MemorySystem(archival=archival, context=MainContext(window=4096))


def test_paging_agent_by_hand():
    task = tiny_task([3, 2, 1, 0])
    agent = Agent(KVPagingPolicy(), _agent_for(task), max_heartbeats=10)
    trace = agent.step(task.question)
    assert trace.reply == K[3]
    searches = [c.arguments["query"] for c in trace.tool_calls if c.name == "archival_memory_search"]
    assert searches == [K[0], K[1], K[2], K[3]]  # the last search finds K3 is not a key


def test_paging_agent_turns_pages():
    task = tiny_task([0, 1, 2, 3])
    agent = Agent(KVPagingPolicy(max_pages=3), _agent_for(task, decoys=6), max_heartbeats=10)
    trace = agent.step(task.question)
    pages = [c.arguments["page"] for c in trace.tool_calls
             if c.name == "archival_memory_search" and c.arguments["query"] == K[1]]
    assert pages[-1] >= 1 and trace.reply == K[3]
    # one page only: K1's own record is out of reach, so the agent stops early and is wrong
    short = Agent(KVPagingPolicy(max_pages=1), _agent_for(task, decoys=6), max_heartbeats=10).step(task.question)
    assert short.reply == K[1]


def test_heartbeat_cap_limits_depth():
    task = tiny_task([0, 1, 2, 3])
    trace = Agent(KVPagingPolicy(), _agent_for(task), max_heartbeats=1).step(task.question)
    assert trace.reply is None  # cut off mid-chain: no answer sent


# -- the experiment -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def kv():
    return run_nested_kv(levels=(0, 2, 4), trials=6, n_pairs=60, window=1024, seed=1)


def test_nested_kv_paging_strictly_better_when_deep(kv):
    rows = {r["level"]: r for r in kv.table()}
    assert all(r["paging_accuracy"] == 1.0 for r in rows.values())
    assert rows[4]["window_accuracy"] < rows[4]["paging_accuracy"]
    assert rows[4]["window_accuracy"] <= rows[0]["window_accuracy"]
    assert 0 < rows[0]["visible_share"] < 1
    assert [r["paging_calls"] for r in kv.table()] == [2.0, 4.0, 6.0]
    assert "| 4 |" in kv.format_table() and "KVResult(" in repr(kv)


def test_nested_kv_deterministic(kv):
    again = run_nested_kv(levels=(0, 2, 4), trials=6, n_pairs=60, window=1024, seed=1)
    assert again.table() == kv.table()


def test_window_reader_sees_everything_when_it_fits():
    result = run_nested_kv(levels=(4,), trials=3, n_pairs=10, window=8192, seed=0)
    assert result.table()[0]["window_accuracy"] == 1.0


# -- multi-session recall ---------------------------------------------------------------------


def _turn(session, tid, role, text, day):
    return Turn(session, tid, role, datetime(2026, 1, day, 9, tid % 60), text)


def tiny_conversation():
    turns = [_turn("c01", 1, "user", "The plumber comes Thursday at 8 to fix the boiler.", 5),
             _turn("c01", 2, "assistant", "Noted, Thursday at 8.", 5)]
    tid = 3
    for day, session in ((12, "c02"), (19, "c03")):
        for i in range(30):  # filler long enough to push c01 out of a small window
            role = "user" if i % 2 == 0 else "assistant"
            turns.append(_turn(session, tid, role, f"Filler message number {tid} about nothing in particular at all.", day))
            tid += 1
    question = ConversationQuestion("cq-1", "When is the plumber coming?", "Thursday at 8", "Thursday at 8",
                                    (1, 2), "c01")
    return turns, [question]


def test_multisession_by_hand():
    turns, questions = tiny_conversation()
    result = run_multisession(turns, questions, window=300, summary_tokens=0,
                              summarizer=experiments_no_summary())
    probes = {p.distance: p for p in result.probes}
    assert sorted(probes) == [0, 1, 2]
    assert probes[0].baseline_correct and probes[0].paging_source == "main context"
    assert not probes[2].baseline_correct          # evicted, and no summary keeps it
    assert probes[2].paging_correct and probes[2].paging_source in ("conversation_search", "archival_memory_search")
    assert [r["distance"] for r in result.table()] == [0, 1, 2]


def experiments_no_summary():
    from memlib.summarize import NoSummarizer
    return NoSummarizer()


def test_multisession_on_the_data():
    result = run_multisession()
    rows = {r["distance"]: r for r in result.table()}
    assert set(rows) == set(range(10)) and rows[0]["probes"] == 44
    far = [r for d, r in rows.items() if d >= 3]
    assert all(r["paging_accuracy"] > r["baseline_accuracy"] + 0.5 for r in far)
    assert rows[0]["baseline_accuracy"] >= rows[5]["baseline_accuracy"]
    assert result.archived > 0 and "conversation_search" in result.sources()
    again = run_multisession()
    assert again.probes == result.probes


def test_multisession_bad_input():
    turns, questions = tiny_conversation()
    with pytest.raises(ValueError, match="empty"):
        run_multisession([], questions)
    with pytest.raises(ValueError, match="pages"):
        run_multisession(turns, questions, pages=0)
    bad = ConversationQuestion("cq-x", "q?", "a", "a", (1,), "c99")
    with pytest.raises(ValueError, match="c99"):
        run_multisession(turns, [bad])


def test_phrase_in():
    assert phrase_in("Thursday  at 8", ["the plumber: thursday at\n8"])
    assert not phrase_in("Friday", ["Thursday"])


def test_multisession_table_and_repr():
    turns, questions = tiny_conversation()
    ms = run_multisession(turns, questions, window=300, summary_tokens=0, summarizer=experiments_no_summary())
    assert [r["distance"] for r in ms.table()] == [0, 1, 2] and ms.table()[0]["baseline_accuracy"] == 1.0
    assert "| 2 |" in ms.format_table() and "MultiSessionResult(" in repr(ms)


def test_nested_kv_reports_progress_per_level():
    from memlib.experiments import run_nested_kv

    lines = []
    run_nested_kv(levels=(0, 2), trials=3, n_pairs=20, window=512, seed=1, log=lines.append)
    assert lines == ["level 0: 3 questions answered by both readers", "level 2: 3 questions answered by both readers"]
