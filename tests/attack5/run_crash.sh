#!/bin/bash
# each crasher graded next to one honest student; one run at a time
cd /work/attack5
run() {  # name, extra args..., submissions
  name=$1; shift
  /usr/bin/time -v -o logs/$name.time nice -n 5 /work/attack5-venv/bin/python -m memlib grade "$@" \
     --release /work/attack5-view/notebooks --out out/$name.csv --feedback out/feedback-$name \
     -j 1 --sandbox bwrap --quiz-points 1 > logs/$name.stdout 2> logs/$name.stderr
  echo "exit $?" >> logs/$name.stdout
}
run crash_x01 submissions_crash/x01_null_metadata submissions/h02_honest_class_loop
run crash_x02 submissions_crash/x02_corrupt_zip.zip submissions/h02_honest_class_loop
run crash_x03 --due due.csv submissions_crash/x03_zip_month_zero.zip submissions/h02_honest_class_loop
# added after the first crash runs
[ "$1" = x04 ] && run crash_x04 submissions_crash/x04_bad_byte_in_file_name submissions/h02_honest_class_loop
