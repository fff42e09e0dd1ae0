"""``python -m memlib release``: the English student notebooks, then the translated ones.

The English release is `memlib.course.release` (its `main` alone is
``python -m memlib.course.release``); the translations, ``notebooks/<lang>/``
from ``i18n/<lang>/*.po``, are `memlib.course.translation`. This module only
runs the two in order with one command line, so that neither of them imports
the other's command. A cell whose translation is missing or stale is released
in English and named (a warning when writing, a failure under ``--check``).
"""

from __future__ import annotations

import sys

from memlib.course import release, translation

__all__ = ["main"]


def main(argv: list[str] | None = None) -> int:
    """``python -m memlib release SOLUTIONS NOTEBOOKS [--check]``: exit 0, 1 (``--check`` found a difference) or 2."""
    args = release.parser().parse_args(argv)
    code = release.main(argv)
    if code == 2:
        return code
    try:
        if args.check:
            problems = translation.check_translations(args.solutions, args.notebooks)
            for problem in problems:
                print(problem)
            if not problems:
                print(f"{args.notebooks}/<language>/ is current with {args.solutions} and its translations")
            return 1 if problems else code
        written, untranslated = translation.release_translations(args.solutions, args.notebooks)
    except (translation.CatalogueError, release.ReleaseError) as error:
        print(f"release failed: {error}", file=sys.stderr)
        return 2
    for problem in untranslated:
        print(f"warning: released in English: {problem}", file=sys.stderr)
    for path in written:
        print(f"wrote {path}")
    print(f"{len(written)} translated notebook(s) written, the others were already current")
    return code


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
