"""Notebook 08's check, exercise 5: typed core memory."""

from __future__ import annotations

import copy
import json
import re
from typing import Any, Callable

from memlib.course.checking import CheckFailed, expect, graded, is_class, judge_parts, passed
from memlib.course.exercise import Exercise
from memlib.course.lang import bilingual, language
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
#: What each invalid example holds, in Chinese.
_CATCHES_ZH = {
    "over_limit": "persona 或 human 的值超过 2,000 个字符",
    "missing_label": "有个块没有 label",
    "wrong_type": "limit 写成了字符串，read_only 写成了 'no'",
    "flat_in_typed_file": "该用 {'blocks': [...]} 的地方用了旧的扁平格式",
    "duplicate_labels": "两个块的 label 相同",
    "value_over_own_limit": "值比它所在块自己的上限还长",
}

#: When a document was taken (the check's own words in its messages), in Chinese.
_WHEN_ZH = {
    "after from_json": "from_json 之后",
    "after a refused append": "追加被拒绝之后",
    "after a refused replace": "替换被拒绝之后",
    "after a valid replace": "有效的替换之后",
    "after an append up to the limit": "追加到恰好满额之后",
    "after refused edits": "几次被拒绝的编辑之后",
    "after refused read-only edits": "几次被拒绝的只读块编辑之后",
    "before an over-limit append": "超限追加之前",
    "before an over-limit replace": "超限替换之前",
    "before editing a read-only block": "编辑只读块之前",
    "after from_legacy": "from_legacy 之后",
    "after it": "那之后",
    "before an empty-old replace in a short block": "在短块里用空的旧文本替换之前",
    "from_legacy after other instances were edited": "别的实例被编辑过之后再调用 from_legacy",
    "from_legacy of another legacy file": "对另一份旧格式文件调用 from_legacy",
    "from_json of a second document": "对第二份文档调用 from_json",
    "from_json again": "再次调用 from_json",
}


def _when(what: str) -> str:
    """`what` (when a document was taken) in the language the course speaks."""
    if language() != "zh":
        return what
    if what in _WHEN_ZH:
        return _WHEN_ZH[what]
    for pattern, chinese in ((r"after a refused append to (.+)", r"对 \1 的追加被拒绝之后"),
                             (r"before filling (.+)", r"填满 \1 之前"), (r"(valid_\w+)", r"\1")):
        if re.fullmatch(pattern, what):
            return re.sub(pattern, chinese, what)
    return what


def _document(memory: Any, what: str) -> dict:
    try:
        doc = memory.to_document()
    except NotImplementedError:
        raise
    except Exception as error:
        raise CheckFailed(bilingual(f"to_document() raised {type(error).__name__}: {error} ({what})",
                                    f"to_document() 抛出了 {type(error).__name__}: {error}（{_when(what)}）"),
                          bilingual("return {'blocks': [{'label', 'value', 'limit', 'description', 'read_only'}, ...]}",
                                    "返回 {'blocks': [{'label', 'value', 'limit', 'description', 'read_only'}, ...]}")
                          ) from None
    expect(isinstance(doc, dict) and isinstance(doc.get("blocks"), list),
           bilingual(f"to_document() returned {_short(doc, 50)} ({what}), not {{'blocks': [...]}}",
                     f"to_document() 返回了 {_short(doc, 50)}（{_when(what)}），不是 {{'blocks': [...]}}"),
           bilingual("return {'blocks': [ {label, value, limit, description, read_only}, ... ]}",
                     "返回 {'blocks': [ {label, value, limit, description, read_only}, ... ]}"))
    return doc


def _schema_errors(doc: dict, schema: dict) -> str | None:
    import jsonschema

    errors = sorted(jsonschema.Draft202012Validator(schema).iter_errors(doc), key=lambda e: list(e.path))
    if not errors:
        return None
    e = errors[0]
    return bilingual(f"{e.message} (at {'/'.join(map(str, e.path)) or 'the top level'})",
                     f"`{e.message}`（位置：{'/'.join(map(str, e.path)) or '顶层'}）")


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
        raise CheckFailed(bilingual(f"{what} was refused with {type(error).__name__}: {error}",
                                    f"{what}被拒绝了，抛出的是 {type(error).__name__}: {error}"), hint) from None


def _normalised(doc: dict) -> dict:
    from memlib.core_memory import CoreMemory

    return CoreMemory.from_dict(copy.deepcopy(doc)).to_dict()


#: The check's parts (the port, the valid documents, the refusals, render, over-limit edits, the read-only
#: block, a block's own limit, no shared state): the cases of the partial-credit tally, each weighing the same.
PARTS = 8

EXERCISE = Exercise(
    grade_id='08-typed-core-memory',
    notebook='08_typed_core_memory',
    answer='TypedCoreMemory',
    points=5,
    description="legacy port, schema validation, rendering, atomic limits, read-only, JSON round trip",
    references=("memlib.core_memory:CoreMemory", "memlib.core_memory:Block"),
    contract=(f"`limit` {LEGACY_LIMIT:,}", "refuse (raise an exception; which one is yours)",
              "A value of exactly `limit` characters is fine.", f"The check has {PARTS} parts"),
    partial_credit=True,
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
    expect(is_class(cls), bilingual(f"pass the class itself, got {type(cls).__name__}",
                                    f"要传类本身，拿到的却是 {type(cls).__name__}"),
           bilingual("check_typed_core_memory(TypedCoreMemory)", "这样调用：check_typed_core_memory(TypedCoreMemory)"))

    # each part is a case of the partial-credit tally; the shared-state part compares with the port's document
    ported: list[dict] = []
    parts = ([lambda: ported.append(_check_port(cls, examples))]
             + [lambda part=part: part(cls, examples) for part in (_check_documents, _check_refusals, _check_render,
                                                                   _check_edits, _check_read_only, _check_own_limit)]
             + [lambda: _check_no_shared_state(cls, examples, ported[0])])
    assert len(parts) == PARTS
    judge_parts(parts)


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
        raise CheckFailed(bilingual(f"from_legacy raised {type(error).__name__} on the legacy file: {error}",
                                    f"from_legacy 读旧格式文件时抛出了 {type(error).__name__}: {error}"),
                          bilingual(f"build blocks with limit {LEGACY_LIMIT}, a description and read_only=False; "
                                    "they must validate",
                                    f"构造的块要有 limit {LEGACY_LIMIT}、description 和 read_only=False，"
                                    "并且能通过校验")) from None
    expect(given == legacy, bilingual("from_legacy changed the dict it was given", "from_legacy 改动了传给它的 dict"),
           bilingual("read the legacy sections without adding, removing or editing keys of the caller's dict",
                     "只读旧格式的段，不要在调用方的 dict 里增删或修改键"))
    doc = _document(ported, "after from_legacy")
    problem = _schema_errors(doc, schema)
    expect(problem is None, bilingual(f"the ported legacy memory does not match the schema: {problem}",
                                      f"移植过来的旧格式记忆不符合 schema：{problem}"),
           bilingual("every block needs label, value and limit; description is a str and read_only a bool",
                     "每个块都要有 label、value 和 limit；description 是 str，read_only 是 bool"))
    labels = [b.get("label") for b in doc["blocks"]]
    expect(labels == list(legacy), bilingual(f"the ported blocks are {labels}, expected {list(legacy)} in that order",
                                             f"移植出来的块是 {labels}，应为 {list(legacy)}，顺序也要一样"),
           bilingual("one block per legacy section, same label, same order", "旧格式的每段对应一个块，label 相同，顺序相同"))
    for block in doc["blocks"]:
        label = block["label"]
        expect(block.get("value") == legacy[label],
               bilingual(f"block {label!r} holds {_short(block.get('value'), 40)}, not the legacy text",
                         f"块 {label!r} 里是 {_short(block.get('value'), 40)}，不是旧格式里的文字"),
               bilingual("copy each section's text unchanged into its block's value", "把每段的文字原样复制到对应块的 value 里"))
        expect(block.get("limit") == LEGACY_LIMIT,
               bilingual(f"block {label!r} has limit {block.get('limit')!r}, expected {LEGACY_LIMIT}",
                         f"块 {label!r} 的 limit 是 {block.get('limit')!r}，应为 {LEGACY_LIMIT}"),
               bilingual(f"MemGPT gives persona and human {LEGACY_LIMIT:,} characters each",
                         f"MemGPT 给 persona 和 human 各 {LEGACY_LIMIT:,} 个字符"))
        expect(isinstance(block.get("description"), str) and block["description"].strip(),
               bilingual(f"block {label!r} has no description", f"块 {label!r} 没有 description"),
               bilingual("typed blocks say what belongs in them: give persona and human a one-line description",
                         "带类型的块要说明里面该放什么：给 persona 和 human 各写一行 description"))
        expect(block.get("read_only") is False,
               bilingual(f"block {label!r} has read_only={block.get('read_only')!r}",
                         f"块 {label!r} 的 read_only={block.get('read_only')!r}"),
               bilingual("the agent must be able to edit persona and human: read_only=False",
                         "agent 必须能编辑 persona 和 human：read_only=False"))
    passed(bilingual("the legacy flat memory ports to persona + human blocks that validate against the schema",
                     "旧的扁平记忆移植成了 persona 和 human 两个块，并通过了 schema 校验"))
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
            raise CheckFailed(bilingual(f"from_document rejected the valid example valid_{name}.json: "
                                        f"{type(error).__name__}: {error}",
                                        f"from_document 拒绝了有效的示例 valid_{name}.json："
                                        f"{type(error).__name__}: {error}"),
                              bilingual("description and read_only are optional: default them to '' and False",
                                        "description 和 read_only 是可选的：默认值分别是 '' 和 False")) from None
        expect(given == valid, bilingual(f"from_document changed the document it was given (valid_{name}.json)",
                                         f"from_document 改动了传给它的文档（valid_{name}.json）"),
               bilingual("fill in defaults in your own copies of the blocks (dict(block)), not in the caller's document",
                         "在你自己复制的块（dict(block)）里填默认值，不要改调用方的文档"))
        doc = _document(memory, f"valid_{name}")
        expected = _normalised(valid)
        expect(doc == expected,
               bilingual(f"to_document() for valid_{name}.json differs from memlib's CoreMemory: "
                         f"{_first_difference(doc, expected)}",
                         f"valid_{name}.json 的 to_document() 和 memlib 的 CoreMemory 不同："
                         f"{_first_difference(doc, expected)}"),
               bilingual("keep blocks in order with all five fields, defaults filled in",
                         "块保持原来的顺序，五个字段齐全，默认值填好"))
        text = memory.to_json()
        expect(isinstance(text, str), bilingual(f"to_json() returned {type(text).__name__}, not str",
                                                f"to_json() 返回了 {type(text).__name__}，不是 str"),
               bilingual("return json.dumps(...)", "返回 json.dumps(...)"))
        again = cls.from_json(text)
        expect(_document(again, "after from_json") == doc,
               bilingual(f"valid_{name}.json does not survive to_json() -> from_json(): "
                         f"{_first_difference(_document(again, 'after from_json'), doc)}",
                         f"valid_{name}.json 经过 to_json() -> from_json() 之后变了："
                         f"{_first_difference(_document(again, 'after from_json'), doc)}"),
               bilingual("from_json(to_json()) must give back the same blocks, including description and read_only",
                         "from_json(to_json()) 必须还原出同样的块，description 和 read_only 也不例外"))
        problem = _schema_errors(json.loads(text), schema)
        expect(problem is None, bilingual(f"to_json() of valid_{name}.json does not match the schema: {problem}",
                                          f"valid_{name}.json 的 to_json() 不符合 schema：{problem}"),
               bilingual("write {'blocks': [...]} with exactly the schema's fields",
                         "写出 {'blocks': [...]}，字段和 schema 完全一致"))
    passed(bilingual(f"{len(examples.valid)} valid documents load and round-trip through JSON unchanged",
                     f"{len(examples.valid)} 份有效文档都能读入，经 JSON 往返后不变"))


def _check_refusals(cls: Any, examples: Any) -> None:
    """Invalid documents are refused."""
    # the ones the schema catches first, so a missing jsonschema call gets the jsonschema hint
    for name, invalid in sorted(examples.invalid.items(), key=lambda item: (item[0] in _CODE_CATCHES, item[0])):
        what = bilingual(_SCHEMA_CATCHES.get(name) or _CODE_CATCHES.get(name, name), _CATCHES_ZH.get(name, name))
        hint = bilingual("validate with jsonschema.validate(document, schema) before building anything"
                         if name in _SCHEMA_CATCHES else
                         "JSON Schema cannot express this rule: check it in from_document yourself",
                         "先用 jsonschema.validate(document, schema) 校验，再构造任何东西"
                         if name in _SCHEMA_CATCHES else
                         "JSON Schema 表达不了这条规则：在 from_document 里自己检查")
        expect(_refused(lambda: cls.from_document(copy.deepcopy(invalid))),
               bilingual(f"from_document accepted invalid_{name}.json ({what})",
                         f"from_document 接受了 invalid_{name}.json（{what}）"), hint)
    for what, broken in _one_rule_broken(examples.valid["letta_blocks"]):
        expect(_refused(lambda: cls.from_document(broken)),
               bilingual(f"from_document accepted a document whose only problem is {what}",
                         f"from_document 接受了一份文档，它唯一的问题是{what}"),
               bilingual("validate with jsonschema.validate(document, schema): it checks every rule of the schema, "
                         "one at a time as well as together",
                         "用 jsonschema.validate(document, schema) 校验：schema 的每条规则，单独违反和同时违反它都查得出"))
    exact = copy.deepcopy(examples.valid["letta_blocks"])
    exact["blocks"][2]["value"] = "x" * exact["blocks"][2]["limit"]
    _must_work(lambda: cls.from_document(copy.deepcopy(exact)),
               bilingual(f"from_document of a block holding exactly its limit of {exact['blocks'][2]['limit']} "
                         "characters",
                         f"对恰好装满上限（{exact['blocks'][2]['limit']} 个字符）的块调用 from_document，"),
               bilingual("a value of exactly `limit` characters fits: refuse only len(value) > limit",
                         "恰好 `limit` 个字符的值是放得下的：只拒绝 len(value) > limit"))
    passed(bilingual(f"{len(examples.invalid)} invalid documents are refused, including the two the schema cannot "
                     "catch, and each schema rule is enforced on its own; a value of exactly its limit is accepted",
                     f"{len(examples.invalid)} 份无效文档都被拒绝了，包括 schema 查不出的那两份；schema 的每条规则"
                     "单独违反也会被拒绝；恰好装满上限的值被接受"))


def _check_render(cls: Any, examples: Any) -> None:
    """Rendering."""
    letta = examples.valid["letta_blocks"]
    from memlib.core_memory import CoreMemory

    memory = cls.from_document(copy.deepcopy(letta))
    prompt = memory.render()
    expect(isinstance(prompt, str), bilingual(f"render() returned {type(prompt).__name__}, not str",
                                              f"render() 返回了 {type(prompt).__name__}，不是 str"),
           bilingual("return the prompt text", "返回 prompt 的文本"))
    positions = []
    for block in _normalised(letta)["blocks"]:
        label, value, limit = block["label"], block["value"], block["limit"]
        found = _section(prompt, label)
        expect(found is not None,
               bilingual(f"render() has no tagged section for block {label!r} (<{label} ...>...</{label}>, or a tag "
                         f"with label=\"{label}\")",
                         f"render() 里没有块 {label!r} 的标签段（<{label} ...>...</{label}>，"
                         f"或者带 label=\"{label}\" 的标签）"),
               bilingual("render each block as a tagged section, like memlib's CoreMemory.render()",
                         "像 memlib 的 CoreMemory.render() 那样，把每个块渲染成带标签的段"))
        assert found is not None
        start, end = found
        section = prompt[start:end]
        expect(value in section, bilingual(f"render() does not contain the value of block {label!r} in its section",
                                           f"render() 没有把块 {label!r} 的值放进它的段里"),
               bilingual("put the value inside its tags", "把值放在标签里面"))
        expect(f"{len(value)}/{limit}" in section,
               bilingual(f"render() does not show block {label!r}'s fill level {len(value)}/{limit} in its section",
                         f"render() 没有在块 {label!r} 的段里显示用量 {len(value)}/{limit}"),
               bilingual("show characters used against the limit, e.g. characters=\"42/2000\", so the model sees the "
                         "budget",
                         "显示已用字符数和上限，例如 characters=\"42/2000\"，让模型看得到预算"))
        section = section.replace(value, "")
        marked = re.search(r"read[_ -]?only(?![_ -]?[=:]\s*[\"']?(?:false|no|0)\b)", section, re.I)
        if block["read_only"]:
            expect(marked, bilingual(f"render() does not mark block {label!r} as read-only inside its own section",
                                     f"render() 没有在块 {label!r} 自己的段里标出只读"),
                   bilingual("tell the model which blocks it cannot edit, in that block's tag, e.g. read_only=\"true\"",
                             "在块的标签里告诉模型哪些块不能编辑，例如 read_only=\"true\""))
        else:
            expect(not marked, bilingual(f"render() marks the editable block {label!r} as read-only",
                                         f"render() 把可编辑的块 {label!r} 标成了只读"),
                   bilingual("mark only the blocks whose read_only is True", "只标出 read_only 为 True 的块"))
        positions.append(start)
    expect(positions == sorted(positions), bilingual("render() does not keep the blocks in their order",
                                                     "render() 没有保持块的顺序"),
           bilingual("render the blocks in document order", "按文档里的顺序渲染各块"))
    passed(bilingual("render() shows every block as a tagged section with its fill level and read-only flag",
                     "render() 把每个块显示成带标签的段，带着用量和只读标记"))


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
           bilingual(f"append of {room + 1} characters to 'human' ({len(human)} used) was accepted: the block would "
                     f"hold {len(human) + 1 + room + 1} characters, over its limit of {LEGACY_LIMIT}",
                     f"往 'human'（已用 {len(human)}）追加 {room + 1} 个字符，却被接受了：这个块会有 "
                     f"{len(human) + 1 + room + 1} 个字符，超过上限 {LEGACY_LIMIT}"),
           bilingual("compute the new value first and refuse (raise CoreMemoryError) when it is longer than the limit",
                     "先算出新值，比上限长就拒绝（抛出 CoreMemoryError）"))
    expect(_document(memory, "after a refused append") == before,
           bilingual("the refused append still changed core memory (failed edits must change nothing)",
                     "被拒绝的追加还是改动了核心记忆（失败的编辑必须什么都不改）"),
           bilingual("check the limit before you assign anything; assign only when the edit is valid",
                     "赋值之前先检查上限；编辑有效时才赋值"))
    _must_work(lambda: memory.append("human", "y" * room),
               bilingual(f"append of {room} characters, which fills 'human' to exactly its limit of {LEGACY_LIMIT},",
                         f"追加 {room} 个字符，把 'human' 恰好填到上限 {LEGACY_LIMIT}，这次追加"),
               bilingual("a value of exactly `limit` characters is allowed: refuse only when it is longer (>, not >=)",
                         "恰好 `limit` 个字符的值是允许的：只有更长时才拒绝（用 >，不是 >=）"))
    reference.append("human", "y" * room)
    got = _document(memory, "after an append up to the limit")["blocks"][1]["value"]
    expect(got == reference.get("human").value,
           bilingual(f"append up to exactly the limit gave a different value from memlib's CoreMemory: "
                     f"{_text_difference(got, reference.get('human').value)}",
                     f"追加到恰好满额后，值和 memlib 的 CoreMemory 不同："
                     f"{_text_difference(got, reference.get('human').value)}"),
           bilingual("a value of exactly `limit` characters is allowed (> limit is refused, not >=); "
                     "append adds the text on a new line",
                     "恰好 `limit` 个字符的值是允许的（拒绝的是 > limit，不是 >=）；append 把文字加在新的一行"))
    before = _document(memory, "before an over-limit replace")
    expect(_refused(lambda: memory.replace("human", "Leeds", "Leeds, West Yorkshire, England")),
           bilingual("replace that makes 'human' longer than its limit was accepted",
                     "让 'human' 超过上限的 replace 却被接受了"),
           bilingual("replace must check the limit too, on the value after the replacement",
                     "replace 也要检查上限，检查的是替换之后的值"))
    expect(_document(memory, "after a refused replace") == before,
           bilingual("the refused replace still changed core memory", "被拒绝的替换还是改动了核心记忆"),
           _compute_check_assign())
    expect(_refused(lambda: memory.replace("human", "Lisbon cats", "dogs")),
           bilingual("replace with an old text that is not in the block was accepted",
                     "用块里没有的旧文本做 replace，却被接受了"),
           bilingual("refuse it and say what to do: copy the exact text, or append instead",
                     "拒绝它，并说明该怎么做：照原样复制文字，或者改用 append"))
    expect(_refused(lambda: memory.replace("human", "", "x")),
           bilingual("replace with an empty old text was accepted", "用空的旧文本做 replace，却被接受了"),
           bilingual("an empty old text matches everywhere: refuse it", "空的旧文本哪里都能匹配：拒绝它"))
    # An empty old text in a short block, where the result would fit: refused for being empty, not too long.
    short = cls.from_document({"blocks": [{"label": "notes", "value": "ab", "limit": 100}]})
    kept = _document(short, "before an empty-old replace in a short block")
    expect(_refused(lambda: short.replace("notes", "", "x")) and _document(short, "after it") == kept,
           bilingual("replace('notes', '', 'x') on a block holding 'ab' was accepted (it would read 'xaxbx')",
                     "对内容为 'ab' 的块执行 replace('notes', '', 'x')，却被接受了（结果会是 'xaxbx'）"),
           bilingual("an empty old text matches between every two characters: refuse it before replacing",
                     "空的旧文本在每两个字符之间都能匹配：替换之前就拒绝它"))
    expect(_refused(lambda: memory.append("hobbies", "cello")),
           bilingual("append to a block that does not exist was accepted", "往不存在的块里 append，却被接受了"),
           bilingual("raise an error naming the known labels", "抛出错误，并列出已有的 label"))
    expect(_document(memory, "after refused edits") == before,
           bilingual("a refused edit changed core memory", "被拒绝的编辑改动了核心记忆"),
           bilingual("every refused edit must leave all blocks exactly as they were",
                     "每次被拒绝的编辑，都必须让所有块保持原样"))
    _must_work(lambda: memory.replace("persona", "Wren", "Robin"), "replace('persona', 'Wren', 'Robin')",
               bilingual("a replacement that fits the limit and whose old text appears once must succeed",
                         "不超上限、旧文本只出现一次的替换必须成功"))
    doc = _document(memory, "after a valid replace")
    expect("Robin" in doc["blocks"][0]["value"] and "Wren" not in doc["blocks"][0]["value"],
           bilingual("replace('persona', 'Wren', 'Robin') did not replace the text",
                     "replace('persona', 'Wren', 'Robin') 没有替换文字"),
           bilingual("value.replace(old, new) once it is valid", "确认有效之后，执行 value.replace(old, new)"))
    expect(_schema_errors(doc, schema) is None,
           bilingual("after valid edits, to_document() no longer matches the schema",
                     "几次有效的编辑之后，to_document() 不再符合 schema"),
           bilingual("keep every field when you edit a block", "编辑块的时候保留所有字段"))
    passed(bilingual("over-limit edits are refused and change nothing; an edit up to exactly the limit is allowed",
                     "超限的编辑被拒绝，而且什么都没改；恰好填到上限的编辑是允许的"))


def _compute_check_assign() -> str:
    """A hint several failures share."""
    return bilingual("compute, check, then assign", "先计算，再检查，最后赋值")


def _check_read_only(cls: Any, examples: Any) -> None:
    """Read-only blocks."""
    letta = examples.valid["letta_blocks"]
    memory = cls.from_document(copy.deepcopy(letta))
    locked = next(b for b in _normalised(letta)["blocks"] if b["read_only"])
    before = _document(memory, "before editing a read-only block")
    expect(_refused(lambda: memory.append(locked["label"], "one more rule")),
           bilingual(f"append to the read-only block {locked['label']!r} was accepted",
                     f"往只读块 {locked['label']!r} 里 append，却被接受了"),
           bilingual("refuse edits to blocks with read_only=True, before anything else",
                     "read_only=True 的块，任何编辑都先拒绝，别的都不用看"))
    first_word = locked["value"].split()[0]
    expect(_refused(lambda: memory.replace(locked["label"], first_word, "Changed")),
           bilingual(f"replace in the read-only block {locked['label']!r} was accepted",
                     f"在只读块 {locked['label']!r} 里 replace，却被接受了"),
           bilingual("read_only applies to replace as well as append", "read_only 对 replace 和 append 同样有效"))
    expect(_document(memory, "after refused read-only edits") == before,
           bilingual("a refused edit of a read-only block still changed core memory", "对只读块的编辑被拒绝了，却还是改动了核心记忆"),
           bilingual("check read_only first, then change nothing", "先检查 read_only，然后什么都不改"))
    passed(bilingual(f"the read-only block {locked['label']!r} cannot be edited", f"只读块 {locked['label']!r} 无法编辑"))


def _check_own_limit(cls: Any, examples: Any) -> None:
    """A block with its own, smaller limit."""
    letta = examples.valid["letta_blocks"]
    memory = cls.from_document(copy.deepcopy(letta))
    small = next(b for b in _normalised(letta)["blocks"] if b["limit"] != LEGACY_LIMIT and not b["read_only"])
    label, limit = small["label"], small["limit"]
    room = limit - len(small["value"]) - (1 if small["value"] else 0)
    before = _document(memory, f"before filling {label!r}")
    expect(_refused(lambda: memory.append(label, "z" * (room + 1))),
           bilingual(f"append to {label!r} past its own limit of {limit} characters was accepted",
                     f"往 {label!r} 追加、超过它自己的上限 {limit} 个字符，却被接受了"),
           bilingual(f"each block has its own limit: compare with that block's limit, not with {LEGACY_LIMIT}",
                     f"每个块有自己的上限：和这个块的上限比，而不是和 {LEGACY_LIMIT} 比"))
    expect(_document(memory, f"after a refused append to {label!r}") == before,
           bilingual(f"the refused append to {label!r} still changed core memory",
                     f"对 {label!r} 的追加被拒绝了，却还是改动了核心记忆"), _compute_check_assign())
    _must_work(lambda: memory.append(label, "z" * room),
               bilingual(f"append to {label!r} up to exactly its own limit of {limit} characters",
                         f"往 {label!r} 追加、恰好填到它自己的上限 {limit} 个字符，这次追加"),
               bilingual("a value of exactly the block's limit fits: refuse only when it is longer",
                         "恰好等于块上限的值放得下：只有更长时才拒绝"))
    passed(bilingual("a block with a smaller limit of its own is filled exactly to it and not past it",
                     "自带较小上限的块，能恰好填满，不能超出"))


def _check_no_shared_state(cls: Any, examples: Any, doc_after_port: dict) -> None:
    """No state shared between instances or kept from earlier calls."""
    legacy = examples.legacy
    letta = examples.valid["letta_blocks"]
    again = _document(cls.from_legacy(copy.deepcopy(legacy)), "from_legacy after other instances were edited")
    expect(again == doc_after_port,
           bilingual("from_legacy gave a different memory after other instances had been edited: ",
                     "别的实例被编辑过之后，from_legacy 给出的记忆变了：") + _first_difference(again, doc_after_port),
           bilingual("keep the blocks on the instance (self.blocks = ...), built fresh by each call; no class-level "
                     "or module-level dict shared between instances",
                     "块存在实例上（self.blocks = ...），每次调用都重新构造；不要用类级或模块级的 dict 在实例之间共享"))
    other = {key: value.replace("a", "o") for key, value in legacy.items()}  # same shape, other text
    got = _document(cls.from_legacy(copy.deepcopy(other)), "from_legacy of another legacy file")
    expect([b.get("value") for b in got["blocks"]] == list(other.values()),
           bilingual("from_legacy of a second legacy file returned the first file's text",
                     "对第二份旧格式文件调用 from_legacy，返回的却是第一份的文字"),
           bilingual("build the blocks from the dict you are given on every call; do not cache by size or label",
                     "每次调用都用传进来的 dict 构造块；不要按大小或 label 缓存"))
    twin = copy.deepcopy(letta)
    twin["blocks"][1]["value"] = twin["blocks"][1]["value"].replace("a", "o")  # same JSON length
    one, two = cls.from_document(copy.deepcopy(letta)).to_json(), cls.from_document(twin).to_json()
    expect(_document(cls.from_json(two), "from_json of a second document") == _normalised(twin),
           bilingual("from_json of a second document of the same size returned the first one's blocks",
                     "对大小相同的第二份文档调用 from_json，返回的却是第一份的块"), _no_cache())
    expect(_document(cls.from_json(one), "from_json again") == _normalised(letta),
           bilingual("from_json gave a different memory for a document it had read before",
                     "同一份读过的文档，from_json 这次给出的记忆不一样了"), _no_cache())
    passed(bilingual("fresh and used instances agree; nothing is remembered across calls",
                     "新实例和用过的实例结果一致；调用之间什么都没记住"))


def _no_cache() -> str:
    """A hint two failures share."""
    return bilingual("parse the text you are given on every call; do not cache results",
                     "每次调用都解析传进来的文本；不要缓存结果")


def _one_rule_broken(valid: dict) -> list[tuple[str, dict]]:
    """(what is wrong, document): the valid document with exactly one schema rule broken."""
    def changed(what: str, zh: str, edit: Callable[[dict], None]) -> tuple[str, dict]:
        doc = copy.deepcopy(valid)
        edit(doc)
        return bilingual(what, zh), doc

    first = lambda doc: doc["blocks"][1]  # noqa: E731 - the 'human' block, editable, no read_only key
    return [
        changed("a limit given as the string '2000'", "limit 写成了字符串 '2000'",
                lambda d: first(d).update(limit="2000")),
        changed("read_only given as the string 'no'", "read_only 写成了字符串 'no'",
                lambda d: first(d).update(read_only="no")),
        changed("a block without a value", "有个块没有 value", lambda d: first(d).pop("value")),
        changed("a block without a limit", "有个块没有 limit", lambda d: first(d).pop("limit")),
        changed("a value that is a number, not a string", "value 是数字，不是字符串",
                lambda d: first(d).update(value=42)),
        changed("a description that is a list, not a string", "description 是列表，不是字符串",
                lambda d: first(d).update(description=["x"])),
        changed("a limit of 0 (the schema's minimum is 1)", "limit 为 0（schema 的最小值是 1）",
                lambda d: first(d).update(limit=0)),
        changed("a label with a space and '!' in it", "label 里有空格和 '!'",
                lambda d: first(d).update(label="my human!")),
        changed("a block field the schema does not know ('colour')", "块里有 schema 不认识的字段（'colour'）",
                lambda d: first(d).update(colour="red")),
        changed("a top-level field the schema does not know ('version')", "顶层有 schema 不认识的字段（'version'）",
                lambda d: d.update(version=2)),
        changed("an empty list of blocks", "块的列表是空的", lambda d: d.update(blocks=[])),
        changed("a 'human' block with a limit of 3000 (persona and human allow at most 2000)",
                "'human' 块的 limit 是 3000（persona 和 human 最多 2000）", lambda d: first(d).update(limit=3000)),
    ]


def _first_difference(got: dict, expected: dict) -> str:
    got_blocks, exp_blocks = got.get("blocks", []), expected.get("blocks", [])
    if len(got_blocks) != len(exp_blocks):
        return bilingual(f"{len(got_blocks)} blocks instead of {len(exp_blocks)}",
                         f"有 {len(got_blocks)} 个块，应为 {len(exp_blocks)} 个")
    for g, e in zip(got_blocks, exp_blocks):
        if not isinstance(g, dict):
            return bilingual(f"a block is {type(g).__name__}, not a dict", f"有个块是 {type(g).__name__}，不是 dict")
        for key in e:
            if g.get(key) != e[key]:
                return bilingual(f"block {e['label']!r} has {key}={_short(g.get(key), 30)}, expected "
                                 f"{_short(e[key], 30)}",
                                 f"块 {e['label']!r} 的 {key}={_short(g.get(key), 30)}，应为 {_short(e[key], 30)}")
        extra = set(g) - set(e)
        if extra:
            return bilingual(f"block {e['label']!r} has extra fields {sorted(extra)}",
                             f"块 {e['label']!r} 多了字段 {sorted(extra)}")
    return bilingual("the documents differ", "两份文档不同")


def _text_difference(got: str, expected: str) -> str:
    """Where two values first differ, both sides shown (never two equal lengths)."""
    at = next((i for i, (x, y) in enumerate(zip(got, expected)) if x != y), min(len(got), len(expected)))
    if language() == "zh":
        sizes = f"{len(got)} 个字符，应为 {len(expected)} 个；" if len(got) != len(expected) else ""
        return (f"{sizes}第一处不同在第 {at} 个字符：{got[max(0, at - 10):at + 10]!r} 对 "
                f"{expected[max(0, at - 10):at + 10]!r}")
    sizes = f"{len(got)} characters, expected {len(expected)}; " if len(got) != len(expected) else ""
    return f"{sizes}first difference at character {at}: {got[max(0, at - 10):at + 10]!r} vs " \
           f"{expected[max(0, at - 10):at + 10]!r}"
