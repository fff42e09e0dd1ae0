#!/bin/bash
# the main grading run (one at a time, -j 1), with wall time and peak memory
cd /work/attack5
/usr/bin/time -v -o logs/main.time nice -n 5 /work/attack5-venv/bin/python -m memlib grade submissions/* \
   --release /work/attack5-view/notebooks --out out/grades.csv --feedback out/feedback \
   -j 1 --sandbox bwrap --quiz-points 1 --due due.csv > logs/main.stdout 2> logs/main.stderr
echo "exit $?" >> logs/main.stdout
