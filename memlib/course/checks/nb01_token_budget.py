"""Notebook 01's check: how many of the newest messages fit in the window (the token budget)."""

from __future__ import annotations

from typing import Any, Callable, Sequence

from memlib.course.checking import Cases, CheckFailed, expect, graded, judge_fixed_then_fresh, passed
from memlib.course.lang import bilingual, language
from memlib.course.exercise import Exercise
from memlib.course.checks._common import _as_callable, _call, _short, is_whole_number

__all__ = ["check_token_budget", "reference_how_many_fit", "BUDGET_MISTAKES"]


# ============================================================================
# 01 · token budget: how many of the newest messages fit in the window?
# ============================================================================


def reference_how_many_fit(messages: Sequence[str], window: int, system_prompt: str = "", reserve: int = 0) -> int:
    """How many of the newest `messages` fit next to the system prompt and a reserve.

    The prompt holds count(system_prompt) + reserve + (count(m) + MESSAGE_OVERHEAD)
    for each kept message and must stay <= window. Messages are kept newest
    first and contiguously: the first one that does not fit stops the count.

    Example:
        >>> reference_how_many_fit(["hi", "hello there"], window=20)
        2
    """
    from memlib.context import MESSAGE_OVERHEAD
    from memlib.tokens import count

    used = count(system_prompt) + reserve
    kept = 0
    for text in reversed(list(messages)):
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept


def _budget_variant(kind: str) -> Callable[..., int]:
    """A plausible wrong answer to the token-budget exercise (for diagnosis and tests)."""
    from memlib.context import MESSAGE_OVERHEAD
    from memlib.tokens import count, estimate

    def run(messages, window, system_prompt="", reserve=0):
        counter = estimate if kind == "estimate" else count
        overhead = 0 if kind == "no_overhead" else MESSAGE_OVERHEAD
        used = (0 if kind == "no_system" else counter(system_prompt)) + (0 if kind == "no_reserve" else reserve)
        order = list(messages) if kind == "oldest_first" else list(reversed(list(messages)))
        kept = 0
        for text in order:
            cost = counter(text) + overhead
            fits = used + cost < window if kind == "strict" else used + cost <= window
            if not fits:
                if kind == "skip":
                    continue
                if kind == "inclusive":
                    kept += 1
                break
            used += cost
            kept += 1
        return kept

    run.__name__ = f"how_many_fit_{kind}"
    return run


#: Wrong answers the token-budget check recognises: kind -> (what is wrong, hint).
BUDGET_MISTAKES: dict[str, tuple[str, str]] = {
    "estimate": (
        "your counts match the words x 1.3 estimate, not the tokenizer",
        "count tokens with memlib.tokens.count (tiktoken), not estimate(): the estimate is off by "
        "several tokens per message and the errors add up",
    ),
    "no_overhead": (
        "you leave out the per-message overhead",
        "every message costs count(text) + MESSAGE_OVERHEAD (3) tokens for its role markers "
        "(memlib.context.MESSAGE_OVERHEAD)",
    ),
    "no_system": (
        "you do not count the system prompt",
        "the system prompt is in the window too: start from count(system_prompt)",
    ),
    "no_reserve": (
        "you ignore `reserve`",
        "reserve is room kept free for the model's reply: add it to what is used before counting messages",
    ),
    "strict": (
        "a message that fills the window exactly is not counted (off by one)",
        "the prompt may use the whole window: the test is used <= window, not used < window",
    ),
    "inclusive": (
        "you count the message that no longer fits (off by one)",
        "stop before the message that would push the prompt past the window; do not count it",
    ),
    "oldest_first": (
        "you keep the oldest messages",
        "a context keeps the newest messages: walk the list from the end (reversed(messages))",
    ),
    "skip": (
        "you skip a message that does not fit and keep counting older ones",
        "the kept messages are a contiguous run of the newest ones: stop at the first that does not fit",
    ),
}


#: The same mistakes said in Chinese (a Chinese notebook's check speaks it: memlib.course.lang).
BUDGET_MISTAKES_ZH: dict[str, tuple[str, str]] = {
    "estimate": ("你的计数和“单词数 × 1.3”的估算一致，而不是分词器的结果",
                 "用 memlib.tokens.count（tiktoken）来数 token，不要用 estimate()：估算每条消息都会差几个 token，误差会越积越多"),
    "no_overhead": ("你漏算了每条消息的额外开销",
                    "每条消息要花 count(text) + MESSAGE_OVERHEAD（3）个 token，多出来的是角色标记"
                    "（memlib.context.MESSAGE_OVERHEAD）"),
    "no_system": ("你没有算上系统 prompt", "系统 prompt 也在窗口里：从 count(system_prompt) 开始算"),
    "no_reserve": ("你忽略了 `reserve`", "reserve 是给模型回复预留的空间：数消息之前先把它加进已用的部分"),
    "strict": ("恰好填满窗口的那条消息没有算进去（差了一）", "prompt 可以用满整个窗口：条件是 used <= window，而不是 used < window"),
    "inclusive": ("你把已经放不下的那条消息也算进去了（差了一）", "在会让 prompt 超出窗口的那条消息之前停下，不要算它"),
    "oldest_first": ("你保留的是最早的消息", "上下文保留的是最新的消息：从列表末尾往回走（reversed(messages)）"),
    "skip": ("你跳过了放不下的消息，又接着数更早的", "保留下来的是一段连续的最新消息：遇到第一条放不下的就停"),
}

#: Each budget case's label in Chinese.
CASE_LABELS_ZH = {
    "36 messages of the course chat, a 512-token window": "课程对话里的 36 条消息，512 token 的窗口",
    "the same messages, 128 tokens reserved for the reply": "同样的消息，为回复预留 128 个 token",
    "a 300-token window without a system prompt": "300 token 的窗口，没有系统 prompt",
    "long old messages, short new ones": "旧消息长，新消息短",
    "short old messages, long new ones": "旧消息短，新消息长",
    "no messages at all": "一条消息都没有",
    "a window smaller than the system prompt": "窗口比系统 prompt 还小",
    "a window the newest 5 messages fill exactly": "最新的 5 条消息恰好填满的窗口",
    "a very long message before the 3 newest": "最新的 3 条之前有一条很长的消息",
    "messages full of numbers and ids": "满是数字和编号的消息",
}


def _budget_cases() -> list[tuple[str, list[str], int, str, int]]:
    """(label, messages, window, system_prompt, reserve), built from the course conversation."""
    from memlib import datasets
    from memlib.context import DEFAULT_SYSTEM_PROMPT, MESSAGE_OVERHEAD
    from memlib.tokens import count

    texts = [t.content for t in datasets.load("conversation")]
    chat = texts[4:40]
    short = sorted(texts[:120], key=len)[:12]
    long = sorted(texts[:120], key=len)[-4:]
    system = DEFAULT_SYSTEM_PROMPT
    sys_tokens = count(system)
    cases = [
        ("36 messages of the course chat, a 512-token window", chat, 512, system, 0),
        ("the same messages, 128 tokens reserved for the reply", chat, 512, system, 128),
        ("a 300-token window without a system prompt", chat, 300, "", 0),
        ("long old messages, short new ones", long + short, 200, system, 16),
        ("short old messages, long new ones", short + long, 200, system, 16),
        ("no messages at all", [], 256, system, 0),
        ("a window smaller than the system prompt", chat[:5], max(1, sys_tokens - 5), system, 0),
    ]
    # The newest 5 messages fill the window exactly: they all fit.
    last5 = chat[-5:]
    exact = sys_tokens + 32 + sum(count(m) + MESSAGE_OVERHEAD for m in last5)
    cases.append(("a window the newest 5 messages fill exactly", chat, exact, system, 32))
    # A very long message in the middle: the count stops there.
    wall = " ".join(texts[:60])
    cases.append(("a very long message before the 3 newest", chat[:6] + [wall] + chat[-3:], 400, system, 0))
    # Messages whose words x 1.3 estimate is far from the token count (numbers, names, URLs).
    odd = ["ID 4f9a-22c1-88e0 expires 2026-03-14T09:30Z, ping ops@kestrel.example",
           "Sam's rota: Mon/Tue/Wed 19:00-07:30; Thu off; Fri 19:00-07:30.",
           "brigid1957 is the wifi password (router TP-Link AX1800, 5 GHz band)"] * 4
    cases.append(("messages full of numbers and ids", odd, 180, system, 0))
    return cases


def _fresh_budget_cases(rng) -> list[tuple[str, list[str], int, str, int]]:
    """Six cases drawn for one grading run: runs of the course chat, a system prompt, a reserve, and a window
    that ends a few tokens short of the next older message, so that every term of the count decides the
    answer (a count that leaves out the prompt, the reserve or the overheads keeps one message too many)."""
    from memlib import datasets
    from memlib.context import DEFAULT_SYSTEM_PROMPT, MESSAGE_OVERHEAD
    from memlib.tokens import count

    texts = [t.content for t in datasets.load("conversation")]
    cases = []
    for n in range(6):
        start = rng.randrange(0, len(texts) - 40)
        messages = texts[start:start + rng.randrange(5, 40)]
        system = rng.choice([DEFAULT_SYSTEM_PROMPT, DEFAULT_SYSTEM_PROMPT, "You are a terse assistant."])
        reserve = rng.choice([0, 16, 64, 128])
        kept = rng.randrange(1, len(messages))
        window = (count(system) + reserve + sum(count(t) + MESSAGE_OVERHEAD for t in messages[-kept:])
                  + rng.randrange(1, 4))  # never an exact fit: the fixed cases test that one
        cases.append((f"a case drawn for this grading run ({n + 1} of 6)", messages, window, system, reserve))
    return cases


def _describe_budget_case(label, messages, window, system_prompt, reserve) -> str:
    from memlib.tokens import count

    return bilingual(
        f"{label} (window={window}, system prompt of {count(system_prompt)} tokens, reserve={reserve}, "
        f"{len(messages)} messages)",
        f"{CASE_LABELS_ZH.get(label, label)}（window={window}，系统 prompt 占 {count(system_prompt)} 个 token，"
        f"reserve={reserve}，{len(messages)} 条消息）")


EXERCISE = Exercise(
    grade_id='01-token-budget',
    notebook='01_context_window',
    answer='how_many_fit',
    points=2,
    description="how_many_fit counts the newest messages that fit, with tiktoken and overheads",
    references=("memlib.course.checks.nb01_token_budget:reference_how_many_fit",),
    partial_credit=True,
)


@graded(EXERCISE)
def check_token_budget(how_many_fit: Callable) -> None:
    """Check `how_many_fit(messages, window, system_prompt="", reserve=0) -> int` (notebook 01).

    Fixed: an int; tokens counted with memlib.tokens.count; each message costs
    count(text) + MESSAGE_OVERHEAD; the system prompt and `reserve` are used first; the
    kept messages are the newest, contiguous, and a prompt of exactly `window` tokens fits;
    the list given is not changed. Free: how you loop (reversed, indices, accumulate).
    """
    fn = _as_callable(how_many_fit, "how_many_fit")
    # in the grader's checker, cases no answer can have looked up follow the fixed ones
    fixed = _budget_cases()
    judge_fixed_then_fresh(EXERCISE.grade_id, lambda cases: _judge_budgets(fn, cases, fresh=cases is not fixed),
                           _fresh_budget_cases, fixed)


def _judge_budgets(fn: Callable, cases: list, fresh: bool = False) -> int:
    """Judge `fn` on `cases`: the fixed cases a student's own check shows, or (`fresh`) cases drawn for this grading run.

    Returns how many cases it ran when every count is right; else raises `CheckFailed` (with the tally of
    right counts when every result is a whole number and the messages were left alone)."""
    got: list[Any] = []
    for label, messages, window, system_prompt, reserve in cases:
        given = list(messages)  # the student gets a copy; the case's own list stays as it was
        value = _call(fn, (given, window, system_prompt, reserve),
                      where=f"how_many_fit on {_describe_budget_case(label, messages, window, system_prompt, reserve)}")
        if not is_whole_number(value):
            raise CheckFailed(
                bilingual(f"how_many_fit returned {type(value).__name__} {_short(value)} for {label}",
                          f"在“{CASE_LABELS_ZH.get(label, label)}”上，how_many_fit 返回了 "
                          f"{type(value).__name__} {_short(value)}"),
                bilingual("return the number of messages that fit, a whole number such as an int "
                          "(not the tokens, not the messages, not a float)",
                          "返回放得下的消息条数，一个整数，比如 int（不是 token 数，不是消息本身，也不是 float）"),
            )
        changed = bilingual(f"how_many_fit changed the list of messages it was given ({label})",
                            f"how_many_fit 改动了传给它的消息列表（{CASE_LABELS_ZH.get(label, label)}）")
        expect(given == messages, changed + bilingual(
                   f": {len(messages)} messages before the call, {len(given)} after",
                   f"：调用前 {len(messages)} 条，调用后 {len(given)} 条") if len(given) != len(messages) else changed,
               bilingual("count without removing, reordering or editing messages (reversed(messages) reads "
                         "without changing)",
                         "只数不改：不要删除、重排或编辑消息（reversed(messages) 只读不改）"))
        got.append(value)
    if not fresh:
        passed(bilingual("returns an int and leaves the messages alone", "返回 int，且没有改动消息列表"))
    expected = [reference_how_many_fit(m, w, s, r) for _, m, w, s, r in cases]
    wrong = [i for i, (g, e) in enumerate(zip(got, expected)) if g != e]
    if not wrong:
        passed(bilingual(
            f"right count on all {len(cases)} cases drawn for this grading run" if fresh else
            f"right count on all {len(cases)} budgets (exact fits, reserves, empty lists, a message too big)",
            f"本次评分抽取的 {len(cases)} 个用例全部数对了" if fresh else
            f"全部 {len(cases)} 份预算都数对了（恰好填满、预留、空列表、超大的消息）"))
        return len(cases)
    tally = Cases(len(cases) - len(wrong), len(cases))
    first = wrong[0]
    example = bilingual(f"for {_describe_budget_case(*cases[first])} you return {got[first]}, "
                        f"expected {expected[first]}",
                        f"在{_describe_budget_case(*cases[first])}上，你返回 {got[first]}，应为 {expected[first]}")
    mistakes = BUDGET_MISTAKES_ZH if language() == "zh" else BUDGET_MISTAKES
    for kind, (mistake, hint) in mistakes.items():
        variant = _budget_variant(kind)
        if all(variant(list(m), w, s, r) == g for (_, m, w, s, r), g in zip(cases, got)):
            raise CheckFailed(bilingual(f"{mistake}: {example}", f"{mistake}：{example}"), hint, cases=tally)
    raise CheckFailed(
        bilingual(f"{len(wrong)} of {len(cases)} budgets are wrong: {example}",
                  f"{len(cases)} 份预算里有 {len(wrong)} 份不对：{example}"),
        bilingual("used = count(system_prompt) + reserve, then for each message from the newest: "
                  "used += count(text) + MESSAGE_OVERHEAD; stop at the first that makes used > window",
                  "used = count(system_prompt) + reserve，然后从最新的消息开始，每条 "
                  "used += count(text) + MESSAGE_OVERHEAD；遇到第一条使 used > window 的就停"),
        cases=tally,
    )
