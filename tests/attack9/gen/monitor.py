"""Sample the grading run's process tree (rss in KB) every 2 s into a log; stop when the grader exits.
Only the grader's own process (argv[1]) and its descendants are logged (another grading job shares the host)."""
import os, subprocess, sys, time
grader_pid = argv_pid = int(sys.argv[1]); log = open(sys.argv[2], "a", buffering=1)
peak = {}
while True:
    out = subprocess.run(["ps", "-eo", "pid,ppid,rss,vsz,args", "--no-headers"], capture_output=True, text=True).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split(None, 4)
        if len(parts) == 5:
            rows[int(parts[0])] = (int(parts[1]), int(parts[2]), int(parts[3]), parts[4])
    tree = {grader_pid}
    changed = True
    while changed:
        changed = False
        for pid, (ppid, *_rest) in rows.items():
            if ppid in tree and pid not in tree:
                tree.add(pid); changed = True
    now = time.strftime("%H:%M:%S")
    total = 0
    for pid in sorted(tree):
        if pid not in rows: continue
        ppid, rss, vsz, args = rows[pid]
        total += rss
        log.write(f"{now} pid={pid} ppid={ppid} rss_kb={rss} vsz_kb={vsz} {args[:150]}\n")
        key = (pid, args[:90]); peak[key] = max(peak.get(key, 0), rss)
    log.write(f"{now} TOTAL_TREE_RSS_KB={total}\n")
    if grader_pid not in rows:
        break
    time.sleep(float(sys.argv[3]) if len(sys.argv) > 3 else 2)
log.write("PEAKS (rss_kb, pid, cmd):\n")
for (pid, cmd), rss in sorted(peak.items(), key=lambda kv: -kv[1])[:30]:
    log.write(f"PEAK {rss} {pid} {cmd}\n")
