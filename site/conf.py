# Sphinx configuration of the course site (built by `.ci/site OUT`; site/pages.py writes the sources).
#
# Why Sphinx with MyST-NB and not Jupyter Book 2 (mystmd):
# - Offline from the registries: Sphinx, MyST-NB, the furo theme and latex2mathml are
#   pure-Python wheels pinned in requirements-site.txt. mystmd downloads its site theme
#   (a web app) when it builds, which a machine that reaches only the package
#   registries cannot do, and it needs Node next to the course's Python.
# - CI time: no second toolchain to install; the build is the notebooks' execution
#   (done by site/pages.py) plus well under a minute of Sphinx.
# - Static plotly figures: site/pages.py turns each figure into plotly's own HTML, with
#   plotly.js served from the site itself, so the figures draw offline, stay interactive
#   (hover, zoom) and need no kernel; static images through kaleido would need a
#   browser at build time.
# - What an instructor maintains: Markdown pages (index.md, instructor.md) and this
#   file; everything about the notebooks is read from the notebooks.
# Every warning is an error (`sphinx-build -W` in .ci/site): a broken link or page fails the build.

from docutils import nodes

from memlib.course import config

project = "Virtual context, hands-on"
html_title = project
author = "the memlib course"
copyright = "2026, the memlib course authors"

extensions = ["myst_nb"]
exclude_patterns = ["_build"]
# index.md includes syllabus.md (zh/index.md the Chinese one); neither is a page of its own.
exclude_patterns += ["syllabus.md", "zh/syllabus.md"]

# attrs_inline: the language switch is a link with a class, `[中文](zh/03_archival_bm25.ipynb){.memlib-lang-switch}`,
# so Sphinx still checks its target.
myst_enable_extensions = ["dollarmath", "substitution", "attrs_inline"]
# Links the hand-written pages use, as `{{ binder }}`; memlib.course.config is the one place
# that names them. (MyST substitutes whole Markdown, not a link's target, hence the links here.)
myst_substitutions = {
    "repository": f"[repository]({config.github_url()})",
    "readme": f"[README]({config.github_url('README.md')})",
    "readme_zh": f"[README_zh.md]({config.github_url('README_zh.md')})",
    "binder": f"[Binder]({config.binder_url()})",
}

# The notebooks arrive executed (site/pages.py); MyST-NB only renders them.
nb_execution_mode = "off"
nb_merge_streams = True
# memlib's tables are Markdown outputs with pipes: MyST renders those, CommonMark would not.
nb_render_markdown_format = "myst"
# The widgets became notes: load no widget manager (the default comes from a CDN).
nb_ipywidgets_js = {}

html_theme = "furo"
html_static_path = ["_static"]
html_css_files = ["site.css"]
# An icon of its own, or the browser asks for /favicon.ico, which the site does not have.
html_favicon = "_static/favicon.svg"
html_copy_source = False
html_show_sourcelink = False
html_use_index = False
html_last_updated_fmt = None
html_math_renderer = "mathml"


# Math as MathML, written at build time: browsers draw it natively, so no MathJax from a CDN.
def _math(self, node, display: bool) -> None:
    from latex2mathml.converter import convert

    self.body.append(convert(node.astext(), display="block" if display else "inline"))
    raise nodes.SkipNode


# English is the site's language; the pages under zh/ are Chinese, and say so to the browser (fonts, line
# breaking, screen readers). Sphinx has one `language` for the whole build, so each page's is set here.
PAGE_LANGUAGES = {"zh/": "zh-CN"}


def _page_language(app, pagename, templatename, context, doctree) -> None:
    for prefix, code in PAGE_LANGUAGES.items():
        if pagename.startswith(prefix):
            context["language"] = code


def _alternates(app, pagename, templatename, context, doctree) -> None:
    """A page with a counterpart in the other language names both in its head (<link rel="alternate"
    hreflang>), so a search engine shows each reader the page in their language."""
    english = pagename.removeprefix("zh/")
    pair = {"en": english, "zh-CN": f"zh/{english}"}
    if not all(doc in app.env.found_docs for doc in pair.values()):
        return
    # pathto gives "#" for the page itself; the head needs its file name
    href = {doc: (context["pathto"](doc) if doc != pagename else f"{pagename.rpartition('/')[2]}.html")
            for doc in pair.values()}
    links = "".join(f'<link rel="alternate" hreflang="{code}" href="{href[doc]}" />\n' for code, doc in pair.items())
    context["metatags"] = context.get("metatags", "") + links


def setup(app):
    app.connect("html-page-context", _page_language)
    app.connect("html-page-context", _alternates)
    app.add_html_math_renderer("mathml", (lambda self, node: _math(self, node, False), None),
                               (lambda self, node: _math(self, node, True), None))
