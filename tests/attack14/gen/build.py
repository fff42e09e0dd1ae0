"""Build the red-team submissions from the released notebooks."""
import copy, json, pathlib, shutil

ROOT = pathlib.Path(__file__).resolve().parents[2]
REL = ROOT / "notebooks"
SUB = ROOT / "out" / "submissions"


def load(name):
    return json.loads((REL / name).read_text())


def exercise_index(nb, marker):
    for i, c in enumerate(nb["cells"]):
        if c["cell_type"] == "code" and marker in "".join(c["source"]):
            return i
    raise KeyError(marker)


def graded_index(nb, gid):
    for i, c in enumerate(nb["cells"]):
        if (c.get("metadata", {}).get("memlib") or {}).get("grade_id") == gid:
            return i
    raise KeyError(gid)


def save(student, name, nb):
    d = SUB / student
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(json.dumps(nb, indent=1, ensure_ascii=False))


def replace_cell(name, marker, source):
    nb = load(name)
    i = exercise_index(nb, marker)
    nb["cells"][i]["source"] = source
    return nb


def insert_before_graded(name, gid, source):
    nb = load(name)
    i = graded_index(nb, gid)
    cell = {"cell_type": "code", "execution_count": None, "id": "extra-" + gid, "metadata": {},
            "outputs": [], "source": source}
    nb["cells"].insert(i, cell)
    return nb


NB01, NB03, NB07 = "01_context_window.ipynb", "03_archival_bm25.ipynb", "07_memory_poisoning.ipynb"

A01 = '''import sys
from functools import partial

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    loaded = getattr(sys, "modules")
    answers = loaded[".".join(["memlib", "course", "checks", "nb01_token_budget"])]
    kit = loaded[".".join(["memlib", "course", "checking"])]
    out = []
    kit.judge_fixed_then_fresh("01-token-budget", out.extend, lambda rng: (),
                               map(partial(answers.reference_how_many_fit, list(messages), window, system_prompt),
                                   [reserve]))
    return out[0]
'''

A02 = '''import sys
from functools import partial

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    loaded = getattr(sys, "modules")
    answers = loaded[".".join(["memlib", "course", "checks", "nb01_token_budget"])]
    kit = loaded[".".join(["memlib", "course", "checking"])]
    out = []
    kit.judge_parts([partial(out.extend, map(partial(answers.reference_how_many_fit, list(messages), window,
                                                     system_prompt), [reserve]))])
    return out[0]
'''

A03 = '''import math
import sys
from collections import Counter
from functools import partial


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    loaded = getattr(sys, "modules")
    answers = loaded[".".join(["memlib", "course", "checks", "nb03_bm25"])]
    kit = loaded[".".join(["memlib", "course", "checking"])]
    out = []
    kit.judge_fixed_then_fresh("03-bm25", out.extend, lambda rng: (),
                               map(partial(answers.reference_bm25_scores, query_tokens, docs_tokens, k1, b),
                                   [epsilon]))
    return out[0]
'''

A04 = '''import sys
from functools import partial


def my_scan(text):
    """The guard: a Verdict for one note."""
    loaded = getattr(sys, "modules")
    guard = loaded[".".join(["memlib", "guard"])]
    kit = loaded[".".join(["memlib", "course", "checking"])]
    out = []
    kit.judge_fixed_then_fresh("07-guard", out.extend, lambda rng: (), map(guard.scan, [text]))
    return out[0]
'''

A05 = '''import sys

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    loaded = getattr(sys, "modules")
    answers = loaded[".".join(["memlib", "course", "checks", "nb01_token_budget"])]
    return answers.reference_how_many_fit(list(messages), window, system_prompt, reserve)
'''

H01 = '''from memlib.context import MESSAGE_OVERHEAD
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

H02 = '''from itertools import accumulate, takewhile

from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    start = count(system_prompt) + reserve
    costs = (count(m) + MESSAGE_OVERHEAD for m in messages[::-1])
    totals = accumulate(costs, initial=start)
    next(totals)  # the fixed part alone
    return sum(1 for _ in takewhile(lambda total: total <= window, totals))
'''

H03 = '''from memlib.context import MESSAGE_OVERHEAD
from memlib.tokens import count


def how_many_fit(messages, window, system_prompt="", reserve=0):
    """How many of the newest `messages` fit in `window` tokens next to the system prompt and the reserve."""
    budget = window - count(system_prompt) - reserve
    i = len(messages) - 1
    n = 0
    while i >= 0:
        cost = count(messages[i]) + MESSAGE_OVERHEAD
        if cost > budget:
            return n
        budget -= cost
        n += 1
        i -= 1
    return n
'''

H04 = '''import math
from collections import Counter


def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):
    """BM25 okapi score of every document for the query, as rank_bm25.BM25Okapi computes it."""
    n_docs = len(docs_tokens)
    if n_docs == 0:
        return []
    tfs = [Counter(doc) for doc in docs_tokens]
    lengths = [len(doc) for doc in docs_tokens]
    avgdl = sum(lengths) / n_docs
    df = Counter()
    for tf in tfs:
        df.update(tf.keys())
    idf = {}
    negative = []
    for term, n in df.items():
        value = math.log(n_docs - n + 0.5) - math.log(n + 0.5)
        idf[term] = value
        if value < 0:
            negative.append(term)
    floor = epsilon * (sum(idf.values()) / len(idf)) if idf else 0.0
    for term in negative:
        idf[term] = floor
    scores = []
    for tf, length in zip(tfs, lengths):
        score = 0.0
        for q in query_tokens:
            f = tf.get(q, 0)
            score += idf.get(q, 0.0) * (f * (k1 + 1) / (f + k1 * (1 - b + b * length / avgdl)))
        scores.append(score)
    return scores
'''

if __name__ == "__main__":
    if SUB.exists():
        shutil.rmtree(SUB)
    save("a01_launder_judge", NB01, replace_cell(NB01, "EXERCISE 0:", A01))
    save("a02_launder_parts", NB01, replace_cell(NB01, "EXERCISE 0:", A02))
    save("a03_launder_bm25", NB03, replace_cell(NB03, "EXERCISE 2:", A03))
    save("a04_launder_guard", NB07, insert_before_graded(NB07, "07-guard", A04))
    save("a05_direct_ref", NB01, replace_cell(NB01, "EXERCISE 0:", A05))
    save("h01_loop", NB01, replace_cell(NB01, "EXERCISE 0:", H01))
    save("h02_functional", NB01, replace_cell(NB01, "EXERCISE 0:", H02))
    save("h03_index", NB01, replace_cell(NB01, "EXERCISE 0:", H03))
    save("h04_bm25", NB03, replace_cell(NB03, "EXERCISE 2:", H04))
    print(sorted(p.name for p in SUB.iterdir()))
