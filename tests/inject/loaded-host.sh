#!/usr/bin/env bash
# Determinism on a loaded host: the same lockstep matrices (loaded-host.conf:
# stream under the stock policy and Ember-adaptive; loaded-hang.conf: gather
# with an injected hang) run twice through `ember-agent run`, first on the host as
# it is, then with LOAD_LOOPS busy loops beside it. Each pair of runs must
# agree exactly: status, the guest's results (`run`: counts, checksums,
# modelled time) and the device's stats at the guest's end (`device`:
# every counter, sim_ns and the trace hash). Only wall_s may differ; it is
# printed, so that the load's effect shows. KTAP, then "N passed, M failed, K skipped".
#
# usage: loaded-host.sh AGENT QEMU KERNEL INITRD WORKDIR [LOAD_LOOPS]
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5 loops=${6:-3}
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"

confs="loaded-host loaded-hang"

run_matrices() {	# results dir
	for conf in $confs; do
		"$agent" run "$here/$conf.conf" --qemu "$qemu" --kernel "$kernel" \
			--initrd "$initrd" --results "$1" >/dev/null 2>>"$work/run.log"
	done
}

run_matrices "$work/quiet"

# the load: busy loops at the test's own priority, bounded in time even if
# this script dies, stopped by their ids as soon as the runs are done
pids=()
for ((i = 0; i < loops; i++)); do
	timeout 900 sh -c 'while :; do :; done' &
	pids+=($!)
done
load_start=$(cut -d' ' -f1 /proc/loadavg)
run_matrices "$work/loaded"
load_end=$(cut -d' ' -f1 /proc/loadavg)
kill "${pids[@]}" 2>/dev/null
wait "${pids[@]}" 2>/dev/null

# every run the matrices list, so that a run that left no directory fails
expected=0
for conf in $confs; do
	listed=$("$agent" run "$here/$conf.conf" --list | wc -l) ||
		{ echo "loaded-host: ember-agent run $conf.conf --list failed" >&2; exit 1; }
	expected=$((expected + listed))
done
ids=$(cd "$work/quiet" && ls -d */runs/* 2>/dev/null)
n=0 failed=0 missing=0
echo "KTAP version 1"
echo "1..$(wc -w <<<"$ids")"
if [ "$(wc -w <<<"$ids")" != "$expected" ]; then
	missing=1
	echo "# FAIL: the matrices list $expected runs, the quiet pass left $(wc -w <<<"$ids") (logs: $work/run.log)"
fi
echo "# $loops busy loops; load average $load_start at the loaded runs' start, $load_end at their end"
for id in $ids; do
	n=$((n + 1))
	q=$work/quiet/$id/result.json
	l=$work/loaded/$id/result.json
	# what must not change, and the one thing that may
	same='{status, run, device}'
	a=$(jq -cS "$same" "$q" 2>/dev/null)
	b=$(jq -cS "$same" "$l" 2>/dev/null)
	hash=$(jq -r '.device.trace_hash // empty' "$q" 2>/dev/null)
	status=$(jq -r '.status // empty' "$q" 2>/dev/null)
	walls="$(jq -r '.wall_s' "$q" 2>/dev/null | cut -d. -f1) s quiet,"
	walls+=" $(jq -r '.wall_s' "$l" 2>/dev/null | cut -d. -f1) s loaded"
	if [ -n "$hash" ] && [ "$a" = "$b" ] &&
	   [[ "$status" =~ ^(ok|clean-error|recovered)$ ]]; then
		echo "ok $n ${id##*/}: $status, trace hash $hash and stats identical ($walls)"
	else
		failed=$((failed + 1))
		echo "not ok $n ${id##*/}: ${status:-no result}, trace hash ${hash:-none} ($walls)"
		diff <(jq -S "$same" "$q" 2>&1) <(jq -S "$same" "$l" 2>&1) |
			head -n 20 | sed 's/^/    # /'
		echo "    # logs: $(dirname "$q") $(dirname "$l")"
	fi
done
echo "$((n - failed)) passed, $((failed + missing)) failed, 0 skipped"
[ "$n" -gt 0 ] && [ "$failed" = 0 ] && [ "$missing" = 0 ]
