"""The part-2 checks (exercises 3, 4, 5): the reference passes, each plausible mistake fails with its own message."""

from __future__ import annotations

import json
import random
import re

import jsonschema
import pytest

from memlib.citations import NO_SUPPORT, Citation, CitedAnswer, answer_from_store, cite
from memlib.core_memory import CoreMemoryError
from memlib.course.checks import (CHECKS, CheckFailed, check_citation_contract, check_guard,
                                  check_typed_core_memory)
from memlib.course.checks.nb06_citations import CITATION_QUESTIONS, citation_store
from memlib.course.checks.nb07_guard import _measure, guard_report
from memlib.evaluation import KeywordGuard
from memlib import datasets
from memlib.guard import Verdict, scan


def fails(check, answer, *fragments):
    """Run `check(answer)`; assert it fails and that its message contains every fragment."""
    with pytest.raises(CheckFailed) as info:
        check(answer)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, message
    return message


def test_checks_are_registered_under_their_grade_ids():
    assert {"06-citations", "07-guard", "08-typed-core-memory"} <= set(CHECKS)


# -- exercise 3: citations ----------------------------------------------------------------


def test_citation_reference_passes(capsys):
    check_citation_contract(answer_from_store)
    assert "PASS  all checks for 06-citations" in capsys.readouterr().out


def test_citation_gold_matches_reference():
    store = citation_store()
    for question, gold in CITATION_QUESTIONS:
        assert tuple(answer_from_store(question, store).record_ids) == gold, question


def _top(question, store):
    return store.search(question, top_k=5)


def test_citation_stub():
    def stub(question, store):
        raise NotImplementedError("Exercise 3: answer with citations")

    fails(check_citation_contract, stub, "not solved yet", "Exercise 3")


def test_citation_returns_a_string():
    fails(check_citation_contract, lambda q, s: "Penicillin.", "is a str, not a CitedAnswer")


def test_citation_missing():
    def no_citations(question, store):
        hits = _top(question, store)
        return CitedAnswer(hits[0].record.text if hits else NO_SUPPORT)

    fails(check_citation_contract, no_citations, "missing citation", "arc-000002")


def test_citation_fabricated():
    def made_up(question, store):
        hits = _top(question, store)
        return CitedAnswer(hits[0].record.text, (Citation(f"arc-{hits[0].rank + 1:06d}x"),))

    fails(check_citation_contract, made_up, "fabricated citation", "not in the store")


def test_citation_fabricated_plausible_id():
    def invented(question, store):
        return CitedAnswer("Penicillin.", (Citation("arc-000042", "s01", 4),))

    fails(check_citation_contract, invented, "fabricated citation", "'arc-000042'")


def test_citation_without_provenance():
    def bare(question, store):
        answer = answer_from_store(question, store)
        return CitedAnswer(answer.text, tuple(Citation(c.record_id) for c in answer.citations))

    fails(check_citation_contract, bare, "incomplete provenance", "session_id=None", "Citation.from_record")


def test_citation_wrong_source_url_only():
    def no_url(question, store):
        answer = answer_from_store(question, store)
        return CitedAnswer(answer.text, tuple(Citation(c.record_id, c.session_id, c.turn_id) for c in answer.citations))

    fails(check_citation_contract, no_url, "incomplete provenance", "source_url=None")


def test_citation_cites_every_hit():
    def everything(question, store):
        hits = _top(question, store)
        return cite(hits[0].record.text, hits) if hits else CitedAnswer(NO_SUPPORT)

    fails(check_citation_contract, everything, "irrelevant citation", "does not answer it")


def test_citation_always_cites_the_top_hit():
    def top_hit(question, store):
        hits = _top(question, store)
        return cite(hits[0].record.text, [hits[0]]) if hits else CitedAnswer(NO_SUPPORT)

    fails(check_citation_contract, top_hit, "citation without support", "What colour is the allotment shed?")


def test_citation_unsupported_but_silent():
    def silent(question, store):
        answer = answer_from_store(question, store)
        return answer if answer.citations else CitedAnswer("")

    fails(check_citation_contract, silent, "does not say that it found nothing")


def test_citation_too_strict():
    fails(check_citation_contract, lambda q, s: CitedAnswer(NO_SUPPORT), "too strict", "arc-000002")


def test_citation_answer_not_supported_by_its_record():
    def yes(question, store):
        answer = answer_from_store(question, store)
        return CitedAnswer("Yes, definitely.", answer.citations) if answer.citations else answer

    fails(check_citation_contract, yes, "is not supported by what it cites")


# -- exercise 4: guard ---------------------------------------------------------------------


def _verdict_from_flag(flags):
    """A scanner from any `text -> bool` (True = suspicious)."""
    def scanner(text):
        flagged = flags(text)
        return Verdict(not flagged, ["flagged"] if flagged else [], "override" if flagged else None)
    return scanner


def notebook_solution_guard():
    """The notebook's own solution to exercise 4 (the toolbox cell and the solution cell), run as written."""
    from pathlib import Path

    nb = json.loads(Path(__file__).resolve().parents[1].joinpath("solutions", "07_memory_poisoning.ipynb")
                    .read_text(encoding="utf-8"))
    from memlib.guard import reveal

    # what earlier cells of the notebook define and these two cells use
    namespace: dict = {"notes": datasets.load("poisoning"), "reveal": reveal, "Verdict": Verdict}
    for cell in nb["cells"]:
        src = "".join(cell["source"])
        if cell["cell_type"] == "code" and ("def decoded_payloads" in src or "def my_scan" in src):
            exec(compile(src.replace("print(", "(lambda *a, **k: None)("), "<notebook>", "exec"), namespace)
    return namespace["my_scan"]


def test_guard_reference_passes(capsys):
    check_guard(scan)
    out = capsys.readouterr().out
    assert "PASS  all checks for 07-guard" in out
    assert "concealment" in out and "imperative_reminder" in out  # the per-family table
    assert "on the development split" in out and "on the held-out split" in out


@pytest.mark.parametrize("name", ["memlib.guard.scan", "the notebook's solution", "rules or naive Bayes"])
def test_three_different_correct_guards_pass(name, capsys):
    from memlib.evaluation import EitherGuard, NaiveBayesGuard, RulesGuard

    if name == "memlib.guard.scan":
        guard = scan
    elif name == "the notebook's solution":
        guard = notebook_solution_guard()
    else:
        either = EitherGuard(RulesGuard(), NaiveBayesGuard.fit(datasets.load("poisoning")))
        guard = _verdict_from_flag(either.flags)
    check_guard(guard)
    assert "PASS  all checks for 07-guard" in capsys.readouterr().out


def test_a_lookup_table_of_the_development_notes_fails_on_the_held_out_split():
    from memlib.guard import POISONED_PAGE

    injected = {n.text for n in datasets.load("poisoning") if n.is_injection} | {POISONED_PAGE}
    lookup = _verdict_from_flag(lambda text: text in injected)
    assert guard_report(lookup, split="poisoning").recall == 1.0  # perfect on what it memorised
    fails(check_guard, lookup, "recall on injections on the held-out split is 0.000", "not in the development split")


def test_the_notebook_states_the_bars_the_check_applies():
    from pathlib import Path

    from memlib.course.checks.nb07_guard import GUARD_THRESHOLDS

    root = Path(__file__).resolve().parents[1]
    text = root.joinpath("solutions", "07_memory_poisoning.ipynb").read_text("utf-8")
    for recall, fpr in GUARD_THRESHOLDS.values():
        assert f"≥ {recall:.2f}" in text and f"≤ {fpr:.2f}" in text
    # and the stub the student edits, beside `def my_scan`
    cells = json.loads(root.joinpath("notebooks", "07_memory_poisoning.ipynb").read_text("utf-8"))["cells"]
    (stub,) = ["".join(c["source"]) for c in cells if "def my_scan" in "".join(c["source"])]
    development, held_out = GUARD_THRESHOLDS["poisoning"], GUARD_THRESHOLDS["poisoning_heldout"]
    assert (f">= {development[0]:.2f} on the development split and >= {held_out[0]:.2f} on the" in stub
            and f"<= {development[1]:.2f} on each" in stub and development[1] == held_out[1]), stub


def test_guard_stub():
    def stub(text):
        raise NotImplementedError("Exercise 4: write the guard")

    fails(check_guard, stub, "not solved yet", "Exercise 4")


def test_guard_returning_bool():
    fails(check_guard, lambda text: "ignore" in text.lower(), "returned bool", "not a Verdict")


def test_guard_without_reasons():
    fails(check_guard, lambda text: Verdict(scan(text).trusted, [], None), "untrusted without a reason")


def test_guard_that_crashes_on_odd_text():
    def ascii_only(text):
        text.encode("ascii")
        return scan(text)

    fails(check_guard, ascii_only, "raised UnicodeEncodeError", "never crash")


def test_guard_nondeterministic():
    rng = random.Random(0)
    coin = (Verdict(True, [], None), Verdict(False, ["coin"], "coin"))
    fails(check_guard, lambda text: coin[rng.random() < 0.5], "two different verdicts")


def test_guard_without_a_category():
    fails(check_guard, lambda text: Verdict(scan(text).trusted, scan(text).reasons, None), "with category None")


def test_guard_excusing_a_whole_note_that_mentions_attacks():
    # a plausible mistake: one sentence about attacks (or reported speech) and the whole note passes
    excuse = re.compile(r"\b(?:lesson|course|said)\b", re.I)
    fails(check_guard, lambda text: Verdict(True, [], None) if excuse.search(text) else scan(text),
          "alone but trusts it after a harmless sentence", "excuses that sentence only")


def test_guard_that_misses_an_attack_alone_is_not_blamed_for_the_excuse_before_it():
    # recall on one attack is the splits' business; the excuse is tested on attacks the guard flags alone
    from memlib.course.checks.nb07_guard import EXCUSED_ATTACKS

    missed = EXCUSED_ATTACKS[0][1]
    check_guard(lambda text: Verdict(True, [], None) if missed in text else scan(text))

    def blind_to_all_three(text):
        return Verdict(True, [], None) if any(attack in text for _, attack in EXCUSED_ATTACKS) else scan(text)

    fails(check_guard, blind_to_all_three, "trusted each of these attacks even on its own", "at least one of them alone")


def test_guard_giving_reasons_for_a_trusted_verdict():
    def chatty(text):
        verdict = scan(text)
        return verdict if verdict.untrusted else Verdict(True, ["no rule matched"], None)

    fails(check_guard, chatty, "marked trusted with reasons", "reasons=[]")


def test_keyword_guard_fails_on_recall_per_family():
    guard = KeywordGuard()
    message = fails(check_guard, _verdict_from_flag(guard.flags), "recall on injections on the development split is 0.012",
                    "slipped through")
    assert "concealment" in message or "output_task" in message


def test_guard_blind_to_some_families_names_them():
    blind = {"concealment", "fake_authority", "output_task"}

    def partly_blind(text):
        verdict = scan(text)
        return Verdict(True, [], None) if verdict.category in blind else verdict

    message = fails(check_guard, partly_blind, "recall on injections on the development split", "concealment")
    assert "slipped through" in message


def test_guard_flagging_every_imperative_fails_on_false_positives():
    import re

    def paranoid(text):
        verdict = scan(text)
        if verdict.untrusted or re.search(r"\b(instructions?|remember|never|always|don't|password|said)\b", text, re.I):
            return Verdict(False, ["imperative or keyword"], "override")
        return verdict

    fails(check_guard, paranoid, "false-positive rate on benign notes on the development split", "honest notes flagged")


def test_guard_flagging_everything():
    fails(check_guard, lambda text: Verdict(False, ["everything is suspect"], "override"),
          "false-positive rate on benign notes on the development split is 1.000")


def test_guard_that_misses_the_demo_page_fails_in_the_agent(monkeypatch):
    from memlib.guard import POISONED_PAGE

    def misses_page(text):
        return Verdict(True, [], None) if text == POISONED_PAGE else scan(text)

    fails(check_guard, misses_page, "still rewrote core memory")


def test_guard_report_counts():
    report = guard_report(scan, "reference")
    assert report.split == "poisoning" and report.recall >= 0.97 and report.false_positive_rate <= 0.01
    assert report.by_category["imperative_reminder"][1] == 49
    assert "GuardReport(reference on poisoning" in repr(report)
    keyword = guard_report(_verdict_from_flag(KeywordGuard().flags), "keyword")
    assert round(keyword.recall, 3) == 0.012 and round(keyword.false_positive_rate, 3) == 0.006
    held = _measure(scan, "reference", "poisoning_heldout")
    assert len(held.notes) == len(datasets.load("poisoning_heldout")) and held.recall >= 0.9
    with pytest.raises(ValueError, match="poisoning_heldout"):
        guard_report(scan, split="test")


def test_guard_report_keeps_the_held_out_notes_out_of_the_students_hands():
    # the notebook says the held-out split only measures: the public report, which lists missed notes, refuses it
    with pytest.raises(ValueError, match="only measures .* tune on the development split"):
        guard_report(scan, split="poisoning_heldout")


def test_the_reference_line_says_what_its_figures_are_worth():
    from memlib.course.checks.nb07_guard import _reference_line

    development, held_out = _reference_line("poisoning"), _reference_line("poisoning_heldout")
    assert "recall 1.000" in development and "tuned on these very notes" in development
    assert "no bar for yours" in development
    assert "not tuned on" in held_out and "recall 0.950" in held_out


# -- exercise 5: typed core memory -----------------------------------------------------------

SCHEMA = datasets.load("core_memory").schema
DESCRIPTIONS = {
    "persona": "Who the assistant is and how it speaks.",
    "human": "Key facts about the user.",
}


class TypedCoreMemory:
    """Core memory as typed blocks: {label: {label, value, limit, description, read_only}}."""

    def __init__(self, blocks):
        self.blocks = {block["label"]: dict(block) for block in blocks}

    @classmethod
    def from_legacy(cls, flat):
        return cls.from_document({"blocks": [
            {"label": label, "value": value, "limit": 2000,
             "description": DESCRIPTIONS.get(label, f"The {label} section."), "read_only": False}
            for label, value in flat.items()
        ]})

    @classmethod
    def from_document(cls, document):
        try:
            jsonschema.validate(document, SCHEMA)
        except jsonschema.ValidationError as error:
            raise CoreMemoryError(f"core memory does not match the schema: {error.message}") from None
        labels = [block["label"] for block in document["blocks"]]
        duplicates = sorted({label for label in labels if labels.count(label) > 1})
        if duplicates:
            raise CoreMemoryError(f"labels must be unique; repeated: {duplicates}")
        for block in document["blocks"]:
            if len(block["value"]) > block["limit"]:
                raise CoreMemoryError(f"block {block['label']!r} holds {len(block['value'])} characters, "
                                      f"over its limit of {block['limit']}")
        return cls({"description": "", "read_only": False, **block} for block in document["blocks"])

    def to_document(self):
        fields = ("label", "value", "limit", "description", "read_only")
        return {"blocks": [{key: block[key] for key in fields} for block in self.blocks.values()]}

    def to_json(self):
        return json.dumps(self.to_document(), ensure_ascii=False)

    @classmethod
    def from_json(cls, text):
        return cls.from_document(json.loads(text))

    def render(self):
        sections = []
        for block in self.blocks.values():
            attributes = f'characters="{len(block["value"])}/{block["limit"]}"'
            if block["read_only"]:
                attributes += ' read_only="true"'
            if block["description"]:
                attributes += f' description="{block["description"]}"'
            sections.append(f"<{block['label']} {attributes}>\n{block['value']}\n</{block['label']}>")
        return "\n".join(sections)

    def _set(self, label, new_value):
        """Check everything, then change one block: a refused edit changes nothing."""
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}; known blocks: {list(self.blocks)}")
        block = self.blocks[label]
        if block["read_only"]:
            raise CoreMemoryError(f"block {label!r} is read-only")
        if len(new_value) > block["limit"]:
            raise CoreMemoryError(f"block {label!r} would hold {len(new_value)}/{block['limit']} characters")
        self.blocks[label] = {**block, "value": new_value}

    def append(self, label, text):
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}; known blocks: {list(self.blocks)}")
        value = self.blocks[label]["value"]
        self._set(label, f"{value}\n{text}" if value else text)

    def replace(self, label, old, new):
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}; known blocks: {list(self.blocks)}")
        value = self.blocks[label]["value"]
        if not old or value.count(old) != 1:
            raise CoreMemoryError(f"old text {old!r} must appear exactly once in block {label!r}")
        self._set(label, value.replace(old, new))

    def __repr__(self):
        inner = ", ".join(f"{b['label']} {len(b['value'])}/{b['limit']}" for b in self.blocks.values())
        return f"TypedCoreMemory([{inner}])"


def test_typed_reference_passes(capsys):
    check_typed_core_memory(TypedCoreMemory)
    assert "PASS  all checks for 08-typed-core-memory" in capsys.readouterr().out


def test_typed_stub():
    class Stub(TypedCoreMemory):
        @classmethod
        def from_legacy(cls, flat):
            raise NotImplementedError("Exercise 5: port")

    fails(check_typed_core_memory, Stub, "not solved yet")


def test_typed_instance_instead_of_class():
    fails(check_typed_core_memory, TypedCoreMemory([]), "pass the class itself")


class NoSchema(TypedCoreMemory):
    @classmethod
    def from_document(cls, document):
        blocks = document["blocks"] if isinstance(document, dict) and "blocks" in document else []
        return cls({"description": "", "read_only": False, "limit": 2000, "value": "", **b} for b in blocks
                   if isinstance(b, dict) and "label" in b)


def test_typed_without_schema_validation():
    fails(check_typed_core_memory, NoSchema, "accepted invalid_", "jsonschema.validate")


class SchemaOnly(TypedCoreMemory):
    @classmethod
    def from_document(cls, document):
        jsonschema.validate(document, SCHEMA)
        return cls({"description": "", "read_only": False, **b} for b in document["blocks"])


def test_typed_schema_only_misses_the_rules_it_cannot_express():
    fails(check_typed_core_memory, SchemaOnly, "accepted invalid_duplicate_labels.json", "cannot express")


class NoOwnLimit(TypedCoreMemory):
    @classmethod
    def from_document(cls, document):
        jsonschema.validate(document, SCHEMA)
        labels = [b["label"] for b in document["blocks"]]
        if len(set(labels)) != len(labels):
            raise CoreMemoryError("duplicate labels")
        return cls({"description": "", "read_only": False, **b} for b in document["blocks"])


def test_typed_value_over_own_limit():
    fails(check_typed_core_memory, NoOwnLimit, "accepted invalid_value_over_own_limit.json")


class NotAtomic(TypedCoreMemory):
    def append(self, label, text):
        block = self.blocks[label]
        block["value"] = f"{block['value']}\n{text}" if block["value"] else text
        if len(block["value"]) > block["limit"]:
            raise CoreMemoryError("over the limit")


def test_typed_non_atomic_append():
    fails(check_typed_core_memory, NotAtomic, "refused append still changed core memory")


class NoLimit(TypedCoreMemory):
    def _set(self, label, new_value):
        self.blocks[label] = {**self.blocks[label], "value": new_value}


def test_typed_no_limit_at_all():
    fails(check_typed_core_memory, NoLimit, "was accepted", "over its limit of 2000")


class OffByOne(TypedCoreMemory):
    def _set(self, label, new_value):
        if len(new_value) >= self.blocks[label]["limit"]:
            raise CoreMemoryError("full")
        super()._set(label, new_value)


def test_typed_off_by_one_limit():
    fails(check_typed_core_memory, OffByOne, "exactly its limit of 2000, was refused", ">, not >=")


class SpaceJoin(TypedCoreMemory):
    def append(self, label, text):
        value = self.blocks[label]["value"]
        self._set(label, f"{value} {text}" if value else text)


def test_typed_append_joins_with_space():
    fails(check_typed_core_memory, SpaceJoin, "append up to exactly the limit gave", "first difference at character")


class IgnoresReadOnly(TypedCoreMemory):
    def _set(self, label, new_value):
        block = self.blocks[label]
        if len(new_value) > block["limit"]:
            raise CoreMemoryError("over")
        self.blocks[label] = {**block, "value": new_value}


def test_typed_ignores_read_only():
    fails(check_typed_core_memory, IgnoresReadOnly, "read-only block 'persona' was accepted")


class ReplaceUnchecked(TypedCoreMemory):
    def replace(self, label, old, new):
        self._set(label, self.blocks[label]["value"].replace(old, new))


def test_typed_replace_without_old_text_check():
    fails(check_typed_core_memory, ReplaceUnchecked, "old text that is not in the block was accepted")


class NoDescriptions(TypedCoreMemory):
    @classmethod
    def from_legacy(cls, flat):
        return cls.from_document({"blocks": [{"label": k, "value": v, "limit": 2000} for k, v in flat.items()]})


def test_typed_port_without_descriptions():
    fails(check_typed_core_memory, NoDescriptions, "has no description")


class WrongLimit(TypedCoreMemory):
    @classmethod
    def from_legacy(cls, flat):
        return cls([{"label": k, "value": v, "limit": 5000, "description": "d", "read_only": False}
                    for k, v in flat.items()])


def test_typed_port_with_wrong_limit():
    fails(check_typed_core_memory, WrongLimit, "does not match the schema", "maximum")


class LossyJson(TypedCoreMemory):
    def to_json(self):
        return json.dumps({"blocks": [{k: b[k] for k in ("label", "value", "limit")} for b in self.blocks.values()]})


def test_typed_json_drops_fields():
    fails(check_typed_core_memory, LossyJson, "does not survive to_json() -> from_json()")


class NoCounts(TypedCoreMemory):
    def render(self):
        return "\n".join(f"<{b['label']}>\n{b['value']}\n</{b['label']}>" for b in self.blocks.values())


def test_typed_render_without_fill_level():
    fails(check_typed_core_memory, NoCounts, "fill level")


class FlatDocument(TypedCoreMemory):
    def to_document(self):
        return {b["label"]: b["value"] for b in self.blocks.values()}


def test_typed_flat_to_document():
    fails(check_typed_core_memory, FlatDocument, "not {'blocks': [...]}")


class ValidatingWrongLimit(TypedCoreMemory):
    @classmethod
    def from_legacy(cls, flat):
        return cls.from_document({"blocks": [{"label": k, "value": v, "limit": 5000, "description": "d",
                                              "read_only": False} for k, v in flat.items()]})


def test_typed_port_that_raises():
    fails(check_typed_core_memory, ValidatingWrongLimit, "from_legacy raised CoreMemoryError", "maximum of 2000")


# -- the block view of notebook 08 ------------------------------------------------------------


def test_block_fill_bars_reads_every_kind_of_core_memory():
    from memlib.core_memory import CoreMemory
    from memlib.viz.blocks import block_fill_bars, block_rows

    letta = datasets.load("core_memory").valid["letta_blocks"]
    for source in (letta, CoreMemory.from_dict(letta), TypedCoreMemory.from_document(letta)):
        fig = block_fill_bars(source)
        assert list(fig.data[0].y) == ["persona", "human", "project_heron", "reminders"]
        assert [x + free for x, free in zip(fig.data[0].x, fig.data[1].x)] == [2000, 2000, 1000, 500]
        assert fig.layout.xaxis.range[1] > 2000  # room for the "used/limit" text after the longest bar
    rows = block_rows({"blocks": [{"label": "a", "value": "x" * 10, "limit": 10, "read_only": True}]})
    assert rows[0]["fill"] == 1.0 and rows[0]["read_only"]
    # a read-only block says so in words (no emoji, which default fonts draw as a box); each bar's
    # "used/limit" label sits right of the whole bar, never squeezed inside a short one
    fig = block_fill_bars({"blocks": [{"label": "a", "value": "x" * 10, "limit": 10, "read_only": True},
                                      {"label": "b", "value": "y", "limit": 500}]})
    assert list(fig.layout.yaxis.ticktext) == ["a (read-only)", "b"]
    assert all(not t.text for t in fig.data)
    labels = {a.y: a for a in fig.layout.annotations}
    assert labels["a"].text == "10/10 (100%)" and labels["b"].text == "1/500 (0%)"
    assert labels["b"].x == 500 and labels["b"].xanchor == "left" and not labels["b"].showarrow
    with pytest.raises(TypeError, match="blocks"):
        block_fill_bars("persona: hi")


def test_checks_import_in_any_order():
    import subprocess
    import sys

    code = ("import memlib.course.checks.nb07_guard\n"
            "from memlib.course.checks import check_guard, check_citation_contract, check_typed_core_memory\n")
    subprocess.run([sys.executable, "-c", code], check=True)
