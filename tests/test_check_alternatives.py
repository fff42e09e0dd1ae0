"""Every check accepts correct answers written differently from the reference, and rejects the leak classes.

Beside the mutants (tests/test_mutation.py) and the mistakes in tests/test_checks_*.py: per
exercise, at least three correct solutions that share no code with the reference, which the
check must accept, and the plausible mistakes the issue named (state carried across calls,
inputs changed in place, contradicting or extra citations, a marker in the wrong block,
boundary values), which it must reject with a message that names them. Messages are the
same under any PYTHONHASHSEED.
"""

from __future__ import annotations

import copy
import itertools
import json
import math
import os
import re
import subprocess
import sys
from collections import Counter, defaultdict

import jsonschema
import pytest

from memlib.agent import ToolCall
from memlib.citations import Citation, CitedAnswer, answer_from_store, cite
from memlib.context import MESSAGE_OVERHEAD
from memlib.core_memory import CoreMemoryError
from memlib.course.checks import (
    CheckFailed, check_bm25, check_citation_contract, check_guard, check_page_fault, check_summarizer,
    check_token_budget, check_typed_core_memory,
)
from memlib.datasets import load
from memlib.retrieval import tokenize
from memlib.tokens import count


def accepts(check, answer) -> None:
    check(answer)  # raises CheckFailed when it rejects


def rejects(check, answer, *fragments) -> str:
    with pytest.raises(CheckFailed) as info:
        check(answer)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


# -- 01 token budget ---------------------------------------------------------------------


def fit_by_suffix_sums(messages, window, system_prompt="", reserve=0):
    costs = [count(m) + MESSAGE_OVERHEAD for m in messages]
    room = window - count(system_prompt) - reserve
    best = 0
    for n in range(1, len(messages) + 1):
        if sum(costs[len(costs) - n:]) > room:
            break
        best = n
    return best


def fit_by_accumulate(messages, window, system_prompt="", reserve=0):
    start = count(system_prompt) + reserve
    totals = itertools.accumulate((count(m) + MESSAGE_OVERHEAD for m in messages[::-1]), initial=start)
    return sum(1 for total in itertools.islice(totals, 1, None) if total <= window) if start <= window else 0


def fit_by_index(messages, window, system_prompt="", reserve=0):
    i = len(messages)
    left = window - reserve - count(system_prompt)
    while i > 0 and count(messages[i - 1]) + MESSAGE_OVERHEAD <= left:
        left -= count(messages[i - 1]) + MESSAGE_OVERHEAD
        i -= 1
    return len(messages) - i


@pytest.mark.parametrize("answer", [fit_by_suffix_sums, fit_by_accumulate, fit_by_index])
def test_token_budget_accepts_other_correct_solutions(answer):
    accepts(check_token_budget, answer)


def fit_that_reverses_in_place(messages, window, system_prompt="", reserve=0):
    messages.reverse()  # plausible: "newest first"
    used, kept = count(system_prompt) + reserve, 0
    for text in messages:
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept


_seen: dict = {}


def fit_cached_by_window(messages, window, system_prompt="", reserve=0):
    if window not in _seen:  # plausible cache key, wrong: the messages differ
        _seen[window] = fit_by_index(messages, window, system_prompt, reserve)
    return _seen[window]


def test_token_budget_rejects_inputs_changed_in_place_and_state_across_calls():
    rejects(check_token_budget, fit_that_reverses_in_place, "changed the list of messages")
    _seen.clear()
    rejects(check_token_budget, fit_cached_by_window)


# -- 02 summarizer ------------------------------------------------------------------------


class DigitsAndNamesNewestFirst:
    """Keeps sentences with a digit or a capitalised word, newest first, then restores their order."""

    def summarize(self, previous, evicted, max_tokens):
        pool = [line.removeprefix("* ") for line in previous.split("\n") if line.strip()]
        for message in evicted:
            if message.role == "user":
                pool.extend(part.strip() for part in re.split(r"(?<=[.!?])\s+", message.content) if part.strip())
        facts = [p for p in pool if re.search(r"\d|\s[A-Z]", p) and not p.endswith("?")]
        keep: list[int] = []
        for index in reversed(range(len(facts))):
            trial = sorted(keep + [index])
            if count("\n".join("* " + facts[i] for i in trial)) <= max_tokens:
                keep = trial
        return "\n".join("* " + facts[i] for i in keep)


class WeightedByNumbers:
    """Ranks sentences by how many numbers and names they carry (questions count against); one paragraph."""

    def summarize(self, previous, evicted, max_tokens):
        sentences = [s.strip() for s in re.split(r"(?<=[.!?])\s+|\n", previous) if s.strip()]
        sentences += [s.strip() for m in evicted if m.role == "user"
                      for s in re.split(r"(?<=[.!?])\s+", m.content) if s.strip()]
        sentences = list(dict.fromkeys(sentences))
        weight = [3 * len(re.findall(r"\d+", s)) + len(re.findall(r"\b[A-Z][a-z]+", s[1:])) - 5 * s.endswith("?")
                  for s in sentences]
        chosen: set[int] = set()
        for i in sorted(range(len(sentences)), key=lambda i: (-weight[i], -i)):
            if weight[i] <= 0:
                break
            if count(" ".join(s for j, s in enumerate(sentences) if j in chosen or j == i)) <= max_tokens:
                chosen.add(i)
        return " ".join(s for j, s in enumerate(sentences) if j in chosen)


class PreviousFirstThenFacts:
    """Keeps the previous summary as long as it fits, then adds the evicted user facts that fit."""

    def summarize(self, previous, evicted, max_tokens):
        lines: list[str] = []

        def add(line):
            if line and line not in lines and count("\n".join(lines + [line])) <= max_tokens:
                lines.append(line)

        for line in previous.splitlines():
            add(line.strip())
        for message in evicted:
            if message.role != "user":
                continue
            for sentence in re.split(r"(?<=[.!?])\s+", message.content):
                if re.search(r"\d|\b(?!I\b)[A-Z][a-z]+", sentence[1:]) and "?" not in sentence:
                    add(sentence.strip())
        return "\n".join(lines)


@pytest.mark.parametrize("answer", [DigitsAndNamesNewestFirst(), WeightedByNumbers(), PreviousFirstThenFacts()])
def test_summarizer_accepts_other_correct_solutions(answer):
    accepts(check_summarizer, answer)


class RemembersFirstSummary:
    """State carried across calls: after the first call it keeps adding to its own history."""

    def __init__(self):
        self.history = []

    def summarize(self, previous, evicted, max_tokens):
        self.history += [m.content for m in evicted if m.role == "user"]
        out = []
        for text in reversed(self.history):
            if count("\n".join(out + [text])) <= max_tokens:
                out.append(text)
        return "\n".join(out)


def test_summarizer_rejects_state_carried_across_calls():
    rejects(check_summarizer, RemembersFirstSummary())


# -- 03 BM25 ------------------------------------------------------------------------------


def bm25_term_at_a_time(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    n = len(docs_tokens)
    if not n:
        return []
    postings: dict[str, dict[int, int]] = defaultdict(dict)
    for i, doc in enumerate(docs_tokens):
        for term in doc:
            postings[term][i] = postings[term].get(i, 0) + 1
    avgdl = sum(map(len, docs_tokens)) / n
    raw = {t: math.log((n - len(p) + 0.5) / (len(p) + 0.5)) for t, p in postings.items()}
    mean = sum(raw.values()) / len(raw)
    idf = {t: (epsilon * mean if w < 0 else w) for t, w in raw.items()}
    scores = [0.0] * n
    for term in query_tokens:
        for i, tf in postings.get(term, {}).items():
            scores[i] += idf[term] * tf * (k1 + 1) / (tf + k1 * (1 - b + b * len(docs_tokens[i]) / avgdl))
    return scores


def bm25_with_statistics(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    import statistics

    if len(docs_tokens) == 0:
        return []
    df = Counter(t for doc in docs_tokens for t in set(doc))
    n = len(docs_tokens)
    idf = {t: math.log(n - c + 0.5) - math.log(c + 0.5) for t, c in sorted(df.items())}
    floor = epsilon * statistics.fmean(idf.values())
    avgdl = statistics.fmean(len(d) for d in docs_tokens)
    out = []
    for doc in docs_tokens:
        tf = Counter(doc)
        k = k1 * (1 - b + b * len(doc) / avgdl)
        out.append(math.fsum((idf[q] if idf[q] >= 0 else floor) * tf[q] * (k1 + 1) / (tf[q] + k)
                             for q in query_tokens if tf[q]))
    return out


def bm25_numpy(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    import numpy as np

    if not docs_tokens:
        return []
    vocab = sorted({t for d in docs_tokens for t in d})
    at = {t: j for j, t in enumerate(vocab)}
    tf = np.zeros((len(docs_tokens), len(vocab)))
    for i, doc in enumerate(docs_tokens):
        for t in doc:
            tf[i, at[t]] += 1
    n = len(docs_tokens)
    df = (tf > 0).sum(axis=0)
    idf = np.log(n - df + 0.5) - np.log(df + 0.5)
    idf = np.where(idf < 0, epsilon * idf.mean(), idf)
    lengths = tf.sum(axis=1)
    k = k1 * (1 - b + b * lengths / lengths.mean())
    part = idf * tf * (k1 + 1) / (tf + k[:, None])
    columns = [at[t] for t in query_tokens if t in at]
    return [float(x) for x in part[:, columns].sum(axis=1)] if columns else [0.0] * n


@pytest.mark.parametrize("answer", [bm25_term_at_a_time, bm25_with_statistics, bm25_numpy])
def test_bm25_accepts_other_correct_solutions(answer):
    accepts(check_bm25, answer)


def test_bm25_rejects_flooring_an_idf_of_exactly_zero():
    def floors_zero(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
        n = len(docs_tokens)
        if not n:
            return []
        df = Counter(t for d in docs_tokens for t in set(d))
        raw = {t: math.log(n - c + 0.5) - math.log(c + 0.5) for t, c in df.items()}
        mean = sum(raw.values()) / len(raw)
        idf = {t: epsilon * mean if w <= 0 else w for t, w in raw.items()}  # <= instead of <
        avgdl = sum(map(len, docs_tokens)) / n
        return [sum(idf[t] * Counter(d)[t] * (k1 + 1) / (Counter(d)[t] + k1 * (1 - b + b * len(d) / avgdl))
                    for t in query_tokens if t in d) for d in docs_tokens]

    rejects(check_bm25, floors_zero, "exactly half")


def test_bm25_accepts_crashing_on_an_empty_corpus():
    # The stub does not say what an empty corpus gives (rank-bm25 itself raises), so the check does
    # not ask: an answer that divides by the number of documents is as correct as one that returns [].
    def divides_by_zero(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
        avgdl = sum(map(len, docs_tokens)) / len(docs_tokens)
        return bm25_term_at_a_time(query_tokens, docs_tokens, k1, b, epsilon) if avgdl else []

    accepts(check_bm25, divides_by_zero)


# -- 04 page fault ------------------------------------------------------------------------

SEARCH = ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": True})


def script_with_other_words():
    return [ToolCall("archival_memory_search", {"query": "allergic chicken", "request_heartbeat": True}),
            ToolCall("send_message", {"message": "Avoid chicken: Biscuit is allergic to it [arc-000001]."})]


def script_that_builds_the_citation():
    from memlib.course.checks import page_fault_scenario

    record = page_fault_scenario().memory.archival.get("arc-000001")
    return [SEARCH, ToolCall("send_message", {
        "message": f"Chicken. {Citation.from_record(record).format()} says Biscuit is allergic to it."})]


ALTERNATIVE_SCRIPTS = [
    script_with_other_words,
    script_that_builds_the_citation,
    # a list instead of a function, and a search for the dog's name alone
    [ToolCall("archival_memory_search", {"query": "Biscuit", "request_heartbeat": True}),
     ToolCall("send_message", {"message": "CHICKEN - Biscuit is allergic [arc-000001]"})],
]


@pytest.mark.parametrize("answer", ALTERNATIVE_SCRIPTS, ids=["other-words", "built-citation", "list"])
def test_page_fault_accepts_other_correct_scripts(answer):
    accepts(check_page_fault, answer)


@pytest.mark.parametrize("reply, fragment", [
    ("Biscuit can eat chicken, no problem. [arc-000001]", "does not say Biscuit must avoid it"),
    ("Chicken is fine for Biscuit [arc-000001]", "does not say Biscuit must avoid it"),
    ("Biscuit must avoid chicken: he is allergic. [arc-000001] [arc-000002]", "also cites arc-000002"),
])
def test_page_fault_rejects_a_contradicting_reply_and_an_extra_citation(reply, fragment):
    rejects(check_page_fault, [SEARCH, ToolCall("send_message", {"message": reply})], fragment)


# -- 06 citations -------------------------------------------------------------------------

STOP = {"what", "which", "who", "where", "when", "how", "is", "are", "the", "a", "of", "to", "does", "do", "s"}


def cite_by_overlap_ratio(question, store):
    words = set(tokenize(question)) - STOP
    df = Counter(t for r in store for t in set(tokenize(r.text)))
    n = len(list(store))
    rare = {w for w in words if df[w] <= n / 4} or words
    best = max(store, key=lambda r: (len(rare & set(tokenize(r.text))), -int(r.id[-6:])))
    hit = len(rare & set(tokenize(best.text)))
    if hit and hit >= 0.5 * len(rare):
        return cite(best.text, [best])
    return CitedAnswer("Sorry, I don't know: nothing in memory supports an answer.")


def cite_from_search_hits(question, store):
    terms = [t for t in tokenize(question) if len(t) > 2 and t not in STOP]
    records = list(store)
    common = {t for t in terms if sum(t in tokenize(r.text) for r in records) > len(records) / 4}
    useful = [t for t in terms if t not in common] or terms
    for hit in store.search(" ".join(useful), top_k=3):
        if 2 * sum(t in tokenize(hit.record.text) for t in set(useful)) >= len(set(useful)):
            return CitedAnswer(f"From memory: {hit.record.text}", [Citation.from_record(hit.record)])
        break
    return CitedAnswer("I have no record that answers this.")


def cite_with_idf_weights(question, store):
    records = list(store)
    df = Counter(t for r in records for t in set(tokenize(r.text)))
    weight = {t: math.log(len(records) / df[t]) for t in df}
    terms = set(tokenize(question)) - STOP
    total = sum(weight.get(t, math.log(len(records))) for t in terms)
    scored = [(sum(weight[t] for t in terms & set(tokenize(r.text))), r) for r in records]
    score, record = max(scored, key=lambda pair: pair[0])
    if total and score >= 0.4 * total:
        return cite(record.text, [record])
    return CitedAnswer("Nothing in my memory answers that.")


@pytest.mark.parametrize("answer", [cite_by_overlap_ratio, cite_from_search_hits, cite_with_idf_weights])
def test_citation_check_accepts_other_correct_solutions(answer):
    accepts(check_citation_contract, answer)


def test_citation_check_rejects_an_answer_that_contradicts_its_record():
    def contradicts(question, store):
        answer = answer_from_store(question, store)
        if not answer.citations:
            return answer
        text = answer.text.replace("penicillin", "peanuts").replace("Wednesday", "Tuesday")
        return CitedAnswer(text, answer.citations)

    rejects(check_citation_contract, contradicts, "does not say what it says")


def test_citation_check_rejects_an_extra_irrelevant_citation():
    def one_more(question, store):
        answer = answer_from_store(question, store)
        if not answer.citations:
            return answer
        extra = store.get("arc-000010" if answer.citations[0].record_id != "arc-000010" else "arc-000001")
        return CitedAnswer(answer.text, [*answer.citations, Citation.from_record(extra)])

    rejects(check_citation_contract, one_more, "irrelevant citation")


def test_citation_check_rejects_support_by_the_users_name():
    def name_is_enough(question, store):
        words = set(tokenize(question))
        for record in store:
            if len(words & set(tokenize(record.text))) >= 2:
                return cite(record.text, [record])
        return CitedAnswer("I could not find that in my memory.")

    rejects(check_citation_contract, name_is_enough, "citation without support")


# -- 07 guard ------------------------------------------------------------------------------

#: The five correct guards of tests/alternatives/07-guard, by one author who read only the student
#: notebook and refined the rules on the development split: the panel the check's floors come from.
GUARD_PANEL = ("correct_all_reasons", "correct_rule_objects", "correct_scored", "correct_sentences", "correct_unwrap")


def guard_answer(name):
    """`my_scan` of tests/alternatives/07-guard/<name>.py, imported by path."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parent / "alternatives" / "07-guard" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(f"alternative_07_guard_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.my_scan


@pytest.mark.parametrize("name", GUARD_PANEL)
def test_guard_accepts_the_independent_correct_guards(name):
    accepts(check_guard, guard_answer(name))


@pytest.mark.parametrize("name, fragments", [
    ("wrong_no_category", ("marked untrusted with category None", "it must be there")),
    ("wrong_overbroad", ("false-positive rate on benign notes on the development split is 0.120",
                         "an imperative is not an injection")),
    ("wrong_phrase_list", ("recall on injections on the development split is 0.065", "a general rule per family")),
    ("wrong_reason_when_trusted", ("marked trusted with reasons", "reasons=[]")),
    ("wrong_whole_note_excuse", ("alone but trusts it after a harmless sentence", "excuses that sentence only")),
])
def test_guard_rejects_the_independent_wrong_guards(name, fragments):
    rejects(check_guard, guard_answer(name), *fragments)


def test_guard_floors_are_the_panels_lowest_less_the_spread_between_authors_and_fail_memorising():
    from memlib.course.checks.nb07_guard import GUARD_THRESHOLDS
    from memlib.course.checks.nb07_guard import _measure as guard_report  # every split, the held-out one too
    from memlib.guard import POISONED_PAGE, Verdict

    injected = {n.text for n in load("poisoning") if n.is_injection} | {POISONED_PAGE}

    def lookup(text):
        return Verdict(False, ["a development injection"], "lookup") if text in injected else Verdict(True, [], None)

    phrase_list = guard_answer("wrong_phrase_list")
    lowest = {}
    for split, (need_recall, max_fpr) in GUARD_THRESHOLDS.items():
        panel = [guard_report(guard_answer(name), name, split) for name in GUARD_PANEL]
        lowest[split] = min(report.recall for report in panel)
        assert need_recall == math.floor((lowest[split] - 0.20) * 10) / 10, (split, lowest)  # as nb07_guard says
        assert max(report.false_positive_rate for report in panel) < max_fpr / 2
        assert guard_report(phrase_list, "phrases", split).recall < 0.1 < need_recall
    # what notebook 07's exercise says: nine development injections in ten, half the held-out ones; a
    # guard that memorises the development notes catches all of them and no held-out one
    assert lowest["poisoning"] >= 0.9 and 0.45 <= lowest["poisoning_heldout"] <= 0.55
    assert guard_report(lookup, "lookup", "poisoning").recall == 1.0
    assert guard_report(lookup, "lookup", "poisoning_heldout").recall == 0.0


# -- 08 typed core memory -----------------------------------------------------------------

EXAMPLES = load("core_memory")
SCHEMA = EXAMPLES.schema
FIELDS = ("label", "value", "limit", "description", "read_only")


class TypedAsList:
    """Blocks as a list of dicts, errors as KeyError / CoreMemoryError, a different render format."""

    def __init__(self, blocks):
        self._blocks = [dict(b) for b in blocks]

    def _find(self, label):
        for block in self._blocks:
            if block["label"] == label:
                return block
        raise KeyError(f"no block {label!r}")

    @classmethod
    def from_legacy(cls, flat):
        return cls.from_document({"blocks": [{"label": k, "value": v, "limit": 2000, "description": f"{k} notes",
                                              "read_only": False} for k, v in flat.items()]})

    @classmethod
    def from_document(cls, document):
        jsonschema.validate(document, SCHEMA)
        labels = [b["label"] for b in document["blocks"]]
        if len(set(labels)) != len(labels):
            raise CoreMemoryError("duplicate labels")
        if any(len(b["value"]) > b["limit"] for b in document["blocks"]):
            raise CoreMemoryError("value over its limit")
        return cls([{"description": "", "read_only": False, **b} for b in document["blocks"]])

    def to_document(self):
        return {"blocks": [{f: b[f] for f in FIELDS} for b in self._blocks]}

    def to_json(self):
        return json.dumps(self.to_document(), indent=2)

    @classmethod
    def from_json(cls, text):
        return cls.from_document(json.loads(text))

    def render(self):
        out = []
        for b in self._blocks:
            flag = " [read-only]" if b["read_only"] else ""
            out.append(f"<{b['label']}>{flag} ({len(b['value'])}/{b['limit']} chars)\n{b['value']}\n</{b['label']}>")
        return "\n\n".join(out)

    def _edit(self, label, value):
        block = self._find(label)
        if block["read_only"]:
            raise CoreMemoryError("read-only")
        if len(value) > block["limit"]:
            raise CoreMemoryError("over the limit")
        block["value"] = value

    def append(self, label, text):
        old = self._find(label)["value"]
        self._edit(label, old + "\n" + text if old else text)

    def replace(self, label, old, new):
        value = self._find(label)["value"]
        if old == "" or value.count(old) != 1:
            raise CoreMemoryError("old text must appear once")
        self._edit(label, value.replace(old, new))


def _typed_with_dataclasses():
    from dataclasses import asdict, dataclass, replace

    @dataclass(frozen=True)
    class Block:
        label: str
        value: str
        limit: int
        description: str = ""
        read_only: bool = False

    class TypedWithDataclasses:
        def __init__(self, blocks):
            self.order = [b.label for b in blocks]
            self.by_label = {b.label: b for b in blocks}

        @classmethod
        def from_legacy(cls, flat):
            return cls.from_document({"blocks": [
                {"label": k, "value": v, "limit": 2000, "description": "Legacy section " + k} for k, v in flat.items()]})

        @classmethod
        def from_document(cls, document):
            errors = list(jsonschema.Draft202012Validator(SCHEMA).iter_errors(document))
            if errors:
                raise ValueError(errors[0].message)
            blocks = [Block(**b) for b in document["blocks"]]
            if len({b.label for b in blocks}) < len(blocks):
                raise ValueError("labels repeat")
            for b in blocks:
                if len(b.value) > b.limit:
                    raise ValueError(f"{b.label} is over its limit")
            return cls(blocks)

        def to_document(self):
            return {"blocks": [asdict(self.by_label[label]) for label in self.order]}

        def to_json(self):
            return json.dumps(self.to_document())

        @classmethod
        def from_json(cls, text):
            return cls.from_document(json.loads(text))

        def render(self):
            parts = []
            for label in self.order:
                b = self.by_label[label]
                ro = ' read_only="true"' if b.read_only else ""
                parts.append(f'<{label} characters="{len(b.value)}/{b.limit}"{ro}>\n{b.value}\n</{label}>')
            return "\n".join(parts)

        def _change(self, label, new_value):
            if label not in self.by_label:
                raise CoreMemoryError(f"unknown block {label}")
            b = self.by_label[label]
            if b.read_only or len(new_value) > b.limit:
                raise CoreMemoryError("refused")
            self.by_label[label] = replace(b, value=new_value)

        def append(self, label, text):
            if label not in self.by_label:
                raise CoreMemoryError(f"unknown block {label}")
            v = self.by_label[label].value
            self._change(label, "\n".join(filter(None, [v, text])))

        def replace(self, label, old, new):
            if label not in self.by_label:
                raise KeyError(label)
            v = self.by_label[label].value
            if not old or v.count(old) != 1:
                raise CoreMemoryError("old text must appear exactly once")
            self._change(label, v.replace(old, new))

    return TypedWithDataclasses


def _typed_on_corememory_rules():
    """Validates by hand-written loops after the schema, copies on every edit (copy-on-write)."""

    class TypedCopyOnWrite(TypedAsList):
        def _edit(self, label, value):
            blocks = copy.deepcopy(self._blocks)
            block = next((b for b in blocks if b["label"] == label), None)
            if block is None:
                raise CoreMemoryError(f"no block {label!r}")
            if block["read_only"] or len(value) > block["limit"]:
                raise CoreMemoryError("refused")
            block["value"] = value
            self._blocks = blocks

        def render(self):
            return "\n".join(f"<{b['label']} read_only=\"{str(b['read_only']).lower()}\" "
                             f"chars=\"{len(b['value'])}/{b['limit']}\">{b['value']}</{b['label']}>"
                             for b in self._blocks)

    return TypedCopyOnWrite


@pytest.mark.parametrize("make", [lambda: TypedAsList, _typed_with_dataclasses, _typed_on_corememory_rules],
                         ids=["list", "dataclasses", "copy-on-write"])
def test_typed_core_memory_accepts_other_correct_solutions(make):
    accepts(check_typed_core_memory, make())


class MarksEveryBlockReadOnly(TypedAsList):
    def render(self):
        return "\n".join(f"<{b['label']} {len(b['value'])}/{b['limit']} read_only>"
                          f"\n{b['value']}\n</{b['label']}>" for b in self._blocks)


class FillsDefaultsInTheCallersDocument(TypedAsList):
    @classmethod
    def from_document(cls, document):
        jsonschema.validate(document, SCHEMA)
        for b in document["blocks"]:
            b.setdefault("description", "")
            b.setdefault("read_only", False)
        return super().from_document(document)


class SharedBlocks(TypedAsList):
    _shared: list = []  # class-level: every instance edits the same list

    def __init__(self, blocks):
        if not SharedBlocks._shared:
            SharedBlocks._shared.extend(dict(b) for b in blocks)
        self._blocks = SharedBlocks._shared


class LimitIs2000Everywhere(TypedAsList):
    def _edit(self, label, value):
        block = self._find(label)
        if block["read_only"] or len(value) > 2000:
            raise CoreMemoryError("refused")
        block["value"] = value


class StrictAtTheLimit(TypedAsList):
    @classmethod
    def from_document(cls, document):
        memory = super().from_document(document)
        if any(len(b["value"]) >= b["limit"] for b in document["blocks"]):
            raise CoreMemoryError("full")
        return memory


class ChecksOnlySomeTypes(TypedAsList):
    @classmethod
    def from_document(cls, document):
        for b in document["blocks"]:  # hand-written validation instead of the schema
            if "label" not in b or not isinstance(b.get("limit"), int):
                raise CoreMemoryError("bad block")
        labels = [b["label"] for b in document["blocks"]]
        if len(set(labels)) != len(labels) or any(len(b["value"]) > b["limit"] for b in document["blocks"]):
            raise CoreMemoryError("bad")
        if any(b["label"] in ("persona", "human") and len(b["value"]) > 2000 for b in document["blocks"]):
            raise CoreMemoryError("too long")
        return cls([{"description": "", "read_only": False, **b} for b in document["blocks"]])


@pytest.mark.parametrize("answer, fragment", [
    (MarksEveryBlockReadOnly, "marks the editable block"),
    (FillsDefaultsInTheCallersDocument, "changed the document it was given"),
    (SharedBlocks, ""),
    (LimitIs2000Everywhere, "past its own limit"),
    (StrictAtTheLimit, "exactly its limit"),
    (ChecksOnlySomeTypes, "whose only problem is"),
])
def test_typed_core_memory_rejects_the_leak_classes(answer, fragment):
    SharedBlocks._shared.clear()
    rejects(check_typed_core_memory, answer, fragment)


# -- messages do not depend on the hash seed -------------------------------------------------

_PROGRAM = """
import contextlib, io
from memlib.course.checks import CheckFailed, check_bm25, check_typed_core_memory, check_citation_contract
from memlib.course.checks import check_token_budget, check_summarizer, check_page_fault, nb01_token_budget, nb03_bm25
from memlib.agent import ToolCall
from memlib.citations import CitedAnswer
from memlib.summarize import TruncatingSummarizer
out = []
for check, answer in [
    (check_token_budget, nb01_token_budget._budget_variant("skip")),
    (check_summarizer, TruncatingSummarizer()),
    (check_page_fault, [ToolCall("archival_memory_search", {"query": "Biscuit", "request_heartbeat": True}),
                        ToolCall("send_message", {"message": "Chicken [arc-000001] [arc-000003]"})]),
    (check_bm25, lambda q, d, **k: nb03_bm25._bm25_variant(q, d, **k, idf="cf")),
    (check_citation_contract, lambda q, s: CitedAnswer("no idea")),
    (check_typed_core_memory, type("T", (), {"from_legacy": classmethod(lambda c, f: c())})),
]:
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            check(answer)
    except CheckFailed as failure:
        out.append(str(failure))
print(repr(out))
"""


def test_messages_are_the_same_under_any_hash_seed():
    seen = set()
    for seed in ("0", "1", "12345"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        result = subprocess.run([sys.executable, "-c", _PROGRAM], capture_output=True, text=True, env=env, timeout=120)
        assert result.returncode == 0, result.stderr
        seen.add(result.stdout)
    assert len(seen) == 1, seen
    assert seen.pop().count("[0") >= 6, "every check should have failed on its mistake"
