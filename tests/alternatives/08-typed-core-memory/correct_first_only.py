"""Replaces only the first occurrence of old, always appends '\\n'+text (even to an empty block), <block label=...> render, explicit loops."""
import json

import jsonschema
from memlib import datasets
from memlib.core_memory import CoreMemoryError

SCHEMA = datasets.load("core_memory").schema
DESCRIPTIONS = {
    "persona": "Who the assistant is and how it speaks.",
    "human": "Key facts about the user.",
}
LEGACY_LIMIT = 2000


class TypedCoreMemory:
    """Core memory as typed blocks: label -> {label, value, limit, description, read_only}."""

    def __init__(self, blocks):
        self.blocks = {block["label"]: dict(block) for block in blocks}

    @classmethod
    def from_legacy(cls, flat):
        blocks = []
        for label, text in flat.items():
            description = DESCRIPTIONS.get(label) or "Section carried over from the flat file."
            blocks.append(dict(label=label, value=text, limit=LEGACY_LIMIT, description=description, read_only=False))
        memory = cls(blocks)
        cls.from_document(memory.to_document())  # the port must validate
        return memory

    @classmethod
    def from_document(cls, document):
        validator = jsonschema.Draft202012Validator(SCHEMA)
        error = jsonschema.exceptions.best_match(validator.iter_errors(document))
        if error is not None:
            raise CoreMemoryError(f"schema: {error.message}")
        # own limits first, then uniqueness
        for block in document["blocks"]:
            if len(block["value"]) > block["limit"]:
                raise CoreMemoryError(f"{block['label']}: value over its own limit of {block['limit']}")
        labels = [block["label"] for block in document["blocks"]]
        if len(set(labels)) != len(labels):
            dupes = sorted({label for label in labels if labels.count(label) > 1})
            raise CoreMemoryError(f"duplicate labels: {dupes}")
        blocks = []
        for block in document["blocks"]:
            filled = {
                "label": block["label"],
                "value": block["value"],
                "limit": block["limit"],
                "description": block["description"] if "description" in block else "",
                "read_only": block["read_only"] if "read_only" in block else False,
            }
            blocks.append(filled)
        return cls(blocks)

    def to_document(self):
        out = []
        for block in self.blocks.values():
            out.append({"label": block["label"], "value": block["value"], "limit": block["limit"],
                        "description": block["description"], "read_only": block["read_only"]})
        return {"blocks": out}

    def to_json(self):
        return json.dumps(self.to_document(), ensure_ascii=True, separators=(",", ":"))

    @classmethod
    def from_json(cls, text):
        return cls.from_document(json.loads(text))

    def render(self):
        sections = []
        for block in self.blocks.values():
            head = f'<block label="{block["label"]}" used="{len(block["value"])}/{block["limit"]}"'
            if block["read_only"]:
                head += " read-only"
            sections.append(head + ">\n" + block["value"] + "\n</block>")
        return "\n\n".join(sections)

    def _set(self, label, new_value):
        """Check everything first, then change one block: a refused edit changes nothing."""
        if label not in self.blocks:
            raise CoreMemoryError(f"unknown label {label!r}")
        if self.blocks[label]["read_only"]:
            raise CoreMemoryError(f"{label!r} is read-only")
        limit = self.blocks[label]["limit"]
        if len(new_value) > limit:
            raise CoreMemoryError(f"{label!r}: {len(new_value)} characters, limit {limit}")
        self.blocks[label]["value"] = new_value

    def append(self, label, text):
        if label not in self.blocks:
            raise CoreMemoryError(f"unknown label {label!r}")
        self._set(label, self.blocks[label]["value"] + "\n" + text)

    def replace(self, label, old, new):
        if label not in self.blocks:
            raise CoreMemoryError(f"unknown label {label!r}")
        value = self.blocks[label]["value"]
        if not old:
            raise CoreMemoryError("replace needs a non-empty old text")
        at = value.find(old)
        if at < 0:
            raise CoreMemoryError(f"{old!r} is not in {label!r}")
        self._set(label, value[:at] + new + value[at + len(old):])

    def __repr__(self):
        inner = ", ".join(f"{b['label']} {len(b['value'])}/{b['limit']}" for b in self.blocks.values())
        return f"TypedCoreMemory([{inner}])"
