"""Processes records in batches of equal created_at (itertools.groupby); plain token Jaccard; a batch member never replaces its batch-mates."""
from itertools import groupby

from memlib.consolidate import change_cue, similarity_tokens


def _jaccard(a, b):
    return len(a & b) / len(a | b) if a | b else 0.0


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    ordered = sorted(store, key=lambda r: (r.created_at, r.id))
    words = {r.id: similarity_tokens(r.text) for r in ordered}
    current = {}  # id -> record, still current among those seen in earlier batches
    for _, batch in groupby(ordered, key=lambda r: r.created_at):
        batch = list(batch)
        claimed = set()
        for new in batch:
            same_subject = [o for o in current.values() if o.tags == new.tags and o.id not in claimed]
            if not same_subject:
                continue
            old = max(same_subject, key=lambda o: (_jaccard(words[o.id], words[new.id]), o.created_at, o.id))
            sim = _jaccard(words[old.id], words[new.id])
            cue = change_cue(new.text)
            if cue is not None and change_cue(old.text) is None and sim >= 0.12:
                reason = f"changed: {cue!r}, Jaccard {sim:.2f}"
            elif sim >= 0.3:
                reason = f"duplicate: Jaccard {sim:.2f}"
            else:
                continue
            store.supersede(old.id, new.id, by="consolidation", reason=reason)
            claimed.add(old.id)
        for old_id in claimed:
            del current[old_id]
        current.update((r.id, r) for r in batch)
    for rid in ends:
        end = ends[rid]
        if end <= now and not (store.get(rid).valid_to and store.get(rid).valid_to <= end):
            store.expire(rid, at=end, by="consolidation", reason=f"stated end {end.date()}")
