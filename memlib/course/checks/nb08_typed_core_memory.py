"""Notebook 08's check, exercise 5: typed core memory."""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Callable

from memlib.course.checking import CheckFailed, expect, graded, is_class, passed
from memlib.course.exercise import Exercise
from memlib.course.checks._common import _short_text as _short

__all__ = ["check_typed_core_memory"]


# ---------------------------------------------------------------------------
# Exercise 5: typed core memory
# ---------------------------------------------------------------------------

#: The limit of a block ported from the flat legacy file (MemGPT's 2,000 characters per section).
LEGACY_LIMIT = 2000

_SCHEMA_CATCHES = {
    "over_limit": "a persona or human value over 2,000 characters",
    "missing_label": "a block without a label",
    "wrong_type": "a limit given as a string and read_only as 'no'",
    "flat_in_typed_file": "the flat legacy format where {'blocks': [...]} is expected",
}
_CODE_CATCHES = {
    "duplicate_labels": "two blocks with the same label",
    "value_over_own_limit": "a value longer than its own block's limit",
}


def _document(memory: Any, what: str) -> dict:
    try:
        doc = memory.to_document()
    except NotImplementedError:
        raise
    except Exception as error:
        raise CheckFailed(f"to_document() raised {type(error).__name__}: {error} ({what})",
                          "return {'blocks': [{'label', 'value', 'limit', 'description', 'read_only'}, ...]}") from None
    expect(isinstance(doc, dict) and isinstance(doc.get("blocks"), list),
           f"to_document() returned {_short(doc, 50)} ({what}), not {{'blocks': [...]}}",
           "return {'blocks': [ {label, value, limit, description, read_only}, ... ]}")
    return doc


def _schema_errors(doc: dict, schema: dict) -> str | None:
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    if not errors:
        return None
    e = errors[0]
    return f"{e.message} (at {'/'.join(map(str, e.path)) or 'the top level'})"


def _refused(action: Callable[[], Any]) -> bool:
    """True when `action` raised: the stub asks edits to refuse, not to raise a given type
    (CoreMemoryError, ValueError, KeyError, PermissionError are all refusals)."""
    try:
        action()
    except NotImplementedError:
        raise
    except Exception:
        return True
    return False


def _section(prompt: str, label: str) -> tuple[int, int] | None:
    """(start, end) of block `label`'s tagged section in `prompt`, or None.

    The stub asks for "a tagged section" and leaves its shape free: `<label ...>...</label>`,
    a self-closing `<label .../>` (an empty block), or a generic tag naming the label in an
    attribute, `<block label="label" ...>...</block>`.
    """
    name = re.escape(label)
    tag = re.search(rf"<{name}(?=[\s>/])[^>]*?(/?)>", prompt)
    if tag is None:
        tag = re.search(rf"<([\w-]+)\s[^>]*?\blabel\s*=\s*[\"']{name}[\"'][^>]*?(/?)>", prompt)
        element = tag.group(1) if tag else None
    else:
        element = label
    if tag is None:
        return None
    if tag.group(tag.lastindex or 0) == "/":
        return tag.start(), tag.end()
    close = prompt.find(f"</{element}>", tag.end())
    return (tag.start(), close + len(f"</{element}>")) if close >= 0 else None


def _must_work(action: Callable[[], Any], what: str, hint: str) -> None:
    try:
        action()
    except NotImplementedError:
        raise
    except Exception as error:
        raise CheckFailed(f"{what} was refused with {type(error).__name__}: {error}", hint) from None


def _normalised(doc: dict) -> dict:
    from memlib.core_memory import CoreMemory

    return CoreMemory.from_dict(copy.deepcopy(doc)).to_dict()


EXERCISE = Exercise(
    grade_id='08-typed-core-memory',
    notebook='08_typed_core_memory',
    answer='TypedCoreMemory',
    points=5,
    description="legacy port, schema validation, rendering, atomic limits, read-only, JSON round trip",
    references=("memlib.core_memory:CoreMemory", "memlib.core_memory:Block"),
    contract=(f"`limit` {LEGACY_LIMIT:,}", "refuse (raise an exception; which one is yours)",
              "A value of exactly `limit` characters is fine."),
    setup="import json\nimport jsonschema\nfrom memlib.datasets import load\nexamples = load('core_memory')",
    equivalent={
        "drop: if label not in self.blocks:     raise CoreMemoryError(f'no block {... -> pass":
            'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
        "drop: if label not in self.blocks:     raise CoreMemoryError(f'no block {... -> pass (#2)":
            'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
        "drop: if label not in self.blocks:     raise CoreMemoryError(f'no block {... -> pass (#3)":
            'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
        'negate: if block[\'description\']:     attributes += f\'\'\' description="{block... -> if not block[\'description\']:     attributes += f\'\'\' description="{b...':
            "whether render() shows each block's description is free in the stub (its label, value, fill level and read-only flag are fixed)",
        'drop: if block[\'description\']:     attributes += f\'\'\' description="{block... -> pass':
            "whether render() shows each block's description is free in the stub (its label, value, fill level and read-only flag are fixed)",
        "drop: raise CoreMemoryError(f'no block {label!r}; known blocks: {list(sel... -> pass":
            'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
        "drop: raise CoreMemoryError(f'no block {label!r}; known blocks: {list(sel... -> pass (#2)":
            'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
        "drop: raise CoreMemoryError(f'no block {label!r}; known blocks: {list(sel... -> pass (#3)":
            'without it, self.blocks[label] raises KeyError, which the stub allows a refused edit to raise',
        'drop: attributes += f\'\'\' description="{block[\'description\']}"\'\'\' -> pass':
            "whether render() shows each block's description is free in the stub (its label, value, fill level and read-only flag are fixed)",
        "swap-args: DESCRIPTIONS.get(label, f'The {label} section.') -> DESCRIPTIONS.get(f'The {label} section.', label)":
            'any non-empty description is accepted: the stub fixes that persona and human have one, not its wording',
    },
)


@graded(EXERCISE)
def check_typed_core_memory(cls: Any) -> None:
    """Check a TypedCoreMemory class against the schema, the examples in data/ and memlib's CoreMemory.

    Fixed: from_legacy / from_document / to_document / to_json / from_json / render /
    append / replace; every schema rule enforced (each on its own), labels unique, each
    value within its own block's limit (exactly the limit fits); a refused edit raises an
    exception (which one is free) and changes nothing; the caller's dicts are not changed; no state shared between instances; render
    shows each block as <label ...> value </label> with its 'used/limit' and a read-only
    marker inside the read-only blocks' sections only. Free: error wording, how
    descriptions and attributes are rendered, how blocks are stored.
    """
    from memlib.datasets import load

    examples = load("core_memory")
    expect(is_class(cls), f"pass the class itself, got {type(cls).__name__}",
           "check_typed_core_memory(TypedCoreMemory)")

    doc_after_port = _check_port(cls, examples)
    _check_documents(cls, examples)
    _check_refusals(cls, examples)
    _check_render(cls, examples)
    _check_edits(cls, examples)
    _check_read_only(cls, examples)
    _check_own_limit(cls, examples)
    _check_no_shared_state(cls, examples, doc_after_port)


def _check_port(cls: Any, examples: Any) -> dict:
    """The port of the flat legacy file."""
    legacy = examples.legacy
    schema = examples.schema
    given = copy.deepcopy(legacy)
    try:
        ported = cls.from_legacy(given)
    except NotImplementedError:
        raise
    except Exception as error:
        raise CheckFailed(f"from_legacy raised {type(error).__name__} on the legacy file: {error}",
                          f"build blocks with limit {LEGACY_LIMIT}, a description and read_only=False; they must validate") from None
    expect(given == legacy, "from_legacy changed the dict it was given",
           "read the legacy sections without adding, removing or editing keys of the caller's dict")
    doc = _document(ported, "after from_legacy")
    problem = _schema_errors(doc, schema)
    expect(problem is None, f"the ported legacy memory does not match the schema: {problem}",
           "every block needs label, value and limit; description is a str and read_only a bool")
    labels = [b.get("label") for b in doc["blocks"]]
    expect(labels == list(legacy), f"the ported blocks are {labels}, expected {list(legacy)} in that order",
           "one block per legacy section, same label, same order")
    for block in doc["blocks"]:
        label = block["label"]
        expect(block.get("value") == legacy[label],
               f"block {label!r} holds {_short(block.get('value'), 40)}, not the legacy text",
               "copy each section's text unchanged into its block's value")
        expect(block.get("limit") == LEGACY_LIMIT,
               f"block {label!r} has limit {block.get('limit')!r}, expected {LEGACY_LIMIT}",
               f"MemGPT gives persona and human {LEGACY_LIMIT:,} characters each")
        expect(isinstance(block.get("description"), str) and block["description"].strip(),
               f"block {label!r} has no description",
               "typed blocks say what belongs in them: give persona and human a one-line description")
        expect(block.get("read_only") is False, f"block {label!r} has read_only={block.get('read_only')!r}",
               "the agent must be able to edit persona and human: read_only=False")
    passed("the legacy flat memory ports to persona + human blocks that validate against the schema")
    return doc


def _check_documents(cls: Any, examples: Any) -> None:
    """Valid documents load and round-trip through JSON, like memlib's CoreMemory."""
    schema = examples.schema
    for name, valid in examples.valid.items():
        given = copy.deepcopy(valid)
        try:
            memory = cls.from_document(given)
        except NotImplementedError:
            raise
        except Exception as error:
            raise CheckFailed(f"from_document rejected the valid example valid_{name}.json: "
                              f"{type(error).__name__}: {error}",
                              "description and read_only are optional: default them to '' and False") from None
        expect(given == valid, f"from_document changed the document it was given (valid_{name}.json)",
               "fill in defaults in your own copies of the blocks (dict(block)), not in the caller's document")
        doc = _document(memory, f"valid_{name}")
        expected = _normalised(valid)
        expect(doc == expected,
               f"to_document() for valid_{name}.json differs from memlib's CoreMemory: "
               f"{_first_difference(doc, expected)}",
               "keep blocks in order with all five fields, defaults filled in")
        text = memory.to_json()
        expect(isinstance(text, str), f"to_json() returned {type(text).__name__}, not str", "return json.dumps(...)")
        again = cls.from_json(text)
        expect(_document(again, "after from_json") == doc,
               f"valid_{name}.json does not survive to_json() -> from_json(): "
               f"{_first_difference(_document(again, 'after from_json'), doc)}",
               "from_json(to_json()) must give back the same blocks, including description and read_only")
        problem = _schema_errors(json.loads(text), schema)
        expect(problem is None, f"to_json() of valid_{name}.json does not match the schema: {problem}",
               "write {'blocks': [...]} with exactly the schema's fields")
    passed(f"{len(examples.valid)} valid documents load and round-trip through JSON unchanged")


def _check_refusals(cls: Any, examples: Any) -> None:
    """Invalid documents are refused."""
    # the ones the schema catches first, so a missing jsonschema call gets the jsonschema hint
    for name, invalid in sorted(examples.invalid.items(), key=lambda item: (item[0] in _CODE_CATCHES, item[0])):
        what = _SCHEMA_CATCHES.get(name) or _CODE_CATCHES.get(name, name)
        hint = ("validate with jsonschema.validate(document, schema) before building anything"
                if name in _SCHEMA_CATCHES else
                "JSON Schema cannot express this rule: check it in from_document yourself")
        expect(_refused(lambda: cls.from_document(copy.deepcopy(invalid))),
               f"from_document accepted invalid_{name}.json ({what})", hint)
    for what, broken in _one_rule_broken(examples.valid["letta_blocks"]):
        expect(_refused(lambda: cls.from_document(broken)),
               f"from_document accepted a document whose only problem is {what}",
               "validate with jsonschema.validate(document, schema): it checks every rule of the schema, "
               "one at a time as well as together")
    exact = copy.deepcopy(examples.valid["letta_blocks"])
    exact["blocks"][2]["value"] = "x" * exact["blocks"][2]["limit"]
    _must_work(lambda: cls.from_document(copy.deepcopy(exact)),
               f"from_document of a block holding exactly its limit of {exact['blocks'][2]['limit']} characters",
               "a value of exactly `limit` characters fits: refuse only len(value) > limit")
    passed(f"{len(examples.invalid)} invalid documents are refused, including the two the schema cannot catch, "
           "and each schema rule is enforced on its own; a value of exactly its limit is accepted")


def _check_render(cls: Any, examples: Any) -> None:
    """Rendering."""
    letta = examples.valid["letta_blocks"]
    from memlib.core_memory import CoreMemory

    memory = cls.from_document(copy.deepcopy(letta))
    prompt = memory.render()
    expect(isinstance(prompt, str), f"render() returned {type(prompt).__name__}, not str", "return the prompt text")
    positions = []
    for block in _normalised(letta)["blocks"]:
        label, value, limit = block["label"], block["value"], block["limit"]
        found = _section(prompt, label)
        expect(found is not None,
               f"render() has no tagged section for block {label!r} (<{label} ...>...</{label}>, or a tag "
               f"with label=\"{label}\")",
               "render each block as a tagged section, like memlib's CoreMemory.render()")
        assert found is not None
        start, end = found
        section = prompt[start:end]
        expect(value in section, f"render() does not contain the value of block {label!r} in its section",
               "put the value inside its tags")
        expect(f"{len(value)}/{limit}" in section,
               f"render() does not show block {label!r}'s fill level {len(value)}/{limit} in its section",
               "show characters used against the limit, e.g. characters=\"42/2000\", so the model sees the budget")
        section = section.replace(value, "")
        marked = re.search(r"read[_ -]?only(?![_ -]?[=:]\s*[\"']?(?:false|no|0)\b)", section, re.I)
        if block["read_only"]:
            expect(marked, f"render() does not mark block {label!r} as read-only inside its own section",
                   "tell the model which blocks it cannot edit, in that block's tag, e.g. read_only=\"true\"")
        else:
            expect(not marked, f"render() marks the editable block {label!r} as read-only",
                   "mark only the blocks whose read_only is True")
        positions.append(start)
    expect(positions == sorted(positions), "render() does not keep the blocks in their order",
           "render the blocks in document order")
    passed("render() shows every block as a tagged section with its fill level and read-only flag")


def _check_edits(cls: Any, examples: Any) -> None:
    """Edits: limits are enforced atomically."""
    from memlib.core_memory import CoreMemory

    legacy = examples.legacy
    schema = examples.schema
    memory = cls.from_legacy(copy.deepcopy(legacy))
    human = legacy["human"]
    reference = CoreMemory.from_dict(copy.deepcopy(legacy))
    room = LEGACY_LIMIT - len(human) - 1  # the new line before appended text
    before = _document(memory, "before an over-limit append")
    expect(_refused(lambda: memory.append("human", "x" * (room + 1))),
           f"append of {room + 1} characters to 'human' ({len(human)} used) was accepted: the block would hold "
           f"{len(human) + 1 + room + 1} characters, over its limit of {LEGACY_LIMIT}",
           "compute the new value first and refuse (raise CoreMemoryError) when it is longer than the limit")
    expect(_document(memory, "after a refused append") == before,
           "the refused append still changed core memory (failed edits must change nothing)",
           "check the limit before you assign anything; assign only when the edit is valid")
    _must_work(lambda: memory.append("human", "y" * room),
               f"append of {room} characters, which fills 'human' to exactly its limit of {LEGACY_LIMIT},",
               "a value of exactly `limit` characters is allowed: refuse only when it is longer (>, not >=)")
    reference.append("human", "y" * room)
    got = _document(memory, "after an append up to the limit")["blocks"][1]["value"]
    expect(got == reference.get("human").value,
           f"append up to exactly the limit gave a different value from memlib's CoreMemory: "
           f"{_text_difference(got, reference.get('human').value)}",
           "a value of exactly `limit` characters is allowed (> limit is refused, not >=); "
           "append adds the text on a new line")
    before = _document(memory, "before an over-limit replace")
    expect(_refused(lambda: memory.replace("human", "Leeds", "Leeds, West Yorkshire, England")),
           "replace that makes 'human' longer than its limit was accepted",
           "replace must check the limit too, on the value after the replacement")
    expect(_document(memory, "after a refused replace") == before,
           "the refused replace still changed core memory", "compute, check, then assign")
    expect(_refused(lambda: memory.replace("human", "Lisbon cats", "dogs")),
           "replace with an old text that is not in the block was accepted",
           "refuse it and say what to do: copy the exact text, or append instead")
    expect(_refused(lambda: memory.replace("human", "", "x")), "replace with an empty old text was accepted",
           "an empty old text matches everywhere: refuse it")
    # An empty old text in a short block, where the result would fit: refused for being empty, not too long.
    short = cls.from_document({"blocks": [{"label": "notes", "value": "ab", "limit": 100}]})
    kept = _document(short, "before an empty-old replace in a short block")
    expect(_refused(lambda: short.replace("notes", "", "x")) and _document(short, "after it") == kept,
           "replace('notes', '', 'x') on a block holding 'ab' was accepted (it would read 'xaxbx')",
           "an empty old text matches between every two characters: refuse it before replacing")
    expect(_refused(lambda: memory.append("hobbies", "cello")), "append to a block that does not exist was accepted",
           "raise an error naming the known labels")
    expect(_document(memory, "after refused edits") == before, "a refused edit changed core memory",
           "every refused edit must leave all blocks exactly as they were")
    _must_work(lambda: memory.replace("persona", "Wren", "Robin"), "replace('persona', 'Wren', 'Robin')",
               "a replacement that fits the limit and whose old text appears once must succeed")
    doc = _document(memory, "after a valid replace")
    expect("Robin" in doc["blocks"][0]["value"] and "Wren" not in doc["blocks"][0]["value"],
           "replace('persona', 'Wren', 'Robin') did not replace the text", "value.replace(old, new) once it is valid")
    expect(_schema_errors(doc, schema) is None, "after valid edits, to_document() no longer matches the schema",
           "keep every field when you edit a block")
    passed("over-limit edits are refused and change nothing; an edit up to exactly the limit is allowed")


def _check_read_only(cls: Any, examples: Any) -> None:
    """Read-only blocks."""
    letta = examples.valid["letta_blocks"]
    memory = cls.from_document(copy.deepcopy(letta))
    locked = next(b for b in _normalised(letta)["blocks"] if b["read_only"])
    before = _document(memory, "before editing a read-only block")
    expect(_refused(lambda: memory.append(locked["label"], "one more rule")),
           f"append to the read-only block {locked['label']!r} was accepted",
           "refuse edits to blocks with read_only=True, before anything else")
    first_word = locked["value"].split()[0]
    expect(_refused(lambda: memory.replace(locked["label"], first_word, "Changed")),
           f"replace in the read-only block {locked['label']!r} was accepted",
           "read_only applies to replace as well as append")
    expect(_document(memory, "after refused read-only edits") == before,
           "a refused edit of a read-only block still changed core memory", "check read_only first, then change nothing")
    passed(f"the read-only block {locked['label']!r} cannot be edited")


def _check_own_limit(cls: Any, examples: Any) -> None:
    """A block with its own, smaller limit."""
    letta = examples.valid["letta_blocks"]
    memory = cls.from_document(copy.deepcopy(letta))
    small = next(b for b in _normalised(letta)["blocks"] if b["limit"] != LEGACY_LIMIT and not b["read_only"])
    label, limit = small["label"], small["limit"]
    room = limit - len(small["value"]) - (1 if small["value"] else 0)
    before = _document(memory, f"before filling {label!r}")
    expect(_refused(lambda: memory.append(label, "z" * (room + 1))),
           f"append to {label!r} past its own limit of {limit} characters was accepted",
           f"each block has its own limit: compare with that block's limit, not with {LEGACY_LIMIT}")
    expect(_document(memory, f"after a refused append to {label!r}") == before,
           f"the refused append to {label!r} still changed core memory", "compute, check, then assign")
    _must_work(lambda: memory.append(label, "z" * room),
               f"append to {label!r} up to exactly its own limit of {limit} characters",
               "a value of exactly the block's limit fits: refuse only when it is longer")
    passed("a block with a smaller limit of its own is filled exactly to it and not past it")


def _check_no_shared_state(cls: Any, examples: Any, doc_after_port: dict) -> None:
    """No state shared between instances or kept from earlier calls."""
    legacy = examples.legacy
    letta = examples.valid["letta_blocks"]
    again = _document(cls.from_legacy(copy.deepcopy(legacy)), "from_legacy after other instances were edited")
    expect(again == doc_after_port,
           "from_legacy gave a different memory after other instances had been edited: "
           f"{_first_difference(again, doc_after_port)}",
           "keep the blocks on the instance (self.blocks = ...), built fresh by each call; no class-level "
           "or module-level dict shared between instances")
    other = {key: value.replace("a", "o") for key, value in legacy.items()}  # same shape, other text
    got = _document(cls.from_legacy(copy.deepcopy(other)), "from_legacy of another legacy file")
    expect([b.get("value") for b in got["blocks"]] == list(other.values()),
           "from_legacy of a second legacy file returned the first file's text",
           "build the blocks from the dict you are given on every call; do not cache by size or label")
    twin = copy.deepcopy(letta)
    twin["blocks"][1]["value"] = twin["blocks"][1]["value"].replace("a", "o")  # same JSON length
    one, two = cls.from_document(copy.deepcopy(letta)).to_json(), cls.from_document(twin).to_json()
    expect(_document(cls.from_json(two), "from_json of a second document") == _normalised(twin),
           "from_json of a second document of the same size returned the first one's blocks",
           "parse the text you are given on every call; do not cache results")
    expect(_document(cls.from_json(one), "from_json again") == _normalised(letta),
           "from_json gave a different memory for a document it had read before",
           "parse the text you are given on every call; do not cache results")
    passed("fresh and used instances agree; nothing is remembered across calls")


def _one_rule_broken(valid: dict) -> list[tuple[str, dict]]:
    """(what is wrong, document): the valid document with exactly one schema rule broken."""
    def changed(what: str, edit: Callable[[dict], None]) -> tuple[str, dict]:
        doc = copy.deepcopy(valid)
        edit(doc)
        return what, doc

    first = lambda doc: doc["blocks"][1]  # noqa: E731 - the 'human' block, editable, no read_only key
    return [
        changed("a limit given as the string '2000'", lambda d: first(d).update(limit="2000")),
        changed("read_only given as the string 'no'", lambda d: first(d).update(read_only="no")),
        changed("a block without a value", lambda d: first(d).pop("value")),
        changed("a block without a limit", lambda d: first(d).pop("limit")),
        changed("a value that is a number, not a string", lambda d: first(d).update(value=42)),
        changed("a description that is a list, not a string", lambda d: first(d).update(description=["x"])),
        changed("a limit of 0 (the schema's minimum is 1)", lambda d: first(d).update(limit=0)),
        changed("a label with a space and '!' in it", lambda d: first(d).update(label="my human!")),
        changed("a block field the schema does not know ('colour')", lambda d: first(d).update(colour="red")),
        changed("a top-level field the schema does not know ('version')", lambda d: d.update(version=2)),
        changed("an empty list of blocks", lambda d: d.update(blocks=[])),
        changed("a 'human' block with a limit of 3000 (persona and human allow at most 2000)",
                lambda d: first(d).update(limit=3000)),
    ]


def _first_difference(got: dict, expected: dict) -> str:
    got_blocks, exp_blocks = got.get("blocks", []), expected.get("blocks", [])
    if len(got_blocks) != len(exp_blocks):
        return f"{len(got_blocks)} blocks instead of {len(exp_blocks)}"
    for g, e in zip(got_blocks, exp_blocks):
        if not isinstance(g, dict):
            return f"a block is {type(g).__name__}, not a dict"
        for key in e:
            if g.get(key) != e[key]:
                return f"block {e['label']!r} has {key}={_short(g.get(key), 30)}, expected {_short(e[key], 30)}"
        extra = set(g) - set(e)
        if extra:
            return f"block {e['label']!r} has extra fields {sorted(extra)}"
    return "the documents differ"


def _text_difference(got: str, expected: str) -> str:
    """Where two values first differ, both sides shown (never two equal lengths)."""
    at = next((i for i, (x, y) in enumerate(zip(got, expected)) if x != y), min(len(got), len(expected)))
    sizes = f"{len(got)} characters, expected {len(expected)}; " if len(got) != len(expected) else ""
    return f"{sizes}first difference at character {at}: {got[max(0, at - 10):at + 10]!r} vs " \
           f"{expected[max(0, at - 10):at + 10]!r}"
