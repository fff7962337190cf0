#!/usr/bin/env bash
# The replay's throughput at scale (docs/trace-replay.md, "Replay
# throughput"): a synthetic trace of PASSES x LINES records (capture's
# trace-synth: each record a read-modify-write of one line, stream's sweep
# over one allocation of the footprint, so the replay is not rescaled) in
# images of their own (ember's, and with DRIVERS naming it nvidia-uvm's),
# replayed as one matrix with the built-in stream kernel over the same
# lines for the same passes, one VM at a time on this host; prints each
# run's records, wall seconds, modelled time and records per wall second,
# and per driver the replay's time over the stream's. The trace is made
# again each time, never committed.
#
# usage: replay-bench.sh AGENT QEMU KERNEL WORKDIR [PASSES [DRIVERS [PROFILE [FACTOR]]]]
#   DRIVERS: "ember" (default) or "ember nvidia-uvm" (NVIDIA_BRANCHES names
#   the branch folders the nvidia-uvm image is built from)
set -euo pipefail

agent=$1 qemu=$2 kernel=$3 work=$4 passes=${5:-382} drivers=${6:-ember}
profile=${7:-h200-64m} factor=${8:-0.5}
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/scripts/common.sh"

case $profile in	# the profile's VRAM: the size its name gives
*-[0-9]*m*) vram=$(( $(sed 's/.*-\([0-9]*\)m.*/\1/' <<<"$profile") << 20 )) ;;
*) die "replay-bench: give a profile named by its VRAM (h200-64m)" ;;
esac
bytes=$(awk -v v="$vram" -v f="$factor" 'BEGIN { printf "%d", int(v * f / 128) * 128 }')
lines=$((bytes / 128))
records=$((lines * passes))
rm -rf "$work"
mkdir -p "$work/traces"
"$top/build/capture/trace-synth" "$work/traces/synth.trace" "$records" \
	$(( (records + (1 << 20) - 1) >> 20 )) "$bytes" >/dev/null
make -s -C "$top/images" O="$work/image" TRACES="$work/traces/synth.trace" \
	"$work/image/initramfs.cpio" >/dev/null
nvuvm=()
if [[ " $drivers " == *" nvidia-uvm "* ]]; then
	make -s -C "$top/images" nvidia-uvm-image NVIDIA_UVM_IMAGE="$work/image/nvidia-uvm.cpio" \
		NVIDIA_BRANCHES="${NVIDIA_BRANCHES:?names the nvidia-uvm branch folders}" \
		TRACES="$work/traces/synth.trace" >"$work/image.log" 2>&1 ||
		die "replay-bench: the nvidia-uvm image did not build ($work/image.log)"
	nvuvm=(--nvidia-uvm-initrd "$work/image/nvidia-uvm.cpio")
fi
# guest memory: the larger image twice while it unpacks, and the run's
image=$(stat -c %s "$work/image/"*.cpio | sort -n | tail -n 1)
cat >"$work/bench.conf" <<CONF
name     = replay-bench
profile  = $profile
apps     = trace:synth.trace stream
variants = uvm
factors  = $factor
driver   = $drivers
sweep    = -p $passes
jobs     = 1
memory   = $(( (image >> 19) + (bytes >> 20) + 512 ))
timeout  = 3600
CONF
EMBER_TRACES="$work/traces" "$agent" run "$work/bench.conf" --qemu "$qemu" --kernel "$kernel" \
	--initrd "$work/image/initramfs.cpio" "${nvuvm[@]}" --results "$work/results" \
	>"$work/run.log" 2>&1 || die "replay-bench: a run failed ($work/run.log)"
printf '%-12s %-20s %12s %9s %12s %14s\n' driver run records wall_s sim_ns records_per_s
for d in $drivers; do
	sfx=$([ "$d" = ember ] || echo "-D$d")
	for app in trace:synth.trace stream; do
		jq -r --arg d "$d" --argjson n "$records" \
			'[$d, .app, $n, .wall_s, .run.sim_ns, $n / .wall_s] |
			 "\(.[0]) \(.[1]) \(.[2]) \(.[3]) \(.[4]) \(.[5])"' \
			"$work/results/replay-bench/runs/$app-uvm-x$factor-s1$sfx-p$passes/result.json"
	done | awk '{ printf "%-12s %-20s %12d %9.1f %12d %14.0f\n", $1, $2, $3, $4, $5, $6 }'
done | tee "$work/table.txt"
awk -v p="$profile" -v n="$records" -v k="$passes" -v l="$lines" '
	{ w[$1 " " ($2 == "stream" ? "s" : "t")] = $4; d[$1] = 1 }
	END { for (x in d) printf "replay-bench: %s on %s, %d records (%d passes over %d lines): replay %.1f s, stream %.1f s, ratio %.2f\n",
		x, p, n, k, l, w[x " t"], w[x " s"], w[x " t"] / w[x " s"] }' "$work/table.txt"
