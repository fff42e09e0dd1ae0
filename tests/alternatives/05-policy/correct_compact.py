"""Compact: keeps the step's progress on self (reset per user message), reads only view.last_call/last_result, saves each alert's backlog as one bulleted note, answers with the whole hit."""
import re

from memlib.agent import ToolCall
from memlib.citations import Citation

SKIP = set("what which who when where how why is are was were did do does say said tell told about the a an my of "
           "to in on for at and must should could would can i me you".split())


class MyDecider:
    """A decider: next_call(view) -> ToolCall. The check makes a fresh one per scenario and per session."""

    def __init__(self):
        self.handled = set()   # ids of user messages already in core or archival memory
        self.current = None    # id of the message this step handles
        self.tools = []        # search tools left to try in this step
        self.stored = False    # this step's fact already written

    def next_call(self, view):
        """The next tool call for this view."""
        msg = view.user_message
        text = msg.content.strip()
        question = text.endswith("?")
        if msg.id != self.current:
            self.current, self.stored = msg.id, False
            said = re.match(r"what did i (say|tell you) about", text, re.I)
            self.tools = ["conversation_search", "archival_memory_search"] if said else ["archival_memory_search"]
        beat = view.calls_left is None or view.calls_left > 0
        if view.alerts and view.context is not None and beat:
            backlog = [m for m in view.context.messages
                       if m.role == "user" and m.id not in self.handled and m.content.strip() and not m.content.strip().endswith("?")]
            self.handled.update(m.id for m in backlog)
            if backlog:
                note = "Things the user told me:\n" + "\n".join("- " + m.content.strip() for m in backlog)
                return ToolCall("archival_memory_insert", {"content": note, "request_heartbeat": True})
        if not self.stored and beat and not any(c.name.startswith("core_memory") for c, _ in view.calls):
            self.stored = True
            call = self.store(view, text)
            if call is not None:
                self.handled.add(msg.id)
                return call
        if not question:
            return ToolCall("send_message", {"message": "Noted."})
        if view.last_call is None:
            known = self.from_core(view, text)
            if known:
                return ToolCall("send_message", {"message": known})
        last, result = view.last_call, view.last_result
        if last is not None and last.name.endswith("_search") and result is not None and result.ok:
            hit = self.pick(view, text, result.records)
            if hit is not None:
                return ToolCall("send_message", {"message": hit})
            page = last.arguments.get("page", 0)
            if f"page={page + 1}" in result.message and page < 4 and beat:
                return ToolCall(last.name, {"query": last.arguments["query"], "page": page + 1,
                                            "request_heartbeat": True})
        self.tools = [t for t in self.tools if t not in {c.name for c, _ in view.calls}]
        if self.tools and beat:
            query = " ".join(w for w in re.findall(r"\w+", text) if w.lower() not in SKIP) or text
            return ToolCall(self.tools.pop(0), {"query": query, "request_heartbeat": True})
        return self.say(self.from_core(view, text), True)

    def store(self, view, text):
        m = re.match(r"my (name|job) is (.+?)\.?$", text, re.I)
        if m:
            label = m.group(1).lower()
            line = f"{label}: {m.group(2)}"
            try:
                value = view.memory.core.get("human").value
            except Exception:
                return None
            old = re.search(rf"^{label}: .*$", value, re.M)
            if old is None:
                return ToolCall("core_memory_append", {"label": "human", "content": line, "request_heartbeat": True})
            if old.group(0) != line:
                return ToolCall("core_memory_replace", {"label": "human", "old_content": old.group(0),
                                                        "new_content": line, "request_heartbeat": True})
            return None
        m = re.match(r"remember that (.+)", text, re.I | re.S)
        if m:
            return ToolCall("archival_memory_insert", {"content": "The user asked me to remember: " + m.group(1),
                                                       "request_heartbeat": True})
        return None

    def from_core(self, view, text):
        m = re.fullmatch(r"what is my (name|job)\??", text, re.I)
        if not m:
            return None
        try:
            value = view.memory.core.get("human").value
        except Exception:
            return None
        found = re.search(rf"^{m.group(1).lower()}: (.*)$", value, re.M)
        return f"Your {m.group(1).lower()} is {found.group(1)}." if found else None

    def pick(self, view, text, records):
        want = {w.lower() for w in re.findall(r"\w+", text)} - SKIP
        for item in records:  # ranked: the first that shares a word wins
            if hasattr(item, "content"):
                if item.id == view.user_message.id or item.role != "user" or item.content.strip().endswith("?"):
                    continue
                body, cite = item.content, Citation.from_message(item)
            else:
                lines = [l for l in item.text.splitlines() if want & {w.lower() for w in re.findall(r"\w+", l)}]
                body, cite = (lines[0].lstrip("- ") if lines else item.text), Citation.from_record(item)
            if want & {w.lower() for w in re.findall(r"\w+", body)}:
                return f"{body.strip()} {cite.format()}"
        return None

    def say(self, text, question):
        return ToolCall("send_message", {"message": text or ("I searched my memory but found nothing on that."
                                                             if question else "Noted.")})
