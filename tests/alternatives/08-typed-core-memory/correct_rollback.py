"""Snapshot-and-rollback edits (apply, verify, restore on failure), Letta-like nested render, uniqueness checked before the schema's own-limit loop via a dict."""
import copy
import json

import jsonschema
from memlib import datasets
from memlib.core_memory import CoreMemoryError

SCHEMA = datasets.load("core_memory").schema
DESCRIPTIONS = {
    "persona": "Who the assistant is and how it speaks.",
    "human": "Key facts about the user.",
}


class TypedCoreMemory:
    """Core memory as typed blocks: label -> {label, value, limit, description, read_only}."""

    def __init__(self, blocks):
        self.blocks = {block["label"]: dict(block) for block in blocks}

    @classmethod
    def from_legacy(cls, flat):
        if not isinstance(flat, dict):
            raise CoreMemoryError("a legacy core memory is a dict of section -> text")
        document = {"blocks": [{"label": k, "value": v, "limit": 2000,
                                "description": DESCRIPTIONS.get(k, f"What the agent keeps under {k}."),
                                "read_only": False} for k, v in flat.items()]}
        return cls.from_document(document)

    @classmethod
    def from_document(cls, document):
        errors = sorted(jsonschema.Draft202012Validator(SCHEMA).iter_errors(document), key=lambda e: e.path)
        if errors:
            raise CoreMemoryError("; ".join(e.message for e in errors))
        by_label = {}
        for block in document["blocks"]:
            by_label.setdefault(block["label"], []).append(block)
        duplicated = [label for label, group in by_label.items() if len(group) > 1]
        if duplicated:
            raise CoreMemoryError(f"labels must be unique, repeated: {', '.join(duplicated)}")
        too_long = [b["label"] for b in document["blocks"] if len(b["value"]) > b["limit"]]
        if too_long:
            raise CoreMemoryError(f"value over its block's limit: {', '.join(too_long)}")
        memory = cls([])
        for block in document["blocks"]:
            memory.blocks[block["label"]] = {
                "label": block["label"], "value": block["value"], "limit": int(block["limit"]),
                "description": block.get("description", ""), "read_only": bool(block.get("read_only", False)),
            }
        return memory

    def to_document(self):
        keys = ("label", "value", "limit", "description", "read_only")
        return {"blocks": [{k: copy.copy(b[k]) for k in keys} for b in self.blocks.values()]}

    def to_json(self):
        return json.dumps(self.to_document(), indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, text):
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return cls.from_document(json.loads(text))

    def render(self):
        out = []
        for b in self.blocks.values():
            meta = f"characters: {len(b['value'])}/{b['limit']}"
            if b["read_only"]:
                meta += "; read-only"
            out += [f"<{b['label']}>", f"<description>{b['description']}</description>",
                    f"<metadata>{meta}</metadata>", f"<value>{b['value']}</value>", f"</{b['label']}>"]
        return "\n".join(out)

    def _set(self, label, new_value):
        """Check everything first, then change one block: a refused edit changes nothing."""
        if label not in self.blocks:
            raise CoreMemoryError(f"no block labelled {label!r}")
        if self.blocks[label]["read_only"]:
            raise CoreMemoryError(f"block {label!r} is read-only")
        snapshot = copy.deepcopy(self.blocks)
        self.blocks[label]["value"] = new_value
        if len(self.blocks[label]["value"]) > self.blocks[label]["limit"]:
            self.blocks = snapshot
            raise CoreMemoryError(f"block {label!r} would exceed its limit of {snapshot[label]['limit']}")

    def append(self, label, text):
        if label not in self.blocks:
            raise CoreMemoryError(f"no block labelled {label!r}")
        value = self.blocks[label]["value"]
        self._set(label, f"{value}\n{text}" if value else text)

    def replace(self, label, old, new):
        if label not in self.blocks:
            raise CoreMemoryError(f"no block labelled {label!r}")
        value = self.blocks[label]["value"]
        if not old or value.count(old) == 0:
            raise CoreMemoryError(f"old text {old!r} missing or not found in {label!r}")
        self._set(label, new.join(value.split(old)))

    def __repr__(self):
        inner = ", ".join(f"{b['label']} {len(b['value'])}/{b['limit']}" for b in self.blocks.values())
        return f"TypedCoreMemory([{inner}])"
