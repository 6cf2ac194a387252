#!/usr/bin/env python3
"""shardcmp.py — compares two `iopsy batch` runs of the same input: a one-machine run and a
sharded one (shards + finish). Usage:

    shardcmp.py OUT_A HISTORY_A OUT_B HISTORY_B [--expect-failed DIR ...]

HISTORY is a SQLite file or a postgresql:// URI (read with psql). Equal means: summary.json
identical apart from the timings (started, seconds, and the start of each run as a set's previous
run) and the history's location; index.html identical apart from those times; every history row
identical apart from runs.started. With
--expect-failed, those sets of B must instead be failed with "no result" (a shard that died) and
every other set identical. Prints what differs; exit status 0 when equal, 1 otherwise."""
import json
import os
import re
import sqlite3
import subprocess
import sys

QUERIES = [
    "SELECT id, input, tool_version, run_key FROM runs ORDER BY id",
    "SELECT * FROM sets ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10",
    "SELECT * FROM stats ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12",
    "SELECT * FROM findings ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10",
]


def starts(where):
    """The start times of the runs recorded in a history (timings, masked in the outputs)."""
    if where.startswith(("postgresql://", "postgres://")):
        r = subprocess.run(["psql", "-X", "-q", "-At", "-d", where, "-c", "SELECT started FROM runs"],
                           check=True, capture_output=True, text=True)
        return r.stdout.split()
    db = sqlite3.connect(where)
    v = [r[0] for r in db.execute("SELECT started FROM runs")]
    db.close()
    return v


def mask(text, times):
    for t in sorted(set(times), key=len, reverse=True):
        text = text.replace(t, "<run start>")
    return text


def rows(where):
    out = []
    if where.startswith(("postgresql://", "postgres://")):
        for q in QUERIES:
            r = subprocess.run(["psql", "-X", "-q", "-At", "-F", "|", "-d", where, "-c", q],
                               check=True, capture_output=True, text=True)
            out.append(r.stdout.splitlines())
    else:
        db = sqlite3.connect(where)
        for q in QUERIES:
            out.append(["|".join("" if v is None else str(v) for v in r) for r in db.execute(q)])
        db.close()
    return out


def summary(out, times):
    s = json.load(open(os.path.join(out, "summary.json"), encoding="utf-8"))
    for k in ("started", "seconds", "history"):
        s.pop(k, None)
    return json.loads(mask(json.dumps(s), times))


def index(out, times):
    t = open(os.path.join(out, "index.html"), encoding="utf-8").read()
    return mask(re.sub(r"Run \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "Run T", t), times)


def main():
    args = sys.argv[1:]
    failed = []
    if "--expect-failed" in args:
        i = args.index("--expect-failed")
        failed = args[i + 1:]
        args = args[:i]
    out_a, hist_a, out_b, hist_b = args
    bad = []
    times = starts(hist_a) + starts(hist_b)
    sa, sb = summary(out_a, times), summary(out_b, times)
    if failed:
        by_b = {x["dir"]: x for x in sb["sets"]}
        for d in failed:
            x = by_b.get(d)
            if not x or x["status"] != "failed" or not (x["error"] or "").startswith("no result"):
                bad.append("set %s is not 'failed: no result' in %s: %s" % (d, out_b, x))
        keep = lambda s: [x for x in s["sets"] if x["dir"] not in failed]
        if sorted(map(json.dumps, keep(sa))) != sorted(map(json.dumps, keep(sb))):
            bad.append("the sets that did not fail differ")
        if len(sa["sets"]) != len(sb["sets"]):
            bad.append("%d sets against %d: a set is missing" % (len(sa["sets"]), len(sb["sets"])))
    else:
        if sa != sb:
            for k in sorted(set(sa) | set(sb)):
                if sa.get(k) != sb.get(k):
                    if k == "sets":
                        for x, y in zip(sa[k], sb[k]):
                            if x != y:
                                k2 = [k for k in x if x.get(k) != y.get(k)]
                                bad.append("summary set %s differs in %s: %.300s != %.300s" % (x.get("dir"), k2, [x.get(k) for k in k2], [y.get(k) for k in k2]))
                                break
                    else:
                        bad.append("summary.json %s: %r != %r" % (k, sa.get(k), sb.get(k)))
        if index(out_a, times) != index(out_b, times):
            bad.append("index.html differs")
        ra, rb = rows(hist_a), rows(hist_b)
        for q, x, y in zip(QUERIES, ra, rb):
            if x != y:
                diff = [(p, r) for p, r in zip(x, y) if p != r][:2]
                bad.append("history rows differ (%s): %d against %d rows; first: %s" % (q.split(" FROM ")[1].split()[0],
                                                                                      len(x), len(y), diff))
        if not ra[1]:
            bad.append("the history holds no set row")
    for b in bad:
        print("shardcmp: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
