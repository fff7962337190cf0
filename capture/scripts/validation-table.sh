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
# each session with the resident capture's times, then with the uvm capture's;
# then the paper's programs' tables (--paper).
#   bash capture/scripts/validation-table.sh --paper [PAPER_PROGRAMS]
# prints the paper's programs at 256 MiB (PAPER_SETS below): per program
# and variant the card's time in each session and over all of them
# (median, min..max over rounds and sessions, n, spread), beside their
# replay in the figure paper-programs at the same footprint without
# oversubscription (h200-512m at 0.5x: its sim_ns per driver, and replay
# / card; the heading names the card the replayed trace came from, whose
# resident capture gives the replay's compute), "not yet run" where its
# result set has no such run;
# the variants' order on the card and in each replay (fastest first) and
# how many of the 6 pairs each replay puts in the card's order; then
# pathfinder in one session with runs started ahead of it (k-means
# parsing its input beside it: paper-programs-on-card.sh's OVERLAP) and
# alone. PAPER_PROGRAMS: the figure's result set [experiments/results/
# paper-programs], its runs in paper-programs/results.jsonl.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
validation=$root/capture/validation
dump=${TRACE_DUMP:-$root/build/capture/trace-dump}
[ -x "$dump" ] || { echo "validation-table: no $dump (make -C capture)" >&2; exit 1; }

# The card sessions of the paper's programs at 256 MiB, PROGRAM=SET: SET
# a folder of capture/validation with PROGRAM-VARIANT-ROUND.trace
# (capture/traces/paper/PROVENANCE.md, "Card validation"). One set a
# session: 2026-12-06-paper-3's pathfinder alone (its overlapped set is
# the check, PAPER_OVERLAP); k-means' sessions of its 100 iterations, the
# program its committed traces ran (2026-12-06-paper-3 to -5 ran 3).
# Each set's card is the one its traces name (card_of).
PAPER_SETS="pathfinder=2026-12-06-paper pathfinder=2026-12-06-paper-3/alone
	kmeans=2026-12-06-paper-6 kmeans=2026-12-06-paper-7 radix=2026-12-06-paper radix=2026-12-06-paper-2"
# PROGRAM=WITH:ALONE, the same session's sets with and without runs ahead.
PAPER_OVERLAP="pathfinder=2026-12-06-paper-3:2026-12-06-paper-3/alone"
VARIANTS="uvm prefetch mapped static"

# gpu_ns SET PROG VARIANT: the launches' summed time of each counted round.
gpu_ns() {
	local t
	for t in "$validation/$1/$2-$3"-*.trace; do
		case $t in *-0.trace) continue ;; esac
		[ -e "$t" ] || continue
		"$dump" --summary "$t" | awk '{ for (i = 1; i < NF; i++) if ($i == "gpu_ns") print $(i + 1) }'
	done
}

# card_of SET PROG: the card of the set's runs, as the first trace's
# device= names it less its vendor ("H100"), "?" without one.
card_of() {
	local t
	for t in "$validation/$1/$2"-*.trace; do
		[ -e "$t" ] || continue
		"$dump" "$t" | sed -n '/^device=/{ s/^device=\(NVIDIA \)\{0,1\}//; s/ .*//; p; }'
		return
	done
	echo "?"
}

# ms_stats: "median (min..max, n=N)" of the ns on stdin, in ms; with -s,
# then " | spread %" ((max - min) / median); "-" without numbers.
ms_stats() {
	sort -n | awk -v spread="${1:-}" '{ v[NR] = $1 / 1e6 } END {
		if (!NR) { print spread ? "- | -" : "-"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f (%.3f..%.3f, n=%d)", m, v[1], v[NR], NR
		if (spread) printf " | %.0f %%", (m > 0 ? 100 * (v[NR] - v[1]) / m : 0)
		printf "\n" }'
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# order VARIANT=VALUE...: the variants fastest first, "a < b < c < d".
order() {
	printf '%s\n' "$@" | grep -v '=-$' | sort -t= -k2 -g | cut -d= -f1 | paste -sd' ' | sed 's/ / < /g'
}

# pairs_in_order "V=CARD..." "V=REPLAY...": the pairs of variants whose
# order the replay shares with the card, "k of n".
pairs_in_order() {
	awk -v card="$1" -v replay="$2" 'BEGIN {
		n = split(card, c, " "); split(replay, r, " ")
		for (i = 1; i <= n; i++) { split(c[i], a, "="); cv[a[1]] = a[2]; name[i] = a[1]
					   split(r[i], b, "="); rv[b[1]] = b[2] }
		for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
			x = name[i]; y = name[j]
			if (rv[x] == "-" || rv[y] == "-") continue
			pairs++; same += (cv[x] - cv[y]) * (rv[x] - rv[y]) > 0 }
		printf "%d of %d\n", same, pairs }'
}

# replay_card SET PROG: the card the replayed 256m accesses trace was
# captured on (the set's traces.tsv), "?" where the set does not say.
replay_card() {
	awk -F'\t' -v t="$2-256m-accesses.trace" '$1 == t { print $3; found = 1; exit }
		END { if (!found) print "?" }' "$1/traces.tsv" 2>/dev/null || echo "?"
}

# replay_ns JSONL PROG VARIANT DRIVER: the replay's sim_ns, or "-".
replay_ns() {
	[ -f "$1" ] || { echo -; return; }
	jq -r --arg app "trace:$2-256m-accesses.trace" --arg v "$3" --arg d "$4" \
		'select(.app == $app and .factor == 0.5 and .variant == $v and .driver == $d
			and .status == "ok") | .run.sim_ns' "$1" | head -1 | grep . || echo -
}

paper_tables() {
	local jsonl=$1/paper-programs/results.jsonl p v d set sets header all median_ns row
	local ember nvuvm with alone w a
	local -A ranked
	for p in $(printf '%s\n' $PAPER_SETS | cut -d= -f1 | uniq); do
		sets=$(printf '%s\n' $PAPER_SETS | sed -n "s/^$p=//p")
		echo
		echo "$p at 256 MiB: the card in each session (its card in brackets) and over all, beside the replay (paper-programs: h200-512m, 0.5x; its trace captured on: $(replay_card "$1/paper-programs" "$p")), ms"
		echo
		header="| variant |"
		for set in $sets; do header+=" $set ($(card_of "$set" "$p")) |"; done
		echo "$header all sessions: median (min..max, n) | card spread | replay ember | ember / card | replay nvidia-uvm | nvidia-uvm / card |"
		echo "|$(for _ in $(seq $(($(wc -w <<<"$sets") + 7))); do printf ' --- |'; done)"
		ranked=([card]= [ember]= [nvuvm]=)
		for v in $VARIANTS; do
			row="| $v |"
			for set in $sets; do row+=" $(gpu_ns "$set" "$p" "$v" | ms_stats) |"; done
			all=$(for set in $sets; do gpu_ns "$set" "$p" "$v"; done)
			median_ns=$(median <<<"$all")
			ember=$(replay_ns "$jsonl" "$p" "$v" ember)
			nvuvm=$(replay_ns "$jsonl" "$p" "$v" nvidia-uvm)
			ranked[card]+=" $v=$median_ns" ranked[ember]+=" $v=$ember" ranked[nvuvm]+=" $v=$nvuvm"
			row+=" $(ms_stats -s <<<"$all") |"
			for d in ember nvuvm; do
				if [ "${!d}" = - ]; then
					row+=" not yet run | - |"
				else
					row+=" $(awk -v x="${!d}" -v c="$median_ns" \
						'BEGIN { printf "%.3f | %.2f", x / 1e6, x / c }') |"
				fi
			done
			echo "$row"
		done
		echo
		echo "order, fastest first: card $(order ${ranked[card]})"
		for d in ember nvuvm; do
			if [ -z "$(order ${ranked[$d]})" ]; then
				echo "order, replay ${d/nvuvm/nvidia-uvm}: not yet run"
			else
				echo "order, replay ${d/nvuvm/nvidia-uvm}: $(order ${ranked[$d]})" \
				     "($(pairs_in_order "${ranked[card]}" "${ranked[$d]}") pairs in the card's order)"
			fi
		done
	done
	for pair in $PAPER_OVERLAP; do
		p=${pair%%=*} with=${pair#*=}
		alone=${with#*:} with=${with%%:*}
		echo
		echo "$p in $with: with runs started ahead (their work before CUDA beside it) and alone, ms"
		echo
		echo "| variant | with runs ahead: median (min..max, n) | alone: median (min..max, n) | median with runs ahead within alone's min..max |"
		echo "| --- | --- | --- | --- |"
		for v in $VARIANTS; do
			w=$(gpu_ns "$with" "$p" "$v")
			a=$(gpu_ns "$alone" "$p" "$v")
			echo "| $v | $(ms_stats <<<"$w") | $(ms_stats <<<"$a") | $(awk -v m="$(median <<<"$w")" \
				'NR == 1 || $1 < lo { lo = $1 } NR == 1 || $1 > hi { hi = $1 }
				 END { print (m >= lo && m <= hi) ? "yes" : "no" }' <<<"$a") |"
		done
	done
}

if [ "${1:-}" = --paper ]; then
	paper_tables "${2:-$root/experiments/results/paper-programs}"
	exit 0
fi
if [ "${1:-}" = --all ]; then
	for matrix in validate-resident validate; do
		for session in 2026-12-02-cupy:cupy "2026-12-02:pathfinder nw torch"; do
			echo "$matrix, ${session#*:}:"
			PROGRAMS=${session#*:} bash "$0" "$validation/${session%%:*}" "$2" "$matrix"
			echo
		done
	done
	echo "the paper's programs:"
	paper_tables "$root/experiments/results/paper-programs"
	exit 0
fi
card=$1
results=${2:-}
matrix=${3:-validate}
[ -f "$card/validate.log" ] || { echo "validation-table: no $card/validate.log" >&2; exit 1; }

# stats: median (min..max) n of the numbers on stdin, in ms.
stats() {
	sort -n | awk '{ v[NR] = $1 / 1e6 } END {
		if (!NR) { print "- | -"; exit }
		m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
		printf "%.3f (%.3f..%.3f, n=%d) | %.0f %%\n", m, v[1], v[NR], NR,
		       (m > 0 ? 100 * (v[NR] - v[1]) / m : 0) }'
}

# own_time PROG VARIANT: the program's own timer of each counted round
# (time_s=, or kmeans_standard's "Took: Ss"), ns.
own_time() {
	awk -v p="$1" -v v="$2" '/time_s=/ { match($0, /time_s=[0-9.]+/); t = substr($0, RSTART + 7, RLENGTH - 7) }
		/Took: [0-9.e-]+s/ { match($0, /Took: [0-9.e-]+s/); t = substr($0, RSTART + 6, RLENGTH - 7) }
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
