"""The stages of `python -m memlib grade`, one module each.

- `model`: the data every stage shares (an assignment, a gradebook row, one
  notebook's result, a graded cell's outcome) and the grader's small text helpers;
- `collect`: the release and the submissions: finding each student's notebooks,
  refusing links and special files, reading them leniently, planning the jobs;
- `releases`: which release each notebook is graded against (the current one, or
  an older release folder that has its graded cells) and the note that says so;
- `rebuild`: the gradable copy of a notebook (graded cells restored from the
  release) and the grader's first cell;
- `run`: one job: the notebook run once in a kernel, the outcome of each cell;
- `check`: each graded cell's check, run by a checker process against the
  answer in the kernel (`memlib.course.checker`);
- `review`: the notes beside a row's points (repairs, reference code used);
- `provenance`: what an answer is made of, read from the notebook's source;
- `copying`: an answer that is the published reference up to names and layout (``--solutions``);
- `quizzes`: the quiz of a notebook as a graded item (``--quiz-points``);
- `report`: gradebook rows, the CSV, feedback files, the class summary, progress;
- `update`: a regrade written into the gradebook and feedback already there;
- `inert`: how student-controlled text is written to a CSV, a terminal, Markdown.

`memlib.course.grade` ties them together (`grade()`, the command line) and
re-exports their names; import from there. This package adds no behaviour of
its own.
"""
