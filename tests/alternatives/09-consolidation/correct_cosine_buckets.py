"""Buckets records by subject (tag set) and compares tf-idf cosine within a bucket; expiry skips records whose final valid_to already falls on or before the stated end."""
import math
from collections import defaultdict

from memlib.consolidate import change_cue, similarity_tokens


def _vectors(records):
    n = len(records)
    df = defaultdict(int)
    toks = {}
    for r in records:
        toks[r.id] = similarity_tokens(r.text)
        for t in toks[r.id]:
            df[t] += 1
    vecs = {}
    for rid, ts in toks.items():
        v = {t: math.log(n / df[t]) + 0.1 for t in ts}
        norm = math.sqrt(sum(x * x for x in v.values())) or 1.0
        vecs[rid] = {t: x / norm for t, x in v.items()}
    return vecs


def _cosine(a, b):
    return sum(x * b[t] for t, x in a.items() if t in b)


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    records = list(store)
    vecs = _vectors(records)
    buckets = defaultdict(list)
    for r in records:
        buckets[frozenset(r.tags)].append(r)
    for bucket in buckets.values():
        bucket.sort(key=lambda r: (r.created_at, r.id))
        live = []
        for new in bucket:
            older = [o for o in live if o.created_at < new.created_at]
            if older:
                old = max(older, key=lambda o: (_cosine(vecs[o.id], vecs[new.id]), o.created_at))
                sim = _cosine(vecs[old.id], vecs[new.id])
                cue = change_cue(new.text)
                kind = None
                if cue and not change_cue(old.text) and sim >= 0.2:
                    kind = f"changed: the newer record says {cue!r} (cosine {sim:.2f})"
                elif sim >= 0.4:
                    kind = f"duplicate: cosine {sim:.2f}"
                if kind:
                    store.supersede(old.id, new.id, by="consolidation", reason=kind)
                    live.remove(old)
            live.append(new)
    for rid, end in ends.items():
        record = store.get(rid)
        over = end <= now
        replaced_first = record.valid_to is not None and record.valid_to <= end
        if over and not replaced_first:
            store.expire(rid, at=end, by="consolidation", reason="its stated end has passed")
