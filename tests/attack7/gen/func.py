import sys, json, time, io, contextlib
from IPython.core.interactiveshell import InteractiveShell
from memlib.course.checker import graded_call
from memlib.course.serve import _watch
path = sys.argv[1]; gid = sys.argv[2]
nb = json.load(open(path))
sh = InteractiveShell.instance()
for c in nb["cells"]:
    if c["cell_type"] != "code": continue
    md = c.get("metadata", {})
    if "nbval-skip" in md.get("tags", []): continue
    src = "".join(c["source"])
    if md.get("memlib", {}).get("grade_id"):
        if md["memlib"]["grade_id"] != gid: continue
        call = graded_call(src)
        mod = __import__(call.module, fromlist=[call.function]); check = getattr(mod, call.function)
        ans = eval(call.answer, sh.user_ns)
        refs = list(getattr(check, "references", ()))
        w = _watch(refs, ["memlib.course.checks", check.__module__])
        t = time.time()
        with w:
            try:
                check(ans); res = "PASSED"
            except BaseException as e:
                res = f"FAILED {type(e).__name__}: {str(e)[:300]}"
        print(f"== {path.split('/')[-2]} {gid}: {res}; watch saw {w.used}; {time.time()-t:.1f}s")
        break
    with contextlib.redirect_stdout(io.StringIO()):
        r = sh.run_cell(src, silent=True)
