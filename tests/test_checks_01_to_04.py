"""The graded checks of notebooks 01-04: the reference passes, each plausible mistake fails with its own message."""

from __future__ import annotations

import functools
import random
import re

import pytest

from memlib.agent import ToolCall
from memlib.course.checks import _common as common
from memlib.course.checks import nb01_token_budget as nb01
from memlib.course.checks import nb02_summarizer as nb02
from memlib.course.checks import nb03_bm25 as nb03
from memlib.course.checks import nb04_page_fault as nb04
from memlib.course.checks import CHECKS, CheckFailed, check_bm25, check_page_fault, check_summarizer, check_token_budget
from memlib.summarize import ExtractiveSummarizer, NoSummarizer, TruncatingSummarizer, fit_newest_lines
from memlib.tokens import count


def failure(check, answer) -> str:
    with pytest.raises(CheckFailed) as info:
        check(answer)
    return str(info.value)


def stub(*args, **kwargs):
    raise NotImplementedError("Exercise 9: do the thing")


def test_checks_are_registered_under_their_grade_ids():
    for grade_id in ("01-token-budget", "02-summarizer", "03-bm25", "05-page-fault"):
        assert grade_id in CHECKS


@pytest.mark.parametrize("check", [check_token_budget, check_bm25, check_page_fault])
def test_unsolved_stub_says_not_solved(check):
    message = failure(check, stub)
    assert "not solved yet: Exercise 9: do the thing" in message


def test_ordinal():
    assert [common.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 102)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "102nd"]


# -- 01 token budget ---------------------------------------------------------------


def test_token_budget_reference_passes(capsys):
    check_token_budget(nb01.reference_how_many_fit)
    assert "PASS  all checks for 01-token-budget" in capsys.readouterr().out


def test_reference_how_many_fit_small_example():
    from memlib.context import MESSAGE_OVERHEAD

    msgs = ["one two three", "four five", "six"]
    cost = [count(m) + MESSAGE_OVERHEAD for m in msgs]
    assert nb01.reference_how_many_fit(msgs, sum(cost)) == 3
    assert nb01.reference_how_many_fit(msgs, sum(cost) - 1) == 2
    assert nb01.reference_how_many_fit(msgs, cost[-1]) == 1
    assert nb01.reference_how_many_fit([], 10) == 0
    assert nb01.reference_how_many_fit(msgs, 100, system_prompt="x " * 200) == 0


@pytest.mark.parametrize("kind", sorted(nb01.BUDGET_MISTAKES))
def test_token_budget_mistake_gets_its_message(kind):
    what, hint = nb01.BUDGET_MISTAKES[kind]
    message = failure(check_token_budget, nb01._budget_variant(kind))
    assert what in message and hint in message
    # and no other mistake's message
    for other, (other_what, _) in nb01.BUDGET_MISTAKES.items():
        if other != kind:
            assert other_what not in message


def test_token_budget_wrong_type_and_crash():
    assert "returned list" in failure(check_token_budget, lambda m, w, s="", r=0: list(m))
    assert "raised ZeroDivisionError" in failure(check_token_budget, lambda m, w, s="", r=0: 1 // 0)
    assert "expected your function" in failure(check_token_budget, 3)
    # a mess of several mistakes still gets a concrete example
    message = failure(check_token_budget, lambda m, w, s="", r=0: len(m) // 2)
    assert "budgets are wrong" in message and "expected" in message


# -- 02 summarizer (exercise 1) ---------------------------------------------------------


class StudentLike:
    """What a student would write: rank user sentences by fact cues, keep the best that fit."""

    def summarize(self, previous, evicted, max_tokens):
        def score(s):
            words = s.split()
            value = 2 * sum(any(c.isdigit() for c in w) for w in words) + sum(w[:1].isupper() for w in words[1:])
            return value - 3 * s.rstrip().endswith("?")

        candidates = [line[2:] if line.startswith("- ") else line for line in previous.splitlines() if line.strip()]
        for m in evicted:
            if m.role == "user":
                candidates += [s for s in re.split(r"(?<=[.!?])\s+", m.content) if s]
        chosen: list[int] = []
        for i in sorted(range(len(candidates)), key=lambda i: (-score(candidates[i]), -i)):
            if score(candidates[i]) <= 0:
                continue
            trial = sorted(chosen + [i])
            if count("\n".join("- " + candidates[j] for j in trial)) <= max_tokens:
                chosen = trial
        return "\n".join("- " + candidates[j] for j in chosen)


class JoinEverything:
    def summarize(self, previous, evicted, max_tokens):
        return "\n".join([previous] + [m.content for m in evicted]).strip()


class ReturnsList(ExtractiveSummarizer):
    def summarize(self, previous, evicted, max_tokens):
        return super().summarize(previous, evicted, max_tokens).splitlines()


class IgnoresPrevious(ExtractiveSummarizer):
    def summarize(self, previous, evicted, max_tokens):
        return super().summarize("", evicted, max_tokens)


class ZeroBudgetLeaks(ExtractiveSummarizer):
    def summarize(self, previous, evicted, max_tokens):
        if max_tokens == 0:
            return previous  # "nothing to do"
        return super().summarize(previous, evicted, max_tokens)


class Random(ExtractiveSummarizer):
    def summarize(self, previous, evicted, max_tokens):
        evicted = list(evicted)
        random.shuffle(evicted)
        return fit_newest_lines([m.content for m in evicted], max_tokens)


class CrashesOnEmpty(ExtractiveSummarizer):
    def summarize(self, previous, evicted, max_tokens):
        evicted[-1]  # noqa: B018 - the mistake under test
        return super().summarize(previous, evicted, max_tokens)


class PopsEvicted(ExtractiveSummarizer):
    def summarize(self, previous, evicted, max_tokens):
        while len(evicted) > 5:
            evicted.pop(0)
        return super().summarize(previous, evicted, max_tokens)


class WastesBudget(StudentLike):
    """Ranks well but fills only a quarter of a large budget: some facts, too few."""

    def summarize(self, previous, evicted, max_tokens):
        return super().summarize(previous, evicted, max_tokens // 4 if max_tokens > 150 else max_tokens)


class AssistantFirst:
    """Keeps what the assistant said: bounded and recursive, but few facts."""

    def summarize(self, previous, evicted, max_tokens):
        lines = previous.splitlines() + [m.content for m in evicted if m.role == "assistant"]
        return fit_newest_lines(lines, max_tokens)


def test_summarizer_reference_and_student_like_pass(capsys):
    check_summarizer(ExtractiveSummarizer())
    check_summarizer(StudentLike)  # a class is instantiated
    out = capsys.readouterr().out
    assert out.count("PASS  all checks for 02-summarizer") == 2


@pytest.mark.parametrize("answer, expected", [
    (JoinEverything(), "over max_tokens="),
    (ReturnsList(), "summarize returned list"),
    (IgnoresPrevious(), "the previous summary said"),
    (ZeroBudgetLeaks(), "with max_tokens=0"),
    (Random(), "different summaries"),
    (CrashesOnEmpty(), "crashed with IndexError"),
    (PopsEvicted(), "changed the list of evicted messages"),
    (NoSummarizer(), "a fact stated in the evicted messages"),
    (TruncatingSummarizer(), "no better than no summary or keeping the newest text"),
    (AssistantFirst(), "a fact stated in the evicted messages"),
    (WastesBudget(), "fact retention on the course conversation is"),  # 'below the ... needed' on today's data
    (object(), "has no summarize method"),
])
def test_summarizer_mistakes_get_their_message(answer, expected):
    assert expected in failure(check_summarizer, answer)


def test_summarizer_unsolved_stub():
    class Stub:
        def summarize(self, previous, evicted, max_tokens):
            raise NotImplementedError("Exercise 1: write summarize")

    assert "not solved yet: Exercise 1" in failure(check_summarizer, Stub())


def test_retention_threshold_is_half_the_reference_and_above_baselines():
    assert nb02._retention_threshold(0.13, 0.0) == pytest.approx(0.065)
    assert nb02._retention_threshold(0.02, 0.05) > 0.05


# -- 03 BM25 (exercise 2) ---------------------------------------------------------------


def test_bm25_reference_passes(capsys):
    check_bm25(nb03.reference_bm25_scores)
    assert "PASS  all checks for 03-bm25" in capsys.readouterr().out


def test_bm25_variant_default_is_the_reference():
    for case in nb03._bm25_cases()[:8]:
        assert nb03._close(nb03._bm25_variant(case.query, case.docs, case.k1, case.b, case.epsilon),
                            nb03.reference_bm25_scores(case.query, case.docs, case.k1, case.b, case.epsilon))


def test_bm25_agrees_with_memlib_okapi_index():
    from memlib.retrieval import BM25Index

    case = nb03._bm25_cases()[-1]
    # the case's tokens are already analyzed: index exactly those tokens
    index = BM25Index("okapi", analyzer=str.split)
    for name, doc in zip(case.doc_names, case.docs):
        index.add(name, " ".join(doc))
    ours = dict(zip(case.doc_names, nb03.reference_bm25_scores(case.query, case.docs)))
    for doc_id, score in index.search(" ".join(case.query), k=10):
        assert score == pytest.approx(ours[doc_id], rel=1e-9)


@pytest.mark.parametrize("name", sorted(nb03.BM25_MISTAKES))
def test_bm25_mistake_gets_its_message(name):
    options, what, hint = nb03.BM25_MISTAKES[name]
    message = failure(check_bm25, functools.partial(nb03._bm25_variant, **options))
    assert what in message and hint in message
    assert re.search(r"ranks \d+(st|nd|rd|th), expected \d+(st|nd|rd|th)|scores -?\d", message)


def test_bm25_rank_message_points_at_document_frequency():
    message = failure(check_bm25, functools.partial(nb03._bm25_variant, idf="cf"))
    assert "is idf using the document frequency?" in message
    assert re.search(r"ranks \d+\w\w, expected \d+\w\w", message)


def test_bm25_other_wrong_answers():
    def hardcoded(q, docs, k1=1.5, b=0.75, epsilon=0.25):
        return nb03.reference_bm25_scores(q, docs)

    assert "k1, b or epsilon is ignored" in failure(check_bm25, hardcoded)
    assert "scores for" in failure(check_bm25, lambda q, d, **kw: [0.0])
    assert "returned int" in failure(check_bm25, lambda q, d, **kw: 3)
    assert "NaN" in failure(check_bm25, lambda q, d, **kw: [float("nan")] * len(d))
    assert "raised KeyError" in failure(check_bm25, lambda q, d, **kw: {}["x"])
    two_mistakes = functools.partial(nb03._bm25_variant, idf="none", tf="presence")
    assert "cases differ from rank_bm25" in failure(check_bm25, two_mistakes)

    def mutates(q, docs, **kw):
        docs.sort()
        return nb03.reference_bm25_scores(q, docs, **kw)

    assert "changed the token lists" in failure(check_bm25, mutates)


# -- 04 page fault --------------------------------------------------------------------


def test_scenario_is_deterministic_and_the_fact_is_evicted():
    a, b = nb04.page_fault_scenario(), nb04.page_fault_scenario()
    assert not a.fact_in_context
    assert a.record_id == b.record_id
    assert [m.content for m in a.memory.recall] == [m.content for m in b.memory.recall]
    assert "allergic" in a.memory.archival.get(a.record_id).text
    assert "PageFaultScenario" in repr(a)


def test_page_fault_reference_passes(capsys):
    check_page_fault(nb04.reference_page_fault_calls)
    check_page_fault(nb04.reference_page_fault_calls())  # a list works too
    assert capsys.readouterr().out.count("PASS  all checks for 05-page-fault") == 2


SEARCH = ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": True})
REPLY = ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000001]"})


@pytest.mark.parametrize("calls, expected", [
    ([REPLY], "never searches archival memory"),
    ([ToolCall("conversation_search", {"query": "Biscuit allergic", "request_heartbeat": True}), REPLY],
     "searches the conversation, not archival memory"),
    ([ToolCall("archival_memory_search", {"query": "allergy", "request_heartbeat": True}), REPLY],
     "did not return the record with the answer"),
    ([ToolCall("archival_memory_search", {"query": "Biscuit allergic"}), REPLY], "did not request a heartbeat"),
    ([SEARCH], "the script ran out"),
    ([ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": False})],
     "ended without send_message"),
    ([SEARCH, ToolCall("send_message", {"message": "Biscuit must avoid chicken."})], "has no citation"),
    ([SEARCH, ToolCall("send_message", {"message": "Biscuit must avoid chicken, see arc-000001"})],
     "but not as a citation"),
    ([SEARCH, ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000099]"})],
     "not in archival memory"),
    ([SEARCH, ToolCall("send_message", {"message": "Biscuit must avoid chicken. [arc-000002]"})],
     "not the record that holds the answer"),
    ([SEARCH, ToolCall("send_message", {"message": "He must avoid onions. [arc-000001]"})],
     "does not say what Biscuit must avoid"),
    ([REPLY, SEARCH], "never ran: the step ended after"),
    ([ToolCall("archival_memory_search", {"q": "Biscuit", "request_heartbeat": True}), REPLY], "failed:"),
    ([], "the script is empty"),
    (["archival_memory_search"], "not a ToolCall"),
    ("send_message", "expected a list of ToolCall"),
])
def test_page_fault_mistakes_get_their_message(calls, expected):
    assert expected in failure(check_page_fault, calls)


# -- 04 the loop (exercise L) --------------------------------------------------------

from memlib.agent import Agent  # noqa: E402
from memlib.course.checks import check_loop  # noqa: E402
from memlib.course.checks import nb04_loop  # noqa: E402
from memlib.tools import dispatch  # noqa: E402


def loop_agent(**bugs):
    """The contract's loop, with the named mistakes switched on."""

    class LoopAgent(Agent):
        def step(self, user_text):
            trace = self.begin(user_text)
            calls = []
            beats = 0
            while True:
                call = self.ask(trace, [] if bugs.get("forget_calls") else calls)
                if call is None:
                    if bugs.get("ask_after_none"):
                        continue
                    break
                result = dispatch(call.name, call.arguments, self.memory)
                calls.append((call, result))
                if not bugs.get("no_splice"):
                    self.splice(call, result, trace)
                if bugs.get("splice_twice"):
                    self.splice(call, result, trace)
                go_on = result.heartbeat and (result.ok or not bugs.get("stop_on_failure"))
                if bugs.get("read_request"):
                    go_on = bool(call.arguments.get("request_heartbeat"))
                if bugs.get("until_send"):
                    go_on = call.name != "send_message"
                if not go_on:
                    break
                if beats >= self.max_heartbeats + bugs.get("cap_shift", 0) and not bugs.get("no_cap"):
                    if not bugs.get("silent_cap"):
                        trace.add("heartbeat", "limit reached" if bugs.get("cap_unnamed") else "cap reached")
                    break
                beats += 1
                if not bugs.get("no_heartbeat_event"):
                    trace.add("heartbeat", "the policy runs again")
                if bugs.get("extra_event"):
                    trace.add("thought", "thinking")
            return None if bugs.get("no_return") else trace

    return LoopAgent


def test_loop_reference_passes_and_groups_its_scenarios(capsys):
    check_loop(loop_agent())
    out = capsys.readouterr().out
    assert out.count("PASS  ") == 5 and "PASS  all checks for 04-loop" in out
    assert "NOTE" not in out  # written from the parts, not by calling Agent.step


def test_loop_answers_the_contract_allows_pass(capsys):
    class ForLoop(Agent):
        """A for loop over the turns the cap allows; the heartbeat noted before splicing; tuples for calls."""

        def step(self, user_text):
            trace = self.begin(user_text)
            calls = ()
            for turn in range(self.max_heartbeats + 1):
                call = self.ask(trace, calls)
                if call is None:
                    return trace
                result = dispatch(call.name, call.arguments, self.memory)
                calls += ((call, result),)
                if result.heartbeat and turn < self.max_heartbeats:
                    trace.add("heartbeat", f"heartbeat {turn + 1} (cap {self.max_heartbeats})")
                self.splice(call, result, trace)
                if not result.heartbeat:
                    return trace
            trace.add("heartbeat", "the CAP ends the step")
            return trace

    check_loop(ForLoop)
    assert "PASS  all checks for 04-loop" in capsys.readouterr().out


def test_loop_that_calls_memlibs_step_passes_with_a_note_and_one_that_inherits_it_fails(capsys):
    class Super(Agent):
        def step(self, user_text):
            return super().step(user_text)

    check_loop(Super)
    assert "memlib.agent.Agent.step" in capsys.readouterr().out
    assert "does not define its own step" in failure(check_loop, type("Inherits", (Agent,), {}))


def test_loop_unsolved_stub_and_wrong_kinds_of_answer():
    class Stub(Agent):
        def step(self, user_text):
            raise NotImplementedError("Exercise L: run the policy")

    assert "not solved yet: Exercise L: run the policy" in failure(check_loop, Stub)
    assert "expected your agent class" in failure(check_loop, Stub(nb04_loop.loop_scenarios()[0].probe()))
    assert "crashed with ZeroDivisionError" in failure(check_loop, type("Div", (Agent,), {"step": lambda s, t: 1 / 0}))


@pytest.mark.parametrize("bugs, expected", [
    ({"forget_calls": True}, "the policy saw 0 earlier call(s) on its 2nd turn, expected 1"),
    ({"ask_after_none": True}, "the step went on after the policy crashed (ask returned None)"),
    ({"no_splice": True}, "the policy chose 1 call(s) but the trace shows 0"),
    ({"splice_twice": True}, "the trace shows 2 calls but the policy chose 1"),
    ({"stop_on_failure": True}, "the step stopped after a failed call"),
    ({"read_request": True}, "the step stopped after a failed call"),
    ({"until_send": True}, "whose result asked for no heartbeat"),
    ({"no_cap": True}, "the step ran 2 calls with max_heartbeats=0: the cap allows 1 + 0"),
    ({"cap_shift": 1}, "the step ran 2 calls with max_heartbeats=0: the cap allows 1 + 0"),
    ({"cap_shift": -1}, "the step stopped after 2 call(s) with max_heartbeats=2"),
    ({"silent_cap": True}, "without a 'heartbeat' event saying so"),
    ({"cap_unnamed": True}, "its last 'heartbeat' event says 'limit reached'"),
    ({"no_heartbeat_event": True}, "the step added 0 'heartbeat' event(s), expected 3"),
    ({"extra_event": True}, "the trace's events differ from memlib's loop (thought)"),
    ({"no_return": True}, "step returned None, not the step's Trace"),
])
def test_loop_mistakes_get_their_message(bugs, expected):
    message = failure(check_loop, loop_agent(**bugs))
    assert expected in message, message
    assert message.startswith("[04-loop] scenario ")


def test_loop_scenarios_reach_what_they_test():
    """Each scenario makes memlib's loop do what its description promises."""
    played = {s.name: nb04_loop._play(Agent, s, student=False) for s in nb04_loop.loop_scenarios()}
    calls = {name: len(p.pairs) for name, p in played.items()}
    assert calls == {"reply": 1, "no_heartbeat": 1, "chain": 4, "exactly_at_cap": 3, "cap_0": 1, "cap_1": 2,
                     "cap_5": 6, "failed_calls": 3, "failed_at_cap": 2, "malformed": 2, "crash_first": 1,
                     "crash_later": 2, "pressure": 3, "flush": 4}
    assert [n for n, p in played.items() if nb04_loop._capped(p)] == ["cap_0", "cap_1", "cap_5", "failed_at_cap"]
    kinds = {name: [e.kind for e in p.events] for name, p in played.items()}
    assert "alert" in kinds["pressure"] and "evict" not in kinds["pressure"]
    assert kinds["pressure"].index("alert") > kinds["pressure"].index("tool_call")  # raised during the step
    assert {"evict", "flush"} <= set(kinds["flush"])
    assert all(p.seen[-1] == ((), 5, ()) or p.seen for p in played.values())
    assert played["pressure"].seen[-1][2]  # the alert reached the policy
# -- 02 the flush (exercise F) -------------------------------------------------------------


def _flush_variant(kind: str):
    """The reference flush with one plausible mistake (or an allowed difference) named by `kind`."""
    from memlib.course.flushing import flush_units

    def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
        starts = flush_units(queue) if kind != "no_units" else list(range(len(queue) + 1))
        kept_tokens, cut = sum(tokens), 0
        for begin, end in zip(starts, starts[1:]):
            fits = kept_tokens < target if kind == "strict" else kept_tokens <= target + (10 if kind == "loose" else 0)
            if fits:
                break
            kept_tokens -= sum(tokens[begin:end])
            cut = end
        if kind == "pops_queue" and queue:
            queue.pop(0)
        if cut == 0 and kind != "always_summarize":
            return (tuple(queue) if kind == "tuples" else queue), summary
        evicted = queue[:cut]
        if kind == "newest":
            evicted, kept = queue[len(queue) - cut:], queue[:len(queue) - cut]
        else:
            kept = queue[cut:]
        if kind in ("recall_first", "tuples"):
            for message in evicted:
                recall.add(message)
        if kind == "per_message":
            new = summary
            for message in evicted:
                new = summarizer.summarize(new, [message], summary_tokens)
        else:
            given = {"reversed": evicted[::-1], "generator": (m for m in evicted), "tuples": tuple(evicted)}
            new = summarizer.summarize("" if kind == "no_previous" else summary, given.get(kind, evicted),
                                       target if kind == "target_budget" else summary_tokens)
        filed = {"no_recall": [], "recall_kept": evicted + kept[:1], "recall_reversed": evicted[::-1],
                 "recall_twice": evicted + evicted[:1], "recall_first": [], "tuples": []}.get(kind, evicted)
        for message in filed:
            recall.add(message)
        if kind == "returns_previous":
            new = summary
        if kind == "kept_only":
            return kept
        return (tuple(kept) if kind == "tuples" else kept), new

    return flush


def test_flush_reference_and_allowed_answers_pass(capsys):
    from memlib.course.checks import check_flush, reference_flush

    check_flush(reference_flush)
    check_flush(_flush_variant("recall_first"))  # recall before the summary
    check_flush(_flush_variant("tuples"))  # tuples, and the queue itself when nothing leaves
    assert capsys.readouterr().out.count("PASS  all checks for 02-flush") == 3


@pytest.mark.parametrize("kind, expected", [
    ("strict", "already took"),
    ("loose", "over the target of"),
    ("no_units", "is a tool result whose call (#"),
    ("newest", "kept is not the newest messages of the queue"),
    ("pops_queue", "queue was changed"),
    ("always_summarize", "nothing had to leave, yet the summarizer was called"),
    ("per_message", "the summarizer was called"),
    ("reversed", ", oldest first"),
    ("generator", "as a generator"),
    ("no_previous", "summarize got previous=''"),
    ("target_budget", "summarize got max_tokens="),
    ("returns_previous", "is not what summarize returned"),
    ("no_recall", "recall is missing #"),
    ("recall_kept", "which stayed in main context"),
    ("recall_reversed", "out of order"),
    ("recall_twice", "twice"),
    ("kept_only", "return a pair: (kept, new_summary)"),
])
def test_flush_mistakes_get_their_message(kind, expected):
    from memlib.course.checks import check_flush

    assert expected in failure(check_flush, _flush_variant(kind))


def test_flush_stub_crash_and_non_function():
    from memlib.course.checks import check_flush

    def stub_f(*args):
        raise NotImplementedError("Exercise F: evict the oldest messages")

    def crashes(queue, *rest):
        return queue[len(queue)], ""

    assert "not solved yet: Exercise F" in failure(check_flush, stub_f)
    assert "crashed with IndexError" in failure(check_flush, crashes)
    assert "expected your function flush" in failure(check_flush, "flush")


def test_flush_messages_name_the_case_and_the_messages():
    from memlib.course.checks import check_flush

    message = failure(check_flush, _flush_variant("per_message"))
    assert re.search(r"called \d+ times: fold all evicted messages in one call", message)
    assert "target=" in message and "summary_tokens=" in message
    assert re.search(r"recall got #\d+ twice", failure(check_flush, _flush_variant("recall_twice")))
