"""A local model as the decider, measured: notebook 05's ten sessions, its figures, and its speed.

    python benchmarks/local_model.py [--model FILE --label NAME] [--out benchmarks/results/local_model.json]

Needs memlib[local-model]. Starts llama-cpp-python's server on a free localhost port (the same
`memlib.local_model.start_server` that `python -m memlib model serve` uses), records the first
load time, then plays `play_sessions` (fresh context each session, window 1024, as notebook 05)
with a `ChatPolicy` as the decider, timing every request. Writes one entry per model into the
JSON file (other models' entries are kept): the notebook's row (correct answers, memory calls,
calls per answer, memory tokens), the replies that were plain text and the requests that failed,
the median completion tokens per second over the requests, the median seconds per request, and
the command and machine. Without --model it measures the packaged model (SmolLM2-135M).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

from memlib.course.checks import play_sessions
from memlib.llm import ChatPolicy
from memlib.local_model import CHAT_FORMAT, MODEL_NAME, start_server

#: A small model can ramble on for thousands of tokens; a reply is capped as a chat app would cap it.
MAX_TOKENS = 256
RESULTS = Path(__file__).resolve().parent / "results" / "local_model.json"


class TimedChatPolicy(ChatPolicy):
    """A ChatPolicy that keeps (seconds, completion tokens) for every request."""

    timings: list[tuple[float, int]] = []

    def _complete(self, messages):
        start = time.perf_counter()
        response, attempts = super()._complete(messages)
        usage = getattr(response, "usage", None)
        TimedChatPolicy.timings.append((time.perf_counter() - start, getattr(usage, "completion_tokens", 0) or 0))
        return response, attempts


def measure(model_file: str | None, label: str, limit: int | None) -> dict:
    TimedChatPolicy.timings = []
    with start_server(model_file, port=None, n_ctx=8192, progress=lambda line: print(line, file=sys.stderr)) as server:
        load = server.load_seconds
        policies: list[TimedChatPolicy] = []

        def decider():
            policies.append(TimedChatPolicy(base_url=server.base_url, model=server.model, timeout=300,
                                            max_retries=0, max_tokens=MAX_TOKENS))
            return policies[-1]

        started = time.perf_counter()
        from memlib import datasets
        turns = questions = None
        if limit is not None:  # a quick look: the first `limit` statements and questions
            turns = [t for t in datasets.load("conversation")][: limit * 2]
            questions = list(datasets.load("conversation_questions"))[:limit]
        run = play_sessions(decider, label, turns=turns, questions=questions)
        elapsed = time.perf_counter() - started
    plain = sum(1 for p in policies for t in p.turns if t.note.startswith("plain text"))
    speeds = [tokens / seconds for seconds, tokens in TimedChatPolicy.timings if seconds > 0 and tokens > 0]
    return {"label": label, "model_file": Path(server.model_file).name, "chat_handler": CHAT_FORMAT,
            "row": run.row(), "requests": len(TimedChatPolicy.timings), "plain_text_replies": plain,
            "median_tokens_per_second": round(statistics.median(speeds), 1) if speeds else None,
            "median_seconds_per_request": round(statistics.median(s for s, _ in TimedChatPolicy.timings), 2)
            if TimedChatPolicy.timings else None,
            "first_load_seconds": round(load, 2), "sessions_seconds": round(elapsed, 1),
            "limit": limit, "max_tokens": MAX_TOKENS, "command": "python " + " ".join(sys.argv),
            "machine": f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}",
            "when": time.strftime("%Y-%m-%d")}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default=None, help="a GGUF file (default: the packaged model)")
    parser.add_argument("--label", default=MODEL_NAME)
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions (a quick look)")
    parser.add_argument("--out", default=str(RESULTS))
    args = parser.parse_args(argv)
    entry = measure(args.model, args.label, args.limit)
    out = Path(args.out)
    results = json.loads(out.read_text()) if out.exists() else {}
    results[args.label] = entry
    out.write_text(json.dumps(results, indent=1, sort_keys=True) + "\n")
    print(json.dumps(entry, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
