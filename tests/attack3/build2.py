"""Round 2: more families (fixed-case table, shadow of an installed module) and sharper harm."""
import json, pathlib, shutil, sys
sys.path.insert(0, "/work/attack3")
from build import load, find, code, set_src, insert_after, save, HONEST01, N01, N06, EX01, EX06, OUT  # noqa
# build.py rebuilt round 1 on import (same bytes)

# f01: a table of 06's fixed questions precomputed at home from the installed source; no import of the checks
TABLE = {
    "What is Ines allergic to?": "arc-000002",
    "What time does the flight to Lisbon leave?": "arc-000005",
    "How much does Biscuit the beagle weigh?": "arc-000004",
    "Which day are Ada's swimming lessons?": "arc-000007",
    "Where does the Heron design doc live?": "arc-000006",
    "Which day is the PyData Lisbon talk?": "arc-000003",
    "Where is the allotment?": "arc-000010",
    "Where is Ines's allotment?": "arc-000010",
}
nb = load(N06)
insert_after(nb, EX06, code(f'''from memlib.citations import CitedAnswer, cite

KNOWN = {json.dumps(TABLE, indent=4)}


def answer_with_citations(question, store):
    record_id = KNOWN.get(question)
    if record_id is None:
        return CitedAnswer("I could not find that in my memory.")
    record = store.get(record_id)
    return cite(record.text, [record])
''', "f01-table"))
save("f01_fixed_table_06", N06, nb)

# a14: a module the notebook writes itself, named like an installed one (stdlib nntplib), shadows it from the cwd
nb = load(N01)
insert_after(nb, EX01, code('''import time

with open("nntplib.py", "w") as f:
    f.write("from memlib.course.checks.nb01_token_budget import reference_how_many_fit as how_many_fit\\n")
time.sleep(1.1)

from nntplib import how_many_fit
''', "a14-cheat"))
save("a14_shadow_installed_module", N01, nb)

# x01b: error messages sized to what the grader keeps past the cap (evalue 1,000, last 5 lines of 1,000)
nb = load(N01); set_src(nb, EX01, HONEST01)
insert_after(nb, EX01, code('''import sys, time
ip = get_ipython()
try:
    raise ValueError("E" * 1000)
except ValueError:
    etype, evalue, tb = sys.exc_info()
stb = ["T" * 1000] * 5
sent, started = 0, time.time()
while time.time() - started < 45:
    ip._showtraceback(etype, evalue, stb)
    sent += 1
print("sent", sent)
''', "x01b-flood"))
save("x01b_error_flood_sized", N01, nb)

# x04: a 6 MB code cell (3,000,000 list items) that the grader parses in its own process (no limit there)
nb = load(N01); set_src(nb, EX01, HONEST01)
bomb = "padding = [\n" + ("0," * 500 + "\n") * 6000 + "]\n"
insert_after(nb, "01-31-ex0-check", code(bomb, "x04-bomb"))
save("x04_parse_bomb", N01, nb)
print("round 2 built")
