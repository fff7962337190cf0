#!/usr/bin/env bash
# The driver's own CPU work, in guest instructions (driver_cost measured;
# docs/model.md "Driver CPU time"), per unit of work, from result sets of
# ember-agent run:
#   per fault      cpu_insns_fault / the fault entries the device wrote
#   per promotion  cpu_insns_notify / the blocks the policy promoted
#   per 2 MiB out  cpu_insns_evict / (bytes copied device to host / 2 MiB)
# and, from the same run, the driver time both rules come to: the measured
# (cpu_measured_ns) and what the assumed constants charge (cpu_assumed_ns),
# in ms.
# The same rule for every driver: the instructions are the device's count,
# the units the device's own (promotions: the policy core's, on both).
#
#   driver-cost.sh table DIR...            one row per finished run
#   driver-cost.sh compare BASE NEW [PCT]  each run of NEW against BASE's
#       run of the same id: exit 1 when a figure grew by more than PCT
#       percent (default 0: any growth), or a run is missing
#   driver-cost.sh speed MEASURED ASSUMED  what counting costs the host:
#       per run id in both, its VM's wall and CPU seconds under the
#       measured rule over the assumed; the totals' ratios and each
#       ratio's min, median and max over the runs
set -euo pipefail

die() { echo "driver-cost: $*" >&2; exit 2; }

# DIR...: one TSV line per ok run: id driver branch variant app faults
# promotions mib_out insns_fault insns_notify insns_evict insns_other
# ms_measured ms_assumed
rows() {
	local d f
	for d in "$@"; do
		f=$d/results.jsonl
		[ -f "$f" ] || die "$d: no results.jsonl"
		jq -r 'select(.status == "ok") |
			[.id, .driver, (.run.branch // "-"), .variant, .app,
			 .device.fault_entries, (.run.promotions // 0),
			 (.device.bytes_d2h / 2097152 | floor),
			 .device.cpu_insns_fault, .device.cpu_insns_notify,
			 .device.cpu_insns_evict, .device.cpu_insns_other,
			 (.device.cpu_measured_ns / 1e6 | floor),
			 (.device.cpu_assumed_ns / 1e6 | floor)] | @tsv' "$f"
	done
}

per() { [ "$2" -gt 0 ] && echo $(( $1 / $2 )) || echo -; }

table() {
	[ $# -gt 0 ] || die "table: result sets, please"
	printf '%-11s %-10s %-9s %-7s %9s %11s %10s %11s %10s %12s %11s %10s\n' \
		driver branch variant app faults insns/fault promotions \
		insns/promo "2MiB out" "insns/2MiB" "ms measured" "ms assumed"
	rows "$@" | sort -t $'\t' -k2,2 -k3,3 -k4,4 -k5,5 |
	while IFS=$'\t' read -r id drv br var app fa pr mo inf inn inv ino msm msa; do
		printf '%-11s %-10s %-9s %-7s %9s %11s %10s %11s %10s %12s %11s %10s\n' \
			"$drv" "$br" "$var" "$app" "$fa" "$(per "$inf" "$fa")" \
			"$pr" "$(per "$inn" "$pr")" "$mo" "$(per "$inv" "$mo")" "$msm" "$msa"
	done
}

compare() {
	local base=$1 new=$2 pct=${3:-0} bad=0 id b n
	[ -d "$base" ] && [ -d "$new" ] || die "compare: two result sets, please"
	declare -A was
	while IFS=$'\t' read -r id _ _ _ _ fa pr mo inf inn inv _; do
		was[$id]="$(per "$inf" "$fa") $(per "$inn" "$pr") $(per "$inv" "$mo")"
	done < <(rows "$base")
	while IFS=$'\t' read -r id _ _ _ _ fa pr mo inf inn inv _; do
		[ -n "${was[$id]:-}" ] || { echo "$id: not in $base"; bad=1; continue; }
		read -r -a b <<<"${was[$id]}"
		n=("$(per "$inf" "$fa")" "$(per "$inn" "$pr")" "$(per "$inv" "$mo")")
		for k in 0 1 2; do
			what=(per-fault per-promotion per-2MiB-out)
			[ "${b[k]}" = - ] || [ "${n[k]}" = - ] && continue
			if [ $(( n[k] * 100 )) -gt $(( b[k] * (100 + pct) )) ]; then
				echo "$id: ${what[k]} ${b[k]} -> ${n[k]} instructions: slower"
				bad=1
			elif [ "${n[k]}" != "${b[k]}" ]; then
				echo "$id: ${what[k]} ${b[k]} -> ${n[k]} instructions"
			fi
		done
		unset "was[$id]"
	done < <(rows "$new")
	for id in "${!was[@]}"; do echo "$id: missing from $new"; bad=1; done
	[ $bad = 0 ] && echo "driver-cost: no figure grew by more than $pct %"
	return $bad
}

speed() {
	local m=$1 a=$2 f
	for f in "$m/results.jsonl" "$a/results.jsonl"; do
		[ -f "$f" ] || die "speed: no $f"
	done
	jq -rn --slurpfile m "$m/results.jsonl" --slurpfile a "$a/results.jsonl" '
	  def ok: map(select(.status == "ok")) | map({key: .id, value: .}) | from_entries;
	  def med: sort | if length % 2 == 1 then .[length / 2 | floor]
	                  else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	  def f2: . * 100 | round / 100 | tostring;
	  def spread: map(select(. != null)) |
	    if length == 0 then "-" else "min \(min | f2) median \(med | f2) max \(max | f2)" end;
	  ($m | ok) as $mm | ($a | ok) as $aa
	  | [$mm | keys[] | select($aa[.] != null)] as $ids
	  | if ($ids | length) == 0 then "no run in both" | halt_error(1) else . end
	  | [$ids[] | {w: ($mm[.].wall_s / $aa[.].wall_s),
	               c: (if ($aa[.].cpu_s // 0) > 0 then $mm[.].cpu_s / $aa[.].cpu_s else null end)}] as $r
	  | ($ids | map($mm[.].wall_s) | add) as $wm | ($ids | map($aa[.].wall_s) | add) as $wa
	  | ($ids | map($mm[.].cpu_s // 0) | add) as $cm | ($ids | map($aa[.].cpu_s // 0) | add) as $ca
	  | "runs in both: \($ids | length) (measured \($mm | length) ok, assumed \($aa | length) ok)",
	    "VM wall s, summed: measured \($wm | round), assumed \($wa | round), ratio \($wm / $wa | f2)",
	    "VM CPU s, summed:  measured \($cm | round), assumed \($ca | round), ratio \(if $ca > 0 then $cm / $ca | f2 else "-" end)",
	    "per run, measured / assumed wall: \($r | map(.w) | spread)",
	    "per run, measured / assumed CPU:  \($r | map(.c) | spread)"'
}

case ${1:-} in
table) shift; table "$@" ;;
speed) shift; [ $# = 2 ] || die "usage: driver-cost.sh speed MEASURED ASSUMED"; speed "$@" ;;
compare) shift; [ $# -ge 2 ] || die "usage: driver-cost.sh compare BASE NEW [PCT]"; compare "$@" ;;
*) die "usage: driver-cost.sh table DIR... | compare BASE NEW [PCT]" ;;
esac
