#!/usr/bin/env bash
# The replay's throughput at scale (docs/trace-replay.md, "Replay
# throughput"): a synthetic trace of PASSES x LINES records (capture's
# trace-synth: each record a read-modify-write of one line, stream's sweep
# over one allocation of the footprint, so the replay is not rescaled) in
# an ember image of its own, replayed in one VM, then the built-in stream
# kernel over the same lines for the same passes in another, on the same
# host one after the other; prints each run's records (lines), wall
# seconds, modelled time and records per wall second, and the ratio.
# The trace is made again each time, never committed.
#
# usage: replay-bench.sh AGENT QEMU KERNEL WORKDIR [PASSES [PROFILE [FACTOR]]]
set -euo pipefail

agent=$1 qemu=$2 kernel=$3 work=$4 passes=${5:-382} profile=${6:-h200-64m} factor=${7:-0.5}
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
# memory: the image (trace included) twice while it unpacks, and the run's
mib=$(( ($(stat -c %s "$work/image/initramfs.cpio") >> 19) + (bytes >> 20) + 512 ))
run() {	# NAME ARGS: one VM, its result line's fields and its wall seconds
	local t0 t1
	t0=$(date +%s.%N)
	"$agent" vm --qemu "$qemu" --kernel "$kernel" --initrd "$work/image/initramfs.cpio" \
		--profile "$profile" --memory "$mib" --timeout 3600 --run "$2" --json \
		--workdir "$work/$1" >"$work/$1.jsonl" 2>&1
	t1=$(date +%s.%N)
	jq -r --arg w "$(echo "$t1 - $t0" | bc)" \
		'select(.scenario == "run") | [.kernel, .ret, .result_ok, .sim_ns, $w] | @tsv' \
		"$work/$1.jsonl"
}
read -r tk tret tok tsim twall < <(run trace "-k trace:synth.trace -x $factor -v uvm")
read -r sk sret sok ssim swall < <(run stream "-k stream -p $passes -x $factor -v uvm")
[ "$tret" = 0 ] && [ "$tok" = 1 ] && [ "$sret" = 0 ] && [ "$sok" = 1 ] ||
	die "replay-bench: a run failed: trace ret $tret result_ok $tok, stream ret $sret result_ok $sok ($work)"
printf '%-20s %12s %9s %12s %14s\n' run records wall_s sim_ns records_per_s
printf '%-20s %12d %9.1f %12d %14.0f\n' "$tk" "$records" "$twall" "$tsim" \
	"$(echo "$records / $twall" | bc -l)"
printf '%-20s %12d %9.1f %12d %14.0f\n' "$sk" "$records" "$swall" "$ssim" \
	"$(echo "$records / $swall" | bc -l)"
printf 'replay-bench: %s, %d records (%d passes over %d lines): replay %.1f s, stream %.1f s, ratio %.2f\n' \
	"$profile" "$records" "$passes" "$lines" "$twall" "$swall" "$(echo "$twall / $swall" | bc -l)"
