"""Stemmed overlap via memlib.retrieval.tokenize, answers in-view from any 'Key: value' core line, pages while calls_left allows, one dated note per alert."""
import re

from memlib.agent import ToolCall
from memlib.citations import Citation
from memlib.retrieval import tokenize

SEARCHES = ("conversation_search", "archival_memory_search")


def _q(text):
    return text.rstrip().endswith("?")


def _call(name, **args):
    return ToolCall(name, {**args, "request_heartbeat": True})


def _say(text):
    return ToolCall("send_message", {"message": text})


class MyDecider:
    """A decider: next_call(view) -> ToolCall. The check makes a fresh one per scenario and per session."""

    def __init__(self):
        self.kept = set()

    def next_call(self, view):
        """The next tool call for this view."""
        text = (view.user_text or "").strip()
        names = [c.name for c, _ in view.calls]
        if view.calls_left is not None and view.calls_left < 1:
            if _q(text):
                return self._search_or_answer(view, text, names)
            return _say("Noted.")
        if view.alerts and view.context is not None:
            fresh = [m for m in view.context.messages if m.role == "user" and m.id not in self.kept
                     and not _q(m.content) and tokenize(m.content)]
            self.kept.update(m.id for m in fresh)
            if fresh:
                lines = []
                for m in fresh:
                    when = m.timestamp.strftime("%Y-%m-%d") if m.timestamp else "earlier"
                    lines.append(f"({when}) {m.content.strip()}")
                return _call("archival_memory_insert", content="\n".join(lines))
        ident = re.match(r"my (name|job) is (.+?)[.!]*$", text, re.I)
        if ident and not {"core_memory_append", "core_memory_replace"} & set(names):
            self.kept.add(view.user_message.id)
            call = self._core_edit(view, ident.group(1).title(), ident.group(2).strip())
            if call:
                return call
        fact = re.match(r"remember that (.+)", text, re.I | re.S)
        if fact and view.user_message.id not in self.kept:
            if "archival_memory_insert" not in names or view.alerts:
                self.kept.add(view.user_message.id)
                return _call("archival_memory_insert", content=fact.group(1).strip())
        if not _q(text):
            return _say("Noted.")
        if not view.calls:
            seen = self._in_view(view, text)
            if seen:
                return _say(seen)
        return self._search_or_answer(view, text, names)

    def _core_edit(self, view, key, value):
        try:
            current = view.memory.core.get("human").value
        except Exception:
            return None
        new = f"{key}: {value}"
        olds = [line for line in current.split("\n") if line.lower().startswith(key.lower() + ":")]
        if olds == [new]:
            return None
        if len(olds) == 1 and current.count(olds[0]) == 1:
            return _call("core_memory_replace", label="human", old_content=olds[0], new_content=new)
        return _call("core_memory_append", label="human", content=new)

    def _in_view(self, view, text):
        asked = set(tokenize(text))
        try:
            lines = view.memory.core.get("human").value.split("\n")
        except Exception:
            return None
        for line in lines:
            key, sep, value = line.partition(":")
            if sep and value.strip() and set(tokenize(key)) == asked and "my" in text.lower().split():
                return f"Your {key.strip().lower()} is {value.strip()}."
        return None

    def _search_or_answer(self, view, text, names):
        asked = set(tokenize(text)) - {"say", "said", "tell", "told", "rememb"}
        for call, result in reversed(view.calls):
            if call.name not in SEARCHES or not result.ok:
                continue
            best = None
            for item in result.records:
                if getattr(item, "id", None) == view.user_message.id or getattr(item, "role", "user") != "user":
                    continue
                body = item.content if hasattr(item, "content") else item.text
                for line in body.split("\n"):
                    score = len(asked & set(tokenize(line)))
                    if score and not _q(line) and (best is None or score > best[0]):
                        best = (score, item, line)
            if best:
                _, item, line = best
                cite = Citation.from_message(item) if hasattr(item, "content") else Citation.from_record(item)
                line = re.sub(r"^\(\S+\) ", "", line.strip())
                return _say(f"{line} {cite.format()}")
            more = re.search(r"page (\d+) of (\d+)", result.message)
            page = call.arguments.get("page", 0)
            if more and int(more.group(1)) < int(more.group(2)) and (view.calls_left is None or view.calls_left > 1):
                return _call(call.name, query=call.arguments["query"], page=page + 1)
            break
        words = " ".join(w for w in re.findall(r"[\w']+", text) if tokenize(w)) or text
        about = re.search(r"what did i (?:say|tell you) about (.+?)\??$", text, re.I)
        order = SEARCHES if about else SEARCHES[1:]
        for tool in order:
            if tool not in names and (view.calls_left is None or view.calls_left > 0):
                return _call(tool, query=about.group(1) if about else words)
        return _say(self._in_view(view, text) or "I looked in my memory and found nothing about that.")
