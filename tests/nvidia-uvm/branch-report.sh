#!/usr/bin/env bash
# The driver branches make nvidia-vm-test ran, as make nvidia-vm-record
# recorded them (tests/nvidia-uvm/branch-runs.tsv), newest run of each
# version, personality and mode, as a Markdown table: the generated block of
# docs/nvidia-uvm.md (make nvidia-branches-doc).
set -euo pipefail
runs=$(cd "$(dirname "$0")" && pwd)/branch-runs.tsv
[ -s "$runs" ] || { echo "no branch runs recorded in tests/nvidia-uvm/branch-runs.tsv"; exit 0; }
echo '| version | personality | built from | mode | run at | passed | failed | skipped | not passed |'
echo '|---|---|---|---|---|---|---|---|---|'
awk -F'\t' 'NR > 1 { k = $3 " " $4 " " $6; if (!(k in last)) order[++n] = k; last[k] = $0 }
	END { for (i = 1; i <= n; i++) { split(last[order[i]], f, "\t")
		printf "| %s | %s | %s | %s | %s (%s) | %d | %d | %d | %s |\n", f[3], f[4], f[5], f[6],
			f[2], substr(f[1], 1, 10), f[7], f[8], f[9], f[10] } }' "$runs" | LC_ALL=C sort -V
