"""WRONG: never sets "request_heartbeat": True, so after a save or a search the step ends without the follow-up call (no reply, no answer)."""
import re

from memlib.agent import ToolCall
from memlib.citations import Citation

STOP = set("a an the is are was were be of to in on at for and or my me i you your what which who whom when where "
           "how did do does say said tell told about that this it with from by as must should can could will "
           "would has have had any there their they he she his her we our us".split())
IDENTITY = re.compile(r"^\s*my (name|job) is (.+?)[.!]?\s*$", re.I)
REMEMBER = re.compile(r"^\s*(?:please\s+)?remember that\s+(.+?)\s*$", re.I)
PAGES = re.compile(r"page (\d+) of (\d+)")
MAX_PAGES = 3


def words(text):
    return {w[:5] for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP}


def is_question(text):
    return text.strip().endswith("?")


class MyDecider:
    """A decider: next_call(view) -> ToolCall. The check makes a fresh one per scenario and per session."""

    def __init__(self):
        self.saved = set()      # ids of user messages already written to memory
        self.pressure = False   # an alert arrived and the save is still to do

    def _beat(self, name, **arguments):
        return ToolCall(name, arguments)

    def next_call(self, view):
        """The next tool call for this view."""
        text = view.user_text or ""
        done = [call.name for call, _ in view.calls]
        if view.alerts:
            self.pressure = True
        if view.calls_left is not None and view.calls_left <= 0:  # last call: answer from what was found
            if is_question(text):
                return self._question(view, text)
            return ToolCall("send_message", {"message": self._answer(view, final=True)})
        # 1. save under pressure: every statement only the context still holds, in one note
        if self.pressure and view.context is not None:
            self.pressure = False
            pending = [m for m in view.context.messages
                       if m.role == "user" and m.id not in self.saved and m.content.strip()
                       and not is_question(m.content) and not REMEMBER.match(m.content)
                       and not IDENTITY.match(m.content)]
            if pending:
                self.saved.update(m.id for m in pending)
                note = "\n".join(f"The user said: {m.content.strip()}" for m in pending)
                return self._beat("archival_memory_insert", content=note)
        # 2. store what this message states
        call = self._store(view, text, done)
        if call is not None:
            return call
        # 3. answer (searching first when needed)
        if is_question(text):
            return self._question(view, text)
        return ToolCall("send_message", {"message": "Noted." if view.calls else "OK."})

    def _store(self, view, text, done):
        identity = IDENTITY.match(text)
        if identity and "core_memory_append" not in done and "core_memory_replace" not in done:
            key, value = identity.group(1).capitalize(), identity.group(2).strip()
            line = f"{key}: {value}"
            try:
                current = view.memory.core.get("human").value
            except Exception:
                return None
            old = next((l for l in current.splitlines() if l.startswith(key + ":")), None)
            self.saved.add(view.user_message.id)
            if old == line:
                return None
            if old is not None and current.count(old) == 1:
                return self._beat("core_memory_replace", label="human", old_content=old, new_content=line)
            return self._beat("core_memory_append", label="human", content=line)
        remember = REMEMBER.match(text)
        if remember and "archival_memory_insert" not in done:
            self.saved.add(view.user_message.id)
            fact = remember.group(1).rstrip(".") + "."
            return self._beat("archival_memory_insert", content=fact[0].upper() + fact[1:])
        return None

    def _core_answer(self, view, text):
        asked = re.search(r"what is my (name|job)\b", text, re.I)
        if not asked:
            return None
        key = asked.group(1).capitalize() + ":"
        try:
            lines = view.memory.core.get("human").value.splitlines()
        except Exception:
            return None
        for line in lines:
            if line.startswith(key):
                return f"Your {asked.group(1).lower()} is {line[len(key):].strip()}."
        return None

    def _best(self, view, text, records):
        wanted = words(text)
        best, best_score = None, 0
        for item in records:
            if getattr(item, "id", None) == view.user_message.id:
                continue
            body = getattr(item, "content", None)
            lines = [body] if body is not None else item.text.splitlines()
            if body is not None and getattr(item, "role", "user") != "user":
                continue
            for line in lines:
                if is_question(line):
                    continue
                score = len(wanted & words(line))
                if score > best_score:
                    best, best_score = (item, line), score
        return best

    def _question(self, view, text):
        in_view = self._core_answer(view, text)
        if in_view and not view.calls:
            return ToolCall("send_message", {"message": in_view})
        for call, result in view.calls:
            if call.name in ("archival_memory_search", "conversation_search") and result.ok:
                found = self._best(view, text, result.records)
                if found:
                    return ToolCall("send_message", {"message": self._cite(*found)})
        if view.calls_left is not None and view.calls_left <= 0:
            return ToolCall("send_message", {"message": self._answer(view, final=True)})
        query = " ".join(w for w in re.findall(r"[A-Za-z0-9']+", text) if w.lower() not in STOP) or text
        order = ["archival_memory_search"]
        if re.search(r"\bwhat did i (say|tell you)\b", text, re.I):
            order = ["conversation_search", "archival_memory_search"]
        if view.calls:
            call, result = view.calls[-1]
            if call.name in order and result.ok:
                pages = PAGES.search(result.message)
                page = int(call.arguments.get("page", 0)) if isinstance(call.arguments, dict) else 0
                if pages and int(pages.group(1)) < int(pages.group(2)) and page + 1 < MAX_PAGES:
                    return self._beat(call.name, query=query, page=page + 1)
        used = {call.name for call, _ in view.calls}
        for tool in order:
            if tool not in used:
                return self._beat(tool, query=query)
        return ToolCall("send_message", {"message": self._answer(view, final=True)})

    def _cite(self, item, line):
        citation = Citation.from_message(item) if hasattr(item, "content") else Citation.from_record(item)
        return f"{line.strip()} {citation.format()}"

    def _answer(self, view, final=False):
        text = view.user_text or ""
        if is_question(text):
            return self._core_answer(view, text) or "I could not find anything about that in my memory."
        return "Noted."
