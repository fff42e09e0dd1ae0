#!/bin/bash
# Run the grader once on the whole class (after /tmp/attack8-go exists), with a light monitor.
cd /work/attack8-view
OUTF=${1:-out/grades.csv}; FB=${2:-out/fb}; TAG=${3:-1}
mkdir -p out/tmp
( while sleep 2; do
    f=$(find out/tmp -type f -printf '%s %p\n' 2>/dev/null | sort -n | tail -1)
    echo "$(date +%T) largest: $f"
  done ) > out/monitor$TAG.log 2>&1 &
MON=$!
TMPDIR=/work/attack8-view/out/tmp /usr/bin/time -v -o out/time$TAG.txt \
  .venv/bin/python -m memlib grade out/submissions/* --release /work/attack8-view/notebooks \
  --out $OUTF --feedback $FB -j 1 --sandbox bwrap --quiet > out/grade$TAG.stdout 2> out/grade$TAG.stderr
echo "exit $?" >> out/grade$TAG.stdout
kill $MON
ps aux > out/ps_after$TAG.txt
