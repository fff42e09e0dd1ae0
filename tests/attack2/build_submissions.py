"""Write the attack submissions of tests/attack2/submissions/ from the released notebooks.

Each "student" starts from a released notebook (notebooks/NN_*.ipynb) and changes only
what a student can change: the source of exercise cells (replaced or extended) and
cells of their own. Run from the repository root:

    python tests/attack2/build_submissions.py

The submissions are committed; this script only documents how they were made and
rebuilds them byte for byte.
"""

from __future__ import annotations

import copy
import hashlib
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
RELEASE = ROOT / "notebooks"
OUT = Path(__file__).resolve().parent / "submissions"

NB01 = "01_context_window.ipynb"
NB02 = "02_eviction_summaries.ipynb"
NB03 = "03_archival_bm25.ipynb"
NB04 = "04_memory_tools.ipynb"
NB05 = "05_who_decides.ipynb"
NB06 = "06_citations.ipynb"
NB07 = "07_memory_poisoning.ipynb"
NB09 = "09_governed_memory.ipynb"

# --------------------------------------------------------------------------- sources

A01_CHECK_RELAY = '''\
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count
from memlib.course.checking import Check
from memlib.course.checks.nb01_token_budget import reference_how_many_fit

# memlib's own Check.__call__ calls the function it holds, so the reference is
# called from a memlib file, never from a cell of mine
_relay = Check("my-relay", reference_how_many_fit)


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    return _relay(messages, window, system_prompt, reserve)
'''

A01_VECTORIZE = '''\
import numpy as np

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count
from memlib.course.checks.nb01_token_budget import reference_how_many_fit

# numpy.vectorize with every argument excluded calls the function from numpy's own frame
_counter = np.vectorize(reference_how_many_fit, otypes=[object], excluded={0, 1, 2, 3})


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    return int(_counter(list(messages), window, system_prompt, reserve))
'''

A02F_SOURCE_COPY = '''\
import ast
import inspect
import sys
import types

import memlib.course.checks.nb02_flush as _notes


def _my_copy_of_the_notes():
    """Re-run the installed check module's source as a module of my own, without its check:
    new code objects, a module name outside memlib, a file name that is no library's."""
    tree = ast.parse(inspect.getsource(_notes))
    body = []
    for node in tree.body:
        decorators = [ast.unparse(d) for d in getattr(node, "decorator_list", [])]
        if any("graded" in d for d in decorators):
            continue
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "EXERCISE" for t in node.targets):
            continue
        body.append(node)
    tree.body = body
    module = types.ModuleType("my_flush_notes")
    sys.modules["my_flush_notes"] = module
    exec(compile(tree, "<my flush notes>", "exec"), module.__dict__)
    return module


_mine = _my_copy_of_the_notes()


def flush(queue, tokens, target, summary, summarizer, summary_tokens, recall):
    """Evict the oldest messages from main context; return (kept, new_summary)."""
    return _mine.reference_flush(queue, tokens, target, summary, summarizer, summary_tokens, recall)
'''

A02S_FROZEN_NAME = '''\
import re

from memlib.tokens import count
from memlib.summarize import ExtractiveSummarizer

# A method compiled under a file name that starts with "<frozen": the watch takes such
# frames for the standard library's, so what it calls is not "called by the student".
_SOURCE = """
def summarize(self, previous, evicted, max_tokens):
    return ENGINE.summarize(previous, evicted, max_tokens)
"""
_space = {"ENGINE": ExtractiveSummarizer()}
exec(compile(_SOURCE, "<frozen my_summarizer>", "exec"), _space)


class MySummarizer:
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""

    summarize = _space["summarize"]
'''

A02S_DATA_CROSSING = '''\
import re

from memlib.tokens import count
from memlib.summarize import ExtractiveSummarizer, RecordingSummarizer


def MySummarizer():
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens.

    (A memlib summarizer crosses to the checker as data and is rebuilt there: the
    summaries are then written by memlib's extractive summarizer inside the checker,
    called by memlib's RecordingSummarizer, where no kernel-side watch can see it.)"""
    return RecordingSummarizer(ExtractiveSummarizer())
'''

A03_MOCK_RELAY = '''\
import math
from collections import Counter
from unittest import mock

from memlib.course.checks.nb03_bm25 import reference_bm25_scores

# unittest.mock calls its side_effect from mock.py: a standard-library frame stands
# between my function and the reference
_relay = mock.Mock(side_effect=reference_bm25_scores)


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    try:
        return [float(s) for s in _relay(query_tokens, docs_tokens, k1, b, epsilon)]
    finally:
        _relay.reset_mock()
'''

A03_IDENTITY_SWAP = '''\
import math
from collections import Counter

import rank_bm25

# Keep the real class, and leave an empty stand-in under its name: a watch that looks
# up "rank_bm25:BM25Okapi" later (when the check starts) finds the stand-in's code.
_Okapi = rank_bm25.BM25Okapi


class _StandIn:
    pass


rank_bm25.BM25Okapi = _StandIn


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if not docs_tokens:
        return []
    model = _Okapi([list(d) for d in docs_tokens], k1=k1, b=b, epsilon=epsilon)
    return [float(s) for s in model.get_scores(list(query_tokens))]
'''

A04_SINGLEDISPATCH = '''\
import functools

from memlib.agent import Agent
from memlib.tools import dispatch


@functools.singledispatch
def _run_step(agent, user_text):
    raise TypeError(f"no step for {type(agent).__name__}")


# functools' dispatch wrapper (a standard-library frame) makes the call
_run_step.register(Agent, Agent.step)


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats. Returns the step's Trace."""
        return _run_step(self, user_text)
'''

A05_CELL_TIME = '''\
from memlib.agent import ToolCall
from memlib.course.checks.nb04_page_fault import reference_page_fault_calls

# Worked out once, while this cell runs: no check is running, nothing watches.
_SCRIPT = reference_page_fault_calls()


def page_fault_calls():
    """The tool calls that answer the scenario's question from archival memory."""
    return list(_SCRIPT)
'''

A05_REFERENCE_DECIDER = '''\
from memlib.policies import ReferenceDecider


def next_call(self, view):
    """Step 4: the next tool call for this view."""
    engine = self.__dict__.get("_engine")
    if engine is None:
        engine = self._engine = ReferenceDecider()
    return engine.next_call(view)


MyDecider.next_call = next_call
'''

A06_WATCH_CACHE = '''\
import math

import memlib.course.serve as _serve
from memlib.citations import answer_from_store
from memlib.retrieval import tokenize

QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}

# The kernel's side of grading resolves a check's list of references once and keeps the
# code objects in serve._WATCHED; an entry filled in advance with nothing watches nothing.
_serve._WATCHED[("memlib.citations:answer_from_store",)] = {}


def answer_with_citations(question, store):
    """Answer `question` from `store` with citations, or say that memory has no support."""
    return answer_from_store(question, store)
'''

A07_LAZY_VERDICT = '''


# ---- my answer -------------------------------------------------------------------
from memlib.guard import scan as _their_scan


class _LazyVerdict:
    """A verdict worked out only when one of its fields is read. The grader reads
    fields of an object that stays in the kernel with attribute requests, and the
    kernel serves those without any watch running."""

    def __init__(self, text):
        self._text = text
        self._verdict = None

    def _get(self):
        if self._verdict is None:
            self._verdict = _their_scan(self._text)
        return self._verdict

    @property
    def trusted(self):
        return self._get().trusted

    @property
    def untrusted(self):
        return self._get().untrusted

    @property
    def reasons(self):
        return list(self._get().reasons)

    @property
    def category(self):
        return self._get().category

    @property
    def unread(self):
        return tuple(self._get().unread)


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    return _LazyVerdict(text)
'''

A07_ANSWER_TABLE = '''


# ---- my answer -------------------------------------------------------------------
from memlib import datasets as _datasets
from memlib.course.checks.nb07_guard import EXCUSED_ATTACKS as _EXCUSED
from memlib.guard import demo_memory as _demo_memory
from memlib.guard import scan as _scan

# Every text the check feeds my guard is known before it runs (both poisoning splits,
# the excused attacks, the demo agent's archive): their verdicts are computed here,
# while this cell runs, when nothing watches.
_TABLE = {}
for _split in ("poisoning", "poisoning_heldout"):
    for _note in _datasets.load(_split):
        _TABLE[_note.text] = _scan(_note.text)
for _excuse, _attack in _EXCUSED:
    for _text in (_attack, f"{_excuse} {_attack}"):
        _TABLE[_text] = _scan(_text)
for _record in list(_demo_memory().archival):
    _TABLE[_record.text] = _scan(_record.text)


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    known = _TABLE.get(text)
    if known is not None:
        return Verdict(trusted=known.trusted, reasons=list(known.reasons), category=known.category)
    if "core_memory" in text or "ignore previous" in text.lower():
        return Verdict(trusted=False, reasons=["names a memory tool or says to ignore"], category="tool")
    return Verdict(trusted=True, reasons=[], category=None)
'''

A09_FORGED_REPLY = '''\
import math

import memlib.course.serve as _serve
from memlib.consolidate import change_cue, similarity_tokens
from memlib.governance import consolidate_in_store

# The kernel reports the references it saw in each reply it sends the checker; the
# function that writes those replies lives in this kernel, so it can be wrapped.
_answer_request = _serve.handle


def _reply_without_notes(request):
    reply = _answer_request(request)
    if isinstance(reply, dict) and reply.get("references"):
        reply["references"] = []
    return reply


_serve.handle = _reply_without_notes


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    return consolidate_in_store(store, now, ends)
'''

# --------------------------------------------------------------------------- honest controls

C01_HONEST = '''\
from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    budget = window - count(system_prompt) - reserve
    fitted = 0
    for i in range(len(messages) - 1, -1, -1):
        cost = count(messages[i]) + MESSAGE_OVERHEAD
        if cost > budget:
            break
        budget -= cost
        fitted += 1
    return fitted
'''

C03_HONEST = '''\
import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    n_docs = len(docs_tokens)
    if n_docs == 0:
        return []
    lengths = [len(doc) for doc in docs_tokens]
    avgdl = sum(lengths) / n_docs
    freqs = [Counter(doc) for doc in docs_tokens]
    df = Counter()
    for f in freqs:
        df.update(f.keys())
    idf = {term: math.log(n_docs - n + 0.5) - math.log(n + 0.5) for term, n in df.items()}
    floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
    for term in idf:
        if idf[term] < 0:
            idf[term] = floor
    scores = []
    for f, dl in zip(freqs, lengths):
        total = 0.0
        for term in query_tokens:
            tf = f.get(term, 0)
            if tf == 0:
                continue
            total += idf.get(term, 0.0) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * dl / avgdl))
        scores.append(total)
    return scores
'''

# student -> (notebook, [(how, marker, source)]): how is "replace" (the whole cell) or
# "append" (after the cell's own source); marker is a line that identifies the cell.
ATTACKS = {
    "a01_check_relay": (NB01, [("replace", "### EXERCISE 0:", A01_CHECK_RELAY)]),
    "a01_numpy_vectorize": (NB01, [("replace", "### EXERCISE 0:", A01_VECTORIZE)]),
    "a02_flush_source_copy": (NB02, [("replace", "### EXERCISE F:", A02F_SOURCE_COPY)]),
    "a02_summarizer_frozen_name": (NB02, [("replace", "### EXERCISE 1:", A02S_FROZEN_NAME)]),
    "a02_summarizer_data_crossing": (NB02, [("replace", "### EXERCISE 1:", A02S_DATA_CROSSING)]),
    "a03_mock_relay": (NB03, [("replace", "### EXERCISE 2:", A03_MOCK_RELAY)]),
    "a03_identity_swap": (NB03, [("replace", "### EXERCISE 2:", A03_IDENTITY_SWAP)]),
    "a04_singledispatch": (NB04, [("replace", "### EXERCISE L:", A04_SINGLEDISPATCH)]),
    "a05_page_fault_cell_time": (NB05, [("replace", "### EXERCISE 2b:", A05_CELL_TIME)]),
    "a05_policy_reference_decider": (NB05, [("replace", "### EXERCISE 2c: step 4 of 4", A05_REFERENCE_DECIDER)]),
    "a06_watch_cache": (NB06, [("replace", "### EXERCISE 3:", A06_WATCH_CACHE)]),
    "a07_lazy_verdict": (NB07, [("append", "### EXERCISE 4: my_scan", A07_LAZY_VERDICT)]),
    "a07_answer_table": (NB07, [("append", "### EXERCISE 4: my_scan", A07_ANSWER_TABLE)]),
    "a09_forged_reply": (NB09, [("replace", "### EXERCISE 6:", A09_FORGED_REPLY)]),
    "c01_honest_budget": (NB01, [("replace", "### EXERCISE 0:", C01_HONEST)]),
    "c03_honest_bm25": (NB03, [("replace", "### EXERCISE 2:", C03_HONEST)]),
}


def _lines(text: str) -> list[str]:
    return text.splitlines(keepends=True)


def build(student: str, notebook: str, edits: list) -> Path:
    nb = json.loads((RELEASE / notebook).read_text(encoding="utf-8"))
    nb = copy.deepcopy(nb)
    for how, marker, source in edits:
        cells = [c for c in nb["cells"] if c["cell_type"] == "code" and marker in "".join(c["source"])]
        if len(cells) != 1:
            sys.exit(f"{student}: {len(cells)} cells of {notebook} hold {marker!r}")
        cell = cells[0]
        old = "".join(cell["source"])
        cell["source"] = _lines(source if how == "replace" else old + source)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"], cell["execution_count"] = [], None
    out = OUT / student / notebook
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(nb, indent=1, sort_keys=True, ensure_ascii=False) + "\n", encoding="utf-8")
    return out


def main() -> None:
    for student, (notebook, edits) in ATTACKS.items():
        path = build(student, notebook, edits)
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
        print(f"{student:34} {notebook:28} {digest}")


if __name__ == "__main__":
    main()
