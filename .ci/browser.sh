#!/usr/bin/env bash
# Real-browser tests: every solution notebook run in JupyterLab in headless
# Debian Chromium, driven by Playwright for Python (tests/test_browser.py).
#
#   bash .ci/browser.sh      # from anywhere; uses $PYTHON, the active virtualenv, or .venv
#
# Installs Debian's chromium with apt-get when /usr/bin/chromium is absent, and
# Playwright with pip (the pin in requirements-test.txt when there is one). It never
# runs `playwright install`: that downloads a browser build, which this
# network refuses. Screenshots land in artifacts/screenshots/ (git-ignored).
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1

# The interpreter with the project's requirements: $PYTHON, the active
# virtualenv, or .venv (made by .ci/run). Never pip-install into a system Python.
if [ -n "${PYTHON:-}" ]; then
    PY="$PYTHON"
elif [ -n "${VIRTUAL_ENV:-}" ]; then
    PY="$VIRTUAL_ENV/bin/python"
elif [ -x .venv/bin/python ]; then
    PY=.venv/bin/python
else
    echo "browser.sh: no virtualenv: activate the one with requirements.txt installed, or set PYTHON=" >&2
    exit 1
fi
if ! "$PY" -c "import sys, memlib, jupyterlab; sys.exit(sys.prefix == sys.base_prefix)" 2>/dev/null; then
    echo "browser.sh: $PY is not a virtualenv with memlib and jupyterlab (pip install -r requirements.txt)" >&2
    exit 1
fi

t0=$(date +%s)
if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" != 0 ]; then
        echo "browser.sh: /usr/bin/chromium is missing and this is not root: run" \
             "'apt-get update && apt-get install -y chromium' as root" >&2
        exit 1
    fi
    echo "browser.sh: installing Debian's chromium"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium >/dev/null
fi
# A CJK font, so the Chinese notebooks (and their screenshots) show text, not boxes.
if [ ! -f /usr/share/fonts/truetype/wqy/wqy-microhei.ttc ] && [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends fonts-wqy-microhei >/dev/null
fi
/usr/bin/chromium --version 2>/dev/null  # its wrapper script complains on stderr; harmless

pin="$(grep -E '^playwright==' requirements-test.txt 2>/dev/null || echo 'playwright==1.65.2')"
if ! "$PY" -c "import playwright.sync_api" 2>/dev/null; then
    "$PY" -m pip install -q "$pin" 2>&1 | grep -v "is ignored: it is neither a file nor a directory" || true
fi
"$PY" -c "import playwright.sync_api" # fail here, clearly, if the install did not work
t1=$(date +%s)

"$PY" -m pytest -m browser -p no:cacheprovider -q -rsP  # -rP: each notebook's timing and interactions
t2=$(date +%s)
echo "browser.sh timings: install $((t1 - t0)) s, browser tests $((t2 - t1)) s"
