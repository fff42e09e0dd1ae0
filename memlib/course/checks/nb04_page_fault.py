"""The page-fault scenario of notebooks 04 and 05, and the check of exercise 2b (notebook 05).

Notebook 04 traces the scenario through the agent loop; exercise 2b, in notebook 05, scripts
the calls that answer it. The module keeps its name because notebook 04 imports the scenario.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from memlib._util import TickClock
from memlib.course.checking import CheckFailed, expect, graded, passed
from memlib.course.exercise import Exercise
from memlib.course.lang import bilingual
from memlib.course.checks._common import _short

__all__ = ["check_page_fault", "reference_page_fault_calls", "page_fault_scenario", "PageFaultScenario"]


# ============================================================================
# 04 and 05 · the page-fault scenario; 05 · exercise 2b, scripting the agent through it
# ============================================================================

_SCENARIO_SETUP = [
    "My name is Ines.",
    "Remember that Biscuit is allergic to chicken.",
    "Remember that the vet is Dr Okafor on Otley Road.",
    "Remember that Ada's swimming lesson is at 5:15 at Scott Hall.",
]
_SCENARIO_FILLER = [f"Log {i}: reviewed the Doncaster feed backlog, batch {i} of the Heron migration, "
                    f"nothing unusual in the scans." for i in range(1, 13)]
_SCENARIO_QUESTION = "Which food must Biscuit avoid?"


# A fixed clock, one minute per tick, so the scenario is the same on every run.
_SCENARIO_START = datetime(2026, 3, 2, 9, 0)


@dataclass
class PageFaultScenario:
    """The page-fault setup of notebooks 04 and 05: an agent whose main context no longer holds the answer.

    `agent` ran a RulePolicy through the setup and filler turns; `question`
    is the user's next message; `record_id` is the archival record that
    answers it; `answer` the word the reply must contain.
    """

    agent: Any
    question: str
    record_id: str
    answer: str
    fact_message_id: int

    @property
    def memory(self):
        return self.agent.memory

    @property
    def fact_in_context(self) -> bool:
        return self.fact_message_id in {m.id for m in self.memory.context.messages}

    def run(self, calls) -> Any:
        """Answer `question` with a ScriptedPolicy replaying `calls`; returns the Trace."""
        from memlib.policies import ScriptedPolicy

        self.agent.policy = ScriptedPolicy(calls)
        return self.agent.step(self.question)

    def __repr__(self) -> str:
        where = "in main context" if self.fact_in_context else "evicted from main context"
        return (f"PageFaultScenario(question={self.question!r}, answer in {self.record_id} "
                f"(fact message #{self.fact_message_id} {where}), {self.memory!r})")


def page_fault_scenario(window: int = 600) -> PageFaultScenario:
    """A fresh, deterministic agent that archived a fact and then evicted it (notebooks 04 and 05)."""
    from memlib.agent import Agent
    from memlib.policies import RulePolicy
    from memlib.tools import MemorySystem

    memory = MemorySystem.create(window=window, clock=TickClock(_SCENARIO_START), session_id="s1")
    agent = Agent(RulePolicy(), memory, max_heartbeats=5)
    for text in _SCENARIO_SETUP + _SCENARIO_FILLER:
        agent.step(text)
    fact = next(m for m in memory.recall if m.content == _SCENARIO_SETUP[1])
    record = next(r for r in memory.archival if "allergic" in r.text)
    return PageFaultScenario(agent, _SCENARIO_QUESTION, record.id, "chicken", fact.id)


def reference_page_fault_calls(scenario: PageFaultScenario | None = None) -> list:
    """A script that answers the scenario's question: search archival memory, then reply with a citation."""
    from memlib.agent import ToolCall
    from memlib.citations import Citation

    scenario = scenario or page_fault_scenario()
    record = scenario.memory.archival.get(scenario.record_id)
    return [
        ToolCall("archival_memory_search", {"query": "Biscuit allergic", "request_heartbeat": True}),
        ToolCall("send_message", {"message": f"Biscuit must avoid chicken: he is allergic to it. "
                                             f"{Citation.from_record(record).format()}"}),
    ]


def _script_of(answer: Any) -> list:
    from memlib.agent import ToolCall

    calls = answer() if callable(answer) else answer
    if isinstance(calls, (str, bytes, dict)) or not hasattr(calls, "__iter__"):
        raise CheckFailed(bilingual(f"expected a list of ToolCall, got {type(calls).__name__} {_short(calls)}",
                                    f"这里要的是 ToolCall 列表，拿到的却是 {type(calls).__name__} {_short(calls)}"),
                          bilingual("return [ToolCall('archival_memory_search', {...}), ToolCall('send_message', {...})]",
                                    "返回 [ToolCall('archival_memory_search', {...}), ToolCall('send_message', {...})]"))
    calls = list(calls)
    if not calls:
        raise CheckFailed(bilingual("the script is empty", "脚本是空的"),
                          bilingual("the agent needs at least a search and a send_message",
                                    "agent 至少需要一次检索和一次 send_message"))
    for i, call in enumerate(calls):
        if not isinstance(call, ToolCall):
            raise CheckFailed(bilingual(f"call {i} is {type(call).__name__} {_short(call)}, not a ToolCall",
                                        f"调用 {i} 是 {type(call).__name__} {_short(call)}，不是 ToolCall"),
                              bilingual("build each call with ToolCall(name, {argument: value, ...})",
                                        "每次调用都用 ToolCall(name, {argument: value, ...}) 来构造"))
    return calls


EXERCISE = Exercise(
    grade_id='05-page-fault',
    notebook='05_who_decides',
    answer='page_fault_calls',
    points=3,
    description="the scripted agent pages the evicted fact in from archival memory and answers with a citation",
    references=("memlib.course.checks.nb04_page_fault:reference_page_fault_calls",),
)


@graded(EXERCISE)
def check_page_fault(page_fault_calls: Any) -> None:
    """Check exercise 2b (notebook 05): the calls that answer the scenario's question.

    Accepts the student's function (called with no arguments) or its list of ToolCall.
    Fixed: an archival_memory_search that returns the record, with request_heartbeat=True so
    the next call runs; a send_message whose reply says 'chicken' and cites that record in
    brackets ([arc-000001]). Free: the search words, the reply's wording, how the citation
    is built.
    """
    from memlib.policies import ScriptedPolicyExhausted
    from memlib.citations import CITATION_PATTERN

    calls = _script_of(page_fault_calls)
    passed(bilingual(f"a script of {len(calls)} ToolCall(s)", f"脚本有 {len(calls)} 个 ToolCall"))
    scenario = page_fault_scenario()
    expect(not scenario.fact_in_context, "internal: the scenario's fact should be evicted", "")
    names = [c.name for c in calls]
    try:
        trace = scenario.run(calls)
    except ScriptedPolicyExhausted:
        raise CheckFailed(
            bilingual(f"the script ran out: after its last call ({calls[-1].render()}) the loop asked for another one",
                      f"脚本用完了：最后一次调用（{calls[-1].render()}）之后，循环还要下一次"),
            bilingual("the last call requested a heartbeat (or failed), so the agent expected to continue; end with "
                      "send_message, which ends the step",
                      "最后一次调用请求了心跳（或者失败了），所以 agent 以为还要继续。"
                      "用 send_message 收尾，它会结束这一步"),
        ) from None
    ran = trace.tool_calls
    results = trace.results
    for call, result in zip(ran, results):
        if not result.ok:
            raise CheckFailed(bilingual(f"{call.render()} failed: {result.message}",
                                        f"{call.render()} 失败了：`{result.message}`"),
                              bilingual("fix the call's name or arguments (see TOOL_SCHEMAS for what each tool takes)",
                                        "改正调用的名字或参数（每个工具接受什么参数，见 TOOL_SCHEMAS）"))
    searches = [(c, r) for c, r in zip(ran, results) if c.name == "archival_memory_search"]
    if not searches:
        if "archival_memory_search" in names:
            first = names.index("archival_memory_search")
            raise CheckFailed(
                bilingual(f"your archival_memory_search (call {first}) never ran: the step ended after "
                          f"{ran[-1].render()}",
                          f"你的 archival_memory_search（调用 {first}）根本没有执行：这一步在 "
                          f"{ran[-1].render()} 之后就结束了"),
                bilingual("send_message ends the step, and a call without request_heartbeat=True hands control back "
                          "to the user: put the search first and request a heartbeat on it",
                          "send_message 会结束这一步，不带 request_heartbeat=True 的调用会把控制权交还给用户。"
                          "把检索放在最前面，并让它请求心跳"),
            )
        if "conversation_search" in names:
            raise CheckFailed(
                bilingual("the script searches the conversation, not archival memory", "脚本检索的是对话，不是归档存储"),
                bilingual("the agent archived the fact as a record: use archival_memory_search so the answer can "
                          "cite the record's id",
                          "agent 把这个事实存成了归档记录：用 archival_memory_search，回答才能引用记录的 id"),
            )
        raise CheckFailed(
            bilingual(f"the script never searches archival memory ({', '.join(names)})",
                      f"脚本从没检索归档存储（{', '.join(names)}）"),
            bilingual("the fact was evicted from main context, so the agent must page it in: call "
                      "archival_memory_search before answering",
                      "这个事实已被驱逐出主上下文，agent 必须把它换入：回答之前先调用 archival_memory_search"),
        )
    found = [c for c, r in searches if any(getattr(rec, "id", None) == scenario.record_id for rec in r.records)]
    if not found:
        call, result = searches[0]
        first_line = result.message.splitlines()[0]
        raise CheckFailed(
            bilingual(f"{call.render()} did not return the record with the answer ({first_line})",
                      f"{call.render()} 没有返回含有答案的记录（`{first_line}`）"),
            bilingual("search is by words (stemmed, but no synonyms: allergy and allergic stay apart): use words "
                      "the stored fact contains, "
                      "such as the dog's name and what the fact is about",
                      "检索按词匹配（会提取词干，但不认同义词：allergy 和 allergic 对不上）。"
                      "用存下的事实里有的词，比如狗的名字和事实说的是什么"),
        )
    passed(bilingual(f"{found[0].render()} pages in {scenario.record_id}",
                     f"{found[0].render()} 把 {scenario.record_id} 换入了"))
    if "send_message" not in [c.name for c in ran]:
        last_call, last_result = ran[-1], results[-1]
        if "send_message" in names and not last_result.heartbeat:
            raise CheckFailed(
                bilingual(f"{last_call.render()} did not request a heartbeat, so the loop stopped there and your "
                          "send_message never ran",
                          f"{last_call.render()} 没有请求心跳，循环就停在了那里，你的 send_message 根本没有执行"),
                bilingual("add 'request_heartbeat': True to the search's arguments: that is how a tool call asks "
                          "to get control back and chain the next call",
                          "在检索的参数里加上 'request_heartbeat': True。工具调用就是这样要回控制权、接着发出下一次调用的"),
            )
        raise CheckFailed(bilingual("the step ended without send_message: the user never got an answer",
                                    "这一步没有 send_message 就结束了：用户没有得到回答"),
                          bilingual("finish the script with ToolCall('send_message', {'message': ...})",
                                    "脚本最后加上 ToolCall('send_message', {'message': ...})"))
    reply = trace.reply or ""
    expect(scenario.answer in reply.lower(),
           bilingual(f"the reply does not say what Biscuit must avoid: {_short(reply, 100)}",
                     f"回复没有说 Biscuit 不能吃什么：{_short(reply, 100)}"),
           bilingual("answer the question with what the archival record says", "用归档记录里的内容回答这个问题"))
    text = reply.lower()
    says_avoid = re.search(r"allerg|avoid|must not|mustn't|never|can ?not eat|can't eat|no chicken|keep .* away", text)
    says_safe = re.search(r"not allergic|isn't allergic|no allerg|can eat|is (?:fine|safe|ok)|safe to eat", text)
    expect(says_avoid and not says_safe,
           bilingual(f"the reply names chicken but does not say Biscuit must avoid it, as the record does: "
                     f"{_short(reply, 100)}",
                     f"回复提到了 chicken，却没有像记录那样说 Biscuit 不能吃它：{_short(reply, 100)}"),
           bilingual("an answer must agree with the record it cites ('Biscuit is allergic to chicken')",
                     "回答必须和它引用的记录一致（'Biscuit is allergic to chicken'）"))
    cited = CITATION_PATTERN.findall(reply)
    bare_ids = re.findall(r"arc-\d{6}", reply)
    if not cited:
        hint = bilingual("write the citation in brackets, e.g. '[arc-000001]', or build it with "
                         "Citation.from_record(record).format()",
                         "把引用写在方括号里，例如 '[arc-000001]'，或者用 Citation.from_record(record).format() 生成")
        if bare_ids:
            raise CheckFailed(bilingual(f"the reply names {bare_ids[0]} but not as a citation: {_short(reply, 100)}",
                                        f"回复提到了 {bare_ids[0]}，但没有写成引用：{_short(reply, 100)}"), hint)
        raise CheckFailed(bilingual(f"the reply has no citation: {_short(reply, 100)}",
                                    f"回复没有引用：{_short(reply, 100)}"),
                          bilingual("say where the answer came from: add the record id found by the search, ",
                                    "说明答案从哪里来：加上检索找到的记录 id。") + hint)
    unknown = [i for i in cited if i not in scenario.memory.archival]
    expect(not unknown, bilingual(f"the reply cites {unknown[0] if unknown else ''}, which is not in archival memory",
                                  f"回复引用了 {unknown[0] if unknown else ''}，可归档存储里没有它"),
           bilingual("cite the id the search returned", "引用检索返回的那个 id"))
    expect(scenario.record_id in cited,
           bilingual(f"the reply cites {', '.join(cited)}, not the record that holds the answer ({scenario.record_id})",
                     f"回复引用的是 {', '.join(cited)}，不是含有答案的那条记录（{scenario.record_id}）"),
           bilingual("cite the record the answer comes from", "引用答案所出自的那条记录"))
    extra = sorted(set(cited) - {scenario.record_id})
    expect(not extra, bilingual(f"the reply also cites {', '.join(extra)}, which says nothing about Biscuit's food",
                                f"回复还引用了 {', '.join(extra)}，它和 Biscuit 的食物毫无关系"),
           bilingual("cite only the record the answer comes from, not every record you have seen",
                     "只引用答案所出自的记录，不要把见过的记录都列上"))
    passed(bilingual(f"the reply answers and cites {scenario.record_id}: {_short(reply, 100)}",
                     f"回复回答了问题，并引用了 {scenario.record_id}：{_short(reply, 100)}"))
