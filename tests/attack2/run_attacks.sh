#!/usr/bin/env bash
# Grade every attack submission of tests/attack2/submissions/ with the real grader
# (bubblewrap sandbox required, one notebook at a time), from the repository root:
#
#   tests/attack2/run_attacks.sh [PYTHON]
#
# Writes grading/attack2/grades.csv, grading/attack2/feedback/ and the notebooks as run
# in grading/attack2/work/ (grading/ is ignored by git), the class summary in
# grading/attack2/summary.txt and the peak memory (/usr/bin/time -v) in grading/attack2/time.txt.
set -euo pipefail
cd "$(dirname "$0")/../.."
PYTHON=${1:-/work/main/.venv/bin/python}
export PYTHONPATH=$PWD
OUT=grading/attack2
rm -rf "$OUT" && mkdir -p "$OUT"
nice -n 10 /usr/bin/time -v -o "$OUT/time.txt" \
  "$PYTHON" -m memlib grade tests/attack2/submissions/* --release notebooks/ \
    --out "$OUT/grades.csv" --feedback "$OUT/feedback/" --keep-work "$OUT/work/" \
    --sandbox bwrap -j 1 --timeout 600 --cell-timeout 120 --quiet \
  | tee "$OUT/summary.txt"
grep -E "Maximum resident|Elapsed" "$OUT/time.txt"
