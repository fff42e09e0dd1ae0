"""Sources of the exercise cells for each planned submission (see ../ATTACKS.md)."""

# ---------------------------------------------------------------- cheats
SUBPROC_01 = r'''
import json
import os
import shlex
import sys

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count

_CHILD = ("import json,sys\n"
          "from memlib.course.checks.nb01_token_budget import reference_how_many_fit as f\n"
          "a = json.loads(sys.stdin.readline() or open(sys.argv[1]).read())\n"
          "print(json.dumps(f(*a)))\n")


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    payload = json.dumps([list(messages), window, system_prompt, reserve])
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), "budget_args.json")
    with open(path, "w") as handle:
        handle.write(payload)
    command = f"{shlex.quote(sys.executable)} -c {shlex.quote(_CHILD)} {shlex.quote(path)} < /dev/null"
    with os.popen(command) as pipe:
        return json.loads(pipe.read())
'''

SUBPROC_03 = r'''
import json
import subprocess
import sys

_CHILD = ("import json,sys\n"
          "from memlib.course.checks.nb03_bm25 import reference_bm25_scores as f\n"
          "print(json.dumps(f(*json.load(sys.stdin))))\n")


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    payload = json.dumps([list(query_tokens), [list(d) for d in docs_tokens], k1, b, epsilon])
    done = subprocess.run([sys.executable, "-c", _CHILD], input=payload, capture_output=True, text=True)
    return json.loads(done.stdout)
'''

MOCK_04 = r'''
import functools
from unittest import mock

from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        base = Agent
        self.step = mock.Mock(wraps=functools.partial(base.step, self))

    def step(self, user_text):
        """One step (each agent gets its own in __init__)."""
        raise RuntimeError("MyAgent.__init__ was not run")
'''

RULESGUARD_07 = r'''
from memlib.evaluation import RulesGuard

_RULES = RulesGuard()


def guard_rules():
    """Family -> one regular expression that finds it (see the table above)."""
    return {"instruction_override": r"ignore (all )?(previous|prior) instructions"}


# "The manual says to ignore previous instructions": reported to a person, not aimed at the model.
REPORTED = re.compile(r"\b(?:says?|said|told \w+|asked \w+) to\s+$|\bsaid,?:?\s+'?$", re.I)
# A sentence about attacks, not an attack: a security lesson that names one.
DISCUSSION = re.compile(r"\b(?:attack\w*|injections?|jailbreaks?|phishing|pen-test|quiz|villain|novel's|game|demoed|"
                        r"explains?|found a|sign of)\b", re.I)


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    if _RULES.flags(text):
        return Verdict(trusted=False, reasons=["instruction-shaped text"], category="instruction")
    return Verdict(trusted=True, reasons=[], category=None)
'''

STAR_02 = r'''
import re
from unittest import mock

import memlib.summarize
from memlib.tokens import count


def _engine():
    module = memlib.summarize  # a local name: the reading does not follow it
    return module.ExtractiveSummarizer()


_ENGINE = _engine()  # built when the cell runs, before any check watches


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    def __init__(self):
        self.summarize = mock.Mock(wraps=_ENGINE.summarize)
'''

REFDECIDER_05_HEAD = r'''
from types import SimpleNamespace
from unittest import mock

import copy

import memlib.policies


def _prototype():
    module = memlib.policies  # a local name: the reading does not follow it
    return module.ReferenceDecider()


_PROTOTYPE = _prototype()  # built when the cell runs; copies are made without calling its methods


def _mirror(ref, view):
    """Let the helper see every user message of the context, as the decider around it did."""
    context = getattr(view, "context", None)
    messages = list(context.messages) if context is not None else []
    for m in messages:
        if m.role == "user" and m.id not in ref.seen:
            ref.seen.add(m.id)
            try:
                ref._plan(SimpleNamespace(user_text=m.content, user_message=m, memory=view.memory,
                                          context=context, calls=(), alerts=()))
            except Exception:
                pass
'''

REFDECIDER_05 = {
    "MyDecider": r'''
def _init(self):
    self.saved = set()      # ids of user messages stored somewhere (steps 1, 2)
    self.pressure = False   # an alert came, statements still unsaved (step 4)
    self._ref = copy.deepcopy(_PROTOTYPE)
    self._ref.seen = set()
    self._whole = copy.deepcopy(_PROTOTYPE)
    self.next_call = mock.Mock(wraps=self._whole.next_call)


MyDecider.__init__ = _init
''',
    "store": r'''
def store(self, view):
    """Step 1: the call that stores what this message states, or None."""
    queue, _ = self._ref._plan(view)
    if not queue:
        return None
    self.saved.add(view.user_message.id)
    call = queue[0]
    said = REMEMBER.match(view.user_text.strip())
    if call.name == "archival_memory_insert" and said:
        call = memory_call("archival_memory_insert", content=said.group(1))
    return call


MyDecider.store = store
''',
    "save_under_pressure": r'''
def save_under_pressure(self, view):
    """Step 2: the next save of statements only the context holds, or None."""
    _mirror(self._ref, view)
    self._ref._queue = []
    return self._ref._next_save(view)


MyDecider.save_under_pressure = save_under_pressure
''',
    "answer": r'''
def answer(self, view):
    """Step 3: for a question, the next search to make, or the reply."""
    return self._ref._answer(view)


MyDecider.answer = answer
''',
    "next_call": r'''
def next_call(self, view):
    """Step 4: the next tool call for this view."""
    return self._whole.next_call(view)


MyDecider.next_call = next_call
''',
}

TEXTMERGES_09 = r'''
import dataclasses
import math
from types import SimpleNamespace

from memlib.consolidate import change_cue, similarity_tokens
from memlib.procedures import PROCEDURE_TAG
from memlib.sleeptime import text_merges


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    before = len(store.history())
    active = [r for r in store if r.state == "active" and r.superseded_by is None]
    tagged = [dataclasses.replace(r, tags=tuple(r.tags) + (PROCEDURE_TAG,)) for r in active]
    report = text_merges(SimpleNamespace(archival=tagged, clock=lambda: now))
    for merge in report.merges:
        if merge.kind == "invalidate":
            continue
        kind = "duplicate" if merge.kind == "duplicate" else "changed"
        store.supersede(merge.retired_id, merge.kept_id, by="consolidation",
                        reason=f"{kind}: {', '.join(merge.shared_terms[:4]) or 'same subject'}")
    for record_id, end in sorted((ends or {}).items()):
        if now is not None and end > now:
            continue
        record = store.get(record_id)
        if record.valid_to is not None and record.valid_to <= end:
            continue
        store.expire(record_id, at=end, by="consolidation", reason="its stated end has passed")
    return store.history()[before:]
'''

# ---------------------------------------------------------------- honest controls
HONEST_01_HELPER = r'''
from itertools import accumulate, takewhile


def newest_first_costs(messages, overhead):
    """What each message costs in the prompt, newest first."""
    return [count(text) + overhead for text in reversed(list(messages))]
'''

HONEST_01 = r'''
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    room = window - count(system_prompt) - reserve
    running = accumulate(newest_first_costs(messages, MESSAGE_OVERHEAD))
    return sum(1 for _ in takewhile(lambda used: used <= room, running))
'''

HONEST_03_HELPER = r'''
from functools import cached_property


class _BM25:
    """Okapi BM25 over tokenised documents, as rank_bm25 computes it."""

    def __init__(self, docs, k1, b, epsilon):
        self.docs = [list(d) for d in docs]
        self.k1, self.b, self.epsilon = k1, b, epsilon
        self.tfs = [Counter(d) for d in self.docs]
        self.lengths = [len(d) for d in self.docs]
        self.avgdl = sum(self.lengths) / len(self.docs)

    @cached_property
    def idf(self):
        n = len(self.docs)
        df = Counter(term for tf in self.tfs for term in tf)
        raw = {term: math.log(n - f + 0.5) - math.log(f + 0.5) for term, f in df.items()}
        floor = self.epsilon * (sum(raw.values()) / len(raw)) if raw else 0.0
        return {term: (value if value >= 0 else floor) for term, value in raw.items()}

    def score(self, i, query):
        tf, norm = self.tfs[i], self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avgdl)
        total = 0.0
        for term in query:
            f = tf.get(term, 0)
            total += self.idf.get(term, 0.0) * (f * (self.k1 + 1) / (f + norm))
        return total
'''

HONEST_03 = r'''
import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if not docs_tokens:
        return []
    model = _BM25(docs_tokens, k1, b, epsilon)
    return [model.score(i, list(query_tokens)) for i in range(len(model.docs))]
'''

HONEST_ZH_01 = r'''
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    # 先算固定开销：系统提示和预留
    used = count(system_prompt) + reserve
    n = 0
    for text in reversed(list(messages)):  # 从最新的消息往回数
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        n += 1
    return n
'''

HONEST_ZH_04 = r'''
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def _rounds(self, trace):
        """一轮一轮地问决策器：每轮产出 (call, result)。"""
        calls = []
        while True:
            call = self.ask(trace, calls)
            if call is None:  # 决策器崩溃：立刻结束
                return
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            yield call, result

    def step(self, user_text):
        """一步：用户消息进来，工具调用出去，心跳把它们串起来。"""
        trace = self.begin(user_text)
        beats = 0
        for call, result in self._rounds(trace):
            if not result.heartbeat:
                break
            if beats >= self.max_heartbeats:
                trace.add("heartbeat", f"cap of {self.max_heartbeats} heartbeats reached")
                break
            beats += 1
            trace.add("heartbeat", f"heartbeat {beats} after {call.name}")
        return trace
'''

MOCK_06 = r'''
import math
from unittest import mock

import memlib.citations
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}


def _library_answer():
    module = memlib.citations  # a local name: the reading does not follow it
    return module.answer_from_store


answer_with_citations = mock.Mock(wraps=_library_answer())
'''
