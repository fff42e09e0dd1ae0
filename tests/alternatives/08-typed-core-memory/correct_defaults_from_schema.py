"""Takes the defaults from the schema's own 'default' keywords, checks labels with a set, edits by building a new dict; self-closing tags for empty blocks."""
import json
from html import escape

import jsonschema
from memlib import datasets
from memlib.core_memory import CoreMemoryError

SCHEMA = datasets.load("core_memory").schema
DESCRIPTIONS = {
    "persona": "Who the assistant is and how it speaks.",
    "human": "Key facts about the user.",
}
_PROPS = SCHEMA["$defs"]["block"]["properties"]
FIELD_ORDER = ("label", "value", "limit", "description", "read_only")
DEFAULTS = {name: spec["default"] for name, spec in _PROPS.items() if "default" in spec}


def _fill(block):
    return {name: block[name] if name in block else DEFAULTS[name] for name in FIELD_ORDER}


class TypedCoreMemory:
    """Core memory as typed blocks: label -> {label, value, limit, description, read_only}."""

    def __init__(self, blocks):
        self.blocks = {block["label"]: dict(block) for block in blocks}

    @classmethod
    def from_legacy(cls, flat):
        return cls.from_document({"blocks": [
            {"label": label, "value": value, "limit": 2000,
             "description": DESCRIPTIONS.get(label, "Carried over from the flat core memory file."), "read_only": False}
            for label, value in flat.items()
        ]})

    @classmethod
    def from_document(cls, document):
        try:
            jsonschema.Draft202012Validator(SCHEMA).validate(document)
        except jsonschema.exceptions.ValidationError as error:
            raise CoreMemoryError(f"core memory does not match the schema: {error.message}") from None
        blocks = {}
        for raw in document["blocks"]:
            block = _fill(raw)
            if block["label"] in blocks:
                raise CoreMemoryError(f"label {block['label']!r} appears more than once")
            used, limit = len(block["value"]), block["limit"]
            if used > limit:
                raise CoreMemoryError(f"block {block['label']!r}: {used}/{limit} characters")
            blocks[block["label"]] = block
        return cls(blocks.values())

    def to_document(self):
        return {"blocks": [_fill(block) for block in self.blocks.values()]}

    def to_json(self):
        return json.dumps(self.to_document(), indent=4) + "\n"

    @classmethod
    def from_json(cls, text):
        return cls.from_document(json.loads(text))

    def render(self):
        out = []
        for label, block in self.blocks.items():
            attrs = [f'chars="{len(block["value"])}/{block["limit"]}"']
            if block["read_only"]:
                attrs.append('readonly="yes"')
            if block["description"]:
                attrs.append(f'description="{escape(block["description"])}"')
            opening = f"<{label} {' '.join(attrs)}"
            out.append(f"{opening}>\n{block['value']}\n</{label}>" if block["value"] else opening + "/>")
        return "\n".join(out)

    def _set(self, label, new_value):
        """Check everything first, then change one block: a refused edit changes nothing."""
        try:
            block = self.blocks[label]
        except KeyError:
            raise CoreMemoryError(f"there is no block {label!r}") from None
        if block["read_only"] is True:
            raise CoreMemoryError(f"block {label!r} is read-only and cannot be edited")
        if len(new_value) > block["limit"]:
            raise CoreMemoryError(
                f"block {label!r} would be {len(new_value)}/{block['limit']} characters; nothing was changed")
        updated = dict(block)
        updated["value"] = new_value
        self.blocks = {key: (updated if key == label else other) for key, other in self.blocks.items()}

    def append(self, label, text):
        value = self.blocks[label]["value"] if label in self.blocks else ""
        self._set(label, value + ("\n" if value else "") + text)

    def replace(self, label, old, new):
        if old is None or len(old) == 0:
            raise CoreMemoryError("old must be a non-empty string")
        value = self.blocks[label]["value"] if label in self.blocks else None
        if value is None:
            raise CoreMemoryError(f"there is no block {label!r}")
        before, found, after = value.partition(old)
        if not found:
            raise CoreMemoryError(f"{old!r} does not occur in block {label!r}")
        self._set(label, value.replace(old, new))

    def __repr__(self):
        inner = ", ".join(f"{b['label']} {len(b['value'])}/{b['limit']}" for b in self.blocks.values())
        return f"TypedCoreMemory([{inner}])"
