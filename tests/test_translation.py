"""The Chinese core track: catalogues read and written, stale translations found, checks and grader in Chinese."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import nbformat
import pytest

from conftest import NOTEBOOKS, ROOT, SOLUTIONS
from memlib.course import lang, translation
from memlib.course.release import TAG_COLAB_BADGE, _read_solution, graded_cells
from memlib.course.translation import check_translations, release_translations
from memlib.course.translation import CatalogueError, Entry

CATALOGUES = ROOT / "i18n" / "zh"
#: The core track: every notebook of it is translated.
CORE = ("00_welcome", "01_context_window", "02_eviction_summaries", "03_archival_bm25", "04_memory_tools",
        "06_citations", "07_memory_poisoning", "08_typed_core_memory")


@pytest.fixture(autouse=True)
def _english_by_default(monkeypatch):
    monkeypatch.delenv(lang.LANGUAGE_ENV, raising=False)
    monkeypatch.setattr(lang, "_chosen", {})


def test_a_catalogue_reads_back_what_was_written(tmp_path: Path) -> None:
    entries = [
        Entry("a-1", 'one "quoted" line\\ with a backslash', "一行“引号”\\ 反斜杠", where="x.ipynb"),
        Entry("a-2", "two\nlines\n\n\ttabbed", "两\n行\n\n\t缩进", where="x.ipynb"),
        Entry("a-3", "untranslated", "", where="x.ipynb"),
        Entry("a-4", "new English", "旧译文", fuzzy=True, previous="old English\nline", where="x.ipynb"),
    ]
    path = tmp_path / "x.po"
    assert translation.write_catalogue(path, entries, "zh")
    assert not translation.write_catalogue(path, entries, "zh")  # unchanged: not rewritten
    assert translation.read_catalogue(path) == entries


@pytest.mark.parametrize("text, error", [
    ('msgctxt "a"\nmsgid "x"\n', "has no msgstr"),
    ('msgctxt "a"\nmsgid "x"\nmsgstr "y"\nbogus\n', "line 4: cannot read 'bogus'"),
    ('msgctxt "a"\nmsgid "x\\q"\nmsgstr "y"\n', "line 2: unknown escape"),
    ('msgid "x"\nmsgstr "y"\n', "has no msgctxt"),
    ('msgctxt "a"\nmsgid "x"\nmsgstr "y"\n\nmsgctxt "a"\nmsgid "z"\nmsgstr "w"\n', "cell 'a' has two entries"),
    ('msgctxt "a"\nmsgid x\nmsgstr "y"\n', "line 2: expected a quoted string"),
])
def test_a_broken_catalogue_is_refused_with_its_line(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "broken.po"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(CatalogueError, match=re.escape(error)):
        translation.read_catalogue(path)


def _copy_course(tmp_path: Path, stem: str) -> tuple[Path, Path]:
    """A course folder with one solution and its Chinese catalogue, as in the repository."""
    (tmp_path / "solutions").mkdir()
    (tmp_path / "i18n" / "zh").mkdir(parents=True)
    shutil.copy(SOLUTIONS / f"{stem}.ipynb", tmp_path / "solutions")
    shutil.copy(CATALOGUES / f"{stem}.po", tmp_path / "i18n" / "zh")
    return tmp_path / "solutions", tmp_path / "i18n" / "zh"


def _change_markdown(path: Path, cell_id: str, new_source: str) -> None:
    nb = json.loads(path.read_text(encoding="utf-8"))
    (cell,) = [c for c in nb["cells"] if c.get("id") == cell_id]
    cell["source"] = new_source
    path.write_text(json.dumps(nb, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


def test_a_changed_english_cell_makes_its_translation_stale_until_it_is_updated(tmp_path: Path) -> None:
    stem = "03_archival_bm25"
    solutions, catalogues = _copy_course(tmp_path, stem)
    notebook, po = solutions / f"{stem}.ipynb", catalogues / f"{stem}.po"
    cell_id = translation.english_entries(_read_solution(notebook), notebook.name)[2].cell_id
    assert translation.problems(_read_solution(notebook), notebook.name, translation.read_catalogue(po)) == []

    _change_markdown(notebook, cell_id, "An English paragraph the translator has not seen.")
    found = translation.problems(_read_solution(notebook), notebook.name, translation.read_catalogue(po))
    assert found == [f"{notebook.name}, cell {cell_id}: stale, the English changed since it was translated; "
                     "run the extract command and update the translation"]
    released, issues = release_translations(solutions, tmp_path / "notebooks")
    assert issues == found
    zh = json.loads((tmp_path / "notebooks" / "zh" / notebook.name).read_text(encoding="utf-8"))
    (cell,) = [c for c in zh["cells"] if c["id"] == cell_id]
    assert "".join(cell["source"]) == "An English paragraph the translator has not seen."  # English, never a guess

    # the extract keeps the old translation, marked fuzzy with the English it was made from: still a problem
    assert translation.main(["extract", str(solutions), str(catalogues)]) == 0
    (entry,) = [e for e in translation.read_catalogue(po) if e.cell_id == cell_id]
    assert entry.fuzzy and entry.translation and entry.previous and entry.english.startswith("An English")
    found = translation.problems(_read_solution(notebook), notebook.name, translation.read_catalogue(po))
    assert found == [f"{notebook.name}, cell {cell_id}: marked fuzzy; check the translation and remove '#, fuzzy'"]

    # the translator updates it: current again
    entries = [e if e.cell_id != cell_id else Entry(e.cell_id, e.english, "译者没见过的一段英文。", where=e.where)
               for e in translation.read_catalogue(po)]
    translation.write_catalogue(po, entries, "zh")
    assert translation.problems(_read_solution(notebook), notebook.name, translation.read_catalogue(po)) == []


def test_extract_adds_new_cells_and_drops_removed_ones(tmp_path: Path) -> None:
    stem = "03_archival_bm25"
    solutions, catalogues = _copy_course(tmp_path, stem)
    notebook = solutions / f"{stem}.ipynb"
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    removed = next(c for c in nb["cells"] if c["cell_type"] == "markdown" and c["id"].endswith("-title"))
    nb["cells"].remove(removed)
    nb["cells"].append({"cell_type": "markdown", "id": "03-new", "metadata": {}, "source": "A new cell."})
    notebook.write_text(json.dumps(nb, indent=1) + "\n", encoding="utf-8")
    translation.extract(solutions, catalogues)
    entries = {e.cell_id: e for e in translation.read_catalogue(catalogues / f"{stem}.po")}
    assert removed["id"] not in entries
    assert entries["03-new"] == Entry("03-new", "A new cell.", "", where=notebook.name)


def test_extract_refuses_bad_input(tmp_path: Path, capsys) -> None:
    (tmp_path / "solutions").mkdir()
    (tmp_path / "xx").mkdir()
    assert translation.main(["extract", str(tmp_path / "solutions"), str(tmp_path / "xx")]) == 2
    assert "language 'xx' is not one the course speaks" in capsys.readouterr().err
    (tmp_path / "zh").mkdir()
    assert translation.main(["extract", str(tmp_path / "solutions"), str(tmp_path / "zh"), "--new", "99_none"]) == 2
    assert "no solution notebook" in capsys.readouterr().err


@pytest.mark.parametrize("stem", CORE)
def test_every_core_notebook_is_translated_and_current(stem: str) -> None:
    """Fails, naming the cell, as soon as an English markdown cell of the core track changes."""
    path = CATALOGUES / f"{stem}.po"
    assert path.exists(), f"the core notebook {stem} has no catalogue {path}"
    found = translation.problems(_read_solution(SOLUTIONS / f"{stem}.ipynb"), f"{stem}.ipynb",
                                 translation.read_catalogue(path))
    assert found == []


def test_the_chinese_release_is_current() -> None:
    assert check_translations(SOLUTIONS, NOTEBOOKS) == []


@pytest.mark.parametrize("stem", CORE)
def test_a_chinese_notebook_runs_the_same_code_and_speaks_chinese(stem: str) -> None:
    english = nbformat.read(NOTEBOOKS / f"{stem}.ipynb", as_version=4)
    chinese = nbformat.read(NOTEBOOKS / "zh" / f"{stem}.ipynb", as_version=4)
    assert chinese.metadata["memlib"] == {**english.metadata["memlib"], "language": "zh"}
    assert [c.id for c in chinese.cells] == [c.id for c in english.cells]
    for en_cell, zh_cell in zip(english.cells, chinese.cells):
        assert en_cell.cell_type == zh_cell.cell_type
        if en_cell.cell_type == "code" and "colab-setup" not in en_cell.metadata.get("tags", []):
            assert zh_cell.source == en_cell.source
            assert zh_cell.metadata == en_cell.metadata
    setup = next(c for c in chinese.cells if "colab-setup" in c.metadata.get("tags", []))
    assert setup.source.endswith('use_language("zh")') or setup.source.endswith("use_language('zh')")
    assert [g.checksum for g in graded_cells(chinese)] == [g.checksum for g in graded_cells(english)]
    han = sum(len(re.findall(r"[\u4e00-\u9fff]", c.source)) for c in chinese.cells if c.cell_type == "markdown")
    assert han > 300, f"{stem}: only {han} Chinese characters in its markdown"


def test_language_errors_and_defaults(monkeypatch) -> None:
    assert lang.language() == "en"
    with pytest.raises(ValueError, match="language 'fr' is not one the course speaks; use one of en, zh"):
        lang.use_language("fr")
    monkeypatch.setenv(lang.LANGUAGE_ENV, "zh")
    assert lang.language() == "zh"
    monkeypatch.setenv(lang.LANGUAGE_ENV, "klingon")
    assert lang.language() == "en"  # an environment the course does not speak is ignored
    assert lang.notebook_language({"metadata": {}}) == "en"
    assert lang.notebook_language({"metadata": {"memlib": {"language": "zh"}}}) == "zh"
    with pytest.raises(ValueError, match="language 'de'"):
        lang.notebook_language({"metadata": {"memlib": {"language": "de"}}})
    from memlib.course.grading.check import submission_language

    assert submission_language({"metadata": {"memlib": {"language": "de"}}}) == "en"
    assert submission_language({"metadata": {"memlib": {"language": ["zh"]}}}) == "en"


def test_a_real_check_speaks_chinese_when_asked(capsys) -> None:
    from memlib.course.checking import CheckFailed, strict_checks
    from memlib.course.checks import check_bm25  # the real check of notebook 03

    strict_checks()

    def not_solved(*args, **kwargs):
        raise NotImplementedError("Exercise 2: return one BM25 okapi score per document")

    for code, framing in (("en", "not solved yet: Exercise 2"), ("zh", "还没有作答：Exercise 2")):
        lang.use_language(code)
        with pytest.raises(CheckFailed) as failure:
            check_bm25(not_solved)
        assert failure.value.what.startswith(framing)
        assert failure.value.short_lines()[-1].startswith("Hint: " if code == "en" else "提示：")
    from memlib.course.fallback import environment_report

    assert environment_report().render().splitlines()[-1] == "课程需要的东西都已就绪"


#: The vocabulary of the two Chinese documents the course was commissioned from (the lesson
#: 《Agent 记忆——虚拟上下文与记忆分页》 and the reading card on the MemGPT paper), as they write it.
SEED_TERMS = (
    "虚拟上下文", "虚拟上下文管理", "记忆分页", "换页", "虚拟内存", "上下文窗口", "主上下文", "外部上下文", "外部存储",
    "换入", "换出", "缺页", "中断", "心跳", "系统调用", "函数调用", "控制流", "agent 控制循环", "记忆工具",
    "驱逐", "压实", "摘要器", "递归摘要", "召回存储", "归档存储", "长期存储", "核心记忆", "三级",
    "溢出", "稀释", "持久化", "记忆腐烂", "记忆投毒", "引用", "来源引用", "整合", "守卫",
    "工作记忆", "情景记忆", "语义记忆", "程序性记忆",
)
#: Terms a Chinese notebook glosses with the English where its body first uses them.
GLOSSED = ("主上下文", "外部上下文", "外部存储", "换入", "换出", "缺页", "中断", "心跳", "递归摘要", "召回存储",
           "归档存储", "核心记忆", "驱逐", "刷出", "压实", "虚拟上下文", "上下文窗口", "记忆投毒", "守卫", "整合",
           "来源信息", "记忆工具", "记忆块", "溢出", "稀释", "持久化")


def _glossary() -> dict[str, str]:
    """Chinese term -> its English, from the glossary's table (a row may give several terms, split by '/')."""
    rows = [line.split("|")[1:3] for line in (CATALOGUES / "glossary.md").read_text(encoding="utf-8").splitlines()
            if line.startswith("| ") and not line.startswith("| 中文")]
    assert rows, "the glossary has no table"
    return {term.strip(): english.strip() for chinese, english in rows for term in chinese.split("/")}


def test_the_glossary_covers_every_term_of_the_seeds_with_its_english() -> None:
    glossary = _glossary()
    assert [term for term in SEED_TERMS if term not in glossary] == []
    assert all(re.search(r"[a-z]", english) for english in glossary.values())
    assert [term for term in GLOSSED if term not in glossary] == []


def _body(nb) -> str:
    """The prose of a notebook after its title cell: headings, the glance box and link texts left out."""
    markdown = [c.source for c in nb.cells if c.cell_type == "markdown"][1:]
    lines = [line for line in "\n".join(markdown).splitlines() if not line.lstrip().startswith(("#", ">"))]
    return re.sub(r"\[[^\]]*\]\([^)]*\)", "", "\n".join(lines))


@pytest.mark.parametrize("stem", CORE)
def test_each_term_first_used_in_a_chinese_notebook_gives_its_english(stem: str) -> None:
    glossary = _glossary()
    body = _body(nbformat.read(NOTEBOOKS / "zh" / f"{stem}.ipynb", as_version=4))
    bare = []
    for term in GLOSSED:
        at = body.find(term)
        if at < 0:
            continue
        # the gloss may follow a compound the term starts (记忆工具调用（memory tool call）)
        gloss = re.match(r"[\u4e00-\u9fff]{0,2}\**（([^）]*)）", body[at + len(term):])
        english = [part.strip() for part in re.split(r"[/()]", glossary[term].lower()) if part.strip()]
        if not gloss or not any(part in gloss.group(1).lower() for part in english):
            bare.append(f"{term}: ...{body[max(0, at - 15):at + len(term) + 15]}...")
    assert bare == []


def test_every_link_of_a_chinese_notebook_leads_to_a_file() -> None:
    for path in sorted((NOTEBOOKS / "zh").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            for target in re.findall(r"\]\(([^)\s]+)\)", cell.source):
                if target.startswith("http"):
                    continue
                assert (path.parent / target.split("#")[0]).resolve().exists(), f"{path.name}: {target}"



def test_the_release_command_writes_and_checks_the_translations(tmp_path: Path, capsys) -> None:
    from memlib.__main__ import main

    assert main(["release", str(SOLUTIONS), str(NOTEBOOKS), "--check"]) == 0
    assert "notebooks/<language>/ is current" in capsys.readouterr().out

    stem = "03_archival_bm25"
    solutions, catalogues = _copy_course(tmp_path, stem)
    notebooks = tmp_path / "notebooks"
    assert main(["release", str(solutions), str(notebooks)]) == 0
    assert (notebooks / f"{stem}.ipynb").exists() and (notebooks / "zh" / f"{stem}.ipynb").exists()
    assert main(["release", str(solutions), str(notebooks), "--check"]) == 0
    capsys.readouterr()

    cell_id = translation.english_entries(_read_solution(solutions / f"{stem}.ipynb"), "x")[0].cell_id
    _change_markdown(solutions / f"{stem}.ipynb", cell_id, "# 03 · A new title")
    assert main(["release", str(solutions), str(notebooks), "--check"]) == 1
    assert f"{stem}.ipynb, cell {cell_id}: stale" in capsys.readouterr().out
    assert main(["release", str(solutions), str(notebooks)]) == 0
    assert f"warning: released in English: {stem}.ipynb, cell {cell_id}: stale" in capsys.readouterr().err
    assert main(["release", str(solutions), str(notebooks), "--check"]) == 1  # stale until translated

    (catalogues / f"{stem}.po").write_text('msgctxt "x"\nmsgid "y"\n', encoding="utf-8")
    assert main(["release", str(solutions), str(notebooks)]) == 2
    err = capsys.readouterr().err
    assert "release failed:" in err and "has no msgstr" in err


@pytest.mark.grading
@pytest.mark.slow
def test_a_chinese_submission_gets_the_points_of_its_english_twin_and_chinese_feedback(tmp_path: Path) -> None:
    """Four students hand in notebook 03: English and Chinese, solved and unsolved; same points, each in its language."""
    from memlib.course import grade as grading

    stem = "03_archival_bm25"
    solved_zh = translation.solved_notebook(_read_solution(SOLUTIONS / f"{stem}.ipynb"),
                                               translation.read_catalogue(CATALOGUES / f"{stem}.po"), "zh")
    for student, source in (("en-blank", NOTEBOOKS / f"{stem}.ipynb"), ("zh-blank", NOTEBOOKS / "zh" / f"{stem}.ipynb"),
                            ("en-solved", SOLUTIONS / f"{stem}.ipynb")):
        (tmp_path / student).mkdir()
        shutil.copy(source, tmp_path / student / f"{stem}.ipynb")
    (tmp_path / "zh-solved").mkdir()
    nbformat.write(nbformat.from_dict(solved_zh), str(tmp_path / "zh-solved" / f"{stem}.ipynb"))
    students = ["en-blank", "zh-blank", "en-solved", "zh-solved"]
    report = grading.grade([tmp_path / s for s in students], NOTEBOOKS, jobs=2, assignments=["03"], timeout=300)
    rows = {(r.student, r.grade_id): r for r in report.rows}
    ids = [g.grade_id for a in grading.load_release(NOTEBOOKS, ["03"]) for g in a.graded]
    assert ids
    for grade_id in ids:
        for language in ("en", "zh"):
            assert rows[(f"{language}-solved", grade_id)].status == "passed"
            assert rows[(f"{language}-solved", grade_id)].points == rows[(f"{language}-solved", grade_id)].max_points
            assert (rows[(f"{language}-blank", grade_id)].status, rows[(f"{language}-blank", grade_id)].points) == (
                "failed", 0)
        assert rows[("en-blank", grade_id)].reason.startswith("not solved yet: Exercise 2")
        assert rows[("zh-blank", grade_id)].reason.startswith("还没有作答：Exercise 2")
    assert [r.language for r in sorted(report.results, key=lambda r: students.index(r.student))] == [
        "en", "zh", "en", "zh"]

    feedback = {path.stem: path.read_text(encoding="utf-8") for path in report.write_feedback(tmp_path / "feedback")}
    assert feedback["zh-blank"].startswith("# zh-blank 的反馈\n\n总分：0 / ")
    assert "提示：把 `raise NotImplementedError(...)` 这一行换成你的解答" in feedback["zh-blank"]
    assert "：未通过（0 / " in feedback["zh-blank"]
    assert feedback["en-blank"].startswith("# Feedback for en-blank\n\nTotal: 0 / ")
    assert "Hint: replace the `raise NotImplementedError(...)` line" in feedback["en-blank"]
    assert "：通过（" in feedback["zh-solved"] and ": passed (" in feedback["en-solved"]


def test_readme_zh_opens_every_chinese_notebook_on_colab_and_binder() -> None:
    from memlib.course import config

    readme = (ROOT / "README_zh.md").read_text(encoding="utf-8")
    for stem in CORE:
        relative = f"notebooks/zh/{stem}.ipynb"
        assert f"]({relative})" in readme and config.colab_url(relative) in readme, relative
    assert config.binder_url("notebooks/zh/00_welcome.ipynb") in readme
    assert "](i18n/zh/glossary.md)" in readme and "](README_zh.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_readme_zh_states_the_minutes_the_notebooks_state() -> None:
    from memlib.course.syllabus import read_course

    readme = (ROOT / "README_zh.md").read_text(encoding="utf-8")
    core = [info for info in read_course(SOLUTIONS) if info.core]
    stated = dict(re.findall(r"^\| \d\d \| \[[^\]]+\]\(notebooks/zh/([^)]+)\) \| (\d+) \|", readme, re.M))
    assert stated == {info.filename: str(info.minutes) for info in core}
    total = sum(info.minutes for info in core)
    assert f"## 核心路线：约 {round(total / 30) // 2} 小时（{total} 分钟）" in readme


def test_notebook_01s_check_names_each_mistake_in_chinese() -> None:
    """Exercise 0's check, the first to speak Chinese in full: every mistake it knows, and the case, in Chinese."""
    from memlib.course.checking import CheckFailed, strict_checks
    from memlib.course.checks import check_token_budget
    from memlib.course.checks import nb01_token_budget as nb01

    strict_checks()
    assert nb01.BUDGET_MISTAKES_ZH.keys() == nb01.BUDGET_MISTAKES.keys()
    assert {case[0] for case in nb01._budget_cases()} == nb01.CASE_LABELS_ZH.keys()
    lang.use_language("zh")
    for kind, (what, hint) in nb01.BUDGET_MISTAKES_ZH.items():
        with pytest.raises(CheckFailed) as failure:
            check_token_budget(nb01._budget_variant(kind))
        assert failure.value.what.startswith(f"{what}：在") and failure.value.hint == hint, kind
        assert not re.search(r"[A-Za-z]{4,} [A-Za-z]{4,} [A-Za-z]{4,}", failure.value.what), failure.value.what
    with pytest.raises(CheckFailed) as failure:
        check_token_budget(lambda m, w, s="", r=0: list(m))
    assert "how_many_fit 返回了 list" in failure.value.what and "返回放得下的消息条数" in failure.value.hint
    lang.use_language("en")
    with pytest.raises(CheckFailed) as failure:
        check_token_budget(nb01._budget_variant("skip"))
    assert failure.value.what.startswith(nb01.BUDGET_MISTAKES["skip"][0] + ": for ")


def test_the_chinese_token_example_in_01_is_what_the_tokenizer_counts() -> None:
    from memlib.tokens import count

    chinese, english = "上下文窗口就是记忆。", "The context window is memory."
    text = (NOTEBOOKS / "zh" / "01_context_window.ipynb").read_text(encoding="utf-8")
    assert f"“{chinese}”这 {len(chinese)} 个字符要 {count(chinese)} 个 token" in text
    assert f"“{english}” 只要 {count(english)} 个" in text


def test_notebook_03s_check_names_each_mistake_in_chinese() -> None:
    """Exercise 2's check: every BM25 mistake it knows, with the case and the document, in Chinese."""
    import functools

    from memlib.course.checking import CheckFailed, strict_checks
    from memlib.course.checks import check_bm25
    from memlib.course.checks import nb03_bm25 as nb03

    strict_checks()
    assert nb03.BM25_MISTAKES_ZH.keys() == nb03.BM25_MISTAKES.keys()
    assert {c.label for c in nb03._bm25_cases()[:8]} == nb03.CASE_LABELS_ZH.keys()
    lang.use_language("zh")
    for name, (options, _, _) in nb03.BM25_MISTAKES.items():
        what, hint = nb03.BM25_MISTAKES_ZH[name]
        with pytest.raises(CheckFailed) as failure:
            check_bm25(functools.partial(nb03._bm25_variant, **options))
        assert failure.value.what.startswith(f"{what}：在“") and failure.value.hint == hint, name
        assert re.search(r"排第 \d+ 名，应为第 \d+ 名|得分 -?\d", failure.value.what), failure.value.what
    with pytest.raises(CheckFailed) as failure:
        check_bm25(lambda q, d, k1=1.5, b=0.75, epsilon=0.25: [0.0])
    assert "篇文档返回了 1 个分数" in failure.value.what


# -- the quizzes and the widgets of the core track, in Chinese --------------------------------

#: The core notebooks' quizzes (every core notebook ends with one).
CORE_QUIZZES = tuple(stem[:2] for stem in CORE)


@pytest.fixture
def checkout_data(monkeypatch):
    """memlib.quiz reads the quizzes of this checkout (an editable install may point memlib.data elsewhere)."""
    import memlib.quiz

    def read_text(relative_path: str) -> str:
        path = ROOT / "data" / relative_path
        if not path.is_file():
            raise FileNotFoundError(relative_path)
        return path.read_text(encoding="utf-8")

    monkeypatch.setattr(memlib.quiz, "read_text", read_text)


@pytest.mark.parametrize("notebook", CORE_QUIZZES)
def test_each_core_quiz_is_translated_question_by_question(notebook: str) -> None:
    from test_checks_zh import english_sentences

    english = json.loads((ROOT / "data" / "quizzes" / f"{notebook}.json").read_text(encoding="utf-8"))
    chinese = json.loads((ROOT / "data" / "quizzes" / "zh" / f"{notebook}.json").read_text(encoding="utf-8"))
    assert chinese["notebook"] == notebook and re.search(r"[\u4e00-\u9fff]", chinese["title"])
    assert len(chinese["questions"]) == len(english["questions"])
    for en, zh in zip(english["questions"], chinese["questions"]):
        assert zh["en"] == en["question"], f"{notebook}: stale translation of {en['question']!r}"
        assert len(zh["options"]) == len(en["options"]) and len(set(zh["options"])) == len(zh["options"])
        assert [bool(f) for f in zh.get("feedback", [])] == [bool(f) for f in en.get("feedback", [])]
        texts = [zh["question"], zh["explanation"], *zh.get("feedback", [])]
        assert all(re.search(r"[\u4e00-\u9fff]", t) for t in texts if t), zh["question"]
        assert [t for t in texts + zh["options"] if english_sentences(t)] == [], zh["question"]


@pytest.mark.parametrize("notebook", CORE_QUIZZES)
def test_a_chinese_quiz_gives_the_verdicts_of_its_english_twin(notebook: str, checkout_data) -> None:
    from memlib.quiz import REVEAL_AFTER, load_quiz

    english = load_quiz(notebook)
    lang.use_language("zh")
    chinese = load_quiz(notebook)
    assert re.search(r"[\u4e00-\u9fff]", chinese.title)
    for number, (en, zh) in enumerate(zip(english.questions, chinese.questions), start=1):
        assert zh.answer == en.answer and zh.question != en.question
        for choice in range(len(en.options)):
            for tries in range(REVEAL_AFTER + 1):
                lang.use_language("en")
                said_en = en.check(choice, tries)
                lang.use_language("zh")
                said_zh = zh.check(choice, tries)
                assert said_zh.correct == said_en.correct and said_zh.choice == said_en.choice
                assert re.search(r"[\u4e00-\u9fff]", said_zh.text) and " 。" not in said_zh.text
    assert chinese.text().endswith('用 quiz.answer(<题号>, "<字母>") 作答，例如 quiz.answer(1, "b")。')
    assert chinese.questions[0].check(None).text.startswith("先从选项")


def test_a_stale_chinese_question_is_shown_in_english(checkout_data) -> None:
    from memlib.quiz import in_chinese, read_text

    raw = json.loads(read_text("quizzes/03.json"))
    raw["questions"][1]["question"] = "A question the translator has not seen?"
    shown = in_chinese(raw, "03")
    assert shown["questions"][1] == raw["questions"][1]
    assert shown["questions"][0]["question"].startswith("为什么") and shown["questions"][0]["answer"] == \
        raw["questions"][0]["answer"]
    assert in_chinese(raw, "09") == raw  # no Chinese quiz for a notebook outside the core track: English


def test_the_labels_of_widgets_and_quizzes_have_both_languages() -> None:
    import string

    from memlib.labels import LABELS

    fields = lambda text: sorted(f for _, f, _, _ in string.Formatter().parse(text) if f)  # noqa: E731
    for key, (english, chinese) in LABELS.items():
        assert english.strip() and re.search(r"[\u4e00-\u9fff]", chinese), key
        assert fields(english) == fields(chinese), key
        if not key.startswith("quiz_"):  # the quiz escapes its text; the widgets put theirs into HTML as it is
            assert not re.search(r"[<>&]", english + chinese), key


def test_the_explorers_label_their_controls_in_chinese() -> None:
    from memlib.agent import Agent, RulePolicy
    from memlib.tools import MemorySystem
    from memlib.viz import ContextStepper, RetrievalExplorer, TraceViewer

    messages = [("user", f"fact {i}: it rained on day {i}") for i in range(40)]
    shown = {}
    for code in ("en", "zh"):
        lang.use_language(code)
        stepper = ContextStepper(messages, window=300)
        stepper.step(30)
        viewer = TraceViewer(Agent(RulePolicy(), MemorySystem.create(window=800)).step("My name is Ada."))
        viewer.goto(1)
        explorer = RetrievalExplorer(["Ines prefers window seats", "the dentist is on 12 May"], query="seats")
        shown[code] = (stepper._step_button.description, stepper._slider.description, stepper._status.value,
                       stepper.events_html(), viewer._next_button.description, viewer._header.value,
                       viewer.render_html(), explorer._text.description, explorer.render_html())
    assert shown["en"][0] == "step ▶" and shown["en"][4] == "next frame ▶" and shown["en"][7] == "query"
    assert "messages in context" in shown["en"][2] and "frame 1/" in shown["en"][5]
    assert shown["zh"][0] == "下一步 ▶" and shown["zh"][4] == "下一帧 ▶" and shown["zh"][7] == "查询"
    assert "上下文里有" in shown["zh"][2] and "第 1/" in shown["zh"][5] and "工具调用 1/" in shown["zh"][6]
    assert "来源信息" in shown["zh"][8] and "provenance" not in shown["zh"][8]
