"""Draft202012Validator with all errors listed, Counter for duplicates, deep-copy-edit-revalidate-swap edits, count line inside each tag."""
import copy
import json
from collections import Counter

import jsonschema
from memlib import datasets
from memlib.core_memory import CoreMemoryError

SCHEMA = datasets.load("core_memory").schema
DESCRIPTIONS = {
    "persona": "Who the assistant is and how it speaks.",
    "human": "Key facts about the user.",
}
_VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)


def _problems(document):
    problems = [f"{'/'.join(map(str, e.absolute_path)) or '(document)'}: {e.message}"
                for e in _VALIDATOR.iter_errors(document)]
    if problems:
        return problems
    counts = Counter(b["label"] for b in document["blocks"])
    problems += [f"label {label!r} used {n} times" for label, n in counts.items() if n > 1]
    problems += [f"{b['label']}: {len(b['value'])} characters over its limit {b['limit']}"
                 for b in document["blocks"] if len(b["value"]) > b["limit"]]
    return problems


class TypedCoreMemory:
    """Core memory as typed blocks: label -> {label, value, limit, description, read_only}."""

    def __init__(self, blocks):
        self.blocks = {block["label"]: dict(block) for block in blocks}

    @classmethod
    def from_legacy(cls, flat):
        document = {"blocks": []}
        for label in flat:
            document["blocks"].append({
                "label": label,
                "value": flat[label],
                "limit": 2000,
                "description": DESCRIPTIONS[label] if label in DESCRIPTIONS else "Legacy section " + label + ".",
                "read_only": False,
            })
        return cls.from_document(document)

    @classmethod
    def from_document(cls, document):
        problems = _problems(document)
        if problems:
            raise CoreMemoryError("refused core memory document: " + "; ".join(problems))
        defaults = {"description": "", "read_only": False}
        return cls([{**defaults, **b} for b in copy.deepcopy(document["blocks"])])

    def to_document(self):
        order = ["label", "value", "limit", "description", "read_only"]
        return {"blocks": [dict((key, block[key]) for key in order) for block in self.blocks.values()]}

    def to_json(self):
        return json.dumps(self.to_document())

    @classmethod
    def from_json(cls, text):
        try:
            document = json.loads(text)
        except json.JSONDecodeError as error:
            raise CoreMemoryError(f"not JSON: {error}") from error
        return cls.from_document(document)

    def render(self):
        lines = []
        for block in self.blocks.values():
            flag = ", read-only" if block["read_only"] else ""
            lines.append(f"<{block['label']}>")
            lines.append(f"[{len(block['value'])}/{block['limit']} characters{flag}] {block['description']}".rstrip())
            if block["value"]:
                lines.append(block["value"])
            lines.append(f"</{block['label']}>")
        return "\n".join(lines)

    def _editable(self, label):
        block = self.blocks.get(label)
        if block is None:
            raise CoreMemoryError(f"unknown block {label!r}")
        if block["read_only"]:
            raise CoreMemoryError(f"block {label!r} is read-only")
        return block

    def _set(self, label, new_value):
        """Check everything first, then change one block: a refused edit changes nothing."""
        self._editable(label)
        trial = copy.deepcopy(self.blocks)
        trial[label]["value"] = new_value
        problems = _problems({"blocks": list(trial.values())})
        if problems:
            raise CoreMemoryError("; ".join(problems))
        self.blocks = trial

    def append(self, label, text):
        block = self._editable(label)
        self._set(label, "\n".join(part for part in (block["value"], text) if part))

    def replace(self, label, old, new):
        block = self._editable(label)
        if not isinstance(old, str) or old == "" or old not in block["value"]:
            raise CoreMemoryError(f"cannot replace {old!r} in block {label!r}: not found")
        self._set(label, block["value"].replace(old, new))

    def __repr__(self):
        inner = ", ".join(f"{b['label']} {len(b['value'])}/{b['limit']}" for b in self.blocks.values())
        return f"TypedCoreMemory([{inner}])"
