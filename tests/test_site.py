"""The course site: site/pages.py on small notebooks, and the whole site built by .ci/site in a real browser.

The page-making tests run site/pages.py's functions on notebooks made here: what
a student page keeps, hides and replaces, what the syllabus and a page's header
say, and the errors for wrong input (only the one that starts a kernel is slow).

The browser tests (marked ``browser`` and ``slow``, one xdist group) build the
site once with ``.ci/site`` into a temporary folder, serve it on 127.0.0.1 with
``http.server`` and open the index and every page reached from it in headless
Debian Chromium: no console error or failed request, every internal link
answers 200, every notebook page draws each plotly figure it carries (an svg in
a ``.js-plotly-plot``), and no line from inside a ``### BEGIN SOLUTION`` region
of solutions/ or of their Chinese translations appears in any page's text or
any file of the site. The Chinese pages (zh/, one per i18n/zh catalogue, the
index and the glossary) say ``lang="zh-CN"``, their prose is mostly Han
characters, their sidebar starts with the Chinese track, and each one's switch
leads to its English page and back (clicked). Screenshots of the index, a
notebook page and their Chinese ones (1366x768) land in artifacts/screenshots/
(Chinese text needs a CJK font, e.g. Debian's fonts-wqy-microhei, or it shows boxes).
They skip, saying what to install, without Chromium or Playwright, and fail
instead under CI=true.
"""

from __future__ import annotations

import functools
import html
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
import urllib.error
import urllib.request
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import nbformat
import pytest
from pg_server import skip_or_fail as _skip_or_fail  # the suite's one rule: skip with the reason, fail under CI=true

from browser_support import CHROMIUM, CHROMIUM_ARGS

from memlib.course import config, translation
from memlib.course.release import release_notebook, stub_source
from conftest import ROOT, SOLUTIONS

pytestmark = pytest.mark.maintainer

SOLUTION_FILES = sorted(SOLUTIONS.glob("[0-9]*.ipynb"))
#: The notebooks with a Chinese page (zh/NN_topic.html): those with a translation catalogue.
ZH_STEMS = sorted(path.stem for path in (ROOT / "i18n" / "zh").glob("*.po"))
#: Share of Han characters among the letters of a Chinese page's prose (code, outputs and names left out).
MOSTLY_CHINESE = 0.5
SCREENSHOTS = Path(os.environ.get("MEMLIB_SCREENSHOTS", ROOT / "artifacts" / "screenshots"))
LAPTOP = {"width": 1366, "height": 768}
BUILD_TIMEOUT_S = 1200


def _load_pages():
    # site/ is not a package (and "site" is a standard module's name): load the file itself.
    spec = importlib.util.spec_from_file_location("memlib_site_pages", ROOT / "site" / "pages.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


pages = _load_pages()


# -- site/pages.py on notebooks made here ------------------------------------------------


def _code(source: str, *, tags=(), memlib=None, outputs=(), cell_id=None) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell(source, id=cell_id)
    cell.metadata["tags"] = list(tags)
    if memlib:
        cell.metadata["memlib"] = memlib
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    return cell


def _stream(text: str) -> dict:
    return {"output_type": "stream", "name": "stdout", "text": text}


def _display(data: dict) -> dict:
    return {"output_type": "display_data", "data": data, "metadata": {}}


PLOTLY_FIGURE = {"data": [{"type": "bar", "x": ["a", "b"], "y": [1, 2]}], "layout": {"height": 300}}
ANSWER = "return sorted(scores, key=lambda pair: -pair[1])[:k]"


def executed_notebook(meta: dict | None = None) -> nbformat.NotebookNode:
    """A small executed solution notebook with one of everything a page must handle."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    if meta is not None:
        nb.metadata["memlib"] = meta
    nb.cells = [
        nbformat.v4.new_markdown_cell("# 07 · Ranking things\n\nGoal: rank the scores\nand keep the top k.\n\nMore.",
                                      id="title"),
        nbformat.v4.new_markdown_cell("badge", id="badge"),
        _code("", tags=["colab-setup"], cell_id="setup"),
        _code("print('hello')", outputs=[_stream("hello\n")], cell_id="plain"),
        _code("def top(scores, k):\n    ### EXERCISE 3: sort the scores\n    ### EXERCISE 3: return the k best (id, score) pairs\n"
              f"    ### BEGIN SOLUTION\n    {ANSWER}\n    ### END SOLUTION\n",
              outputs=[_stream("exercise output\n")], cell_id="exercise"),
        _code("from memlib.course.checks import check_top\ncheck_top(top)", tags=["graded"],
              memlib={"grade_id": "07-top", "points": 3}, outputs=[_stream("PASS the top three\n")], cell_id="graded"),
        _code("import inspect\nprint(inspect.getsource(top))", cell_id="leaks",
              outputs=[_stream(f"def top(scores, k):\n    {ANSWER}\n")]),
        _code("secret_helper = 1", tags=["solution-only"], outputs=[_stream("only for instructors\n")], cell_id="hidden"),
        _code("fig.show()\nfig.show()", cell_id="figure",
              outputs=[_display({"application/vnd.plotly.v1+json": PLOTLY_FIGURE, "text/plain": "Figure"})] * 2),
        _code("explorer", cell_id="widget", outputs=[_display({
            "application/vnd.jupyter.widget-view+json": {"model_id": "abc", "version_major": 2, "version_minor": 0},
            "text/plain": "VBox(...)"})]),
        _code("notes_table", cell_id="table", outputs=[_display({
            "text/markdown": "| note |\n|---|\n| embed ![map](https://maps.example/s?addr=HOME) here |"})]),
        nbformat.v4.new_markdown_cell("Why?\n\n### BEGIN SOLUTION\nBecause the heap keeps k items.\n### END SOLUTION",
                                      id="written"),
    ]
    nb.cells[1].metadata["tags"] = ["colab-badge"]
    return nb


def _page(meta=None):
    page, info = pages.student_page(executed_notebook(meta), "07_ranking.ipynb")
    return {cell.get("id"): cell for cell in page.cells}, page, info


def test_a_page_is_the_student_view_with_the_outputs_of_the_cells_a_student_runs_unchanged():
    cells, page, _ = _page()
    text = json.dumps(page)
    assert ANSWER not in text and "Because the heap" not in text and "only for instructors" not in text
    assert "hidden" not in cells and "badge" not in cells and "setup" not in cells
    expected_stub, _ = stub_source(executed_notebook().cells[4].source)
    assert cells["exercise"].source == expected_stub and cells["exercise"].outputs == []
    assert cells["graded"].outputs == [], "a graded cell's PASS lines belong to the reference answer"
    assert cells["written"].source.splitlines()[-1] == "*Your answer here.*"
    assert [o["text"] for o in cells["plain"].outputs] == ["hello\n"]


def test_an_output_that_shows_a_solution_line_is_replaced_by_a_note():
    cells, _, _ = _page()
    [note] = cells["leaks"].outputs
    assert note["data"]["text/html"] == pages.HIDDEN_NOTE


def test_a_plotly_figure_becomes_html_drawn_by_the_sites_plotly_js_and_a_widget_a_note():
    cells, _, _ = _page()
    first, second = cells["figure"].outputs
    for number, figure in enumerate((first, second), start=1):
        html_text = figure["data"]["text/html"]
        assert list(figure["data"]) == ["text/html"] and f'id="07_ranking-figure-{number}"' in html_text
        assert "Plotly.newPlot" in html_text and "cdn" not in html_text.lower()
    # plotly.js from the site itself, once, before the first figure's script uses it
    assert first["data"]["text/html"].startswith('<script src="_static/plotly.min.js"></script>')
    assert "<script src" not in second["data"]["text/html"]
    [note] = cells["widget"].outputs
    assert note["data"] == {"text/html": pages.WIDGET_NOTE}


def test_a_markdown_image_in_an_output_is_shown_as_text_and_never_fetched():
    cells, _, _ = _page()
    [table] = cells["table"].outputs
    assert table["data"]["text/markdown"] == "| note |\n|---|\n| embed !\\[map](https://maps.example/s?addr=HOME) here |"


def test_the_page_starts_with_launch_links_from_the_course_config():
    cells, page, info = _page()
    header = page.cells[1]
    assert page.cells[0].id == "title" and header.cell_type == "markdown"
    assert config.colab_url("notebooks/07_ranking.ipynb") in header.source
    assert config.binder_url("notebooks/07_ranking.ipynb") in header.source
    assert (info.number, info.title, info.goal) == ("07", "Ranking things", "rank the scores and keep the top k.")
    assert info.exercises == [("3", "return the k best (id, score) pairs")] and info.graded == [("07-top", 3.0)]
    assert "Track" not in header.source and "You will be able to" not in header.source


def test_the_notebooks_glance_cell_is_left_out_because_the_header_shows_the_same_metadata():
    nb = executed_notebook({"track": "core", "minutes": 45, "prerequisites": [], "objectives": ["a", "b"]})
    nb.cells.insert(1, nbformat.v4.new_markdown_cell("> **Core track** · about 45 minutes", id="07-00-glance"))
    page, _ = pages.student_page(nb, "07_ranking.ipynb")
    assert "07-00-glance" not in [cell.get("id") for cell in page.cells]
    assert sum("about 45 minutes" in cell.source for cell in page.cells) == 1


def test_syllabus_and_header_show_the_optional_metadata_when_present():
    meta = {"track": "core", "minutes": 45, "prerequisites": ["01_context_window"],
            "objectives": ["rank by score", "keep the top k"]}
    _, page, info = _page(meta)
    header = page.cells[1].source
    for shown in ("**Track:** core", "about 45 minutes", "[01_context_window](01_context_window.ipynb)",
                  "- rank by score", "- keep the top k"):
        assert shown in header
    _, _, plain = _page()
    syllabus = pages.syllabus_markdown([info, plain])
    assert "[Ranking things](07_ranking.ipynb)" in syllabus and "**Exercise 3**: return the k best" in syllabus
    assert "`07-top` (3 points)" in syllabus and "- keep the top k" in syllabus
    assert "*track: core · about 45 minutes*" in syllabus
    assert "before this: [01_context_window](01_context_window.ipynb)" in syllabus
    assert syllabus.count("track:") == 1 and "before this" not in pages.syllabus_markdown([plain])


@pytest.mark.parametrize("meta, complaint", [
    ({"track": ""}, "track must be a non-empty string"),
    ({"minutes": "45"}, "minutes must be a positive whole number"),
    ({"minutes": 0}, "minutes must be a positive whole number"),
    ({"minutes": True}, "minutes must be a positive whole number"),
    ({"prerequisites": "01"}, "prerequisites must be a list of non-empty strings"),
    ({"objectives": ["ok", 3]}, "objectives must be a list of non-empty strings"),
])
def test_wrong_metadata_is_a_clear_error_naming_the_notebook(meta, complaint):
    with pytest.raises(pages.SiteError, match=rf"07_ranking: metadata\.memlib\.{complaint}"):
        _page(meta)


def test_a_notebook_without_title_or_goal_is_a_clear_error():
    nb = executed_notebook()
    nb.cells[0].source = "Just text"
    with pytest.raises(pages.SiteError, match="no markdown cell starts with a '# Title' heading"):
        pages.student_page(nb, "07_ranking.ipynb")
    nb.cells[0].source = "# 07 · Ranking things"
    with pytest.raises(pages.SiteError, match="no paragraph under the heading"):
        pages.student_page(nb, "07_ranking.ipynb")


def test_duplicate_cell_ids_are_a_clear_error_not_outputs_under_the_wrong_cell():
    nb = executed_notebook()
    nb.cells[4].id = "plain"
    with pytest.raises(pages.SiteError, match=r"cell id\(s\) \['plain'\] appear more than once"):
        pages.student_page(nb, "07_ranking.ipynb")


def test_build_sources_refuses_a_folder_that_is_not_empty_and_touches_nothing(tmp_path):
    (tmp_path / "keep.txt").write_text("mine")
    with pytest.raises(pages.SiteError, match="not an empty folder"):
        pages.build_sources(ROOT / "solutions", tmp_path)
    assert [p.name for p in tmp_path.iterdir()] == ["keep.txt"]
    with pytest.raises(pages.SiteError, match="no notebooks in"):
        pages.build_sources(tmp_path / "nothing", tmp_path / "out")


@pytest.mark.slow
def test_a_solution_that_fails_to_run_stops_the_build_naming_the_notebook(tmp_path):
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_markdown_cell("# 01 · Broken\n\nGoal: fail."),
                nbformat.v4.new_code_cell("raise ValueError('the data file is missing')")]
    nbformat.write(nb, str(solutions / "01_broken.ipynb"))
    with pytest.raises(pages.SiteError, match=r"01_broken.ipynb failed to execute:(.|\n)*the data file is missing"):
        pages.build_sources(solutions, tmp_path / "src", jobs=1)
    assert not (tmp_path / "src").exists()


def test_pages_command_says_what_is_wrong(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        pages.main([str(tmp_path / "src"), "--jobs", "0"])
    assert info.value.code == 2 and "--jobs must be at least 1" in capsys.readouterr().err
    assert pages.main([str(tmp_path / "src"), "--solutions", str(tmp_path / "none")]) == 2
    assert f"site: no notebooks in {tmp_path / 'none'}" in capsys.readouterr().err
    assert not (tmp_path / "src").exists()


# -- the Chinese pages -------------------------------------------------------------------


def chinese_notebook() -> nbformat.NotebookNode:
    """`executed_notebook` as its solved translation has it: Chinese markdown, the glance cell, the same code."""
    nb = executed_notebook({"track": "core", "minutes": 45, "prerequisites": ["01_context_window"],
                            "objectives": ["rank by score"], "language": "zh"})
    nb.cells[0].source = "# 07 · 排序\n\n目标：给分数排序，\n留下前 k 个。"
    nb.cells.insert(1, nbformat.v4.new_markdown_cell(
        "> **核心路线** · 约 45 分钟 · [术语表](../../i18n/zh/glossary.md)\n>\n> - 按分数排序", id="07-00-glance"))
    nb.cells.insert(5, nbformat.v4.new_markdown_cell("## 练习 3：排出前 k 个\n\n写出 `top`。", id="ex3-h"))
    nb.cells[-1].source = "为什么？\n\n### BEGIN SOLUTION\n因为堆里只留 k 个。\n### END SOLUTION"
    return nb


def _zh_page():
    page, info = pages.student_page(chinese_notebook(), "07_ranking.ipynb", "zh", "en")
    return {cell.get("id"): cell for cell in page.cells}, page, info


def test_a_chinese_page_keeps_its_glance_cell_links_the_glossary_page_and_answers_in_chinese():
    cells, page, info = _zh_page()
    assert "因为堆里只留 k 个" not in json.dumps(page, ensure_ascii=False) and ANSWER not in json.dumps(page)
    assert "[术语表](glossary.md)" in cells["07-00-glance"].source, "the translated glance says what the header does not"
    assert cells["written"].source.splitlines()[-1] == "*在这里写下你的答案。*"
    assert cells["leaks"].outputs[0]["data"]["text/html"] == pages.WORDS["zh"]["hidden_note"]
    assert cells["widget"].outputs[0]["data"]["text/html"] == pages.WORDS["zh"]["widget_note"]
    # the page sits in zh/: plotly.js is one folder up
    assert cells["figure"].outputs[0]["data"]["text/html"].startswith('<script src="../_static/plotly.min.js"></script>')
    assert (info.language, info.title, info.goal) == ("zh", "排序", "给分数排序， 留下前 k 个。")
    assert info.exercises == [("3", "排出前 k 个")] and info.graded == [("07-top", 3.0)]


def test_a_chinese_page_starts_with_the_switch_to_english_and_launches_the_chinese_notebook():
    _, page, _ = _zh_page()
    header = page.cells[1].source
    assert header.startswith("[English](../07_ranking.ipynb){.memlib-lang-switch} · ")
    assert f"[在 Colab 中打开]({config.colab_url('notebooks/zh/07_ranking.ipynb')})" in header
    assert f"[在 Binder 中启动]({config.binder_url('notebooks/zh/07_ranking.ipynb')})" in header
    assert "Track" not in header and "rank by score" not in header, "the metadata's English stays off a Chinese page"


def test_an_english_page_links_its_translation_only_when_there_is_one():
    with_zh, _ = pages.student_page(executed_notebook(), "07_ranking.ipynb", "en", "zh")
    alone, _ = pages.student_page(executed_notebook(), "07_ranking.ipynb")
    assert with_zh.cells[1].source.startswith("[中文](zh/07_ranking.ipynb){.memlib-lang-switch} · [Open in Colab]")
    assert "memlib-lang-switch" not in json.dumps(alone)


def test_where_a_language_lives_and_its_counterpart_links():
    assert (pages.page_folder("en"), pages.page_folder("zh")) == ("", "zh/")
    assert (pages.notebooks_dir("en"), pages.notebooks_dir("zh")) == ("notebooks", "notebooks/zh")
    assert pages.counterpart("03_archival_bm25", "en", "zh") == "zh/03_archival_bm25.ipynb"
    assert pages.counterpart("03_archival_bm25", "zh", "en") == "../03_archival_bm25.ipynb"
    assert pages.language_switch("03_archival_bm25", "zh", "en") == "[English](../03_archival_bm25.ipynb){.memlib-lang-switch}"


@pytest.mark.parametrize("call, complaint", [
    (lambda: pages.page_folder("fr"), "the site has no pages in 'fr'; it speaks en, zh"),
    (lambda: pages.notebooks_dir("zh-CN"), "the site has no pages in 'zh-CN'"),
    (lambda: pages.counterpart("03_x", "zh", "zh"), "03_x: a page's counterpart is in another language, not 'zh'"),
    (lambda: pages.student_page(executed_notebook(), "07_ranking.ipynb", "de"), "the site has no pages in 'de'"),
    (lambda: pages.syllabus_markdown([_zh_page()[2]]), r"the en syllabus was given pages in another language: \['07_ranking'\]"),
])
def test_a_language_the_site_does_not_have_is_a_clear_error(call, complaint):
    with pytest.raises(pages.SiteError, match=complaint):
        call()


def test_the_chinese_syllabus_is_in_chinese_and_links_the_chinese_pages():
    _, _, info = _zh_page()
    syllabus = pages.syllabus_markdown([info], "zh")
    assert "* - #\n  - 笔记本\n  - 目标\n  - 练习" in syllabus
    for shown in ("[排序](07_ranking.ipynb)", "*约 45 分钟*", "先修：[01_context_window](01_context_window.ipynb)",
                  "- **练习 3**：排出前 k 个", "计分：`07-top`（共 3 分）", ":caption: 笔记本"):
        assert shown in syllabus
    assert "core" not in syllabus and "rank by score" not in syllabus


def test_exercise_headings_are_read_from_the_chinese_markdown_in_order_once_each():
    cells = [nbformat.v4.new_markdown_cell("## 练习\n\n总说明"), nbformat.v4.new_markdown_cell("## 练习 F：刷出"),
             nbformat.v4.new_code_cell("## 练习 9：代码里的不算"),
             nbformat.v4.new_markdown_cell("### 练习 L：循环\n\n再说一遍：\n\n### 练习 F：又一次")]
    assert pages.exercise_headings(cells) == [("F", "刷出"), ("L", "循环")]


def _course_with_catalogue(tmp_path, catalogue: str) -> Path:
    solutions = tmp_path / "solutions"
    solutions.mkdir()
    nbformat.write(executed_notebook(), str(solutions / "07_ranking.ipynb"))
    (tmp_path / "i18n" / "zh").mkdir(parents=True)
    (tmp_path / "i18n" / "zh" / "07_ranking.po").write_text(catalogue, encoding="utf-8")
    return solutions


def test_translated_solutions_are_the_solved_chinese_notebooks_and_a_broken_catalogue_is_a_clear_error(tmp_path):
    from memlib.course import translation

    solutions = _course_with_catalogue(tmp_path, "")
    entries = [translation.Entry("title", executed_notebook().cells[0].source, "# 07 · 排序\n\n目标：排序。")]
    translation.write_catalogue(tmp_path / "i18n" / "zh" / "07_ranking.po", entries, "zh")
    [(language, notebooks)] = pages.translated_solutions(solutions).items()
    solved = nbformat.reads(notebooks["07_ranking.ipynb"], as_version=4)
    assert language == "zh" and solved.cells[0].source.startswith("# 07 · 排序")
    assert solved.metadata["memlib"]["language"] == "zh" and "use_language('zh')" in solved.cells[2].source
    (tmp_path / "i18n" / "zh" / "07_ranking.po").write_text('msgctxt "title"\nmsgid broken\n', encoding="utf-8")
    with pytest.raises(pages.SiteError, match=r"07_ranking.po, line 2: expected a quoted string"):
        pages.translated_solutions(solutions)
    assert pages.translated_solutions(tmp_path / "elsewhere" / "solutions") == {}


def test_translated_notebooks_without_their_glossary_stop_the_build_before_anything_runs(tmp_path):
    solutions = _course_with_catalogue(tmp_path, "")
    with pytest.raises(pages.SiteError, match=r"the zh notebooks link to a glossary, and .*i18n/zh/glossary.md is missing"):
        pages.build_sources(solutions, tmp_path / "src")
    assert not (tmp_path / "src").exists()


@pytest.mark.parametrize("args, complaint", [
    ([], "usage: .ci/site OUT"),
    (["a", "b", "c"], "usage: .ci/site OUT"),
    (["{full}"], "neither empty nor a site built before"),
    (["{new}", "{full}"], "is not empty"),
])
def test_ci_site_refuses_wrong_arguments_and_changes_nothing(tmp_path, args, complaint):
    full = tmp_path / "full"
    full.mkdir()
    (full / "notes.txt").write_text("mine")
    args = [a.format(full=full, new=tmp_path / "new") for a in args]
    result = subprocess.run(["bash", str(ROOT / ".ci" / "site"), *args], capture_output=True, text=True,
                            env={**os.environ, "PYTHON": sys.executable}, timeout=60)
    assert result.returncode == 2 and complaint in result.stderr, result.stderr
    assert (full / "notes.txt").read_text() == "mine" and not (tmp_path / "new").exists()


# -- the built site in a real browser ----------------------------------------------------




@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """(the site, the Sphinx sources) built once by .ci/site."""
    if not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)):
        _skip_or_fail(f"the site's browser tests need Debian's Chromium at {CHROMIUM}: apt-get install -y chromium")
    if importlib.util.find_spec("playwright") is None or importlib.util.find_spec("sphinx") is None:
        _skip_or_fail("the site's tests need Playwright and Sphinx: pip install -r requirements-test.txt")
    base = tmp_path_factory.mktemp("site")
    out, work = base / "out", base / "work"
    result = subprocess.run(["bash", str(ROOT / ".ci" / "site"), str(out), str(work)], capture_output=True,
                            text=True, env={**os.environ, "PYTHON": sys.executable}, timeout=BUILD_TIMEOUT_S)
    assert result.returncode == 0, f".ci/site failed ({result.returncode}):\n{result.stdout}\n{result.stderr[-4000:]}"
    print(result.stdout.strip().splitlines()[-1])
    return out, work / "src"


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # the test reports what failed; no access log
        pass


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address) -> None:
        # A page closed while its plotly.js was still arriving: the browser hung up, nothing broke.
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


@pytest.fixture(scope="module")
def served(built):
    out, _ = built
    server = _QuietServer(("127.0.0.1", 0), functools.partial(_QuietHandler, directory=str(out)))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def browser(served):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = chromium.new_context(viewport=LAPTOP)
        context.set_default_timeout(30_000)
        try:
            yield context
        finally:
            context.close()
            chromium.close()


_JS_PAGE = """() => ({
  links: [...document.querySelectorAll('a[href]')].map(a => a.href),
  assets: [...document.querySelectorAll('link[href], script[src], img[src]')].map(e => e.href || e.src),
  figures: document.querySelectorAll('.plotly-graph-div').length,
  drawn: [...document.querySelectorAll('.js-plotly-plot')].filter(p => p.querySelector('svg.main-svg')).length,
  text: document.body.innerText,
  lang: document.documentElement.lang,
  switches: [...document.querySelectorAll('a.memlib-lang-switch')].map(a => a.href),
  alternates: Object.fromEntries([...document.querySelectorAll('link[rel=alternate][hreflang]')]
                                 .map(l => [l.hreflang, l.href])),
  // the page's own prose: its article without code cells (code, outputs), literals and links' targets
  prose: (() => {
    const article = document.querySelector('article').cloneNode(true);
    article.querySelectorAll('div.cell, pre, code, script, .memlib-lang-switch').forEach(e => e.remove());
    return article.textContent;
  })(),
})"""


def _visit(context, url: str) -> dict:
    page = context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(f"console {m.type}: {m.text}") if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(f"page error: {e}"))
    page.on("requestfailed", lambda r: errors.append(f"request failed: {r.url} ({r.failure})"))
    page.on("response", lambda r: errors.append(f"HTTP {r.status}: {r.url}") if r.status >= 400 else None)
    try:
        page.goto(url, wait_until="load")
        # plotly draws on load; give each figure time to get its svg.
        page.wait_for_function("""() => [...document.querySelectorAll('.plotly-graph-div')]
                                   .every(d => d.querySelector('svg.main-svg'))""", timeout=20_000)
        found = page.evaluate(_JS_PAGE)
    finally:
        page.close()
    return {**found, "errors": errors}


@pytest.fixture(scope="module")
def crawl(served, browser):
    """Every page reached from the index: {url: what it shows}, each opened once."""
    seen: dict[str, dict] = {}
    queue = [served + "index.html"]
    while queue:
        url = queue.pop(0)
        if url in seen:
            continue
        seen[url] = _visit(browser, url)
        for link in seen[url]["links"]:
            target = link.split("#", 1)[0]
            if target.startswith(served) and target.endswith(".html") and target not in seen:
                queue.append(target)
    return seen


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


browser_test = [pytest.mark.browser, pytest.mark.slow, pytest.mark.xdist_group("site")]


def _browser(test):
    for mark in browser_test:
        test = mark(test)
    return test


@_browser
def test_the_index_reaches_every_notebook_page_and_the_instructor_guide(served, crawl):
    reached = {url[len(served):] for url in crawl}
    wanted = {"index.html", "instructor.html", *(f"{path.stem}.html" for path in SOLUTION_FILES),
              "zh/index.html", "zh/glossary.html", *(f"zh/{stem}.html" for stem in ZH_STEMS)}
    assert len(ZH_STEMS) == 8, f"the Chinese core track has 8 notebooks, i18n/zh has {ZH_STEMS}"
    assert wanted <= reached, f"not reached from the index: {sorted(wanted - reached)}"
    index = crawl[served + "index.html"]["text"].replace("\u2019", "'")  # Sphinx curls apostrophes
    for path in SOLUTION_FILES:
        heading = json.loads(path.read_text(encoding="utf-8"))["cells"][0]["source"]
        title = re.sub(r"^#\s*\d+\s*·\s*", "", "".join(heading).splitlines()[0])
        assert title in index, f"the syllabus has no row for {path.name} ({title!r})"


@_browser
def test_no_page_logs_a_console_error_or_fails_a_request(crawl):
    problems = {url: found["errors"] for url, found in crawl.items() if found["errors"]}
    assert not problems, json.dumps(problems, indent=1)


@_browser
def test_every_internal_link_and_asset_answers_200(served, crawl):
    targets = {link.split("#", 1)[0] for found in crawl.values() for link in found["links"] + found["assets"]}
    internal = sorted(t for t in targets if t.startswith(served))
    assert len(internal) > len(crawl), "too few internal links found: is the crawl reading the pages?"
    broken = {url: status for url in internal if (status := _status(url)) != 200}
    assert not broken, broken


@_browser
def test_every_notebook_page_launches_in_colab_and_binder(served, crawl):
    pages_and_notebooks = [(f"{path.stem}.html", f"{config.NOTEBOOKS_DIR}/{path.name}") for path in SOLUTION_FILES]
    pages_and_notebooks += [(f"zh/{stem}.html", f"{config.NOTEBOOKS_DIR}/zh/{stem}.ipynb") for stem in ZH_STEMS]
    for page, repo_path in pages_and_notebooks:
        links = crawl[served + page]["links"]
        assert config.colab_url(repo_path) in links and config.binder_url(repo_path) in links, page
        assert (ROOT / repo_path).is_file(), f"{page} launches {repo_path}, which the repository does not have"


@_browser
def test_every_plotly_figure_on_a_notebook_page_is_drawn(served, built, crawl):
    _, sources = built
    total = {"": 0, "zh/": 0}
    for folder, name in [("", path.name) for path in SOLUTION_FILES] + [("zh/", f"{stem}.ipynb") for stem in ZH_STEMS]:
        page = nbformat.read(str(sources / folder / name), as_version=4)
        carried = sum("plotly-graph-div" in o.get("data", {}).get("text/html", "")
                      for cell in page.cells for o in cell.get("outputs", []))
        found = crawl[served + folder + name.replace(".ipynb", ".html")]
        where = folder + name
        assert found["figures"] == carried, f"{where}: {carried} figures in the page's notebook, {found['figures']} on the page"
        assert found["drawn"] == carried, f"{where}: {found['drawn']} of {carried} figures drawn (svg.main-svg)"
        total[folder] += carried
    assert all(total.values()), f"figures per part of the site {total}: the conversion lost them"


def _solution_regions(notebook: dict) -> list[list[str]]:
    """The stripped lines of each ### BEGIN SOLUTION ... ### END SOLUTION region and solution-only cell."""
    regions: list[list[str]] = []
    for cell in notebook["cells"]:
        if "solution-only" in cell["metadata"].get("tags", []):
            regions.append([line.strip() for line in "".join(cell["source"]).splitlines() if line.strip()])
            continue
        inside = False
        for line in "".join(cell["source"]).splitlines():
            if line.strip() == "### BEGIN SOLUTION":
                inside = True
                regions.append([])
            elif line.strip() == "### END SOLUTION":
                inside = False
            elif inside and line.strip():
                regions[-1].append(line.strip())
    return regions


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _solutions_in_every_language() -> dict[str, dict]:
    """{where: solution notebook}: each solutions/*.ipynb, and each solved Chinese notebook (its written answers'
    solution regions are translated, so they are secrets of their own)."""
    found = {path.name: nbformat.read(str(path), as_version=4) for path in SOLUTION_FILES}
    for stem in ZH_STEMS:
        entries = translation.read_catalogue(ROOT / "i18n" / "zh" / f"{stem}.po")
        found[f"zh/{stem}.ipynb"] = translation.solved_notebook(found[f"{stem}.ipynb"], entries, "zh")
    return found


@_browser
def test_no_solution_line_appears_on_any_page_or_in_any_file_of_the_site(built, crawl):
    out, _ = built
    secrets: dict[str, str] = {}
    solutions = _solutions_in_every_language()
    released = [release_notebook(nb, where.split("/")[-1], warn=False) for where, nb in solutions.items()]
    shown = _squash(" ".join(cell.source for student in released for cell in student.cells).replace("`", ""))
    for where, nb in solutions.items():
        for number, region in enumerate(_solution_regions(nb), start=1):
            # A line some student notebook shows too (a `return x`, an import, a line the instructions
            # spell out) gives nothing away.
            distinctive = [line for line in region if len(line) >= 16 and _squash(line) not in shown]
            assert distinctive, f"{where}, region {number}: no line distinctive enough to look for"
            secrets.update({_squash(line): where for line in distinctive})
    assert len(secrets) > 20 and any(where.startswith("zh/") and re.search("[\u4e00-\u9fff]", line)
                                     for line, where in secrets.items()), "no Chinese solution line to look for"
    assert any(url.endswith("zh/03_archival_bm25.html") for url in crawl), "the crawl did not reach the Chinese pages"
    pages_text = {url: _squash(found["text"]) for url, found in crawl.items()}
    files_text = {}
    for file in out.rglob("*"):
        if file.is_file() and file.suffix in (".html", ".js", ".txt", ".json", ".ipynb", ".inv", ".css", ""):
            raw = file.read_text(encoding="utf-8", errors="replace")
            files_text[str(file.relative_to(out))] = _squash(html.unescape(re.sub(r"<[^>]+>", "", raw)))
    leaks = [f"{where}: {line!r} (from {source})" for line, source in secrets.items()
             for where, text in [*pages_text.items(), *files_text.items()] if line in text]
    assert not leaks, "solution code on the site:\n" + "\n".join(leaks[:20])


def _han_share(text: str) -> float:
    han = len(re.findall("[\u4e00-\u9fff]", text))
    return han / max(1, han + len(re.findall("[A-Za-z]", text)))


@_browser
def test_every_chinese_page_says_it_is_chinese_and_is_mostly_chinese(served, crawl):
    chinese = [f"zh/{stem}.html" for stem in ZH_STEMS] + ["zh/index.html", "zh/glossary.html"]
    shares = {page: round(_han_share(crawl[served + page]["prose"]), 2) for page in chinese}
    assert all(crawl[served + page]["lang"] == "zh-CN" for page in chinese), {p: crawl[served + p]["lang"] for p in chinese}
    assert all(share >= MOSTLY_CHINESE for share in shares.values()), f"Han share of the prose: {shares}"
    english = {url: found["lang"] for url, found in crawl.items() if "/zh/" not in url and found["lang"] != "en"}
    assert not english, f"English pages that do not say lang=en: {english}"


@_browser
def test_the_switch_leads_from_each_chinese_page_to_its_english_page_and_back(served, browser, crawl):
    pairs = [(f"zh/{stem}.html", f"{stem}.html") for stem in ZH_STEMS] + [("zh/index.html", "index.html")]
    for chinese, english in pairs:
        assert crawl[served + chinese]["switches"] == [served + english], chinese
        assert crawl[served + english]["switches"] == [served + chinese], english
        both = {"en": served + english, "zh-CN": served + chinese}  # and each head names both (hreflang)
        assert crawl[served + chinese]["alternates"] == both == crawl[served + english]["alternates"], chinese
    # the English pages without a Chinese counterpart (deep dives, the instructor guide) have no switch
    alone = {url: found["switches"] or found["alternates"] for url, found in crawl.items()
             if url[len(served):] not in {page for pair in pairs for page in pair}
             and (found["switches"] or found["alternates"])}
    assert not alone, f"a switch on a page without a counterpart: {alone}"
    page = browser.new_page()
    try:
        for chinese, english in pairs:  # a reader's click, both ways
            page.goto(served + chinese, wait_until="domcontentloaded")
            first_section = page.evaluate("""() => [...document.querySelectorAll('.sidebar-tree > p.caption')]
                .sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top)[0].innerText""")
            assert first_section == "中文", f"{chinese}: the sidebar starts with {first_section!r}, not the Chinese track"
            page.click("a.memlib-lang-switch")
            page.wait_for_url(served + english)
            page.click("a.memlib-lang-switch")
            page.wait_for_url(served + chinese)
    finally:
        page.close()


@_browser
def test_screenshots_of_the_index_and_a_notebook_page(served, browser, crawl):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    with_figure = next(url for url, found in crawl.items() if found["drawn"])
    stem = with_figure[len(served):].removesuffix(".html")
    page = browser.new_page()
    try:
        page.goto(served + "index.html", wait_until="load")
        page.screenshot(path=str(SCREENSHOTS / "site-index.png"))
        page.goto(with_figure, wait_until="load")
        page.wait_for_selector(".js-plotly-plot svg.main-svg")
        page.screenshot(path=str(SCREENSHOTS / f"site-{stem}.png"))
        figure = page.query_selector(".js-plotly-plot")
        figure.scroll_into_view_if_needed()
        page.screenshot(path=str(SCREENSHOTS / f"site-{stem}-figure.png"))
    finally:
        page.close()
    for name in ("site-index.png", f"site-{stem}.png", f"site-{stem}-figure.png"):
        assert (SCREENSHOTS / name).stat().st_size > 10_000, f"{name} looks empty"


@_browser
def test_screenshots_of_the_chinese_index_and_a_chinese_page(served, browser, crawl):
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    shots = {"site-zh-index.png": "zh/index.html", "site-zh-03_archival_bm25.png": "zh/03_archival_bm25.html"}
    page = browser.new_page()
    try:
        for name, url in shots.items():
            page.goto(served + url, wait_until="load")
            page.screenshot(path=str(SCREENSHOTS / name))
    finally:
        page.close()
    for name in shots:
        assert (SCREENSHOTS / name).stat().st_size > 10_000, f"{name} looks empty"
