"""Notebook 09's check, exercise 6: the consolidation pass (dedupe, supersede, expire).

The student's `consolidation_pass(store, now, ends)` runs on a fresh ArchivalStore
of each world: the development facts (about Ines, `datasets.load("facts")`) and the
held-out facts (about Kofi, `datasets.load("consolidation_heldout")`, written before
this check). It must change the store only through its transitions
(`supersede`, `expire`), delete nothing, and is graded on what it leaves behind:

- nothing lost: every record still listable, with its text, tags, provenance and
  trust; no record added, none rejected;
- merges: each `supersede(old, new, reason="duplicate: ..." | "changed: ...")` is a
  decision (kind = the reason's first word), compared with the world's links on
  precision and recall, per kind and overall; a newer record is never superseded by
  an older one;
- expiry: a record whose stated end (`ends`) has come by `now` ends then (at its
  stated end, not at `now`), unless something replaced it earlier; nothing else is
  expired.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Callable

from memlib.course.checking import CheckFailed, expect, graded, passed
from memlib.course.exercise import Exercise
from memlib.course.checks._common import _as_callable, _call, _short_text

__all__ = ["check_consolidation", "consolidation_world", "DEV_ENDS", "THRESHOLDS", "grade_pass", "PassGrade"]

#: Development facts that say on which day they stop holding (hand-labelled from their text).
DEV_ENDS = {
    "fact-0024": "2026-01-31",  # tax return by 31 January
    "fact-0030": "2026-02-16",  # the on-call week that starts 9 February (replaced on 2 March)
    "fact-0065": "2026-02-28",  # data protection training by 28 February
    "fact-0108": "2026-03-04",  # dentist on 4 March
    "fact-0127": "2026-03-05",  # World Book Day costume
    "fact-0230": "2026-04-10",  # self-review due 10 April
    "fact-0204": "2026-05-08",  # Lisbon slides by 8 May
    "fact-0258": "2026-05-07",  # Ada's dentist check-up
    "fact-0076": "2026-05-12",  # library books due back
    "fact-0277": "2026-05-15",  # the job advert closes
    "fact-0293": "2026-06-11",  # team offsite in York
    "fact-0305": "2026-08-20",  # the ferry to Dublin: still ahead on the check's day
    "fact-0119": "2026-08-22",  # Cian's wedding: still ahead
}

#: The day each world is consolidated on (after its last record).
_NOW = {"development": datetime(2026, 7, 1), "held-out": datetime(2027, 6, 1), "edge cases": datetime(2026, 7, 1)}

#: A few records whose right treatment is a rule, not a judgement: a fact restated twice
#: (the third wording replaces the second, which already replaced the first: only current
#: records are candidates), two records written at the same instant (neither is older),
#: and a stated end that is exactly the day of the pass (it is over).
#: (id, text, tags, written at)
EDGE_RECORDS = (
    ("edge-1", "Kasia walks Biscuit at noon on office days.", ("pets",), "2026-01-05T09:00"),
    ("edge-2", "On office days Kasia walks Biscuit at noon.", ("pets",), "2026-02-02T09:00"),
    ("edge-3", "Kasia walks Biscuit at noon on office days.", ("pets",), "2026-03-02T09:00"),
    ("edge-4", "Ines's locker at the climbing wall is number 12.", ("hobbies",), "2026-04-01T09:00"),
    ("edge-5", "Ines's climbing wall locker is number 12.", ("hobbies",), "2026-04-01T09:00"),
    ("edge-6", "The allotment water tap is switched off until 1 July.", ("places",), "2026-05-04T09:00"),
)
EDGE_ENDS = {"edge-6": "2026-07-01"}
EDGE_LINKS = (("near_duplicate", "edge-2", "edge-1"), ("near_duplicate", "edge-3", "edge-2"))

#: Minimum precision and recall of the merge decisions, on each world: a pass must find
#: most links (recall) and be right about most of what it merges (precision), overall and
#: for each kind. Round values chosen after memlib's reference was measured once on both
#: worlds (development pairs 0.94/0.94, held-out 0.85/0.96; its weakest kind score is the
#: held-out duplicate precision, 0.60); nothing was changed because of the held-out facts.
THRESHOLDS = {"pair precision": 0.7, "pair recall": 0.7, "kind precision": 0.5, "kind recall": 0.5}


def consolidation_world(name: str = "development"):
    """(store, now, ends, links) of one world: a fresh ArchivalStore, the day, the stated ends, the links."""
    from memlib import datasets
    from memlib.archival import ArchivalStore, parse_when

    if name == "development":
        records, links, ends = datasets.load("facts"), datasets.load("fact_links"), DEV_ENDS
    elif name == "held-out":
        records = datasets.load("consolidation_heldout")
        links, ends = datasets.load("consolidation_heldout_links"), datasets.load("consolidation_heldout_ends")
    elif name == "edge cases":
        from memlib.archival import ArchivalRecord
        from memlib.datasets import FactLink

        records = [ArchivalRecord(i, text, tags=tags, session_id="s-edge", created_at=parse_when(at), trust="trusted")
                   for i, text, tags, at in EDGE_RECORDS]
        links, ends = [FactLink(*link) for link in EDGE_LINKS], EDGE_ENDS
    else:
        raise ValueError(f"unknown world {name!r}; use 'development', 'held-out' or 'edge cases'")
    now = _NOW[name]
    store = ArchivalStore(clock=lambda: now)
    for record in records:
        store.add_record(record)
    return store, now, {k: parse_when(v) for k, v in ends.items()}, tuple(links)


@dataclass(frozen=True)
class PassGrade:
    """How one pass did on one world: its decisions scored against the links."""

    world: str
    found: dict  # (newer, older) -> "duplicate" | "supersede"
    gold: dict
    scores: dict  # "pair precision", ..., "supersede precision", ...

    def __repr__(self) -> str:
        s = self.scores
        return (f"PassGrade({self.world}: {len(self.found)} merges for {len(self.gold)} links; pairs P "
                f"{s['pair precision']:.2f} R {s['pair recall']:.2f}; supersede P {s['supersede precision']:.2f} "
                f"R {s['supersede recall']:.2f}; duplicate P {s['duplicate precision']:.2f} "
                f"R {s['duplicate recall']:.2f})")


def _ratio(a: int, b: int) -> float:
    return a / b if b else 1.0


def _score(found: dict, gold: dict) -> dict:
    scores = {"pair precision": _ratio(sum(p in gold for p in found), len(found)),
              "pair recall": _ratio(sum(p in found for p in gold), len(gold))}
    for kind in ("supersede", "duplicate"):
        mine = {p for p, k in found.items() if k == kind}
        theirs = {p for p, k in gold.items() if k == kind}
        scores[f"{kind} precision"] = _ratio(len(mine & theirs), len(mine))
        scores[f"{kind} recall"] = _ratio(len(mine & theirs), len(theirs))
    return scores


def _fields(record) -> tuple:
    return (record.text, record.tags, record.session_id, record.turn_id, record.source_url,
            record.created_at, record.trust)


def _label(store, record_id: str) -> str:
    return f"{record_id} ({_short_text(store.get(record_id).text, 50)})"


def grade_pass(pass_fn: Callable, world: str = "development") -> PassGrade:
    """Run `pass_fn(store, now, ends)` on `world` and check it; CheckFailed says what is wrong."""
    store, now, ends, links = consolidation_world(world)
    before = {r.id: _fields(r) for r in store}
    logged = len(store.history())
    _call(pass_fn, (store, now, dict(ends)), where=f"on the {world} store")

    # -- nothing lost -----------------------------------------------------------
    after = {r.id: r for r in store}
    lost = [i for i in before if i not in after]
    expect(not lost, f"your pass deleted {len(lost)} record(s) of the {world} store, e.g. {lost[0] if lost else ''}",
           "never delete: retire a record with store.supersede(old_id, new_id, ...) or store.expire(id, at=...); "
           "it stays listable with its successor")
    added = [i for i in after if i not in before]
    expect(not added, f"your pass added record(s) {added[:3]} to the {world} store",
           "a consolidation pass links and dates the records that are there; it does not write new ones")
    for record_id, fields in before.items():
        record = after[record_id]
        expect(_fields(record) == fields,
               f"record {record_id} lost part of its text, tags or provenance: it was {fields!r}, "
               f"now {_fields(record)!r}",
               "use the store's transitions only; they keep tags, session, turn, source and trust as they were")
        expect(record.state == "active",
               f"record {record_id} is now {record.state!r}; a consolidation pass does not reject records",
               "retire an old fact with supersede or expire, which keep it active and listable")
    transitions = store.history()[logged:]
    strangers = sorted({t.action for t in transitions} - {"supersede", "expire"})
    expect(not strangers, f"your pass made {', '.join(strangers)} transition(s)",
           "a consolidation pass only supersedes and expires")
    wrong_by = [t for t in transitions if t.by != "consolidation"]
    expect(not wrong_by, f"{len(wrong_by)} transition(s) of your pass say they were made by "
                         f"{wrong_by[0].by if wrong_by else ''!r}",
           "pass by='consolidation' to supersede and expire, so the history says who decided")

    # -- merges ------------------------------------------------------------------
    reasons = {t.record_id: t.reason for t in transitions if t.action == "supersede"}
    found: dict = {}
    for record in after.values():
        if record.superseded_by is None:
            continue
        newer = after.get(record.superseded_by)
        if newer is None:
            raise CheckFailed(f"{record.id} is superseded by {record.superseded_by!r}, which is not in the store",
                              "supersede with the id of a record in the store")
        if newer.created_at == record.created_at:
            raise CheckFailed(
                f"wrong direction: {_label(store, record.id)} is superseded by {_label(store, newer.id)}, written at "
                f"the same instant ({newer.created_at:%d %b %H:%M}): neither is the newer statement",
                "only a record written later can replace another; skip candidates with the same created_at")
        expect(newer.created_at > record.created_at,
               f"wrong direction: {_label(store, record.id)}, written {record.created_at:%d %b}, is superseded by "
               f"the OLDER {_label(store, newer.id)}, written {newer.created_at:%d %b}",
               "store.supersede(old_id, new_id): the newer record replaces the older one, never the reverse")
        kind = (reasons.get(record.id) or "").split(":")[0].strip().lower()
        expect(kind in ("duplicate", "changed"),
               f"the supersede of {record.id} by {newer.id} has the reason {reasons.get(record.id)!r}",
               "start the reason with the kind of merge: reason='duplicate: ...' (the same fact again) or "
               "reason='changed: ...' (a newer fact replaces it)")
        found[(newer.id, record.id)] = "duplicate" if kind == "duplicate" else "supersede"
    gold = {(l.fact_id, l.other_id): ("supersede" if l.kind == "supersedes" else "duplicate") for l in links}

    # -- expiry -------------------------------------------------------------------
    for record in after.values():
        cut = after[record.superseded_by].created_at if record.superseded_by else None
        end = ends.get(record.id)
        due = end if end is not None and end <= now else None
        options = [t for t in (cut, due) if t is not None]
        expected = min(options) if options else None
        if end is not None and end > now:
            allowed = {expected, min(t for t in (cut, end) if t is not None)}  # dating a future end is fine
        else:
            allowed = {expected}
        if record.valid_to in allowed:
            continue
        if expected is None:
            raise CheckFailed(
                f"{_label(store, record.id)} ends on {record.valid_to:%d %b %Y} in your pass, but nothing replaced it "
                "and it states no end that has passed",
                "expire only the records of `ends` whose day has come (ends[id] <= now)")
        if record.valid_to is None:
            raise CheckFailed(
                f"expiry ignored: {_label(store, record.id)} says it stops holding on {end:%d %b %Y}, before "
                f"{now:%d %b %Y}, but your pass leaves it current",
                "for each id, end in ends.items() with end <= now: store.expire(id, at=end, by='consolidation', ...)")
        raise CheckFailed(
            f"{_label(store, record.id)} ends on {record.valid_to:%d %b %Y} in your pass, but should end on "
            f"{expected:%d %b %Y}" + (" (its stated end; not the day of the pass)" if due == expected else
                                      " (when its successor was written, before its stated end)"),
            "expire at the stated end (at=ends[id]), not at now; and a record that ended earlier keeps the earlier "
            "end: compare with record.valid_to before expiring, and supersede before you expire")

    scores = _score(found, gold)
    grade = PassGrade(world, found, gold, scores)
    if world == "edge cases":
        expect(found == gold,
               f"a fact said three times (edge-1, edge-2, edge-3, the last two restating the one before): your "
               f"pass merged {sorted(found) or 'nothing'}, expected edge-2 to replace edge-1 and edge-3 to "
               "replace edge-2",
               "compare each record only with records that are still current (not already superseded), "
               "and the newest wording always replaces the one before it")
        return grade
    for name, floor in THRESHOLDS.items():
        if name.startswith("kind"):
            for kind in ("supersede", "duplicate"):
                metric = f"{kind} {name.split()[1]}"
                _enough(store, grade, metric, floor)
        else:
            _enough(store, grade, name, floor)
    return grade


def _enough(store, grade: PassGrade, metric: str, floor: float) -> None:
    value = grade.scores[metric]
    if value >= floor:
        return
    kind = metric.split()[0]
    if metric.endswith("precision"):
        wrong = [p for p, k in grade.found.items() if (kind == "pair" or k == kind) and grade.gold.get(p) != k
                 and (kind != "pair" or p not in grade.gold)]
        example = f"; e.g. {_label(store, wrong[0][1])} -> {_label(store, wrong[0][0])}" if wrong else ""
        raise CheckFailed(
            f"{metric} on the {grade.world} facts is {value:.2f}, below {floor}: too many merges that no link "
            f"supports{example}",
            "merge only records on the same subject (same tags) that share enough rare words; a change word "
            "('now', 'moved', 'since') makes it a supersede, otherwise a duplicate")
    missed = [p for p, k in grade.gold.items() if (kind == "pair" or k == kind) and grade.found.get(p) != k]
    example = f"; e.g. {_label(store, missed[0][1])} -> {_label(store, missed[0][0])}" if missed else ""
    raise CheckFailed(
        f"{metric} on the {grade.world} facts is {value:.2f}, below {floor}: your pass misses links{example}",
        "compare each record with the older current records on the same subject; is your overlap threshold too "
        "high, or are duplicates and supersedes mixed up (reason 'duplicate: ...' vs 'changed: ...')?")


EXERCISE = Exercise(
    grade_id='09-consolidation',
    notebook='09_governed_memory',
    answer='consolidation_pass',
    points=4,
    description="a consolidation pass over an ArchivalStore: dedupe, supersede and expire with the "
                "store's transitions, nothing lost, graded on the development and the held-out links",
    references=("memlib.consolidate:consolidate", "memlib.governance:consolidate_in_store",
                "memlib.sleeptime:text_merges"),
    equivalent={
        'swap-args: overlap(record.id, best.id) -> overlap(best.id, record.id)':
            'overlap is symmetric: shared words and union of two sets',
        'swap-args: overlap(record.id, old.id) -> overlap(old.id, record.id)':
            'overlap is symmetric: shared words and union of two sets',
        'constant: 0.0 -> 1.0':
            'the value for two records without a single word; every record the check uses has words',
        'constant: 0.0 -> -1.0':
            'the value for two records without a single word; every record the check uses has words',
        'compare: score >= 0.1 -> score > 0.1':
            'the thresholds are free (the check grades the decisions against the links on precision and recall); no pair of records scores exactly the threshold',
        'compare: score >= 0.2 -> score > 0.2':
            'the thresholds are free (the check grades the decisions against the links on precision and recall); no pair of records scores exactly the threshold',
        'constant: 1 -> 2':
            'a weight of the idf-weighted overlap: how similarity is computed is free; the check grades the decisions against the links on thresholds, not this formula',
        'constant: 1 -> 2 (#2)':
            'a weight of the idf-weighted overlap: how similarity is computed is free; the check grades the decisions against the links on thresholds, not this formula',
        'constant: 1 -> 0 (#2)':
            'a weight of the idf-weighted overlap: how similarity is computed is free; the check grades the decisions against the links on thresholds, not this formula',
        'constant: 0 -> 1':
            'a weight of the idf-weighted overlap: how similarity is computed is free; the check grades the decisions against the links on thresholds, not this formula',
        'compare: end < record.valid_to -> end <= record.valid_to':
            'expiring a record at the instant it already ends leaves valid_to as it was; the extra expire transition is true (its stated end came too)',
    },
)


@graded(EXERCISE)
def check_consolidation(pass_fn: Any) -> None:
    """Grade `consolidation_pass(store, now, ends)` on the development and the held-out world.

    Fixed: transitions only (supersede, expire; by='consolidation'), the reason's first
    word names the kind ('duplicate' or 'changed'), the newer record supersedes the older,
    expiry at the stated end unless an earlier successor ended it, nothing lost or added,
    THRESHOLDS on both worlds. Free: how the pass decides (similarity, cues, thresholds).
    """
    pass_fn = _as_callable(pass_fn, "consolidation_pass(store, now, ends)")
    grade_pass(pass_fn, "edge cases")
    passed("edge cases: a fact restated twice, two records of the same instant, an end on the day of the pass")
    for world in ("development", "held-out"):
        grade = grade_pass(pass_fn, world)
        s = grade.scores
        passed(f"{world}: nothing deleted or lost, every superseded record listable with its successor; "
               f"merges P {s['pair precision']:.2f} R {s['pair recall']:.2f} "
               f"(supersede {s['supersede precision']:.2f}/{s['supersede recall']:.2f}, "
               f"duplicate {s['duplicate precision']:.2f}/{s['duplicate recall']:.2f}); stated ends honoured")
