#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""What cuda/um-trace's records say about a uvm run's first touch on the
card (tests/hw/fidelity.sh PARTS=um; experiments/card-results/h200-um-records/).

FILE.csv[.gz] (UM_TRACE_RECORDS): one line a run: host-to-device
migrations (count, MB, distinct MB covered, median KiB, MB by CUPTI's
cause: coherence = the faulted pages' own, prefetch = the driver's
speculative prefetch), device-to-host MB, and the GPU fault records. A
fault record's start is when the driver began servicing a fault, its end
when it queued the replay; every migration of a whole run starts inside
one, and at most two are open at once, so per record: the MB migrated in
its window (a migration inside two counts half in each), its service time
(median), the service time a MB (all records' over all their MB), and the MB a ms of fault service (busy: any window open); the longest
stretch in which fault records came and no migration did (gap_ms,
gap_faults, gap_at_ms: lost records) and the records' span (span_ms).

--jsonl FILE (um.jsonl): whether each run's records are whole: every byte
of the allocation migrated in (um_htod_bytes >= alloc_bytes) and back out
(the apps copy their buffers back to verify: um_dtoh_bytes >=
alloc_bytes). CUPTI's dropped-record count stayed 0 in runs that lost
records, so only this check tells.

--fit FILE.csv[.gz]...: one least-squares line over the fault records of
all the files, service ms = a + b x MB migrated in the window.

--model results/compare-card/results.csv (or results.jsonl): the
testbed's side of the same uvm runs: per app and footprint its fault
batches, MB migrated a batch, modelled us a batch and ms a MB (sim_ns over
bytes_h2d), from the .jsonl also the copy engine's bytes a copy, and the
line us a batch = a + b x MB over those runs (of the APPs named, or all).

usage: tests/hw/um_records.py FILE.csv[.gz]... | --jsonl FILE... |
       --fit FILE.csv[.gz]... | --model RESULTS.csv|RESULTS.jsonl [APP...]
"""
import bisect
import csv
import gzip
import json
import statistics
import sys

HTOD, DTOH, FAULT = 1, 2, 4
CAUSE = {2: "coherence", 3: "prefetch"}


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return [(int(r["kind"]), int(r["value"]), int(r["start_ns"]),
                 int(r["end_ns"]), int(r["address"], 16), int(r["flags"]))
                for r in csv.DictReader(f)]


def covered(spans):
    """Bytes in the union of [address, address + size) spans."""
    total, end = 0, -1
    for a, n in sorted(spans):
        if a + n > end:
            total += a + n - max(a, end)
            end = a + n
    return total


def busy_ns(windows):
    """Time at least one of the [start, end] windows is open."""
    total, end = 0, -1
    for s, e in sorted(windows):
        if e > end:
            total += e - max(s, end)
            end = e
    return total


def windows(faults, htod):
    """MB migrated in each fault record's window, and the MB outside all."""
    per = [0.0] * len(faults)
    outside = 0
    for m in htod:
        hits = [i for i, f in enumerate(faults) if f[2] <= m[2] <= f[3]]
        for i in hits:
            per[i] += m[1] / len(hits) / 1e6
        if not hits:
            outside += m[1]
    return per, outside / 1e6


def gap(htod, faults):
    """The longest stretch between two migrations in which fault records
    started (ms, how many), and when it began (ms after the first)."""
    starts = sorted(r[2] for r in htod)
    fs = sorted(r[2] for r in faults)
    best = (0, 0, 0)
    for a, b in zip(starts, starts[1:]):
        n = bisect.bisect_left(fs, b) - bisect.bisect_right(fs, a)
        if n and b - a > best[0]:
            best = (b - a, n, a - starts[0])
    return best[0] / 1e6, best[1], best[2] / 1e6


def summary(path):
    recs = load(path)
    htod = [r for r in recs if r[0] == HTOD]
    dtoh = [r for r in recs if r[0] == DTOH]
    faults = sorted((r for r in recs if r[0] == FAULT), key=lambda r: r[2])
    by_cause = {}
    for r in htod:
        name = CAUSE.get(r[5], "other")
        by_cause[name] = by_cause.get(name, 0) + r[1]
    htod_mb = sum(r[1] for r in htod) / 1e6
    out = {
        "file": path.rsplit("/", 1)[-1],
        "htod": len(htod),
        "htod_mb": htod_mb,
        "htod_covered_mb": covered((r[4], r[1]) for r in htod) / 1e6,
        "htod_median_kib": statistics.median(r[1] for r in htod) / 1024 if htod else 0,
        "coherence_mb": by_cause.get("coherence", 0) / 1e6,
        "prefetch_mb": by_cause.get("prefetch", 0) / 1e6,
        "dtoh_mb": sum(r[1] for r in dtoh) / 1e6,
        "fault_records": len(faults),
        "fault_groups": sum(r[1] for r in faults),
    }
    if faults and htod:
        per, outside = windows(faults, htod)
        busy = busy_ns((f[2], f[3]) for f in faults) / 1e6
        out["mb_per_fault_record"] = statistics.median(per)
        out["service_ms"] = statistics.median((f[3] - f[2]) / 1e6 for f in faults)
        out["service_ms_a_mb"] = sum((f[3] - f[2]) / 1e6 for f in faults) / sum(per)
        out["busy_ms"] = busy
        out["gb_per_s_busy"] = htod_mb / busy
        out["mb_outside"] = outside
        g = gap(htod, faults)
        out["gap_ms"], out["gap_faults"], out["gap_at_ms"] = g
        out["span_ms"] = (max(r[3] for r in recs) - min(r[2] for r in recs)) / 1e6
    return out


def whole(path):
    with open(path) as f:
        for line in f:
            if not line.startswith("{"):
                continue
            r = json.loads(line)
            if "um_dtoh_bytes" not in r:  # um-trace before it counted them
                verdict = "unknown (no device-to-host count)"
            elif (r["um_htod_bytes"] >= r["alloc_bytes"] and
                  r["um_dtoh_bytes"] >= r["alloc_bytes"]):
                verdict = "whole"
            else:
                verdict = "RECORDS LOST"
            print(f"{r['app']} {r['footprint'] >> 20} MiB: htod "
                  f"{r.get('um_htod_bytes', 0) / 1e6:.1f} MB, dtoh "
                  f"{r.get('um_dtoh_bytes', 0) / 1e6:.1f} MB of "
                  f"{r['alloc_bytes'] / 1e6:.1f}, dropped {r.get('um_dropped')}: "
                  f"{verdict}")


def line(xs, ys):
    """Least-squares a, b of y = a + b x, and the correlation."""
    n = len(xs)
    mx, my = sum(xs) / n, sum(ys) / n
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
    return my - sxy / sxx * mx, sxy / sxx, sxy / (sxx * syy) ** 0.5


def fit(paths):
    mbs, mss = [], []
    for path in paths:
        recs = load(path)
        faults = sorted((r for r in recs if r[0] == FAULT), key=lambda r: r[2])
        per, _ = windows(faults, [r for r in recs if r[0] == HTOD])
        mbs += per
        mss += [(f[3] - f[2]) / 1e6 for f in faults]
    a, b, r = line(mbs, mss)
    print(f"{len(mbs)} fault records: service ms = {a:.3f} + {b:.3f} x MB (r = {r:.2f})")


def model_runs(path):
    """(app, factor, sim_ns, fault_batches, bytes_h2d, bytes_d2h, copies)
    of the ok uvm runs of a make compare-card results.csv or results.jsonl
    (only the .jsonl has the copy engine's copies: None otherwise)."""
    runs = []
    with open(path) as f:
        if path.endswith(".jsonl"):
            for line in f:
                r = json.loads(line)
                run, dev = r.get("run") or {}, r.get("device") or {}
                if r.get("exit_status") == 0 and run.get("variant") == "uvm":
                    runs.append((r["app"], r["factor"], run["sim_ns"],
                                 run["fault_batches"], run["bytes_h2d"],
                                 run["bytes_d2h"], dev.get("copies")))
        else:
            for r in csv.DictReader(f):
                if r["variant"] == "uvm" and r["status"] == "ok":
                    runs.append((r["app"], r["factor"], int(r["sim_ns"]),
                                 int(r["fault_batches"] or 0), int(r["bytes_h2d"]),
                                 int(r["bytes_d2h"]), None))
    return runs


def model(path, apps):
    mbs, uss = [], []
    for app, factor, sim_ns, batches, h2d, d2h, copies in model_runs(path):
        if not batches or (apps and app not in apps):
            continue
        mb, us = h2d / 1e6, sim_ns / 1e3
        mbs.append(mb / batches)
        uss.append(us / batches)
        size = f", {(h2d + d2h) / copies / 1024:.1f} KiB a copy" if copies else ""
        print(f"{app} x{factor}: {batches} batches, {mb:.1f} MB, "
              f"{mb / batches:.3f} MB a batch, {us / batches:.1f} us a batch, "
              f"{us / 1e3 / mb:.3f} ms a MB{size}")
    if len(mbs) > 1:
        a, b, r = line(mbs, uss)
        print(f"{len(mbs)} runs: us a batch = {a:.1f} + {b:.1f} x MB (r = {r:.2f})")


def main(argv):
    if argv[:1] == ["--fit"]:
        fit(argv[1:])
        return
    if argv[:1] == ["--model"]:
        model(argv[1], argv[2:])
        return
    if argv[:1] == ["--jsonl"]:
        for path in argv[1:]:
            whole(path)
        return
    for path in argv:
        s = summary(path)
        print(" ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}"
                       for k, v in s.items()))


if __name__ == "__main__":
    main(sys.argv[1:])
