"""Checks behind the graded cells: one module per exercise, gathered here.

A graded cell imports its check *inside the cell* and calls it on the
student's answer, e.g. ``from memlib.course.checks import check_bm25;
check_bm25(bm25_scores)``. The kit (`CheckFailed`, `@graded`, `expect`) is
`memlib.course.checking`; each exercise's check, its reference and its
scenarios live in ``nbNN_<topic>.py`` beside this file. This package only
gathers them, so a graded cell imports from one place.

Adding a graded exercise is two files: the solution notebook, and
``nbNN_<topic>.py`` here with the exercise's record ``EXERCISE =
Exercise(grade_id="NN-<topic>", ...)`` (`memlib.course.exercise`: the graded
cell's grade_id, its points, what it checks) and the check decorated
``@graded(EXERCISE)``, listed in that module's ``__all__``.
Every ``nb*`` module of this folder is gathered below.
"""

import pkgutil
from importlib import import_module

from memlib.course.checking import *  # noqa: F401,F403
from memlib.course.checking import __all__ as _kit
from memlib.course.checks._common import ordinal

_MODULES = sorted(info.name for info in pkgutil.iter_modules(__path__) if info.name.startswith("nb"))

__all__ = [*_kit, "ordinal"]
for _name in _MODULES:
    _module = import_module(f"{__name__}.{_name}")
    globals().update({name: getattr(_module, name) for name in _module.__all__})
    __all__ += _module.__all__
del _name, _module
