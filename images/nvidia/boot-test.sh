#!/usr/bin/env bash
# Boots the real-card image under TCG with no NVIDIA card (make test,
# through image-nvidia-test): init must say so ("no NVIDIA device"),
# nvidia.ko must reach the kernel and be refused by NVIDIA's own probe
# (ENODEV, "NVRM: No NVIDIA GPU found") rather than by the module loader
# (a wrong vermagic or a missing kernel symbol fails otherwise), and the VM
# must power off cleanly with no panic, oops or warning on the console
# (ember-agent vm's own judgement). The same image with an nvidia.ko the
# kernel cannot link must be reported with the loader's error instead.
# KTAP, then "N passed, M failed, K skipped".
#
#   boot-test.sh AGENT QEMU KERNEL INITRD WORKDIR
set -uo pipefail

agent=$1 qemu=$2 kernel=$3 initrd=$4 work=$5
rm -rf "$work"
mkdir -p "$work"
. "$(dirname "$0")/../../scripts/ktap.sh"

line() { grep -F -- "$1" "$work/lines" | grep -F -- "${2:-}"; }

# boot INITRD WORKDIR: the guest's JSON lines on stdout
boot() {
	# apps requested: with no card init must stop before running any
	"$agent" vm --qemu "$qemu" --kernel "$kernel" --initrd "$1" --memory 1024 \
		--timeout 600 --scenarios none --json --workdir "$2" \
		--append 'ember_apps=pathfinder ember_variants=uvm,adaptive'
}

echo "KTAP version 1"
boot "$initrd" "$work/vm" >"$work/lines" 2>"$work/agent.err"
rc=$?
check "the VM powers off cleanly (ember-agent vm exit 0)" sh -c "[ $rc = 0 ] || cat '$work/agent.err'"
check "init boots the cloud kernel and counts no NVIDIA card" \
	line '"kernel":"'"$(. "$(dirname "$0")/../../scripts/common.sh" && kernel_abi)"'-cloud-amd64"' '"nvidia_cards":0'
check "init reports \"no NVIDIA device\"" line '"nvidia":"no NVIDIA device"'
check "nvidia.ko is refused by NVIDIA's probe (ENODEV), not by the loader" \
	line '"insmod":"nvidia"' '"ret":19'
check "the kernel log says NVRM: No NVIDIA GPU found" line '"insmod":"nvidia"' 'NVRM: No NVIDIA GPU found'
check "no application ran without a card" sh -c "! grep -q '\"scenario\":\"run\"' '$work/lines'"
check "init's last line is the end of the boot" line '"scenario":"boot","end":true'

# nvidia-uvm.ko in nvidia.ko's place: the kernel cannot resolve its symbols
damaged=$work/damaged
mkdir -p "$damaged/root"
(cd "$damaged/root" && cpio -idm --quiet && cp lib/modules/nvidia-uvm.ko lib/modules/nvidia.ko &&
	find . -mindepth 1 | LC_ALL=C sort | cpio --quiet -o -H newc) <"$initrd" >"$damaged/initrd.cpio"
rm -rf "$damaged/root"
boot "$damaged/initrd.cpio" "$damaged/vm" >"$damaged/lines" 2>/dev/null
check "an nvidia.ko the kernel cannot link is reported with the loader's error, not ENODEV" \
	sh -c "grep -F '\"insmod\":\"nvidia\"' '$damaged/lines' | grep -F 'unknown symbol' | grep -vF '\"ret\":19'"

# init's run lines, without a card: its run_one with a stand-in for
# ember-apps that prints a fixed line, under busybox sh as in the guest;
# ember-agent report must read them (one ok cell per variant; static
# reported failed, as where libember-static.so is missing: the host's
# /usr/lib has none)
sim=$work/run-lines
mkdir -p "$sim"
cat >"$sim/ember-apps" <<'APPS'
#!/bin/sh
echo "{\"app\":\"$1\",\"variant\":\"$2\",\"footprint\":$3,\"seed\":$4,\"ms\":12.500,\"setup_ms\":2.250,\"launch_ms\":10.250,\"mismatches\":0,\"verified\":1}"
APPS
chmod +x "$sim/ember-apps"
{
	echo 'emit() { echo "$1"; }; uvm_load() { return 0; }'
	sed -n '/^json_str()/p; /^run_one() {/,/^}/p' "$(dirname "$0")/init" |
		sed "s|/bin/ember-apps|$sim/ember-apps|; s|/tmp/err|$sim/err|g"
	echo 'card="NVIDIA X" mem_mib=1024 modparams=""'
	echo 'for v in uvm prefetch mapped static adaptive; do run_one kmeans $v 536870912 1; done'
} >"$sim/run.sh"
/bin/busybox sh "$sim/run.sh" >"$sim/results.jsonl" 2>"$sim/err.sh"
"$agent" report "$sim" --no-plot >"$sim/report" 2>&1
check "init's run lines: sim_ns and setup_ns from launch_ms and setup_ms, factor of the card" \
	grep -q '"variant":"adaptive","profile":"NVIDIA X","factor":0.5000,.*"status":"ok".*"run":{"sim_ns":10250000,"setup_ns":2250000,' "$sim/results.jsonl"
check "ember-agent report reads them (static failed: no libember-static.so)" \
	grep -qE '^kmeans +1.00 +1.00 +failed +1.00 +12.500$' "$sim/report"
echo "1..$n"
ktap_summary
