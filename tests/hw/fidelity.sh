#!/usr/bin/env bash
# Issue 13's misses on a real card (the device machine): uvm-ubench
# --fidelity (mapped writes against size, request size and radix's stream
# order; fault-driven first touch as S streams and as gemv's rows, at the
# apps' footprints), then the L2's sysmem requests and sectors of those
# write kernels and of the mapped radix and conv kernels under Nsight
# Compute (one CSV row per launch). Managed memory stays at most 4 GiB.
#
# OUTDIR gets gpu.csv, host.txt (lscpu, the sysmem metrics ncu knows),
# fidelity.jsonl, ncu-NAME.csv and sysmem.csv (tests/hw/sysmem_csv.py: one row
# per profiled launch).
#
# PARTS (default "ubench sysmem") picks: ubench (uvm-ubench --fidelity),
# sysmem (the counters above), stores (radix's first pass, mapped, 1 GiB:
# its global stores at the SMs' L1 beside the sectors the L2 gets, into
# stores.csv), static (kmeans at 1 GiB under Ember-static with its
# decisions on stderr, and prefetch, into static.jsonl and static.log), um
# (gemv, pathfinder and colscan, uvm, at 32 MiB, 128 MiB and 1 GiB, gemv at
# 1 GiB twice; UM_SIZES picks others, UM_TRACE_FLUSH_MS passes through to
# cuda/um-trace), under cuda/um-trace: their migrations, fault records and the
# record accounting, into um.jsonl, and every record into
# um-records/APP-SIZE.csv.gz for tests/hw/um_records.py).
#
# usage: tests/hw/fidelity.sh OUTDIR
set -uo pipefail

out=${1:?usage: fidelity.sh OUTDIR}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build/cuda
mkdir -p "$out" "$build"

nvidia-smi --query-gpu=name,driver_version,memory.total,memory.used,pcie.link.gen.current,pcie.link.width.current \
	--format=csv >"$out/gpu.csv"
lscpu >"$out/host.txt" 2>&1
nvcc -O2 -std=c++17 -arch=sm_90 -o "$build/uvm-ubench" "$top/cuda/ubench/uvm_ubench.cu" || exit 1
make -s -C "$top/cuda/apps" O="$build" || exit 1

parts=" ${PARTS:-ubench sysmem} "
part() { [[ $parts == *" $1 "* ]]; }

part ubench &&
	"$build/uvm-ubench" --fidelity --bytes $((4 << 30)) --reps 3 | tee "$out/fidelity.jsonl"

# The L2's sysmem traffic: the metrics of this list the card's ncu knows.
ncu --query-metrics >"$build/metrics.txt" 2>&1
want="gpu__time_duration lts__t_requests_aperture_sysmem_op_write
lts__t_sectors_aperture_sysmem_op_write lts__t_requests_aperture_sysmem_op_read
lts__t_sectors_aperture_sysmem_op_read pcie__read_bytes pcie__write_bytes
lts__t_sectors_srcunit_tex_aperture_sysmem_op_write"
known() {	# the names of $* that ncu knows, each .sum, comma-separated
	local m list=
	for m in "$@"; do
		grep -q "^$m " "$build/metrics.txt" && list=$list${list:+,}$m.sum
	done
	echo "$list"
}
metrics=$(known $want)
grep -o '^[a-z_]*sysmem[a-z_]*' "$build/metrics.txt" | sort -u >>"$out/host.txt"
echo "metrics: $metrics"
prof() {	# name ncu-args... -- program...
	local name=$1
	shift
	timeout 240 ncu --clock-control none --csv --page raw --metrics "$metrics" \
		--log-file "$out/ncu-$name.csv" "$@" ||
		echo "ncu $name: failed" >&2
}
if part sysmem; then
	prof writes -k regex:write_ "$build/uvm-ubench" --fidelity --bytes $((256 << 20)) --reps 1
	prof radix -k regex:rx_ --launch-count 6 "$build/ember-apps" radix mapped $((1 << 30))
	for g in 1 2; do
		prof conv-$g -k regex:cv_ --launch-count 4 "$build/ember-apps" conv mapped $((g << 30))
	done
	python3 "$top/tests/hw/sysmem_csv.py" --header writes="$out/ncu-writes.csv" \
		radix-1g="$out/ncu-radix.csv" conv-1g="$out/ncu-conv-1.csv" \
		conv-2g="$out/ncu-conv-2.csv" >"$out/sysmem.csv"
fi
if part stores; then
	metrics=$(known gpu__time_duration smsp__inst_executed_op_global_st \
		l1tex__t_requests_pipe_lsu_mem_global_op_st \
		l1tex__t_sectors_pipe_lsu_mem_global_op_st \
		lts__t_requests_srcunit_tex_aperture_sysmem_op_write \
		lts__t_sectors_srcunit_tex_aperture_sysmem_op_write)
	echo "metrics: $metrics"
	prof stores -k regex:rx_ --launch-count 3 "$build/ember-apps" radix mapped $((1 << 30))
	python3 "$top/tests/hw/sysmem_csv.py" --header radix-1g="$out/ncu-stores.csv" \
		>"$out/stores.csv"
fi
if part static; then
	make -s -C "$top/cuda/ember-static" O="$build" || exit 1
	LD_PRELOAD="$build/libember-static.so" EMBER_STATIC_VERBOSE=1 \
		"$build/ember-apps" kmeans uvm $((1 << 30)) 2>"$out/static.log" |
		sed 's/"variant":"uvm"/"variant":"static"/' | tee "$out/static.jsonl"
	"$build/ember-apps" kmeans prefetch $((1 << 30)) | tee -a "$out/static.jsonl"
fi
if part um; then
	cuda=$(dirname "$(dirname "$(readlink -f "$(command -v nvcc)")")")
	gcc -std=c11 -O2 -Wall -shared -fPIC -I"$cuda/include" \
		-I"$cuda/extras/CUPTI/include" -o "$build/libum-trace.so" \
		"$top/cuda/um-trace/um_trace.c" -L"$cuda/lib64" -L"$cuda/lib" \
		-L"$cuda/extras/CUPTI/lib64" -Wl,-rpath,"$cuda/lib64:$cuda/lib:$cuda/extras/CUPTI/lib64" \
		-lcupti -lcuda || exit 1
	: >"$out/um.jsonl"
	mkdir -p "$out/um-records"
	# gemv at 1 GiB twice (1g-2): its bytes fell short of the footprint once
	for run in ${UM_SIZES:-32m 128m 1g 1g-2}; do
		for app in gemv pathfinder colscan; do
			[[ $run == *-2 && $app != gemv ]] && continue
			csv=$out/um-records/$app-$run.csv
			size=${run%-2}
			unit=20
			[[ $size == *g ]] && unit=30
			bytes=$((${size%[mg]} << unit))
			res=$(UM_TRACE_RECORDS=$csv LD_PRELOAD="$build/libum-trace.so" \
				"$build/ember-apps" $app uvm $bytes 2>"$build/um.err")
			um=$(grep '^{"um_' "$build/um.err" || echo '{"um_error":1}')
			grep -v '^{"um_' "$build/um.err" >&2
			echo "${res%\}},${um#\{}" | tee -a "$out/um.jsonl"
			gzip -f "$csv"
		done
	done
fi
echo "fidelity: done"
