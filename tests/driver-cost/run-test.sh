#!/usr/bin/env bash
# The driver-cost check as a deterministic performance-regression test of
# ember.ko (docs/testing.md): experiments/matrices/driver-cost-ember.conf
# (PROFILE substituted) on two fresh boots must give every activity's
# instruction count equal; then ember.ko with extra-pass.patch (one more
# pass over each fault batch) must be reported slower per serviced fault
# by scripts/driver-cost.sh compare, and nothing else about it. KTAP, then
# "N passed, M failed, K skipped".
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD WORKDIR [PROFILE]
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5 profile=${6:-h200-64m}
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
. "$top/scripts/ktap.sh"
rm -rf "$work"
mkdir -p "$work"
sed "s/^profile .*/profile  = $profile/" "$top/experiments/matrices/driver-cost-ember.conf" \
	>"$work/matrix.conf"
# the slower build runs the faulting cell alone
sed 's/^apps .*/apps     = stream/; s/^variants .*/variants = uvm/' "$work/matrix.conf" \
	>"$work/stream.conf"

run() {	# CONF RESULTS INITRD
	"$agent" run "$1" --qemu "$qemu" --kernel "$kernel" --initrd "$3" \
		--results "$2" >"$2.log" 2>&1
}
set_of() { echo "$work/$1/driver-cost-ember"; }
# every ok run's id and instruction counters, one line each
counters() {
	jq -r 'select(.status == "ok") | [.id, .device.cpu_insns_fault,
		.device.cpu_insns_notify, .device.cpu_insns_evict,
		.device.cpu_insns_prefetch, .device.cpu_insns_worker,
		.device.cpu_insns_other, .device.trace_hash] | @tsv' \
		"$(set_of "$1")/results.jsonl" 2>/dev/null | sort
}

echo "KTAP version 1"
echo "1..5"
run "$work/matrix.conf" "$work/boot1" "$initrd"
run "$work/matrix.conf" "$work/boot2" "$initrd"
all_ok() { [ "$(counters "$1" | wc -l)" = 4 ] || { echo "$(counters "$1" | wc -l) of 4 runs ok"; return 1; }; }
check "driver-cost-ember on $profile, first boot: 4 runs ok" all_ok boot1
check "second boot: 4 runs ok" all_ok boot2
same() { diff <(counters boot1) <(counters boot2); }
check "every activity's instructions and the trace hash equal on both boots" same

# ember.ko with the patch, in an image of its own
slow_image() {
	cp -r "$top/guest-kmod/ember" "$work/ember-src" &&
	patch -s -d "$work/ember-src" -p1 <"$here/extra-pass.patch" &&
	# O from the environment: on make's command line it would reach kbuild,
	# whose O= is the kernel's own output folder
	O="$work/driver" make -s -C "$work/ember-src" TOP="$top" >"$work/build.log" 2>&1 &&
	make -s -C "$top/images" O="$work/images" KMOD="$work/driver/ember.ko" \
		"$work/images/initramfs.cpio" >>"$work/build.log" 2>&1 &&
	run "$work/stream.conf" "$work/slow" "$work/images/initramfs.cpio"
}
slower() {
	local out rc
	out=$(bash "$top/scripts/driver-cost.sh" compare "$(set_of boot1)" "$(set_of slow)" 1 2>&1)
	rc=$?
	echo "$out" | sed 's/^/# /'
	# the faulting cell alone ran: the other three are missing, not slower
	[ $rc = 1 ] && echo "$out" | grep -q '^stream-uvm-x1.5-s1: per-fault .*: slower$'
}
check "ember.ko with one more pass over each fault batch builds and runs" slow_image
check "driver-cost compare reports it slower per serviced fault" slower
ktap_summary
