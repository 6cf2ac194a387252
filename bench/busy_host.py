#!/usr/bin/env python3
"""busy_host.py - an esxtop capture of N busy SCSI devices: the time stamp column and N copies of
one device's columns from a simulator capture (the saturated device of `iopsy simulate --scenario
backend-saturated` by default), each copy under its own naa. name. Every copy has the same
non-zero samples, so every copy's series are analysed and every copy has the same findings: the
worst case for analyze's memory per entity (doc/limits.md, "Busy devices").

Usage: busy_host.py SRC.csv N OUT.csv [--device NAME] [--rows R]
  SRC.csv  a simulator esxtop.csv (`iopsy simulate --scenario backend-saturated --only esxtop`)
  N        number of device copies
  --device the device to copy (default: the entity of the first "expect" in SRC's truth.json,
           else the first SCSI device with a non-zero Average Device MilliSec/Command)
  --rows   keep only the first R data rows
"""
import csv
import json
import os
import sys


def main(argv):
    args, dev, rows = [], None, None
    it = iter(argv[1:])
    for a in it:
        if a == "--device":
            dev = next(it)
        elif a == "--rows":
            rows = int(next(it))
        else:
            args.append(a)
    if len(args) != 3:
        sys.stderr.write(__doc__)
        return 2
    src, n, out = args[0], int(args[1]), args[2]
    if dev is None:
        truth = os.path.join(os.path.dirname(src), "truth.json")
        try:
            with open(truth) as f:
                dev = json.load(f)["expect"][0]["entity"]
        except (OSError, KeyError, IndexError, ValueError):
            dev = None
    with open(src, newline="") as f:
        rd = csv.reader(f)
        hdr = next(rd)
        tag = "\\Physical Disk SCSI Device("
        cols = [i for i, h in enumerate(hdr) if tag in h and (dev is None or "(" + dev + ")" in h)]
        if dev is None:
            raise SystemExit("busy_host.py: give --device (no truth.json next to the capture)")
        if not cols:
            raise SystemExit("busy_host.py: no columns of device %s in %s" % (dev, src))
        host = hdr[cols[0]].split("\\")[2]
        names = [hdr[i].split(")\\", 1)[1] for i in cols]
        with open(out, "w", newline="") as o:
            head = ['"%s"' % hdr[0]]
            for k in range(n):
                d = "naa.6000%028x" % k
                head.extend('"\\\\%s\\Physical Disk SCSI Device(%s)\\%s"' % (host, d, c) for c in names)
            o.write(",".join(head) + "\n")
            for r, row in enumerate(rd):
                if rows is not None and r >= rows:
                    break
                if len(row) < len(hdr):
                    continue
                one = "," + ",".join('"%s"' % row[i] for i in cols)
                o.write('"%s"' % row[0] + one * n + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
