"""Checks behind the graded cells: one function per `grade_id`.

A graded cell imports its check *inside the cell* and calls it on the
student's answer, e.g. ``from memlib.course.checks import check_bm25;
check_bm25(bm25_scores)``. The kit (`CheckFailed`, `@graded`, `expect`) is
`memlib.course.checking`; the checks are in `checks_part1` (notebooks 01-04)
and `checks_part2` (05-07). This module only gathers them, so reloading it
(as the grader does when a student patched a check) restores every name.

Adding a check: write it in the part module of its notebook, decorated with
``@graded("<grade_id>")`` using the graded cell's grade_id, and list it in
that module's ``__all__``.
"""

from memlib.course.checking import *  # noqa: F401,F403
from memlib.course.checking import __all__ as _kit
from memlib.course.checks_part1 import *  # noqa: F401,F403
from memlib.course.checks_part1 import __all__ as _part1
from memlib.course.checks_part2 import *  # noqa: F401,F403
from memlib.course.checks_part2 import __all__ as _part2

__all__ = [*_kit, *_part1, *_part2]
