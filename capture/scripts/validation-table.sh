#!/usr/bin/env bash
# Prints docs/trace-replay.md's validation table: per program and variant,
# the card's time (timing-mode captures under libember-static.so's
# EMBER_STATIC_MODE, capture/scripts/validate-on-card.sh: the sum of the
# launches' gpu_ns, median and min..max over rounds 1..N; round 0 is the
# warm-up) beside the testbed's replay of the same program's trace under
# the same variant (ember-agent results of experiments/matrices/
# validate-PROG.conf: sim_ns, setup_ns, faults).
#   bash capture/scripts/validation-table.sh CARD_DIR [RESULTS_DIR [MATRIX]]
# CARD_DIR: PROG-VARIANT-ROUND.trace files and validate.log (committed:
# capture/validation/2026-12-02). RESULTS_DIR: ember-agent's --results
# folder holding MATRIX-PROG/ (optional: without it, card columns only);
# MATRIX: validate (default: -T the uvm timing capture) or validate-resident
# (-T a timing capture of the prefetch variant, data resident).
# CARD: the card named in the headings (default H200: the sessions of
# 2026-12-02; capture/validation/2026-12-06-paper ran on an H100).
# PROGRAMS: the programs printed (default "cupy torch pathfinder nw"); CuPy's
# variants are in their own session, capture/validation/2026-12-02-cupy.
#   bash capture/scripts/validation-table.sh --all RESULTS_DIR
# prints the four tables of docs/trace-replay.md (the figure trace-validation):
# each session with the resident capture's times, then with the uvm capture's.
set -euo pipefail
if [ "${1:-}" = --all ]; then
	validation=$(cd "$(dirname "$0")/../validation" && pwd)
	for matrix in validate-resident validate; do
		for session in 2026-12-02-cupy:cupy "2026-12-02:pathfinder nw torch"; do
			echo "$matrix, ${session#*:}:"
			PROGRAMS=${session#*:} bash "$0" "$validation/${session%%:*}" "$2" "$matrix"
			echo
		done
	done
	exit 0
fi
card=$1
results=${2:-}
matrix=${3:-validate}
root=$(cd "$(dirname "$0")/../.." && pwd)
dump=${TRACE_DUMP:-$root/build/capture/trace-dump}
[ -x "$dump" ] || { echo "validation-table: no $dump (make -C capture)" >&2; exit 1; }
[ -f "$card/validate.log" ] || { echo "validation-table: no $card/validate.log" >&2; exit 1; }

# stats: median (min..max) n of the numbers on stdin, in ms.
stats() {
	sort -n | awk '{ v[NR] = $1 / 1e6 } END {
		if (!NR) { print "- | -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f (%.3f..%.3f, n=%d) | %.0f %%\n", m, v[1], v[NR], NR,
		       (m > 0 ? 100 * (v[NR] - v[1]) / m : 0) }'
}

# own_time PROG VARIANT: the program's own time_s of each counted round, ns.
own_time() {
	awk -v p="$1" -v v="$2" '/time_s=/ { match($0, /time_s=[0-9.]+/); t = substr($0, RSTART + 7, RLENGTH - 7) }
		$1 == "RUN" { n = split($3, f, "-"); if ($2 == p && f[2] == v && f[3] != "0" && t != "") printf "%.0f\n", t * 1e9; t = "" }' \
		"$card/validate.log"
}

field() {
	local f=$results/$matrix-$1/runs/trace:$1-accesses.trace-$2-x0.5-s1/result.json
	[ -n "$results" ] && [ -f "$f" ] && jq -r "$3 // \"-\"" "$f" || echo -
}

for p in ${PROGRAMS:-cupy torch pathfinder nw}; do
	echo
	echo "$p: card (${CARD:-H200}) beside replay ($matrix-$p.conf: h200-64m, 0.5x), ms"
	echo
	echo "| variant | card kernels: median (min..max, n) | card spread | program's own timer: median (min..max, n) | own spread | replay sim_ns | replay setup_ns | replay faults | replay / card |"
	echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
	for v in uvm prefetch mapped static; do
		kernels=$(for t in "$card"/$p-$v-*.trace; do
			case $t in *-0.trace) continue ;; esac
			"$dump" --summary "$t" | awk '{ for (i = 1; i < NF; i++) if ($i == "gpu_ns") print $(i + 1) }'
		done)
		median_ns=$(echo "$kernels" | sort -n | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }')
		own=$(own_time "$p" "$v" | stats)
		sim=$(field "$p" "$v" .run.sim_ns)
		setup=$(field "$p" "$v" .run.setup_ns)
		faults=$(field "$p" "$v" '.device.faults // .run.faults')
		ratio=-
		[ "$sim" != - ] && ratio=$(awk -v s="$sim" -v c="$median_ns" 'BEGIN { printf "%.2f", s / c }')
		ms() { [ "$1" = - ] && echo - || awk -v x="$1" 'BEGIN { printf "%.3f", x / 1e6 }'; }
		echo "| $v | $(echo "$kernels" | stats | sed 's/ | / | /') | $own | $(ms "$sim") | $(ms "$setup") | $faults | $ratio |"
	done
done
