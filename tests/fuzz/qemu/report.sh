#!/usr/bin/env bash
# make fuzz-qemu-report: the runs make fuzz-qemu recorded in runs.tsv, and
# their totals (executions, fuzzing time, the latest coverage, crashes).
set -euo pipefail
runs=$(cd "$(dirname "$0")" && pwd)/runs.tsv
[ -s "$runs" ] || { echo "no fuzz-qemu runs recorded in $runs"; exit 0; }
cat "$runs"
awk -F'\t' 'NR > 1 { n++; s += $3; e += $4; c += $9; cov = $6; ft = $7; corp = $8 }
	END { printf "total: %d runs, %d executions in %d s (%.0f exec/s), " \
		"coverage %s edges %s features (last run), corpus %s inputs, %d crashes\n",
		n, e, s, s ? e / s : 0, cov, ft, corp, c }' "$runs"
