"""Same subject = same tags AND shared 'anchor' words (the record's rarest words); then containment decides duplicate vs changed; date-typed ends accepted."""
from collections import Counter
from datetime import date, datetime

from memlib.consolidate import change_cue, similarity_tokens

ANCHORS = 8


def _as_datetime(day):
    if isinstance(day, datetime):
        return day
    if isinstance(day, date):
        return datetime(day.year, day.month, day.day)
    return datetime.fromisoformat(str(day))


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    records = sorted(store, key=lambda r: (r.created_at, r.id))
    words = {r.id: similarity_tokens(r.text) for r in records}
    df = Counter(w for r in records for w in words[r.id])
    anchors = {r.id: set(sorted(words[r.id], key=lambda w: (df[w], w))[:ANCHORS]) for r in records}

    successor = {}
    for k, new in enumerate(records):
        best = None
        for old in records[:k]:
            if old.id in successor or old.created_at >= new.created_at or sorted(old.tags) != sorted(new.tags):
                continue
            shared_anchors = anchors[new.id] & words[old.id]
            if not shared_anchors:
                continue
            contain = len(words[old.id] & words[new.id]) / min(len(words[old.id]), len(words[new.id]))
            if best is None or (contain, old.created_at) > best[0:2]:
                best = (contain, old.created_at, old, shared_anchors)
        if best is None:
            continue
        contain, _, old, shared = best
        cue = change_cue(new.text)
        if cue and not change_cue(old.text) and (len(shared) >= 2 or contain >= 0.3):
            reason = f"changed: {cue!r}; same subject ({', '.join(sorted(shared))})"
        elif contain >= 0.6 and len(shared) >= 2:
            reason = f"duplicate: {contain:.0%} of the words shared ({', '.join(sorted(shared))})"
        else:
            continue
        store.supersede(old.id, new.id, by="consolidation", reason=reason)
        successor[old.id] = new.id

    today = _as_datetime(now)
    for rid, end in ends.items():
        end = _as_datetime(end)
        if end > today:
            continue
        ended = store.get(rid).valid_to
        if ended is not None and ended <= end:
            continue
        store.expire(rid, at=end, by="consolidation", reason=f"the record said it held until {end:%Y-%m-%d}")
