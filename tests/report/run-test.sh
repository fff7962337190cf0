#!/bin/bash
# SPDX-License-Identifier: MIT
# ember-agent report against the paper's CSVs, on results whose modelled
# times are made from the paper's own numbers (no VM): each summary line
# must read back the exact order counts and geometric means.
#
# usage: run-test.sh AGENT WORKDIR
set -eu
agent=$1 work=$2
rm -rf "$work"
mkdir -p "$work/t4" "$work/t6" "$work/t78" "$work/t10"
fails=0

# line APP VARIANT PROFILE FACTOR SIM_NS SETUP_NS [RUN_ARGS]
line() {
	printf '{"app":"%s","variant":"%s","profile":"%s","factor":%s,"status":"ok","run_args":"%s","run":{"sim_ns":%s,"setup_ns":%s}}\n' \
		"$1" "$2" "$3" "$4" "${7:-}" "$5" "$6"
}

expect() {
	if grep -qxF "$2" "$1"; then
		echo "ok: $2"
	else
		echo "FAIL: expected \"$2\" in:"
		cat "$1"
		fails=$((fails + 1))
	fi
}

# Table 4, h200 1.5x: pathfinder exactly the paper's seconds; kmeans with
# static and adaptive swapped (paper: adaptive 1.20 s, static 1.39 s).
{
	for v in "uvm 2.27" "prefetch 2.16" "mapped 0.84" "static 0.76" "adaptive 0.91"; do
		set -- $v
		line pathfinder "$1" h200-512m 1.5 "$(awk "BEGIN{printf \"%.0f\", $2 * 1e9}")" 0
	done
	for v in "uvm 4.36" "prefetch 5.72" "mapped 7.18" "static 1.20" "adaptive 1.39"; do
		set -- $v
		line kmeans "$1" h200-512m 1.5 "$(awk "BEGIN{printf \"%.0f\", $2 * 1e9}")" 0
	done
} >"$work/t4/results.jsonl"
"$agent" report "$work/t4" --paper host-agent/paper-table4.csv --no-plot >"$work/t4/out"
expect "$work/t4/out" "summary h200 1.5x: paper's order in 1 of 2 cells, 19 of 20 pairs; speedup over UVM testbed/paper, geomean: prefetch 1.00 (2) mapped 1.00 (2) static 1.08 (2) adaptive 0.93 (2)"

# Table 6, rtx5080 1.41x, tokens/s: kernel time per token from the paper's
# rates; a setup time (static's prefetch) must not count; uvm and prefetch
# tie in the paper (0.45), so that pair is not counted.
{
	for v in "uvm 0.45 0" "prefetch 0.45 5000000000" "mapped 1.37 0" "static 2.10 9000000000" \
		 "adaptive 1.46 0"; do
		set -- $v
		line llm "$1" rtx5080-512m 1.41 "$(awk "BEGIN{printf \"%.0f\", 1e9 / $2}")" "$3"
	done
} >"$work/t6/results.jsonl"
"$agent" report "$work/t6" --paper host-agent/paper-table6.csv --no-plot >"$work/t6/out"
expect "$work/t6/out" "summary rtx5080 1.41x: paper's order in 1 of 1 cells, 9 of 9 pairs; speedup over UVM testbed/paper, geomean: prefetch 1.00 (1) mapped 1.00 (1) static 1.00 (1) adaptive 1.00 (1)"

# Tables 7-8, h200 0.5x: colscan against the sum of q1.3-q3.4 (uvm 6.92 s,
# mapped 4.36 s): the paper's bracket is 6.92 / 4.36.
{
	line colscan uvm h200-512m 0.5 6920000000 0
	line colscan mapped h200-512m 0.5 4360000000 0
} >"$work/t78/results.jsonl"
"$agent" report "$work/t78" --paper host-agent/paper-table7-8.csv --no-plot >"$work/t78/out"
expect "$work/t78/out" "summary h200 0.5x: paper's order in 1 of 1 cells, 1 of 1 pairs; speedup over UVM testbed/paper, geomean: mapped 1.00 (1)"
if grep -q '^colscan .*1\.59\]' "$work/t78/out"; then
	echo "ok: colscan bracket [1.59]"
else
	echo "FAIL: colscan bracket [1.59] missing"
	fails=$((fails + 1))
fi

# Table 10 at 25 % drift (ember-run -d 25): the rows are d25, compared on
# kernel time alone (static's placement cost, its setup, must not count),
# and the placement costs beside the paper's *_cost rows.
{
	for v in "uvm 8.84 0" "prefetch 4.94 200000000" "mapped 1.33 0" "static 0.84 1340000000"; do
		set -- $v
		line movinghot "$1" gh200-512m 4 "$(awk "BEGIN{printf \"%.0f\", $2 * 1e9}")" "$3" "-d 25"
	done
} >"$work/t10/results.jsonl"
"$agent" report "$work/t10" --paper host-agent/paper-table10.csv --no-plot >"$work/t10/out"
expect "$work/t10/out" "summary gh200 d25: paper's order in 1 of 1 cells, 6 of 6 pairs; speedup over UVM testbed/paper, geomean: prefetch 1.00 (1) mapped 1.00 (1) static 1.00 (1)"

expect "$work/t10/out" "movinghot    d25   static      1340.000 | 1.34"
expect "$work/t10/out" "movinghot    d25   prefetch     200.000 | 0.24"

echo "report-test: $fails failed"
[ "$fails" -eq 0 ]
