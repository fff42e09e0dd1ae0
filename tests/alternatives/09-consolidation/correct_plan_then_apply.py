"""Two phases: plan every decision first (overlap coefficient on rarity-weighted words), then apply supersedes, then expiries."""
import math
from collections import Counter

from memlib.consolidate import change_cue, similarity_tokens

CHANGED_AT, DUPLICATE_AT = 0.2, 0.5


def _plan(records):
    words = {r.id: similarity_tokens(r.text) for r in records}
    df = Counter(w for ws in words.values() for w in ws)
    weight = lambda w: math.log(1 + len(records) / df[w])

    def score(a, b):
        small = min(words[a], words[b], key=lambda ws: sum(map(weight, ws)))
        total = sum(map(weight, small))
        shared = words[a] & words[b]
        return (sum(map(weight, shared)) / total if total else 0.0), sorted(shared, key=lambda w: df[w])

    plan, replaced = [], set()
    for i, new in enumerate(records):
        options = []
        for old in records[:i]:
            if old.id in replaced or old.created_at == new.created_at or set(old.tags) != set(new.tags):
                continue
            s, shared = score(old.id, new.id)
            options.append((s, old.created_at, old.id, shared))
        if not options:
            continue
        s, _, old_id, shared = max(options)
        old = next(r for r in records if r.id == old_id)
        cue = change_cue(new.text)
        if cue and change_cue(old.text) is None and s >= CHANGED_AT:
            plan.append((old_id, new.id, f"changed: {cue!r} in the newer record; shared {' '.join(shared[:3])}"))
        elif s >= DUPLICATE_AT:
            plan.append((old_id, new.id, f"duplicate: same fact again ({s:.2f}); shared {' '.join(shared[:3])}"))
        else:
            continue
        replaced.add(old_id)
    return plan


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    records = sorted(list(store), key=lambda r: (r.created_at, r.id))
    for old_id, new_id, reason in _plan(records):
        store.supersede(old_id, new_id, by="consolidation", reason=reason)
    for record_id in sorted(ends):
        end = ends[record_id]
        if now < end:
            continue  # not over yet
        ended = store.get(record_id).valid_to
        if ended is None or ended > end:
            store.expire(record_id, at=end, by="consolidation", reason=f"said to hold until {end:%d %b %Y}")
