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

"$build/uvm-ubench" --fidelity --bytes $((4 << 30)) --reps 3 | tee "$out/fidelity.jsonl"

# The L2's sysmem traffic: the metrics of this list the card's ncu knows.
ncu --query-metrics >"$build/metrics.txt" 2>&1
want="gpu__time_duration lts__t_requests_aperture_sysmem_op_write
lts__t_sectors_aperture_sysmem_op_write lts__t_requests_aperture_sysmem_op_read
lts__t_sectors_aperture_sysmem_op_read pcie__read_bytes pcie__write_bytes
lts__t_sectors_srcunit_tex_aperture_sysmem_op_write"
metrics=
for m in $want; do
	grep -q "^$m " "$build/metrics.txt" && metrics=$metrics${metrics:+,}$m.sum
done
grep -o '^[a-z_]*sysmem[a-z_]*' "$build/metrics.txt" | sort -u >>"$out/host.txt"
echo "metrics: $metrics"
prof() {	# name ncu-args... -- program...
	local name=$1
	shift
	timeout 240 ncu --clock-control none --csv --page raw --metrics "$metrics" \
		--log-file "$out/ncu-$name.csv" "$@" ||
		echo "ncu $name: failed" >&2
}
prof writes -k regex:write_ "$build/uvm-ubench" --fidelity --bytes $((256 << 20)) --reps 1
prof radix -k regex:rx_ --launch-count 6 "$build/ember-apps" radix mapped $((1 << 30))
for g in 1 2; do
	prof conv-$g -k regex:cv_ --launch-count 4 "$build/ember-apps" conv mapped $((g << 30))
done
python3 "$top/tests/hw/sysmem_csv.py" --header writes="$out/ncu-writes.csv" \
	radix-1g="$out/ncu-radix.csv" conv-1g="$out/ncu-conv-1.csv" \
	conv-2g="$out/ncu-conv-2.csv" >"$out/sysmem.csv"
echo "fidelity: done"
