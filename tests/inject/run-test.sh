#!/usr/bin/env bash
# Runs tests/inject/campaign.conf through `ember-agent run` and judges each
# run: the injection fired, and the outcome is recovered or a clean error
# (never corrupted data, an oops or a hang). KTAP, then "N passed, M failed".
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD RESULTS_DIR
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 results=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$results/inject-test"
"$agent" run "$here/campaign.conf" --qemu "$qemu" --kernel "$kernel" \
	--initrd "$initrd" --results "$results" >/dev/null 2>"$results.log"

kinds=$(sed -n 's/^injects *= *//p' "$here/campaign.conf")
n=0 failed=0
echo "KTAP version 1"
echo "1..$(wc -w <<<"$kinds")"
for kind in $kinds; do
	n=$((n + 1))
	f=$(ls "$results"/inject-test/runs/*-"$kind"/result.json 2>/dev/null | head -n1)
	line=$(cat "$f" 2>/dev/null)
	status=$(grep -o '"status":"[a-z-]*"' <<<"$line" | cut -d'"' -f4)
	fired=$(grep -o '"injections_fired":-\?[0-9]*' <<<"$line" | cut -d: -f2)
	if [[ "$status" =~ ^(recovered|clean-error)$ ]] && [ "${fired:-0}" -gt 0 ]; then
		echo "ok $n $kind: $status (fired $fired)"
	else
		failed=$((failed + 1))
		echo "not ok $n $kind: ${status:-no result} (fired ${fired:-?})"
		echo "    # logs: $(dirname "${f:-$results/inject-test/runs/?}")"
	fi
done
echo "$((n - failed)) passed, $failed failed"
[ "$failed" = 0 ]
