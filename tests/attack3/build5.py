"""Round 5: a chain of 30,000 top-level assignments ending in the (honest) answer: the source reading's
closure scans every binding once per name it reaches (quadratic), in the grader, outside every limit."""
import sys
sys.path.insert(0, "/work/attack3")
from build import load, code, set_src, insert_after, save, HONEST01, N01, EX01  # noqa
import build2, build3, build4  # noqa  (rebuild earlier rounds, same bytes)

N = 30_000
lines = ["_v0 = how_many_fit"] + [f"_v{i} = _v{i - 1}" for i in range(1, N)] + [f"how_many_fit = _v{N - 1}"]
nb = load(N01); set_src(nb, EX01, HONEST01)
insert_after(nb, EX01, code("\n".join(lines) + "\n", "x05-chain"))
save("x05_quadratic_chain", N01, nb)
print("round 5 built")
