#!/usr/bin/env bash
# Trace replay in a VM (docs/trace-replay.md): the committed PyTorch and
# UVMBench pathfinder traces (replay.conf) under uvm and Ember-adaptive,
# twice on fresh VMs. Each run
# must be ok with result_ok 1 (every launch's checksum equal to the CPU's,
# every word of every allocation checked, none mismatched) and every
# launch with accesses replayed; both passes must give equal trace hashes
# and modelled times. Pathfinder's trace on nvidia-uvm (replay-nvuvm.conf,
# the nvidia-uvm image, which carries the same traces): ok, every launch's
# checksum, and the same result and words checked as on ember.ko (the
# same allocations, the same lines read). Then the bad traces are refused
# before any VM boots (a truncated copy in a matrix: exit 2 with the
# reader's message). CuPy's trace under mapped (replay-device.conf): ok,
# and the allocations its program made with cudaMalloc stay in VRAM as on
# the card, where mapped's advice is given to managed memory only: the
# device's VRAM accesses are exactly the replay's accesses to device
# memory, 81920 (its records listed by trace-dump, counted by address
# against its cudaMalloc allocations), and the rest go to sysmem. KTAP,
# then "N passed, M failed, K skipped".
#
# usage: run-test.sh AGENT QEMU KERNEL INITRD NVIDIA_UVM_INITRD WORKDIR
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 nvuvm_initrd=$5 work=$6
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../../scripts/ktap.sh"
rm -rf "$work"
mkdir -p "$work"

echo "KTAP version 1"
echo "1..16"
for pass in 1 2; do
	"$agent" run "$here/replay.conf" --qemu "$qemu" --kernel "$kernel" \
		--initrd "$initrd" --results "$work/run$pass" >"$work/run$pass.log" 2>&1
done
"$agent" run "$here/replay-nvuvm.conf" --qemu "$qemu" --kernel "$kernel" --initrd "$initrd" \
	--nvidia-uvm-initrd "$nvuvm_initrd" --results "$work/nvuvm" >"$work/nvuvm.log" 2>&1
"$agent" run "$here/replay-device.conf" --qemu "$qemu" --kernel "$kernel" \
	--initrd "$initrd" --results "$work/device" >"$work/device.log" 2>&1
result() { echo "$work/run$1/trace-replay/runs/trace:$3-accesses.trace-$2-x0.5-s1/result.json"; }
# FIELDS PASS VARIANT TRACE: status, result_ok, mismatches, words, launches, hash, sim_ns
fields() {
	jq -r '[.status, .run.result_ok, .run.mismatches, .run.words_checked,
		.run.launches_replayed, .run.launches_ok, .run.trace_crc32,
		.device.trace_hash, .run.sim_ns, .run.faults, .device.fault_entries]
		| map(if . == null then "null" else . end) | @tsv' "$(result "$1" "$2" "$3")" 2>/dev/null
}
# TRACE LAUNCHES: each trace's launches (capture/traces/PROVENANCE.md)
for t in "torch 10" "pathfinder 5"; do
set -- $t
trace=$1 launches=$2
for v in uvm adaptive; do
	read -r st1 ok1 mm1 wc1 lr1 lo1 crc1 h1 ns1 f1 fe1 < <(fields 1 $v "$trace")
	read -r st2 ok2 mm2 wc2 lr2 lo2 crc2 h2 ns2 f2 fe2 < <(fields 2 $v "$trace")
	verified() {
		[ "$st1" = ok ] && [ "$st2" = ok ] && [ "$ok1" = 1 ] && [ "$ok2" = 1 ] &&
		[ "$mm1" = 0 ] && [ "${wc1:-0}" -gt 0 ] && [ "$lr1" = "$launches" ] &&
		[ "$lo1" = "$launches" ] || {
			echo "status $st1/$st2 result_ok $ok1/$ok2 mismatches $mm1 words $wc1" \
			     "launches $lr1 ok $lo1"; return 1; }
	}
	same() {
		[ -n "$h1" ] && [ "$h1" = "$h2" ] && [ "$ns1" = "$ns2" ] && [ "$crc1" = "$crc2" ] || {
			echo "hash $h1/$h2 sim_ns $ns1/$ns2 crc $crc1/$crc2"; return 1; }
	}
	check "$trace trace under $v: ok, every launch's checksum, words checked ($wc1)" verified
	# the driver's counters are counted (not null) and agree with the
	# device: every fault entry the device wrote, ember.ko fetched
	counted() {
		[ "$f1" != null ] && [ "$f1" = "$fe1" ] && [ "$f1" = "$f2" ] || {
			echo "driver faults $f1/$f2, device fault entries $fe1"; return 1; }
	}
	check "$trace trace under $v: same trace hash ($h1) and sim_ns ($ns1) twice" same
	check "$trace trace under $v: driver's faults counted, equal to the device's entries ($f1)" counted
done
done
# pathfinder on nvidia-uvm: RESULT WORDS LAUNCHES_OK of a run's result.json
nv_fields() {
	jq -r '[.status, .run.result_ok, .run.mismatches, .run.result, .run.expected_result,
		.run.words_checked, .run.launches_replayed, .run.launches_ok]
		| map(if . == null then "null" else . end) | @tsv' "$1" 2>/dev/null
}
read -r nst nok nmm nres nexp nwc nlr nlo < <(nv_fields \
	"$work/nvuvm/trace-replay-nvuvm/runs/trace:pathfinder-accesses.trace-uvm-x0.5-s1-Dnvidia-uvm/result.json")
read -r est eok emm eres eexp ewc elr elo < <(nv_fields "$(result 1 uvm pathfinder)")
nv_verified() {
	[ "$nst" = ok ] && [ "$nok" = 1 ] && [ "$nmm" = 0 ] && [ "$nlr" = 5 ] && [ "$nlo" = 5 ] &&
		[ "$nres" = "$nexp" ] || {
		echo "status $nst result_ok $nok mismatches $nmm launches $nlr ok $nlo" \
		     "result $nres expected $nexp: $(tail -n 3 "$work/nvuvm.log")"; return 1; }
}
check "pathfinder trace on nvidia-uvm under uvm: ok, every launch's checksum" nv_verified
nv_same() {
	[ -n "$nres" ] && [ "$nres" = "$eres" ] && [ "${nwc:-0}" -gt 0 ] && [ "$nwc" = "$ewc" ] || {
		echo "result $nres on nvidia-uvm, $eres on ember.ko; words $nwc, $ewc"; return 1; }
}
check "pathfinder trace on nvidia-uvm: ember.ko's result ($eres) and words checked ($ewc)" nv_same
read -r dst dok dva dsa dacc ddr < <(jq -r '[.status, .run.result_ok, .device.vram_accesses,
	.device.sysmem_accesses, .device.accesses, .run.device_accesses]
	| map(if . == null then "null" else . end) | @tsv' \
	"$work/device/trace-replay-device/runs/trace:cupy-accesses.trace-mapped-x0.5-s1/result.json" 2>/dev/null)
in_vram() {
	[ "$dst" = ok ] && [ "$dok" = 1 ] && [ "$ddr" = 81920 ] && [ "$dva" = "$ddr" ] &&
		[ "$((dva + dsa))" = "$dacc" ] || {
		echo "status $dst result_ok $dok VRAM accesses $dva sysmem $dsa of $dacc," \
		     "accesses to device memory $ddr: $(tail -n 3 "$work/device.log")"; return 1; }
}
check "cupy trace under mapped: its cudaMalloc'd memory in VRAM ($dva VRAM accesses, the replay's 81920 there)" in_vram
# a bad trace in a matrix: refused before any VM, with the reader's message
mkdir -p "$work/traces"
head -c 1000 "$here/../../capture/traces/torch-accesses.trace" >"$work/traces/cut.trace"
sed 's/^apps .*/apps     = trace:cut.trace/' "$here/replay.conf" >"$work/cut.conf"
EMBER_TRACES="$work/traces" "$agent" run "$work/cut.conf" --list >"$work/cut.log" 2>&1
cut_rc=$?
refused() {
	[ "$cut_rc" = 2 ] && grep -q "cut.trace: offset 1000: truncated" "$work/cut.log" ||
		{ echo "rc $cut_rc: $(cat "$work/cut.log")"; return 1; }
}
check "a truncated trace refused before any VM (exit 2, offset 1000)" refused
ktap_summary
