#!/usr/bin/env bash
# Determinism under Ember-adaptive with its notification paths live:
# kmeans at 1.5x (adaptive.conf), run twice on fresh VMs; both runs must
# be ok, with access-counter notifications, promotions and eager
# evictions > 0 (else the check covers nothing the stock policy does not),
# and equal trace hashes and counters. KTAP, then "N passed, M failed,
# K skipped".
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD WORKDIR [PROFILE]
# (PROFILE: default h200-64m, 1/256 of the paper's card, the smallest the
# scaling rule allows; kmeans there still raises 6 notifications, 6
# promotions and 5 eager evictions, 10-17 s a run here; h200-128m: 530,
# 530, 525, about 57 s)
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5 profile=${6:-h200-64m}
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/ktap.sh"
rm -rf "$work"
mkdir -p "$work"
sed "s/^profile .*/profile  = $profile/" "$here/adaptive.conf" >"$work/adaptive.conf"

echo "KTAP version 1"
echo "1..6"
for pass in 1 2; do
	"$agent" run "$work/adaptive.conf" --qemu "$qemu" --kernel "$kernel" \
		--initrd "$initrd" --results "$work/run$pass" >"$work/run$pass.log" 2>&1
done
result() { echo "$work/run$1/determinism-adaptive/runs/kmeans-adaptive-x1.5-s1/result.json"; }
# FIELDS RUN: status, the counters and the trace hash, one line
fields() {
	jq -r '[.status, .run.notifications, .run.promotions, .run.eager_evictions,
		.device.trace_hash, .device.cpu_measured_ns, .wall_s] | @tsv' \
		"$(result "$1")" 2>/dev/null
}
read -r st1 n1 p1 e1 h1 c1 w1 < <(fields 1)
read -r st2 n2 p2 e2 h2 c2 w2 < <(fields 2)
both_ok() { [ "$st1" = ok ] && [ "$st2" = ok ] || { echo "status $st1, $st2"; return 1; }; }
positive_equal() { [ "${1:-0}" -gt 0 ] 2>/dev/null && [ "$1" = "$2" ] || { echo "$1 vs $2"; return 1; }; }
positive() { [ "${1:-0}" -gt 0 ] 2>/dev/null || { echo "$2: ${1:-missing}"; return 1; }; }
check "kmeans 1.5x adaptive on $profile: both runs ok" both_ok
check "notifications > 0 ($n1)" positive "$n1" notifications
check "promotions > 0 ($p1)" positive "$p1" promotions
check "eager evictions > 0 ($e1)" positive "$e1" "eager evictions"
check "the two runs' trace hashes and counters equal ($h1)" \
	test "$h1 $n1 $p1 $e1" = "$h2 $n2 $p2 $e2"
# driver_cost measured (the matrices' default): the driver's CPU time is
# the guest's instructions, which must repeat from boot to boot
check "the driver's measured CPU time equal ($c1 ns)" positive_equal "$c1" "$c2"
echo "# wall time per run: ${w1:-?} s, ${w2:-?} s"
ktap_summary
