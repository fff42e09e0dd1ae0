"""The language the course speaks at run time: English by default, Simplified Chinese on request.

A Chinese notebook (``notebooks/zh/``) says so in its metadata
(``{"memlib": {"language": "zh"}}``) and its setup cell calls
``use_language("zh")``; the grader reads the metadata of each submission and
tells the checker process. Checks, their framing ("PASS", "Hint") and the
setup check then speak that language. Only the frame and the messages listed
in `MESSAGES` are translated; a check message without a translation stays in
English (`say` falls back, it never fails).

This module does not translate notebooks (that is `memlib.course.translation`).
"""

from __future__ import annotations

import os
from typing import Any, Mapping

__all__ = ["LANGUAGE_ENV", "LANGUAGES", "MESSAGES", "language", "use_language", "notebook_language", "say",
           "bilingual"]

#: Environment variable that sets the language of a process (and the kernels and checkers it starts).
LANGUAGE_ENV = "MEMLIB_LANG"
#: The languages the course speaks; the first is the default.
LANGUAGES = ("en", "zh")

#: key -> language -> text (``str.format`` fields in braces). English is the source of each key.
MESSAGES: dict[str, dict[str, str]] = {
    "pass": {"en": "PASS  {message}", "zh": "通过  {message}"},
    "all_checks": {"en": "all checks for {grade_id}", "zh": "{grade_id} 的检查全部通过"},
    "hint": {"en": "Hint: {hint}", "zh": "提示：{hint}"},
    "check_failed": {"en": "check failed: {what}", "zh": "检查未通过：{what}"},
    "check_id_failed": {"en": "check {grade_id} failed: {what}", "zh": "检查 {grade_id} 未通过：{what}"},
    "keeps_running": {
        "en": "(the notebook keeps running; fix your answer and re-run its cell, then this one)",
        "zh": "（笔记本会继续往下运行；改好答案后，先重新运行答案所在的单元，再运行这一格）",
    },
    "not_solved": {"en": "not solved yet: {stub}", "zh": "还没有作答：{stub}"},
    "not_solved_hint": {
        "en": "replace the `raise NotImplementedError(...)` line with your solution, run that cell, "
              "then run this one again",
        "zh": "把 `raise NotImplementedError(...)` 这一行换成你的解答，运行那个单元，再重新运行这一格",
    },
    "not_solved_help": {
        "en": "; help({name}) says what is fixed and what is free",
        "zh": "；help({name}) 会说明哪些是定死的、哪些可以自由发挥",
    },
    "crashed": {
        "en": "your answer crashed with {detail} (in {where}, line {line}{text})",
        "zh": "你的答案运行出错：{detail}（在 {where} 第 {line} 行{text}）",
    },
    "crashed_hint": {
        "en": "call your code on a small input in a cell of its own to see the full traceback",
        "zh": "另开一个单元，用一个小输入调用你的代码，就能看到完整的报错信息",
    },
    "could_not_run": {
        "en": "the check could not run on your answer: {detail}",
        "zh": "检查没法运行你的答案：{detail}",
    },
    "could_not_run_hint": {
        "en": "is the answer of the kind the exercise asks for (a function, a class, an instance)? "
              "If it is, tell your instructor",
        "zh": "答案是不是练习要求的那种东西（函数、类还是实例）？如果是，请告诉老师",
    },
    # a partly right answer (memlib.course.checking.Cases): in the failure box, then in the grader's feedback
    "cases_right": {"en": "{passed} of {run} cases right (graded with partial credit, about that share of the points)",
                    "zh": "{run} 个用例里对了 {passed} 个（按部分分评分时，大约得这个比例的分）"},
    "fb_partial": {"en": "Partial credit: {passed} of {run} cases right{fresh}, {share:.0%} of the points.",
                   "zh": "部分分：{run} 个用例对了 {passed} 个{fresh}，得 {share:.0%} 的分。"},
    "fb_partial_none": {"en": "No partial credit: {passed} of {run} cases right{fresh}; partial credit needs more "
                              "than half of them right.",
                        "zh": "没有部分分：{run} 个用例对了 {passed} 个{fresh}；对一半以上才有。"},
    "fb_partial_shown": {"en": "No partial credit: every case your own check runs is right, and {fresh_passed} of "
                               "{fresh_run} cases drawn for this grading run are not; an answer right only where "
                               "it was shown earns nothing.",
                         "zh": "没有部分分：你自己运行检查时的用例全对，但本次评分另抽的 {fresh_run} 个用例只对了 "
                               "{fresh_passed} 个；只在见过的用例上对，不给分。"},
    "fb_partial_fresh": {"en": " and {passed} of {run} cases drawn for this grading run (the lower share counts)",
                         "zh": "，本次评分另抽的 {run} 个用例对了 {passed} 个（按两者中较低的比例算）"},
    "is_expected": {"en": "{what} is {actual}, expected {expected}", "zh": "{what} 是 {actual}，应为 {expected}"},
    # what the check prints when the answer calls memlib's reference (memlib.course.checking.reference_note)
    "reference_note": {"en": "NOTE  your answer calls memlib's reference implementation: {names} "
                             "(the gradebook notes it)",
                       "zh": "注意  你的答案调用了 memlib 的参考实现：{names}（成绩簿会记下这一点）"},
    # the cells after an exercise (memlib.course.fallback.use_or_reference)
    "fallback_yours": {"en": "Using your answer to {exercise}.", "zh": "下面用的是你对{exercise} 的答案。"},
    "fallback_crashed": {"en": "your answer to {exercise} crashed ({error}): showing {what}. Its graded cell says "
                               "more; fix it and re-run this cell to see yours.",
                         "zh": "你对{exercise} 的答案出错了（{error}），下面展示的是 {what}。它的评分单元会说得更详细；"
                               "改好后重新运行这个单元，就能看到你自己的结果。"},
    "fallback_unsolved": {"en": "{exercise} not solved yet: showing {what}. Solve it above and re-run this cell "
                                "to see yours.",
                          "zh": "{exercise} 还没有解出，下面展示的是 {what}。在上面解出后重新运行这个单元，"
                                "就能看到你自己的结果。"},
    # the setup check (memlib.course.fallback.environment_report)
    "env_ok": {"en": "ok     ", "zh": "正常   "},
    "env_missing": {"en": "MISSING", "zh": "缺失   "},
    "env_fix": {"en": "fix: {fix}", "zh": "解决办法：{fix}"},
    "env_all_here": {"en": "everything the course needs is here", "zh": "课程需要的东西都已就绪"},
    "env_missing_list": {"en": "missing: {names} (see the fixes above)", "zh": "缺少：{names}（解决办法见上）"},
    "markdown_stub": {"en": "*Your answer here.*", "zh": "*在这里写下你的答案。*"},
    # the grader's feedback file (memlib.course.grading.report)
    "fb_title": {"en": "# Feedback for {student}", "zh": "# {student} 的反馈"},
    "fb_total": {"en": "Total: {got} / {most} points", "zh": "总分：{got} / {most} 分"},
    "fb_assignment": {"en": "## {name}: {got} / {most} points", "zh": "## {name}：{got} / {most} 分"},
    "fb_file": {"en": "Graded file: {file}", "zh": "评分的文件：{file}"},
    "fb_note": {"en": "Note: {note}", "zh": "说明：{note}"},
    "fb_check": {"en": "### {grade_id}: {status} ({got} / {most})", "zh": "### {grade_id}：{status}（{got} / {most}）"},
    "fb_where": {"en": "Where it failed in your code:", "zh": "你的代码在这里出错："},
    "fb_output": {"en": "Output of the check:", "zh": "检查的输出："},
    "fb_others": {"en": "Other cells that raised an error (not graded, but worth fixing):",
                  "zh": "其他报错的单元（不计分，但值得修好）："},
    "fb_more_errors": {"en": "... and {count:,} more cells that raised an error", "zh": "……另有 {count:,} 个单元报错"},
    "status_passed": {"en": "passed", "zh": "通过"},
    "status_failed": {"en": "failed", "zh": "未通过"},
    "status_error": {"en": "error", "zh": "评分出错"},
    "status_missing": {"en": "missing", "zh": "未提交"},
    "status_manual": {"en": "written answer, to be graded by a person", "zh": "书面回答，等待老师评分"},
}

_chosen: dict[str, str] = {}


def _known(code: object) -> str:
    if not isinstance(code, str) or code not in LANGUAGES:
        raise ValueError(f"language {code!r} is not one the course speaks; use one of {', '.join(LANGUAGES)}")
    return code


def language() -> str:
    """The current language: the one `use_language` chose, else ``$MEMLIB_LANG`` if the course speaks it, else English."""
    if "code" in _chosen:
        return _chosen["code"]
    from_env = os.environ.get(LANGUAGE_ENV, "")
    return from_env if from_env in LANGUAGES else LANGUAGES[0]


def use_language(code: str) -> None:
    """Speak `code` from now on in this process (``"en"`` or ``"zh"``; ValueError for any other)."""
    _chosen["code"] = _known(code)


def notebook_language(nb: Mapping[str, Any]) -> str:
    """The language a notebook's metadata declares (``memlib.language``); English when it declares none.

    A declared language the course does not speak is an error, not English: a
    grader must not quietly write feedback in the wrong language.
    """
    meta = nb.get("metadata", {}) if isinstance(nb, Mapping) else {}
    memlib_meta = meta.get("memlib", {}) if isinstance(meta, Mapping) else {}
    if not isinstance(memlib_meta, Mapping) or "language" not in memlib_meta:
        return LANGUAGES[0]
    return _known(memlib_meta["language"])


def say(key: str, code: str | None = None, **fields: Any) -> str:
    """The message `key` in `code` (default: the current language), its fields filled in.

    Example:
        >>> say("hint", "zh", hint="看看 idf")
        '提示：看看 idf'
    """
    texts = MESSAGES[key]
    return texts.get(code or language(), texts["en"]).format(**fields)


def bilingual(en: str, zh: str) -> str:
    """`zh` when the course speaks Chinese, else `en`: a check's own message, written in both beside each other.

    Example:
        >>> bilingual("you skip a message", "你跳过了一条消息") in ("you skip a message", "你跳过了一条消息")
        True
    """
    return zh if language() == "zh" else en
