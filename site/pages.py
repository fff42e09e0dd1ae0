"""The course site's pages, made from the executed solution notebooks' student views.

``python site/pages.py SOURCES [--jobs N]`` (run by ``.ci/site``) writes the Sphinx
sources of the site into SOURCES: this folder's hand-written pages and
``conf.py``, one page per notebook (``NN_topic.ipynb``), ``syllabus.md`` for the
index, and plotly.js under ``_static/``.

A notebook page is what a student gets, run: each ``solutions/*.ipynb`` is
executed (nbclient, in ``solutions/``, memlib from the checkout), and its student
view is `memlib.course.release.release_notebook` of the executed notebook, so
every solution region is replaced exactly as the release replaces it and the
``solution-only`` cells are gone. The release clears every output; this module
puts back, by cell id, the outputs of the cells a student runs unchanged:

- exercise cells (``memlib.exercise`` in the released cell) and graded cells
  keep no output: the first would show the reference answer at work, the second
  the PASS lines of a check the student has not passed;
- any other output that contains a line of a solution region (one the student
  view does not show anywhere) is replaced by a note saying why it is hidden;
- a plotly figure becomes plotly's HTML, the page's first one loading plotly.js
  from the site itself (``_static/plotly.min.js``), so it draws without a kernel
  and offline;
- an ipywidgets explorer, which draws nothing without a kernel, becomes a note
  pointing at the launch links;
- a Markdown image in an output is shown as text, never fetched (a stored note
  must not make the reader's browser call a URL);
- the Colab badge and setup cells are dropped: each page starts with its own
  Colab and Binder links (`memlib.course.config`), and the notebook's
  ``metadata.memlib`` track, minutes, prerequisites and objectives when present.

The syllabus (one row per notebook: title, goal, exercises, graded cells) is
read from the student views: the first heading, the paragraph under it, the
``### EXERCISE N:`` lines and the graded cells' metadata.

Each translated notebook (``i18n/<lang>/NN_topic.po`` next to solutions/) is a
page under ``<lang>/`` made the same way from the translated solution
(`memlib.course.translation.solved_notebook`: the markdown translated, the
setup cell making the checks speak the language), executed in its own right.
Its page keeps the translated glance cell (the metadata's objectives are
English), links to the glossary page ``<lang>/glossary.md`` (copied from
``i18n/<lang>/glossary.md``) and says everything around the notebook in its
language (`WORDS`). A page with a counterpart in the other language starts with
a link to it (class ``memlib-lang-switch``); the English deep dives have none.

This module does not run Sphinx (``.ci/site`` does) and never writes a
solution or an executed solution notebook into SOURCES.
"""

from __future__ import annotations

import argparse
import copy
import re
import shutil
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from memlib.course import config, lang, translation
from memlib.course.exercise import EXERCISE_NAME
from memlib.course.release import (BEGIN_RE, END_RE, MARKDOWN_STUB, TAG_COLAB_BADGE, TAG_COLAB_SETUP, TAG_GRADED,
                                   exercise_texts, graded_cells, release_notebook)

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
#: Hand-written files of the site, copied into SOURCES as they are.
STATIC_SOURCES = ("conf.py", "index.md", "instructor.md", "zh/index.md", "_static/site.css", "_static/favicon.svg")
#: The site's default language: its pages sit at the root; another language's pages in a folder of its name.
DEFAULT_LANGUAGE = lang.LANGUAGES[0]
#: A translated notebook's link to its glossary (from notebooks/<lang>/) and the page that replaces it.
GLOSSARY_LINK = "](../../i18n/{language}/glossary.md)"
GLOSSARY_PAGE = "glossary.md"
PLOTLY_MIME = "application/vnd.plotly.v1+json"
WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
PLOTLY_JS = "_static/plotly.min.js"
#: A solution line shorter than this ("return x", "else:") says nothing about the answer.
MIN_SOLUTION_LINE = 16
#: Optional per-notebook fields in ``metadata.memlib``, shown when present.
META_FIELDS = ("track", "minutes", "prerequisites", "objectives")
WIDGET_NOTE = ('<p class="memlib-note">An interactive widget (an explorer or a quiz) runs here in the notebook: '
               'open the notebook (links at the top of this page) and run it to use it.</p>')
HIDDEN_NOTE = ('<p class="memlib-note">This output is hidden here: it shows part of an exercise\'s answer. '
               'Run the notebook to see it.</p>')
EXECUTION_TIMEOUT_S = 600

#: What the site says around a notebook, in each language it has pages in.
WORDS = {
    "en": {
        "widget_note": WIDGET_NOTE,
        "hidden_note": HIDDEN_NOTE,
        "colab": "Open in Colab",
        "binder": "Launch on Binder",
        "run_once": "this page is the student notebook run once: the exercises are left for you.",
        "switch": "English",
        "goal_prefix": r"Goal:\s*",
    },
    "zh": {
        "widget_note": ('<p class="memlib-note">这里原本是一个交互组件（探索器或小测验），要在笔记本里运行才能用：'
                        '用本页顶部的链接打开笔记本，运行它即可。</p>'),
        "hidden_note": ('<p class="memlib-note">这段输出在这里隐藏了：它会透露某道练习的部分答案。'
                        '运行笔记本就能看到。</p>'),
        "colab": "在 Colab 中打开",
        "binder": "在 Binder 中启动",
        "run_once": "本页是学生版笔记本运行一遍的样子，练习留给你来做。",
        "switch": "中文",
        "goal_prefix": r"目标[：:]\s*",
        "exercise": "练习",
    },
}


class SiteError(ValueError):
    """The notebooks cannot make a site (the message says which notebook and what to fix)."""


@dataclass(frozen=True)
class NotebookInfo:
    """What the syllabus and a page's header say about one notebook."""

    stem: str
    number: str
    title: str
    goal: str
    exercises: list[tuple[str, str]] = field(default_factory=list)  # (number, what to do)
    graded: list[tuple[str, float]] = field(default_factory=list)  # (grade_id, points)
    meta: dict = field(default_factory=dict)  # the META_FIELDS present
    language: str = DEFAULT_LANGUAGE

    @property
    def repo_path(self) -> str:
        return f"{notebooks_dir(self.language)}/{self.stem}.ipynb"


def _language(language: str) -> str:
    """`language`, checked: one the site has words for (a SiteError otherwise)."""
    if language not in WORDS:
        raise SiteError(f"the site has no pages in {language!r}; it speaks {', '.join(WORDS)}")
    return language


def notebooks_dir(language: str) -> str:
    """Where the released notebooks of `language` live in the repository (notebooks/, notebooks/zh/)."""
    _language(language)
    return config.NOTEBOOKS_DIR if language == DEFAULT_LANGUAGE else f"{config.NOTEBOOKS_DIR}/{language}"


def page_folder(language: str) -> str:
    """The folder of the site a language's pages sit in, relative to the root ("" for the default language)."""
    _language(language)
    return "" if language == DEFAULT_LANGUAGE else f"{language}/"


def counterpart(stem: str, language: str, other: str) -> str:
    """The link from `stem`'s page in `language` to its page in `other` (Sphinx checks it)."""
    if _language(language) == _language(other):
        raise SiteError(f"{stem}: a page's counterpart is in another language, not {other!r} again")
    up = "../" if language != DEFAULT_LANGUAGE else ""
    return f"{up}{page_folder(other)}{stem}.ipynb"


def language_switch(stem: str, language: str, other: str) -> str:
    """The Markdown link a page starts with when it has a counterpart: named in the other language."""
    return f"[{WORDS[other]['switch']}]({counterpart(stem, language, other)}){{.memlib-lang-switch}}"


# -- reading a notebook ---------------------------------------------------------


def _text(source) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def _tags(cell: dict) -> list[str]:
    tags = cell.get("metadata", {}).get("tags", [])
    return list(tags) if isinstance(tags, list) else []


def _check_meta(stem: str, meta: dict) -> dict:
    """The META_FIELDS of a notebook's ``metadata.memlib``, checked; a wrong type is a SiteError."""
    found = {}
    for key in META_FIELDS:
        if key not in meta:
            continue
        value = meta[key]
        where = f"{stem}: metadata.memlib.{key}"
        if key == "track" and not (isinstance(value, str) and value.strip()):
            raise SiteError(f"{where} must be a non-empty string, not {value!r}")
        if key == "minutes" and not (isinstance(value, int) and not isinstance(value, bool) and value > 0):
            raise SiteError(f"{where} must be a positive whole number of minutes, not {value!r}")
        if key in ("prerequisites", "objectives") and not (
                isinstance(value, list) and all(isinstance(v, str) and v.strip() for v in value)):
            raise SiteError(f"{where} must be a list of non-empty strings, not {value!r}")
        found[key] = value
    return found


def notebook_info(student: dict, stem: str, language: str = DEFAULT_LANGUAGE) -> NotebookInfo:
    """Title, goal, exercises, graded cells and optional metadata of a student notebook in `language`."""
    _language(language)
    cells = student.get("cells", [])
    heading = next((c for c in cells if c.get("cell_type") == "markdown"
                    and _text(c.get("source", "")).lstrip().startswith("# ")), None)
    if heading is None:
        raise SiteError(f"{stem}: no markdown cell starts with a '# Title' heading; the syllabus needs one")
    lines = _text(heading["source"]).strip().splitlines()
    # "# 03 · Archival memory and BM25": the number comes from the file name.
    title = re.sub(r"^\d+\s*[·.:-]\s*", "", lines[0][2:].strip())
    paragraph = " ".join(line.strip() for line in _first_paragraph(lines[1:]))
    if not paragraph:
        raise SiteError(f"{stem}: the title cell has no paragraph under the heading; write the notebook's goal there")
    goal = re.sub("^" + WORDS[language]["goal_prefix"], "", paragraph)
    exercises = (_exercises(cells) if language == DEFAULT_LANGUAGE
                 else exercise_headings(cells, WORDS[language]["exercise"]))
    graded = [(g.grade_id, g.points) for g in graded_cells(student)]
    meta = student.get("metadata", {}).get("memlib", {})
    return NotebookInfo(stem=stem, number=stem.split("_", 1)[0], title=title, goal=goal, exercises=exercises,
                        graded=graded, meta=_check_meta(stem, meta if isinstance(meta, dict) else {}),
                        language=language)


def _exercises(cells: list[dict]) -> list[tuple[str, str]]:
    """(number, what to do) from the ``### EXERCISE N:`` lines of the code cells (English, like all code)."""
    exercises: dict[str, str] = {}
    for cell in cells:
        if cell.get("cell_type") == "code":
            for number, what in exercise_texts(_text(cell.get("source", ""))):
                # An exercise in several parts: its last line says what it returns.
                exercises[number] = what
    return list(exercises.items())


def exercise_headings(cells: list[dict], word: str = "练习") -> list[tuple[str, str]]:
    """(number, title) of each exercise heading ("## 练习 2：从零写 BM25") in the markdown cells, in order.

    A translated notebook's exercises are named there: the code's ``### EXERCISE`` comments stay English.
    """
    heading = re.compile(rf"^#{{2,4}}\s*{re.escape(word)}\s+({EXERCISE_NAME})\s*[：:]\s*(.+?)\s*$", re.MULTILINE)
    found: dict[str, str] = {}
    for cell in cells:
        if cell.get("cell_type") == "markdown":
            for number, title in heading.findall(_text(cell.get("source", ""))):
                found.setdefault(number, title)
    return list(found.items())


def _first_paragraph(lines: list[str]) -> list[str]:
    out: list[str] = []
    for line in lines:
        if not line.strip():
            if out:
                break
            continue
        out.append(line)
    return out


def solution_lines(solution: dict) -> set[str]:
    """The stripped lines inside the solution regions of a notebook (of any length)."""
    found: set[str] = set()
    for cell in solution.get("cells", []):
        inside = False
        for line in _text(cell.get("source", "")).splitlines():
            if BEGIN_RE.match(line):
                inside = True
            elif END_RE.match(line):
                inside = False
            elif inside and line.strip():
                found.add(line.strip())
    return found


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def distinctive_solution_lines(solution: dict, student: dict) -> set[str]:
    """Solution lines long enough to mean something that the student view does not show anywhere.

    A line the exercise's own instructions spell out (in code or, between backticks, in
    Markdown) gives nothing away.
    """
    shown = _squash(" ".join(_text(cell.get("source", "")) for cell in student.get("cells", [])).replace("`", ""))
    return {line for line in solution_lines(solution)
            if len(line) >= MIN_SOLUTION_LINE and _squash(line) not in shown}


# -- making a page ----------------------------------------------------------------


def _output_text(output: dict) -> str:
    parts = [_text(output.get("text", ""))]
    for value in output.get("data", {}).values():
        parts.append(value if isinstance(value, str) else _text(value) if isinstance(value, list) else str(value))
    return "\n".join(parts)


def _html_output(html: str) -> dict:
    return nbformat.v4.new_output("display_data", data={"text/html": html})


def _page_output(output: dict, figure_id: str, *, first_figure: bool, language: str = DEFAULT_LANGUAGE) -> dict:
    """One kept output as the page shows it: plotly as HTML, a widget as a note, the rest unchanged.

    The page's first figure loads plotly.js, right before the figures' own scripts call it (the
    theme puts Sphinx's scripts at the end of the page, after them), from the site's root: one
    folder up from a translated page.
    """
    data = output.get("data", {})
    if PLOTLY_MIME in data:
        import plotly.io

        figure = data[PLOTLY_MIME]
        html = plotly.io.to_html(figure, include_plotlyjs=False, full_html=False, div_id=figure_id,
                                 config=figure.get("config") or {"displaylogo": False})
        up = "../" if page_folder(language) else ""
        return _html_output((f'<script src="{up}{PLOTLY_JS}"></script>\n' if first_figure else "") + html)
    if WIDGET_MIME in data:
        return _html_output(WORDS[language]["widget_note"])
    if "text/markdown" in data:
        # A Markdown image in an output would make the reader's browser fetch its URL: notebook
        # 07's tables quote a poisoned note that does exactly that. Outputs show it as text.
        data["text/markdown"] = _text(data["text/markdown"]).replace("![", "!\\[")
    return output


def _prerequisite(text: str) -> str:
    """A prerequisite named like a notebook ("01_context_window") links to its page (Sphinx checks the link)."""
    return f"[{text}]({text}.ipynb)" if re.fullmatch(r"\d+_\w+", text) else text


def header_markdown(info: NotebookInfo, switch_to: str | None = None) -> str:
    """The cell under a page's title: the switch to `switch_to`'s page when given, launch links, the metadata.

    A translated page shows no metadata here: its own glance cell says the same in its language.
    """
    words = WORDS[info.language]
    lines = [f"[{words['colab']}]({config.colab_url(info.repo_path)}) · "
             f"[{words['binder']}]({config.binder_url(info.repo_path)}) · {words['run_once']}"]
    if switch_to is not None:
        lines[0] = f"{language_switch(info.stem, info.language, switch_to)} · {lines[0]}"
    if info.language != DEFAULT_LANGUAGE:
        return lines[0]
    facts = []
    if "track" in info.meta:
        facts.append(f"**Track:** {info.meta['track']}")
    if "minutes" in info.meta:
        facts.append(f"**Time:** about {info.meta['minutes']} minutes")
    if info.meta.get("prerequisites"):
        facts.append("**Before this:** " + ", ".join(map(_prerequisite, info.meta["prerequisites"])))
    if facts:
        lines += ["", " · ".join(facts)]
    if info.meta.get("objectives"):
        lines += ["", "**You will be able to:**", ""] + [f"- {objective}" for objective in info.meta["objectives"]]
    return "\n".join(lines)


def site_markdown(text: str, language: str) -> str:
    """A translated notebook's Markdown as its page needs it: the glossary link to the glossary page,
    the released answer stub in the page's language."""
    if language == DEFAULT_LANGUAGE:
        return text
    text = text.replace(GLOSSARY_LINK.format(language=language), f"]({GLOSSARY_PAGE})")
    return text.replace(MARKDOWN_STUB, lang.say("markdown_stub", language))


def student_page(executed: dict, name: str, language: str = DEFAULT_LANGUAGE,
                 switch_to: str | None = None) -> tuple[nbformat.NotebookNode, NotebookInfo]:
    """The page notebook of one executed solution notebook in `language`, and what the syllabus says about it.

    `switch_to`, when given, is the language of the page's counterpart, which the page links to.
    """
    stem = Path(name).stem
    student = release_notebook(executed, name, notebooks_dir=notebooks_dir(language), warn=False)
    info = notebook_info(student, stem, language)
    ids = [cell.get("id") for cell in executed.get("cells", [])]
    twice = sorted({i for i in ids if ids.count(i) > 1}, key=str)
    if twice:
        raise SiteError(f"{name}: cell id(s) {twice} appear more than once; give every cell its own id "
                        "(Jupyter does when it saves the notebook)")
    ran = {cell.get("id"): cell for cell in executed.get("cells", [])}
    secret = distinctive_solution_lines(executed, student)
    cells = []
    figures = 0
    for cell in student.cells:
        tags = _tags(cell)
        if TAG_COLAB_BADGE in tags or TAG_COLAB_SETUP in tags:
            continue  # the page's own launch links replace them
        if str(cell.get("id", "")).endswith("-00-glance") and language == DEFAULT_LANGUAGE:
            continue  # the page's header shows the same metadata (memlib.course.syllabus writes this cell)
        if cell.cell_type == "markdown":
            cell.source = site_markdown(cell.source, language)
        if cell.cell_type == "code":
            exercise = "exercise" in cell.get("metadata", {}).get("memlib", {})
            ran_cell = ran.get(cell.get("id"))
            if ran_cell is None:
                raise SiteError(f"{name}: the released cell {cell.get('id')!r} has no executed counterpart; "
                                "give every solution cell a unique id (save the notebook with Jupyter)")
            outputs = []
            if not exercise and TAG_GRADED not in tags:
                for output in ran_cell.get("outputs", []):
                    if any(line in _output_text(output) for line in secret):
                        outputs.append(_html_output(WORDS[language]["hidden_note"]))
                        continue
                    is_figure = PLOTLY_MIME in output.get("data", {})
                    figures += is_figure
                    outputs.append(_page_output(copy.deepcopy(output), f"{stem}-figure-{figures}",
                                                first_figure=is_figure and figures == 1, language=language))
            cell.outputs = [nbformat.from_dict(o) for o in outputs]
        cells.append(cell)
    title_at = next(i for i, c in enumerate(cells) if c.cell_type == "markdown"
                    and _text(c.source).lstrip().startswith("# "))
    cells.insert(title_at + 1, nbformat.v4.new_markdown_cell(header_markdown(info, switch_to), id=f"{stem}-launch"))
    student.cells = cells
    return student, info


# -- the syllabus -----------------------------------------------------------------


def _cell(text: str) -> str:
    """A list-table cell: every line indented under the ``* - `` bullet."""
    return "\n".join(("    " + line) if line else "" for line in text.splitlines()).lstrip()


def _syllabus_row_en(info: NotebookInfo) -> tuple[str, str, str]:
    """(notebook, goal, exercises) of an English syllabus row; the metadata under title and goal."""
    notebook = f"[{info.title}]({info.stem}.ipynb)"
    facts = [f"track: {info.meta['track']}" if "track" in info.meta else "",
             f"about {info.meta['minutes']} minutes" if "minutes" in info.meta else ""]
    if any(facts):
        notebook += "\n\n*" + " · ".join(filter(None, facts)) + "*"
    if info.meta.get("prerequisites"):
        notebook += "\n\nbefore this: " + ", ".join(map(_prerequisite, info.meta["prerequisites"]))
    goal = info.goal
    if info.meta.get("objectives"):
        goal += "\n\nYou will be able to:\n\n" + "\n".join(f"- {o}" for o in info.meta["objectives"])
    exercises = "\n".join(f"- **Exercise {n}**: {what}" for n, what in info.exercises) or "none"
    if info.graded:
        points = sum(p for _, p in info.graded)
        exercises += f"\n\ngraded: {', '.join(f'`{g}`' for g, _ in info.graded)} ({points:g} points)"
    return notebook, goal, exercises


def _syllabus_row_zh(info: NotebookInfo) -> tuple[str, str, str]:
    """(notebook, goal, exercises) of a Chinese syllabus row. The metadata's objectives are English, so the
    row leaves them to the page (its translated glance cell lists them); the track is the index's heading."""
    notebook = f"[{info.title}]({info.stem}.ipynb)"
    if "minutes" in info.meta:
        notebook += f"\n\n*约 {info.meta['minutes']} 分钟*"
    if info.meta.get("prerequisites"):
        notebook += "\n\n先修：" + "、".join(map(_prerequisite, info.meta["prerequisites"]))
    exercises = "\n".join(f"- **练习 {n}**：{what}" for n, what in info.exercises) or "无"
    if info.graded:
        points = sum(p for _, p in info.graded)
        exercises += f"\n\n计分：{'、'.join(f'`{g}`' for g, _ in info.graded)}（共 {points:g} 分）"
    return notebook, info.goal, exercises


#: Per language: the syllabus table's header row, its row maker and the toctree's caption.
SYLLABUS = {
    "en": (("#", "Notebook", "Goal", "Exercises"), _syllabus_row_en, "Notebooks"),
    "zh": (("#", "笔记本", "目标", "练习"), _syllabus_row_zh, "笔记本"),
}


def syllabus_markdown(infos: list[NotebookInfo], language: str = DEFAULT_LANGUAGE) -> str:
    """``syllabus.md`` of `language`: one row per notebook (number, notebook, goal, exercises) and the toctree.

    The optional metadata goes under the notebook's title (track, minutes, prerequisites)
    and its goal (objectives), so the table keeps four columns that fit the page.
    """
    header, row, caption = SYLLABUS[_language(language)]
    wrong = sorted(info.stem for info in infos if info.language != language)
    if wrong:
        raise SiteError(f"the {language} syllabus was given pages in another language: {wrong}")
    out = ["```{list-table}", ":header-rows: 1", ":class: memlib-syllabus", ":widths: 4 26 35 35", "",
           "* - " + "\n  - ".join(header)]
    for info in infos:
        out.append("* - " + "\n  - ".join(_cell(value) for value in (info.number, *row(info))))
    out += ["```", "", "```{toctree}", ":hidden:", f":caption: {caption}", "", *[info.stem for info in infos],
            "```", ""]
    return "\n".join(out)


# -- the command ------------------------------------------------------------------


def execute(path: Path, text: str | None = None) -> str:
    """The notebook at `path` (or `text`, a notebook that would be there) executed in `path`'s folder, as JSON text."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    nb = nbformat.read(str(path), as_version=4) if text is None else nbformat.reads(text, as_version=4)
    client = NotebookClient(nb, timeout=EXECUTION_TIMEOUT_S, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    try:
        client.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError) as error:
        raise SiteError(f"{path}{'' if text is None else ' (translated)'} failed to execute:\n{error}") from None
    return nbformat.writes(nb)


def translated_solutions(solutions: Path) -> dict[str, dict[str, str]]:
    """language -> {name: the solved translated notebook as JSON text}, for each catalogue next to `solutions`.

    A stale or missing translation leaves that cell in English, as the release does
    (``python -m memlib release --check`` is what fails on it).
    """
    root = solutions.resolve().parent / translation.CATALOGUE_DIR
    found: dict[str, dict[str, str]] = {}
    for language in WORDS:
        if language == DEFAULT_LANGUAGE:
            continue
        for catalogue in sorted((root / language).glob("*.po")):
            try:
                solved = translation.solved_notebook(translation.solution_of(solutions, catalogue.stem),
                                                     translation.read_catalogue(catalogue), language)
            except translation.CatalogueError as error:
                raise SiteError(str(error)) from None
            found.setdefault(language, {})[f"{catalogue.stem}.ipynb"] = nbformat.writes(nbformat.from_dict(solved))
    return found


def _write_page(sources: Path, executed: str, name: str, language: str, switch_to: str | None) -> NotebookInfo:
    page, info = student_page(nbformat.reads(executed, as_version=4), name, language, switch_to)
    target = sources / page_folder(language) / name
    target.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(page, str(target))
    return info


def glossary_of(solutions: Path, language: str) -> Path:
    """The language's glossary, ``i18n/<lang>/glossary.md``: the page its notebooks link to (a SiteError if missing)."""
    glossary = solutions.resolve().parent / translation.CATALOGUE_DIR / language / GLOSSARY_PAGE
    if not glossary.is_file():
        raise SiteError(f"the {language} notebooks link to a glossary, and {glossary} is missing; write it")
    return glossary


def build_sources(solutions: Path, sources: Path, *, jobs: int = 2) -> list[NotebookInfo]:
    """Write the site's Sphinx sources for every ``solutions/*.ipynb`` and its translations into `sources`
    (absent or empty); the pages' infos, English first."""
    paths = sorted(p for p in solutions.glob("*.ipynb") if p.is_file())
    if not paths:
        raise SiteError(f"no notebooks in {solutions}")
    if sources.exists() and (not sources.is_dir() or any(sources.iterdir())):
        raise SiteError(f"{sources} is not an empty folder; give a new one (nothing there is overwritten)")
    translated = translated_solutions(solutions)
    glossaries = {language: glossary_of(solutions, language) for language in translated}  # before the long part
    runs = [(path, None, DEFAULT_LANGUAGE) for path in paths]
    runs += [(solutions / name, text, language) for language, notebooks in translated.items()
             for name, text in notebooks.items()]
    with ProcessPoolExecutor(max_workers=max(1, jobs)) as pool:
        executed = list(pool.map(execute, [path for path, _, _ in runs], [text for _, text, _ in runs]))
    sources.mkdir(parents=True, exist_ok=True)
    infos = []
    for (path, _, language), text in zip(runs, executed):
        # Each page links to its counterpart: a translated page to the English one, an English page
        # to its (one) translation. A notebook without a translation has no switch.
        other = DEFAULT_LANGUAGE if language != DEFAULT_LANGUAGE else next(
            (code for code, notebooks in translated.items() if path.name in notebooks), None)
        infos.append(_write_page(sources, text, path.name, language, other))
    for relative in STATIC_SOURCES:
        (sources / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(HERE / relative, sources / relative)
    for language in WORDS:
        pages_in = [info for info in infos if info.language == language]
        (sources / page_folder(language) / "syllabus.md").write_text(syllabus_markdown(pages_in, language),
                                                                   encoding="utf-8")
        if language in glossaries:
            shutil.copyfile(glossaries[language], sources / page_folder(language) / GLOSSARY_PAGE)
    import plotly.offline

    # plotly.js from the plotly that wrote the figures, served by the site itself (no CDN).
    (sources / PLOTLY_JS).write_text(plotly.offline.get_plotlyjs(), encoding="utf-8")
    return infos


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python site/pages.py", description=__doc__.split("\n\n")[0])
    parser.add_argument("sources", type=Path, help="folder to write the Sphinx sources into (absent or empty)")
    parser.add_argument("--solutions", type=Path, default=ROOT / "solutions", help="the solution notebooks")
    parser.add_argument("--jobs", type=int, default=2, help="notebooks executed at once (default 2)")
    args = parser.parse_args(argv)
    if args.jobs < 1:
        parser.error("--jobs must be at least 1")
    try:
        infos = build_sources(args.solutions, args.sources, jobs=args.jobs)
    except SiteError as error:
        print(f"site: {error}", file=sys.stderr)
        return 2
    translated = sum(info.language != DEFAULT_LANGUAGE for info in infos)
    print(f"site: {len(infos)} notebook pages ({translated} of them translated) written to {args.sources}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
