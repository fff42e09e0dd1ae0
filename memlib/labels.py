"""The words memlib's widgets and the self-check quiz show around the data, in English and in Chinese.

A Chinese notebook calls ``memlib.course.lang.use_language("zh")`` in its setup
cell; from then on the explorers of `memlib.viz.widgets` and the quiz of
`memlib.quiz` label their buttons, sliders, headers and status lines in Chinese.
English is the default and the source of each key. What they show *of* the
course (messages, records, tool calls, event details, scorer names, trust
labels) stays as memlib writes it, in both languages.

Example:
    >>> label("quiz_check")
    'Check'
"""

from __future__ import annotations

from typing import Any

from memlib.course.lang import language

__all__ = ["LABELS", "label", "chinese"]

#: key -> (English, Chinese); ``str.format`` fields in braces. A widget's label is plain text without ``<``,
#: ``>`` or ``&``: the widgets put it into their HTML as it is (tests/test_translation.py holds them to that);
#: the quiz's (``quiz_*``) are escaped where the quiz shows them.
LABELS: dict[str, tuple[str, str]] = {
    # ContextStepper
    "play": ("play", "播放"),
    "turn": ("turn", "轮次"),
    "step": ("step ▶", "下一步 ▶"),
    "step_tip": ("append the next message", "追加下一条消息"),
    "reset": ("reset", "重置"),
    "reset_tip": ("back to the empty context", "回到空的上下文"),
    "summary": ("summary", "摘要"),
    "summary_tokens": ("({tokens} tokens)", "（{tokens} 个 token）"),
    "no_summarizer": ("no summary: this context has no summarizer, so a flush only evicts",
                      "没有摘要：这个上下文没有摘要器，刷出时只驱逐"),
    "no_summary_yet": ("no summary yet: the first flush writes one", "还没有摘要：第一次刷出时才会写"),
    "summary_empty": ("the summary is empty: the summarizer kept nothing of what was evicted",
                      "摘要是空的：被驱逐的内容，摘要器一点也没留下"),
    "older_evicted": ("… {hidden} older evicted messages (still in recall storage)",
                      "… 还有 {hidden} 条更早被驱逐的消息（仍在召回存储里）"),
    "no_messages": ("no messages yet: press step", "还没有消息：按“下一步”"),
    "events_of_turn": ("events of turn {turn}", "第 {turn} 轮的事件"),
    "start_used": ("start: system prompt and core memory take {used} tokens",
                   "开始：系统 prompt 和核心记忆占 {used} 个 token"),
    "stepper_title": ("turn {turn}/{turns}: {used} / {window} tokens ({pressure}){note}",
                      "第 {turn}/{turns} 轮：{used} / {window} 个 token（{pressure}）{note}"),
    "flush_note": (" · flush: oldest messages evicted", " · 刷出：最早的消息被驱逐"),
    "pressure_note": (" · memory pressure warning", " · 记忆压力警告"),
    "stepper_status_one": ("{in_context} messages in context · {evicted} evicted (still in recall storage) · "
                           "{flushes} flush so far",
                           "上下文里有 {in_context} 条消息 · 已驱逐 {evicted} 条（仍在召回存储里）· 到目前刷出 {flushes} 次"),
    "stepper_status": ("{in_context} messages in context · {evicted} evicted (still in recall storage) · "
                       "{flushes} flushes so far",
                       "上下文里有 {in_context} 条消息 · 已驱逐 {evicted} 条（仍在召回存储里）· 到目前刷出 {flushes} 次"),
    # RetrievalExplorer
    "query": ("query", "查询"),
    "query_placeholder": ("ask something, then press Enter", "输入问题，按回车"),
    "scorer": ("scorer", "打分方法"),
    "examples": ("examples", "示例"),
    "top_title": ("{scorer}: top {n} for {query}", "{scorer}：{query} 的前 {n} 条"),
    "score_axis": ("{scorer} score", "{scorer} 分数"),
    "search_head": ("query {query} · tokens {tokens} · scorer {scorer} · {n} of {total} records",
                    "查询 {query} · token {tokens} · 打分方法 {scorer} · {total} 条记录中的 {n} 条"),
    "no_tokens": ("none", "无"),
    "type_query": ("type a query", "输入查询"),
    "no_match": ("no record shares a word with the query (stopwords are ignored; try other words)",
                 "没有记录和查询共用一个词（停用词不算，换几个词试试）"),
    "col_score": ("score", "分数"),
    "col_record": ("record", "记录"),
    "col_provenance": ("provenance", "来源信息"),
    "col_trust": ("trust", "信任"),
    "session_turn": ("session {session} · turn {turn}", "会话 {session} · 轮次 {turn}"),
    "tags": ("tags: ", "标签："),
    "matched": ("matched: ", "命中："),
    # TraceViewer
    "frame": ("frame", "帧"),
    "back": ("◀ back", "◀ 上一帧"),
    "next_frame": ("next frame ▶", "下一帧 ▶"),
    "next_frame_tip": ("the next tool call, or the next user message", "下一次工具调用，或下一条用户消息"),
    "after_user": ("context after step {step}, the user message", "第 {step} 步用户消息之后的上下文"),
    "after_call": ("context after step {step}, tool call {index}", "第 {step} 步工具调用 {index} 之后的上下文"),
    "bar_tokens": ("{title}: {used} / {window} tokens", "{title}：{used} / {window} 个 token"),
    "no_main_context": ("{title}: this trace recorded no main context", "{title}：这份 trace 没有记录主上下文"),
    "user_arrives": ("the user's message arrives", "用户消息到达"),
    "from_outside": (" (an interrupt from outside)", "（来自外部的中断）"),
    "inner_monologue": ("inner monologue", "内心独白"),
    "tool_call_of": ("tool call {index}/{calls}", "工具调用 {index}/{calls}"),
    "spliced": ("spliced into the prompt", "拼进 prompt 的内容"),
    "then": ("then", "随后"),
    "viewer_step": ("step {step}", "第 {step} 步"),
    "viewer_header": (" ({nth} of {steps}) · frame {frame}/{last} · user: ",
                      "（共 {steps} 步中的第 {nth} 步）· 第 {frame}/{last} 帧 · 用户："),
    # the self-check quiz (memlib.quiz)
    "quiz_check": ("Check", "检查答案"),
    "quiz_pick": ("Pick one of the options ({letters}) first.", "先从选项（{letters}）里选一个。"),
    "quiz_correct": ("Correct.", "答对了。"),
    "quiz_not_quite": ("Not quite.", "不太对。"),
    "quiz_the_answer": ("The answer is {letter}) {option}.", "答案是 {letter}) {option}。"),
    "quiz_again": ("Read the question again and try another option.", "再读一遍题目，换个选项试试。"),
    "quiz_no_answer": ("no answer given", "未作答"),
    "quiz_score": ("{right} of {total} answered correctly", "{total} 题中答对 {right} 题"),
    "quiz_footer": ('Answer with quiz.answer(<question number>, "<letter>"), e.g. quiz.answer(1, "b").',
                    '用 quiz.answer(<题号>, "<字母>") 作答，例如 quiz.answer(1, "b")。'),
}


def chinese() -> bool:
    """True when the course speaks Chinese in this process (`memlib.course.lang.language`)."""
    return language() == "zh"


def label(key: str, **fields: Any) -> str:
    """The label `key` in the language the course speaks, its fields filled in."""
    english, zh = LABELS[key]
    return (zh if chinese() else english).format(**fields)
