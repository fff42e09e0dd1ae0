"""Notebook 04's check, exercise L: the agent loop written from the agent's parts.

The student subclasses `memlib.agent.Agent` and writes ``step``: ask the
policy, dispatch its call, splice the call and its result into main context,
and go on while heartbeats are asked for, up to ``max_heartbeats``. The check
plays short scenarios with a `memlib.course.doubles.ProbePolicy` (a script that can
also crash or return garbage, and that notes what each view showed) on the
student's class and on memlib's own `Agent`, and compares what they did: the
(call, result) pairs in order, the calls the policy saw, the "heartbeat"
events and the one at the cap, main context after the step, and the other
events of the trace. Every failure names the scenario and what the loop did
instead.

It grades behaviour through the agent's public parts, never code: the free
parts (how the loop is written, the heartbeat events' wording apart from the
word "cap", whether `calls` is a list or a tuple) are never looked at.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from memlib.course.checking import CheckFailed, graded, is_class, judge_parts, passed
from memlib.course.checks._common import _call, _short, ordinal
from memlib.course.exercise import Exercise
from memlib.course.lang import bilingual

__all__ = ["check_loop", "loop_scenarios", "LoopScenario"]

# A clock that never moves: the scenario's memory crosses to a grader's kernel with
# its time frozen (memlib.course.wire), so both loops stamp the same times.
_NOW = datetime(2026, 3, 2, 9, 0)

_FACTS = ("Biscuit is allergic to chicken.", "The vet is Dr Okafor on Otley Road.",
          "Ada's swimming lesson is at 5:15 at Scott Hall.")
_FILLER = ("Log {i}: reviewed the Doncaster feed backlog, batch {i} of the Heron migration, "
           "nothing unusual in the scans.")


#: What a group of scenarios shows when all of them pass (the check prints one line per group).
_GROUPS = {
    "ends": "send_message, and a call without request_heartbeat, end the step",
    "heartbeats": "heartbeats chain the calls, one 'heartbeat' event each, up to the cap (0, 1, 2, 5), "
                  "which ends the step with a 'cap' event",
    "failures": "failed calls and a malformed output get a heartbeat; a policy that crashes ends the step",
    "memory": "a memory-pressure alert and a flush during the step land in main context and the trace",
}

#: The same lines in Chinese.
_GROUPS_ZH = {
    "ends": "send_message 和不带 request_heartbeat 的调用都会结束这一步",
    "heartbeats": "心跳把调用串成调用链，每次一个 'heartbeat' 事件，直到硬上限（0、1、2、5）；"
                  "到了上限就结束这一步，并记一个 'cap' 事件",
    "failures": "失败的调用和格式不对的输出都会得到一次心跳；决策器崩溃时这一步结束",
    "memory": "这一步中途出现的记忆压力提醒和刷出，都进了主上下文和 trace",
}

#: What each scenario tests, in Chinese (scenario name -> text).
_WHAT_ZH = {
    "reply": "send_message 结束这一步",
    "no_heartbeat": "不带 request_heartbeat 的调用结束这一步",
    "chain": "连续三次心跳，然后回复",
    "exactly_at_cap": "max_heartbeats=2 时两次心跳，然后回复",
    "cap_0": "max_heartbeats=0：第一次调用就请求心跳",
    "cap_1": "max_heartbeats=1：每次调用都请求心跳",
    "cap_5": "max_heartbeats=5：每次调用都请求心跳",
    "failed_calls": "未知工具和错误参数都会失败，失败的调用请求心跳",
    "failed_at_cap": "max_heartbeats=1，每次调用都失败",
    "malformed": "决策器返回文本而不是工具调用：算作失败的调用",
    "crash_first": "决策器第一轮就抛出异常：ask 返回 None",
    "crash_later": "决策器在一次心跳之后抛出异常：ask 返回 None",
    "pressure": "这一步中途主上下文变满：出现记忆压力提醒",
    "flush": "这一步中途主上下文溢出：发生刷出",
}


def _frozen_clock() -> datetime:
    return _NOW


@dataclass(frozen=True)
class LoopScenario:
    """One step to play: the probe's script, the cap, and the memory it starts from.

    `filler` user/assistant exchanges fill main context of `window` tokens first
    (to reach memory pressure or a flush during the step); `what` says in a
    failure what the scenario tests.
    """

    name: str
    what: str
    script: tuple
    group: str  # a key of _GROUPS: what a passing run of the group's scenarios shows
    max_heartbeats: int = 5
    window: int = 2048
    filler: int = 0
    user_text: str = "Which food must Biscuit avoid?"

    def memory(self) -> Any:
        """A fresh, deterministic memory: three archived facts and `filler` exchanges in main context."""
        from memlib.messages import Message
        from memlib.tools import MemorySystem

        memory = MemorySystem.create(window=self.window, clock=_frozen_clock, session_id="s1")
        for fact in _FACTS:
            memory.archival.insert(fact)
        for i in range(1, self.filler + 1):
            memory.append_message(Message.user(_FILLER.format(i=i)))
            memory.append_message(Message.assistant(f"Noted, log {i}."))
        return memory

    def probe(self) -> Any:
        from memlib.course.doubles import ProbePolicy

        return ProbePolicy(self.script)


def _search(query: str, heartbeat: bool = True) -> Any:
    from memlib.agent import ToolCall

    return ToolCall("archival_memory_search", {"query": query, "request_heartbeat": heartbeat})


def _reply(text: str) -> Any:
    from memlib.agent import ToolCall

    return ToolCall("send_message", {"message": text})


def loop_scenarios() -> list[LoopScenario]:
    """The scenarios the check plays, simplest first."""
    from memlib.agent import ToolCall
    from memlib.course.doubles import ProbePolicy

    insert = ToolCall("archival_memory_insert", {"content": "The user asked about Biscuit's food.",
                                                 "request_heartbeat": True})
    note = ToolCall("core_memory_append", {"label": "human", "content": "Has a dog, Biscuit.",
                                           "request_heartbeat": True})
    long_note = ToolCall("archival_memory_insert", {"content": "Biscuit's diet: " + "no chicken, " * 60,
                                                    "request_heartbeat": True})
    answer = _reply("Biscuit must avoid chicken: he is allergic to it.")
    extra = _reply("(this call should never run)")
    return [
        LoopScenario("reply", "send_message ends the step", (answer, _search("vet"), extra), "ends"),
        LoopScenario("no_heartbeat", "a call without request_heartbeat ends the step",
                     (_search("Biscuit", heartbeat=False), answer, extra), "ends"),
        LoopScenario("chain", "a chain of three heartbeats, then the reply",
                     (insert, _search("Biscuit allergic"), note, answer, extra), "heartbeats"),
        LoopScenario("exactly_at_cap", "two heartbeats with max_heartbeats=2, then the reply",
                     (_search("Biscuit"), _search("chicken"), answer, extra), "heartbeats", max_heartbeats=2),
        LoopScenario("cap_0", "max_heartbeats=0: the first call asks for a heartbeat",
                     (_search("Biscuit"), answer, extra), "heartbeats", max_heartbeats=0),
        LoopScenario("cap_1", "max_heartbeats=1: every call asks for a heartbeat",
                     (_search("Biscuit"), _search("chicken"), answer, extra), "heartbeats", max_heartbeats=1),
        LoopScenario("cap_5", "max_heartbeats=5: every call asks for a heartbeat",
                     tuple(_search(word) for word in ("Biscuit", "chicken", "vet", "Ada", "swimming", "Okafor"))
                     + (answer, extra), "heartbeats", max_heartbeats=5),
        LoopScenario("failed_calls", "an unknown tool and bad arguments fail, and a failed call asks for a heartbeat",
                     (ToolCall("archival_memory_delete", {"id": "arc-000001"}),
                      ToolCall("archival_memory_search", {"q": "Biscuit"}), answer, extra), "failures"),
        LoopScenario("failed_at_cap", "max_heartbeats=1 and every call fails",
                     (ToolCall("archival_memory_delete", {"id": "arc-000001"}),
                      ToolCall("archival_memory_delete", {"id": "arc-000002"}), answer, extra), "failures",
                     max_heartbeats=1),
        LoopScenario("malformed", "the policy returns text, no tool call: a failed call",
                     (ProbePolicy.MALFORMED, answer, extra), "failures"),
        LoopScenario("crash_first", "the policy raises on its first turn: ask returns None",
                     (ProbePolicy.RAISE, answer, extra), "failures"),
        LoopScenario("crash_later", "the policy raises after a heartbeat: ask returns None",
                     (_search("Biscuit"), ProbePolicy.RAISE, answer, extra), "failures"),
        LoopScenario("pressure", "main context fills up during the step: a memory-pressure alert",
                     (long_note, _search("Biscuit allergic"), answer, extra), "memory", window=900, filler=8),
        LoopScenario("flush", "main context overflows during the step: a flush",
                     (long_note, long_note, _search("Biscuit allergic"), answer, extra), "memory", window=900,
                     filler=8),
    ]


# -- playing a loop -------------------------------------------------------------------


@dataclass
class _Played:
    """What one agent class did on one scenario (read through the agent's public attributes)."""

    events: list  # the step's TraceEvents
    context: list  # main context's messages after the step, as comparable tuples
    summary: str
    seen: list  # the probe's turns: (names of calls so far, calls_left, alerts)
    ran_out: bool = False  # the loop asked the probe for more than its script holds

    @property
    def pairs(self) -> list:
        calls = [e.call for e in self.events if e.kind == "tool_call"]
        results = [e.result for e in self.events if e.kind == "tool_result"]
        return list(zip(calls, results))

    @property
    def heartbeats(self) -> list[str]:
        return [str(e.detail) for e in self.events if e.kind == "heartbeat"]


def _message_key(message: Any) -> tuple:
    return (message.role, message.content, message.name, message.tool_call_id, message.arguments, message.thought)


def _play(agent_class: Callable, scenario: LoopScenario, *, student: bool) -> _Played:
    """Run `scenario`'s step with a fresh agent of `agent_class`; what it did."""
    from memlib.agent import TraceEvent

    where = bilingual(f"scenario {scenario.name!r}", f"场景 {scenario.name!r}")
    args = (scenario.probe(), scenario.memory())
    options = {"max_heartbeats": scenario.max_heartbeats}
    agent = _call(agent_class, args, options, where=bilingual(f"making MyAgent, {where}", f"创建 MyAgent，{where}")
                  ) if student else agent_class(*args, **options)
    trace, ran_out = _call(_run_step, (agent, scenario.user_text), where=where)
    if ran_out:
        traces = list(agent.traces)
        if not traces:
            raise CheckFailed(bilingual(f"{where}: the policy was asked before the user's message entered main context",
                                        f"{where}：用户消息还没进主上下文，就去问了决策器"),
                              bilingual("start the step with trace = self.begin(user_text)",
                                        "这一步要从 trace = self.begin(user_text) 开始"))
        trace = traces[-1]
    events = _events_of(trace, where)
    if not all(type(e) is TraceEvent for e in events):
        raise CheckFailed(bilingual(f"{where}: the trace holds something that is not an event",
                                    f"{where}：trace 里有不是事件的东西"),
                          bilingual("note heartbeats with trace.add('heartbeat', detail)",
                                    "用 trace.add('heartbeat', detail) 记下心跳"))
    context = agent.memory.context
    return _Played(events, [_message_key(m) for m in context.messages], context.summary,
                   list(agent.policy.seen), ran_out)


def _run_step(agent: Any, user_text: str) -> tuple[Any, bool]:
    """(the step's trace, False), or (None, True) when the loop asked the probe past its script."""
    from memlib.agent import PolicyStopped

    try:
        return agent.step(user_text), False
    except PolicyStopped:
        return None, True


def _events_of(trace: Any, where: str) -> list:
    events = getattr(trace, "events", None) if trace is not None else None
    if type(events) is not list:
        raise CheckFailed(bilingual(f"{where}: step returned {_short(trace)}, not the step's Trace",
                                    f"{where}：step 返回了 {_short(trace)}，而不是这一步的 Trace"),
                          bilingual("return the trace that self.begin(user_text) made",
                                    "返回 self.begin(user_text) 创建的那个 trace"))
    return events


# -- comparing with memlib's loop ----------------------------------------------------------


def _capped(played: _Played) -> bool:
    return bool(played.heartbeats) and "cap" in played.heartbeats[-1].lower()


def _compare_pairs(mine: _Played, ref: _Played, scenario: LoopScenario, where: str) -> None:
    n = scenario.max_heartbeats
    got, want = mine.pairs, ref.pairs
    if len(mine.seen) > len(got) and not mine.ran_out:
        raise CheckFailed(
            bilingual(f"{where}: the policy chose {len(mine.seen)} call(s) but the trace shows {len(got)}",
                      f"{where}：决策器选了 {len(mine.seen)} 次调用，trace 里却只有 {len(got)} 次"),
            bilingual("splice each call and its result: self.splice(call, result, trace)",
                      "把每次调用和它的结果拼回去：self.splice(call, result, trace)"))
    if len(got) > len(mine.seen):
        raise CheckFailed(
            bilingual(f"{where}: the trace shows {len(got)} calls but the policy chose {len(mine.seen)}",
                      f"{where}：trace 里有 {len(got)} 次调用，决策器却只选了 {len(mine.seen)} 次"),
            bilingual("splice each call and its result once", "每次调用和它的结果只拼回一次"))
    for i, (g, w) in enumerate(zip(got, want)):
        if g[0] != w[0]:
            raise CheckFailed(bilingual(
                f"{where}: call {i + 1} in the trace is {g[0].render(60)}, expected {w[0].render(60)}",
                f"{where}：trace 里第 {i + 1} 次调用是 {g[0].render(60)}，应为 {w[0].render(60)}"),
                bilingual("splice the call that self.ask returned, once", "拼回的是 self.ask 返回的那次调用，只拼一次"))
        if g[1] != w[1]:
            raise CheckFailed(
                bilingual(f"{where}: {g[0].render(60)} got {g[1].status}: {_short(g[1].message, 80)}, expected "
                          f"{w[1].status}: {_short(w[1].message, 80)}",
                          f"{where}：{g[0].render(60)} 得到 {g[1].status}：{_short(g[1].message, 80)}，应为 "
                          f"{w[1].status}：{_short(w[1].message, 80)}"),
                bilingual("run the call once with dispatch(call.name, call.arguments, self.memory) and splice that "
                          "result",
                          "用 dispatch(call.name, call.arguments, self.memory) 把这次调用执行一次，再把这个结果拼回去"))
    if len(got) == len(want) and not mine.ran_out:
        return
    if len(got) < len(want) and not mine.ran_out:
        if not got:
            raise CheckFailed(bilingual(f"{where}: the step made no call", f"{where}：这一步一次调用也没有"),
                              bilingual("ask the policy, dispatch its call and splice it",
                                        "问决策器，分发它选的调用，再拼回去"))
        call, result = got[-1]
        if not result.ok:
            raise CheckFailed(
                bilingual(f"{where}: the step stopped after a failed call ({call.render(60)}): a failed call asks "
                          "for a heartbeat",
                          f"{where}：这一步在失败的调用（{call.render(60)}）之后停了，可是失败的调用会请求心跳"),
                bilingual("go on while result.heartbeat is True (dispatch sets it on every Failed result)",
                          "只要 result.heartbeat 为 True 就继续（dispatch 给每个 Failed 结果都设了它）"))
        raise CheckFailed(
            bilingual(f"{where}: the step stopped after {len(got)} call(s) with max_heartbeats={n}, although "
                      f"{call.render(60)} asked for a heartbeat: the cap allows 1 + {n}",
                      f"{where}：max_heartbeats={n} 时，这一步在 {len(got)} 次调用后就停了，"
                      f"可是 {call.render(60)} 请求了心跳。硬上限允许 1 + {n} 次"),
            bilingual("go on while result.heartbeat is True, until max_heartbeats heartbeats have been taken",
                      "只要 result.heartbeat 为 True 就继续，直到用完 max_heartbeats 次心跳"))
    # the loop went further than memlib's
    asked = len(mine.seen) + (1 if mine.ran_out else 0)
    last_call, last_result = want[-1]
    if last_call.name == "policy_error":
        raise CheckFailed(
            bilingual(f"{where}: the step went on after the policy crashed (ask returned None): the policy was asked "
                      f"{asked} times",
                      f"{where}：决策器崩溃（ask 返回 None）之后，这一步还在继续，决策器一共被问了 {asked} 次"),
            bilingual("when ask returns None, end the step at once", "ask 返回 None 时，立刻结束这一步"))
    if _capped(ref):
        raise CheckFailed(
            bilingual(f"{where}: the step ran {asked} calls with max_heartbeats={n}: the cap allows 1 + {n}",
                      f"{where}：max_heartbeats={n} 时，这一步执行了 {asked} 次调用，硬上限只允许 1 + {n} 次"),
            bilingual("count the heartbeats; after max_heartbeats of them, end the step even if the result asks for "
                      "another",
                      "数着心跳：用完 max_heartbeats 次之后，哪怕结果还请求心跳，也要结束这一步"))
    what = "send_message" if last_call.name == "send_message" else last_call.render(60)
    raise CheckFailed(
        bilingual(f"{where}: the step went on after {what}, whose result asked for no heartbeat (the policy was asked "
                  f"{asked} times, expected {len(want)})",
                  f"{where}：{what} 的结果没有请求心跳，这一步却还在继续（决策器被问了 {asked} 次，应为 {len(want)} 次）"),
        bilingual("end the step when result.heartbeat is False", "result.heartbeat 为 False 时结束这一步"))


def _compare_seen(mine: _Played, ref: _Played, where: str) -> None:
    for turn, (g, w) in enumerate(zip(mine.seen, ref.seen), start=1):
        if g[0] != w[0]:
            raise CheckFailed(
                bilingual(f"{where}: the policy saw {len(g[0])} earlier call(s) on its {ordinal(turn)} turn, expected "
                          f"{len(w[0])} ({', '.join(w[0]) or 'none'}): pass `calls`",
                          f"{where}：决策器在第 {turn} 轮看到 {len(g[0])} 次之前的调用，应为 {len(w[0])} 次"
                          f"（{', '.join(w[0]) or '无'}）。要传入 `calls`"),
                bilingual("pass self.ask(trace, calls) this step's (call, result) pairs so far, oldest first",
                          "调用 self.ask(trace, calls) 时，传入这一步到目前为止的 (call, result) 对，从旧到新"))
        if g != w:
            raise CheckFailed(bilingual(f"{where}: on its {ordinal(turn)} turn the policy saw {g}, expected {w}",
                                        f"{where}：决策器在第 {turn} 轮看到的是 {g}，应为 {w}"),
                              bilingual("ask the policy with self.ask(trace, calls)", "用 self.ask(trace, calls) 问决策器"))


def _compare_heartbeats(mine: _Played, ref: _Played, scenario: LoopScenario, where: str) -> None:
    n = scenario.max_heartbeats
    got, want = mine.heartbeats, ref.heartbeats
    capped = _capped(ref)
    taken = len(want) - capped
    expected = bilingual(f"{taken} heartbeat(s)" + (" and one at the cap" if capped else ""),
                         f"{taken} 次心跳" + ("，外加到达上限时的一个" if capped else ""))
    if len(got) != len(want):
        if capped and len(got) == taken:
            raise CheckFailed(
                bilingual(f"{where}: the step ended at the cap (max_heartbeats={n}) without a 'heartbeat' event "
                          "saying so",
                          f"{where}：这一步在硬上限（max_heartbeats={n}）处结束，却没有记一个 'heartbeat' 事件说明"),
                bilingual("when the cap ends the step, add trace.add('heartbeat', detail) with the word 'cap' in the "
                          "detail",
                          "硬上限结束这一步时，调用 trace.add('heartbeat', detail)，detail 里要有 'cap' 这个词"))
        raise CheckFailed(
            bilingual(f"{where}: the step added {len(got)} 'heartbeat' event(s), expected {len(want)} ({expected})",
                      f"{where}：这一步记了 {len(got)} 个 'heartbeat' 事件，应为 {len(want)} 个（{expected}）"),
            bilingual("add one 'heartbeat' event before the policy runs again"
                      + ("; and one whose detail says 'cap' when the cap ends the step" if capped else
                         "; this step never reaches the cap"),
                      "决策器每次再运行之前，记一个 'heartbeat' 事件"
                      + ("；硬上限结束这一步时，再记一个 detail 里有 'cap' 的" if capped else
                         "；这一步不会碰到硬上限")))
    if capped and "cap" not in got[-1].lower():
        raise CheckFailed(
            bilingual(f"{where}: the step ended at the cap, but its last 'heartbeat' event says {got[-1]!r}",
                      f"{where}：这一步在硬上限处结束，但最后一个 'heartbeat' 事件写的是 {got[-1]!r}"),
            bilingual("the event added at the cap must contain the word 'cap' in its detail",
                      "到达上限时记的那个事件，detail 里必须有 'cap' 这个词"))


def _compare_context(mine: _Played, ref: _Played, where: str) -> None:
    if mine.context == ref.context and mine.summary == ref.summary:
        return
    only = bilingual("the step changes main context only through begin, ask and splice, once per call",
                     "这一步只通过 begin、ask 和 splice 改动主上下文，每次调用一次")
    for i, (g, w) in enumerate(zip(mine.context, ref.context)):
        if g != w:
            raise CheckFailed(
                bilingual(f"{where}: main context after the step differs at message {i + 1}: {g[0]} "
                          f"{_short(g[1], 60)}, expected {w[0]} {_short(w[1], 60)}",
                          f"{where}：这一步之后，主上下文的第 {i + 1} 条消息不同：{g[0]} {_short(g[1], 60)}，"
                          f"应为 {w[0]} {_short(w[1], 60)}"), only)
    if len(mine.context) != len(ref.context):
        raise CheckFailed(
            bilingual(f"{where}: main context holds {len(mine.context)} messages after the step, expected "
                      f"{len(ref.context)}",
                      f"{where}：这一步之后，主上下文有 {len(mine.context)} 条消息，应为 {len(ref.context)} 条"), only)
    raise CheckFailed(bilingual(f"{where}: the summary in main context differs: {_short(mine.summary, 80)}",
                                f"{where}：主上下文里的摘要不同：{_short(mine.summary, 80)}"),
                      bilingual("the step changes main context only through begin, ask and splice",
                                "这一步只通过 begin、ask 和 splice 改动主上下文"))


def _compare_events(mine: _Played, ref: _Played, where: str) -> None:
    got = [e.kind for e in mine.events if e.kind != "heartbeat"]
    want = [e.kind for e in ref.events if e.kind != "heartbeat"]
    if got != want:
        missing = sorted(set(want) - set(got)) or sorted(set(got) - set(want)) or [bilingual("their order", "顺序")]
        raise CheckFailed(bilingual(f"{where}: the trace's events differ from memlib's loop ({', '.join(missing)}): "
                                    f"{len(got)} events, expected {len(want)}",
                                    f"{where}：trace 里的事件和 memlib 的循环不同（{', '.join(missing)}）："
                                    f"有 {len(got)} 个事件，应为 {len(want)} 个"),
                          bilingual("let begin, ask and splice write the trace; add only the 'heartbeat' events "
                                    "yourself",
                                    "trace 由 begin、ask 和 splice 来写；你自己只加 'heartbeat' 事件"))


# -- the check --------------------------------------------------------------------------


def _agent_class(answer: Any) -> Any:
    if not is_class(answer):
        raise CheckFailed(bilingual(f"expected your agent class, got {type(answer).__name__} {_short(answer)}",
                                    f"这里要的是你的 agent 类，拿到的却是 {type(answer).__name__} {_short(answer)}"),
                          bilingual("pass the class itself: check_loop(MyAgent)", "传类本身：check_loop(MyAgent)"))
    step = getattr(answer, "step", None)
    if step is None:
        raise CheckFailed(bilingual("your class has no step method", "你的类没有 step 方法"),
                          bilingual("define step(self, user_text) in MyAgent", "在 MyAgent 里定义 step(self, user_text)"))
    if getattr(step, "__qualname__", None) == "Agent.step":
        raise CheckFailed(bilingual("MyAgent does not define its own step: it runs memlib's Agent.step",
                                    "MyAgent 没有定义自己的 step，运行的是 memlib 的 Agent.step"),
                          bilingual("write the loop in MyAgent.step(self, user_text)",
                                    "在 MyAgent.step(self, user_text) 里写这个循环"))
    return answer


EXERCISE = Exercise(
    grade_id="04-loop",
    notebook="04_memory_tools",
    answer="MyAgent",
    points=3,
    description="the agent loop: ask, dispatch and splice while heartbeats are asked for, up to the cap",
    references=("memlib.agent:Agent.step",),
    partial_credit=True,
)


@graded(EXERCISE)
def check_loop(agent_class: Any) -> None:
    """Check exercise L: the student's Agent subclass with its own step(user_text).

    Plays each scenario of `loop_scenarios` with MyAgent(policy, memory,
    max_heartbeats=N) and with memlib's Agent, and compares: the (call, result)
    pairs in order, what the policy saw on each turn, the number of
    "heartbeat" events and the one at the cap (its detail contains "cap"),
    main context after the step, and the trace's other events. Fixed: the
    order ask, dispatch, splice; go on while result.heartbeat; one "heartbeat"
    event before the policy runs again; the cap. Free: how the loop is written,
    the heartbeat events' wording (but the word "cap" at the cap), whether
    `calls` is a list or a tuple.
    """
    from memlib.agent import Agent

    cls = _agent_class(agent_class)
    scenarios = loop_scenarios()

    def play(i: int, scenario: Any) -> None:
        where = bilingual(f"scenario {scenario.name!r} ({scenario.what})",
                          f"场景 {scenario.name!r}（{_WHAT_ZH.get(scenario.name, scenario.what)}）")
        ref = _play(Agent, scenario, student=False)
        mine = _play(cls, scenario, student=True)
        _compare_pairs(mine, ref, scenario, where)
        _compare_seen(mine, ref, where)
        _compare_heartbeats(mine, ref, scenario, where)
        _compare_context(mine, ref, where)
        _compare_events(mine, ref, where)
        if i + 1 == len(scenarios) or scenarios[i + 1].group != scenario.group:
            passed(bilingual(_GROUPS[scenario.group], _GROUPS_ZH[scenario.group]))

    # each scenario is a case of the partial-credit tally
    judge_parts([functools.partial(play, i, scenario) for i, scenario in enumerate(scenarios)])
