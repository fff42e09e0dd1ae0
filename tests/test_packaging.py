"""Packaging: what a plain (non-editable) install gets, as on Colab and Binder; the sdist;
one version everywhere; the licence and citation files; Binder's postBuild."""

import os
import pathlib
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

import memlib
from conftest import ROOT

pytestmark = pytest.mark.maintainer

#: Never copied when building from a copy of the checkout: VCS, environments, build output, caches.
NOT_SOURCE = (".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache",
              ".hypothesis", "artifacts")
#: Left out at the top of the checkout only: the instructor's grading output (memlib.course.grading is code).
NOT_SOURCE_AT_TOP = ("grading",)
LICENCE_FILES = ("LICENSE", "LICENSE-CONTENT")
#: What the sdist must hold besides the package; and what it leaves to a clone of the repository.
SDIST_PAPERS = ("pyproject.toml", "README.md", *LICENCE_FILES, "CHANGELOG.md", "CITATION.cff")
SDIST_LEAVES_OUT = ("tests/", "benchmarks/", "notebooks/", "solutions/", ".ci/", "binder/")
DATA_FILES = ("facts.jsonl", "queries.jsonl", "poisoning.jsonl", "quizzes/03.json", "quizzes/zh/03.json",
              "core_memory/schema.json",
              "README.md")


def _copy_of_the_checkout(dest: pathlib.Path) -> pathlib.Path:
    """The checkout's files in `dest`: setuptools writes build/ and memlib.egg-info into the tree it
    builds, so builds run on a copy (the checkout stays clean, parallel builds do not collide)."""
    anywhere = shutil.ignore_patterns(*NOT_SOURCE)

    def ignore(folder: str, names: list[str]) -> set[str]:
        at_top = {n for n in names if n in NOT_SOURCE_AT_TOP} if pathlib.Path(folder) == ROOT else set()
        return set(anywhere(folder, names)) | at_top

    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    return dest


@pytest.fixture(scope="module")
def dists(tmp_path_factory) -> dict[str, pathlib.Path]:
    """The sdist, and the wheel built FROM that sdist (`python -m build`'s default), so the wheel
    holding everything also proves the sdist does. Built once per module and worker."""
    work = tmp_path_factory.mktemp("dists")
    source = _copy_of_the_checkout(work / "source")
    built = subprocess.run([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(source)],
                           capture_output=True, text=True, timeout=600)
    assert built.returncode == 0, (built.stdout + built.stderr)[-4000:]
    (sdist,) = (work / "dist").glob("memlib-*.tar.gz")
    (wheel,) = (work / "dist").glob("memlib-*.whl")
    return {"sdist": sdist, "wheel": wheel}


def test_every_memlib_package_is_listed_in_pyproject():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(config["tool"]["setuptools"]["packages"])
    on_disk = {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "memlib").rglob("__init__.py")}
    missing = on_disk - listed
    assert not missing, f"add {sorted(missing)} to [tool.setuptools] packages in pyproject.toml"
    assert "memlib.data" in listed


def _modules() -> set[str]:
    return {"memlib/" + p.relative_to(ROOT / "memlib").as_posix() for p in (ROOT / "memlib").rglob("*.py")}


@pytest.mark.xdist_group("packaging")
def test_wheel_ships_every_module_the_data_the_licences_and_the_metadata(dists):
    """The wheel Colab's `pip install git+...` builds: every module, the data, py.typed, both
    licences, and metadata that names this release, its licence and its links."""
    wheel = zipfile.ZipFile(dists["wheel"])
    names = set(wheel.namelist())
    assert _modules() <= names, f"missing from the wheel: {sorted(_modules() - names)}"
    for data_file in DATA_FILES:
        assert f"memlib/data/{data_file}" in names, f"memlib/data/{data_file} missing from the wheel"
    assert "memlib/py.typed" in names, "without py.typed a student's mypy calls memlib untyped"
    dist_info = f"memlib-{memlib.__version__}.dist-info"
    for licence in LICENCE_FILES:
        assert f"{dist_info}/licenses/{licence}" in names, f"{licence} missing from the wheel"
        assert wheel.read(f"{dist_info}/licenses/{licence}") == (ROOT / licence).read_bytes()
    metadata = wheel.read(f"{dist_info}/METADATA").decode("utf-8").split("\n\n", 1)[0].splitlines()
    assert f"Version: {memlib.__version__}" in metadata
    assert "License-Expression: MIT AND CC-BY-4.0" in metadata
    assert {f"License-File: {licence}" for licence in LICENCE_FILES} <= set(metadata)
    urls = {line.split(": ", 1)[1].split(", ")[0] for line in metadata if line.startswith("Project-URL: ")}
    assert {"Homepage", "Source", "Documentation", "Changelog", "Issues"} <= urls
    classifiers = {line.split(": ", 1)[1] for line in metadata if line.startswith("Classifier: ")}
    assert {f"Programming Language :: Python :: 3.{minor}" for minor in range(10, 14)} <= classifiers
    assert "Framework :: Jupyter" in classifiers and "Intended Audience :: Education" in classifiers


@pytest.mark.xdist_group("packaging")
def test_sdist_ships_what_builds_memlib_and_leaves_the_repository_tests_out(dists):
    """Everything to build and install memlib (the wheel above was built from this sdist), the
    licences, changelog and citation; no tests that could not run without the repository."""
    with tarfile.open(dists["sdist"]) as sdist:
        top = f"memlib-{memlib.__version__}/"
        names = {member.name.removeprefix(top) for member in sdist.getmembers()}
    missing = [p for p in SDIST_PAPERS if p not in names]
    assert not missing, f"missing from the sdist: {missing}"
    assert "memlib/py.typed" in names and _modules() <= names
    assert all(f"data/{data_file}" in names for data_file in DATA_FILES)
    stowaways = sorted(n for n in names if n.startswith(SDIST_LEAVES_OUT))
    assert not stowaways, f"the sdist carries files that only run from a clone: {stowaways[:10]}"
    assert not [n for n in names if n.endswith((".pyc", ".ipynb"))]


def _run(command, **kwargs):
    return subprocess.run(command, capture_output=True, text=True, timeout=600, **kwargs)


@pytest.mark.slow
@pytest.mark.xdist_group("packaging")
def test_the_wheel_alone_answers_every_command(tmp_path, dists):
    """`pip install memlib` with no extras (the Colab path): every --help works, and --version;
    release and grade say in one line which extra they need and exit 2; merging gradebooks needs no extra."""
    wheel = dists["wheel"]
    venv = tmp_path / "venv"
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    python = str(venv / "bin" / "python")
    installed = _run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check", str(wheel)])
    assert installed.returncode == 0, installed.stderr[-3000:]
    absent = _run([python, "-c", "import importlib.util as u; print([m for m in ('nbformat', 'nbval', 'pytest') "
                                 "if u.find_spec(m)])"])
    assert absent.stdout.strip() == "[]", f"the runtime dependencies pulled in {absent.stdout}: the test proves nothing"

    scratch = tmp_path / "elsewhere"  # not the checkout, so `import memlib` is the installed wheel
    scratch.mkdir()
    from memlib.__main__ import GRADE_TOOLS, SUBCOMMANDS

    for command in [[], ["demo"], *([name] for name in SUBCOMMANDS), *(["grade", tool] for tool in GRADE_TOOLS)]:
        answer = _run([python, "-m", "memlib", *command, "--help"], cwd=scratch)
        assert answer.returncode == 0, (command, answer.stderr)
        assert answer.stdout.startswith("usage: python -m memlib"), (command, answer.stdout)
    assert "--shard K/N" in _run([python, "-m", "memlib", "grade", "--help"], cwd=scratch).stdout
    for command in ([python, "-m", "memlib", "--version"], [str(venv / "bin" / "memlib"), "--version"]):
        answer = _run(command, cwd=scratch)
        assert (answer.returncode, answer.stdout) == (0, f"memlib {memlib.__version__}\n"), answer

    for command in (["release", "solutions", "notebooks"], ["grade", "sub", "--release", "notebooks", "--out", "g.csv"]):
        answer = _run([python, "-m", "memlib", *command], cwd=scratch)
        assert answer.returncode == 2, (command, answer.stdout, answer.stderr)
        assert answer.stdout == "" and len(answer.stderr.splitlines()) == 1, answer.stderr
        assert "pip install 'memlib[course]'" in answer.stderr and "nbformat" in answer.stderr
    assert not (scratch / "g.csv").exists() and not (scratch / "notebooks").exists()

    (scratch / "a.csv").write_text("student,notebook,grade_id,points,max_points,status,reason\n"
                                   "ada,01_x.ipynb,x,1,1,passed,\n", encoding="utf-8")
    merged = _run([python, "-m", "memlib", "grade", "merge", "a.csv", "--out", "m.csv"], cwd=scratch)
    assert merged.returncode == 0, merged.stderr
    assert (scratch / "m.csv").read_text() == (scratch / "a.csv").read_text()


# -- one version everywhere ------------------------------------------------------------------

def _pyproject() -> dict:
    import tomllib

    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def _citation() -> dict:
    import yaml

    return yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))


def _newest_changelog_entry() -> tuple[str, str]:
    """(version, date) of the first `## [X.Y.Z] - YYYY-MM-DD` heading of CHANGELOG.md."""
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    found = re.search(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, flags=re.M)
    assert found, "CHANGELOG.md has no '## [X.Y.Z] - YYYY-MM-DD' entry"
    return found.group(1), found.group(2)


def test_memlib_pyproject_changelog_and_citation_name_one_release():
    from memlib.course import config

    version = memlib.__version__
    assert re.fullmatch(r"\d+\.\d+\.\d+", version), version
    project = _pyproject()["project"]
    # pyproject reads the version from memlib/__init__.py (the wheel test checks what it builds)
    assert "version" not in project and "version" in project["dynamic"]
    assert _pyproject()["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "memlib.__version__"}
    changelog_version, changelog_date = _newest_changelog_entry()
    citation = _citation()
    assert (changelog_version, citation["version"]) == (version, version), \
        "bump memlib.__version__, the newest CHANGELOG.md entry and CITATION.cff together"
    assert citation["date-released"] == changelog_date
    assert f"@{config.LAUNCH_REF}" in config.pip_requirement()
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    cite = readme.split("## Cite this course", 1)[1].split("\n## ", 1)[0]
    assert f"version {version}" in cite, "README's citation names another release"


def test_the_newest_changelog_entry_has_the_sections_to_append_to():
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    version, _ = _newest_changelog_entry()
    entry = text.split(f"## [{version}]", 1)[1].split("\n## [", 1)[0]
    assert [line for line in entry.splitlines() if line.startswith("### ")][:1] == ["### Added"]
    assert {"### Added", "### Changed", "### Fixed"} <= set(entry.splitlines())
    # the newest release is what the launch links fetch; older ones name the commit that released them
    # (tags do not travel with the published repository)
    from memlib.course import config

    assert f"[{version}]: https://github.com/{config.REPO_SLUG}/tree/{config.LAUNCH_REF}" in text
    older = re.findall(r"^\[(\d+\.\d+\.\d+)\]: (\S+)$", text, flags=re.M)
    assert all(re.fullmatch(rf"https://github.com/{config.REPO_SLUG}/tree/[0-9a-f]{{7,40}}", link)
               for number, link in older if number != version), older


def test_python_m_memlib_version(capsys):
    from memlib.__main__ import main

    with pytest.raises(SystemExit) as done:
        main(["--version"])
    assert done.value.code == 0 and capsys.readouterr().out == f"memlib {memlib.__version__}\n"
    answer = _run([sys.executable, "-m", "memlib", "--version"], cwd=ROOT)
    assert (answer.returncode, answer.stdout) == (0, f"memlib {memlib.__version__}\n"), answer.stderr
    wrong = _run([sys.executable, "-m", "memlib", "--versions"], cwd=ROOT)
    assert wrong.returncode == 2 and "unrecognized arguments: --versions" in wrong.stderr


# -- citation and licences -------------------------------------------------------------------

#: The part of the Citation File Format 1.2.0 schema this repository uses: the required keys,
#: the shapes of the optional ones it sets, and no key outside the format's top-level keys.
CFF_1_2_0 = {
    "type": "object",
    "required": ["cff-version", "message", "title", "authors"],
    "additionalProperties": False,
    "properties": {
        "cff-version": {"const": "1.2.0"},
        "message": {"type": "string", "minLength": 1},
        "title": {"type": "string", "minLength": 1},
        "abstract": {"type": "string", "minLength": 1},
        "type": {"enum": ["software", "dataset"]},
        "version": {"type": "string", "minLength": 1},
        "date-released": {"type": "string", "pattern": r"^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$"},
        "authors": {"type": "array", "minItems": 1, "items": {"type": "object", "anyOf": [
            {"required": ["name"]}, {"required": ["family-names"]}, {"required": ["given-names"]}]}},
        "license": {"anyOf": [{"type": "string"},
                              {"type": "array", "minItems": 1, "uniqueItems": True, "items": {"type": "string"}}]},
        "repository-code": {"type": "string", "pattern": "^(https|http|ftp|sftp)://.+"},
        "url": {"type": "string", "pattern": "^(https|http|ftp|sftp)://.+"},
        "keywords": {"type": "array", "items": {"type": "string", "minLength": 1}},
        **{key: {} for key in ("commit", "contact", "doi", "identifiers", "license-url", "preferred-citation",
                               "references", "repository", "repository-artifact")},
    },
}


def _cff_problems(citation: dict) -> list[str]:
    import jsonschema
    from packaging.licenses import InvalidLicenseExpression, canonicalize_license_expression

    validator = jsonschema.Draft7Validator(CFF_1_2_0)
    problems = [f"{'/'.join(map(str, e.path)) or 'top'}: {e.message}" for e in validator.iter_errors(citation)]
    licences = citation.get("license", [])
    for licence in [licences] if isinstance(licences, str) else licences if isinstance(licences, list) else []:
        try:
            if canonicalize_license_expression(licence) != licence or " " in licence:
                problems.append(f"license: {licence!r} is not one SPDX identifier as SPDX spells it")
        except InvalidLicenseExpression:
            problems.append(f"license: {licence!r} is not an SPDX identifier")
    return problems


def test_citation_file_is_valid_cff_1_2_0():
    citation = _citation()
    assert _cff_problems(citation) == []
    assert citation["authors"] == [{"name": "The memlib course authors"}]
    assert citation["repository-code"] == "https://github.com/memlib-course/memlib"
    assert set(citation["license"]) == {"MIT", "CC-BY-4.0"}


@pytest.mark.parametrize("change, problem", [
    ({"authors": None}, "'authors' is a required property"),
    ({"cff-version": "1.1.0"}, "cff-version: '1.2.0' was expected"),
    ({"date-released": "1 December 2026"}, "date-released: '1 December 2026' does not match"),
    ({"license": "MIT License"}, "license: 'MIT License' is not an SPDX identifier"),
    ({"license": ["mit"]}, "license: 'mit' is not one SPDX identifier as SPDX spells it"),
    ({"repository-code": "github.com/memlib-course/memlib"}, "repository-code: 'github.com/memlib-course/memlib'"),
    ({"authors": [{"email": "a@b.c"}]}, "authors/0:"),
    ({"licence": "MIT"}, "Additional properties are not allowed ('licence' was unexpected)"),
])
def test_the_citation_check_rejects_what_is_not_cff(change, problem):
    citation = {**_citation(), **change}
    citation = {key: value for key, value in citation.items() if value is not None}
    assert any(p.startswith(problem) or problem in p for p in _cff_problems(citation)), _cff_problems(citation)


def test_licence_files_hold_the_licences_and_say_what_they_cover():
    mit = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert mit.startswith("MIT License\n\nCopyright (c) 2026 The memlib course authors\n")
    assert " ".join(mit.split()).endswith('THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS OR '
                                          "IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY, "
                                          "FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN NO EVENT SHALL THE "
                                          "AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM, DAMAGES OR OTHER "
                                          "LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR OTHERWISE, ARISING "
                                          "FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE USE OR OTHER "
                                          "DEALINGS IN THE SOFTWARE.")
    content = (ROOT / "LICENSE-CONTENT").read_text(encoding="utf-8")
    preamble, legal_text = content.split("Creative Commons Attribution 4.0 International\n", 1)
    for covered in ("solutions/", "notebooks/", "data/", "README.md", "memlib/", "tests/", "benchmarks/",
                    "MIT License"):
        assert covered in preamble, f"LICENSE-CONTENT does not say where {covered} stands"
    # the whole legal code, from its first section to its last
    for section in ("Section 1 – Definitions.", "Section 2 – Scope.", "Section 3 – License Conditions.",
                    "Section 4 – Sui Generis Database Rights.", "Section 5 – Disclaimer of Warranties and "
                    "Limitation of Liability.", "Section 6 – Term and Termination.", "Section 7 – Other Terms and "
                    "Conditions.", "Section 8 – Interpretation."):
        assert section in legal_text, section
    assert legal_text.rstrip().endswith("Creative Commons may be contacted at creativecommons.org.")
    project = _pyproject()["project"]
    assert project["license-files"] == list(LICENCE_FILES) and project["license"] == "MIT AND CC-BY-4.0"
    assert not [c for c in project["classifiers"] if c.startswith("License ::")], \
        "setuptools refuses License :: classifiers beside a licence expression"
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    licence_section = readme.split("\n## Licence\n", 1)[1]
    assert "(LICENSE)" in licence_section and "(LICENSE-CONTENT)" in licence_section and "CC BY 4.0" in licence_section
    assert "(CITATION.cff)" in readme.split("\n## Cite this course\n", 1)[1]


def test_pyproject_names_the_links_and_the_pythons_it_supports():
    project = _pyproject()["project"]
    assert project["urls"]["Documentation"] == "https://memlib-course.github.io/memlib/"
    assert project["urls"]["Source"] == "https://github.com/memlib-course/memlib"
    assert project["urls"]["Changelog"].endswith("/CHANGELOG.md") and project["urls"]["Issues"].endswith("/issues")
    pythons = sorted(int(c.rsplit(".", 1)[1]) for c in project["classifiers"]
                     if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", c))
    assert project["requires-python"] == f">=3.{pythons[0]}" and pythons == list(range(pythons[0], pythons[-1] + 1))
    assert _pyproject()["tool"]["setuptools"]["package-data"]["memlib"] == ["py.typed"]
    assert (ROOT / "memlib" / "py.typed").is_file()


# -- Binder ----------------------------------------------------------------------------------

def _files(folder: pathlib.Path) -> set[str]:
    return {p.relative_to(folder).as_posix() for p in folder.rglob("*")}


@pytest.mark.slow
def test_binder_postbuild_installs_memlib_and_leaves_the_students_folder_as_it_was(tmp_path):
    """Binder's home is the repository folder: postBuild, run there for real, installs memlib into
    the environment and leaves no build/ or memlib.egg-info beside the notebooks, nor a temporary copy."""
    home = _copy_of_the_checkout(tmp_path / "home")
    before = _files(home)
    venv, scratch_tmp = tmp_path / "venv", tmp_path / "tmp"
    scratch_tmp.mkdir()
    assert _run([sys.executable, "-m", "venv", str(venv)]).returncode == 0
    # the venv's python first; no PYTHONPATH, so `import memlib` below is what postBuild installed
    env = {**{k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
           "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}", "TMPDIR": str(scratch_tmp)}
    ran = _run(["bash", "binder/postBuild"], cwd=home, env=env)
    assert ran.returncode == 0, (ran.stdout + ran.stderr)[-3000:]
    appeared = sorted(_files(home) - before)
    assert not appeared, f"postBuild left files in the student's folder: {appeared[:10]}"
    assert list(scratch_tmp.iterdir()) == [], "postBuild left its copy of the repository behind"
    installed = _run([str(venv / "bin" / "python"), "-c", "import memlib; print(memlib.__version__, memlib.__file__)"],
                     cwd=tmp_path, env=env)
    version, location = installed.stdout.split()
    assert version == memlib.__version__ and location.startswith(str(venv)), installed
