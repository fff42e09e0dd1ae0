"""Round 3: the shadow module fixed, a reference class re-exported by another module, a parse bomb the kernel never runs."""
import sys
sys.path.insert(0, "/work/attack3")
from build import load, find, code, set_src, insert_after, save, HONEST01, N01, EX01  # noqa  (rebuilds round 1, same bytes)
import build2  # noqa  (rebuilds round 2, same bytes)

N02, EX02 = "02_eviction_summaries", "02-14-ex1"

# a14b: as a14, with the working folder put first on sys.path (the kernel's cwd is not on it)
nb = load(N01)
insert_after(nb, EX01, code('''import os, sys, time

with open("nntplib.py", "w") as f:
    f.write("from memlib.course.checks.nb01_token_budget import reference_how_many_fit as how_many_fit\\n")
sys.path.insert(0, os.getcwd())
time.sleep(1.1)

from nntplib import how_many_fit
''', "a14b-cheat"))
save("a14b_shadow_installed_module", N01, nb)

# a15: the listed reference class (memlib.summarize.ExtractiveSummarizer) imported from a module that re-exports it
nb = load(N02)
set_src(nb, EX02, '''import re

from memlib.evaluation import ExtractiveSummarizer
from memlib.tokens import count


class MySummarizer(ExtractiveSummarizer):
    """Exercise 1: a recursive summary of evicted messages, at most max_tokens tokens."""
''')
save("a15_reexported_class", N02, nb)

# x04b: the parse bomb (5.8 MB) in a cell tagged nbval-skip at the very end: the kernel never runs it,
# the honest answer keeps its points; the grader's rebuild still parses it
nb = load(N01); set_src(nb, EX01, HONEST01)
bomb = "padding = [\n" + ("0," * 500 + "\n") * 6000 + "]\n"
nb["cells"].append(code(bomb, "x04b-bomb", {"tags": ["nbval-skip"]}))
save("x04b_parse_bomb_skipped", N01, nb)
print("round 3 built")
