"""Round 4: the README's other claims: UTF-16, look-alike names, release stamp / grade id / cell id edits,
pre-filled outputs, an answer defined after its check, a deleted check."""
import json, sys, unicodedata
sys.path.insert(0, "/work/attack3")
from build import load, find, code, set_src, insert_after, save, HONEST01, N01, EX01, OUT  # noqa
import build2, build3  # noqa  (rebuild rounds 2 and 3, same bytes)

CHEAT = "%time from memlib.course.checks.nb01_token_budget import reference_how_many_fit as how_many_fit\n"

# r4a: a01 (the %time cheat) saved as UTF-16
nb = load(N01)
insert_after(nb, EX01, code(CHEAT, "r4a-cheat"))
d = OUT / "r4a_utf16_time_magic"; d.mkdir(parents=True, exist_ok=True)
(d / f"{N01}.ipynb").write_bytes(json.dumps(nb, indent=1, ensure_ascii=False).encode("utf-16"))

# r4b / r4c: look-alike names, NFC honest and NFD cheating (the %time cheat)
nb = load(N01); set_src(nb, EX01, HONEST01)
save(unicodedata.normalize("NFC", "r4b_zoë"), N01, nb)
nb = load(N01); insert_after(nb, EX01, code(CHEAT, "r4c-cheat"))
save(unicodedata.normalize("NFD", "r4b_zoë"), N01, nb)

# r4d: release stamp, graded cell's grade id and every cell id changed; %time cheat
nb = load(N01)
insert_after(nb, EX01, code(CHEAT, "r4d-cheat"))
nb["metadata"]["memlib"]["version"] = "0.2.9"
nb["metadata"]["memlib"]["content_hash"] = "sha256:" + "0" * 64
g = find(nb, "01-31-ex0-check")
nb["cells"][g]["metadata"]["memlib"]["grade_id"] = "01-token-budget-bonus"
for i, c in enumerate(nb["cells"]):
    c["id"] = f"renamed-{i}"
save("r4d_stamp_gradeid_cellids", N01, nb)

# r4e: outputs pre-filled (a PASS in the graded cell), exercise unsolved
nb = load(N01)
g = find(nb, "01-31-ex0-check")
nb["cells"][g]["execution_count"] = 7
nb["cells"][g]["outputs"] = [{"output_type": "stream", "name": "stdout",
                              "text": "PASS  all checks for 01-token-budget\n"}]
save("r4e_prefilled_outputs", N01, nb)

# r4f: honest answer defined only after the check (the stub left above it)
nb = load(N01)
insert_after(nb, "01-31-ex0-check", code(HONEST01, "r4f-late"))
save("r4f_answer_after_check", N01, nb)

# r4g: honest answer, graded cell deleted
nb = load(N01); set_src(nb, EX01, HONEST01)
del nb["cells"][find(nb, "01-31-ex0-check")]
save("r4g_check_deleted", N01, nb)
print("round 4 built")
