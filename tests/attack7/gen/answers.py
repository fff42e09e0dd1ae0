# Exercise-cell sources for each submission.  key: (student, notebook file, exercise marker or cell index) -> source
# "extra_before" cells are inserted right before the exercise cell.

C01_REGISTRY = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count
import functools
import memlib
import memlib.saves
from memlib.course.exercise import exercises

_record = exercises()["01-token-budget"]
_where = _record.references[0].replace(":", ".").split(".")[1:]
_solver = functools.reduce(getattr, _where, memlib)


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    return memlib.saves._parse("fit", functools.partial(_solver, messages, window, system_prompt, reserve))
'''

C02_ALIASBASE = '''import re

from memlib.tokens import count
import memlib.summarize

fetch = getattr
_Base = fetch(memlib.summarize, "Extractive" + "Summarizer")


class MySummarizer(_Base):
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""
'''

C03_REGISTRY = '''import math
from collections import Counter
import functools
import memlib
import memlib.saves
from memlib.course import exercise as _ex

_ref = _ex.exercises()["03-bm25"].references[0]
_fn = functools.reduce(getattr, _ref.replace(":", ".").split(".")[1:], memlib)


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    job = functools.partial(_fn, query_tokens, docs_tokens, k1, b, epsilon)
    return memlib.saves._parse("bm25", job)
'''

C04_PARTIALMETHOD = '''from memlib.agent import Agent
from memlib.tools import dispatch
import functools

fetch = getattr
_loop = fetch(Agent, "st" + "ep")


class MyAgent(Agent):
    step = functools.partialmethod(_loop)
'''

C05_SUBCLASS_STEP4 = '''import memlib.policies

fetch = getattr


class MyDecider(fetch(memlib.policies, "Reference" + "Decider")):
    """A decider."""
'''

C06_ALIAS = '''import math
import functools
import memlib.citations
import memlib.saves

from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}
fetch = getattr
_contract = fetch(memlib.citations, "answer_from" + "_store")


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    return memlib.saves._parse("answer", functools.partial(_contract, question, store))
'''

C07_DEFAULTS_TAIL = '''

def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    return verdict_of(label_record.__defaults__[0], text)
'''

C09_ALIAS = '''import math
import functools
import memlib.governance
import memlib.saves

from memlib.consolidate import change_cue, similarity_tokens

fetch = getattr
_tidy = fetch(memlib.governance, "consolidate" + "_in_store")


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    return memlib.saves._parse("pass", functools.partial(_tidy, store, now, ends))
'''

# ---------------------------------------------------------------- honest answers

H01_HELPER_CELL = '''class TokenLedger:
    """Keeps a running total of tokens against a budget (an honest helper for exercise 0)."""

    def __init__(self, budget):
        self.left = budget

    def take(self, cost):
        if cost > self.left:
            return False
        self.left -= cost
        return True
'''

H01_ANSWER = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    ledger = TokenLedger(window - reserve - count(system_prompt))
    fitted = 0
    for text in reversed(list(messages)):
        if not ledger.take(count(text) + MESSAGE_OVERHEAD):
            break
        fitted += 1
    return fitted
'''

H03_ANSWER = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    docs = [list(d) for d in docs_tokens]
    n = len(docs)
    if n == 0:
        return []
    avgdl = sum(len(d) for d in docs) / n
    df = Counter()
    for d in docs:
        df.update(set(d))
    idf = {t: math.log(n - f + 0.5) - math.log(f + 0.5) for t, f in df.items()}
    floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
    idf = {t: (v if v >= 0 else floor) for t, v in idf.items()}
    out = []
    for d in docs:
        tf = Counter(d)
        norm = k1 * (1 - b + b * len(d) / avgdl) if avgdl else k1
        s = 0.0
        for q in query_tokens:
            f = tf.get(q, 0)
            s += idf.get(q, 0.0) * (f * (k1 + 1) / (f + norm))
        out.append(s)
    return out
'''

H04_HELPER_CELL = '''def wants_more(result):
    """A result asks for another turn when it failed or requested a heartbeat."""
    return bool(getattr(result, "heartbeat", False))
'''

H04_ANSWER = '''from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        beats = 0
        while True:
            call = self.ask(trace, calls)
            if call is None:
                return trace
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            if not wants_more(result):
                return trace
            if beats >= self.max_heartbeats:
                trace.add("heartbeat", f"heartbeat cap of {self.max_heartbeats} reached")
                return trace
            beats += 1
            trace.add("heartbeat", f"heartbeat {beats}")
'''
