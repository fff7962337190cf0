#!/usr/bin/env bash
# Validation on a real NVIDIA card (the device machine): builds cuda/ there,
# runs the calibration microbenchmarks and Ember-static through its
# LD_PRELOAD interposer on an unmodified program, the applications' kernels
# under Nsight Compute (tests/hw/kernels.sh; KERNELS=0 skips it), then
# (APPS=0 skips it) the applications and Ember-static's hint test (tests/hw/apps.sh, into
# OUTDIR/apps), and writes JSON lines to OUTDIR. Managed allocations stay
# far below the card's free memory.
#
# usage: tests/hw/run.sh OUTDIR [BYTES]
set -euo pipefail

out=${1:?usage: run.sh OUTDIR [BYTES]}
bytes=${2:-$((4 << 30))}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build/cuda
mkdir -p "$out" "$build"

nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,pcie.link.gen.current,pcie.link.width.current \
	--format=csv >"$out/gpu.csv"
make -s -C "$top/cuda/ember-static" O="$build"
nvcc -O2 -std=c++17 -arch=sm_90 -o "$build/uvm-ubench" "$top/cuda/ubench/uvm_ubench.cu"

# The full set at BYTES with the first-touch size sweep, then the set again
# at the sizes make calibrate runs in the testbed (every line names its
# buffer, which pairs the rows).
"$build/uvm-ubench" --bytes "$bytes" --reps 3 --sweep | tee "$out/ubench.jsonl"
for small in $((256 << 20)) $((64 << 20)); do
	"$build/uvm-ubench" --bytes "$small" --reps 5 | tee -a "$out/ubench.jsonl"
done

# Ember-static on an unmodified program: plain UVM, then the interposer with
# the whole card, then with a cap of half the allocation (a smaller card's
# split), each checked for a correct sum and where the pages went.
static() {	# name, env...
	local name=$1
	shift
	env "$@" "$build/test-static" "$bytes" |
		sed "s/^{/{\"run\":\"$name\",/" | tee -a "$out/ember-static.jsonl"
}
: >"$out/ember-static.jsonl"
static plain
static interposed LD_PRELOAD="$build/libember-static.so" EMBER_STATIC_VERBOSE=1
static half-split LD_PRELOAD="$build/libember-static.so" EMBER_STATIC_VERBOSE=1 \
	EMBER_STATIC_GPU_BYTES=$((bytes / 2))

# the apps' kernels with their data resident, under Nsight Compute
# (KERNELS=0 skips it)
[ "${KERNELS:-1}" = 0 ] || bash "$top/tests/hw/kernels.sh" "$out/kernels"
[ "${APPS:-1}" = 0 ] || bash "$top/tests/hw/apps.sh" "$out/apps"
