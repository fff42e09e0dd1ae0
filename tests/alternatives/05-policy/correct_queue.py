"""Per-step state machine keyed by the user message id; sentence-style core facts; first ranked hit that overlaps; archival then conversation fallback for every question."""
import re

from memlib.agent import ToolCall
from memlib.citations import Citation

QUESTION_WORDS = {"what", "which", "who", "whom", "when", "where", "why", "how", "is", "are", "do", "does", "did",
                  "can", "could", "should", "must", "will", "would", "has", "have"}
FILLER = {"a", "an", "the", "my", "me", "i", "of", "to", "in", "on", "at", "for", "is", "are", "was", "did", "do",
          "does", "say", "said", "about", "that", "this", "it", "what", "which", "who", "when", "where", "how",
          "must", "should", "can", "with", "and", "or", "you", "your", "tell", "told"}


def terms(text):
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in FILLER and len(w) > 1]


def asks(text):
    t = text.strip()
    first = t.split(" ", 1)[0].lower() if t else ""
    return t.endswith("?") or first in QUESTION_WORDS and len(t.split()) > 2


class MyDecider:
    """A decider: next_call(view) -> ToolCall. The check makes a fresh one per scenario and per session."""

    def __init__(self):
        self.archived_ids = set()
        self.step_id = None
        self.plan = []        # calls still to make in this step, before the question logic
        self.sources = []     # search tools still to try for this step's question

    def _start(self, view):
        self.step_id = view.user_message.id
        self.plan, text = [], view.user_text.strip()
        m = re.match(r"my (name|job) is (.+?)\.?$", text, re.I)
        if m and not any(c.name.startswith("core_memory") for c, _ in view.calls):
            self.plan.append(self._identity(view, m.group(1).lower(), m.group(2)))
        m = re.match(r"remember that (.+)$", text, re.I | re.S)
        if m:
            self.archived_ids.add(view.user_message.id)
            self.plan.append(ToolCall("archival_memory_insert",
                                      {"content": m.group(1).strip(), "request_heartbeat": True}))
        if re.search(r"what did i (say|mention|tell you)", text, re.I):
            self.sources = ["conversation_search", "archival_memory_search"]
        else:
            self.sources = ["archival_memory_search", "conversation_search"]
        self.plan = [c for c in self.plan if c is not None]

    def _identity(self, view, key, value):
        self.archived_ids.add(view.user_message.id)
        sentence = f"The user's {key} is {value.strip()}."
        try:
            block = view.memory.core.get("human").value
        except Exception:
            return None
        old = re.search(rf"The user's {key} is [^\n]*?\.(?=\n|$)", block)
        if old and old.group(0) == sentence:
            return None
        if old and block.count(old.group(0)) == 1:
            return ToolCall("core_memory_replace", {"label": "human", "old_content": old.group(0),
                                                    "new_content": sentence, "request_heartbeat": True})
        return ToolCall("core_memory_append", {"label": "human", "content": sentence, "request_heartbeat": True})

    def next_call(self, view):
        """The next tool call for this view."""
        if view.user_message.id != self.step_id or not view.calls:
            self._start(view)
        if view.alerts and view.context is not None and view.calls_left != 0:
            unsaved = [m.content.strip() for m in view.context.messages
                       if m.role == "user" and m.id not in self.archived_ids and m.content.strip()
                       and not asks(m.content)]
            self.archived_ids.update(m.id for m in view.context.messages if m.role == "user")
            if unsaved:
                return ToolCall("archival_memory_insert", {"content": " | ".join(unsaved), "request_heartbeat": True})
        if self.plan and view.calls_left != 0:
            return self.plan.pop(0)
        text = view.user_text.strip()
        if not asks(text):
            return self._reply("Got it.")
        if not view.calls:
            known = self._from_core(view, text)
            if known:
                return self._reply(known)
        searches = [(c, r) for c, r in view.calls if c.name.endswith("search")]
        last_call, last = searches[-1] if searches else (None, None)
        if last_call is not None and last.ok:
            want = set(terms(text))
            for item in last.records:
                body = getattr(item, "content", None)
                if body is None:  # an archival note may pack several statements: keep the one that matches
                    parts = [p for p in item.text.split(" | ") if want & set(terms(p)) and not asks(p)]
                    body = parts[0] if parts else item.text
                elif item.role != "user" or item.id == view.user_message.id:
                    continue
                if asks(body) or not want & set(terms(body)):
                    continue
                cite = Citation.from_message(item) if hasattr(item, "content") else Citation.from_record(item)
                return self._reply(f"From my memory: {body} {cite.format()}")
            if view.calls_left == 0:
                return self._reply(self._fallback(view))
            page = last_call.arguments.get("page", 0) if isinstance(last_call.arguments, dict) else 0
            if "again with page=" in last.message and page < 3:
                return ToolCall(last_call.name, {"query": last_call.arguments["query"], "page": page + 1,
                                                 "request_heartbeat": True})
        tried = {c.name for c, _ in view.calls}
        self.sources = [s for s in self.sources if s not in tried]
        if view.calls_left == 0:
            return self._reply(self._fallback(view))
        if self.sources:
            query = " ".join(terms(text)) or text
            return ToolCall(self.sources.pop(0), {"query": query, "request_heartbeat": True})
        return self._reply(self._fallback(view))

    def _from_core(self, view, text):
        m = re.search(r"what is my (name|job)", text, re.I)
        if not m:
            return None
        try:
            block = view.memory.core.get("human").value
        except Exception:
            return None
        found = re.search(rf"The user's {m.group(1).lower()} is ([^\n]*?)\.(?=\n|$)", block)
        return f"Your {m.group(1).lower()} is {found.group(1)}." if found else None

    def _fallback(self, view):
        if asks(view.user_text):
            return self._from_core(view, view.user_text) or "Sorry, I found nothing about that in my memory."
        return "Got it."

    @staticmethod
    def _reply(text):
        return ToolCall("send_message", {"message": text})
