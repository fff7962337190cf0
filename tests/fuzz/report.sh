#!/usr/bin/env bash
# make fuzz-report: the libFuzzer campaigns make fuzz-campaign recorded in
# tests/fuzz/runs.tsv, summed per harness, as a Markdown table (the
# generated block of docs/fuzzing.md, make fuzz-doc).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
runs=$here/runs.tsv
[ -s "$runs" ] || { echo "no campaigns recorded in tests/fuzz/runs.tsv"; exit 0; }
echo '| harness | campaigns | commits | seconds | executions | exec/s | crashes | timeouts |'
echo '|---|---|---|---|---|---|---|---|'
awk -F'\t' 'NR > 1 { h = $3; if (!(h in n)) order[++k] = h
		n[h]++; s[h] += $4; e[h] += $5; c[h] += $9; t[h] += $10
		if (index(" " cm[h] " ", " " $2 " ") == 0) cm[h] = cm[h] (cm[h] ? " " : "") $2 }
	END { for (i = 1; i <= k; i++) { h = order[i]
		printf "| %s | %d | %s | %d | %d | %.0f | %d | %d |\n", h, n[h], cm[h],
			s[h], e[h], s[h] ? e[h] / s[h] : 0, c[h], t[h] } }' "$runs"
# make fuzz-qemu's runs (tests/fuzz/qemu/runs*.tsv, one table per
# personality: personality.sh), summed per personality
echo
echo '| generic-fuzz personality | runs | commits | seconds | executions | exec/s | crashes | timeouts |'
echo '|---|---|---|---|---|---|---|---|'
for p in emgpu ga10x gh100; do
	t=$here/qemu/runs.tsv
	[ $p = emgpu ] || t=$here/qemu/runs-$p.tsv
	[ -s "$t" ] || { echo "| $p | 0 | - | 0 | 0 | 0 | 0 | 0 |"; continue; }
	awk -F'\t' -v p=$p 'NR > 1 { n++; s += $3; e += $4; c += $9; t += $11
			if (index(" " cm " ", " " $2 " ") == 0) cm = cm (cm ? " " : "") $2 }
		END { if (split(cm, x, " ") > 3) cm = length(x) " commits"
			printf "| %s | %d | %s | %d | %d | %.0f | %d | %d |\n", p, n, cm, s, e,
				s ? e / s : 0, c, t }' "$t"
done
