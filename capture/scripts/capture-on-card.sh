#!/usr/bin/env bash
# Builds ember-capture on a machine with a card and CUDA's compute-sanitizer,
# then captures capture/programs/ (selftest, CuPy on a managed pool, a
# PyTorch forward pass through a managed pluggable allocator), each run
# three ways: plain, EMBER_CAPTURE_MODE=timing, and with accesses. Writes
# the traces, trace-dump's output and the wall times to OUTDIR.
#   bash capture/scripts/capture-on-card.sh OUTDIR [DEPS]
# RUN_TIMEOUT bounds each run (seconds, default 200).
# DEPS, if given, holds include/zstd.h and lib/libzstd.so.1 for machines
# without libzstd-dev (the device machine has no package registry).
set -uo pipefail
out=$1
deps=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
build=/tmp/ember-capture-build
mkdir -p "$out" "$build"
log=$out/capture.log
exec > >(tee "$log") 2>&1

. "$here/scripts/card-build-env.sh"
card_build_env "$deps" || exit 1
echo "sanitizer: $sanitizer_dir"
make -C "$here" O="$build" SANITIZER_DIR="$sanitizer_dir" "${extra[@]}" tool || exit 1
nvcc -arch=sm_90 -o "$build/selftest" "$here/programs/selftest.cu" || exit 1
nvcc -arch=sm_90 -shared -Xcompiler -fPIC -o "$build/libmanaged-alloc.so" \
	"$here/programs/managed_alloc.cu" || exit 1

echo "== versions"
date -u +%Y-%m-%dT%H:%M:%SZ
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader
nvcc --version | tail -1
"$sanitizer_dir/compute-sanitizer" --version 2>/dev/null | tail -1
python3 -c 'import cupy, torch; print("cupy", cupy.__version__, "torch", torch.__version__)'
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)

# run NAME MODE COMMAND...: MODE plain, timing or accesses.
run() {
	local name=$1 mode=$2 start end
	shift 2
	start=$(date +%s%N)
	if [ "$mode" = plain ]; then
		timeout "${RUN_TIMEOUT:-200}" "$@"
	else
		CUDA_INJECTION64_PATH=$build/libember-capture.so \
		EMBER_CAPTURE_MODE=$mode EMBER_CAPTURE_OUTPUT=$out/$name-$mode.trace \
		EMBER_CAPTURE_META="program=$name;device=$device;driver=$driver" \
			timeout "${RUN_TIMEOUT:-200}" "$@"
	fi
	echo "rc=$?"
	end=$(date +%s%N)
	echo "WALL $name $mode $(( (end - start) / 1000000 )) ms"
}

for mode in plain timing accesses; do
	run selftest $mode "$build/selftest"
	run cupy $mode python3 "$here/programs/cupy_managed.py"
	run torch $mode python3 "$here/programs/torch_forward.py" "$build/libmanaged-alloc.so"
done
# A second plain round: the first pays CuPy's kernel compilation.
run cupy plain python3 "$here/programs/cupy_managed.py"
run torch plain python3 "$here/programs/torch_forward.py" "$build/libmanaged-alloc.so"

echo "== traces"
ls -l "$out"/*.trace
for t in "$out"/*.trace; do
	echo "-- $t"
	"$build/trace-dump" "$t" | grep -v '^event ' | head -60
	"$build/trace-dump" --summary "$t" | tail -1
done
"$build/trace-dump" --accesses "$out/selftest-accesses.trace" | grep -c '^  warp'
"$build/trace-dump" --accesses "$out/selftest-accesses.trace" | grep '^  warp' | head -3
