"""WRONG: expires every record whose stated end has come even when a newer record had already replaced it earlier, moving its end later than the replacement."""
import math

from memlib.consolidate import change_cue, similarity_tokens


def consolidation_pass(store, now, ends):
    """Dedupe, supersede and expire the records of `store` with its transitions; delete nothing."""
    records = sorted(store, key=lambda r: (r.created_at, r.id))
    tokens = {r.id: similarity_tokens(r.text) for r in records}
    df = {}
    for words in tokens.values():
        for w in words:
            df[w] = df.get(w, 0) + 1
    idf = {w: math.log((len(records) + 1) / (n + 0.5)) for w, n in df.items()}

    def overlap(a, b):
        union = tokens[a] | tokens[b]
        if not union:
            return 0.0, []
        shared = sorted(tokens[a] & tokens[b], key=lambda w: -idf[w])
        return sum(idf[w] for w in shared) / sum(idf[w] for w in union), shared

    current = []  # records not replaced so far
    for new in records:
        best, best_score, best_shared = None, 0.0, []
        for old in current:
            if old.created_at >= new.created_at or tuple(sorted(old.tags)) != tuple(sorted(new.tags)):
                continue  # only strictly older records on the same subject
            score, shared = overlap(old.id, new.id)
            if score > best_score:
                best, best_score, best_shared = old, score, shared
        cue = change_cue(new.text)
        words = ", ".join(best_shared[:4])
        if best is not None and cue and not change_cue(best.text) and best_score >= 0.1:
            store.supersede(best.id, new.id, by="consolidation", reason=f"changed: '{cue}', shares {words}")
            current.remove(best)
        elif best is not None and best_score >= 0.2:
            store.supersede(best.id, new.id, by="consolidation", reason=f"duplicate: overlap {best_score:.2f} on {words}")
            current.remove(best)
        current.append(new)

    for rid, end in ends.items():
        if end > now:
            continue
        record = store.get(rid)
        store.expire(rid, at=end, by="consolidation", reason=f"stated end {end:%Y-%m-%d} has come")
