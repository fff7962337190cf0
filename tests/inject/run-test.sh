#!/usr/bin/env bash
# Runs tests/inject/campaign.conf through `ember-agent run`, prints the
# campaign table (`ember-agent report`) and judges each run: the injection
# hit a launch (the device's count) and the outcome is the one the kind
# declares (recovered with verified output, or its errno with the data read
# back and a health check passed); not-fired, corrupted, oops, hang,
# unexpected and error runs fail; a hang whose interrupts are all lost
# (watchdog.conf) must still end in EIO, found by the launch watchdog;
# bitonic and radix failing part way through their sorts (sorts.conf) must
# end in EIO with every word read back verified; a synchronize whose driver
# stalls (stall.conf) must give up with ETIMEDOUT and say so, the driver
# answering after. Before that, a matrix with a parameter ember.ko does
# not have must be refused before any VM boots.
# KTAP, then "N passed, M failed, K skipped".
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD RESULTS_DIR
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 results=$5
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$results/inject-test" "$results/bad-modparams" "$results/all"
mkdir -p "$results"

kinds=$(sed -n 's/^injects *= *//p' "$here/campaign.conf")
sorts="bitonic-uvm-x1.5-s1-hang bitonic-uvm-x1.5-s1-poison radix-uvm-x1.5-s1-hang
radix-uvm-x1.5-s1-poison"
n=0 failed=0
echo "KTAP version 1"
echo "1..$(($(wc -w <<<"$kinds") + $(wc -w <<<"$sorts") + 4))"

# fail fast: an unknown parameter stops the matrix, naming the key, and
# no VM boots (a boot would leave a runs/ directory)
n=$((n + 1))
bad=$results/bad-modparams.conf
sed -e 's/^name .*/name = bad-modparams/' "$here/campaign.conf" >"$bad"
echo "modparams = perf_eager_eviction_batch_count=4 no_such_parameter=1" >>"$bad"
msg=$("$agent" run "$bad" --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
	--results "$results" 2>&1 >/dev/null)
rc=$?
if [ "$rc" = 2 ] && grep -q "no parameter 'no_such_parameter'" <<<"$msg" &&
	[ ! -d "$results/bad-modparams/runs" ]; then
	echo "ok $n modparams: an unknown parameter stops the matrix before any VM boots"
else
	failed=$((failed + 1))
	echo "not ok $n modparams: exit $rc, '$msg'"
fi

rm -rf "$results/inject-ce-bound" "$results/inject-watchdog" "$results/inject-sorts" \
	"$results/inject-stall"
for conf in campaign ce-bound watchdog sorts stall; do
	"$agent" run "$here/$conf.conf" --qemu "$qemu" --kernel "$kernel" \
		--initrd "$initrd" --results "$results" >/dev/null 2>>"$results.log"
done
# one table: the bound-0 run as its own row
mkdir -p "$results/all"
{ cat "$results/inject-test/results.jsonl"
  sed 's/"inject":"ce-error"/"inject":"ce-error,bound=0"/' \
	"$results/inject-ce-bound/results.jsonl"
  sed 's/"inject":"hang"/"inject":"hang,irq-lost"/' \
	"$results/inject-watchdog/results.jsonl"
  sed 's/"inject":"\([a-z]*\)"/"inject":"\1,sorts"/' "$results/inject-sorts/results.jsonl"
  sed 's/"inject":"tlb-timeout"/"inject":"tlb-timeout,stall"/' \
	"$results/inject-stall/results.jsonl"; } >"$results/all/results.jsonl"
"$agent" report "$results/all" --no-plot | sed 's/^/# /'

for kind in $kinds ce-error; do
	n=$((n + 1))
	if [ "$n" -gt "$(($(wc -w <<<"$kinds") + 1))" ]; then
		dir=inject-ce-bound label="$kind, ce_retries=0"
	else
		dir=inject-test label=$kind
	fi
	f=$(ls "$results/$dir"/runs/*-"$kind"/result.json 2>/dev/null | head -n1)
	line=$(cat "$f" 2>/dev/null)
	status=$(grep -o '"status":"[a-z-]*"' <<<"$line" | cut -d'"' -f4)
	hit=$(grep -o '"injections_in_launch":-\?[0-9]*' <<<"$line" | cut -d: -f2)
	why=$(grep -o '"why":"[^"]*"' <<<"$line" | cut -d'"' -f4)
	retries=$(grep -o '"ce_retries":[0-9]*' <<<"$line" | cut -d: -f2)
	# ce-error recovers only by ember.ko resubmitting the failed batch
	if [ "$label" = ce-error ] && [ "${retries:-0}" = 0 ]; then
		status="$status without a copy-engine retry"
	fi
	if [[ "$status" =~ ^(recovered|clean-error)$ ]] && [ "${hit:-0}" -gt 0 ]; then
		echo "ok $n $label: $status (hit $hit launch events${retries:+, $retries CE retries})"
	else
		failed=$((failed + 1))
		echo "not ok $n $label: ${status:-no result} (hit ${hit:-?}) ${why}"
		echo "    # logs: $(dirname "${f:-$results/inject-test/runs/?}")"
	fi
done

# the unreported hang: clean EIO, and the reset came from the watchdog (no
# HANG error interrupt reached the driver: no "device error 10" line)
n=$((n + 1))
f=$results/inject-watchdog/runs/gather-uvm-x0.5-s1-hang/result.json
line=$(cat "$f" 2>/dev/null)
status=$(grep -o '"status":"[a-z-]*"' <<<"$line" | cut -d'"' -f4)
console=$(dirname "$f")/console.log
if [ "$status" = clean-error ] && grep -q "device hung: resetting it" "$console" &&
	! grep -q "device error 10 " "$console"; then
	echo "ok $n hang with every interrupt lost: clean-error, reset by the launch watchdog"
else
	failed=$((failed + 1))
	echo "not ok $n hang with every interrupt lost: ${status:-no result}" \
	     "$(grep -o '"why":"[^"]*"' <<<"$line")"
	echo "    # logs: $(dirname "$f")"
fi
# the sorts failing part way: clean EIO past the first launch, every word
# read back compared with the reference after the completed launches
for id in $sorts; do
	n=$((n + 1))
	f=$results/inject-sorts/runs/$id/result.json
	read -r status launches words lost why < <(jq -r \
		'[.status, .run.launches, .run.words_checked, .run.lost_pages, .why // ""] | @tsv' \
		"$f" 2>/dev/null)
	if [ "$status" = clean-error ] && [ "${launches:-0}" -gt 1 ] && [ "${words:-0}" -gt 0 ]; then
		echo "ok $n $id: clean-error in launch $launches, $words words verified," \
		     "$lost pages lost"
	else
		failed=$((failed + 1))
		echo "not ok $n $id: ${status:-no result} in launch ${launches:-?}," \
		     "${words:-?} words verified $why"
		echo "    # logs: $(dirname "$f")"
	fi
done

# the stalled driver: the synchronize gives up with ETIMEDOUT and says so;
# clean-error means the data read back and the health check passed after
n=$((n + 1))
f=$results/inject-stall/runs/gather-uvm-x1.5-s1-tlb-timeout/result.json
read -r status ret why < <(jq -r '[.status, .run.ret, .why // ""] | @tsv' "$f" 2>/dev/null)
console=$(dirname "$f")/console.log
if [ "$status" = clean-error ] && [ "$ret" = -110 ] &&
	grep -q "device clock stood still for [0-9]* polls while it waited for the driver; giving up the wait" "$console"; then
	echo "ok $n stalled driver: ETIMEDOUT from the wait's give-up, then a health check passed"
else
	failed=$((failed + 1))
	echo "not ok $n stalled driver: ${status:-no result}, ret ${ret:-?} $why"
	echo "    # logs: $(dirname "$f")"
fi
echo "$((n - failed)) passed, $failed failed, 0 skipped"	# it skips no check
[ "$failed" = 0 ]
