"""Round 6: notebook 05's final decider check through the %time cheat (the reference decider subclassed)."""
import sys
sys.path.insert(0, "/work/attack3")
from build import load, code, insert_after, save  # noqa
import build2, build3, build4, build5  # noqa  (rebuild earlier rounds, same bytes)

N05 = "05_who_decides"
nb = load(N05)
insert_after(nb, "05-25-exercise", code(
    '%time from memlib.policies import ReferenceDecider; MyDecider = type("MyDecider", (ReferenceDecider,), {})\n',
    "r6a-cheat"))
save("r6a_time_magic_decider", N05, nb)
print("round 6 built")
