#!/usr/bin/env bash
# The applications' kernels with their data resident, on a real card: each
# app's prefetch variant (every buffer in HBM before the first launch) at
# FOOTPRINT under Nsight Compute, one CSV row per kernel launch: its time,
# the warp instructions its SMs issued, active cycles, DRAM bytes. What the
# model's compute charge (models/src/kernels/, gm_warp_compute) is fitted
# to (tests/hw/kernels_csv.py keeps those columns). Clocks are left alone (--clock-control none). Also the kernels' SASS
# (cuobjdump) and ptxas' register and spill report.
#
# APP_NAMES (default every app of ember-apps --list) narrows the apps.
#
# usage: tests/hw/kernels.sh OUTDIR [FOOTPRINT_BYTES]   (default 1 GiB)
set -euo pipefail

out=${1:?usage: kernels.sh OUTDIR [FOOTPRINT_BYTES]}
foot=${2:-$((1 << 30))}
top=$(cd "$(dirname "$0")/../.." && pwd)
build=$top/build/cuda
mkdir -p "$out" "$build"
make -s -C "$top/cuda/apps" O="$build"
cuobjdump --dump-sass "$build/ember-apps" >"$out/ember-apps.sass" || true
make -s -B -C "$top/cuda/apps" O="$build" GENCODE="-arch=sm_90 -Xptxas -v" \
	>"$out/ptxas.txt" 2>&1 || true

metrics=gpu__time_duration.sum,smsp__inst_executed.sum,sm__cycles_active.avg
metrics=$metrics,smsp__cycles_active.avg,dram__bytes_read.sum,dram__bytes_write.sum
metrics=$metrics,sm__warps_active.avg.pct_of_peak_sustained_active
metrics=$metrics,sm__cycles_elapsed.avg.per_second,launch__grid_size,launch__block_size
: >"$out/kernels.csv"
for app in ${APP_NAMES:-$("$build/ember-apps" --list)}; do
	timeout 300 ncu --clock-control none --csv --page raw --metrics "$metrics" \
		--log-file "$build/ncu-$app.csv" \
		"$build/ember-apps" "$app" prefetch "$foot" >"$build/ncu-$app.json" ||
		echo "ncu $app: failed" >&2
	cat "$build/ncu-$app.json" | tee -a "$out/kernels-runs.jsonl"
	rev=$(sed -n 's/.*"rev":\([0-9]*\).*/\1/p' "$build/ncu-$app.json")
	python3 "$top/tests/hw/kernels_csv.py" "$app" "${rev:-1}" "$build/ncu-$app.csv" \
		$([ -s "$out/kernels.csv" ] || echo --header) >>"$out/kernels.csv"
done
echo "kernels: $(($(wc -l <"$out/kernels.csv") - 1)) launches profiled"
