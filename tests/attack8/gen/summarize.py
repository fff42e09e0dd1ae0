import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    reason = r["reason"]
    flag = "FLAG" if "review:" in reason else "-"
    print(f"{r['student']:22} {r['grade_id']:22} {r['points']:>5}/{r['max_points']:<3} {r['status']:8} {flag:4} {reason[:400]}")
