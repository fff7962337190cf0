#!/usr/bin/env bash
# The card side of the trace validation (docs/trace-replay.md): on a
# machine with a card, CUDA 13 and compute-sanitizer,
#  1. builds ember-capture, libember-static.so (the variants' interposer),
#     the PyTorch allocator shim with the shared runtime, and the two
#     UVMBench programs (capture/scripts/fetch-uvmbench.sh put them in
#     UVMBENCH) with their own Makefiles;
#  2. captures the UVMBench programs as they run (accesses, then timing);
#  3. times every captured program (CuPy, PyTorch, pathfinder, nw) under
#     EMBER_STATIC_MODE = uvm, prefetch, mapped, static: a warm-up round
#     with EMBER_STATIC_VERBOSE=1 (the interposer's decisions, counted in
#     the log), then ROUNDS rounds (default 5), each a timing-mode capture
#     (per-launch card times, no patch) and the program's own timer. The
#     interposer does not reach CuPy's allocations: CuPy's allocator
#     applies the variant itself (EMBER_VARIANT, capture/programs/
#     cupy_managed.py).
#   bash capture/scripts/validate-on-card.sh OUTDIR [DEPS [UVMBENCH]]
# DEPS as capture-on-card.sh's; UVMBENCH defaults to .uvmbench.
# CAPTURES: the UVMBench programs captured in step 2 (default "pathfinder
# nw"); PROGRAMS: those timed in step 3 (default "cupy torch pathfinder
# nw"); either may be empty. PATHFINDER_ARGS, NW_ARGS: their arguments
# (default those of the programs' 'run' files); TAG is added to the
# captured traces' names (PROG$TAG-MODE.trace).
# OUTDIR gets validate.log, the two programs' traces and runs.tar (every
# round's timing trace, PROG-MODE-ROUND.trace, and its trace-dump summary).
set -uo pipefail
out=$1
deps=${2:-}
here=$(cd "$(dirname "$0")/.." && pwd)
root=$(cd "$here/.." && pwd)
uvmbench=$(cd "${3:-$root/.uvmbench}" && pwd) || exit 1
rounds=${ROUNDS:-5}
captures=${CAPTURES-pathfinder nw}
programs=${PROGRAMS-cupy torch pathfinder nw}
tag=${TAG:-}
build=/tmp/ember-validate-build
runs=$build/runs
rm -rf "$runs"
mkdir -p "$out" "$build" "$runs"
exec > >(tee "$out/validate.log") 2>&1

. "$here/scripts/card-build-env.sh"
card_build_env "$deps" || exit 1
echo "== build"
make -C "$here" O="$build" SANITIZER_DIR="$sanitizer_dir" "${extra[@]}" tool || exit 1
make -C "$root/cuda/ember-static" O="$build" "$build/libember-static.so" || exit 1
# -cudart shared: the interposer cannot reach the static runtime
nvcc -arch=sm_90 -cudart shared -shared -Xcompiler -fPIC \
	-o "$build/libmanaged-alloc.so" "$here/programs/managed_alloc.cu" || exit 1
# The UVMBench programs with their authors' Makefiles (make release);
# only the compiler is named: nvcc 13 for sm_90, with the shared runtime.
rm -rf "$build/uvmbench"
cp -r "$uvmbench" "$build/uvmbench"
for p in pathfinder nw; do
	make -C "$build/uvmbench/UVM_benchmarks/rodinia/$p" CUDA_DIR=/usr/local/cuda \
		CC="nvcc -arch=sm_90 -cudart shared" || exit 1
done
pathfinder=$build/uvmbench/UVM_benchmarks/rodinia/pathfinder/pathfinder
needle=$build/uvmbench/UVM_benchmarks/rodinia/nw/needle

echo "== versions"
date -u +%Y-%m-%dT%H:%M:%SZ
nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used --format=csv,noheader
nvcc --version | tail -1
"$sanitizer_dir/compute-sanitizer" --version 2>/dev/null | tail -1
python3 -c 'import cupy, torch; print("cupy", cupy.__version__, "torch", torch.__version__)'
echo "uvmbench $(cat "$uvmbench/COMMIT")"
device=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader | head -1)

# prog_cmd NAME: the program's command line (the UVMBench ones with the
# arguments of their 'run' files).
prog_cmd() {
	case $1 in
	cupy) echo python3 "$here/programs/cupy_managed.py" ;;
	torch) echo python3 "$here/programs/torch_forward.py" "$build/libmanaged-alloc.so" ;;
	pathfinder) echo "$pathfinder" ${PATHFINDER_ARGS:-100000 100 20} ;;
	nw) echo "$needle" ${NW_ARGS:-2048 10} ;;
	esac
}

# capture NAME MODE TRACE [ENV...]: one run under ember-capture.
capture() {
	local name=$1 mode=$2 trace=$3 start end rc
	shift 3
	start=$(date +%s%N)
	(cd "$build" && env "$@" CUDA_INJECTION64_PATH="$build/libember-capture.so" \
		EMBER_CAPTURE_MODE="$mode" EMBER_CAPTURE_OUTPUT="$trace" \
		EMBER_CAPTURE_META="program=$name;device=$device;driver=$driver;${META:-}" \
		timeout "${RUN_TIMEOUT:-60}" $(prog_cmd "$name") >"$build/prog.out" 2>"$build/prog.err")
	rc=$?
	end=$(date +%s%N)
	grep -h -E 'time_s=|ember-capture:|cupy_managed: variant|Error|error' "$build/prog.out" "$build/prog.err" | head -8
	grep -c '^ember-static:' "$build/prog.err" | sed 's/^/ember-static lines: /'
	grep '^ember-static:' "$build/prog.err" | sed 's/0x[0-9a-f]*/ADDR/g' | sort | uniq -c | head -8
	echo "RUN $name $(basename "$trace" .trace) rc=$rc wall_ms=$(( (end - start) / 1000000 ))"
}

echo "== captures (uvm, no interposer)"
for p in $captures; do
	for mode in accesses timing; do
		META="source=OSU-STARLAB/UVM_benchmark@$(cat "$uvmbench/COMMIT");args=$(prog_cmd $p | cut -d' ' -f2- | tr ' ' ',')" \
			capture "$p" "$mode" "$out/$p$tag-$mode.trace"
	done
done

echo "== variants"
for r in $(seq 0 "$rounds"); do
	for p in $programs; do
		for v in uvm prefetch mapped static; do
			verbose=0; [ "$r" = 0 ] && verbose=1
			META="variant=$v;round=$r" capture "$p" timing "$runs/$p-$v-$r.trace" LD_PRELOAD="$build/libember-static.so" \
				EMBER_STATIC_MODE="$v" EMBER_STATIC_ALIGN_KB=4 EMBER_STATIC_VERBOSE=$verbose \
				EMBER_VARIANT="$v"
		done
	done
done

echo "== summaries"
for t in "$out"/*.trace "$runs"/*.trace; do
	[ -e "$t" ] || continue
	echo "SUMMARY $(basename "$t" .trace) $("$build/trace-dump" --summary "$t" | tail -1)"
done
for p in $captures; do
	"$build/trace-dump" "$out/$p$tag-accesses.trace" | grep -v '^event ' | head -30
done
for p in $programs; do
	[ -e "$runs/$p-static-0.trace" ] &&
		"$build/trace-dump" "$runs/$p-static-0.trace" | grep '^event' | head -12
done
tar -C "$runs" -cf "$out/runs.tar" .
ls -l "$out"
