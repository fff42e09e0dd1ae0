"""Regenerate the course datasets in data/ from the hand-written content beside this file.

Run from a checkout:  python data/generate.py   (or  python -m memlib.data.generate)
Output is byte-for-byte deterministic: a fixed seed drives every choice, so
re-running on an unchanged checkout leaves `git diff` empty.

This script only assembles and validates; it does not depend on memlib and does
not measure anything (that is `python -m memlib.evaluation`). Quizzes and core
memory examples are hand-written JSON files and are not touched here.
"""

from __future__ import annotations

import json
import random
import re
from datetime import datetime, timedelta
from pathlib import Path

try:  # run as `python -m memlib.data.generate`
    from . import world_conversation, world_facts, world_poisoning, world_poisoning_heldout, world_queries
except ImportError:  # run as `python data/generate.py`: the script's folder is importable
    import world_conversation  # type: ignore[no-redef]
    import world_facts  # type: ignore[no-redef]
    import world_poisoning  # type: ignore[no-redef]
    import world_poisoning_heldout  # type: ignore[no-redef]
    import world_queries  # type: ignore[no-redef]

HERE = Path(__file__).resolve().parent
SEED = 20260105

# One archival session per (roughly) week of the first half of 2026; the content
# pins facts to sessions whose dates make the story consistent (e.g. the move to
# Headingley happens between sessions 19 and 20).
SESSION_DATES = [
    "2026-01-05", "2026-01-12", "2026-01-19", "2026-01-28", "2026-02-03", "2026-02-09",
    "2026-02-20", "2026-02-26", "2026-03-02", "2026-03-06", "2026-03-09", "2026-03-24",
    "2026-03-30", "2026-04-01", "2026-04-08", "2026-04-15", "2026-04-27", "2026-05-05",
    "2026-05-12", "2026-06-01", "2026-06-06", "2026-06-10", "2026-06-17", "2026-06-24",
]
# Unpinned facts are spread over the sessions before the move, so that nothing
# about the old house lands after the new one.
UNPINNED_LAST_SESSION = 19


def session_id(n: int) -> str:
    return f"s{n:02d}"


def parse_fact_lines(text: str) -> list[dict]:
    """Parse world_facts.FACTS into dicts with key, session, supersedes, duplicate_of."""
    out = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) not in (3, 4):
            raise ValueError(f"fact line needs 3 or 4 '|' fields: {line!r}")
        m = re.fullmatch(r"([a-z0-9_]+)(?:@(\d+))?(?:>([a-z0-9_]+))?(?:~([a-z0-9_]+))?", parts[0])
        if not m:
            raise ValueError(f"bad fact key spec {parts[0]!r}")
        key, sess, old, dup = m.groups()
        out.append({
            "key": key,
            "session": int(sess) if sess else None,
            "supersedes": old,
            "duplicate_of": dup,
            "tags": [t.strip() for t in parts[1].split(",") if t.strip()],
            "text": parts[2],
            "source_url": parts[3] if len(parts) == 4 else None,
        })
    keys = [f["key"] for f in out]
    dupes = {k for k in keys if keys.count(k) > 1}
    if dupes:
        raise ValueError(f"duplicate fact keys: {sorted(dupes)}")
    return out


def trust_for(fact: dict) -> str:
    url = fact["source_url"]
    if url is None:
        # The user said it in chat. Near-duplicate restatements are the
        # assistant's own re-wording of something said earlier: unverified.
        return "unverified" if fact["duplicate_of"] else "trusted"
    if "kestrel.example" in url:
        return "trusted"  # the company wiki
    if "meanwood-primary" in url or "moortown-vets" in url:
        return "unverified"  # letters the user forwarded
    return "untrusted"  # the open web


def build_facts(rng: random.Random) -> tuple[list[dict], dict[str, str]]:
    facts = parse_fact_lines(world_facts.FACTS)
    by_key = {f["key"]: f for f in facts}
    for f in facts:
        for ref in (f["supersedes"], f["duplicate_of"]):
            if ref and ref not in by_key:
                raise ValueError(f"fact {f['key']} refers to unknown key {ref!r}")
    # A fact must come before anything that supersedes or restates it.
    later_limit: dict[str, int] = {}
    for f in facts:
        for ref in (f["supersedes"], f["duplicate_of"]):
            if ref and f["session"]:
                later_limit[ref] = min(later_limit.get(ref, 99), f["session"] - 1)
    for f in facts:
        if f["session"] is None:
            hi = min(UNPINNED_LAST_SESSION, later_limit.get(f["key"], 99))
            f["session"] = rng.randint(1, hi)
    for f in facts:
        for ref in (f["supersedes"], f["duplicate_of"]):
            if ref and by_key[ref]["session"] >= f["session"]:
                raise ValueError(f"{f['key']} (session {f['session']}) must come after {ref}")
    # Chronological ids: order by session, then by position in the file.
    order = sorted(range(len(facts)), key=lambda i: (facts[i]["session"], i))
    key_to_id: dict[str, str] = {}
    records = []
    turn_by_session: dict[int, int] = {}
    for n, i in enumerate(order, start=1):
        f = facts[i]
        fid = f"fact-{n:04d}"
        key_to_id[f["key"]] = fid
        turn = turn_by_session.get(f["session"], 0) + rng.randint(1, 6)
        turn_by_session[f["session"]] = turn
        start = datetime.fromisoformat(SESSION_DATES[f["session"] - 1]) + timedelta(hours=19)
        created = start + timedelta(minutes=turn * 2, seconds=rng.randint(0, 59))
        records.append({
            "id": fid,
            "text": f["text"],
            "tags": f["tags"],
            "session_id": session_id(f["session"]),
            "turn_id": turn,
            "source_url": f["source_url"],
            "created_at": created.isoformat(),
            "trust": trust_for(f),
            "key": f["key"],
            "supersedes": f["supersedes"],
            "duplicate_of": f["duplicate_of"],
        })
    for r in records:
        r["supersedes"] = key_to_id[r["supersedes"]] if r["supersedes"] else None
        r["duplicate_of"] = key_to_id[r["duplicate_of"]] if r["duplicate_of"] else None
    return records, key_to_id


def build_queries(key_to_id: dict[str, str], stale_ids: set[str]) -> list[dict]:
    out = []
    for raw in world_queries.QUERIES.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) not in (4, 5):
            raise ValueError(f"query line needs 4 or 5 '|' fields: {line!r}")
        kind, question, answer, rel = parts[:4]
        distract = parts[4] if len(parts) == 5 else ""
        if kind not in ("paraphrase", "morphology", "distractor", "lexical"):
            raise ValueError(f"unknown query kind {kind!r} in {line!r}")

        def ids(spec: str) -> list[str]:
            keys = [k.strip() for k in spec.split(",") if k.strip()]
            missing = [k for k in keys if k not in key_to_id]
            if missing:
                raise ValueError(f"query {question!r} names unknown fact keys {missing}")
            return [key_to_id[k] for k in keys]

        relevant = ids(rel)
        stale = sorted(set(relevant) & stale_ids)
        if stale:
            raise ValueError(f"query {question!r} marks superseded facts relevant: {stale}")
        out.append({
            "id": f"q-{len(out) + 1:03d}",
            "question": question,
            "kind": kind,
            "answer": answer,
            "relevant_ids": relevant,
            "distractor_ids": ids(distract),
        })
    return out


def write_jsonl(name: str, rows: list[dict]) -> None:
    # ensure_ascii keeps hidden Unicode in the poisoning set visible in diffs
    # as \u escapes instead of invisible characters.
    with open(HERE / name, "w", encoding="utf-8", newline="\n") as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=True, sort_keys=False) + "\n")


def main() -> None:
    rng = random.Random(SEED)
    facts, key_to_id = build_facts(rng)
    stale = {r["supersedes"] for r in facts if r["supersedes"]}
    queries = build_queries(key_to_id, stale)
    turns, questions = world_conversation.build(random.Random(SEED + 1))
    notes = world_poisoning.build(random.Random(SEED + 2))
    for r in facts:
        del r["key"]
    write_jsonl("facts.jsonl", facts)
    write_jsonl("queries.jsonl", queries)
    write_jsonl("conversation.jsonl", turns)
    write_jsonl("conversation_questions.jsonl", questions)
    write_jsonl("poisoning.jsonl", notes)
    # The held-out split has its own seed so growing the development split never reshuffles it.
    heldout = world_poisoning_heldout.build(random.Random(SEED + 15))
    write_jsonl("poisoning_heldout.jsonl", heldout)
    print(f"facts {len(facts)}, queries {len(queries)}, turns {len(turns)}, "
          f"conversation questions {len(questions)}, poisoning notes {len(notes)}, held-out poisoning notes {len(heldout)}")


if __name__ == "__main__":
    main()
