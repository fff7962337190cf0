#!/usr/bin/env python3
"""Trims Nsight Compute's raw CSV (ncu --csv --page raw) to the columns the
model's compute charge uses, one row per kernel launch, with the app and the
kernels' revision (ember-apps' "rev") in front.

usage: kernels_csv.py APP REV NCU_CSV [--header]   (rows to stdout)
"""
import csv
import sys

COLUMNS = ["ID", "Kernel Name", "Block Size", "Grid Size",
           "launch__registers_per_thread", "gpu__time_duration.sum",
           "smsp__inst_executed.sum", "sm__cycles_active.avg",
           "smsp__cycles_active.avg", "dram__bytes_read.sum",
           "dram__bytes_write.sum",
           "sm__warps_active.avg.pct_of_peak_sustained_active",
           "sm__cycles_elapsed.avg.per_second"]


def number(v):
    """ncu writes 1,234,567.8: the digits alone; anything else as it is."""
    bare = v.replace(",", "")
    try:
        float(bare)
        return bare
    except ValueError:
        return v


def main():
    app, rev, path = sys.argv[1:4]
    out = csv.writer(sys.stdout, lineterminator="\n")
    if "--header" in sys.argv:
        out.writerow(["app", "rev"] + COLUMNS)
    rows = [r for r in csv.reader(open(path)) if r]
    head = next(r for r in rows if r[0] == "ID")
    at = [head.index(c) for c in COLUMNS]
    for r in rows:
        if r[0].isdigit() and len(r) == len(head):
            out.writerow([app, rev] + [number(r[i]) for i in at])


if __name__ == "__main__":
    main()
