#!/usr/bin/env bash
# make nvidia-vm-record: appends to tests/nvidia-uvm/branch-runs.tsv one
# line per driver branch of the last make nvidia-vm-test (its KTAP, kept
# by run-test.sh beside its work folder): what the branch was built from,
# on which emgpu personality (NVIDIA_PERSONALITY, default ga10x), with
# the Ember series or NVIDIA's module alone, and its checks passed,
# failed and skipped, with the names of those that failed. A local tree
# is named by its version and the sha256 of its sources, never its path.
#
#   branch-record.sh TAP BRANCH_DIR...
set -euo pipefail
tap=${1:?usage: branch-record.sh TAP BRANCH_DIR...}
shift
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
runs=$here/branch-runs.tsv
[ -s "$tap" ] || { echo "no $tap: run make nvidia-vm-test first" >&2; exit 1; }
grep -qE '^[0-9]+ passed, [0-9]+ failed' "$tap" ||
	{ echo "$tap has no closing summary: the run did not end" >&2; exit 1; }
[ -s "$runs" ] || printf 'date_utc\tcommit\tversion\tpersonality\tsource\tmode\tpassed\tfailed\tskipped\tnot_passed\n' >"$runs"
date=$(date -u +%Y-%m-%dT%H:%M:%SZ)
commit=$(git -C "$top" rev-parse --short=7 HEAD)
for branch_dir in "$@"; do
	eval "$(bash "$top/guest-kmod/nvidia-uvm/branch-info.sh" "$branch_dir")"
	mode=series
	[ "$stock_only" = 1 ] && mode=stock
	# this branch's checks: their names start "VERSION:" or "VERSION ("
	mine=$(grep -E "^(not )?ok [0-9]+ $version[:( ]" "$tap" || true)
	skipped=$(grep -c ' # SKIP ' <<<"$mine" || true)
	failed=$(grep -c '^not ok' <<<"$mine" || true)
	passed=$(( $(grep -c . <<<"$mine" || true) - skipped - failed ))
	not_passed=$( { grep '^not ok' <<<"$mine" || true; } | sed 's/^not ok [0-9]* //' | paste -sd';' -)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%d\t%d\t%d\t%s\n' "$date" "$commit" "$version" \
		"${NVIDIA_PERSONALITY:-ga10x}" "$source" "$mode" \
		"$passed" "$failed" "$skipped" "${not_passed:--}" >>"$runs"
	echo "recorded $version (${NVIDIA_PERSONALITY:-ga10x}, $mode): $passed passed, $failed failed, $skipped skipped"
done
