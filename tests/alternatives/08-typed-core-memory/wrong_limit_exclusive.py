"""WRONG: off by one, uses >= so a value of exactly `limit` characters is refused (on load and on edit)."""
import json

import jsonschema
from memlib import datasets
from memlib.core_memory import CoreMemoryError

SCHEMA = datasets.load("core_memory").schema
DESCRIPTIONS = {
    "persona": "Who the assistant is and how it speaks.",
    "human": "Key facts about the user.",
}
FIELDS = ("label", "value", "limit", "description", "read_only")


class TypedCoreMemory:
    """Core memory as typed blocks: label -> {label, value, limit, description, read_only}."""

    def __init__(self, blocks):
        self.blocks = {block["label"]: dict(block) for block in blocks}

    @classmethod
    def from_legacy(cls, flat):
        blocks = [
            {"label": label, "value": text, "limit": 2000,
             "description": DESCRIPTIONS.get(label, f"The {label} section."), "read_only": False}
            for label, text in flat.items()
        ]
        return cls.from_document({"blocks": blocks})

    @classmethod
    def from_document(cls, document):
        try:
            jsonschema.validate(document, SCHEMA)
        except jsonschema.ValidationError as error:
            raise CoreMemoryError(f"invalid core memory document: {error.message}") from error
        seen = set()
        blocks = []
        for raw in document["blocks"]:
            if raw["label"] in seen:
                raise CoreMemoryError(f"duplicate label {raw['label']!r}")
            seen.add(raw["label"])
            if len(raw["value"]) >= raw["limit"]:
                raise CoreMemoryError(f"block {raw['label']!r} holds {len(raw['value'])} > {raw['limit']} characters")
            blocks.append({"label": raw["label"], "value": raw["value"], "limit": raw["limit"],
                           "description": raw.get("description", ""), "read_only": raw.get("read_only", False)})
        return cls(blocks)

    def to_document(self):
        return {"blocks": [{f: b[f] for f in FIELDS} for b in self.blocks.values()]}

    def to_json(self):
        return json.dumps(self.to_document(), indent=2, ensure_ascii=False)

    @classmethod
    def from_json(cls, text):
        return cls.from_document(json.loads(text))

    def render(self):
        parts = []
        for b in self.blocks.values():
            attrs = f'characters="{len(b["value"])}/{b["limit"]}"'
            if b["read_only"]:
                attrs += ' read_only="true"'
            if b["description"]:
                attrs += f' description="{b["description"]}"'
            body = b["value"] + "\n" if b["value"] else ""
            parts.append(f"<{b['label']} {attrs}>\n{body}</{b['label']}>")
        return "\n".join(parts)

    def _set(self, label, new_value):
        """Check everything first, then change one block: a refused edit changes nothing."""
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}; blocks: {sorted(self.blocks)}")
        block = self.blocks[label]
        if block["read_only"]:
            raise CoreMemoryError(f"block {label!r} is read-only")
        if len(new_value) >= block["limit"]:
            raise CoreMemoryError(f"block {label!r} would hold {len(new_value)} > {block['limit']} characters")
        self.blocks[label] = {**block, "value": new_value}

    def append(self, label, text):
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}")
        current = self.blocks[label]["value"]
        self._set(label, current + "\n" + text if current else text)

    def replace(self, label, old, new):
        if label not in self.blocks:
            raise CoreMemoryError(f"no block {label!r}")
        if not old:
            raise CoreMemoryError("old text must not be empty")
        current = self.blocks[label]["value"]
        if old not in current:
            raise CoreMemoryError(f"{old!r} not found in block {label!r}")
        self._set(label, current.replace(old, new))

    def __repr__(self):
        inner = ", ".join(f"{b['label']} {len(b['value'])}/{b['limit']}" for b in self.blocks.values())
        return f"TypedCoreMemory([{inner}])"
