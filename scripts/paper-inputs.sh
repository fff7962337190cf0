#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# docs/paper-inputs.md's generated block: what oversubscription each GPU
# column of the paper's Table 4 ran at. From the caption (the input sizes,
# the 16 GiB of device memory each GPU was capped to), from the table
# itself (experiments/paper/table4.csv: how much stock UVM's time grows
# from the 0.5x inputs to the "~1.5x" ones, beside how much the input
# grows), and from the card (capture/traces/paper: the bytes Thrust's
# radix sort allocates beside its keys, read from a committed trace).
#   bash scripts/paper-inputs.sh [TRACE_DUMP]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dump=${1:-$root/build/capture/trace-dump}
table=$root/experiments/paper/table4.csv
radix=$root/capture/traces/paper/radix-256m-timing.trace
[ -x "$dump" ] || { echo "paper-inputs.sh: no $dump (make -C capture)" >&2; exit 1; }

# Table 4's caption, one line per GPU column: name in table4.csv, name,
# device memory (GiB), the 0.5x inputs (GiB), the "~1.5x" inputs (GiB).
columns="rtx5080 RTX_5080 16 8 22
a40 A40 16 8 24
h200 H200 16 8 16"

# Thrust's temporaries over its keys: the device allocation radix_sort's
# sort makes (kind 2) against its managed keys (kind 1).
temp_ratio=$("$dump" "$radix" | awk '$3 == "alloc" {
		split($6, size, "="); split($7, kind, "=")
		if (kind[2] == 1) keys += size[2]; else if (size[2] > 4096) temp += size[2] }
	END { if (!keys) exit 1; printf "%.3f", temp / keys }')

echo "Inputs over device memory, per column (the caption):"
echo
echo "| GPU | device memory (GiB) | 0.5x inputs (GiB) | \"~1.5x\" inputs (GiB) | inputs over memory at \"~1.5x\" | input growth, \"~1.5x\" over 0.5x | radix sort with Thrust's temporaries at 0.5x | the same at \"~1.5x\" |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
while read -r _ name memory half big; do
	awk -v n="$name" -v m="$memory" -v h="$half" -v b="$big" -v t="$temp_ratio" 'BEGIN {
		gsub("_", " ", n)
		printf "| %s | %d | %d | %d | %.2fx | %.2fx | %.2fx | %.2fx |\n", n, m, h, b,
		       b / m, b / h, h * (1 + t) / m, b * (1 + t) / m }'
done <<<"$columns"
echo
echo "Thrust's temporaries, per byte of keys (radix-256m-timing.trace's device allocation over its managed keys): $temp_ratio"
echo
echo "Stock UVM's time at \"~1.5x\" over its time at 0.5x, per application (Table 4; \">\" where the \"~1.5x\" run hit the cap, \"capped\" where both did):"
echo
printf "| application |"
while read -r _ name _; do printf " %s |" "${name//_/ }"; done <<<"$columns"
echo
printf "| --- |"
while read -r _; do printf " --- |"; done <<<"$columns"
echo
for app in pathfinder kmeans cnn bitonic_sort radix_sort bfs; do
	printf "| %s |" "$app"
	while read -r gpu _; do
		awk -F, -v g="$gpu" -v a="$app" '
			$2 == g && $3 == a && $4 == "uvm" { t[$1] = $5 }
			END {
				small = t["0.5x"]; big = t["1.5x"]
				if (small ~ /^>/) { printf " capped |"; exit }
				lower = big ~ /^>/; sub(/^>/, "", big)
				printf " %s%.1f |", lower ? ">" : "", big / small }' "$table"
	done <<<"$columns"
	echo
done
printf "| input growth |"
while read -r _ _ _ half big; do
	awk -v h="$half" -v b="$big" 'BEGIN { printf " %.2f |", b / h }'
done <<<"$columns"
echo
