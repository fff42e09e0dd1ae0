"""Inner monologue on every call; Jaccard ranking over sentences; backlog saved oldest first in notes of <=1000 characters; 'about X' queries; conversation fallback only with calls to spare."""
import re

from memlib.agent import ToolCall
from memlib.citations import Citation

STOP = frozenset("a an and are at about be can could did do does for from had has have how i in is it me must my "
                 "of on or say said should tell told that the this to was were what when where which who why will "
                 "with would you your".split())
NOTE_CHARS = 1000


def content_words(text):
    return frozenset(w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOP)


def jaccard(a, b):
    return len(a & b) / len(a | b) if a & b else 0.0


class MyDecider:
    """A decider: next_call(view) -> ToolCall. The check makes a fresh one per scenario and per session."""

    def __init__(self):
        self.in_memory = set()  # user message ids whose content is in core or archival memory
        self.backlog = []       # notes still to write after an alert

    def _go(self, name, thought, **args):
        return ToolCall(name, dict(args, request_heartbeat=True), thought=thought)

    def _reply(self, text, thought):
        return ToolCall("send_message", {"message": text}, thought=thought)

    def next_call(self, view):
        """The next tool call for this view."""
        text = view.user_text.strip() if isinstance(view.user_text, str) else ""
        made = [call.name for call, _ in view.calls]
        if view.calls_left == 0:
            if text.endswith("?"):
                return self._answer(view, text, made)
            return self._reply(self._give_up(view, text), "No calls left: answer with what I have.")
        if view.alerts and view.context is not None:
            self.backlog = self._notes(view)
        if self.backlog:
            return self._go("archival_memory_insert", "Memory pressure: archive what only the context holds.",
                            content=self.backlog.pop(0))
        write = self._write(view, text, made)
        if write is not None:
            return write
        if not text.endswith("?"):
            return self._reply("Noted.", "Nothing to look up.")
        return self._answer(view, text, made)

    def _notes(self, view):
        notes, current = [], ""
        for m in view.context.messages:  # oldest first: they are evicted first
            if m.role != "user" or m.id in self.in_memory or not content_words(m.content) or m.content.strip().endswith("?"):
                continue
            self.in_memory.add(m.id)
            line = m.content.strip()
            if current and len(current) + 1 + len(line) > NOTE_CHARS:
                notes.append(current)
                current = ""
            current = f"{current}\n{line}" if current else line
        return notes + ([current] if current else [])

    def _write(self, view, text, made):
        m = re.match(r"^my (name|job) is (.+?)\W*$", text, re.I)
        if m and not any(n.startswith("core_memory") for n in made):
            self.in_memory.add(view.user_message.id)
            try:
                value = view.memory.core.get("human").value
            except Exception:
                return None
            key = m.group(1).capitalize()
            new = f"{key}: {m.group(2)}"
            old = [l for l in value.splitlines() if l.startswith(key + ": ")]
            if old and old[-1] == new:
                return None
            if old and value.count(old[-1]) == 1:
                return self._go("core_memory_replace", f"Update the user's {key.lower()}.", label="human",
                                old_content=old[-1], new_content=new)
            return self._go("core_memory_append", f"Note the user's {key.lower()}.", label="human", content=new)
        m = re.match(r"^remember that (.+)$", text, re.I | re.S)
        if m and view.user_message.id not in self.in_memory:
            self.in_memory.add(view.user_message.id)
            return self._go("archival_memory_insert", "The user asked me to keep this.", content=m.group(1).strip())
        return None

    def _core(self, view, text):
        m = re.match(r"^what(?: is|'s) my (name|job)\W*$", text, re.I)
        if not m:
            return None
        try:
            for line in view.memory.core.get("human").value.splitlines():
                if line.lower().startswith(m.group(1).lower() + ": "):
                    return f"Your {m.group(1).lower()} is {line.split(': ', 1)[1]}."
        except Exception:
            return None
        return None

    def _answer(self, view, text, made):
        if not made and self._core(view, text):
            return self._reply(self._core(view, text), "It is in core memory, in view.")
        want = content_words(text)
        best = (0.0, None, "")
        for call, result in view.calls:
            if not call.name.endswith("search") or not result.ok:
                continue
            for item in result.records:
                if hasattr(item, "role") and (item.role != "user" or item.id == view.user_message.id):
                    continue
                body = item.content if hasattr(item, "role") else item.text
                for sentence in re.split(r"(?<=[.!?])\s+|\n", body):
                    score = jaccard(want, content_words(sentence))
                    if score > best[0] and not sentence.strip().endswith("?"):
                        best = (score, item, sentence.strip())
        if best[1] is not None:
            item = best[1]
            cite = Citation.from_message(item) if hasattr(item, "role") else Citation.from_record(item)
            return self._reply(f"{best[2]} {cite.format()}", "Answer from the hit that matches best, and cite it.")
        if view.calls_left == 0:
            return self._reply(self._give_up(view, text), "No calls left: answer with what I have.")
        about = re.search(r"what did i (?:say|tell you|mention) about (.+?)\W*$", text, re.I)
        query = about.group(1) if about else " ".join(sorted(want)) or text
        if view.calls:
            call, result = next(((c, r) for c, r in reversed(view.calls) if c.name.endswith("search")), (None, None))
            if call is not None and result.ok and f"page={call.arguments.get('page', 0) + 1}" in result.message:
                return self._go(call.name, "Not on this page: turn it.", query=call.arguments["query"],
                                page=call.arguments.get("page", 0) + 1)
        order = ["conversation_search", "archival_memory_search"] if about else ["archival_memory_search"]
        if not about and (view.calls_left or 0) >= 2:
            order.append("conversation_search")
        for tool in order:
            if tool not in made:
                return self._go(tool, f"Look it up with {tool}.", query=query)
        return self._reply(self._give_up(view, text), "Nothing found anywhere: say so.")

    def _give_up(self, view, text):
        if not text.endswith("?"):
            return "Noted."
        return self._core(view, text) or "I don't know: I found nothing about that in my memory."
