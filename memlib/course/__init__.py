"""Course machinery: the code that turns solutions into a course and grades it.

- `memlib.course.release`: solutions/NN_topic.ipynb -> notebooks/NN_topic.ipynb
  (stubs, cleared outputs, checksummed graded cells, Colab badge and setup cell);
  the authoring conventions are at the top of that module.
- `memlib.course.checks`: where graded cells import their checks from; it gathers the
  checking kit (`memlib.course.checking`: `CheckFailed`, `@graded`, `expect`) and the
  checks, one module per exercise (`memlib.course.checks.nbNN_<topic>`).
- `memlib.course.grade`: `python -m memlib grade`, a class graded with nbval into a gradebook.
- `memlib.course.shards`: `grade --shard K/N` picks a shard's students; `grade merge` joins the shards.
- `memlib.course.item_analysis`: `grade items`, pass rate and failure reasons per check.
- `memlib.course.quiz`: where the notebooks import the self-check quiz from (`memlib.quiz` is the quiz).
- `memlib.course.config`: the repository slug and branch (the only place they are written).

Nothing is imported here, so `import memlib.course.checks` inside a graded
cell stays cheap and does not pull in nbformat, pytest or ipywidgets.
"""
