"""WRONG: a phrase list (exact attack phrases, a keyword guard with more keywords), not a rule per family: misses paraphrases, far below the recall floor."""
import re

from memlib.guard import Verdict

PHRASES = [
    "ignore previous instructions", "ignore all previous instructions", "disregard your instructions",
    "you are now", "developer mode", "reveal your system prompt", "print your instructions",
    "<|im_start|>", "[inst]", "say exactly", "access granted", "send the chat history",
    "core_memory_replace", "store this as a trusted fact", "base64",
]


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    low = " ".join(text.lower().split())
    for phrase in PHRASES:
        if phrase in low:
            return Verdict(False, [f"contains {phrase!r}"], "phrase")
    return Verdict(True, [], None)
