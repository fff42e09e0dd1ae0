#!/usr/bin/env bash
# A Colab-like profile: a second virtualenv with Colab's Python (3.13 when this
# machine has it) and Colab's own versions of the packages memlib's notebooks
# touch (COLAB_PINS below, copied from Colab's published pip-freeze.txt of the
# "Upgrade to Python 3.13" runtime), memlib's own loose ranges for everything
# else, memlib installed NON-editable from the repository (as the notebooks'
# Colab setup cell does). Then memlib's tests (not the browser ones) and every
# solution notebook under nbval, against the installed package.
#
#   bash .ci/colab_profile.sh            # from anywhere; prints what it measured
#   COLAB_PYTHON_VERSION=3.12 bash .ci/colab_profile.sh   # Colab's older runtime, same pins
#   COLAB_PYTHON_ONLY=1 ...    # another Python, the same pins: the fast tests only (not slow), no notebooks
#   COLAB_PYTHON=/path/to/python bash .ci/colab_profile.sh
#   COLAB_STEP=install ...     # only make the virtualenv (CI does this while its main tests run)
#   COLAB_STEP=test ...        # only run the tests, in the virtualenv an install step made
#
# It does not touch the CI virtualenv (.venv) and it does not run the browser
# tests (JupyterLab 4 cannot load ipywidgets 7's front end; Colab has its own).
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
# ipykernel 6's debugger warns about Python 3.13's frozen modules on every kernel start.
export PYDEVD_DISABLE_FILE_VALIDATION=1
# Outside the work tree: nothing to git-ignore, and the CI venv (.venv) is left alone.
VENV="${COLAB_VENV:-${TMPDIR:-/tmp}/memlib-colab-venv}"
# From Colab's pip-freeze.txt (googlecolab/backend-info, 2026-08-19, Python 3.13.15).
# The first nine are what memlib's widgets, figures and kernels meet on Colab (openai, last,
# is the client ChatPolicy meets there); the
# rest keep pip from pulling newer front-end packages (ipywidgets 7 wants
# widgetsnbextension 3, whose `notebook` would otherwise be notebook 7 and JupyterLab).
COLAB_PINS=(
    "ipywidgets==7.7.1" "plotly==5.24.1" "ipykernel==6.17.1" "ipython==7.34.0" "traitlets==5.7.1"
    "jupyter_client==7.4.9" "numpy==2.1.3" "jsonschema==4.26.0" "nbformat==5.11.1"
    "widgetsnbextension==3.6.10" "jupyterlab_widgets==3.0.16" "notebook==6.5.7" "nbclient==0.10.4"
    "tornado==6.5.7" "pyzmq==26.2.1" "jupyter_core==5.9.1" "tiktoken==0.14.0" "pytest==8.4.2"
    "openai==2.54.0"
)

# pip's own chatter (this machine's pip config names local indexes that may be
# absent) goes to a log, shown only when a step fails.
pip_log="$(mktemp)"
quiet_pip() {
    if ! "$VENV/bin/python" -m pip install "$@" >"$pip_log" 2>&1; then
        grep -v "is ignored: it is neither a file nor a directory" "$pip_log" | tail -60
        echo "colab profile: pip install $* failed (log above)" >&2
        exit 1
    fi
}

# Colab's Python: 3.13 (COLAB_PYTHON_VERSION=3.12 for its older runtime, which Colab
# still offers), found on PATH or in pyenv (a shim may exist without being active).
PY_VERSION="${COLAB_PYTHON_VERSION:-3.13}"
find_python() {
    if [ -n "${COLAB_PYTHON:-}" ]; then echo "$COLAB_PYTHON"; return; fi
    if "python$PY_VERSION" --version >/dev/null 2>&1; then command -v "python$PY_VERSION"; return; fi
    if command -v pyenv >/dev/null 2>&1; then
        for candidate in "$(pyenv root)"/versions/"$PY_VERSION"*/bin/"python$PY_VERSION"; do
            if [ -x "$candidate" ]; then echo "$candidate"; return; fi
        done
    fi
    echo "colab profile: no Python $PY_VERSION found, using python3 ($(python3 --version 2>&1))" >&2
    echo "python3"
}

STEP="${COLAB_STEP:-all}"
case "$STEP" in all|install|test) ;; *) echo "colab profile: COLAB_STEP is install, test or unset, not '$STEP'" >&2; exit 2;; esac
t0=$(date +%s)
constraints="$(mktemp)"
if [ "$STEP" != test ]; then
PYTHON="$(find_python)"
echo "colab profile: $("$PYTHON" --version 2>&1) ($PYTHON) into $VENV, with ${COLAB_PINS[*]}"
"$PYTHON" -m venv --clear "$VENV"
quiet_pip --upgrade pip

# The constraints keep Colab's versions whatever memlib's ranges would allow;
# memlib itself goes in as a built wheel (no -e), so a file left out of the
# package shows up here as it would on Colab.
# The wheel is built from a private copy of the tree: setuptools builds in ./build, and
# two profiles building there at once (CI runs them side by side) collide.
source_copy="$(mktemp -d)"
trap 'rm -rf "$constraints" "$pip_log" "$source_copy"' EXIT
# (CI makes it while its tests run: caches they write are left out, and a file that changes while
# tar reads it, its exit status 1, is no failure)
{ tar --exclude=./.venv --exclude=./.git --exclude=./build --exclude=./artifacts --exclude=__pycache__ \
      --exclude=.pytest_cache --exclude=.hypothesis --warning=no-file-changed -cf - . || [ $? -eq 1 ]; } \
    | tar -xf - -C "$source_copy"
printf '%s\n' "${COLAB_PINS[@]}" >"$constraints"
# pytest-xdist is test tooling (Colab has none): the profile's tests use both cores.
quiet_pip -c "$constraints" "${COLAB_PINS[@]}" "$source_copy[course,test,llm]" "pytest-xdist==3.8.0"

"$VENV/bin/python" - "${COLAB_PINS[@]}" <<'PY'
import importlib.metadata as md
import sys

wanted = dict(pin.split("==") for pin in sys.argv[1:])
got = {name: md.version(name) for name in wanted}
print(f"Python {sys.version.split()[0]}; installed:", ", ".join(f"{n} {v}" for n, v in got.items()),
      "| memlib", md.version("memlib"), "| nbval", md.version("nbval"))
bad = {n: v for n, v in got.items() if v != wanted[n]}
if bad:
    sys.exit(f"colab profile: expected {wanted}, pip installed {bad}")
PY
fi
t_install=$(date +%s)
if [ "$STEP" = install ]; then
    echo "colab profile: installed in $((t_install - t0)) s"
    exit 0
fi
if [ ! -x "$VENV/bin/python" ]; then
    echo "colab profile: no virtualenv at $VENV: run COLAB_STEP=install first" >&2
    exit 2
fi

# Run from a scratch folder so `import memlib` finds the installed wheel, not ./memlib.
work="$(mktemp -d)"
trap 'rm -f "$constraints" "$pip_log"; rm -rf "$work"' EXIT
repo="$(pwd)"
cd "$work"
"$VENV/bin/python" -c "import memlib, sys; p = memlib.__file__; print('memlib from', p); sys.exit(0 if '$repo/memlib' not in p else 'memlib imported from the work tree, not the installed wheel')"

# Every module of the work tree must be in the wheel: Colab only has the wheel.
"$VENV/bin/python" - "$repo" <<'PY'
import importlib
import sys
from pathlib import Path

repo = Path(sys.argv[1])
missing = []
for path in sorted((repo / "memlib").rglob("*.py")):
    parts = path.relative_to(repo).with_suffix("").parts
    module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
    try:
        importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and error.name.startswith("memlib"):
            missing.append(f"{module} ({error})")
if missing:
    sys.exit("colab profile: in the repository but not in the installed package (add the package to "
             "[tool.setuptools] packages in pyproject.toml):\n  " + "\n  ".join(missing))
print("every memlib module imports from the installed package")
PY

# The markers of pyproject.toml say what this profile leaves to the main run: whole-notebook
# grading (it runs on the host, not on Colab; the grader on Colab's jupyter_client 7 is still
# exercised by tests/test_run_all.py), the project's own checks (packaging: this profile's own
# non-editable install of memlib above is that check on Colab's Python; the site, mypy, mutation
# testing, whose equivalent mutants are named by ast.unparse of the main run's Python), the
# PostgreSQL server Colab has not, the measurements of memlib's pure-Python code at scale, and the
# notebook runner (the solutions run under nbval below instead). The differential test (the
# grade equals the student's own check) runs on a sample: two correct and two wrong answers per
# exercise and the numpy answers (MEMLIB_ANSWER_SAMPLE; the main run checks all of them).
MARKERS="not browser and not grading and not maintainer and not server and not measure and not notebooks"
if [ -n "${COLAB_PYTHON_ONLY:-}" ]; then
    # Only the Python differs from the full profile: memlib's fast tests run its code on that Python;
    # kernels, widgets and figures meet the same pins in the full profile.
    MARKERS="$MARKERS and not slow"
fi
echo "== memlib's tests (-m \"$MARKERS\"; the differential test on a sample of answers) =="
# ipywidgets 7.7.1 still calls ipykernel.comm.Comm, which ipykernel 7 deprecates
# (Colab's ipykernel 6 does not): hide that one warning, keep the others.
# tests/test_quiz.py drives the quiz on ipywidgets 7 from the folder this names:
# here that is simply this venv's site-packages (ipywidgets 7.7.1 is installed).
MEMLIB_IPYWIDGETS7="$("$VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
export MEMLIB_IPYWIDGETS7

# Both steps run even if the first fails, so one CI run reports both.
tests_status=0
MEMLIB_ANSWER_SAMPLE=2 "$VENV/bin/python" -m pytest "$repo/tests" -m "$MARKERS" -q -p no:cacheprovider \
    -n "${COLAB_WORKERS:-2}" --dist loadgroup --rootdir "$repo" -c "$repo/pyproject.toml" --durations=5 \
    -W "ignore::DeprecationWarning:ipywidgets.widgets.widget" || tests_status=$?
t_tests=$(date +%s)

notebooks_status=0
if [ -n "${COLAB_PYTHON_ONLY:-}" ]; then
    # (CI's second profile: the notebooks already ran under Colab's pins on 3.13 and on the main Python)
    echo "== solution notebooks: not run in this profile (COLAB_PYTHON_ONLY) =="
else
    echo "== solution notebooks under nbval =="
    cp -r "$repo/solutions" "$work/solutions"
    # one notebook per worker (its cells run in order in one kernel)
    nb_log="$work/nbval.log"
    run_notebooks() {
        "$VENV/bin/python" -m pytest --nbval-lax --nbval-current-env --nbval-kernel-startup-timeout 240 \
            "$work/solutions" -q -p no:cacheprovider \
            -n "${COLAB_WORKERS:-2}" --dist loadfile --rootdir "$work" 2>&1 | tee "$nb_log"
        return "${PIPESTATUS[0]}"
    }
    run_notebooks || notebooks_status=$?
    # Colab's pinned ipykernel and jupyter_client start a kernel slowly; on a busy machine one may not
    # answer in time (seen once: "Kernel died before replying to kernel_info", and 243 passed when run
    # again). That failure alone gets one more run, said here; any other failure stands.
    if [ "$notebooks_status" != 0 ] && grep -q "Kernel died before replying to kernel_info" "$nb_log" \
            && ! grep -Eq "^FAILED " "$nb_log"; then
        echo "== a kernel did not start in time: the solution notebooks run once more =="
        notebooks_status=0
        run_notebooks || notebooks_status=$?
    fi
fi
t_nb=$(date +%s)

echo "colab profile timings: install $((t_install - t0)) s, tests $((t_tests - t_install)) s," \
     "notebooks $((t_nb - t_tests)) s, total $((t_nb - t0)) s"
if [ "$tests_status" != 0 ] || [ "$notebooks_status" != 0 ]; then
    echo "colab profile FAILED: memlib's tests exit $tests_status, solution notebooks exit $notebooks_status" >&2
    exit 1
fi
echo "colab profile passed"
