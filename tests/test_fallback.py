"""memlib.course.fallback: cells after an unsolved exercise use the reference, with a note; notebook 00's
environment check."""

from memlib.course.fallback import answer_status, environment_report, use_or_reference


def stub(*args, **kwargs):
    raise NotImplementedError("Exercise 9: do the thing")


def test_use_or_reference(capsys):
    assert use_or_reference(stub, len, "exercise 9", "len", probe=lambda f: f()) is len
    assert "exercise 9 not solved yet: showing len" in capsys.readouterr().out
    mine = lambda: 1  # noqa: E731
    assert use_or_reference(mine, len, "exercise 9", probe=lambda f: f()) is mine
    assert "Using your answer to exercise 9" in capsys.readouterr().out
    assert use_or_reference(None, len, "exercise 9") is len


def test_environment_report_names_what_is_missing():
    report = environment_report()
    assert report.ok, report.render()
    fake = environment_report(importer=lambda name: (name != "rank_bm25", f"checked {name}"))
    assert not fake.ok and fake.missing == ["rank_bm25"]
    text = fake.render()
    assert "MISSING  rank_bm25" in text and "pip install rank-bm25" in text
    assert "missing: rank_bm25" in text


def test_fallback_names_a_crashing_answer_as_crashed(capsys):
    def stub():
        raise NotImplementedError("Exercise 9: do it")

    def crashing():
        return 1 // 0

    assert answer_status(stub, lambda f: f())[0] == "unsolved"
    status, error = answer_status(crashing, lambda f: f())
    assert status == "crashed" and isinstance(error, ZeroDivisionError)
    assert use_or_reference(crashing, len, "exercise 9", "len", probe=lambda f: f()) is len
    out = capsys.readouterr().out
    assert "exercise 9 crashed (ZeroDivisionError" in out and "not solved" not in out


def test_a_chinese_notebook_hears_the_fallback_in_chinese(capsys):
    from memlib.course.lang import use_language

    def crashing():
        return 1 // 0

    use_language("zh")
    try:
        use_or_reference(stub, len, "exercise 9", "len", probe=lambda f: f())
        use_or_reference(crashing, len, "exercise 9", "len", probe=lambda f: f())
        use_or_reference(lambda: 1, len, "exercise 9", probe=lambda f: f())
    finally:
        use_language("en")
    unsolved, crashed, yours = capsys.readouterr().out.splitlines()
    assert unsolved.startswith("练习 9 还没有解出") and "len" in unsolved
    assert "ZeroDivisionError" in crashed and crashed.startswith("你对练习 9 的答案出错了")
    assert yours == "下面用的是你对练习 9 的答案。"
