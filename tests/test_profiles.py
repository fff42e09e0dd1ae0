"""memlib.context profiles: the paper's, MemGPT's code and Letta's paging, pinned on fixed conversations.

Token counts here use a word counter over the rendered prompt, so each size is
known exactly: a message's line "[user] m0 w w ..." of 100 words is 100 tokens,
and the system section "<system> sys </system>" is 3.
"""

import pytest

from memlib.context import PROFILES, MainContext, PagingProfile, select_eviction
from memlib.messages import Message
from memlib.summarize import ExtractiveSummarizer


def words(text):
    return len(text.split())


def msg(i, size=100):
    # size tokens in all: the "[user]" prefix, the id word and size - 2 filler words
    return Message.user(f"m{i} " + "w " * (size - 2))


def run(profile, sizes, window=1000):
    ctx = MainContext(window=window, system_prompt="sys", counter=words, profile=profile)
    log = []  # (turn, kind, message id or None)
    for turn, size in enumerate(sizes, start=1):
        for e in ctx.append(msg(turn - 1, size)):
            if e.kind in ("evict", "pressure", "flush"):
                log.append((turn, e.kind, e.message.id if e.message else None))
        assert ctx.used <= window
    return ctx, log


def evicted_at(log):
    out = {}
    for turn, kind, mid in log:
        if kind == "evict":
            out.setdefault(turn, []).append(mid)
    return out


def test_the_three_profiles_carry_their_sources_numbers():
    paper, memgpt, letta = PROFILES["paper"], PROFILES["memgpt"], PROFILES["letta"]
    assert (paper.warn_at, paper.trigger_at, paper.evict, paper.amount) == (0.7, 1.0, "to_share", 0.5)
    assert (memgpt.warn_at, memgpt.trigger, memgpt.trigger_at) == (0.75, "before_append", 1.0)
    assert (memgpt.evict, memgpt.amount, memgpt.keep_last) == ("token_share", 0.75, 3)
    assert (letta.warn_at, letta.trigger, letta.trigger_at) == (None, "after_append", 0.9)
    assert (letta.evict, letta.amount, letta.keep_last) == ("count_share", 0.30, 0)
    assert "2310.08560" in paper.source and "0.3.25" in memgpt.source and "56ba9c25" in letta.source


def test_paper_warns_at_70_and_flushes_at_100_down_to_50():
    ctx, log = run("paper", [100] * 10)
    # 3 (system) + 7 x 100 = 703 >= 700: the warning comes with the 7th message
    assert [(t, k) for t, k, _ in log if k == "pressure"] == [(7, "pressure")]
    # the 10th message would make 1003 > 1000: evict until 3 + rest + 100 <= 500, i.e. 6 messages
    assert evicted_at(log) == {10: [0, 1, 2, 3, 4, 5]}
    assert ctx.used == 403
    assert ctx.warn_at == 0.7 and ctx.flush_at == 1.0 and ctx.evict_to == 0.5


def test_paper_profile_is_the_explicit_default():
    a, log_a = run("paper", [100, 60, 140] * 8)
    b = MainContext(window=1000, system_prompt="sys", counter=words)
    log_b = []
    for turn, size in enumerate([100, 60, 140] * 8, start=1):
        log_b += [(turn, e.kind, e.message.id if e.message else None)
                  for e in b.append(msg(turn - 1, size)) if e.kind in ("evict", "pressure", "flush")]
    assert log_a == log_b and a.used == b.used


def test_memgpt_warns_at_75_once_per_period_and_waits_for_overflow():
    ctx, log = run("memgpt", [100] * 9)
    # 803 >= 750 after 8 messages; 903 (90 %) is no reason to summarise yet
    assert log == [(8, "pressure", None)]
    ctx.append(msg(99, 50))          # 953: still fits, still no second warning, no eviction
    assert [e.kind for e in ctx.events[-1:]] == ["append"]


def test_memgpt_summarises_the_oldest_75_percent_of_message_tokens():
    # a 2000-token window of 50-token messages: the 40th would overflow (3 + 39 x 50 + 50 > 2000)
    ctx, log = run("memgpt", [50] * 40, window=2000)
    ev = evicted_at(log)
    assert list(ev) == [40]
    # 39 queued messages = 1950 tokens; 75 % is 1462.5: 30 messages (1500 tokens) are the oldest 75 %
    assert ev[40] == list(range(30))
    assert [m.id for m in ctx.messages] == list(range(30, 40))


def test_memgpt_keeps_the_last_three_messages():
    # with 100-token messages the 10th overflows; 75 % of 900 would be 7 messages, but the
    # last 3 queued are kept, so only 6 go
    ctx, log = run("memgpt", [100] * 10)
    assert evicted_at(log) == {10: [0, 1, 2, 3, 4, 5]}
    assert [m.id for m in ctx.messages] == [6, 7, 8, 9]


def test_memgpt_never_splits_a_call_from_its_result():
    ctx = MainContext(window=1000, system_prompt="sys", counter=words, profile="memgpt")
    evicted = []
    for i in range(30):
        ctx.append(Message.assistant(f"call{i} " + "w " * 46, tool_call_id=f"c{i}", name="archival_memory_search"))
        for e in ctx.append(Message.tool(f"res{i} " + "w " * 76, tool_call_id=f"c{i}")):
            if e.kind == "evict":
                evicted.append(e.message)
        queue = ctx.messages
        assert queue[0].role == "assistant"
        assert all(b.tool_call_id == a.tool_call_id for a, b in zip(queue, queue[1:]) if b.role == "tool")
    assert evicted and evicted[-1].role == "tool"


def test_letta_has_no_warning_and_evicts_30_percent_by_count_past_90():
    ctx, log = run("letta", [100] * 12)
    assert not [k for _, k, _ in log if k == "pressure"]
    # after the 9th message the prompt is 903 > 900: round(0.3 x 9) = 3 messages go;
    # 603 + 3 x 100 = 903 again after the 12th: 3 more
    assert evicted_at(log) == {9: [0, 1, 2], 12: [3, 4, 5]}
    assert ctx.used == 603
    assert ctx.warn_at is None and ctx.evict_to is None


def test_letta_counts_messages_not_tokens():
    # one huge old message and many small ones: 30 % by count takes 3 messages whatever their size
    ctx, log = run("letta", [400] + [60] * 9)
    first = min(evicted_at(log))
    assert evicted_at(log)[first] == [0, 1, 2]


def test_every_profile_keeps_everything_in_recall_and_never_overflows():
    for name in PROFILES:
        ctx = MainContext(window=600, system_prompt="sys", profile=name, summarizer=ExtractiveSummarizer())
        ctx.append(Message.user("My sister Ines moved to Lisbon in 2023."))
        for i in range(80):
            ctx.append(Message.user(f"turn {i}: the weather was mild and the tea was warm"))
            assert ctx.used <= ctx.window
        assert len(ctx.recall) == 81 and all("Ines" not in m.content for m in ctx.messages), name
        assert ctx.summary, name


def test_a_profile_share_too_small_for_the_next_message_takes_more():
    tiny = PagingProfile("tiny", "test", warn_at=None, trigger="before_append", trigger_at=1.0,
                         evict="count_share", amount=0.1)
    ctx, log = run(tiny, [100] * 9 + [500])
    # 10 % of 9 messages is 1, but the 500-token message needs 3 + rest + 500 <= 1000
    assert evicted_at(log) == {10: [0, 1, 2, 3, 4]}


def test_select_eviction_on_units():
    units = [(1, 100)] * 10
    assert select_eviction(PROFILES["paper"], units, fixed=0, incoming=0, window=1000, limit=1000) == 5
    assert select_eviction(PROFILES["memgpt"], units, fixed=0, incoming=0, window=1000, limit=1000) == 7
    assert select_eviction(PROFILES["letta"], units, fixed=0, incoming=0, window=1000, limit=1000) == 3
    # a unit of three messages (a call and two results) counts three towards keep_last:
    # 75 % of 80 tokens would reach into it, but it holds the last 3 messages, so it stays
    units = [(1, 10)] * 5 + [(3, 30)]
    assert select_eviction(PROFILES["memgpt"], units, fixed=0, incoming=0, window=1000, limit=1000) == 5
    # and three towards Letta's count: round(0.3 x 8) = 2 messages
    units = [(3, 30)] + [(1, 10)] * 5
    assert select_eviction(PROFILES["letta"], units, fixed=0, incoming=0, window=1000, limit=1000) == 1


def test_bad_profile_arguments_are_named():
    with pytest.raises(ValueError, match="unknown profile 'mem-gpt'"):
        MainContext(window=500, profile="mem-gpt")
    with pytest.raises(ValueError, match="not both"):
        MainContext(window=500, profile="letta", warn_at=0.6)
    with pytest.raises(TypeError, match="profile must be"):
        MainContext(window=500, profile=3)
    with pytest.raises(ValueError, match="evict must be"):
        PagingProfile("x", "y", warn_at=None, trigger="before_append", trigger_at=1.0, evict="half", amount=0.5)
    # True is an int to Python; as a count of messages to keep, or of summary tokens, it is a mistake
    with pytest.raises(ValueError, match="keep_last must be an int >= 0, got True"):
        PagingProfile("x", "y", warn_at=None, trigger="before_append", trigger_at=1.0, evict="to_share",
                      amount=0.5, keep_last=True)
    with pytest.raises(ValueError, match="summary_tokens must be an int >= 0, got True"):
        MainContext(window=500, summary_tokens=True)
    with pytest.raises(ValueError, match=r"window must be an int >= 64 \(a number of tokens\), got 63"):
        MainContext(window=63)
    # explicit thresholds still work and build a custom paper-shaped profile
    ctx = MainContext(window=500, warn_at=0.6, flush_at=0.9, evict_to=0.4)
    assert ctx.profile.name == "custom" and ctx.limit == 450


@pytest.mark.parametrize("name", ["memgpt", "letta"])
def test_a_saved_agent_keeps_its_profile(tmp_path, name):
    from memlib.saves import load_agent, save_agent

    ctx = MainContext(window=600, system_prompt="sys", profile=name, summarizer=ExtractiveSummarizer())
    for i in range(40):
        ctx.append(Message.user(f"turn {i}: the weather was mild and the tea was warm"))
    save_agent(tmp_path / "save", context=ctx)
    loaded = load_agent(tmp_path / "save").context
    assert loaded.profile == ctx.profile and loaded.messages == ctx.messages
    for c in (ctx, loaded):
        for i in range(15):
            c.append(Message.user(f"after the restart {i}: the bus was late again"))
    assert loaded.messages == ctx.messages and loaded.summary == ctx.summary


def test_profile_figure_and_table_come_from_real_replays():
    from memlib.evaluation import evaluate_profile
    from memlib.viz import ProfileExplorer, profile_comparison, profile_histories, table_html

    messages = [("user", f"note {i}: the tram to Leeds left at {i % 12 + 1} pm") for i in range(120)]
    h = profile_histories(messages, window=400)
    fig = profile_comparison(h)
    marks = {t.xaxis: len(t.x) for t in fig.data if t.name == "eviction"}
    assert marks == {"x": sum(bool(s.evicted) for s in h["paper"]), "x2": sum(bool(s.evicted) for s in h["memgpt"]),
                     "x3": sum(bool(s.evicted) for s in h["letta"])}
    assert marks["x3"] > marks["x"] > 0  # Letta evicts smaller bites, more often
    # Letta's panel has no warning line; the paper's has warning, trigger and target
    lines = {(s.xref, s.name) for s in fig.layout.shapes}
    assert ("x3 domain", "warning") not in lines and ("x domain", "evict target") in lines
    ex = ProfileExplorer(messages, window=400)
    rows = ex.goto(50)
    assert [r["profile"] for r in rows] == ["paper", "memgpt", "letta"] and rows[2]["warnings"] == 0
    assert ex.step(3)[0]["tokens used"] == h["paper"][53].used and ex.position == 53
    assert ex.back(100) and ex.position == 0
    with pytest.raises(ValueError, match="upto must be an int from 0 to 120"):
        profile_comparison(h, upto=121)
    assert "<td" in table_html(rows)
    r = evaluate_profile("letta")
    assert r.profile == "letta" and r.warnings == 0 and r.evictions > 0 and 0 < r.retained < 1
    assert r.summary_tokens_in > r.summary_tokens_out > 0


def test_html_table_escapes_and_rejects_empty_input():
    from memlib.viz import table_html

    assert "&lt;b&gt;" in table_html([{"a": "<b>"}])
    with pytest.raises(ValueError, match="non-empty list of dicts"):
        table_html([])
