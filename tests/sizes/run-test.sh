#!/usr/bin/env bash
# Sizes and seeds: one application (radix, whose 64-bit checksum passes
# 2^63 at the larger size) at two card sizes and two seeds through
# `ember-agent run`. Every run must read back: status ok (output verified
# against the CPU reference), the checksum a decimal string, and no "error"
# line in the report. KTAP, then "N passed, M failed, K skipped".
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD WORKDIR
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5
profiles="h200-64m h200-128m" seeds="1 2"
n=0 failed=0 big=0

echo "KTAP version 1"
echo "1..5"
rm -rf "$work"
mkdir -p "$work"
for profile in $profiles; do
	cat >"$work/$profile.conf" <<CONF
name     = sizes-$profile
profile  = $profile
apps     = radix
variants = prefetch
factors  = 0.75
seeds    = $seeds
memory   = 1024
timeout  = 600
CONF
	"$agent" run "$work/$profile.conf" --qemu "$qemu" --kernel "$kernel" \
		--initrd "$initrd" --results "$work" >/dev/null 2>>"$work/run.log"
	"$agent" report "$work/sizes-$profile" --no-plot >"$work/report-$profile.txt" 2>&1
done

for profile in $profiles; do
	for seed in $seeds; do
		n=$((n + 1))
		f=$work/sizes-$profile/runs/radix-prefetch-x0.75-s$seed/result.json
		line=$(cat "$f" 2>/dev/null)
		status=$(grep -o '"status":"[a-z-]*"' <<<"$line" | cut -d'"' -f4)
		result=$(grep -o '"result":"[0-9]*"' <<<"$line" | cut -d'"' -f4)
		# a 20-digit value, or a 19-digit one past 9223372036854775807
		if [ ${#result} -gt 19 ] || { [ ${#result} = 19 ] &&
		   [[ "$result" > 9223372036854775807 ]]; }; then
			big=$((big + 1))
		fi
		if [ "$status" = ok ] && [ -n "$result" ]; then
			echo "ok $n radix $profile seed $seed: checksum $result"
		else
			failed=$((failed + 1))
			echo "not ok $n radix $profile seed $seed: ${status:-no result}" \
			     "(checksum ${result:-not a decimal string})"
			echo "    # $(grep -o '"why":"[^"]*' <<<"$line" | cut -c8-)"
			echo "    # logs: $(dirname "$f")"
		fi
	done
done

n=$((n + 1))
if [ "$big" -gt 0 ] && ! grep -q '^error' "$work"/report-*.txt; then
	echo "ok $n $big checksum(s) past 2^63 read back; no error lines in the reports"
else
	failed=$((failed + 1))
	echo "not ok $n checksums past 2^63: $big; report error lines:"
	grep -h '^error' "$work"/report-*.txt | sed 's/^/    # /'
fi
echo "$((n - failed)) passed, $failed failed, 0 skipped"	# it skips no check
[ "$failed" = 0 ]
