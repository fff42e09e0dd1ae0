"""What an answer is made of, read from the notebook's source outside the kernel (grading.provenance).

Each family of cheats a student might write, in the released notebook: every one
must carry a review flag naming what was seen. Every honest alternative answer of
tests/alternatives, put where a student would, must carry none.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import nbformat
import pytest
from conftest import honest_alternatives

from memlib.course.grade import load_release
from memlib.course.grading.provenance import notebook_findings, review_flags

ROOT = Path(__file__).resolve().parents[1]
RELEASE = {a.name[:2]: a for a in load_release(ROOT / "notebooks", [])}


def _submission(number: str, code: str, *, after_check: bool = False):
    """The released notebook `number` with `code` as a new cell just before its first graded cell (or at the end)."""
    assignment = RELEASE[number]
    nb = copy.deepcopy(assignment.nb)
    cell = {"cell_type": "code", "source": code, "metadata": {}, "outputs": [], "execution_count": None}
    nb.cells.insert(len(nb.cells) if after_check else assignment.graded[0].index, cell)
    return nb, assignment


def _flags(number: str, code: str) -> str:
    nb, assignment = _submission(number, code)
    return " | ".join(note for notes in review_flags(notebook_findings(nb, assignment)).values() for note in notes)


CHEATS = {
    "the answer is the reference (01)": (
        "01", "from memlib.course.checks.nb01_token_budget import reference_how_many_fit as _ref\nhow_many_fit = _ref",
        "memlib.course.checks.nb01_token_budget.reference_how_many_fit"),
    "a private helper of the check (03)": (
        "03", "from memlib.course.checks.nb03_bm25 import _bm25_variant\nbm25_scores = _bm25_variant",
        "memlib.course.checks.nb03_bm25._bm25_variant"),
    "the course's own guard (07)": ("07", "import memlib.guard\nmy_scan = memlib.guard.scan", "memlib.guard.scan"),
    "a profile hook switched off": (
        "01", "import sys\nsys.setprofile(lambda *a: None)\nfrom memlib.course.checks import reference_how_many_fit\n"
              "def how_many_fit(*a, **k):\n    return reference_how_many_fit(*a, **k)", ".setprofile"),
    "singledispatch": (
        "01", "import functools\nfrom memlib.course.checks import reference_how_many_fit as r\n"
              "how_many_fit = functools.singledispatch(r)", "reference_how_many_fit"),
    "a worker thread": (
        "03", "import threading\nimport rank_bm25\ndef bm25_scores(q, docs, **k):\n    out = []\n"
              "    t = threading.Thread(target=lambda: out.append(list(rank_bm25.BM25Okapi(docs).get_scores(q))))\n"
              "    t.start(); t.join()\n    return out[0]", "rank_bm25"),
    "a standard-library file name": (
        "01", "src = open('/dev/null').read()\nns = {}\nexec(compile(src, '/usr/lib/python3.12/os.py', 'exec'), ns)\n"
              "how_many_fit = ns.get('f')", "compile()"),
    "the reference rebuilt from its code": (
        "01", "import types\nfrom memlib.course.checks import reference_how_many_fit as r\n"
              "how_many_fit = types.FunctionType(r.__code__.replace(co_name='mine'), {})", "__code__"),
    "the watcher patched": (
        "03", "import memlib.course.serve as s\ns._Watch._profile = lambda *a: None\nfrom rank_bm25 import BM25Okapi\n"
              "def bm25_scores(q, docs, **k):\n    return list(BM25Okapi(docs).get_scores(q))", "memlib.course.serve"),
    "a name spelled at run time": (
        "01", "import importlib\nm = importlib.import_module('memlib.course.' + 'checks')\n"
              "how_many_fit = getattr(m, 'reference_' + 'how_many_fit')", "import importlib"),
    "the answer key (07)": (
        "07", "from memlib import datasets\nfrom memlib.course.checks import EXCUSED_ATTACKS\n"
              "BAD = {n.text for s in ('poisoning', 'poisoning_heldout') for n in datasets.load(s) if n.label != 'benign'}\n"
              "BAD |= {a for _, a in EXCUSED_ATTACKS}\n"
              "def my_scan(text):\n    from memlib.guard import Verdict\n    return Verdict(text in BAD)",
        "poisoning_heldout"),
    "a module the notebook wrote": (
        "01", "open('helper36.py', 'w').write('x')\nfrom helper36 import how_many_fit", "helper36"),
    "%run of a file": ("01", "%run helper.py\n", "%run"),
    "a reference behind %%time": (
        "01", "%%time\nfrom memlib.course.checks import reference_how_many_fit as how_many_fit", "reference_how_many_fit"),
    "a file written by %%writefile": ("01", "%%writefile mine.py\ndef how_many_fit(*a):\n    return 0", "%writefile"),
    # found by an outside attack written after the families above
    "a table of the reference's verdicts, filled in a loop (07)": (
        "07", "from memlib import datasets\nfrom memlib.guard import scan as _scan\n_TABLE = {}\n"
              "for _note in datasets.load('poisoning'):\n    _TABLE[_note.text] = _scan(_note.text)\n"
              "def my_scan(text):\n    return _TABLE[text]", "memlib.guard.scan"),
    "the library's loop through a registered dispatch (04)": (
        "04", "import functools\nfrom memlib.agent import Agent\n@functools.singledispatch\ndef _run(agent, text):\n"
              "    raise TypeError\n_run.register(Agent, Agent.step)\nclass MyAgent(Agent):\n"
              "    def step(self, user_text):\n        return _run(self, user_text)", "memlib.agent.Agent.step"),
    "the library's loop through super() (04)": (
        "04", "from memlib.agent import Agent\nclass MyAgent(Agent):\n    def step(self, user_text):\n"
              "        return super().step(user_text)", "memlib.agent.Agent.step"),
    "the reference decider inside the student's (05)": (
        "05", "from memlib.policies import ReferenceDecider\n_inner = ReferenceDecider()\n"
              "def next_call(self, view):\n    return _inner.next_call(view)\nMyDecider.next_call = next_call",
        "memlib.policies.ReferenceDecider"),
    # found by a third outside attack (tests/attack3), written before the rules that flag them
    "a reference behind a %time line magic (01)": (
        "01", "%time from memlib.course.checks.nb01_token_budget import reference_how_many_fit as how_many_fit",
        "reference_how_many_fit"),
    "a reference behind %timeit with its options (01)": (
        "01", "%timeit -n1 -r1 from memlib.course.checks import reference_how_many_fit as how_many_fit",
        "reference_how_many_fit"),
    "the reference decider behind %time (05)": (
        "05", '%time from memlib.policies import ReferenceDecider; MyDecider = type("MyDecider", (ReferenceDecider,), {})',
        "memlib.policies.ReferenceDecider"),
    "a reference imported inside the function, called through singledispatch (03)": (
        "03", "import functools\n\ndef bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):\n"
              "    from memlib.course.checks.nb03_bm25 import reference_bm25_scores as scores\n"
              "    return functools.singledispatch(scores)(query_tokens, docs_tokens, k1, b, epsilon)",
        "reference_bm25_scores"),
    "vars() as a back door (03)": (
        "03", "from memlib.course.checks.nb03_bm25 import reference_bm25_scores as _mine\n\n"
              "vars()['bm25_scores'] = _mine", "vars()"),
    "a walrus inside a comprehension (01)": (
        "01", "from memlib.course.checks.nb01_token_budget import reference_how_many_fit\n\n"
              "[how_many_fit := reference_how_many_fit for _ in (0,)]", "reference_how_many_fit"),
    "a chain of getattr with a spelled name (01)": (
        "01", "import memlib.course.checks.nb01_token_budget\n\nhow_many_fit = getattr(getattr(getattr(getattr("
              "memlib, 'course'), 'checks'), 'nb01_token_budget'), 'reference_' + 'how_many_fit')",
        "getattr() with a name computed at run time"),
    "the guard under another module's name (07)": (
        "07", "from memlib.scanner import scan as my_scan", "memlib.guard.scan"),
    "an answer key with the held-out split's name spelled in parts (07)": (
        "07", "from memlib import datasets\n_KEY = {}\nfor _split in ('poisoning', 'poisoning_' + 'heldout'):\n"
              "    for _note in datasets.load(_split):\n        _KEY[_note.text] = _note.label != 'benign'\n"
              "def my_scan(text):\n    from memlib.guard import Verdict\n    return Verdict(not _KEY.get(text))",
        "held-out split's name"),
    "the library's loop through partialmethod and a spelled name (04)": (
        "04", "import functools\nfrom memlib.agent import Agent\n\nclass MyAgent(Agent):\n"
              "    step = functools.partialmethod(getattr(Agent, 'st' + 'ep'))", "computed at run time"),
    "a reference imported in a class body (06)": (
        "06", "class _Toolbox:\n    from memlib.citations import answer_from_store as answer\n\n"
              "answer_with_citations = _Toolbox.answer", "memlib.citations.answer_from_store"),
    "a reference behind a default argument (09)": (
        "09", "from memlib.governance import consolidate_in_store as _impl\nimport functools\n\n"
              "def consolidation_pass(store, now, ends, _impl=functools.singledispatch(_impl)):\n"
              "    return _impl(store, now, ends)", "memlib.governance.consolidate_in_store"),
    "a module the notebook writes under an installed module's name (01)": (
        "01", "import os, sys\nwith open('nntplib.py', 'w') as f:\n"
              "    f.write('from memlib.course.checks.nb01_token_budget import reference_how_many_fit as how_many_fit')\n"
              "sys.path.insert(0, os.getcwd())\nfrom nntplib import how_many_fit", "'nntplib.py'"),
    "a reference's class re-exported by another module (02)": (
        "02", "from memlib.evaluation import ExtractiveSummarizer\n\nclass MySummarizer(ExtractiveSummarizer):\n"
              "    pass", "memlib.summarize.ExtractiveSummarizer"),
    # found by a fourth outside attack (written before the rules that flag them)
    "a reference looked up in a module's __dict__ by a spelled key (08)": (
        "08", "import memlib.core_memory as _cm\nCoreMemory = _cm.__dict__['Core' + 'Memory']", ".__dict__"),
    "the library's loop looked up in a class's __dict__, run in a worker thread (04)": (
        "04", "from concurrent.futures import ThreadPoolExecutor\nfrom memlib.agent import Agent\n"
              "_POOL = ThreadPoolExecutor(1)\nclass MyAgent(Agent):\n    def step(self, user_text):\n"
              "        return _POOL.submit(Agent.__dict__['st' + 'ep'], self, user_text).result()", ".__dict__"),
    "the checks' own code loaded by pkgutil.resolve_name (01)": (
        "01", "import pkgutil\nhow_many_fit = pkgutil.resolve_name('memlib.course.' + 'checks:reference_how_many_fit')",
        "import pkgutil"),
    "a profiler set first, so a watch that yields to one stays off (06)": (
        "06", "import cProfile\ncProfile.Profile().enable()\nfrom memlib import citations\n"
              "def answer_with_citations(question, store):\n    return citations.answer_from_store(question, store)",
        "import cProfile"),
    # attack 5: a reference fetched by getattr with a constant name, called through functools' wrappers
    "the library's loop through getattr with a constant name and partialmethod (04)": (
        "04", "import functools\nfrom memlib.agent import Agent\nclass MyAgent(Agent):\n"
              "    step = functools.partialmethod(getattr(Agent, 'step'))", "memlib.agent.Agent.step"),
    "the guard through getattr with a constant name and singledispatch (07)": (
        "07", "import functools\nimport memlib.guard\n"
              "def my_scan(text):\n    return functools.singledispatch(getattr(memlib.guard, 'scan'))(text)",
        "memlib.guard.scan"),
    "an input transformer that hides a cell from the reading (03)": (
        "03", "get_ipython().input_transformers_cleanup.append(lambda lines: [l.lstrip('§') for l in lines])",
        ".input_transformers_cleanup"),
    # attack 6 (tests/attack6): a reference by a dotted name in a string, or through a second name for its module
    "a reference located by pydoc, called through singledispatch (01)": (
        "01", "import functools\nimport pydoc\n_helper = functools.singledispatch(pydoc.locate("
              "'memlib.course.checks.nb01_token_budget.reference_how_many_fit'))\n"
              "def how_many_fit(messages, window, system_prompt='', reserve=0):\n"
              "    return _helper(messages, window, system_prompt, reserve)", "import pydoc"),
    "a reference fetched by operator.attrgetter with a dotted name (01)": (
        "01", "import functools\nimport operator\nimport memlib.course\n_f = functools.singledispatch(operator.attrgetter("
              "'checks.nb01_token_budget.reference_how_many_fit')(memlib.course))\n"
              "def how_many_fit(*args):\n    return _f(*args)", "memlib.course.checks.nb01_token_budget"),
    "the guard through a second name for its module (07)": (
        "07", "import functools\nimport memlib.guard\n_G = memlib.guard\n_judge = functools.singledispatch(_G.scan)\n"
              "def my_scan(text):\n    return _judge(text)", "memlib.guard.scan"),
    "the library's loop through a second name for its class (04)": (
        "04", "import functools\nimport memlib.agent\nfrom memlib.agent import Agent\n_Base = memlib.agent.Agent\n"
              "_loop = functools.singledispatch(_Base.step)\nclass MyAgent(Agent):\n"
              "    def step(self, user_text):\n        return _loop(self, user_text)", "memlib.agent.Agent.step"),
    "a reference's class through a second name for its module (02)": (
        "02", "import memlib.summarize\n_S = memlib.summarize\n_fold = _S.ExtractiveSummarizer().summarize\n"
              "class MySummarizer:\n    def summarize(self, previous, evicted, max_tokens):\n"
              "        return _fold(previous, evicted, max_tokens)", "ExtractiveSummarizer"),
    "a reference through a chain of second names (06)": (
        "06", "import memlib.citations\n_C = memlib.citations\n_D = _C\n"
              "def answer_with_citations(question, store):\n    return _D.answer_from_store(question, store)",
        "memlib.citations.answer_from_store"),
    # attack 7 (tests/attack7): getattr handed around as a value, memlib's internals as a trampoline, a function's
    # defaults, the exercises' records, a cell nested too deeply to read
    "getattr bound to another name (02)": (
        "02", "import memlib.summarize\nfetch = getattr\n_Base = fetch(memlib.summarize, 'Extractive' + 'Summarizer')\n"
              "class MySummarizer(_Base):\n    pass", "getattr passed or bound as a value"),
    "a reference resolved by reduce(getattr, ...) (01)": (
        "01", "import functools\nimport memlib\n"
              "_path = ['cour' + 'se', 'checks', 'nb01_token_budget', 'reference_how_many_fit']\n"
              "_ref = functools.reduce(getattr, _path, memlib)\n"
              "def how_many_fit(*args):\n    return _ref(*args)", "getattr passed or bound as a value"),
    "the records of the exercises (01)": (
        "01", "from memlib.course.exercise import exercises\nREFS = exercises()['01-token-budget'].references",
        "imports memlib.course.exercise.exercises, the grader's own code"),
    "memlib's internals as a trampoline (06)": (
        "06", "import functools\nimport memlib.saves\nimport memlib.citations\n"
              "def answer_with_citations(question, store):\n"
              "    return memlib.saves._parse('x', functools.partial(memlib.citations.answer_from_store, question, store))",
        "memlib's internals (memlib.saves._parse)"),
    "memlib's internals imported by name (09)": (
        "09", "from memlib.saves import _parse\ndef consolidation_pass(store):\n    return _parse(store)",
        "from memlib.saves import _parse"),
    "a reference found among another function's defaults (07)": (
        "07", "from memlib.scanner import label_record, verdict_of\n"
              "def my_scan(text):\n    return verdict_of(label_record.__defaults__[0], text)", ".__defaults__"),
    # attack 8 (tests/attack8): another process, a stand-in object, local second names, memlib's public code that
    # runs a reference for the caller, 05's steps
    "a child process that imports the reference (01)": (
        "01", "import json, subprocess, sys\ndef how_many_fit(*args):\n    code = 'from memlib.course.checks import "
              "reference_how_many_fit as r; import json, sys; print(r(*json.load(sys.stdin)))'\n"
              "    done = subprocess.run([sys.executable, '-c', code], input=json.dumps(args), capture_output=True, "
              "text=True)\n    return int(done.stdout)", "import subprocess"),
    "os.popen (03)": ("03", "import os\ndef bm25_scores(*args, **kwargs):\n    return eval(os.popen('true').read())",
                      ".popen"),
    "a mock wrapping the reference (06)": (
        "06", "from unittest import mock\nimport memlib.citations\ndef _f():\n    module = memlib.citations\n"
              "    return module.answer_from_store\nanswer_with_citations = mock.Mock(wraps=_f())", "import unittest"),
    "a module held in a local name (06)": (
        "06", "import memlib.citations\ndef answer_with_citations(question, store):\n    module = memlib.citations\n"
              "    return module.answer_from_store(question, store)", "memlib.citations handled as a value"),
    "the reference's class held in a local name (04)": (
        "04", "from memlib.agent import Agent\nclass MyAgent(Agent):\n    def step(self, user_text):\n"
              "        base = Agent\n        return base.step(self, user_text)", "memlib.agent.Agent handled as a value"),
    "memlib's public code that runs the guard (07)": (
        "07", "from memlib.evaluation import RulesGuard\n_rules = RulesGuard()\n"
              "def my_scan(text):\n    return _rules.flags(text)", "memlib.evaluation.RulesGuard"),
    "memlib's public code that runs the consolidation (09)": (
        "09", "from memlib.sleeptime import text_merges\ndef consolidation_pass(store):\n    return text_merges(store)",
        "memlib.sleeptime.text_merges"),
    "a step of 05 that is the course's decider (05)": (
        "05", "from memlib.policies import ReferenceDecider\nclass MyDecider(ReferenceDecider):\n    pass",
        "memlib.policies.ReferenceDecider"),
    "a magic beside a line too long to transform (01)": (
        "01", "%time 1\nfrom memlib.course.checks import reference_how_many_fit as how_many_fit  # " + "x" * 5000,
        "a code cell with IPython syntax and a line over"),
    "a cell nested too deeply to read (01)": (
        "01", "from memlib.course.checks import reference_how_many_fit as how_many_fit\n_pad = "
              + " + ".join(["1"] * 3000), "nested too deeply for the grader to read"),
    # attack 9
    "the kernel's watch switched off through its public names": (
        "01", "import memlib.course.checking\nmemlib.course.watch.is_library_file = lambda f: True\n"
              "def how_many_fit(messages, window, system_prompt='', reserve=0):\n    return 0",
        "the course's grading code (memlib.course.watch.is_library_file)"),
    "a watch's class patched": (
        "01", "from memlib.course import watch as w\nw.ReferenceWatch.inspect_answer = lambda s, a: None",
        "imports memlib.course.watch, the grader's own code"),
    "%config running code (01)": (
        "01", "%config X.y = exec('from memlib.course.checks.nb01_token_budget import reference_how_many_fit "
              "as how_many_fit', globals())", "%config"),
    "automagic: a magic without its % (02)": (
        "02", "time from memlib.summarize import ExtractiveSummarizer as MySummarizer",
        "memlib.summarize.ExtractiveSummarizer"),
    "an auto-call escape (01)": ("01", "/exec 'how_many_fit = lambda *a, **k: 0'", "%autocall"),
    "a check module reached by attributes (02)": (
        "02", "import memlib\nflush = memlib.course.checks.nb02_flush.reference_flush",
        "the course's grading code (memlib.course.checks.nb02_flush.reference_flush)"),
    "a name resolved from a string by logging.config (01)": (
        "01", "import logging.config\nhow_many_fit = logging.config.BaseConfigurator({}).resolve("
              "'memlib.course.checks.nb01_token_budget.reference_how_many_fit')", "import logging.config"),
    "code in a timeit string (07)": (
        "07", "import timeit\ntimeit.timeit('import builtins, memlib.guard; builtins.my_scan = memlib.guard.scan', "
              "number=1)", "import timeit"),
    "memlib's code named in a string (01)": (
        "01", "_where = 'memlib.course.checks.nb01_token_budget'\n", "memlib's code named in a string"),
    # attack 10
    "a doctest prompt IPython strips inside a string (03)": (
        "03", 'import memlib.retrieval as R; bm25_scores = getattr(R, "BM25\\\n>>> Index")', "memlib.retrieval.BM25Index"),
    "an indented cell IPython dedents (02)": (
        "02", "    from memlib.summarize import ExtractiveSummarizer\n    MySummarizer = ExtractiveSummarizer",
        "memlib.summarize.ExtractiveSummarizer"),
    "%%timeit's setup line (01)": (
        "01", "%%timeit -n1 -r1 from memlib.course.checks import reference_how_many_fit as how_many_fit\npass",
        "reference_how_many_fit"),
    "%%prun's line after an option with a value (09)": (
        "09", "%%prun -s cumulative from memlib.governance import consolidate_in_store as consolidation_pass\npass",
        "memlib.governance.consolidate_in_store"),
    "a method bound by setattr (06)": (
        "06", "import memlib.citations\nclass _Impl:\n    pass\nsetattr(_Impl, 'run', staticmethod(memlib.citations."
              "answer_from_store))\ndef answer_with_citations(q, store):\n    return _Impl.run(q, store)", "setattr()"),
    "the reference reached through the class's bases (04)": (
        "04", "from memlib.agent import Agent\nclass MyAgent(Agent):\n    def step(self, text):\n"
              "        return type(self).__mro__[1].step(self, text)", ".__mro__"),
    "memlib's governance rule as a guard (07)": (
        "07", "from memlib import governance\ndef my_scan(text):\n    return governance.WriteRule().scanner(text)",
        "memlib.governance.WriteRule"),
    "the grader's name for its kernel side (01)": (
        "01", "def how_many_fit(*a, **k):\n    setattr(_memlib_serve.ReferenceWatch, '_note', lambda *x: None)\n"
              "    return 0", "the grader's own name _memlib_serve"),
    "a module's function replaced (03)": (
        "03", "import os.path\nos.path.abspath = lambda p: '/usr/lib/python3/x.py'", "os.path.abspath changed"),
    # attack 11
    "string.Formatter's get_field as a lookup by a string (03)": (
        "03", "import string, sys\ndef bm25_scores(q, d, k1=1.5, b=0.75, epsilon=0.25):\n"
              "    f = string.Formatter().get_field('0.modules[' + '.'.join(['memlib', 'retrieval']) + ']"
              ".reference_bm25', [sys], {})[0]\n    return f(q, d, k1, b, epsilon)", ".get_field"),
    "IPython's namespace by a key (02)": (
        "02", "class MySummarizer:\n    def summarize(self, previous, evicted, max_tokens):\n"
              "        return get_ipython().user_ns['ExtractiveSummarizer']().summarize(previous, evicted, max_tokens)",
        ".user_ns"),
    "the watch's own hook asked for (03)": (
        "03", "import sys\ndef bm25_scores(q, d, k1=1.5, b=0.75, epsilon=0.25):\n"
              "    sys.getprofile().__self__.codes.clear()\n    return [0.0] * len(d)", ".getprofile"),
    "an annotation evaluated as code (07)": (
        "07", "import typing\ndef f(x: \"__import__('mem' + 'lib.guard').scan\"): pass\n"
              "my_scan = typing.get_type_hints(f)['x']", ".get_type_hints"),
    "the frame of a traceback (01)": (
        "01", "try:\n    raise ValueError\nexcept ValueError as e:\n    frame = e.__traceback__.tb_frame", ".tb_frame"),
    # attack 12
    "memlib's registry of scorers (03)": (
        "03", "from memlib.retrieval import SCORERS\ndef bm25_scores(q, d, k1=1.5, b=0.75, epsilon=0.25):\n"
              "    index = SCORERS['bm25-okapi'].build(str.split)\n    return index", "memlib.retrieval.SCORERS"),
    "a helper that quotes a note with the guard's verdict (07)": (
        "07", "from types import SimpleNamespace\nfrom memlib.scanner import quote_as_data\n"
              "def my_scan(text):\n    return quote_as_data(SimpleNamespace(id='n', text=text))",
        "memlib.scanner.quote_as_data"),
    # attack 13
    "an IPython background job (07)": (
        "07", "from IPython.lib import backgroundjobs as bgjobs\nworker = bgjobs.BackgroundJobFunc(print)",
        "IPython.lib.backgroundjobs"),
    # attack 14
    "sys.modules by getattr with a constant name (01)": (
        "01", "import sys\nloaded = getattr(sys, 'modules')", ".modules (by getattr())"),
    # attack 15
    "the notebook's __name__ rebound (03)": (
        "03", "class _Name(str):\n    pass\n__name__ = _Name('__main__')", "__name__ rebound"),
    "a star import from memlib (03)": ("03", "from memlib.retrieval import *", "from memlib.retrieval import *"),
    "IPython's output cache (02)": ("02", "MySummarizer = type(Out[12])", "IPython's output cache (Out)"),
    "a completer that evaluates its text (07)": (
        "07", "import rlcompleter\nrlcompleter.Completer({}).attr_matches('x.y')", "import rlcompleter"),
    "a logging thread that runs the answer's calls (01)": (
        "01", "import logging.handlers, queue\njobs = queue.Queue()\n"
              "listener = logging.handlers.QueueListener(jobs, object())\nlistener.start()",
        "import logging.handlers"),
}


def test_a_student_cell_with_a_grade_id_of_its_own_is_read() -> None:
    nb, assignment = _submission("01", "from memlib.course.checks.nb01_token_budget import reference_how_many_fit "
                                       "as how_many_fit")
    nb.cells[assignment.graded[0].index]["metadata"]["memlib"] = {"grade_id": "01-my-notes"}
    notes = review_flags(notebook_findings(nb, assignment))
    assert "reference_how_many_fit" in " ".join(notes["01-token-budget"])


def test_a_cell_too_large_to_read_is_flagged_not_parsed(monkeypatch) -> None:
    from memlib.course.grading import provenance

    big = "padding = [" + "0, " * 40_000 + "0]\n"
    assert len(big) > provenance.CELL_READ_LIMIT_CHARS
    monkeypatch.setattr(provenance, "_parse", lambda source: pytest.fail(f"parsed {len(source)} characters"))
    nb, assignment = _submission("01", big)
    nb.cells = [c for c in nb.cells if c.get("cell_type") != "code" or c.get("source") == big]  # the one cell to read
    notes = " ".join(n for ns in review_flags(notebook_findings(nb, assignment)).values() for n in ns)
    assert f"a code cell of {len(big):,} characters that the grader did not read" in notes


def test_the_reading_grows_with_the_code_not_its_square() -> None:
    import time

    def seconds(n: int) -> float:
        chain = "x0 = 1\n" + "".join(f"x{i} = x{i - 1}\n" for i in range(1, n)) + f"how_many_fit = x{n - 1}\n"
        nb, assignment = _submission("01", chain)
        start = time.thread_time()  # CPU time: a busy machine's waits do not count
        notebook_findings(nb, assignment)
        return time.thread_time() - start

    seconds(200)  # imports and caches
    small, large = seconds(2_000), seconds(8_000)
    assert large < 12 * small + 0.5, (small, large)  # 4x the code: about 4x the time (16x if quadratic)


def test_a_statement_binding_thousands_of_names_costs_the_reading_its_size_not_a_product() -> None:
    """Attack 7's host bomb: 8 cells each binding 11,000 names to 40 reads of the checks' code, and an answer that
    reads every name; the reading judges each statement's reads once (it held gigabytes of findings before)."""
    import tracemalloc

    names = [chr(0x4E00 + i) for i in range(11_000)]  # one-character names: every cell stays under the read limits
    reads = ", ".join(f"C.a{i}" for i in range(40))
    bomb = [f"import memlib.course.checks as C\nif False:\n    {' = '.join(names)} = ({reads})" for _ in range(8)]
    answer = "def how_many_fit(*a):\n    return len(_all)"
    nb, assignment = _submission("01", answer)
    index = next(i for i, c in enumerate(nb.cells) if c.get("source") == answer)
    nb.cells[index:index] = [nbformat.v4.new_code_cell(cell) for cell in bomb]
    nb.cells.insert(index + 8, nbformat.v4.new_code_cell("if False:\n    _all = (" + ", ".join(names) + ")"))
    tracemalloc.start()
    notes = review_flags(notebook_findings(nb, assignment))
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert "memlib.course.checks" in " ".join(notes["01-token-budget"])
    assert peak < 300 * 2**20, f"{peak / 2**20:.0f} MB"  # a few times the notebook's own size, not gigabytes


def test_an_honest_subclass_with_annotations_and_a_call_of_its_base_raises_no_flag() -> None:
    code = ("from memlib.agent import Agent\nclass MyAgent(Agent):\n    def step(self, user_text: str) -> str:\n"
            "        helper: Agent = self\n        return str(helper)\n\nprobe = MyAgent(None) if False else None")
    assert "handled as a value" not in _flags("04", code)


def test_megabytes_of_nested_cell_metadata_are_cut_to_the_tags_when_read() -> None:
    """Attack 8's metadata bomb: 3.4 GB of grader and a 340 MB work file before; the grader keeps a cell's tags."""
    from memlib.course.grading.collect import read_submission_notebook

    nb, assignment = _submission("01", "x = 1")
    nested: list = []
    for _ in range(40):
        nested = [nested, []]
    nb.cells[0]["metadata"] = {"tags": ["keep", 3], "bomb": [nested] * 20_000}
    nb.metadata["bulk"] = [nested] * 20_000
    data = json.dumps(nb).encode()
    assert len(data) > 5_000_000
    read, error, _ = read_submission_notebook(data)
    assert error == "" and read is not None
    assert read.cells[0]["metadata"] == {"tags": ["keep"]}
    assert "bulk" not in read.metadata and read.metadata["memlib"] == nb.metadata["memlib"]


def test_a_notebook_of_millions_of_json_values_is_refused_before_it_is_parsed() -> None:
    """Attack 9's bomb: 72 MB of empty lists in the metadata took the grader's process to 2.1 GB while parsing."""
    import tracemalloc

    from memlib.course.grading.collect import MAX_JSON_VALUES, read_submission_notebook

    nb, _ = _submission("01", "x = 1")
    text = json.dumps(nb)
    bomb = text[:-1] + ', "bulk": [' + "[]," * MAX_JSON_VALUES + "[]]}"
    tracemalloc.start()
    read, error, _ = read_submission_notebook(bomb.encode())
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert read is None and "clear its outputs" in error and f"{MAX_JSON_VALUES:,}" in error
    assert peak < 100_000_000, peak  # the text and one count of it, never the parse
    read, error, _ = read_submission_notebook(text.encode())
    assert read is not None and error == ""


@pytest.mark.parametrize("name", sorted(CHEATS))
def test_each_cheat_family_is_flagged_with_what_was_seen(name: str) -> None:
    number, code, seen = CHEATS[name]
    flags = _flags(number, code)
    assert flags.startswith("review: read from the notebook's source"), name
    assert seen in flags, flags


def test_the_answer_key_names_the_check_module_too() -> None:
    flags = _flags(*CHEATS["the answer key (07)"][:2])
    assert "memlib.course.checks.EXCUSED_ATTACKS" in flags and "'poisoning_heldout'" in flags


def test_a_cell_the_grader_does_not_run_is_not_read() -> None:
    # an older release's Colab setup cell (another install line, still tagged nbval-skip) uses sys.modules
    assignment = RELEASE["01"]
    nb = copy.deepcopy(assignment.nb)
    setup = next(c for c in nb.cells if "nbval-skip" in c.metadata.get("tags", []))
    setup.source = setup.source.replace("@main", "@v0.2.0")
    assert notebook_findings(nb, assignment) == {}
    setup.metadata["tags"] = []  # run by the grader now: its sys.modules is the student's
    assert "the notebook uses .modules" in " ".join(n for ns in review_flags(notebook_findings(nb, assignment)).values()
                                                      for n in ns)


def test_the_releases_own_cells_raise_no_flag() -> None:
    # the release imports references in plain sight (use_or_reference) and loads held-out splits (07)
    for number, assignment in RELEASE.items():
        assert notebook_findings(assignment.nb, assignment) == {}, number


def test_an_honest_answer_that_reads_a_release_binding_is_not_flagged_for_its_locals() -> None:
    # `scanner` is a release binding (use_or_reference(my_scan, scan, ...)); here it is a local name only
    code = ("import re\ndef my_scan(text):\n    from memlib.guard import Verdict\n    scanner = re.compile('ignore')\n"
            "    return Verdict(bool(scanner.search(text)))")
    assert _flags("07", code) == ""


def test_an_answer_that_reads_the_release_binding_of_the_reference_is_flagged() -> None:
    # 07's release cell binds `scan` (memlib.guard.scan); an answer that calls it is the reference
    nb, assignment = _submission("07", "def my_scan(text):\n    return scan(text)", after_check=True)
    nb.cells.insert(assignment.graded[0].index, {"cell_type": "code", "source": "from memlib.guard import scan",
                                                 "metadata": {}, "outputs": [], "execution_count": None})
    notes = review_flags(notebook_findings(nb, assignment))
    assert "memlib.guard.scan" in " ".join(notes["07-guard"])


def test_every_honest_alternative_answer_carries_no_flag() -> None:
    answers = honest_alternatives(RELEASE)
    for name, nb, assignment in answers:
        assert review_flags(notebook_findings(nb, assignment)) == {}, name
    assert len(answers) >= 150


def test_a_harmless_name_from_types_raises_no_flag_and_a_code_builder_does() -> None:
    honest = ("from types import SimpleNamespace\n"
              "def how_many_fit(messages, window, system_prompt='', reserve=0):\n    return SimpleNamespace(n=0).n")
    assert _flags("01", honest) == ""
    assert "from types import FunctionType" in _flags("01", "from types import FunctionType\nhow_many_fit = None")


def test_a_helper_named_like_a_release_binding_after_the_check_is_not_flagged() -> None:
    """Attack 6's false flags: 03's and 07's release cells after the check bind `score_fn` and `scanner` to
    use_or_reference(..., reference); an honest helper of the same name before the check is the student's."""
    bm25 = ("import math\n\ndef score_fn(query_tokens, docs_tokens, k1, b, epsilon):\n"
            "    n = len(docs_tokens)\n    return [0.0 * n for _ in docs_tokens]\n\n"
            "def bm25_scores(query_tokens, docs_tokens, k1=1.5, b=0.75, epsilon=0.25):\n"
            "    return score_fn(query_tokens, docs_tokens, k1, b, epsilon)")
    assert _flags("03", bm25) == ""
    guard = ("from memlib.guard import Verdict\n\ndef scanner(text):\n    return Verdict(True, [], None)\n\n"
             "def my_scan(text):\n    return scanner(text)")
    assert _flags("07", guard) == ""
    # the same helper name bound to the reference before the check is read
    assert "reference_bm25_scores" in _flags(
        "03", "from memlib.course.checks import reference_bm25_scores as score_fn\n" + bm25.split("\n\n", 2)[2])


def test_a_table_of_fingerprints_is_flagged_and_a_few_hex_strings_are_not() -> None:
    import hashlib

    from memlib.datasets import load

    prints = sorted(hashlib.sha1(n.text.encode()).hexdigest()[:12] for n in load("poisoning") if n.is_injection)
    table = (f"import hashlib\nfrom memlib.guard import Verdict\n_SEEN = frozenset({prints[:40]!r})\n"
             "def my_scan(text):\n    if hashlib.sha1(text.encode()).hexdigest()[:12] in _SEEN:\n"
             "        return Verdict(False, ['seen'], 'known')\n    return Verdict(True, [], None)")
    assert "40 hexadecimal fingerprints" in _flags("07", table)
    few = table.replace(repr(prints[:40]), repr(prints[:3]) + " | {'deadbeef00', 'cafe'}")
    assert "fingerprints" not in _flags("07", few)


def test_attrgetter_by_a_plain_name_raises_no_flag_and_a_dotted_one_does() -> None:
    sort_key = ("import operator\n"
                "def how_many_fit(messages, window, system_prompt='', reserve=0):\n"
                "    ranked = sorted(messages, key=operator.attrgetter('real'))\n"
                "    return len(ranked) and 0")
    assert "attrgetter" not in _flags("01", sort_key)
    assert "attrgetter() with a dotted or computed name" in _flags(
        "01", "import operator\nget = operator.attrgetter('a.' + 'b')\ndef how_many_fit(*a):\n    return 0")


def test_the_usual_magics_raise_no_flag() -> None:
    code = ("%matplotlib inline\n%load_ext autoreload\n%autoreload 2\n%config InlineBackend.figure_format = 'retina'\n"
            "def how_many_fit(messages, window, system_prompt='', reserve=0):\n    return 0")
    assert _flags("01", code) == ""
    assert _flags("01", "%config") == "" and _flags("01", "time how_many_fit([], 10)") == ""
    assert _flags("01", "%%time\ndef how_many_fit(messages, window, system_prompt='', reserve=0):\n    return 0") == ""


def test_a_magic_s_code_is_found_after_its_options_in_two_parses_at_most() -> None:
    from memlib.course.grading.cellcode import code_in

    assert code_in("-n1 -r1 how_many_fit([], 10)") == "how_many_fit([], 10)"
    assert code_in("-s cumulative -q import memlib.guard") == "import memlib.guard"
    assert code_in("y = a - b") == "y = a - b" and code_in("-q") is None
    # 20,000 options before the code: two parses, not one per word (a cell of them must not stall the grader)
    padded = "%%prun " + "-q " * 20_000 + "from memlib.guard import scan as my_scan\npass"
    assert "memlib.guard.scan" in _flags("07", padded)


def test_honest_docstrings_naming_memlib_and_the_quiz_raise_no_flag() -> None:
    code = ('"""My BM25, written to agree with memlib.retrieval.BM25Index."""\n'
            "from memlib.course.quiz import show_quiz\n"
            "def how_many_fit(messages, window, system_prompt='', reserve=0):\n"
            '    """Unlike memlib.context.MainContext, this only counts."""\n    return 0')
    assert _flags("01", code) == ""


def test_an_answer_defined_below_its_check_is_read_where_the_rebuild_runs_it() -> None:
    from memlib.course.grading.rebuild import restore_graded_cells

    nb, assignment = _submission("06", "import memlib.citations as C\nanswer_with_citations = C.answer_from_store",
                                 after_check=True)
    stub = next(c for c in nb.cells if "def answer_with_citations" in c.source)
    stub.source = "pass"  # the exercise cell defines nothing: the rebuild moves the check below the last cell
    rebuilt, _ = restore_graded_cells(nb, assignment)
    sources = [c["source"] for c in rebuilt.cells]
    check_at = next(i for i, c in enumerate(rebuilt.cells) if "check_citation_contract(" in c["source"])
    assert sources.index(nb.cells[-1]["source"]) < check_at  # in the run, the answer comes first
    flags = review_flags(notebook_findings(rebuilt, assignment))
    assert "memlib.citations.answer_from_store" in " ".join(flags.get("06-citations", [])), flags


def test_bad_input_a_cell_that_is_not_python_or_not_text_raises_nothing() -> None:
    nb, assignment = _submission("01", "def how_many_fit(:\n")
    nb.cells.insert(1, {"cell_type": "code", "source": ["x = 1\n", "y = 2"], "metadata": {}, "outputs": []})
    nb.cells.insert(1, {"cell_type": "code", "metadata": {}, "outputs": []})  # no source at all
    assert notebook_findings(nb, assignment) == {}


def test_the_item_report_counts_flagged_rows_and_keeps_flags_out_of_failure_reasons(tmp_path: Path) -> None:
    import csv

    from memlib.course import item_analysis

    book = tmp_path / "grades.csv"
    book.write_text(
        "student,notebook,grade_id,points,max_points,status,reason\n"
        "ann,01.ipynb,01-token-budget,2,2,passed,\"review: read from the notebook's source: the answer uses x\"\n"
        "bob,01.ipynb,01-token-budget,0,2,failed,\"wrong count; review: read from the notebook's source: y\"\n"
        "cy,01.ipynb,01-token-budget,2,2,passed,\n", encoding="utf-8")
    assert item_analysis.main([str(book), "--out", str(tmp_path / "items")]) == 0
    row = next(csv.DictReader((tmp_path / "items" / "items.csv").open(encoding="utf-8")))
    assert row["review"] == "2" and row["reason_1"] == "wrong count"
    assert "<td>2</td></tr>" in (tmp_path / "items" / "items.html").read_text(encoding="utf-8")


def test_nfc_and_nfd_spellings_of_one_name_are_one_name_or_a_flagged_look_alike(tmp_path: Path) -> None:
    import unicodedata

    from memlib.course.grade import _discover, _plan

    composed, decomposed = unicodedata.normalize("NFC", "José"), unicodedata.normalize("NFD", "José")
    assert composed != decomposed
    (tmp_path / "mac" / decomposed).mkdir(parents=True)
    (tmp_path / "lms").mkdir()
    (tmp_path / "lms" / "ana").mkdir()
    alone = _discover([tmp_path / "mac" / decomposed, tmp_path / "lms" / "ana"])
    assert [s.student for s in alone] == [composed, "ana"]  # shown as one spelling
    (tmp_path / "lms" / composed).mkdir()
    (tmp_path / "lms" / decomposed).mkdir()
    both = _discover([tmp_path / "lms" / composed, tmp_path / "lms" / decomposed])
    assert [s.student for s in both] == [f"{composed} (look-alike 1)", f"{composed} (look-alike 2)"]
    assignment = RELEASE["01"]
    (tmp_path / "lms" / decomposed / assignment.name).write_text(json.dumps(assignment.nb), encoding="utf-8")
    jobs = _plan(both[1], [assignment])
    assert any(n.startswith("review: look-alike name") and "NFC/NFD" in n for n in jobs[0].notes)


@pytest.mark.grading
@pytest.mark.slow
def test_the_real_grader_flags_each_cheat_family_in_the_gradebook(tmp_path: Path) -> None:
    """One class, graded with the command line (bubblewrap, -j 2): every cheat scores 0 or carries the flag."""
    import csv

    from memlib.course import grade as grading

    chosen = ["the answer is the reference (01)", "a private helper of the check (03)", "the course's own guard (07)",
              "a profile hook switched off", "a worker thread", "the answer key (07)", "the watcher patched"]
    folders = []
    for n, name in enumerate(chosen):
        number, code, _ = CHEATS[name]
        nb, assignment = _submission(number, code)
        folder = tmp_path / "class" / f"cheat{n}"
        folder.mkdir(parents=True)
        (folder / assignment.name).write_text(json.dumps(nb), encoding="utf-8")
        folders.append(str(folder))
    out = tmp_path / "grades.csv"
    assert grading.main([*folders, "--release", str(ROOT / "notebooks"), "--out", str(out), "--sandbox", "bwrap",
                         "-j", "2", "--quiet", "--timeout", "900"]) == 0
    # the checks' rows (the written answers' rows, memlib.course.written, are a person's to score)
    rows = {r["student"]: r for r in csv.DictReader(out.open(encoding="utf-8"))
            if r["status"] != "missing" and "-written-" not in r["grade_id"]}
    assert len(rows) == len(chosen)
    for n, name in enumerate(chosen):
        row = rows[f"cheat{n}"]
        seen = CHEATS[name][2]
        assert float(row["points"]) == 0 or ("review: read from the notebook's source" in row["reason"]
                                             and seen in row["reason"]), (name, row)
